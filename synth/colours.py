"""Named colours (BGR, as OpenCV draws) for jerseys, coats and kit."""
from __future__ import annotations

JERSEY_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 35, 200),
    "blue": (190, 80, 25),
    "white": (235, 235, 235),
    "yellow": (40, 210, 235),
    "green": (60, 140, 30),
    "black": (30, 30, 30),
    "orange": (20, 120, 240),
    "light_blue": (230, 180, 110),
    "navy": (90, 40, 20),
    "purple": (130, 40, 110),
    "pink": (170, 110, 240),
    "maroon": (40, 20, 110),
    "gold": (40, 170, 210),
    "teal": (140, 130, 20),
    "grey": (140, 140, 140),
}

COAT_BGR: dict[str, tuple[int, int, int]] = {
    "bay": (30, 60, 120),
    "dark_bay": (20, 35, 70),
    "chestnut": (35, 68, 135),
    "sorrel": (50, 90, 150),
    "black": (25, 25, 28),
    "grey": (165, 165, 160),
    "brown": (35, 55, 95),
}


def parse_colour(value, path: str, error) -> tuple[int, int, int]:
    """A colour given as a name from JERSEY_BGR or as [b, g, r] 0-255; `error(path, msg)` raises."""
    if isinstance(value, str):
        if value not in JERSEY_BGR:
            error(path, f"unknown colour {value!r}; use [b, g, r] or one of {', '.join(JERSEY_BGR)}")
        return JERSEY_BGR[value]
    if (isinstance(value, (list, tuple)) and len(value) == 3
            and all(isinstance(c, (int, float)) and not isinstance(c, bool) and 0 <= c <= 255 for c in value)):
        return tuple(int(round(c)) for c in value)
    error(path, "expected a colour name or [b, g, r] with values 0-255")
    raise AssertionError  # unreachable
