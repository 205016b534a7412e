"""`polo-lineup train-kind`: train the rider/umpire classifier from a synth-dataset (CPU, minutes)."""
from __future__ import annotations

import argparse

from cli.errors import UserError


def run(args: argparse.Namespace) -> int:
    from vision.kind_training import KindTrainConfig, train_kind
    if min(args.epochs, args.umpire_cuts, args.rider_cuts) < 1:
        raise UserError("--epochs, --umpire-cuts and --rider-cuts must be at least 1")
    cfg = KindTrainConfig(data=args.data, out=args.out, split=args.split, epochs=args.epochs, seed=args.seed,
                          umpire_cuts=args.umpire_cuts, rider_cuts=args.rider_cuts)
    try:
        record = train_kind(cfg)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    last = record["history"][-1]
    val = "no validation crops" if last["accuracy"] is None else f"val accuracy {last['accuracy']:.3f}"
    print(f"trained the rider/umpire classifier on {record['crops']} crops in {record['seconds'] / 60:.1f} min "
          f"({val}) → {cfg.out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train-kind", help="train the rider/umpire classifier on a synth-dataset",
                       description="Train the small CNN that tells an umpire from a rider on full-resolution "
                                   "crops of the true person boxes of a whole-frame synth-dataset.")
    p.add_argument("--data", required=True, help="dataset folder (or its data.yaml) from `synth-dataset` "
                                                 "(whole frames: no --crop)")
    p.add_argument("--out", default="models/polo-kind.pt", help="weights file to write (default: %(default)s)")
    p.add_argument("--split", default="train", help="dataset split to train on (default: %(default)s)")
    p.add_argument("--epochs", type=int, default=12, help="epochs (default: %(default)s)")
    p.add_argument("--umpire-cuts", type=int, default=10,
                   help="jittered crops per umpire box (default: %(default)s)")
    p.add_argument("--rider-cuts", type=int, default=4, help="jittered crops per rider box (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    p.set_defaults(func=run)
