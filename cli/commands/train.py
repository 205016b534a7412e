"""`polo-lineup train`: train the detector from a synth-dataset (CPU, no downloads)."""
from __future__ import annotations

import argparse

from cli.errors import UserError


def run(args: argparse.Namespace) -> int:
    from vision.training import TrainConfig, train_detector
    cfg = TrainConfig(data=args.data, out=args.out, arch=args.arch, imgsz=args.imgsz, epochs=args.epochs,
                      batch=args.batch, seed=args.seed, hours=args.hours,
                      infer_imgsz=args.infer_imgsz, optimizer=args.optimizer, lr0=args.lr0,
                      warmup_epochs=args.warmup_epochs, scale=args.scale, threads=args.threads)
    try:
        record = train_detector(cfg)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    epochs = max(0, len(record["results_csv"].strip().splitlines()) - 1)
    print(f"trained {cfg.arch} for {epochs} epochs in {record['seconds'] / 60:.1f} min → {cfg.out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train the YOLO detector on a synth-dataset",
                       description="Train an Ultralytics YOLO detector from an architecture yaml (random "
                                   "initialisation, nothing downloaded) on the CPU.")
    p.add_argument("--data", required=True, help="dataset folder (or its data.yaml) from `synth-dataset`")
    p.add_argument("--out", default="models/polo-yolo.pt", help="weights file to write (default: %(default)s)")
    p.add_argument("--arch", default="models/polo-yolo.yaml",
                   help="Ultralytics model yaml (random initialisation), or a local .pt to go on training "
                        "from (default: %(default)s)")
    p.add_argument("--imgsz", type=int, default=416, help="training image size (default: %(default)s)")
    p.add_argument("--epochs", type=int, default=30, help="epochs (default: %(default)s)")
    p.add_argument("--batch", type=int, default=16, help="batch size (default: %(default)s)")
    p.add_argument("--hours", type=float, default=None,
                   help="wall-clock budget in hours; the epoch count is fitted to it (default: use --epochs)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    p.add_argument("--infer-imgsz", type=int, default=None,
                   help="image size the model runs at on whole frames, stored in the weights "
                        "(for crop-trained models, e.g. 640 for 384 crops of half-size frames)")
    p.add_argument("--optimizer", default="auto", help="Ultralytics optimizer (default: %(default)s)")
    p.add_argument("--lr0", type=float, default=None, help="initial learning rate (default: Ultralytics')")
    p.add_argument("--warmup-epochs", type=float, default=3.0, help="warm-up epochs (default: %(default)s)")
    p.add_argument("--scale", type=float, default=0.5,
                   help="random resize augmentation gain (default: %(default)s)")
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads to compute with (default: every core; Ultralytics alone leaves one idle)")
    p.set_defaults(func=run)
