"""Longer recordings with several throw-ins, for finding the throw-ins of a whole recording
(vision.throw_in_finder; bench/bench_find_throw_ins.py, tests).

The story: a clean line-up and throw-in at the centre, play rides off, a goal (off the
picture), the teams ride back and line up again with ends changed, the next throw-in sends play
the other way, and so on. The static camera of the sample clean_lineup watches it. From the
third throw-in on, each line-up, play and camera return differs a little from the ones before
(VARY_YD): never the same footage twice, which only a replay shows (vision.replays).
"""
from __future__ import annotations

from synth.choreo import hit, scenario_doc, standard_lineup, throw
from synth.samples import C, DEF, YU, _ball_in_hand, _camera, _follow, _umpire

SWAPPED = {"red": "north", "blue": "south"}
# Per line-up (ends as DEF, ends swapped): who wins the throw-in, the side of the ball he rides
# to, where he hits it, where everyone follows, where the umpire rides.
PLAYS = [("blue-2", (0.7, 0.6), (184.0, 74.0), (178.0, 72.0), (165.0, 57.0)),
         ("red-2", (0.7, -0.2), (122.0, 70.0), (124.0, 72.0), (138.0, 58.0))]
PLAY_S = 6.0          # from a throw-in until the teams ride back (a goal scored off the picture)
LINED_UP_S = 1.5      # the teams stand lined up this long before the throw-in
VARY_YD = 0.3         # from the third line-up on: each spot moved by about this much (the camera's return
                      # by three times as much, play by ten), the recording's seed choosing


def recording(times: list[float], name: str = "throw_ins", seed: int = 101,
              follow: bool = False) -> tuple[dict, list[dict]]:
    """A recording of a throw-in at each of `times` (seconds, at least 11 s apart; the first at
    least 2 s in): (scenario document, [{"t": release time, "defending": {...}}, ...]). With
    `follow` the camera pans (and zooms out a little) after the play and back to the line-up
    for the next one, as a cameraman would: never quite to the calibrated view of frame 0."""
    if times[0] < 2.0 or any(b - a < 11.0 for a, b in zip(times, times[1:])):
        raise ValueError("throw-ins at least 2 s in and 11 s apart: the teams must ride back between them")
    import numpy as np
    rng = np.random.default_rng(seed)
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    for pid, tr in players.items():                   # walk in from a few yards back
        k = tr.keys[0]
        back = -4.0 if pid.startswith("red") else 4.0
        tr.keys = []
        tr.at(0.0, k["x"] + back, k["y"]).to(1.6, k["x"], k["y"]).hold(1.7, heading=-90.0)
    ball, hand = _ball_in_hand(ump, times[0])
    out, plays, last_hit = [], [], None
    for n, ti in enumerate(times):
        ends = DEF if n % 2 == 0 else SWAPPED
        if n:                                          # ride back from the last play, ends changed
            back_from, lined_up = times[n - 1] + PLAY_S, ti - LINED_UP_S
            spots = standard_lineup(ends, YU, rng=rng if n >= 2 else None, jitter_yd=VARY_YD)
            for pid, tr in players.items():
                s = spots[pid].keys[0]
                tr.hold(back_from + 0.15 * (int(pid[-1]) - 1))
                tr.to(lined_up - 0.6, s["x"], s["y"]).hold(lined_up, heading=s.get("heading_deg"))
            ump.hold(back_from).to(lined_up - 1.0, C, YU).hold(lined_up, heading=90.0)
            ready = lined_up - 1.0                     # the umpire is back: a new ball in his hand
            ball.at(ready - 0.04, *last_hit, z=0.05)
            ball.at(ready, hand[0], hand[1], z=1.9).at(ti, hand[0], hand[1], z=1.9)
        winner, (dx, dy), to, follow, umpire_to = PLAYS[n % 2]
        if n >= 2:                                     # play goes its own way each time
            shift = rng.normal(0.0, 10 * VARY_YD, 2)
            to, follow = (to[0] + shift[0], to[1] + shift[1]), (follow[0] + shift[0], follow[1] + shift[1])
            umpire_to = (umpire_to[0] + shift[0], umpire_to[1])
        rest = throw(ball, ti, hand, +1)
        w = players[winner]
        w.hold(ti + 0.5).to(ti + 0.95, rest[0] + dx, rest[1] + dy)
        hit(ball, ti + 1.0, rest, to, 1.9 if n % 2 == 0 else 1.8)
        w.to(ti + 3.0, to[0] - 6.0 if to[0] > C else to[0] + 4.0, to[1] - 2.0)
        _follow(players, ti + 1.0, follow, ti + 3.0, skip=(winner,))
        ump.hold(ti + 1.2).to(ti + 3.8, *umpire_to)
        last_hit = to
        plays.append((ti + 1.0, winner))
        out.append({"t": ti, "defending": dict(ends)})
    centre, focal = (150.0, 66.0), 4200.0
    keys = []
    for n, ti in enumerate(times):                    # hold on the line-up, follow the play, come back
        to = PLAYS[n % 2][3]
        if not n:
            keys.append((ti + 0.9, centre, focal))
        keys.append((ti + 3.0, (0.5 * (centre[0] + to[0]), to[1]), focal * 0.8))
        if n + 1 < len(times):                         # back on the line-up, not quite as before
            again = (centre[0] + (1.5 if n % 2 else -1.5), centre[1] - 1.0)
            if n + 1 >= 2:
                again = (again[0] + float(rng.normal(0.0, 3 * VARY_YD)), again[1])
            keys += [(ti + PLAY_S, (0.5 * (centre[0] + to[0]), to[1]), focal * 0.8),
                     (times[n + 1] - LINED_UP_S - 1.0, again, focal * (0.95 if n % 2 else 1.05)),
                     (times[n + 1] + 0.9, again, focal * (0.95 if n % 2 else 1.05))]
    camera = _camera((132, -12, 9), centre, focal, keys if follow else None)
    doc = scenario_doc(name, f"{len(times)} throw-ins of one recording: after each, play rides off, a goal is scored "
                       "off the picture, and the teams line up again with ends changed"
                       + (" (the camera following)." if follow else "."),
                       times[-1] + 3.0, camera, [ump, *players.values(), ball], times[0], plays, seed=seed)
    return doc, out


def two_throw_ins() -> tuple[dict, list[dict]]:
    """Two throw-ins, at 3 s and 14 s (17 s in all)."""
    return recording([3.0, 14.0], name="two_throw_ins")
