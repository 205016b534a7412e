"""Train the shirt-number reader (vision.shirt_numbers) on riders the renderer draws.

A YOLO dataset's labels say nothing of numbers, so the crops are cut here from frames rendered
for the purpose (synth.random_scene, as `synth-dataset` renders them), labelled from the
renderer's own records: a rider whose number was drawn and still shows (at least
SHOWN_MIN of its text box, nearer units drawn over the rest) is that number; one with no
number drawn (his side to the camera, too far), or with at most HIDDEN_MAX of it showing, is
"none"; those in between are left out. Each frame is JPEG-coded at a random quality first, as
video coding softens the strokes. Each rider is cut `cuts` times with its box's edges moved
at random (as a detector's box would be). No flips: a mirrored digit is not a digit.

Validation is on frames rendered from another seed (`val_images` of them): no scene of the
validation set is in the training set.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from multiprocessing import get_context

import cv2
import numpy as np

from vision.shirt_numbers import CROP_H, CROP_W, MIN_BOX_H, NUMBERS, READ_MIN, build_net, crop_riders
from vision.small_nets import half_state, photometric, save_weights, softmax_batches, train_epochs

SHOWN_MIN = 0.8
HIDDEN_MAX = 0.2
VAL_SEED_OFFSET = 1_000_003


@dataclass
class NumberTrainConfig:
    """What training the reader takes (no dataset: the frames are rendered here; vision.small_nets
    trains it as it trains the other small networks)."""
    out: str = "models/polo-numbers.pt"
    batch: int = 256
    lr: float = 3e-3
    seed: int = 0
    images: int = 3000          # frames rendered for training
    val_images: int = 300       # frames rendered (another seed) for validation
    epochs: int = 12
    cuts: int = 3               # jittered crops per rider
    jitter: float = 0.05        # sd of each edge's shift, fraction of the box's size
    workers: int = 2


def label_of(rec) -> int | None:
    """The class of a rider's render record: its number, 0 (none readable), None (left out)."""
    if rec.number_box is None or rec.number is None:
        return 0
    if rec.number_visible >= SHOWN_MIN:
        return int(rec.number)
    return 0 if rec.number_visible <= HIDDEN_MAX else None


def frame_crops(job: tuple) -> tuple[np.ndarray, np.ndarray]:
    """One rendered frame's rider crops (uint8 (N, 3, H, W)) and labels."""
    from synth.dataset import TEXTURE_VARIANTS, _texture, image_seed
    from synth.random_scene import random_scenario
    from synth.render import Renderer
    from synth.scenario import parse_scenario
    seed, i, cuts, jitter = job
    s = image_seed(seed, i)
    doc, index = random_scenario(s, (1280, 720))
    variant = int(np.random.default_rng([s, 3]).integers(TEXTURE_VARIANTS))
    img, records, _ = Renderer(parse_scenario(doc), texture=_texture(variant, (1280, 720))).render(index)
    rng = np.random.default_rng([s, 11])
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 96))])
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img
    boxes, labels = [], []
    for rec in records:
        box = rec.boxes.get("rider")
        if rec.role != "player" or box is None or rec.part_visible.get("rider", 0) < 0.5:
            continue
        box = np.asarray(box, float)
        if box[3] - box[1] < MIN_BOX_H:
            continue
        label = label_of(rec)
        if label is None:
            continue
        w, h = box[2] - box[0], box[3] - box[1]
        for _ in range(cuts):
            boxes.append(box + rng.normal(0, jitter, 4) * np.array([w, h, w, h]))
            labels.append(label)
    if not boxes:
        return np.zeros((0, 3, CROP_H, CROP_W), np.uint8), np.zeros(0, np.int64)
    crops = (crop_riders(img, np.array(boxes)) * 255).round().astype(np.uint8)
    return crops, np.array(labels, np.int64)


def collect(seed: int, n: int, cuts: int, jitter: float, workers: int, desc: str) -> tuple[np.ndarray, np.ndarray]:
    from tqdm import tqdm
    jobs = [(seed, i, cuts, jitter) for i in range(n)]
    out = []
    with tqdm(total=n, unit="img", desc=desc) as bar:
        if workers > 1:
            with get_context("fork").Pool(workers) as pool:
                for got in pool.imap(frame_crops, jobs, chunksize=8):
                    out.append(got)
                    bar.update(1)
        else:
            for job in jobs:
                out.append(frame_crops(job))
                bar.update(1)
    crops = np.concatenate([c for c, _ in out]) if out else np.zeros((0, 3, CROP_H, CROP_W), np.uint8)
    labels = np.concatenate([y for _, y in out]) if out else np.zeros(0, np.int64)
    return crops, labels


def scores(labels: np.ndarray, probs: np.ndarray) -> dict:
    """Accuracy over the five classes, and for the reads that would count in a vote (best digit
    >= READ_MIN): how many there are per true number, and how many of them are right."""
    if not len(labels):
        return {"accuracy": None, "counted": 0, "counted_right": 0, "number_crops": 0, "counted_of_numbers": None}
    pred = probs.argmax(axis=1)
    counted = probs[:, 1:].max(axis=1) >= READ_MIN
    digit = probs[:, 1:].argmax(axis=1) + 1
    right = counted & (digit == labels)
    numbers = labels > 0
    return {"accuracy": float((pred == labels).mean()), "counted": int(counted.sum()),
            "counted_right": int(right.sum()),
            "counted_precision": float(right.sum() / max(counted.sum(), 1)),
            "number_crops": int(numbers.sum()),
            "counted_of_numbers": float((right & numbers).sum() / max(numbers.sum(), 1)),
            "counted_on_none": int((counted & ~numbers).sum())}


def train_numbers(cfg: NumberTrainConfig, progress=print) -> dict:
    import torch
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    start = time.time()
    crops, labels = collect(cfg.seed, cfg.images, cfg.cuts, cfg.jitter, cfg.workers, "train crops")
    vcrops, vlabels = collect(cfg.seed + VAL_SEED_OFFSET, cfg.val_images, 1, cfg.jitter, cfg.workers, "val crops")
    if not len(labels):
        raise ValueError("no rider tall enough to read was rendered: raise --images")
    x_all, y_all = torch.from_numpy(crops), torch.from_numpy(labels)
    xv = torch.from_numpy(vcrops)
    # The classes are unbalanced ("none" is most riders): weighted by the inverse square root of their count.
    counts = np.bincount(labels, minlength=1 + len(NUMBERS)).astype(float)
    weight = torch.tensor(1 / np.sqrt(np.maximum(counts, 1)), dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight / weight.mean())
    net = build_net()

    def loss_of(idx):
        # no flips: a mirrored digit is not a digit
        return loss_fn(net(photometric(x_all[idx].float() / 255.0, torch)), y_all[idx])

    history = []
    for epoch, train_loss in train_epochs(net, torch, cfg, np.arange(len(labels)), rng, loss_of):
        probs = softmax_batches(net, torch, xv)
        row = {"epoch": epoch, "train_loss": train_loss, **scores(vlabels, probs)}
        history.append(row)
        progress(f"epoch {epoch}/{cfg.epochs}: loss {train_loss:.4f}, "
                 + ("no validation crops" if row["accuracy"] is None else
                    f"val accuracy {row['accuracy']:.4f}, counted reads {row['counted']} "
                    f"({row['counted_precision']:.3f} right), of the numbers shown {row['counted_of_numbers']:.3f}"))
    record = {"config": asdict(cfg), "seconds": time.time() - start, "crops": int(len(labels)),
              "crops_by_class": counts.astype(int).tolist(), "val_crops": int(len(vlabels)),
              "val_by_class": np.bincount(vlabels, minlength=1 + len(NUMBERS)).tolist(), "history": history}
    save_weights(cfg.out, {"state_dict": half_state(net), "crop": [3, CROP_H, CROP_W]}, record)
    return record
