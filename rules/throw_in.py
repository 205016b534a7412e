"""What follows a throw-in: plays by players who were wrong-side or out of the line-up.

Rule 20: a player on the wrong side of the line-up when the ball is thrown in may not make
a play until (1) he is behind a teammate who was properly positioned at the throw-in, or
(2) the ball has travelled at least 30 yards from where it was thrown in and he has passed
midfield. Once either has held he is free for the rest of the play.

"Behind" is measured along the length of the field: farther than the teammate from the end
line his team attacks. "Passed midfield" means strictly inside his own half again.
The throw-in point is the ball's position at the throw-in frame, else the throwing umpire's.

The rule's examples add the delayed foul: a player out of the line-up (on his own side but
farther than `lineup_depth_yd` from the centre line) at the throw-in who then becomes
involved in the play (makes a play within `improper_play_window_s` of the throw-in) is
penalised for improper positioning.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rules.checks import sequence_end, thrower, throw_in_starts, wrong_side, reversed_lineup
from rules.document import FrameBatch
from rules.thresholds import Thresholds

IMPROPER_PLAY_WINDOW_S = 10.0


@dataclass
class ThrowInFindings:
    """Per throw-in: who was wrong-side / out of the line-up, and the offending plays."""

    start: int
    point: tuple[float, float] | None
    reversed: bool
    wrong: list[int] = field(default_factory=list)            # player columns
    out_of_lineup: list[int] = field(default_factory=list)
    illegal_plays: list[dict] = field(default_factory=list)   # {"frame", "player", details}
    improper_plays: list[dict] = field(default_factory=list)


def throw_in_point(b: FrameBatch, s: int) -> tuple[float, float] | None:
    if not np.isnan(b.ball[s, 0]):
        return float(b.ball[s, 0]), float(b.ball[s, 1])
    u = thrower(b, s)
    return (float(b.umpires[s, u, 0]), float(b.umpires[s, u, 1])) if u >= 0 else None


def analyse_throw_ins(b: FrameBatch, thr: Thresholds, wrong: np.ndarray | None = None,
                      window_s: float = IMPROPER_PLAY_WINDOW_S) -> list[ThrowInFindings]:
    if wrong is None:
        from rules.checks import across_sigma
        wrong = wrong_side(b, thr.margin_sigmas * across_sigma(b))
    starts = throw_in_starts(b)
    rev = reversed_lineup(b, wrong)
    sign = b.attack_sign()
    c = b.field.centre_x
    out = []
    for s in starts:
        s = int(s)
        e = sequence_end(b, s, starts)
        present = ~np.isnan(b.players[s, :, 0])
        point = throw_in_point(b, s)
        f = ThrowInFindings(start=s, point=point, reversed=bool(rev[s]))
        out.append(f)
        plays = np.flatnonzero(b.play[s:e] >= 0) + s
        depth = np.abs(b.players[s, :, 0] - c)
        f.out_of_lineup = [int(p) for p in np.flatnonzero(present & ~wrong[s] & (depth > thr.lineup_depth_yd))]
        for k in plays:
            p = int(b.play[k])
            if p in f.out_of_lineup and b.t[k] - b.t[s] <= window_s:
                f.improper_plays.append({"frame": int(k), "player": p,
                                         "distance_from_centre_yd": float(depth[p]),
                                         "seconds_after_throw_in": float(b.t[k] - b.t[s])})
        if f.reversed:          # an accepted wrong-way line-up: no redress, nobody is "wrong side"
            continue
        f.wrong = [int(p) for p in np.flatnonzero(present & wrong[s])]
        if not f.wrong or not len(plays):
            continue
        seg = b.players[s:e]                                   # (n, P, 2)
        if point is not None:
            travel = np.hypot(b.ball[s:e, 0] - point[0], b.ball[s:e, 1] - point[1])
            travel = np.where(np.isnan(travel), 0.0, travel)
        else:
            travel = np.zeros(e - s)
        travelled = np.maximum.accumulate(travel) >= thr.ball_travel_yd
        proper = present & ~wrong[s]
        for p in f.wrong:
            mates = np.flatnonzero(proper & (b.player_team == b.player_team[p]))
            # (1) behind a properly positioned teammate: farther from the attacked end line.
            with np.errstate(invalid="ignore"):
                behind = np.any(sign[p] * (seg[:, mates, 0] - seg[:, p, None, 0]) > 0, axis=1)
                passed = sign[p] * (seg[:, p, 0] - c) < 0
            freed = np.maximum.accumulate(behind | (travelled & passed))
            for k in plays[b.play[plays] == p]:
                i = k - s
                if not freed[i]:
                    f.illegal_plays.append({"frame": int(k), "player": p,
                                            "ball_travel_yd": float(np.max(travel[:i + 1])),
                                            "passed_midfield": bool(passed[i]),
                                            "behind_teammate": False})
    return out
