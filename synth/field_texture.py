"""The ground, pre-rendered top-down once per scenario and warped into each frame.

Grass with mowing stripes, patchy colour, fine texture, and the trampled, divot-marked
area around the centre; rougher grass beyond the boards and end lines. White markings are
drawn per frame in image space (field_markings.py) so they stay sharp.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from synth.camera import Camera
from synth.look import Look

MARGIN_END_YD = 45.0
MARGIN_SIDE_YD = 35.0

GRASS_PALETTE = np.array([     # BGR, from lush to dry
    (52, 116, 74), (56, 120, 88), (60, 122, 98), (64, 124, 108), (70, 128, 118),
], float)


@dataclass
class FieldTexture:
    image: np.ndarray      # (H, W, 3) uint8, rows along y, columns along x
    px_per_yd: float
    x0: float              # field x at the left edge of column 0
    y0: float
    far_bgr: tuple         # colour of the ground beyond the texture

    def texture_to_field(self) -> np.ndarray:
        s = self.px_per_yd
        return np.array([[1 / s, 0, self.x0 + 0.5 / s], [0, 1 / s, self.y0 + 0.5 / s], [0, 0, 1.0]])

    def warp(self, camera: Camera, out: np.ndarray | None = None) -> np.ndarray:
        """The ground as seen by `camera` (sky region undefined; paint it afterwards)."""
        M = camera.homography() @ self.texture_to_field()
        w, h = camera.image_size
        return cv2.warpPerspective(self.image, M, (w, h), dst=out, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=self.far_bgr)


def _noise(rng: np.random.Generator, shape: tuple[int, int], cell: int) -> np.ndarray:
    """Smooth noise in [-1, 1]-ish with features about `cell` pixels across."""
    small = rng.standard_normal((max(2, shape[0] // cell + 2), max(2, shape[1] // cell + 2))).astype(np.float32)
    big = cv2.resize(small, (shape[1] + 2 * cell, shape[0] + 2 * cell), interpolation=cv2.INTER_CUBIC)
    return big[cell:cell + shape[0], cell:cell + shape[1]]


def make_field_texture(length: float, width: float, look: Look, seed: int, px_per_yd: float = 5.0) -> FieldTexture:
    rng = np.random.default_rng([seed, 1187])
    s = px_per_yd
    x0, y0 = -MARGIN_END_YD, -MARGIN_SIDE_YD
    W = int(round((length + 2 * MARGIN_END_YD) * s))
    H = int(round((width + 2 * MARGIN_SIDE_YD) * s))
    k = look.grass_hue * (len(GRASS_PALETTE) - 1)
    i = min(int(k), len(GRASS_PALETTE) - 2)
    base = (GRASS_PALETTE[i] * (1 - (k - i)) + GRASS_PALETTE[i + 1] * (k - i)) * look.grass_brightness

    xs = (np.arange(W, dtype=np.float32) + 0.5) / s + x0
    ys = (np.arange(H, dtype=np.float32) + 0.5) / s + y0
    inside = ((ys >= 0) & (ys <= width))[:, None] & ((xs >= 0) & (xs <= length))[None, :]

    # Brightness field: mowing stripes (only on the field), patches, fine grain.
    if look.stripes_across >= 0.5:
        band = (np.floor(xs / look.stripe_width_yd) % 2)[None, :] * np.ones((H, 1), np.float32)
    else:
        band = (np.floor(ys / look.stripe_width_yd) % 2)[:, None] * np.ones((1, W), np.float32)
    bright = 1.0 + look.stripe_contrast * (band - 0.5) * inside
    bright += 0.05 * _noise(rng, (H, W), int(8 * s)) + 0.03 * _noise(rng, (H, W), int(2 * s))
    bright += 0.035 * rng.standard_normal((H, W)).astype(np.float32)
    bright = bright.astype(np.float32)
    hue = 0.04 * _noise(rng, (H, W), int(12 * s))           # green <-> yellow drift

    img = np.empty((H, W, 3), np.float32)
    img[..., 0] = base[0] * bright * (1 - hue)
    img[..., 1] = base[1] * bright
    img[..., 2] = base[2] * bright * (1 + 1.5 * hue)
    # Rough grass outside the playing area: darker, less even.
    out = ~inside
    img[out] *= np.float32(0.9)

    # Trampled centre and divots where throw-ins happen.
    c = length / 2
    n_div = int(rng.integers(60, 200))
    dx = rng.normal(c, 10, n_div)
    dy = rng.uniform(25, width - 25, n_div)
    soil = np.array([62, 88, 102], np.float32)
    for x, y in zip(dx, dy):
        u, v = int((x - x0) * s), int((y - y0) * s)
        r = max(1, int(rng.uniform(0.1, 0.3) * s))
        col = (soil * rng.uniform(0.75, 1.05) * 0.6 + base.astype(np.float32) * 0.4).tolist()
        cv2.ellipse(img, (u, v), (r, max(1, int(r * rng.uniform(0.5, 1.0)))), float(rng.uniform(0, 180)),
                    0, 360, col, -1, cv2.LINE_AA)
    wear = np.clip(_noise(rng, (H, W), int(6 * s)), 0, None) * np.exp(-((xs[None, :] - c) / 15.0) ** 2)
    img = img * (1 - 0.15 * wear[..., None]) + soil * 0.15 * wear[..., None]
    tex = np.clip(img, 0, 255).astype(np.uint8)
    far = tuple(float(v) for v in (base * 0.85))
    return FieldTexture(tex, s, x0, y0, far)
