"""Train the rider/umpire classifier (vision.person_kind) on a synth-dataset's whole frames.

Every true rider and umpire box of the dataset (the renderer's own labels, never a detector's)
is cut from its frame several times, each time with its edges moved at random by a few
percent of its size (as a detector's box would be), so the classifier learns the crops it
will see. Umpires are one person in nine: each is cut more often than a rider. The last
`val_fraction` of the frames (whole frames, so no person is in both) is kept for validation.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from vision.detections import RIDER, UMPIRE
from vision.detector_eval import labelled_frames
from vision.person_kind import CROP_H, CROP_W, build_net, crop_persons
from vision.small_nets import SmallNetTrainConfig, half_state, photometric, save_weights, softmax_batches, train_epochs


@dataclass
class KindTrainConfig(SmallNetTrainConfig):
    out: str = "models/polo-kind.pt"
    epochs: int = 12
    rider_cuts: int = 4         # jittered crops per rider box
    umpire_cuts: int = 10       # per umpire box
    jitter: float = 0.06        # sd of each edge's shift, fraction of the box's size


def _jittered(box: np.ndarray, rng: np.random.Generator, sd: float) -> np.ndarray:
    w, h = box[2] - box[0], box[3] - box[1]
    return box + rng.normal(0, sd, 4) * np.array([w, h, w, h])


def collect_crops(cfg: KindTrainConfig, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """uint8 crops (N, 3, H, W), labels (N,) 1 = umpire, and each crop's frame index."""
    _, frames_of = labelled_frames(cfg.data, cfg.split)
    crops, labels, frames = [], [], []
    for i, (frame, cls, boxes) in enumerate(frames_of):
        cut = []
        for c, box in zip(cls, boxes):
            if c not in (RIDER, UMPIRE):
                continue
            for _ in range(cfg.umpire_cuts if c == UMPIRE else cfg.rider_cuts):
                cut.append(_jittered(box, rng, cfg.jitter))
                labels.append(int(c == UMPIRE))
                frames.append(i)
        if cut:
            crops.append((crop_persons(frame, np.array(cut)) * 255).round().astype(np.uint8))
    return np.concatenate(crops), np.array(labels), np.array(frames)


def _augment(x, torch):
    """Random left-right flip, then the shared photometric augmentation (vision.small_nets)."""
    flip = torch.rand(len(x)) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(3), x)
    return photometric(x, torch)


def scores(labels: np.ndarray, p: np.ndarray) -> dict:
    """Accuracy, umpire recall and precision at 0.5 (None each when there is nothing to score)."""
    if not len(labels):
        return {"accuracy": None, "umpire_recall": None, "umpire_precision": None}
    pred = p >= 0.5
    tp = int((pred & (labels == 1)).sum())
    return {"accuracy": float((pred == (labels == 1)).mean()),
            "umpire_recall": tp / max(int((labels == 1).sum()), 1),
            "umpire_precision": tp / max(int(pred.sum()), 1)}


def train_kind(cfg: KindTrainConfig, progress=print) -> dict:
    import torch
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    start = time.time()
    crops, labels, frames = collect_crops(cfg, rng)
    n_frames = frames.max() + 1
    val = frames >= int(round(n_frames * (1 - cfg.val_fraction)))
    x_all = torch.from_numpy(crops)
    y_all = torch.from_numpy(labels)
    tr_idx, va_idx = np.nonzero(~val)[0], np.nonzero(val)[0]
    net = build_net()
    loss_fn = torch.nn.CrossEntropyLoss()

    def loss_of(idx):
        return loss_fn(net(_augment(x_all[idx].float() / 255.0, torch)), y_all[idx])

    history = []
    for epoch, train_loss in train_epochs(net, torch, cfg, tr_idx, rng, loss_of):
        p = softmax_batches(net, torch, x_all[torch.from_numpy(va_idx)])[:, 1]
        row = {"epoch": epoch, "train_loss": train_loss, **scores(labels[val], p)}
        history.append(row)
        progress(f"epoch {row['epoch']}/{cfg.epochs}: loss {row['train_loss']:.4f}, "
                 + ("no validation crops" if row["accuracy"] is None else
                    f"val accuracy {row['accuracy']:.4f}, umpire recall {row['umpire_recall']:.3f}, "
                    f"precision {row['umpire_precision']:.3f}"))
    record = {"config": asdict(cfg), "seconds": time.time() - start, "crops": int(len(labels)),
              "umpire_crops": int(labels.sum()), "val_crops": int(val.sum()), "history": history}
    save_weights(cfg.out, {"state_dict": half_state(net), "crop": [3, CROP_H, CROP_W]}, record)
    return record
