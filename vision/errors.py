"""Errors raised by the vision stages: one clear message each, never a raw traceback."""
from __future__ import annotations


class VideoError(Exception):
    """A video file cannot be opened, decoded or written (missing, empty, truncated, corrupt...)."""


class CalibrationError(Exception):
    """A pixel ↔ field calibration is malformed, degenerate or inconsistent."""


class SettingsError(ValueError):
    """A setting that does not fit the footage (a throw-in frame outside the part analysed...)."""
