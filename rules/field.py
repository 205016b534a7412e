"""The polo field in yards, and its shapely geometry.

x runs from the south end line (0) to the north end line (length); y from the west
sideline (0) to the east one (width). The centre line is x = length / 2.
"""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import LineString, MultiLineString, Point, Polygon, box

SOUTH, NORTH = "south", "north"
ENDS = (SOUTH, NORTH)


@dataclass(frozen=True)
class Field:
    """A rectangular polo field. Defaults: 300 x 160 yards, boarded."""

    length_yd: float = 300.0
    width_yd: float = 160.0
    boarded: bool = True
    side_runout_yd: float = 10.0   # safety zone beyond each sideline/boards
    end_runout_yd: float = 30.0    # safety zone beyond each end line
    _cache: dict = dc_field(default_factory=dict, compare=False, repr=False, hash=False)

    @property
    def centre_x(self) -> float:
        return self.length_yd / 2.0

    def goal(self, end: str) -> tuple[float, float]:
        """The centre of the goal mouth on the given end line."""
        return (0.0 if end == SOUTH else self.length_yd, self.width_yd / 2.0)

    # --- shapely geometry, built once per field -------------------------------------
    @cached_property
    def playing_area(self) -> Polygon:
        return box(0.0, 0.0, self.length_yd, self.width_yd)

    @cached_property
    def with_runout(self) -> Polygon:
        return box(-self.end_runout_yd, -self.side_runout_yd,
                   self.length_yd + self.end_runout_yd, self.width_yd + self.side_runout_yd)

    @cached_property
    def centre_line(self) -> LineString:
        return LineString([(self.centre_x, 0.0), (self.centre_x, self.width_yd)])

    @cached_property
    def sidelines(self) -> MultiLineString:
        """The west and east sidelines (the boards, on a boarded field)."""
        return MultiLineString([[(0.0, 0.0), (self.length_yd, 0.0)],
                                [(0.0, self.width_yd), (self.length_yd, self.width_yd)]])

    def half(self, end: str) -> Polygon:
        """The half of the field on the side of the goal at `end`."""
        c = self.centre_x
        return box(0.0, 0.0, c, self.width_yd) if end == SOUTH else box(c, 0.0, self.length_yd, self.width_yd)

    @staticmethod
    def umpire_circle(x: float, y: float, radius_yd: float = 5.0) -> Polygon:
        """The circle no player may enter around an umpire at the line-up."""
        return Point(x, y).buffer(radius_yd, quad_segs=32)

    # --- vectorised queries -----------------------------------------------------------
    def inside_runout(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """True where (x, y) lies on the field or its run-out (boundary included)."""
        return shapely.intersects_xy(self.with_runout, x, y)

    def distance_to_sidelines(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Distance in yards from each point to the nearer sideline/boards."""
        pts = shapely.points(np.asarray(x, float), np.asarray(y, float))
        return shapely.distance(pts, self.sidelines)

    def to_dict(self) -> dict:
        return {"length_yd": self.length_yd, "width_yd": self.width_yd, "boarded": self.boarded,
                "side_runout_yd": self.side_runout_yd, "end_runout_yd": self.end_runout_yd}
