"""Line-up, throw-in and play, from the footage.

The throw-in frame is found, in order of preference, from
1. the ball seen by the detector: its first sighting next to the umpire (in the image) that
   is not a ball held still in his hand, back-dated one frame to the release;
2. the players: the end of the line-up's stillness, the first frame from which at least
   `movers` players ride faster than `speed_yds`, after at least `still_s` of stillness.
Frames before the throw-in are the line-up, after it play. A user override wins.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.document import LINEUP, PLAY, THROW_IN


RELEASE_LAG_FRAMES = 1       # the ball is first seen clear of the hand about a frame after its release


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


def throw_in_from_ball(ball_px: np.ndarray, umpire_box: np.ndarray, near: float = 2.5) -> int | None:
    """First sighting of the ball next to the umpire (within `near` of his box height of
    the box centre, in the image: an airborne ball cannot be placed on the ground) that is
    not a ball held still in his hand; back-dated one frame to the release."""
    cx = (umpire_box[:, 0] + umpire_box[:, 2]) / 2
    cy = (umpire_box[:, 1] + umpire_box[:, 3]) / 2
    h = umpire_box[:, 3] - umpire_box[:, 1]
    with np.errstate(invalid="ignore"):
        d = np.hypot(ball_px[:, 0] - cx, ball_px[:, 1] - cy) / h
    idx = np.flatnonzero(d < near)
    for k, a in enumerate(idx):
        nxt = idx[k + 1] if k + 1 < len(idx) else None
        if nxt is not None and nxt - a <= 3 and np.hypot(*(ball_px[nxt] - ball_px[a])) < 0.02 * h[a] * (nxt - a):
            continue                                  # held still: not thrown yet
        return max(0, int(a) - RELEASE_LAG_FRAMES)
    return None


def throw_in_from_players(t: np.ndarray, xy: np.ndarray, movers: int = 2, speed_yds: float = 2.5,
                          still_s: float = 1.0, sustain_s: float = 0.3) -> int | None:
    """The first frame from which at least `movers` players ride faster than `speed_yds` for
    `sustain_s` (a jump of one jittery track for a frame or two is not the start of play),
    after at least `still_s` of stillness."""
    v = speeds(xy, t)
    if not v.size:
        return None
    with np.errstate(invalid="ignore"):
        moving = np.sum(v > speed_yds, axis=0)
    still_since = None
    F = xy.shape[1]
    for f in range(F):
        if moving[f] == 0:
            still_since = t[f] if still_since is None else still_since
        elif moving[f] >= movers and still_since is not None and t[f] - still_since >= still_s:
            end = int(np.searchsorted(t, t[f] + sustain_s))
            if end <= F and np.all(moving[f:end] >= movers):
                return f
        elif moving[f] >= movers:
            still_since = None
    return None


def detect_throw_in(t: np.ndarray, players: np.ndarray, ball_px: np.ndarray, umpire_box: np.ndarray,
                    override: int | None = None) -> ThrowIn:
    if override is not None:
        return ThrowIn(int(override), "override")
    f = throw_in_from_ball(ball_px, umpire_box)
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
