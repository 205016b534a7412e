"""The ball in flight from motion: a small spot brighter than the same place a frame before and after.

The ball model (vision.ball) finds a ball held against the umpire's shirt or lying on the grass,
but often misses the one he has just thrown (3-6 px, blurred, over horses of every colour): on
the samples the release was seen on 7 of 12 clips. A thrown ball moves its own size or more
every frame, so in the umpire's window (the ball stage's: his upper body) the pixels it covers
now are brighter than the same pixels in the frames before and after, where it was not yet and
no longer is. This finder keeps the last three frames (grey), warps the outer two onto the
middle one through the camera's motion (a panning or zooming camera turns about its centre, so
one homography maps every point of one frame onto the next), and takes

    d = min(middle - before, middle - after)

Blobs of d > DIFF covering MIN_AREA..MAX_AREA pixels are candidates; a lone one is the
sighting, if little else moved in the window (QUIET_AREA): a rider passing the umpire lights up
dozens of blobs (swinging legs, white socks and gloves), several of them ball-sized, and is no
ball. (Broad things moving less than their own size a frame, a body or a white shirt, cancel
out in d: only the ball, small and fast, is new at a place and gone from it a frame later.)
So this sees the release from a still line-up, the moment that matters, and not a ball among
moving horses. A glove or a sleeve moving near the umpire makes a few small or one-frame
blobs: the throw-in logic (vision.phase.throw_in_from_ball) wants three sightings in line at
a thrown ball's speed, and play after them. A ball the umpire holds still does not show here (the ball
model sees that one).

A frame's answer comes one frame late (it needs the next frame): `push` frame i, get the
sighting for frame i-1, if any. Frames where the ball was already seen are not looked at.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from vision.ball import MAX_UMPIRES, SCALE, UPPER_BODY, WINDOW, window_around

DIFF = 30                # grey levels brighter than the same place before and after
MIN_AREA = 6             # px; a glove's or a stripe's flicker is 1-5 px, a thrown ball 8-40 px on the samples
MAX_AREA_SHARE = 0.15    # the blob's side at most this share of the umpire's box height ...
MAX_AREA_MIN = 60        # ... or this many pixels, whichever is more
QUIET_AREA = 40          # px of other motion the window may hold: the ball is the one thing moving in a
                         # still line-up (the samples' flights: at most 13 px besides the ball; riders
                         # passing the umpire: hundreds, in 30-60 blobs, several of them ball-sized)
STILL_PX = 0.25          # camera motion below this (px at the window's corners) is no motion: no warp


@dataclass
class _Frame:
    index: int
    grey: np.ndarray
    H: np.ndarray | None            # image px → field yd (None: a fixed camera)
    umpires: np.ndarray             # (U, 4) person boxes
    seen: bool                      # the ball was already found in this frame


class MotionBallFinder:
    """Push consecutive frames; each push may return (index, xy px) of the previous frame's ball."""

    def __init__(self, window: int = int(round(WINDOW / SCALE))):
        self.window = int(window)
        self._last: deque[_Frame] = deque(maxlen=3)
        self.looks = 0
        self.sightings = 0

    def push(self, index: int, frame: np.ndarray, H: np.ndarray | None, umpire_boxes: np.ndarray
             ) -> tuple[int, np.ndarray] | None:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        if self._last and index != self._last[-1].index + 1:
            self._last.clear()                   # a gap (a stride, a skipped frame): start again
        self._last.append(_Frame(index, grey, None if H is None else np.asarray(H, float),
                                 np.asarray(umpire_boxes, float).reshape(-1, 4)[:MAX_UMPIRES], False))
        if len(self._last) < 3:
            return None
        before, mid, after = self._last
        if mid.seen or not len(mid.umpires):
            return None
        best = None
        for box in mid.umpires:
            h = box[3] - box[1]
            if not np.isfinite(h) or h <= 0:
                continue
            centre = np.array([(box[0] + box[2]) / 2, box[1] + UPPER_BODY * h])
            x0, y0, side = window_around(mid.grey.shape, centre, self.window)
            self.looks += 1
            found = self._look(before, mid, after, x0, y0, side, h)
            if found is not None and (best is None or found[1] > best[1]):
                best = found
        if best is None:
            return None
        self.sightings += 1
        return mid.index, best[0]

    def mark_seen(self, index: int) -> None:
        """The ball of frame `index` (the last pushed) was found another way: do not look for it."""
        if self._last and self._last[-1].index == index:
            self._last[-1].seen = True

    def _look(self, before: _Frame, mid: _Frame, after: _Frame, x0: int, y0: int, side: int,
              box_h: float) -> tuple[np.ndarray, float] | None:
        a = mid.grey[y0:y0 + side, x0:x0 + side].astype(np.int16)
        b = _window_of(before, mid, x0, y0, side).astype(np.int16)
        c = _window_of(after, mid, x0, y0, side).astype(np.int16)
        d = np.minimum(a - b, a - c)
        mask = (d > DIFF).astype(np.uint8)
        if not mask.any():
            return None
        n, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
        max_area = max(MAX_AREA_MIN, (MAX_AREA_SHARE * box_h) ** 2)
        blobs = [k for k in range(1, n) if MIN_AREA <= stats[k, cv2.CC_STAT_AREA] <= max_area]
        if len(blobs) != 1:
            return None                          # nothing, or several ball-sized things moving
        k = blobs[0]
        if int(mask.sum()) - stats[k, cv2.CC_STAT_AREA] > QUIET_AREA:
            return None
        return centres[k] + np.array([x0, y0], float), float(d[labels == k].sum())


def _window_of(other: _Frame, mid: _Frame, x0: int, y0: int, side: int) -> np.ndarray:
    """`other`'s pixels at the middle frame's window, through the camera's motion between them."""
    if other.H is None or mid.H is None:
        return other.grey[y0:y0 + side, x0:x0 + side]
    # middle image → field → other image, for the window's pixels (offset by its corner)
    M = np.linalg.inv(other.H) @ mid.H @ np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], float)
    corners = np.array([[0, 0, 1], [side, 0, 1], [0, side, 1], [side, side, 1]], float)
    p = corners @ M.T
    moved = p[:, :2] / p[:, 2:3] - (corners[:, :2] + [x0, y0])
    if np.abs(moved).max() < STILL_PX:
        return other.grey[y0:y0 + side, x0:x0 + side]
    return cv2.warpPerspective(other.grey, M, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
