"""Detector speed on 1280x720 frames, for every runtime shipped, in one run (2 CPU cores).
The detector is what the pipeline runs: the model, then the box refiner and the rider/umpire
classifier. The same OpenVINO model is then timed without them, to show what they cost, and,
on a CPU with bfloat16 (AMX, AVX512-BF16), in bfloat16 (POLO_OPENVINO_PRECISION=bf16; the
project compiles in FP32 by default, vision/openvino_cpu.py).

For each runtime (PyTorch .pt, ONNX Runtime .onnx, OpenVINO folder) it loads the shipped
model, warms up, then times `repeats` rounds over `frames` decoded frames of a sample clip
(letterboxed to the model's input inside the call) and prints the median frames per second
and the speed relative to PyTorch measured in the same run (ratios are what to compare:
absolute figures move with the machine's load).

    .venv/bin/python bench/bench_detect.py [--clip sample_videos/clean_lineup/clip.mp4] [--frames 30] [--repeats 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.detect import Detector, ModelError  # noqa: E402
from vision.openvino_cpu import ENV  # noqa: E402
from vision.video_io import open_video  # noqa: E402


def _median_fps(det, frames, repeats: int) -> float:
    for f in frames[:3]:
        det(f)
    rounds = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for f in frames:
            det(f)
        rounds.append(len(frames) / (time.perf_counter() - t0))
    return statistics.median(rounds)


def _has_bf16() -> bool:
    """The CPU computes bfloat16 natively (AMX or AVX512-BF16): OpenVINO's default there."""
    try:
        import openvino as ov
        return "BF16" in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    except Exception:  # noqa: BLE001 - no OpenVINO: nothing to compare
        return False


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clip", default=str(ROOT / "sample_videos" / "clean_lineup" / "clip.mp4"))
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--model", default=None, help=".pt whose exports sit beside it (default: the shipped model)")
    args = ap.parse_args()
    reader = open_video(args.clip)
    frames = [f for i, _t, f in reader if i < args.frames]
    reader.close()
    results = {}
    for runtime in ("torch", "onnx", "openvino"):
        try:
            det = Detector(args.model, runtime=runtime, ball_model="none")
        except ModelError as exc:
            print(f"{runtime:9s} skipped: {exc}")
            continue
        results[runtime] = _median_fps(det, frames, args.repeats)
        size = det.imgsz if isinstance(det.imgsz, int) else f"{det.imgsz[1]}x{det.imgsz[0]}"
        print(f"{runtime:9s} {results[runtime]:6.1f} frames/s (median of {args.repeats} x {len(frames)} frames, "
              f"input {size}, {det.path.name})")
    if "openvino" in results:
        for label, kw in (("openvino without the box refiner", {"refine_model": "none"}),
                          ("openvino, the model alone", {"refine_model": "none", "kind_model": "none"})):
            fps = _median_fps(Detector(args.model, runtime="openvino", ball_model="none", **kw), frames, args.repeats)
            print(f"{label}: {fps:6.1f} frames/s ({1000 / results['openvino'] - 1000 / fps:+.1f} ms a frame "
                  "for the full detector)")
        if _has_bf16():
            # OpenVINO's CPU default on such CPUs, not the project's (vision/openvino_cpu.py).
            os.environ[ENV] = "bf16"
            try:
                fps = _median_fps(Detector(args.model, runtime="openvino", ball_model="none"), frames, args.repeats)
            finally:
                os.environ.pop(ENV)
            print(f"openvino in bfloat16 ({ENV}=bf16; this CPU has it): {fps:6.1f} frames/s "
                  f"(x{fps / results['openvino']:.2f} FP32)")
    if "torch" in results:
        for runtime, fps in results.items():
            print(f"  {runtime:9s} x{fps / results['torch']:.2f} PyTorch")


if __name__ == "__main__":
    main()
