"""Frame counts written for 25 frames/s footage, scaled to faster footage.

The samples and the training footage are rendered at 25 frames/s (REFERENCE_FPS), and
several heuristics count frames: the ball stage's follow (vision.ball), the throw-in from
the ball (vision.phase), the hits (vision.plays), the id exchanges (vision.swaps) and the
identity looks' spacing (vision.observe, set by vision.pipeline). On 50 frames/s footage the same
second is twice the frames and a moving ball covers half the pixels a frame; `per_reference`
says how many of the footage's frames make one reference frame. Slower footage (or a frame
stride) keeps the counts as written: its sightings are farther apart in time, which those
heuristics already allow for, and every figure measured at 25 frames/s stays as it was.
"""
from __future__ import annotations

import numpy as np

REFERENCE_FPS = 25.0


def frame_rate(t) -> float:
    """Frames a second of frames at times `t` (s): the median step; REFERENCE_FPS when unknown."""
    t = np.asarray(t, float)
    step = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    return round(1.0 / step, 3) if step > 0 else REFERENCE_FPS      # 25.0, not 24.99999...


def per_reference(fps: float) -> float:
    """The footage's frames per reference frame: fps / REFERENCE_FPS, at least 1."""
    return max(1.0, float(fps) / REFERENCE_FPS)


def scaled_frames(n: float, fps: float) -> int:
    """`n` reference frames in frames of `fps` footage (rounded, at least 1 when n > 0)."""
    k = int(round(n * per_reference(fps)))
    return max(k, 1) if n > 0 else k
