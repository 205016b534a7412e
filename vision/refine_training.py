"""Train the box refiner (vision.box_refine) on a synth-dataset's whole frames.

Every true horse, rider and umpire box of the dataset (the renderer's own labels, never a
detector's) is cut from its frame several times, each time with its edges moved at random as
a detector's box would be: most by N(0, 8%) of the box's size, some by N(0, 18%) (the boxes a
detector places so far off that their IoU is under 0.5). The network learns to predict the
move back to the true box.

With `detector` (a model path, or "auto" for the shipped one), the detector's own boxes on
each training frame are cut too, each with the true box it overlaps most (IoU at least
DETECTOR_MIN_IOU) as its target, as a cascade's second stage learns from its first: a
detector's errors are not random (a half-hidden horse's box stops at the horse in front of
it, or runs on down its legs), and random jitter does not show them. The targets are still
the renderer's boxes. The last `val_fraction` of the frames (whole frames) is kept for
validation, where the edge error and the share of boxes at IoU 0.5 or more are reported
before and after one look.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from vision.box_refine import GROUPS, PADS, SHAPES, build_refine_net, crop_boxes, edge_units
from vision.detections import box_iou
from vision.detector_eval import labelled_frames
from vision.small_nets import SmallNetTrainConfig, half_state, save_weights, train_epochs


@dataclass
class RefineTrainConfig(SmallNetTrainConfig):
    out: str = "models/polo-refine.pt"
    cuts: int = 4               # jittered crops per true box
    jitter: float = 0.08        # sd of each edge's move, fraction of the box's size ...
    wide_jitter: float = 0.18   # ... or this, for a `wide_share` of the crops
    wide_share: float = 0.4
    detector: str | None = None  # also learn from this detector's boxes ("auto": the shipped model)
    detector_cuts: int = 2      # crops per detector box (the second one jittered by `jitter`)


DETECTOR_MIN_IOU = 0.3
DETECTOR_CONF = 0.2


def detector_starts(det, cls: np.ndarray, boxes: np.ndarray, classes: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(start boxes, their true boxes): the detections `det` of `classes`, each paired with the
    true box of those classes it overlaps most, when that IoU is at least DETECTOR_MIN_IOU."""
    mine = det.xyxy[np.isin(det.class_id, classes)].astype(float)
    truth = boxes[np.isin(cls, classes)]
    if not len(mine) or not len(truth):
        return np.zeros((0, 4)), np.zeros((0, 4))
    iou = box_iou(mine, truth)
    best = np.argmax(iou, axis=1)
    ok = iou[np.arange(len(mine)), best] >= DETECTOR_MIN_IOU
    return mine[ok], truth[best[ok]]


def collect(cfg: RefineTrainConfig, rng: np.random.Generator) -> dict:
    """Per group: uint8 crops (N, 3, H, W), targets (N, 4) float32, the jittered and true boxes, and
    each crop's frame index."""
    _, frames_of = labelled_frames(cfg.data, cfg.split)
    detector = _raw_detector(cfg.detector) if cfg.detector else None
    parts = {g: {"x": [], "y": [], "start": [], "truth": [], "frame": []} for g in GROUPS}
    for i, (frame, cls, boxes) in enumerate(frames_of):
        det = detector(frame) if detector is not None else None
        for group, classes in GROUPS.items():
            truth = boxes[np.isin(cls, classes)]
            if not len(truth):
                continue
            truth = np.repeat(truth, cfg.cuts, axis=0)
            sd = np.where(rng.random(len(truth)) < cfg.wide_share, cfg.wide_jitter, cfg.jitter)[:, None]
            start = truth + rng.normal(0, 1, truth.shape) * sd * edge_units(truth)
            if det is not None:
                d_start, d_truth = detector_starts(det, cls, boxes, classes)
                d_start = np.repeat(d_start, cfg.detector_cuts, axis=0)
                d_truth = np.repeat(d_truth, cfg.detector_cuts, axis=0)
                shake = (np.arange(len(d_start)) % cfg.detector_cuts > 0)[:, None] * cfg.jitter
                d_start = d_start + rng.normal(0, 1, d_start.shape) * shake * edge_units(d_start)
                start, truth = np.concatenate([start, d_start]), np.concatenate([truth, d_truth])
            ok = (start[:, 2] - start[:, 0] >= 3) & (start[:, 3] - start[:, 1] >= 3)
            truth, start = truth[ok], start[ok]
            part = parts[group]
            part["x"].append(crop_boxes(frame, start, SHAPES[group], PADS[group]))
            part["y"].append(((truth - start) / edge_units(start)).astype(np.float32))
            part["start"].append(start); part["truth"].append(truth); part["frame"].append(np.full(len(truth), i))
    out = {}
    for group, part in parts.items():
        if not part["x"]:
            raise FileNotFoundError(f"no {group} boxes in the {cfg.split!r} split of {cfg.data}")
        out[group] = {k: np.concatenate(v) for k, v in part.items()}
    return out


def _raw_detector(model: str):
    """The detector alone (no refiner, classifier or ball stage): the boxes the refiner will be given."""
    from vision.detect import Detector
    return Detector(None if model == "auto" else model, conf=DETECTOR_CONF, refine_model="none",
                    kind_model="none", ball_model="none", number_model="none")


def _augment(x, y, torch):
    """Random left-right flip (the left and right moves swap and change sign) and colour gain."""
    flip = torch.rand(len(x)) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(3), x)
    y = torch.where(flip[:, None], torch.stack([-y[:, 2], y[:, 1], -y[:, 0], y[:, 3]], 1), y)
    x = (x * (1 + 0.2 * (torch.rand(len(x), 3, 1, 1) - 0.5))).clamp(0, 1)
    return x, y


def _pairwise_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([box_iou(p, q)[0, 0] for p, q in zip(a, b)])


def validation(net, torch, data: dict, val: np.ndarray) -> dict:
    """Mean absolute edge error (fraction of the box's size) and share of boxes at IoU >= 0.5 with
    the truth, before and after one look, on the held-back frames (None when there are none)."""
    if not val.any():
        return {"edge_error_before": None, "edge_error_after": None, "iou50_before": None, "iou50_after": None}
    moves = []
    with torch.inference_mode():
        for k in range(0, int(val.sum()), 1024):
            x = torch.from_numpy(data["x"][val][k:k + 1024]).float() / 255.0
            moves.append(net(x).numpy())
    start, truth = data["start"][val], data["truth"][val]
    after = start + np.concatenate(moves) * edge_units(start)
    return {"edge_error_before": float(np.abs(data["y"][val]).mean()),
            "edge_error_after": float(np.abs((truth - after) / edge_units(start)).mean()),
            "iou50_before": float((_pairwise_iou(start, truth) >= 0.5).mean()),
            "iou50_after": float((_pairwise_iou(after, truth) >= 0.5).mean())}


def _train_group(cfg: RefineTrainConfig, group: str, data: dict, rng, torch, progress) -> tuple[dict, list]:
    n_frames = int(data["frame"].max()) + 1
    val = data["frame"] >= int(round(n_frames * (1 - cfg.val_fraction)))
    tr_idx = np.flatnonzero(~val)
    x_all, y_all = torch.from_numpy(data["x"]), torch.from_numpy(data["y"])
    net = build_refine_net(SHAPES[group])

    def loss_of(idx):
        x, y = _augment(x_all[idx].float() / 255.0, y_all[idx], torch)
        return torch.nn.functional.smooth_l1_loss(net(x), y, beta=0.05)

    history = []
    for epoch, train_loss in train_epochs(net, torch, cfg, tr_idx, rng, loss_of):
        row = {"epoch": epoch, "train_loss": train_loss, **validation(net, torch, data, val)}
        history.append(row)
        progress(f"{group} epoch {row['epoch']}/{cfg.epochs}: loss {row['train_loss']:.4f}, "
                 + ("no validation crops" if row["edge_error_after"] is None else
                    f"val edge error {row['edge_error_before']:.3f} → {row['edge_error_after']:.3f}, "
                    f"IoU≥0.5 {row['iou50_before']:.3f} → {row['iou50_after']:.3f}"))
    return half_state(net), history


def train_refiner(cfg: RefineTrainConfig, progress=print) -> dict:
    import torch
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    start = time.time()
    threads = torch.get_num_threads()
    data = collect(cfg, rng)
    torch.set_num_threads(threads)     # running the detector (Ultralytics) leaves PyTorch one thread
    nets, record = {}, {"config": asdict(cfg), "crops": {}, "history": {}}
    for group in GROUPS:
        nets[group], record["history"][group] = _train_group(cfg, group, data[group], rng, torch, progress)
        record["crops"][group] = int(len(data[group]["y"]))
    record["seconds"] = time.time() - start
    save_weights(cfg.out, {"nets": nets, "shapes": {g: list(s) for g, s in SHAPES.items()}, "pads": dict(PADS)},
                 record)
    return record
