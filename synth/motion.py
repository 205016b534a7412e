"""Keyframed tracks sampled over time: position, heading, speed and gait phase per frame.

Positions are interpolated linearly between keyframes (so the truth is exactly the
keyframed path). Headings follow the direction of motion with a limited turn rate; a
keyframe's ``heading_deg`` (or the object's) is used while standing still.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from synth.scenario import BALL_RADIUS_YD, ObjectSpec

MOVING_YD_S = 0.4        # slower than this counts as standing
TURN_DEG_S = 240.0       # how fast a horse turns


@dataclass
class Motion:
    """Per-time samples of one object."""

    pos: np.ndarray        # (T, 3) yards
    heading: np.ndarray    # (T,) degrees, 0 = +x (north), 90 = +y (east)
    speed: np.ndarray      # (T,) yd/s over the ground
    gait: np.ndarray       # (T,) stride cycles travelled (fractional part = phase)


def stride_yd(speed: np.ndarray) -> np.ndarray:
    """Stride length for a speed: walk ~1.8 yd, canter ~3.5 yd, gallop ~6 yd."""
    return np.clip(1.6 + 0.3 * speed, 1.6, 6.5)


def sample_motion(obj: ObjectSpec, times: np.ndarray, default_heading: float = 90.0) -> Motion:
    """Sample an object's track at `times` (seconds, increasing)."""
    kt = np.array([k.t for k in obj.track])
    kx = np.array([k.x for k in obj.track])
    ky = np.array([k.y for k in obj.track])
    x = np.interp(times, kt, kx)
    y = np.interp(times, kt, ky)
    if obj.role == "ball":
        kz = np.array([BALL_RADIUS_YD if k.z is None else max(k.z, BALL_RADIUS_YD) for k in obj.track])
        z = np.interp(times, kt, kz)
    else:
        z = np.zeros_like(x)
    pos = np.column_stack([x, y, z])

    # Velocity from the keyframed path itself (central difference over a short window).
    h = 0.1
    vx = (np.interp(times + h, kt, kx) - np.interp(times - h, kt, kx)) / (2 * h)
    vy = (np.interp(times + h, kt, ky) - np.interp(times - h, kt, ky)) / (2 * h)
    speed = np.hypot(vx, vy)

    # Heading targets: motion direction when moving, keyframed heading when standing.
    kh = [(k.t, k.heading_deg) for k in obj.track if k.heading_deg is not None]
    base = obj.heading_deg if obj.heading_deg is not None else None
    moving = speed > MOVING_YD_S
    target = np.full(len(times), np.nan)
    target[moving] = np.degrees(np.arctan2(vy[moving], vx[moving]))
    if kh:
        th = np.array([t for t, _ in kh])
        hh = np.unwrap(np.radians([v for _, v in kh]))
        target[~moving] = np.degrees(np.interp(times[~moving], th, hh))
    elif base is not None:
        target[~moving] = base
    # Standing with no heading given: keep the last (or the first upcoming) motion heading.
    if np.isnan(target).any():
        idx = np.where(~np.isnan(target), np.arange(len(target)), -1)
        last = np.maximum.accumulate(idx)
        fill = np.where(last >= 0, target[np.maximum(last, 0)], np.nan)
        if np.isnan(fill).any():
            valid = np.flatnonzero(~np.isnan(target))
            first = target[valid[0]] if len(valid) else default_heading
            fill = np.where(np.isnan(fill), first, fill)
        target = np.where(np.isnan(target), fill, target)

    heading = np.empty(len(times))
    heading[0] = target[0]
    for i in range(1, len(times)):
        dt = times[i] - times[i - 1]
        d = (target[i] - heading[i - 1] + 180.0) % 360.0 - 180.0
        lim = TURN_DEG_S * dt
        heading[i] = heading[i - 1] + max(-lim, min(lim, d))
    heading = (heading + 180.0) % 360.0 - 180.0

    dt = np.diff(times, prepend=times[0])
    gait = np.cumsum(speed * dt / stride_yd(speed))
    return Motion(pos, heading, speed, gait)


def heading_vector(heading_deg: float) -> tuple[float, float]:
    r = math.radians(heading_deg)
    return math.cos(r), math.sin(r)
