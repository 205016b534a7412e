"""`polo-lineup train-numbers`: train the shirt-number reader on riders it renders (CPU, minutes)."""
from __future__ import annotations

import argparse

from cli.errors import UserError


def run(args: argparse.Namespace) -> int:
    from vision.number_training import NumberTrainConfig, train_numbers
    if min(args.epochs, args.images, args.cuts, args.workers) < 1 or args.val_images < 0:
        raise UserError("--epochs, --images, --cuts and --workers must be at least 1, --val-images at least 0")
    cfg = NumberTrainConfig(out=args.out, images=args.images, val_images=args.val_images, epochs=args.epochs,
                            cuts=args.cuts, seed=args.seed, workers=args.workers)
    try:
        record = train_numbers(cfg)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    last = record["history"][-1]
    val = "no validation crops" if last["accuracy"] is None else \
        f"val accuracy {last['accuracy']:.3f}, counted reads {last['counted_precision']:.3f} right"
    print(f"trained the shirt-number reader on {record['crops']} crops in {record['seconds'] / 60:.1f} min "
          f"({val}) → {cfg.out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train-numbers", help="train the shirt-number reader on rendered riders",
                       description="Render random scenes, cut every rider tall enough to read (labelled with the "
                                   "number the renderer drew and how much of it shows) and train the small CNN "
                                   "that reads shirt numbers 1-4. Validation frames come from another seed.")
    p.add_argument("--out", default="models/polo-numbers.pt", help="weights file to write (default: %(default)s)")
    p.add_argument("--images", type=int, default=3000, help="frames rendered for training (default: %(default)s)")
    p.add_argument("--val-images", type=int, default=300,
                   help="frames rendered from another seed for validation (default: %(default)s)")
    p.add_argument("--epochs", type=int, default=12, help="epochs (default: %(default)s)")
    p.add_argument("--cuts", type=int, default=3, help="jittered crops per rider (default: %(default)s)")
    p.add_argument("--workers", type=int, default=2, help="rendering processes (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    p.set_defaults(func=run)
