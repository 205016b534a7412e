"""Errors the CLI turns into a one-line message instead of a traceback."""


class UserError(Exception):
    """An error caused by the user's input: printed as one line, exit status 2."""
