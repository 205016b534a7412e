"""A longer recording with two throw-ins, for finding throw-ins in a whole recording
(vision.throw_in_finder; bench/bench_find_throw_ins.py, tests).

The story: a clean line-up and throw-in at the centre, play rides off north, a goal (off
camera), the teams ride back and line up again with ends changed (red now defends north), and
a second throw-in sends play south. The static camera of the sample clean_lineup watches it.
"""
from __future__ import annotations

from synth.choreo import hit, scenario_doc, standard_lineup, throw
from synth.samples import C, DEF, YU, _ball_in_hand, _camera, _follow, _umpire

SWAPPED = {"red": "north", "blue": "south"}


def two_throw_ins(first: float = 3.0, second: float = 14.0) -> tuple[dict, list[dict]]:
    """(scenario document, the throw-ins: [{"t": release time, "defending": {...}}, ...])."""
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    for pid, tr in players.items():                   # walk in from a few yards back
        k = tr.keys[0]
        back = -4.0 if pid.startswith("red") else 4.0
        tr.keys = []
        tr.at(0.0, k["x"] + back, k["y"]).to(1.6, k["x"], k["y"]).hold(1.7, heading=-90.0)
    ball, hand = _ball_in_hand(ump, first)
    rest = throw(ball, first, hand, +1)
    b2 = players["blue-2"]
    b2.hold(first + 0.5).to(first + 0.95, rest[0] + 0.7, rest[1] + 0.6)
    hit(ball, first + 1.0, rest, (184.0, 74.0), 1.9)
    b2.to(first + 3.5, 176.0, 72.0)
    _follow(players, first + 1.0, (178.0, 72.0), first + 3.6, skip=("blue-2",))
    ump.hold(first + 1.2).to(first + 3.8, 165.0, 57.0)

    # A goal off camera; the ends change and everyone rides back to the centre.
    back_from, lined_up = first + 6.0, second - 1.5
    spots = standard_lineup(SWAPPED, YU)
    for pid, tr in players.items():
        s = spots[pid].keys[0]
        tr.hold(back_from + 0.15 * (int(pid[-1]) - 1))
        tr.to(lined_up - 0.6, s["x"], s["y"]).hold(lined_up, heading=s.get("heading_deg"))
    ump.hold(back_from).to(lined_up - 1.0, C, YU).hold(lined_up, heading=90.0)
    ready = lined_up - 1.0                             # the umpire is back: a new ball in his hand
    ball.at(ready - 0.04, 184.0, 74.0, z=0.05)
    ball.at(ready, hand[0], hand[1], z=1.9).at(second, hand[0], hand[1], z=1.9)
    ump.hold(second + 1.2)
    rest2 = throw(ball, second, hand, +1)
    r2 = players["red-2"]                              # red now on the north side of the line
    r2.hold(second + 0.5).to(second + 0.95, rest2[0] + 0.7, rest2[1] - 0.2)
    hit(ball, second + 1.0, rest2, (122.0, 70.0), 1.8)
    r2.to(second + 3.0, 126.0, 70.0)
    _follow(players, second + 1.0, (124.0, 72.0), second + 3.0, skip=("red-2",))
    ump.to(second + 3.0, 138.0, 58.0)
    duration = second + 3.0
    doc = scenario_doc("two_throw_ins", "Two throw-ins of one recording: a line-up and throw-in, play north, a goal "
                       "off camera, the teams line up again with ends changed, a second throw-in sends play south.",
                       duration, _camera((132, -12, 9), (150, 66), 4200), [ump, *players.values(), ball],
                       first, [(first + 1.0, "blue-2"), (second + 1.0, "red-2")], seed=101)
    return doc, [{"t": first, "defending": dict(DEF)}, {"t": second, "defending": dict(SWAPPED)}]
