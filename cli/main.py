"""The `polo-lineup` entry point.

Each subcommand lives in ``cli/commands/<name>.py`` and exposes ``register(subparsers)``,
which adds its parser and sets ``func`` to a function ``(args) -> int`` (the exit status).
The functions are thin wrappers over library code that the tests call directly.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from cli import commands
from cli.errors import UserError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polo-lineup",
        description="Check polo throw-in line-ups in recorded footage against USPA Rule 20.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"cli.commands.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"polo-lineup {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`: not an error of ours
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
