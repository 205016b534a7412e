"""Line-up, throw-in and play, from the footage.

The throw-in frame is found, in order of preference, from
1. the ball: the first run of ball sightings moving away from the throwing umpire; the
   release is back-dated by the time the ball took to get where it was first seen;
2. the players: the end of the line-up's stillness, the first frame from which at least
   `movers` players ride faster than `speed_yds`, after at least `still_s` of stillness.
Frames before the throw-in are the line-up, after it play. A user override wins.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.document import LINEUP, PLAY, THROW_IN


@dataclass
class ThrowIn:
    frame: int | None
    method: str                    # "ball", "players", "override" or "none"


def speeds(xy: np.ndarray, t: np.ndarray) -> np.ndarray:
    """(T, F) speed in yd/s by central differences; NaN where unknown."""
    v = np.full(xy.shape[:2], np.nan)
    if xy.shape[1] < 3:
        return v
    dt = (t[2:] - t[:-2])[None, :]
    d = np.hypot(*(xy[:, 2:] - xy[:, :-2]).transpose(2, 0, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        v[:, 1:-1] = d / np.where(dt > 0, dt, np.nan)
    return v


def throw_in_from_ball(t: np.ndarray, ball: np.ndarray, umpire: np.ndarray, near_yd: float = 12.0,
                       min_speed: float = 4.0) -> int | None:
    seen = ~np.isnan(ball[:, 0]) & ~np.isnan(umpire[:, 0])
    idx = np.flatnonzero(seen)
    for a, b in zip(idx[:-1], idx[1:]):
        if b - a > 2:
            continue
        da = np.hypot(*(ball[a] - umpire[a]))
        db = np.hypot(*(ball[b] - umpire[b]))
        speed = np.hypot(*(ball[b] - ball[a])) / max(t[b] - t[a], 1e-6)
        if da < near_yd and db > da and speed >= min_speed:
            back = da / speed                       # seconds since the release
            return int(np.searchsorted(t, t[a] - back, side="left"))
    return None


def throw_in_from_players(t: np.ndarray, xy: np.ndarray, movers: int = 2, speed_yds: float = 2.5,
                          still_s: float = 1.0) -> int | None:
    v = speeds(xy, t)
    if not v.size:
        return None
    with np.errstate(invalid="ignore"):
        moving = np.sum(v > speed_yds, axis=0)
    still_since = None
    for f in range(xy.shape[1]):
        if moving[f] == 0:
            still_since = t[f] if still_since is None else still_since
        elif moving[f] >= movers and still_since is not None and t[f] - still_since >= still_s:
            return f
        elif moving[f] >= movers:
            still_since = None
    return None


def detect_throw_in(t: np.ndarray, players: np.ndarray, umpire: np.ndarray, ball: np.ndarray,
                    override: int | None = None) -> ThrowIn:
    if override is not None:
        return ThrowIn(int(override), "override")
    f = throw_in_from_ball(t, ball, umpire)
    if f is not None:
        return ThrowIn(f, "ball")
    f = throw_in_from_players(t, players)
    if f is not None:
        return ThrowIn(f, "players")
    return ThrowIn(None, "none")


def phases(n_frames: int, throw_in: ThrowIn) -> np.ndarray:
    """(F,) phase codes: line-up before the throw-in frame, throw_in at it, play after."""
    out = np.full(n_frames, LINEUP, np.int8)
    if throw_in.frame is not None and 0 <= throw_in.frame < n_frames:
        out[throw_in.frame] = THROW_IN
        out[throw_in.frame + 1:] = PLAY
    return out
