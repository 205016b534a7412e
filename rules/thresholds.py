"""The numbers behind every Rule 20 finding, in one documented place.

Values the rule states are fixed by it (5 yards, 20 yards, 30 yards); the others
(contact, rushing, out of the line-up) are this project's reading of the rule's
examples and may be tuned per call of the engine.
"""
from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Thresholds:
    # Stated by Rule 20.
    umpire_clearance_yd: float = 5.0        # no player within 5 yards of an umpire
    boards_clearance_yd: float = 20.0       # throw-in always MORE than 20 yards from boards/sideline
    ball_travel_yd: float = 30.0            # wrong-side player free once the ball travelled 30 yards ...
    # This project's reading of the examples.
    contact_yd: float = 1.5                 # opposing players' ground points closer than this: contact/jostling
    rush_speed_yds: float = 4.0             # closing on an umpire faster than this (yd/s) ...
    rush_zone_yd: float = 15.0              # ... while within this distance of him: rushing the umpire
    lineup_depth_yd: float = 10.0           # farther than this from the centre line: not in the line-up
    umpire_still_yds: float = 1.0           # an umpire moving slower than this (yd/s, over the last second) stands:
                                            # he is positioned, the ball ready for play (a walking horse: 1.5-2
                                            # yd/s; a standing umpire measured among crowding players: up to 0.6)
    # Measured positions (a FrameBatch with player_cov / umpire_cov): a distance, side or
    # speed finding counts only when it holds by this many standard deviations of the
    # positions' uncertainty along its own direction. 0 (the default) takes every position
    # as exact.
    margin_sigmas: float = 0.0
    speed_margin_sigmas: float = 0.0       # the same for speeds (rushing), which differences make noisier

    @classmethod
    def from_dict(cls, data: dict) -> "Thresholds":
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown threshold(s): {', '.join(sorted(unknown))}")
        return cls(**data)
