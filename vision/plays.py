"""Who plays the ball, from the footage: a play is a hit, the moment the ball's speed jumps
(from rest or from a slower roll: a hit adds speed, a bounce or a roll loses it), made by a player
whose horse's ground point is within `reach_yd` of the ball then: of those riding (faster than
`RIDING_YDS` over the `APPROACH_S` before the hit) the nearest, else the nearest. The hitter
rides to the ball; a player standing in the line-up a yard away does not hit it.

A ball merely passing a player (the umpire's throw flying through the line-up, a roll) is not
a play, which a bare proximity rule would count. Speeds come from the ball's sightings in
field yards: before a sighting over the two sightings before it (or the one, if the earlier
is more than `max_gap_s` away), after it to the next sighting, at most `max_gap_s` later, so a
hit hidden by the hitter's horse for a few frames is still found. It was made where the ball
was last seen, but not then: the flight, taken back at the speed it is then seen at to that
place, gives the moment (`hit_frame`), and the hitter is looked for there and then (a
re-rendered own_goal_blue1, seed 900: the ball lay seen for a while, was missed for 8 frames,
and was next seen 7 yd away; Blue #1, riding in, was out of reach at the last sighting and
hit it 7 frames later). Projection of an airborne ball onto the ground exaggerates its speed; the ratio
test (HIT_GAIN_RATIO) keeps its bounces from counting.
Until the first play after the throw-in, the ball going along the line of the umpire's throw,
which is across the field between the ranks (along the centre line, either way: the ground
projection of a falling ball can seem to move backwards), within `THROW_CONE_DEG`, is the
throw and its bounces, not a play; a play sends the ball towards a goal. A first play that
taps the ball straight across the field is missed: the trade-off for not calling the
throw's bounces plays.
Only frames in play (or the throw-in) can show a play.

The first play may be hidden: the throw leaves the ball on the centre line, among the horses'
legs (or white on its white paint), and it is first seen flying away from the line. Then the
flight, taken back at its speed to the centre line (`first_flight_hit`), gives the hit's
frame and place, no more than FLIGHT_BACK_S before the ball was first seen and with no
sighting in between; the hitter is found there as for a seen hit (a re-rendered
wrong_side_plays_early: Red #4's play straight from the throw-in, on a ball lying on the
painted line, was missed; the flight back put the hit within a frame of the truth's).
"""
from __future__ import annotations

import numpy as np

from rules.document import LINEUP, PLAY, THROW_IN
from vision.frame_rate import frame_rate, scaled_frames

HIT_MIN_SPEED_YDS = 5.0     # the ball leaves a hit at least this fast
HIT_GAIN_YDS = 4.0          # ... and at least this much faster than it came
HIT_GAIN_RATIO = 1.5        # ... and at least this many times as fast
RIDING_YDS = 1.5           # a candidate hitter moving at least this fast...
APPROACH_S = 0.4            # ...over this time before the hit is preferred to one standing
THROW_CONE_DEG = 30.0       # a "hit" along the throw's line (across the field) before any play is the throw
REPLACE_COS = 0.5           # of hits so near, a stronger one at least 60 degrees off the first replaces it...
FLIES_ON_SHARE = 0.5        # ...when the ball flies on from it at least this share of its speed
FLIGHT_SIGHTINGS = 3        # a first flight is seen this many times in a row...
FLIGHT_STRAIGHT_YD = 0.5    # ...on a straight line at a steady speed (each this near the fitted one)...
FLIGHT_BACK_S = 0.5         # ...and was hit on the centre line at most this long before its first sighting


def ball_hits(t: np.ndarray, ball: np.ndarray, max_gap_s: float = 0.4, min_interval_s: float = 0.3
              ) -> list[tuple[int, np.ndarray]]:
    """(frame, direction) of each hit: the last sighting before the ball's speed jumps, and
    the unit vector it leaves in. Of candidates within `min_interval_s` of the first of them
    one stands: the first, unless a later one jumps more, leaves at least 60 degrees
    (REPLACE_COS) another way, and the ball flies on from it at least half as fast
    (FLIES_ON_SHARE: a stray sighting far off makes a large jump and no flight; re-rendered
    own_goal_blue1, seed 1900, frame 107). A hit made between two frames shows twice, the
    same way, the second jump the larger (sample slow_returner_blue1_delayed_foul, 127 and
    128: the first is the hit); a far ball's position noise, 0.2-0.3 yd a frame, can pass for a weak hit
    just before the real one, any way (re-rendered own_goal_blue1, seed 2900: Blue #1's hit
    at 219, towards the south goal, was lost behind such a "hit" at 216, across the field).
    The sightings counted before and after are for 25 frames/s footage and scaled to faster
    (vision.frame_rate): over one 50 frames/s frame a still ball's position noise alone is a
    speed of several yards a second."""
    seen = np.flatnonzero(np.isfinite(ball).all(axis=1))
    hits: list[tuple[int, np.ndarray]] = []
    gains: list[float] = []
    since = -np.inf                    # when the first candidate of the last hit's cluster was
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
            hit = (int(f), (ball[a1] - ball[f]) / np.hypot(*(ball[a1] - ball[f])))
            if hits and t[f] - since < min_interval_s:
                if after - before > gains[-1] and float(hit[1] @ hits[-1][1]) < REPLACE_COS \
                        and _flies_on(t, ball, seen, k + r, r, after, hit[1], max_gap_s):
                    hits[-1], gains[-1] = hit, after - before     # a stronger jump another way: the hit
                continue
            hits.append(hit)
            gains.append(after - before)
            since = t[f]
    return hits


def _flies_on(t: np.ndarray, ball: np.ndarray, seen: np.ndarray, k1: int, r: int, speed: float,
              direction: np.ndarray, max_gap_s: float) -> bool:
    """From seen[k1] to the sighting after it (within `max_gap_s`) the ball goes on along
    `direction` at least FLIES_ON_SHARE as fast as `speed`, the jump's: a hit ball flies on; a
    stray sighting far off (and the white fleck it was, seen again there) does not."""
    if k1 + r >= len(seen) or t[seen[k1 + r]] - t[seen[k1]] > max_gap_s:
        return False
    a1, a2 = seen[k1], seen[k1 + r]
    return float((ball[a2] - ball[a1]) @ direction) / (t[a2] - t[a1]) >= FLIES_ON_SHARE * speed


def first_flight_hit(t: np.ndarray, ball: np.ndarray, phase: np.ndarray, centre_x: float,
                     max_gap_s: float = 0.4) -> tuple[int, np.ndarray, np.ndarray] | None:
    """(frame, place (2,), direction (2,)) of a hit on the centre line that no sighting shows:
    the first flight after the throw-in (FLIGHT_SIGHTINGS sightings in a row, each within
    `max_gap_s` of the last, straight, at least HIT_MIN_SPEED_YDS and not along the throw's
    line), taken back at its speed to the line; None where it does not fly away from the
    line, the ball is seen on its way back, the flight would have begun over FLIGHT_BACK_S
    before its first sighting, or there is no such flight."""
    thrown = np.flatnonzero(phase != LINEUP)
    if not len(thrown):
        return None
    seen = np.flatnonzero(np.isfinite(ball).all(axis=1))
    seen = seen[seen > thrown[0]]
    cos_cone = np.cos(np.radians(THROW_CONE_DEG))
    for k in range(len(seen) - FLIGHT_SIGHTINGS + 1):
        run = seen[k:k + FLIGHT_SIGHTINGS]
        if np.any(np.diff(t[run]) > max_gap_s):
            continue
        tt = t[run] - t[run[0]]
        A = np.stack([np.ones_like(tt), tt], 1)
        coef, *_ = np.linalg.lstsq(A, ball[run], rcond=None)            # (2, 2): start, velocity
        v = coef[1]
        speed = float(np.hypot(*v))
        if speed < HIT_MIN_SPEED_YDS or np.abs(A @ coef - ball[run]).max() > FLIGHT_STRAIGHT_YD:
            continue
        if abs(float(v[1])) >= cos_cone * speed:
            continue                                  # along the throw's line: the throw or its bounce
        x0 = float(coef[0][0])                        # the first flight after the throw-in:
        if (x0 - centre_x) * v[0] <= 0:
            return None                               # not flying away from the line
        back = (x0 - centre_x) / float(v[0])           # seconds from the line to the first sighting
        t_hit = t[run[0]] - back
        earlier = seen[:k]
        frame_s = float(np.median(np.diff(t)))
        if back > FLIGHT_BACK_S or (len(earlier) and t[earlier[-1]] > t_hit - frame_s):
            return None                               # hit too long before, or seen since: not hidden
        f = int(np.clip(np.argmin(np.abs(t - t_hit)), thrown[0] + 1, run[0]))
        return f, coef[0] - back * v, v / speed
    return None


def hit_frame(t: np.ndarray, ball: np.ndarray, f: int, max_gap_s: float = 0.4) -> int:
    """The frame of a hit found at sighting `f` (ball_hits: the last before the jump) when the
    ball was next seen only frames later: the flight's next two sightings (within `max_gap_s`
    of each other) give its speed, and the ball left `f`'s place that long before the first of
    them; `f` itself when the next sighting is the next frame, or the flight is not seen twice
    going on the jump's way."""
    seen = np.flatnonzero(np.isfinite(ball).all(axis=1))
    after = seen[seen > f]
    if len(after) < 2:
        return f
    a1, a2 = int(after[0]), int(after[1])
    if a1 - f < 2 or t[a2] - t[a1] > max_gap_s or t[a2] <= t[a1]:
        return f
    jump = ball[a1] - ball[f]
    v = (ball[a2] - ball[a1]) / (t[a2] - t[a1])
    speed = float(np.hypot(*v))
    if speed < HIT_MIN_SPEED_YDS or float(jump @ v) <= 0:
        return f
    t_hit = t[a1] - float(np.hypot(*jump)) / speed
    return int(np.clip(np.argmin(np.abs(t - t_hit)), f, a1 - 1))


def detect_plays(t: np.ndarray, players: np.ndarray, ball: np.ndarray, phase: np.ndarray,
                 reach_yd: float = 2.5, centre_x: float | None = None,
                 unseen_hits: set[int] | None = None) -> np.ndarray:
    """(F,) column of the player making a play at each frame, -1 for none.

    players: (F, P, 2) yards (NaN where unseen); ball: (F, 2) yards (NaN where unseen);
    centre_x: the centre line's x (yards), for a first hit no sighting shows (first_flight_hit);
    unseen_hits: where given, the frame of a play made on a hit whose moment the ball's flight
    gave (first_flight_hit, or hit_frame away from the last sighting) is added to it (the report
    says so: a reviewer should look at that play on the clip).
    """
    F = len(t)
    play = np.full(F, -1, np.int64)
    if players.shape[1] == 0 or F < 3:
        return play
    cos_cone = np.cos(np.radians(THROW_CONE_DEG))
    played = False
    # (frame, place, direction, from the first flight, the frame taken from the flight)
    hits = [(g, ball[f], direction, False, g != f)
            for f, direction in ball_hits(t, ball) for g in [hit_frame(t, ball, f)]]
    hidden = first_flight_hit(t, ball, phase, centre_x) if centre_x is not None else None
    if hidden is not None:
        hits = sorted(hits + [(*hidden, True, True)], key=lambda h: h[0])
    for f, at, direction, first_flight, dated in hits:
        if phase[f] not in (PLAY, THROW_IN) or (first_flight and played):
            continue                                  # (after a seen play: not the first flight)
        if not played and abs(float(direction[1])) >= cos_cone:
            continue                                  # the throw going on (a bounce), not a play
        d = np.hypot(players[f, :, 0] - at[0], players[f, :, 1] - at[1])
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
        if dated and unseen_hits is not None:
            unseen_hits.add(int(f))
    return play
