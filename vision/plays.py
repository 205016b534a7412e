"""Who plays the ball, from the footage: after the throw-in, a player makes (or attempts) a
play when the ball on the ground comes within `reach_yd` of his horse's ground point; one
play per approach (the ball must have been away from him for `rearm_s` before another).
Only frames where the ball was seen can show a play.
"""
from __future__ import annotations

import numpy as np

from rules.document import PLAY, THROW_IN


def detect_plays(t: np.ndarray, players: np.ndarray, ball: np.ndarray, phase: np.ndarray,
                 reach_yd: float = 2.5, rearm_s: float = 0.5) -> np.ndarray:
    """(F,) column of the player making a play at each frame, -1 for none.

    players: (F, P, 2) yards (NaN where unseen); ball: (F, 2) yards (NaN where unseen).
    """
    F = len(t)
    play = np.full(F, -1, np.int64)
    if players.shape[1] == 0:
        return play
    d = np.hypot(players[:, :, 0] - ball[:, None, 0], players[:, :, 1] - ball[:, None, 1])
    d = np.where(np.isnan(d), np.inf, d)
    nearest = np.argmin(d, axis=1)
    near = d[np.arange(F), nearest] <= reach_yd
    last_near = np.full(players.shape[1], -np.inf)
    for f in np.flatnonzero(near & ((phase == PLAY) | (phase == THROW_IN))):
        p = nearest[f]
        if t[f] - last_near[p] > rearm_s:
            play[f] = p
        last_near[p] = t[f]
    return play
