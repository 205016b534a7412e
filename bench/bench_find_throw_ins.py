"""Finding the throw-ins of a recording (`find-throw-ins`), then judging each (as `batch` does).

Recordings (synth/recording.py): two throw-ins (a line-up and throw-in, play north, a goal off
the picture, a second line-up with ends changed, a second throw-in: 17 s), rendered as it is,
from a moved camera stand with another seed, and from farther back with a wider lens that keeps
the play in view; five throw-ins in 54 s seen that way too, and by a camera that pans after
the play and back to the centre for each line-up (about 15 s to render a 17-s one, into
--rendered DIR, reused there); the panning one again with a broadcast's cutaways (4 s of a
second camera on the far side after each goal: the scan must skip them and find the first
camera's view again), and with replays of its own footage (from 4 s after each throw-in but the
last, 4 s of the main camera's footage from 1 s before it: the scan must not find those
throw-ins twice, vision.replays); and each of the twelve sample clips, one throw-in (or none) each. For each: the
line-ups found, whether each true throw-in lies inside a window found (and how many windows
hold none), the scan's speed (seconds of footage per second, the models loaded once); then, for
the recordings, `analyze` on each window with that throw-in's ends (and, where the camera
moved, the calibration the scan followed it to, as `find-throw-ins --write` writes): the throw-in
frame found against the truth, and the events against the rules engine's events on the true
positions of the same frames (every line-up is clean, but a window that opens while the players
still ride in holds riders across the centre line and closing on the umpire).

    .venv/bin/python bench/bench_find_throw_ins.py [--rendered DIR] [--no-samples] [--only NAME ...]
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.pipeline import AnalyzeOptions  # noqa: E402
from vision.sidecar import load_sidecar  # noqa: E402
from vision.throw_in_finder import clock, scan  # noqa: E402
from vision.video_io import Window  # noqa: E402

SAMPLES = ROOT / "sample_videos"
TWO, FIVE = [3.0, 14.0], [3.0, 14.0, 26.0, 40.0, 51.0]
# name: (throw-in times, seed, camera stand moved by (dx, dy, dz) yd, focal length scaled by, camera follows)
RECORDINGS = {"two_throw_ins": (TWO, 101, (0, 0, 0), 1.0, False),
              "two_throw_ins_moved": (TWO, 902, (-6, -3, 2), 1.0, False),
              "two_throw_ins_wide": (TWO, 903, (0, -10, 4), 0.6, False),    # the play in view throughout
              "five_throw_ins_wide": (FIVE, 904, (3, -10, 4), 0.6, False),
              "five_throw_ins_pan": (FIVE, 905, (0, 0, 0), 1.0, True)}      # panning after the play and back


# A broadcast's cutaways: `of` (a recording above) with, from each throw-in but the last, the
# frames from 4 s to 8 s after it (the goal and the ride back) taken from a second camera
# watching the same scene from the far side (another stand, a closer view: a replay angle).
CUTAWAYS = {"five_throw_ins_cutaways": ("five_throw_ins_pan", {"position": [150, 185, 8], "look_at": [150, 66],
                                                              "focal_px": 2600}, (4.0, 8.0))}


# Replays: `of` with, from each throw-in but the last, the frames from `at` s to `at + length`
# s after it replaced by its own footage from `from_s` after it (the throw-in shown again).
REPLAYS = {"five_throw_ins_replays": ("five_throw_ins_pan", 4.0, 4.0, -1.0)}


def render_replays(name: str, out: Path) -> tuple[Path, list[dict]]:
    """Splice `of`'s own footage back into it as replays (into out/name)."""
    import shutil

    from vision.video_io import VideoWriter, open_video
    of, at, length, from_s = REPLAYS[name]
    main_clip, tis = render_recording(of, out)
    folder = out / name
    if not (folder / "clip.mp4").is_file():
        frames = [f for _i, _t, f in open_video(main_clip)]
        shown = list(range(len(frames)))
        for ti in tis[:-1]:
            start, first = round((ti["t"] + at) * 25), round((ti["t"] + from_s) * 25)
            for k in range(round(length * 25)):
                shown[start + k] = first + k
        folder.mkdir(parents=True, exist_ok=True)
        with VideoWriter(folder / "clip.mp4", 25.0) as w:
            for j in shown:
                w.write(frames[j])
        for n in ("calibration.json", "truth.json"):
            shutil.copy(main_clip.with_name(n), folder / n)
    return folder / "clip.mp4", tis


def render_cutaways(name: str, out: Path) -> tuple[Path, list[dict]]:
    """Render `of`'s scenario from the second camera and splice its frames in (into out/name)."""
    import shutil

    from synth.clip import render_clip
    from synth.recording import recording
    from synth.scenario import parse_scenario
    from vision.video_io import VideoWriter, open_video
    of, camera, (a, b) = CUTAWAYS[name]
    main_clip, tis = render_recording(of, out)
    folder = out / name
    if not (folder / "clip.mp4").is_file():
        times, seed, *_ = RECORDINGS[of]
        doc, _ = recording(times, name=f"{of}_far_side", seed=seed)
        doc["camera"] = dict(camera)
        far = out / f"{of}_far_side"
        if not (far / "clip.mp4").is_file():
            render_clip(parse_scenario(doc), far, with_expected=False)
        away = [(round((ti["t"] + a) * 25), round((ti["t"] + b) * 25)) for ti in tis[:-1]]
        folder.mkdir(parents=True, exist_ok=True)
        with VideoWriter(folder / "clip.mp4", 25.0) as w:
            for (i, _t, f), (_j, _u, g) in zip(open_video(main_clip), open_video(far / "clip.mp4")):
                w.write(g if any(lo <= i < hi for lo, hi in away) else f)
        for n in ("calibration.json", "truth.json"):
            shutil.copy(main_clip.with_name(n), folder / n)
    return folder / "clip.mp4", tis


def render_recording(name: str, out: Path) -> tuple[Path, list[dict]]:
    from synth.clip import render_clip
    from synth.recording import recording
    from synth.scenario import parse_scenario
    times, seed, (mx, my, mz), zoom, follow = RECORDINGS[name]
    doc, throw_ins = recording(times, name=name, seed=seed, follow=follow)
    x, y, z = doc["camera"]["position"]
    doc["camera"]["position"] = [x + mx, y + my, z + mz]
    doc["camera"]["focal_px"] *= zoom
    for k in doc["camera"].get("keyframes", []):
        k["focal_px"] *= zoom
    folder = out / name
    if not (folder / "clip.mp4").is_file():
        render_clip(parse_scenario(doc), folder, with_expected=False)
    return folder / "clip.mp4", throw_ins


def scan_detector():
    from vision.detect import Detector
    return Detector(None, ball_model="none", conf=AnalyzeOptions.conf)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rendered", default=None, help="folder for (and of) the rendered recordings")
    ap.add_argument("--no-samples", action="store_true", help="the rendered recordings only")
    ap.add_argument("--only", nargs="*", default=None, help="these recordings or samples only")
    args = ap.parse_args(argv)
    out = Path(args.rendered or tempfile.mkdtemp(prefix="find-throw-ins-"))
    det = scan_detector()
    rows = ["| footage | line-ups found | true throw-ins inside a window | windows without one | "
            "scan: s of footage per s | other shots skipped |", "|---|---|---|---|---|---|"]
    judged = ["| recording | window | throw-in frame found (truth) | events | events on the true positions | "
              "other shots / replays skipped |", "|---|---|---|---|---|---|"]
    clips = []
    for name in RECORDINGS:
        clip, tis = render_recording(name, out)
        clips.append((name, clip, [ti["t"] for ti in tis], tis))
    for name in CUTAWAYS:
        clip, tis = render_cutaways(name, out)
        clips.append((name, clip, [ti["t"] for ti in tis], tis))
    for name in REPLAYS:
        clip, tis = render_replays(name, out)
        clips.append((name, clip, [ti["t"] for ti in tis], tis))
    if not args.no_samples:
        for folder in sorted(p for p in SAMPLES.iterdir() if (p / "truth.json").is_file()):
            truth = json.loads((folder / "truth.json").read_text())
            ti = truth["throw_in_frame"]
            clips.append((folder.name, folder / "clip.mp4", [] if ti is None else [ti / truth["fps"]], None))
    if args.only:
        clips = [c for c in clips if c[0] in args.only]
    inside_all = total = extra_all = 0
    for name, clip, times, tis in clips:
        side = load_sidecar(clip)
        cal = side.get("calibration") or str(clip.with_name("calibration.json"))
        opts = AnalyzeOptions(defending=side.get("defending") or {"red": "south", "blue": "north"}, calibration=cal,
                              team_colours=side.get("team_colours"), annotate=False)
        found = scan(clip, opts, detector=det)
        wins = [(lu.window_start_s, lu.window_end_s) for lu in found.lineups]
        inside = sum(any(a <= t < b for a, b in wins) for t in times)
        extra = sum(not any(a <= t < b for t in times) for a, b in wins)
        inside_all, total, extra_all = inside_all + inside, total + len(times), extra_all + extra
        others = ", ".join(f"{clock(sh['start_s'])}-{clock(sh['end_s'])}{' (replay)' if sh.get('replay') else ''}"
                           for sh in found.shots or [] if sh["view"] == "other")
        rows.append(f"| {name} | {len(found.lineups)} | {inside} of {len(times)} | {extra} | "
                    f"{found.duration_s / found.seconds:.1f} | {others or '-'} |")
        if tis is None:
            continue
        from vision.pipeline import analyze
        fps = 25.0
        for (a, b), ti, own in zip(wins, tis, found.calibrations):
            o = AnalyzeOptions(defending=ti["defending"], calibration=own or cal,    # as batch on what --write writes
                               team_colours=side.get("team_colours"), annotate=False, window=Window(a, b))
            rep = analyze(clip, o, detector=full_detector()).report
            judged.append(f"| {name} | {clock(a)}-{clock(b)} | {rep['throw_in']['frame']} ({round(ti['t'] * fps)}) | "
                          f"{_codes(rep['events'])} | {_codes(true_events(clip, rep, round(ti['t'] * fps), ti['defending']))} | "
                          f"{sum(not c.get('replay') for c in rep['cutaways'])} / {sum(bool(c.get('replay')) for c in rep['cutaways'])}"
                          f"{' + replay to the end' if (rep.get('camera_cut') or {}).get('replay') else ''} |")
    print("\n".join(rows))
    print(f"\n{inside_all} of {total} true throw-ins inside a window found; {extra_all} window(s) without one")
    print()
    print("\n".join(judged))
    return 0


def _codes(events: list[dict]) -> str:
    counts: dict[str, int] = {}
    for e in events:
        counts[e["code"]] = counts.get(e["code"], 0) + 1
    return ", ".join(f"{c} x{n}" for c, n in counts.items()) or "none"


def true_events(clip: Path, report: dict, throw_in: int, defending: dict) -> list[dict]:
    """The rules engine's events on the recording's true positions over the frames `report`
    judged (the window, less what it skipped), with the window's throw-in."""
    import rules
    from rules.events import violation_events
    from synth.truth import frame_positions
    judged = {f["index"] for f in report["frames"]}
    truth = json.loads(clip.with_name("truth.json").read_text())
    thrower = next((o["id"] for o in truth["frames"][0]["objects"] if o["role"] == "umpire"), None)
    kept = [fr for fr in truth["frames"] if fr["index"] in judged]
    index = [fr["index"] for fr in kept]
    frames = [frame_positions(fr, "lineup" if i < throw_in else "throw_in" if i == throw_in else "play", thrower)
              for fr, i in zip(kept, index)]
    verdict = rules.check_document({"field": truth["field"], "defending": defending, "fps": truth["fps"],
                                    "frames": frames})
    for k, fr in enumerate(verdict["frames"]):
        fr["index"] = index[k]
    return violation_events(verdict["frames"], min_run=AnalyzeOptions.min_run)


@functools.cache
def full_detector():
    """The shipped detector with its ball stage, loaded once (analyze's default)."""
    from vision.detect import Detector
    return Detector(None, conf=AnalyzeOptions.conf)


if __name__ == "__main__":
    started = time.perf_counter()
    rc = main()
    print(f"\n({time.perf_counter() - started:.0f} s)")
    sys.exit(rc)
