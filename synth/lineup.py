"""Geometry of a throw-in line-up, shared by the sample clips and the random dataset.

The umpire stands on the centre line facing along it; the two teams stand in two ranks,
one each side of the line (each on the side of the goal it defends), side by side in a
file that starts a few yards from the umpire, every pony facing the umpire.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HORSE_SPACING_YD = 2.9     # nose-to-nose distance along a rank
RANK_GAP_YD = 1.25         # each rank's distance from the centre line


@dataclass
class Spot:
    id: str
    team: str
    x: float
    y: float
    heading_deg: float


def lineup_spots(defending: dict[str, str], centre_x: float, umpire_y: float, side: int = 1,
                 start_yd: float = 6.0, gap_yd: float = RANK_GAP_YD, spacing_yd: float = HORSE_SPACING_YD,
                 rng: np.random.Generator | None = None, jitter_yd: float = 0.0) -> list[Spot]:
    """Where the eight players stand. `side` +1 puts the ranks at larger y than the umpire."""
    heading = -90.0 if side > 0 else 90.0
    spots = []
    for team, end in defending.items():
        x = centre_x - gap_yd if end == "south" else centre_x + gap_yd
        for n in range(1, 5):
            y = umpire_y + side * (start_yd + (n - 1) * spacing_yd)
            dx = dy = dh = 0.0
            if rng is not None and jitter_yd > 0:
                dx, dy = rng.normal(0, jitter_yd * 0.3), rng.normal(0, jitter_yd)
                dh = rng.normal(0, 6)
            # never let jitter carry a rank across the centre line
            xx = x + dx
            if (end == "south") != (xx < centre_x):
                xx = x
            spots.append(Spot(f"{team}-{n}", team, float(xx), float(y + dy), heading + dh))
    return spots
