"""`polo-lineup synth-dataset --n N --seed S --out DIR`: a YOLO dataset of rendered throw-ins."""
from __future__ import annotations

import argparse
import os

from cli.errors import UserError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("synth-dataset", help="render a YOLO detection dataset (horse, rider, umpire, ball)",
                       description="Render N random line-ups and plays (legal and illegal, many cameras and "
                                   "kits) as 1280x720 JPEGs with YOLO labels, data.yaml and dataset.json. "
                                   "Boxes are labelled when at least 25%% of the part is visible.")
    p.add_argument("--n", type=int, required=True, help="number of images")
    p.add_argument("--seed", type=int, default=0, help="dataset seed (default 0): same seed, same dataset")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--val-fraction", type=float, default=0.1, help="share of images in the val split (default 0.1)")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                   help="processes (default: up to 2); the output does not depend on it")
    p.add_argument("--size", default="1280x720", help=argparse.SUPPRESS)
    p.add_argument("--scale", type=float, default=1.0,
                   help="resize each rendered frame by this factor before writing (default 1: full size); "
                        "0.5 matches whole 1280x720 frames seen by a model at imgsz 640; up to 2 "
                        "enlarges (the ball stage's crops)")
    p.add_argument("--crop", default=None, metavar="WxH",
                   help="cut a WxH training crop around the action from each (resized) frame, e.g. 384x360; "
                        "the model then trains at imgsz max(W, H) without being resized")
    p.add_argument("--focus", choices=("action", "ball"), default="action",
                   help="what a --crop is cut around: the horses (default) or the ball (else the umpire's "
                        "upper body), for the ball stage's data set")
    p.add_argument("--classes", default=None, metavar="NAMES",
                   help="keep only these classes, comma-separated, numbered from 0 in that order "
                        "(e.g. ball for the ball stage); default: horse,rider,umpire,ball")
    p.add_argument("--min-box", type=float, default=0.0, metavar="PX",
                   help="widen smaller boxes to this many px about their centre (default 0: true size); "
                        "12 for the ball stage, whose 4-7 px true boxes leave the assigner's IoU-based targets near zero")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cli.commands.render import _parse_size
    from synth.dataset import CLASS_OF, MAX_SCALE, write_dataset

    if args.n < 1:
        raise UserError("--n must be at least 1")
    if args.seed < 0:
        raise UserError("--seed must be a non-negative integer")
    if not 0.0 <= args.val_fraction < 1.0:
        raise UserError("--val-fraction must be in [0, 1)")
    if args.workers < 1:
        raise UserError("--workers must be at least 1")
    size = _parse_size(args.size)
    if not 0.05 <= args.scale <= MAX_SCALE:
        raise UserError(f"--scale must be in [0.05, {MAX_SCALE:g}]")
    crop = _parse_size(args.crop, "--crop") if args.crop else None
    if not 0.0 <= args.min_box <= 64:
        raise UserError("--min-box must be in [0, 64] px")
    classes = None
    if args.classes:
        classes = tuple(c.strip() for c in args.classes.split(",") if c.strip())
        bad = [c for c in classes if c not in CLASS_OF]
        if bad or not classes or len(set(classes)) != len(classes):
            raise UserError(f"--classes: expected distinct names among {', '.join(CLASS_OF)}, got {args.classes!r}")
    try:
        res = write_dataset(args.out, args.n, args.seed, args.val_fraction, args.workers, size,
                            scale=args.scale, crop=crop, focus=args.focus, classes=classes,
                            min_box=args.min_box)
    except OSError as exc:
        raise UserError(f"cannot write to {args.out}: {exc.strerror or exc}") from None
    counts = ", ".join(f"{v} {k}" for k, v in res.boxes.items())
    print(f"wrote {res.n_train} train + {res.n_val} val images to {res.out_dir} ({counts} boxes)")
    return 0
