"""Per-stage speed of the analysis pipeline on a 720p sample clip, one process.

Stages: decode, detect (shipped model), ball (the ball stage's windows around the umpire and
the last sighting), pair+track, camera motion (homography update), teams (appearance), numbers
(the shirt-number reader), rules (vectorised, whole clip), draw (overlays), encode (H.264).
Prints frames per second per stage and end to end, and each stage's share of the time.

    .venv/bin/python bench/bench_pipeline.py [--clip sample_videos/clean_lineup_pan/clip.mp4] [--frames 100] [--stride 2]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules import Field, check_batch  # noqa: E402
from vision.annotate_clip import ANNOTATED_PRESET  # noqa: E402
from vision.ball import BallFollower  # noqa: E402
from vision.camera_motion import CameraMotionTracker  # noqa: E402
from vision.detect import Detector  # noqa: E402
from vision.draw import Marker, annotate  # noqa: E402
from vision.homography import calibrate, image_to_field  # noqa: E402
from vision.pipeline import AnalyzeOptions, _batch  # noqa: E402
from vision.players import pair_units  # noqa: E402
from vision.positions import ground_point_px  # noqa: E402
from vision.shirt_numbers import readable  # noqa: E402
from vision.teams import describe  # noqa: E402
from vision.tracking import UnitTracker  # noqa: E402
from vision.video_io import VideoWriter, open_video  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clip", default=str(ROOT / "sample_videos" / "clean_lineup_pan" / "clip.mp4"))
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--model", default=None)
    ap.add_argument("--runtime", default="auto", help="detector runtime (default: auto, as analyze)")
    ap.add_argument("--stride", type=int, default=1,
                    help="also time analyze --stride N on the whole clip (video frames a second)")
    ap.add_argument("--repeats", type=int, default=1,
                    help="repeat the whole-clip runs and report medians (timings on shared machines are noisy)")
    args = ap.parse_args()
    clip = Path(args.clip)
    fit = calibrate(str(clip.with_name("calibration.json")))
    det = Detector(args.model, runtime=args.runtime, conf=AnalyzeOptions.conf)     # as analyze runs it
    reader = open_video(clip)
    cam = CameraMotionTracker(fit.H, reader.size)
    tracker = UnitTracker(fps=reader.fps or 25)
    follower = BallFollower(det.ball_finder) if det.ball_finder is not None else None
    looks_run = 0
    spent: dict[str, float] = defaultdict(float)
    n = 0
    positions = []
    with tempfile.TemporaryDirectory() as tmp, VideoWriter(Path(tmp) / "bench.mp4", reader.fps or 25, preset=ANNOTATED_PRESET) as writer:
        it = iter(reader)
        while n < args.frames:
            t0 = time.perf_counter()
            try:
                _i, _t, frame = next(it)
            except StopIteration:
                break
            t1 = time.perf_counter(); spent["decode"] += t1 - t0
            d = det(frame)
            t2 = time.perf_counter(); spent["detect"] += t2 - t1
            units = pair_units(d)
            if follower is not None:     # the umpire's person box: the detector's umpire class here
                follower.find(frame, n, units.person_xyxy[units.is_umpire])
                looks_run = follower.looks
            t2b = time.perf_counter(); spent["ball"] += t2b - t2
            t2 = t2b
            step = cam.update(frame, exclude_boxes=d.xyxy)
            t3 = time.perf_counter(); spent["homography"] += t3 - t2
            yd = image_to_field(step.H, ground_point_px(units.horse_xyxy)) if len(units) else np.zeros((0, 2))
            ids = tracker.update(units, yd)
            t4 = time.perf_counter(); spent["track"] += t4 - t3
            if n % 3 == 0:              # as vision.observe: a settled track is described every 3rd frame
                for k in np.flatnonzero(~np.isnan(units.person_xyxy[:, 0])):
                    describe(frame, units.person_xyxy[k])
            t5 = time.perf_counter(); spent["teams"] += t5 - t4
            if det.numbers is not None and n % 3 == 0:   # as vision.observe before a track's number is settled
                ok = readable(units.person_xyxy) & ~units.is_umpire
                if ok.any():
                    det.numbers.read(frame, units.person_xyxy[ok])
            t5b = time.perf_counter(); spent["numbers"] += t5b - t5
            t5 = t5b
            positions.append(yd)
            markers = [Marker(int(i), "red", b, p) for i, b, p in zip(ids, units.horse_xyxy, yd)]
            out = annotate(frame, markers, np.linalg.inv(step.H), ["FIVE YARD red-1 4.2 yd"])
            t6 = time.perf_counter(); spent["draw"] += t6 - t5
            writer.write(out)
            spent["encode"] += time.perf_counter() - t6
            n += 1
    # rules on the whole clip's positions (as the pipeline does), 8 players + 1 umpire per frame
    P = 8
    xy = np.full((P + 1, n, 2), np.nan)
    for f, yd in enumerate(positions):
        xy[:min(len(yd), P + 1), f] = yd[:P + 1]
    ident = {k: ("umpire" if k == P else ("red" if k % 2 else "blue")) for k in range(P + 1)}
    t0 = time.perf_counter()
    b = _batch(Field(), {"red": "south", "blue": "north"}, list(range(P + 1)), ident, xy,
               np.arange(n) / 25.0, np.zeros(n, np.int8), np.full((n, 2), np.nan))
    check_batch(b)
    spent["rules"] = time.perf_counter() - t0
    total = sum(spent.values())
    print(f"{clip.name}: {n} frames at {reader.size[0]}x{reader.size[1]}, detector input {det.imgsz} ({det.path.name}, {det.runtime} on the CPU)")
    print(f"  (the ball stage ran {looks_run} windows in {n} frames)")
    for stage in ("decode", "detect", "ball", "track", "homography", "teams", "numbers", "rules", "draw", "encode"):
        s = spent[stage]
        print(f"  {stage:11s} {n / s if s else float('inf'):9.1f} frames/s  {100 * s / total:5.1f}% of the time")
    print(f"  end to end  {n / total:9.1f} frames/s; stages other than detection (detector and ball stage): "
          f"{100 * (total - spent['detect'] - spent['ball']) / total:.1f}% of the time (one stage after another); "
          f"the shirt-number reader counted with detection: "
          f"{100 * (total - spent['detect'] - spent['ball'] - spent['numbers']) / total:.1f}%")
    pipelined(clip, det, max(1, args.repeats), args.stride)


def pipelined(clip: Path, det, repeats: int = 1, stride: int = 1) -> None:
    """The real thing, whole clip: `analyze` as the CLI runs it (decode and detection of the
    next frame overlapping the rest), then the annotated clip (decode, draw, encode), against
    decoding and detecting alone. The overhead is the share of the wall time that is not
    decoding+detection."""
    from vision.annotate_clip import write_annotated
    from vision.pipeline import analyze, team_hints
    from vision.sidecar import load_sidecar
    side = load_sidecar(clip)
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"])
    runs = defaultdict(list)
    # "an": every frame; "st": every Nth (the report says what was skipped)
    timed_runs = [("an", opts)] + ([("st", replace(opts, stride=stride))] if stride > 1 else [])
    for _ in range(repeats):     # the runs one after another, each round: medians of each
        t0 = time.perf_counter()
        n = 0
        for _i, _t, frame in open_video(clip):
            det(frame)
            n += 1
        runs["base"].append(time.perf_counter() - t0)
        finder, det.ball_finder = det.ball_finder, None
        t0 = time.perf_counter()
        analyze(clip, opts, detector=det)
        runs["noball"].append(time.perf_counter() - t0)
        det.ball_finder = finder
        numbers, det.numbers = det.numbers, None
        t0 = time.perf_counter()
        analyze(clip, opts, detector=det)
        runs["nonum"].append(time.perf_counter() - t0)
        det.numbers = numbers
        for key, o in timed_runs:   # analyze, then the annotated clip
            t0 = time.perf_counter()
            analysis = analyze(clip, o, detector=det)
            runs[key].append(time.perf_counter() - t0)
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                write_annotated(clip, analysis, Path(tmp) / "a.mp4", team_colours=team_hints(o))
                runs[key + "_ann"].append(time.perf_counter() - t0)
    base, t_noball, t_an, t_ann, t_nonum = (float(np.median(runs[k])) for k in ("base", "noball", "an", "an_ann", "nonum"))
    print(f"whole clip, {n} frames{f', medians of {repeats} rounds' if repeats > 1 else ''}: "
          f"decode+detect alone {n / base:.1f} frames/s")
    print(f"  analyze without the ball stage {n / t_noball:6.1f} frames/s; beyond decode+detect: "
          f"{100 * (t_noball - base) / t_noball:5.1f}% of its time")
    print(f"  analyze (reports)            {n / t_an:6.1f} frames/s; beyond decode+detect: {100 * (t_an - base) / t_an:5.1f}% of its time"
          f" (the ball stage included)")
    print(f"  analyze + annotated.mp4      {n / (t_an + t_ann):6.1f} frames/s; beyond decode+detect: "
          f"{100 * (t_an + t_ann - base) / (t_an + t_ann):5.1f}% of its time")
    # Detection is the detector (with its rider/umpire classifier) and the ball stage, another
    # YOLO detector: what the ball stage adds is the difference between the two analyze runs.
    # The shirt-number reader, another network on crops, is counted apart: what it adds is the
    # difference between analyze with and without it.
    if stride > 1:
        t_st, t_st_ann = float(np.median(runs["st"])), float(np.median(runs["st_ann"]))
        print(f"  analyze --stride {stride} (reports) {n / t_st:6.1f} video frames/s; + annotated.mp4 "
              f"{n / (t_st + t_st_ann):6.1f} (1 frame in {stride} analysed)")
    reader = t_an - t_nonum
    print(f"  the shirt-number reader: {100 * reader / t_an:5.1f}% of analyze (reports) "
          f"(without it {n / t_nonum:.1f} frames/s)")
    for with_reader, other in (("", t_noball - base - reader), (", the reader among them", t_noball - base)):
        print(f"  stages other than decode and detection (detector, classifier and ball stage{with_reader}): "
              f"{100 * other / t_an:5.1f}% of analyze (reports), "
              f"{100 * (other + t_ann) / (t_an + t_ann):5.1f}% of analyze + annotated.mp4")


if __name__ == "__main__":
    main()
