"""Command-line options shared by `analyze` and `batch` (and the progress bar of one video)."""
from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Callable, Iterator

from vision.frame_store import DEFAULT_BUDGET_MB


def _megabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of megabytes: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more megabytes: {text!r}")
    return value


def add_detection_options(p: argparse.ArgumentParser) -> None:
    """--model, --runtime, --ball-model, --class-map, --imgsz, --conf, --stride, --min-run,
    --margin-sigmas, --hidden-horses, --track-space."""
    p.add_argument("--model", default=None, help="detector weights (default: models/polo-yolo.pt)")
    p.add_argument("--runtime", choices=("auto", "torch", "onnx", "openvino"), default="auto",
                   help="detector runtime: auto (default: the shipped model's OpenVINO export when present, "
                        "else the .pt; a --model file as it is), torch, onnx or openvino (exports made by "
                        "`polo-lineup export-detector` beside the .pt)")
    p.add_argument("--ball-model", default="auto", metavar="PATH|auto|none",
                   help="the ball stage's weights, run on full-resolution windows around the umpire and the "
                        "last sighting (default auto: models/polo-ball.pt; none: only the detector's own balls)")
    p.add_argument("--no-ball-motion", action="store_true",
                   help="do not look for the thrown ball by motion (small spots brighter than the frames before "
                        "and after, in a still window around the umpire; vision/ball_motion.py)")
    p.add_argument("--kind-model", default="auto", metavar="PATH|auto|none",
                   help="the rider/umpire classifier, run on full-resolution crops of every person box "
                        "(default auto: models/polo-kind.pt; none: the detector's own classes)")
    p.add_argument("--refine-model", default="auto", metavar="PATH|auto|none",
                   help="the box refiner, which moves every horse and person box onto its object from the "
                        "full-resolution crop (default auto: models/polo-refine.pt; none: the detector's own boxes)")
    p.add_argument("--number-model", default="auto", metavar="PATH|auto|none",
                   help="the shirt-number reader, run on tracked riders tall enough to read, whose reads are "
                        "voted per track (default auto: models/polo-numbers.pt; none: players named by track id)")
    p.add_argument("--class-map", default=None,
                   help="map other weights' class names to ours, e.g. person=rider,horse=horse (COCO is known)")
    p.add_argument("--imgsz", type=int, default=None, help="detector input size (default: the model's)")
    p.add_argument("--conf", type=float, default=0.3, help="detection confidence threshold (default: %(default)s)")
    p.add_argument("--frame-memory-mb", type=_megabytes, default=DEFAULT_BUDGET_MB, metavar="MB",
                   help="memory for decoded frames kept from the analysis for annotated.mp4, which then "
                        "need not be decoded again (default: %(default)s MB, ~380 frames at 720p; at most a "
                        "quarter of the free memory; 0: decode the clip twice)")
    p.add_argument("--stride", type=int, default=1, help="analyse every Nth frame (default: every frame)")
    p.add_argument("--min-run", type=int, default=3,
                   help="frames a violation must hold to be reported as an event (default: %(default)s)")
    p.add_argument("--margin-sigmas", type=float, default=1.0,
                   help="a distance or side finding must hold by this many standard deviations of the "
                        "positions' uncertainty along its own direction (across the centre line for a side, "
                        "along the gap for a distance; default: %(default)s; 0 takes positions as exact)")
    p.add_argument("--hidden-horses", action=argparse.BooleanOptionalAction, default=None,
                   help="place a rider whose horse is hidden by the horses in front (a camera looking "
                        "along the ranks) from his own box: more players placed, each less sure "
                        "(default: on, or the sidecar's hidden_horses; measured in docs/measurements.md)")
    p.add_argument("--track-space", choices=("field", "image"), default="field",
                   help="track players on their field positions in yards (default) or on their ground "
                        "points in pixels, camera motion compensated (fewer swaps in still line-ups, "
                        "more lost tracks with a noisy detector)")


@contextlib.contextmanager
def frame_progress(video: str | Path, quiet: bool = False) -> Iterator[Callable[[int, int], None]]:
    """A `progress(done, total)` for vision.pipeline.analyze: a bar named after the video, made
    at the first frame (so that an early error prints only itself), closed on leaving."""
    from tqdm import tqdm
    bars = []

    def progress(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(desc=Path(video).name, unit="frame", disable=quiet, leave=False))
        bar = bars[0]
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()
    try:
        yield progress
    finally:
        for bar in bars:
            bar.close()
