"""`polo-lineup train-refine`: train the box refiner from a synth-dataset (CPU, minutes)."""
from __future__ import annotations

import argparse
from pathlib import Path

from cli.errors import UserError


def run(args: argparse.Namespace) -> int:
    from vision.refine_training import RefineTrainConfig, train_refiner
    if min(args.epochs, args.cuts) < 1:
        raise UserError("--epochs and --cuts must be at least 1")
    detector = args.from_detector
    if detector not in (None, "auto") and not Path(detector).exists():
        raise UserError(f"--from-detector: no such model file: {detector}")
    cfg = RefineTrainConfig(data=args.data, out=args.out, split=args.split, epochs=args.epochs, seed=args.seed,
                            cuts=args.cuts, detector=detector)
    try:
        record = train_refiner(cfg)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    summary = []
    for group, history in record["history"].items():
        last = history[-1]
        summary.append(f"{group} {record['crops'][group]} crops" + (
            "" if last["iou50_after"] is None else
            f", val IoU≥0.5 {last['iou50_before']:.3f} → {last['iou50_after']:.3f}"))
    print(f"trained the box refiner in {record['seconds'] / 60:.1f} min ({'; '.join(summary)}) → {cfg.out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train-refine", help="train the box refiner on a synth-dataset",
                       description="Train the small CNNs that move horse and person boxes onto the object, on "
                                   "full-resolution crops of the jittered true boxes of a whole-frame synth-dataset.")
    p.add_argument("--data", required=True, help="dataset folder (or its data.yaml) from `synth-dataset` "
                                                 "(whole frames: no --crop)")
    p.add_argument("--out", default="models/polo-refine.pt", help="weights file to write (default: %(default)s)")
    p.add_argument("--split", default="train", help="dataset split to train on (default: %(default)s)")
    p.add_argument("--epochs", type=int, default=10, help="epochs per network (default: %(default)s)")
    p.add_argument("--cuts", type=int, default=4, help="jittered crops per true box (default: %(default)s)")
    p.add_argument("--from-detector", nargs="?", const="auto", default=None, metavar="MODEL",
                   help="also train on this detector's own boxes on the training frames, each with the true box "
                        "it overlaps most as the target (no value: the shipped model)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    p.set_defaults(func=run)
