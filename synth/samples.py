"""The sample clips: one scenario per worked example of USPA Rule 20, plus clean line-ups.

``python -m synth.samples [--only NAME ...] [--out sample_videos]`` writes
sample_videos/<name>/{scenario.json, clip.mp4, truth.json, calibration.json} and
sample_videos/README.md, whose table of expected violations is generated from the truth
files (the rules engine's verdicts on the true positions).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from synth.choreo import Track, hit, scenario_doc, standard_lineup, throw, umpire_hand

C = 150.0          # centre line
YU = 58.0          # where the umpire throws in (yards from the west sideline)
DEF = {"red": "south", "blue": "north"}


def _umpire(y: float = YU, heading: float = 90.0, oid: str = "U1") -> Track:
    return Track(oid, "umpire").at(0.0, C, y, heading)


def _ball_in_hand(ump: Track, t_end: float) -> tuple[Track, tuple[float, float]]:
    k = ump.keys[0]
    hx, hy = umpire_hand(k["x"], k["y"], k["heading_deg"])
    ball = Track("ball", "ball").at(0.0, hx, hy, z=1.9).at(t_end, hx, hy, z=1.9)
    return ball, (hx, hy)


def _ride(tr: Track, t0: float, path: list[tuple[float, float, float]]) -> None:
    """Hold until t0, then ride through (t, x, y) waypoints."""
    tr.hold(t0)
    for t, x, y in path:
        tr.to(t, x, y)


def _follow(tracks: dict[str, Track], t0: float, target: tuple[float, float], arrive: float,
            spread: float = 4.0, skip: tuple[str, ...] = ()) -> None:
    """Everyone not in `skip` rides from where he stands towards `target`, fanning out."""
    for k, (pid, tr) in enumerate(sorted(tracks.items())):
        if pid in skip:
            continue
        last = tr.last
        off = ((k % 4) - 1.5) * spread
        delay = 0.1 * (k % 4) + (0.25 if pid.startswith("blue") else 0.0)
        tr.hold(t0 + delay)
        dx = target[0] - last["x"]
        lag = 0.75 + 0.08 * k
        tr.to(arrive, last["x"] + dx * lag, target[1] + off)


def _camera(pos, look_at, focal, keys=None) -> dict:
    cam = {"position": list(pos), "look_at": list(look_at), "focal_px": focal}
    if keys:
        cam["keyframes"] = [{"t": t, "look_at": list(la), "focal_px": f} for t, la, f in keys]
    return cam


def _follow_cam(pos, look_at, focal, t0, to, t1, focal_end=None) -> dict:
    """Hold on the line-up until t0, then pan (and zoom out a little) to `to` by t1."""
    return _camera(pos, look_at, focal, [(t0, look_at, focal), (t1, to, focal_end or focal * 0.85)])


# ---------------------------------------------------------------------------------------
def clean_lineup() -> dict:
    ti = 3.0
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    for pid, tr in players.items():               # walk in from a few yards back, then face the umpire
        k = tr.keys[0]
        back = -4.0 if pid.startswith("red") else 4.0
        tr.keys = []
        tr.at(0.0, k["x"] + back, k["y"]).to(1.6, k["x"], k["y"]).hold(1.7, heading=-90.0)
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, +1)
    p = players["blue-2"]
    p.hold(ti + 0.5).to(ti + 0.95, rest[0] + 0.7, rest[1] + 0.6)
    hit(ball, ti + 1.0, rest, (184.0, 74.0), 1.9)
    p.to(ti + 3.5, 176.0, 72.0)
    _follow(players, ti + 1.0, (178.0, 72.0), ti + 3.6, skip=("blue-2",))
    ump.hold(ti + 1.2).to(ti + 3.8, 165.0, 57.0)
    return scenario_doc("clean_lineup", "A clean line-up at the centre (static camera); Blue #2 wins the throw-in "
                        "and hits north.",
                        ti + 3.0, _camera((132, -12, 9), (150, 66), 4200), [ump, *players.values(), ball],
                        ti, [(ti + 1.0, "blue-2")], seed=11)


def clean_lineup_pan() -> dict:
    ti = 2.5
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, +1)
    r2 = players["red-2"]
    r2.hold(ti + 0.5).to(ti + 0.95, rest[0] - 0.7, rest[1] - 0.2)
    hit(ball, ti + 1.0, rest, (180.0, 64.0), 1.6)
    r2.to(ti + 3.05, 178.5, 64.2)
    hit(ball, ti + 3.1, (180.0, 64.0), (214.0, 70.0), 1.7)
    r2.to(ti + 5.5, 208.0, 69.0)
    _follow(players, ti + 1.0, (200.0, 68.0), ti + 5.4, skip=("red-2",))
    ump.hold(ti + 1.2).to(ti + 5.5, 192.0, 58.0)
    cam = _camera((150, -14, 10), (150, 67), 4500,
                  [(ti + 0.9, (150, 67), 4500), (ti + 3.0, (174, 65), 3300), (ti + 5.5, (205, 69), 2900)])
    return scenario_doc("clean_lineup_pan", "A clean line-up; Red #2 wins the throw-in and carries the ball north "
                        "while the camera pans and zooms out to follow.", ti + 5.5, cam,
                        [ump, *players.values(), ball], ti, [(ti + 1.0, "red-2"), (ti + 3.1, "red-2")], seed=23)


def clean_two_umpires() -> dict:
    ti = 3.0
    yu = 100.0
    ump = _umpire(yu, -90.0)
    u2 = Track("U2", "umpire").at(0.0, 128.0, 124.0, 0.0).to(3.0, 130.0, 122.0).hold(3.5, heading=20.0)
    players = standard_lineup(DEF, yu, side=-1)
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, -1)
    r3 = players["red-3"]
    r3.hold(ti + 0.5).to(ti + 1.05, rest[0] - 0.7, rest[1] + 0.5)
    hit(ball, ti + 1.1, rest, (178.0, 84.0), 1.8)
    r3.to(ti + 3.5, 172.0, 85.0)
    _follow(players, ti + 1.1, (172.0, 86.0), ti + 3.5, skip=("red-3",))
    u2.to(ti + 3.5, 150.0, 118.0)
    return scenario_doc("clean_two_umpires", "A clean line-up seen from a high camera, with both mounted umpires; "
                        "Red #3 wins the throw-in and hits north.", ti + 3.5,
                        _follow_cam((165, -15, 22), (148, 92), 3900, ti + 1.2, (162, 88), ti + 3.5), [ump, u2, *players.values(), ball], ti,
                        [(ti + 1.1, "red-3")], seed=5, thrower="U1",
                        teams={"red": {"jersey": "yellow"}, "blue": {"jersey": "navy"}},
                        defending={"red": "south", "blue": "north"})


def jostling_at_centre() -> dict:
    dur = 5.5
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    for pid, tr in players.items():
        k = tr.keys[0]
        red = pid.startswith("red")
        start_x = k["x"] - 5.0 if red else k["x"] + 5.0
        near = C - 0.55 if red else C + 0.55                   # right up against the line: in contact
        tr.keys = []
        tr.at(0.0, start_x, k["y"]).to(2.2, near, k["y"])
        for j, t in enumerate((2.6, 3.2, 3.8, 4.4, 5.0, 5.5)):      # shoving for position
            dx = (0.25 if j % 2 else -0.1) * (-1 if red else 1)
            dy = 0.5 * (1 if (j + int(pid[-1])) % 2 else -1)
            tr.to(t, near + dx, k["y"] + dy)
    ball, _ = _ball_in_hand(ump, dur)
    return scenario_doc("jostling_at_centre", "Both teams arrive at the centre line and jostle for position while "
                        "the umpire prepares to throw in: contact before the throw-in, play stopped.", dur,
                        _camera((135, -12, 9), (150, 66), 4300), [ump, *players.values(), ball], None, seed=31)


def advancing_on_umpire() -> dict:
    dur = 6.0
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    for tr in players.values():
        k = tr.keys[0]
        tr.hold(1.5).to(4.5, k["x"], k["y"] - 4.5).hold(dur)
    ball, _ = _ball_in_hand(ump, dur)
    return scenario_doc("advancing_on_umpire", "The teams line up on their own sides, then move towards the umpire "
                        "as he prepares to throw in, inside 5 yards of him: play stopped.", dur,
                        _camera((162, -12, 9), (150, 63), 4300), [ump, *players.values(), ball], None, seed=41)


def slow_returner_red2() -> dict:
    ti = 6.8
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    r2 = players["red-2"]
    k = r2.keys[0]
    r2.keys = []
    r2.at(0.0, 130.0, 61.0).to(6.0, k["x"], k["y"]).hold(6.3, heading=-90.0)
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, +1)
    b1 = players["blue-1"]
    b1.hold(ti + 0.4).to(ti + 0.95, rest[0] + 0.7, rest[1] - 0.4)
    hit(ball, ti + 1.0, rest, (170.0, 70.0), 1.2)
    b1.to(ti + 1.7, 160.0, 69.0)
    _follow(players, ti + 1.0, (165.0, 70.0), ti + 1.7, skip=("blue-1",))
    return scenario_doc("slow_returner_red2", "After scoring, Red #2 is slow returning: still 20 yards from the "
                        "centre when the umpire is ready. Extra time is granted with the clock stopped; the "
                        "throw-in waits for him.", ti + 1.7,
                        _camera((128, -12, 10), (141, 65), 3000), [ump, *players.values(), ball], ti,
                        [(ti + 1.0, "blue-1")], seed=53)


def horse_change_blue3() -> dict:
    ti = 3.0
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    b3 = players["blue-3"]
    b3.keys = []
    b3.at(0.0, 172.0, -5.0, 0.0).to(ti + 3.5, 175.5, -5.5)
    b3.extra["changing_horse"] = True
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, +1)
    r2 = players["red-2"]
    r2.hold(ti + 0.5).to(ti + 0.95, rest[0] - 0.7, rest[1] - 0.3)
    hit(ball, ti + 1.0, rest, (172.0, 75.0), 1.6)
    r2.to(ti + 3.5, 168.0, 74.0)
    _follow(players, ti + 1.0, (168.0, 74.0), ti + 3.5, skip=("red-2", "blue-3"))
    return scenario_doc("horse_change_blue3", "Blue #3 is changing horses at the pony lines after a goal; no extra "
                        "time: the line-up and throw-in go on without him.", ti + 3.5,
                        _camera((150, 175, 12), (161, 42), 3700), [ump, *players.values(), ball], ti,
                        [(ti + 1.0, "red-2")], seed=67, teams={"red": {"jersey": "red"}, "blue": {"jersey": "white"}})


def slow_returner_blue1_delayed_foul() -> dict:
    ti = 2.5
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    b1 = players["blue-1"]
    b1.keys = []
    b1.at(0.0, 172.0, 63.0).to(ti, 169.5, 63.3)               # 20 yards out when the ball is ready
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, +1)
    b3 = players["blue-3"]
    b3.hold(ti + 0.4).to(ti + 0.95, rest[0] + 0.7, rest[1] + 0.6)
    hit(ball, ti + 1.0, rest, (165.5, 64.0), 1.5)             # Blue #3 hits to Blue #1
    b3.to(ti + 3.0, 160.0, 66.0).to(ti + 5.0, 178.0, 70.0)
    b1.to(ti + 2.55, 166.6, 64.1)
    hit(ball, ti + 2.6, (165.5, 64.0), (196.0, 70.0), 1.8)      # ... who plays it: delayed whistle
    b1.to(ti + 5.0, 190.0, 69.0)
    _follow(players, ti + 1.2, (180.0, 70.0), ti + 5.0, skip=("blue-1", "blue-3"))
    return scenario_doc("slow_returner_blue1_delayed_foul", "Following Red's goal, Blue #1 is slow returning and "
                        "is 20 yards from the centre when the ball is ready. Blue #3 wins the throw-in and hits "
                        "to Blue #1: delayed whistle, foul against Blue #1 for improper positioning.", ti + 5.0,
                        _follow_cam((152, -12, 10), (160, 65), 3000, ti + 2.7, (184, 68), ti + 5.0), [ump, *players.values(), ball], ti,
                        [(ti + 1.0, "blue-3"), (ti + 2.6, "blue-1")], seed=71)


def wrong_side_plays_early() -> dict:
    ti = 2.5
    ump = _umpire()
    players = standard_lineup(DEF, YU)
    r4 = players["red-4"]
    r4.keys = []
    r4.at(0.0, C + 1.25, YU + 6.0 + 4 * 2.9, -90.0)              # at the tail of the blue rank: wrong side
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, +1)
    r4.hold(ti + 0.2).to(ti + 1.1, rest[0] + 0.6, rest[1] + 0.8)
    hit(ball, ti + 1.2, rest, (182.0, 72.0), 1.7)              # plays before he may
    r4.to(ti + 4.0, 176.0, 71.0)
    _follow(players, ti + 1.2, (176.0, 72.0), ti + 4.0, skip=("red-4",))
    return scenario_doc("wrong_side_plays_early", "Red #4 lines up on the wrong side of the centre line and makes a "
                        "play straight from the throw-in, before a teammate has passed him or the ball has "
                        "travelled 30 yards: penalty.", ti + 4.0,
                        _follow_cam((140, -12, 9), (151, 68), 4200, ti + 1.3, (168, 70), ti + 4.0, 3400), [ump, *players.values(), ball], ti,
                        [(ti + 1.2, "red-4")], seed=83)


def reversed_lineup() -> dict:
    ti = 2.5
    ump = _umpire()
    players = standard_lineup({"red": "north", "blue": "south"}, YU)   # both teams the wrong way round
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, +1)
    b2 = players["blue-2"]
    b2.hold(ti + 0.5).to(ti + 0.95, rest[0] - 0.7, rest[1] - 0.3)
    hit(ball, ti + 1.0, rest, (183.0, 66.0), 1.7)
    b2.to(ti + 3.5, 176.0, 67.0)
    _follow(players, ti + 1.0, (176.0, 68.0), ti + 3.5, skip=("blue-2",))
    return scenario_doc("reversed_lineup", "Every player of both teams lines up the wrong way and the umpire "
                        "throws in: the responsibility is the umpire's, no redress, play on.", ti + 3.5,
                        _follow_cam((164, -14, 10), (150, 67), 4200, ti + 1.1, (166, 67), ti + 3.5, 3400), [ump, *players.values(), ball], ti,
                        [(ti + 1.0, "blue-2")], seed=97,
                        teams={"red": {"jersey": "orange"}, "blue": {"jersey": "light_blue"}})


def throw_in_near_boards() -> dict:
    ti = 2.5
    yu = 15.0
    ump = _umpire(yu)
    players = standard_lineup(DEF, yu)
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, +1)
    r1 = players["red-1"]
    r1.hold(ti + 0.4).to(ti + 0.95, rest[0] - 0.7, rest[1] - 0.5)
    hit(ball, ti + 1.0, rest, (178.0, 30.0), 1.6)
    r1.to(ti + 3.5, 172.0, 30.0)
    _follow(players, ti + 1.0, (172.0, 30.0), ti + 3.5, skip=("red-1",))
    return scenario_doc("throw_in_near_boards", "The umpire throws in only 15 yards from the boards; the rule says "
                        "always more than 20 yards from the boards or sideline.", ti + 3.5,
                        _camera((136, -24, 9), (150, 19), 2500), [ump, *players.values(), ball], ti,
                        [(ti + 1.0, "red-1")], seed=101)


def own_goal_blue1() -> dict:
    # "Blue now attacking the North goal": Blue defends the south goal, so riding in from the
    # south he is on his own side, and the south goal he scores in is his own.
    blue_south = {"red": "north", "blue": "south"}
    ti = 1.2
    ump = _umpire()
    players = standard_lineup(blue_south, YU)
    b1 = players["blue-1"]
    b1.keys = []
    b1.extra["changing_horse"] = True
    b1.at(0.0, 91.5, 71.0).to(4.0, 103.5, 71.0)              # riding to the line-up from the south (his side)
    ball, hand = _ball_in_hand(ump, ti)
    rest = throw(ball, ti, hand, +1)
    r1 = players["red-1"]
    r1.hold(ti + 0.3).to(ti + 0.9, rest[0] - 0.6, rest[1] - 0.6)
    hit(ball, ti + 1.0, rest, (104.8, 71.0), 1.8)              # Red #1 hits it south, towards him
    b1.to(4.15, 103.9, 71.1)
    hit(ball, 4.2, (104.8, 71.0), (70.0, 75.0), 1.6)          # confused, he carries it south ...
    b1.to(4.5, 103.5, 72.0).to(5.0, 99.5, 73.0).to(6.6, 72.0, 75.2)
    hit(ball, 6.7, (70.0, 75.0), (33.0, 78.0), 1.5)
    b1.to(8.7, 35.0, 78.2)
    hit(ball, 8.8, (33.0, 78.0), (-3.0, 80.2), 1.0)           # ... and scores in the south goal: his own
    b1.to(10.0, 12.0, 79.0)
    r1.to(ti + 2.0, 140.0, 70.0).to(10.0, 40.0, 74.0)
    for k, (pid, tr) in enumerate(sorted(players.items())):
        if pid in ("blue-1", "red-1"):
            continue
        tr.hold(ti + 1.2 + 0.12 * k).to(10.0, 48.0 + 9.0 * k, 62.0 + 2.5 * k)
    ump.hold(ti + 1.5).to(10.0, 70.0, 62.0)
    cam = _camera((105, -45, 20), (126, 69), 2000,
                  [(2.3, (126, 69), 2000), (4.3, (106, 71), 2500), (6.8, (68, 74), 2500),
                   (9.0, (26, 78), 2400), (10.0, (12, 79), 2300)])
    return scenario_doc("own_goal_blue1", "Blue #1, slow returning after changing horses, is riding to the line-up "
                        "from the south (Blue attacks north) when the ball is hit towards him from the throw-in; "
                        "confused, he carries it to the south goal and scores: an own goal, it counts for Red. "
                        "Out of the line-up at the throw-in and then in the play: the delayed foul's improper "
                        "positioning is flagged on each of his plays (the umpire may play the advantage).", 10.0,
                        cam, [ump, *players.values(), ball], ti, [(ti + 1.0, "red-1"), (4.2, "blue-1"),
                                                                 (6.7, "blue-1"), (8.8, "blue-1")], seed=113,
                        defending=blue_south)


SAMPLES = {f.__name__: f for f in (clean_lineup, clean_lineup_pan, clean_two_umpires, jostling_at_centre,
                                   advancing_on_umpire, slow_returner_red2, horse_change_blue3,
                                   slow_returner_blue1_delayed_foul, wrong_side_plays_early, reversed_lineup,
                                   throw_in_near_boards, own_goal_blue1)}


# ---------------------------------------------------------------------------------------
def summarise_expected(truth: dict) -> tuple[str, str]:
    """(violations, notes) as short text from a truth file's expected verdicts."""
    fps = truth["fps"]
    viol: dict[str, dict[str, float]] = {}
    notes: dict[str, dict[str, float]] = {}
    for fr in truth["expected"]["frames"]:
        t = fr["index"] / fps
        for v in fr["violations"]:
            who = v.get("player") or v.get("umpire") or f"{v.get('players', '')} players"
            if v.get("opponent"):
                who = f"{who} with {v['opponent']}"
            viol.setdefault(v["code"], {}).setdefault(who, t)
        for n in fr.get("notes", []):
            notes.setdefault(n["code"], {}).setdefault(n.get("player", ""), t)

    def fmt(d: dict[str, dict[str, float]]) -> str:
        if not d:
            return "none"
        parts = []
        for code, who in d.items():
            names = ", ".join(f"{w} ({t:.2f} s)" if w else f"{t:.2f} s" for w, t in sorted(who.items(), key=lambda kv: kv[1]))
            parts.append(f"`{code}`: {names}")
        return "; ".join(parts)
    return fmt(viol), fmt(notes)


def write_readme(out: Path) -> None:
    from synth.encode import write_text_atomic
    rows = []
    total = 0
    for d in sorted(p for p in out.iterdir() if (p / "truth.json").is_file()):
        truth = json.loads((d / "truth.json").read_text())
        v, n = summarise_expected(truth)
        size = sum(f.stat().st_size for f in d.iterdir() if f.is_file())
        total += size
        secs = truth["n_frames"] / truth["fps"]
        rows.append(f"| [{d.name}]({d.name}/clip.mp4) | {truth.get('description', '')} | {secs:.1f} s | {v} | {n} |")
    text = "\n".join([
        "# Sample clips",
        "",
        "Rendered by `python -m synth.samples` (synthetic footage, synth/); each folder holds `scenario.json` "
        "(re-render with `polo-lineup render <folder>/scenario.json --out DIR`), `clip.mp4` "
        "(1280x720, 25 fps, H.264), `truth.json` and `calibration.json` (docs/formats.md).",
        "",
        "The expected violations and notes below are generated from each `truth.json`, whose `expected` "
        "block is the rules engine's verdict on the true positions (first time each code applies to each "
        "player). Do not edit this table by hand.",
        "",
        "| clip | what happens | length | expected violations | notes |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"Total size of sample_videos/: {total / 1e6:.1f} MB.",
        "",
    ])
    write_text_atomic(out / "README.md", text)


def _write_sidecar(path: Path, doc: dict) -> None:
    """The clip's settings for analyze and batch (vision.sidecar): which goal each team defends
    is the scenario's; the other settings already there are kept."""
    from synth.encode import write_json_atomic
    side = json.loads(path.read_text()) if path.exists() else {"calibration": "calibration.json"}
    side["defending"] = dict(doc.get("defending") or DEF)
    write_json_atomic(path, side, indent=1)


def render_samples(out: Path, only: list[str] | None = None, quiet: bool = False) -> None:
    from synth.clip import render_clip
    from synth.encode import write_json_atomic
    from synth.scenario import parse_scenario
    names = only or list(SAMPLES)
    for name in names:
        if name not in SAMPLES:
            raise SystemExit(f"unknown sample {name!r}; choose from {', '.join(SAMPLES)}")
        doc = SAMPLES[name]()
        d = out / name
        d.mkdir(parents=True, exist_ok=True)
        write_json_atomic(d / "scenario.json", doc, indent=1)
        scenario = parse_scenario(doc)
        res = render_clip(scenario, d)
        _write_sidecar(d / "clip.polo.json", doc)
        if not quiet:
            v, _ = summarise_expected(res.truth)
            mb = (d / "clip.mp4").stat().st_size / 1e6
            print(f"{name}: {res.n_frames} frames at {res.fps_rendered:.1f} fps, clip {mb:.2f} MB; violations: {v}",
                  file=sys.stderr)
    write_readme(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m synth.samples", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="sample_videos", help="output folder (default sample_videos)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help=f"render only these ({', '.join(SAMPLES)})")
    ap.add_argument("--readme-only", action="store_true", help="only regenerate README.md from the truth files")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.readme_only:
        write_readme(out)
    else:
        render_samples(out, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
