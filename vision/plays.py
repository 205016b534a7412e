"""Who plays the ball, from the footage: a play is a hit, the moment the ball's speed jumps
(from rest or from a slower roll: a hit adds speed, a bounce or a roll loses it), made by a player
whose horse's ground point is within `reach_yd` of the ball then: of those riding (faster than
`RIDING_YDS` over the `APPROACH_S` before the hit) the nearest, else the nearest. The hitter
rides to the ball; a player standing in the line-up a yard away does not hit it.

A ball merely passing a player (the umpire's throw flying through the line-up, a roll) is not
a play, which a bare proximity rule would count. Speeds come from the ball's sightings in
field yards: before a sighting over the two sightings before it (or the one, if the earlier
is more than `max_gap_s` away), after it to the next sighting, at most `max_gap_s` later, so a
hit hidden by the hitter's horse for a few frames is still found (at the last sighting
before it). Projection of an airborne ball onto the ground exaggerates its speed; the ratio
test (HIT_GAIN_RATIO) keeps its bounces from counting.
Until the first play after the throw-in, the ball going along the line of the umpire's throw,
which is across the field between the ranks (along the centre line, either way: the ground
projection of a falling ball can seem to move backwards), within `THROW_CONE_DEG`, is the
throw and its bounces, not a play; a play sends the ball towards a goal. A first play that
taps the ball straight across the field is missed: the trade-off for not calling the
throw's bounces plays.
Only frames in play (or the throw-in) can show a play.
"""
from __future__ import annotations

import numpy as np

from rules.document import PLAY, THROW_IN
from vision.frame_rate import frame_rate, scaled_frames

HIT_MIN_SPEED_YDS = 5.0     # the ball leaves a hit at least this fast
HIT_GAIN_YDS = 4.0          # ... and at least this much faster than it came
HIT_GAIN_RATIO = 1.5        # ... and at least this many times as fast
RIDING_YDS = 1.5           # a candidate hitter moving at least this fast...
APPROACH_S = 0.4            # ...over this time before the hit is preferred to one standing
THROW_CONE_DEG = 30.0       # a "hit" along the throw's line (across the field) before any play is the throw


def ball_hits(t: np.ndarray, ball: np.ndarray, max_gap_s: float = 0.4, min_interval_s: float = 0.3
              ) -> list[tuple[int, np.ndarray]]:
    """(frame, direction) of each hit: the last sighting before the ball's speed jumps, and
    the unit vector it leaves in. The sightings counted before and after are for 25 frames/s
    footage and scaled to faster (vision.frame_rate): over one 50 frames/s frame a still
    ball's position noise alone is a speed of several yards a second."""
    seen = np.flatnonzero(np.isfinite(ball).all(axis=1))
    hits: list[tuple[int, np.ndarray]] = []
    r = scaled_frames(1, frame_rate(t))                 # sightings a 25 frames/s frame
    for k in range(r, len(seen) - r):
        f = seen[k]
        b0, a1 = seen[max(0, k - 2 * r)], seen[k + r]
        if t[f] - t[b0] > max_gap_s:
            b0 = seen[k - r]
        if t[f] - t[b0] > max_gap_s or t[a1] - t[f] > max_gap_s or t[f] <= t[b0] or t[a1] <= t[f]:
            continue
        before = np.hypot(*(ball[f] - ball[b0])) / (t[f] - t[b0])
        after = np.hypot(*(ball[a1] - ball[f])) / (t[a1] - t[f])
        if after >= HIT_MIN_SPEED_YDS and after - before >= HIT_GAIN_YDS and after >= HIT_GAIN_RATIO * before:
            if hits and t[f] - t[hits[-1][0]] < min_interval_s:
                continue
            hits.append((int(f), (ball[a1] - ball[f]) / np.hypot(*(ball[a1] - ball[f]))))
    return hits


def detect_plays(t: np.ndarray, players: np.ndarray, ball: np.ndarray, phase: np.ndarray,
                 reach_yd: float = 2.5) -> np.ndarray:
    """(F,) column of the player making a play at each frame, -1 for none.

    players: (F, P, 2) yards (NaN where unseen); ball: (F, 2) yards (NaN where unseen).
    """
    F = len(t)
    play = np.full(F, -1, np.int64)
    if players.shape[1] == 0 or F < 3:
        return play
    cos_cone = np.cos(np.radians(THROW_CONE_DEG))
    played = False
    for f, direction in ball_hits(t, ball):
        if phase[f] not in (PLAY, THROW_IN):
            continue
        if not played and abs(float(direction[1])) >= cos_cone:
            continue                                  # the throw going on (a bounce), not a play
        d = np.hypot(players[f, :, 0] - ball[f, 0], players[f, :, 1] - ball[f, 1])
        d = np.where(np.isfinite(d), d, np.inf)
        near = d <= reach_yd
        if not near.any():
            continue
        g = int(np.searchsorted(t, t[f] - APPROACH_S))
        with np.errstate(invalid="ignore"):
            speed = np.hypot(*(players[f] - players[g]).T) / max(t[f] - t[g], 1e-9)
        riding = near & (speed >= RIDING_YDS)
        play[f] = int(np.argmin(np.where(riding if riding.any() else near, d, np.inf)))
        played = True
    return play
