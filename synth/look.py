"""The seed-dependent look of a clip: sun, shadows, grass, colour grading, noise, blur.

Every value is drawn from the scenario's seed; a scenario's ``look`` block may pin any of
them (name -> value, within the ranges in LOOK_KEYS).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# name: (low, high) -- the range drawn from, and the range a scenario may set
LOOK_KEYS: dict[str, tuple[float, float]] = {
    "sun_azimuth_deg": (0.0, 360.0),
    "sun_elevation_deg": (12.0, 75.0),
    "shadow_strength": (0.0, 0.65),
    "ambient": (0.45, 0.75),
    "exposure": (0.85, 1.15),
    "contrast": (0.85, 1.15),
    "saturation": (0.75, 1.2),
    "warmth": (-0.08, 0.08),
    "grass_hue": (0.0, 1.0),
    "grass_brightness": (0.8, 1.15),
    "stripe_width_yd": (6.0, 14.0),
    "stripe_contrast": (0.0, 0.12),
    "stripes_across": (0.0, 1.0),
    "board_style": (0.0, 2.99),
    "noise_sigma": (0.5, 3.5),
    "blur_sigma": (0.0, 0.9),
    "vignette": (0.0, 0.3),
    "motion_blur": (0.0, 1.0),
    "crf": (21.0, 28.0),
    "jpeg_quality": (60.0, 95.0),
}


@dataclass
class Look:
    sun_azimuth_deg: float
    sun_elevation_deg: float
    shadow_strength: float
    ambient: float
    exposure: float
    contrast: float
    saturation: float
    warmth: float
    grass_hue: float
    grass_brightness: float
    stripe_width_yd: float
    stripe_contrast: float
    stripes_across: float
    board_style: float
    noise_sigma: float
    blur_sigma: float
    vignette: float
    motion_blur: float
    crf: float
    jpeg_quality: float
    seed: int = 0

    @property
    def sun_dir(self) -> np.ndarray:
        """Unit vector towards the sun (field frame)."""
        a, e = math.radians(self.sun_azimuth_deg), math.radians(self.sun_elevation_deg)
        return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])

    @property
    def diffuse(self) -> float:
        return 1.05 - self.ambient * 0.6


def make_look(seed: int, overrides: dict | None = None) -> Look:
    """Draw a look from `seed`, then apply `overrides`."""
    rng = np.random.default_rng([seed, 7361])
    vals = {k: float(rng.uniform(lo, hi)) for k, (lo, hi) in LOOK_KEYS.items()}
    # Most footage is sunny with clear shadows, some overcast.
    if rng.random() < 0.25:
        vals["shadow_strength"] *= 0.35
        vals["ambient"] = max(vals["ambient"], 0.68)
    vals["noise_sigma"] = 0.5 + 3.0 * rng.random() ** 2
    vals.update({k: float(v) for k, v in (overrides or {}).items()})
    return Look(**vals, seed=seed)
