"""Train the project's own YOLO detector on a synth-dataset (no pretrained download).

Ultralytics builds the network from an architecture yaml (random init), trains on the CPU
with options that never fetch anything (plots off, no AMP check, no workers), and the best
weights are copied atomically to the requested path, with a JSON of how they were made.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from vision.torch_threads import torch_threads

os.environ.setdefault("YOLO_OFFLINE", "1")


@dataclass
class TrainConfig:
    data: str                       # a data.yaml written by `polo-lineup synth-dataset`
    out: str                        # where the .pt goes, e.g. models/polo-yolo.pt
    arch: str = "models/polo-yolo.yaml"  # Ultralytics architecture yaml: random init, nothing downloaded;
                                         # or a .pt of ours to go on training from (fine-tuning)
    imgsz: int = 416
    epochs: int = 30
    batch: int = 16
    seed: int = 0
    patience: int = 100
    cache: str | bool = "ram"
    close_mosaic: int = 5
    hours: float | None = None      # wall-clock budget: Ultralytics fits the epoch count to it
    infer_imgsz: int | None = None  # image size the model runs at on whole frames (crop-trained models)
    optimizer: str = "auto"
    lr0: float | None = None
    warmup_epochs: float = 3.0
    scale: float = 0.5              # Ultralytics' random resize augmentation (+/- gain)
    threads: int | None = None      # torch threads (default: every core; Ultralytics' own: cores - 1)


def set_inference_size(src: Path, dst: Path, imgsz: int) -> None:
    """Record in a checkpoint the image size it is meant to run at on whole frames.

    Ultralytics restores a checkpoint's ``train_args`` as its predict defaults, so the size a
    crop-trained model was trained at (e.g. 384) is replaced by its inference size (e.g. 640);
    the training size stays on record as ``train_args['crop_imgsz']``.
    """
    import torch
    ckpt = torch.load(src, map_location="cpu", weights_only=False)
    args = dict(ckpt.get("train_args") or {})
    args.setdefault("crop_imgsz", args.get("imgsz"))    # the training size, kept from the first call
    args["imgsz"] = int(imgsz)
    ckpt["train_args"] = args
    partial = Path(dst).with_name(Path(dst).name + ".partial")
    torch.save(ckpt, partial)
    os.replace(partial, dst)


def train_detector(cfg: TrainConfig) -> dict:
    from ultralytics import YOLO

    data = Path(cfg.data)
    if data.is_dir():
        data = data / "data.yaml"
    if not data.exists():
        raise FileNotFoundError(f"no data.yaml at {data}")
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    with torch_threads(cfg.threads or os.cpu_count() or 1), \
            tempfile.TemporaryDirectory(prefix="polo-train-") as tmp:
        model = YOLO(cfg.arch, task="detect")
        model.train(data=str(data.resolve()), epochs=cfg.epochs, imgsz=cfg.imgsz, batch=cfg.batch, seed=cfg.seed,
                    deterministic=True, workers=0, plots=False, device="cpu", amp=False,
                    pretrained=str(cfg.arch) if str(cfg.arch).endswith(".pt") else False,
                    project=tmp, name="train", exist_ok=True, patience=cfg.patience, cache=cfg.cache,
                    close_mosaic=cfg.close_mosaic, verbose=False, optimizer=cfg.optimizer,
                    warmup_epochs=cfg.warmup_epochs, scale=cfg.scale,
                    **({"lr0": cfg.lr0} if cfg.lr0 else {}), **({"time": cfg.hours} if cfg.hours else {}))
        run = Path(tmp) / "train"
        best = run / "weights" / "best.pt"
        if not best.exists():
            raise RuntimeError("training produced no weights")
        results_csv = (run / "results.csv").read_text() if (run / "results.csv").exists() else ""
        partial = out.with_name(out.name + ".partial")
        if cfg.infer_imgsz:
            set_inference_size(best, partial, cfg.infer_imgsz)
        else:
            shutil.copyfile(best, partial)
        os.replace(partial, out)
    record = {"config": asdict(cfg), "seconds": round(time.time() - started, 1), "results_csv": results_csv}
    card = out.with_suffix(".train.json")
    partial = card.with_name(card.name + ".partial")
    partial.write_text(json.dumps(record, indent=1))
    os.replace(partial, card)
    return record
