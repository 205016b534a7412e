"""White field markings, drawn per frame as projected ground quads (sharp at any zoom).

End lines (x = 0, length), the 30, 40 and 60 yard lines from each end line, and the centre
line, each across the full width. Also the named landmarks written to calibration.json.
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from synth.camera import NEAR_YD, Camera, clip_near
from synth.raster import ONE, SHIFT

LINE_WIDTH_YD = 0.13
SEGMENT_YD = 16.0


def marking_lines(length: float) -> list[tuple[str, float]]:
    """(name, x) of each line across the field."""
    c = length / 2
    lines = [("south_end_line", 0.0), ("south_30", 30.0), ("south_40", 40.0), ("south_60", 60.0),
             ("centre_line", c), ("north_60", length - 60.0), ("north_40", length - 40.0),
             ("north_30", length - 30.0), ("north_end_line", length)]
    return lines


def landmarks(length: float, width: float) -> list[tuple[str, float, float]]:
    """Named ground points where the markings meet the sidelines (and the centre spot)."""
    pts = []
    for name, x in marking_lines(length):
        pts.append((f"{name}_west", x, 0.0))
        pts.append((f"{name}_east", x, width))
    pts.append(("centre_spot", length / 2, width / 2))
    return pts


def draw_markings(frame: np.ndarray, cam: Camera, length: float, width: float, rng_seed: int,
                  colour=(232, 236, 236)) -> None:
    """Draw every marking line as short ground quads (vectorised projection, near-plane clipped)."""
    quads, shades = _marking_quads(length, width, rng_seed)
    h, w = frame.shape[:2]
    P = np.concatenate([quads, np.zeros(quads.shape[:2] + (1,))], 2).reshape(-1, 3)
    pc = cam.to_camera(P).reshape(-1, 4, 3)
    z = pc[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        uv = pc[..., :2] / pc[..., 2:3] * cam.focal_px + cam.K[:2, 2]
    front = z.min(1) >= NEAR_YD
    straddle = ~front & (z.max(1) >= NEAR_YD)
    inview = front & (uv[..., 0].max(1) >= -2) & (uv[..., 0].min(1) <= w + 2) & \
        (uv[..., 1].max(1) >= -2) & (uv[..., 1].min(1) <= h + 2)
    cols = (np.asarray(colour, float)[None] * shades[:, None]).tolist()
    for i in np.flatnonzero(inview | straddle):
        if straddle[i]:
            q = clip_near(pc[i])
            if len(q) < 3:
                continue
            p = cam.project_camera(q)
        else:
            p = uv[i]
        cv2.fillConvexPoly(frame, np.round(p * ONE).astype(np.int32), cols[i], cv2.LINE_AA, SHIFT)


@lru_cache(maxsize=16)
def _marking_quads(length: float, width: float, rng_seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng([rng_seed, 5501])
    hw = LINE_WIDTH_YD / 2
    ys = np.append(np.arange(0.0, width, SEGMENT_YD), width)
    quads = []
    for _, x in marking_lines(length):
        for i in range(len(ys) - 1):
            quads.append([[x - hw, ys[i]], [x + hw, ys[i]], [x + hw, ys[i + 1]], [x - hw, ys[i + 1]]])
    return np.array(quads), rng.uniform(0.88, 1.0, len(quads))
