"""Camera effects applied to a finished frame: motion blur, lens softness, grading, vignette, noise."""
from __future__ import annotations

import cv2
import numpy as np

from synth.look import Look


def line_kernel(dx: float, dy: float) -> np.ndarray:
    """Normalised kernel smearing along the image motion (dx, dy) pixels."""
    n = int(np.ceil(max(abs(dx), abs(dy)))) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    L = max(np.hypot(dx, dy), 1e-6)
    cv2.line(k, (int(round(c - dx / 2 * (n - 1) / L)), int(round(c - dy / 2 * (n - 1) / L))),
             (int(round(c + dx / 2 * (n - 1) / L)), int(round(c + dy / 2 * (n - 1) / L))), 1.0, 1, cv2.LINE_AA)
    return k / k.sum()


_UNIT_NOISE: dict[tuple[int, int], np.ndarray] = {}
_VIGNETTE: dict[tuple[int, int, int], np.ndarray] = {}
NOISE_PAD = 32
NOISE_SCALE = 16.0          # the shared noise buffer holds 128 + 16 * N(0, 1)


def _unit_noise(w: int, h: int) -> np.ndarray:
    """A shared buffer of Gaussian noise (uint8, 128 + 16 N(0,1)), made once per image size."""
    key = (w, h)
    if key not in _UNIT_NOISE:
        rng = np.random.default_rng(20240)
        n = rng.standard_normal((h + NOISE_PAD, w + NOISE_PAD, 3), dtype=np.float32)
        _UNIT_NOISE[key] = np.clip(128 + NOISE_SCALE * n, 0, 255).astype(np.uint8)
    return _UNIT_NOISE[key]


def _vignette(w: int, h: int, strength: float) -> np.ndarray:
    q = int(round(strength * 40))                    # cached in steps of 0.025
    key = (w, h, q)
    if key not in _VIGNETTE:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
        vig = (np.clip(1 - (q / 40) * 0.5 * r2, 0, 1) * 255).astype(np.uint8)
        _VIGNETTE[key] = cv2.merge([vig] * 3)
    return _VIGNETTE[key]


class PostFX:
    """Per-clip effects; the random parts (noise) are seeded per frame."""

    def __init__(self, look: Look, size: tuple[int, int]) -> None:
        w, h = size
        self.look = look
        # exposure and white balance (per-channel gains), saturation, contrast: one affine colour map
        gains = np.diag([look.exposure * (1 - look.warmth), look.exposure, look.exposure * (1 + look.warmth)])
        lum = np.array([[0.114, 0.587, 0.299]])
        sat = look.saturation * np.eye(3) + (1 - look.saturation) * np.repeat(lum, 3, axis=0)
        M = look.contrast * sat @ gains
        offset = 127.5 * (1 - look.contrast) * np.ones((3, 1))
        self.grade = np.hstack([M, offset]).astype(np.float32)
        self.vignette = _vignette(w, h, look.vignette) if look.vignette > 0.02 else None
        self.noise = _unit_noise(w, h)
        self.size = size

    def apply(self, frame: np.ndarray, index: int, pan_motion_px: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        look = self.look
        dx, dy = pan_motion_px
        shutter = 0.5 * look.motion_blur
        if max(abs(dx), abs(dy)) * shutter >= 1.5:
            frame = cv2.filter2D(frame, -1, line_kernel(dx * shutter, dy * shutter))
        if look.blur_sigma > 0.3:
            frame = cv2.GaussianBlur(frame, (3, 3), look.blur_sigma)
        frame = cv2.transform(frame, self.grade)
        if self.vignette is not None:
            frame = cv2.multiply(frame, self.vignette, scale=1 / 255)
        h, w = frame.shape[:2]
        rng = np.random.default_rng([look.seed, index, 5])
        oy, ox = rng.integers(0, NOISE_PAD, 2)
        a = look.noise_sigma / NOISE_SCALE
        frame = cv2.addWeighted(frame, 1.0, self.noise[oy:oy + h, ox:ox + w], a, -128.0 * a)
        return frame


def blur_moving(frame: np.ndarray, mask: np.ndarray, roi: tuple[int, int, int, int], dx: float, dy: float) -> None:
    """Smear the pixels of one moving object (mask over the ROI) along (dx, dy) pixels, in place."""
    x1, y1, x2, y2 = roi
    if x2 <= x1 or y2 <= y1 or max(abs(dx), abs(dy)) < 1.5:
        return
    k = line_kernel(dx, dy)
    pad = k.shape[0] // 2 + 1
    h, w = frame.shape[:2]
    X1, Y1, X2, Y2 = max(x1 - pad, 0), max(y1 - pad, 0), min(x2 + pad, w), min(y2 + pad, h)
    sub = frame[Y1:Y2, X1:X2]
    m = mask[Y1:Y2, X1:X2]
    if not m.any():
        return
    blurred = cv2.filter2D(sub, -1, k)
    mb = cv2.filter2D(m.astype(np.float32), -1, k)
    alpha = np.clip(np.maximum(mb, m.astype(np.float32)), 0, 1)[..., None]
    sub[:] = (blurred * alpha + sub * (1 - alpha)).astype(np.uint8)
