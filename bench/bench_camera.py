"""Camera motion on panning footage: how far the tracked homography drifts from the renderer's
true one, and what the tracker costs.

The panning sample's scenario is rendered again in a few variants (other seeds, camera stands
and aims, with and without zoom; about 15 s a clip) into --rendered DIR, where a clip already
rendered is reused. The tracker (`vision.camera_motion.CameraMotionTracker`, the options
`analyze` uses) follows each clip with the players' and umpires' true boxes masked out, so the
figures are the camera stage's alone. Error: each player's and umpire's true field position,
taken into the image by the frame's true homography and back to the field by the tracked one,
in yards (median, 95th percentile and largest over the clip, median on its last frame); the
sample's calibration.json starts the tracker, as `analyze` does. Time: CPU seconds of the
tracker's updates a frame (median of --repeats runs; CPU time, not wall time, so that other
work on the machine counts less).

    .venv/bin/python bench/bench_camera.py [--rendered DIR] [--repeats 3] [--only NAME ...] [--set KEY=VALUE ...]
        [--extra N]
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.camera_motion import CameraMotionTracker  # noqa: E402
from vision.homography import calibrate, field_to_image, image_to_field  # noqa: E402
from vision.video_io import open_video  # noqa: E402

PAN_SAMPLE = ROOT / "sample_videos" / "clean_lineup_pan"
# name: (seed, camera stand moved by (dx, dy, dz) yd, keyframes' aims moved by (dx, dy) yd, zoom kept)
VARIANTS = {
    "sample": None,                                     # the sample clip itself
    "moved_stand": (902, (-6, -3, 2), (0, 0), True),    # bench_samples.py --rerender 900's clip
    "no_zoom": (903, (6, -3, -1), (0, 0), False),
    "long_pan": (904, (0, -4, 1), (15, 3), True),
}


def extra_variants(n: int) -> dict:
    """`n` more pans: camera stand moved by up to ±8 yd along, 0-5 yd back, -1..3 yd up; the
    keyframes' aims by -5..20 yd along and ±3-5 yd across; every third one without zoom."""
    rng = np.random.default_rng(31)
    out = {}
    for k in range(n):
        out[f"extra{k}"] = (3100 + k, tuple(float(v) for v in np.round(rng.uniform([-8, -5, -1], [8, 0, 3]), 1)),
                            tuple(float(v) for v in np.round(rng.uniform([-5, -3], [20, 5]), 1)), bool(k % 3))
    return out


def render_variant(name: str, out: Path) -> Path:
    """The panning sample's scenario changed as VARIANTS[name] says, rendered into out/name."""
    from synth.clip import render_clip
    from synth.scenario import parse_scenario
    seed, (mx, my, mz), (ax, ay), zoom = VARIANTS[name]
    data = json.loads((PAN_SAMPLE / "scenario.json").read_text())
    data["seed"] = seed
    cam = data["camera"]
    x, y, z = cam["position"]
    cam["position"] = [x + mx, y + my, z + mz]
    keys = copy.deepcopy(cam.get("keyframes", []))
    for k in keys[1:]:                                  # the first keyframe holds the line-up's aim
        k["look_at"] = [k["look_at"][0] + ax, k["look_at"][1] + ay]
        if not zoom:
            k.pop("focal_px", None)
    cam["keyframes"] = keys
    folder = out / name
    render_clip(parse_scenario(data, name), folder)       # writes calibration.json too
    return folder


def true_boxes(frame: dict) -> np.ndarray:
    """Each player's and umpire's boxes (horse, rider, umpire) joined into one, (N, 4) px."""
    out = []
    for o in frame["objects"]:
        if o["role"] in ("player", "umpire") and o["boxes"]:
            b = np.array(list(o["boxes"].values()), float)
            out.append([b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()])
    return np.array(out).reshape(-1, 4)


def score(folder: Path, repeats: int, options: dict | None = None) -> dict:
    truth = json.loads((folder / "truth.json").read_text())
    frames = [f for _i, _t, f in open_video(folder / "clip.mp4")]
    boxes = [true_boxes(tf) for tf in truth["frames"]]
    H0 = calibrate(str(folder / "calibration.json")).H
    size = (frames[0].shape[1], frames[0].shape[0])
    cpu = []
    for _ in range(repeats):
        tracker = CameraMotionTracker(H0, size, **(options or {}))
        Hs = []
        t0 = time.process_time()
        for frame, b in zip(frames, boxes):
            Hs.append(tracker.update(frame, exclude_boxes=b).H)
        cpu.append(time.process_time() - t0)
    per_frame = []
    for H, tf in zip(Hs, truth["frames"]):
        P = np.array([[o["x"], o["y"]] for o in tf["objects"] if o["role"] in ("player", "umpire")])
        px = field_to_image(np.array(tf["H_field_to_image"]), P)
        per_frame.append(np.hypot(*(image_to_field(H, px) - P).T))
    e = np.concatenate(per_frame)
    return {"frames": len(frames), "cpu_ms_per_frame": 1000 * float(np.median(cpu)) / len(frames),
            "error_median_yd": float(np.median(e)), "error_p95_yd": float(np.percentile(e, 95)),
            "error_max_yd": float(e.max()), "error_last_frame_yd": float(np.median(per_frame[-1])),
            "ptz": tracker.camera is not None, "ptz_misfits": tracker.ptz_misfits}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rendered", default=None, metavar="DIR",
                    help="keep the rendered variants here (a clip already there is reused)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None, choices=sorted(VARIANTS))
    ap.add_argument("--json", default=None, help="also write the figures here")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="tracker options to try instead of the defaults, e.g. max_features=400")
    ap.add_argument("--extra", type=int, default=0, metavar="N",
                    help="also N more pans of the sample's scenario, stands, aims and zoom drawn at random "
                         "(seeds 3100...; session 31's figures: --extra 12), and the means over all pans")
    args = ap.parse_args()
    VARIANTS.update(extra_variants(args.extra))
    if args.only is not None:
        args.only += [k for k in VARIANTS if k.startswith("extra")]
    tmp = tempfile.TemporaryDirectory() if not args.rendered else None
    out = Path(args.rendered or tmp.name)
    out.mkdir(parents=True, exist_ok=True)
    options = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in args.set)}
    rows, figures = [], {}
    for name in args.only or list(VARIANTS):
        folder = PAN_SAMPLE if VARIANTS[name] is None else (
            out / name if (out / name / "truth.json").exists() else render_variant(name, out))
        s = figures[name] = score(folder, args.repeats, options)
        rows.append(f"| {name} | {s['frames']} | {s['error_median_yd']:.2f} / {s['error_p95_yd']:.2f} / "
                    f"{s['error_max_yd']:.2f} | {s['error_last_frame_yd']:.2f} | {s['cpu_ms_per_frame']:.2f} |")
        print(rows[-1], flush=True)
    print("\n| pan | frames | error median / p95 / max, yd | error on the last frame, yd | tracker CPU ms a frame |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    if len(figures) > 1:
        m = {k: float(np.mean([f[k] for f in figures.values()])) for k in
             ("error_median_yd", "error_p95_yd", "error_max_yd", "error_last_frame_yd")}
        print(f"\nmeans over the {len(figures)} pans: median {m['error_median_yd']:.2f}, p95 {m['error_p95_yd']:.2f}, "
              f"max {m['error_max_yd']:.2f}, last frame {m['error_last_frame_yd']:.2f} yd")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
