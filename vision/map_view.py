"""Which part of the field the annotated clip's top-down inset shows, frame by frame.

The whole field (300 x 160 yd) in a 400-px inset is 1.3 px a yard: a line-up of eight players
and the umpire, all within ~10 yd of one another, is one blob with its labels on top of each
other. The inset therefore zooms to what is in play: the smallest of a few fixed views (40,
80, 150 yd long, or the whole field) that holds every placed player and umpire with 5 yd to
spare (the umpire's circle), centred on them. So that the picture does not pump or drift, a
frame takes the widest view needed within a second either side (it zooms out before a player
rides out of it and back in after), and the centre is their mean over half a second either
side, then moved, if need be, to hold the frame's own players.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

VIEW_LENGTHS_YD = (40.0, 80.0, 150.0)    # the zoomed views, shortest first; else the whole field
PAD_YD = 5.0                             # room around the outermost players: the umpire's circle
HOLD_S = 1.0                             # a view is the widest needed within this either side
CENTRE_S = 0.5                           # its centre is the mean over this either side


def half_extent(view_length: float, length: float, width: float) -> np.ndarray:
    """Half a view's extent (x, y) in yards: `view_length` long, the field's proportions."""
    return np.array([view_length / 2, view_length * width / length / 2])


@dataclass(frozen=True)
class MapView:
    """A window on the field, in yards: its centre and its length along the field (x). Its
    width (y) keeps the field's proportions, so the inset keeps its shape."""

    centre_yd: tuple[float, float]
    length_yd: float

    def bounds(self, length: float, width: float) -> tuple[np.ndarray, np.ndarray]:
        """Its (x, y) corners in yards, lowest and highest, on a field `length` x `width`."""
        half = half_extent(self.length_yd, length, width)
        return np.asarray(self.centre_yd, float) - half, np.asarray(self.centre_yd, float) + half

    def is_whole_field(self, length: float) -> bool:
        return self.length_yd >= length


def whole_field(length: float, width: float) -> MapView:
    return MapView((length / 2, width / 2), float(length))


def _needed_length(xy: np.ndarray, length: float, width: float) -> float:
    """Length of the shortest window (field proportions) that holds `xy` with PAD_YD round them."""
    span = xy.max(axis=0) - xy.min(axis=0) + 2 * PAD_YD
    return float(max(span[0], span[1] * length / width))


def _level(need: float, length: float) -> float:
    return next((v for v in VIEW_LENGTHS_YD if v >= need and v < length), float(length))


def _fit(centre: np.ndarray, view_len: float, xy: np.ndarray | None, length: float, width: float
         ) -> tuple[float, float]:
    """The centre moved as little as needed to hold `xy` (with the pad), then kept on the field."""
    half = half_extent(view_len, length, width)
    c = np.asarray(centre, float).copy()
    if xy is not None and len(xy):
        lo, hi = xy.min(axis=0) - PAD_YD, xy.max(axis=0) + PAD_YD
        c = np.clip(c, hi - half, lo + half)          # window [c - half, c + half] around [lo, hi]
    bounds = np.array([length, width], float)
    for k in range(2):
        c[k] = bounds[k] / 2 if 2 * half[k] >= bounds[k] else float(np.clip(c[k], half[k], bounds[k] - half[k]))
    return float(c[0]), float(c[1])


def _finite_points(p) -> np.ndarray | None:
    """The (n, 2) placed positions of a frame, NaN rows dropped; None when none is left."""
    if p is None:
        return None
    p = np.asarray(p, float).reshape(-1, 2)
    p = p[np.all(np.isfinite(p), axis=1)]
    return p if len(p) else None


def plan_views(positions: Sequence[np.ndarray | None], t: Sequence[float], length: float, width: float
               ) -> list[MapView]:
    """One view per frame. `positions[i]`: the (n, 2) field positions in yards of the players and
    umpires placed in frame i (None or empty: nobody placed); `t[i]`: its time in seconds, in
    order."""
    n = len(positions)
    t = np.asarray(t, float)
    pts = [_finite_points(p) for p in positions]
    need = np.array([_level(_needed_length(p, length, width), length) if p is not None else np.nan for p in pts])
    centre = np.array([p.mean(axis=0) if p is not None else (np.nan, np.nan) for p in pts]).reshape(n, 2)
    eps = 1e-6                                     # times as floats: a second is a second
    hold = zip(np.searchsorted(t, t - HOLD_S - eps), np.searchsorted(t, t + HOLD_S + eps, side="right"))
    near = zip(np.searchsorted(t, t - CENTRE_S - eps), np.searchsorted(t, t + CENTRE_S + eps, side="right"))
    views = []
    for i, (a, b), (c0, c1) in zip(range(n), hold, near):
        held = need[a:b]
        if not np.isfinite(held).any() or np.nanmax(held) >= length:
            views.append(whole_field(length, width))
            continue
        view_len = float(np.nanmax(held))
        around = centre[c0:c1]
        around = around[np.all(np.isfinite(around), axis=1)]
        c = around.mean(axis=0) if len(around) else np.nanmean(centre[a:b], axis=0)
        views.append(MapView(_fit(c, view_len, pts[i], length, width), view_len))
    return views
