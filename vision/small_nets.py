"""What the two small second-look networks share (the rider/umpire classifier, vision.person_kind,
and the box refiner, vision.box_refine): their conv block, training configuration and loop,
their in-memory OpenVINO runtime, and how their weights are saved."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reports.atomic import atomic_open
from vision.openvino_cpu import cpu_config


@dataclass
class SmallNetTrainConfig:
    """What training either small network takes (each trainer adds its own crops' settings)."""
    data: str                   # a whole-frame synth-dataset (its data.yaml or folder)
    out: str = ""               # weights file to write
    split: str = "train"
    epochs: int = 10
    batch: int = 256
    lr: float = 3e-3
    seed: int = 0
    val_fraction: float = 0.1   # the last frames (whole frames) held back for validation


def train_epochs(net, torch, cfg: SmallNetTrainConfig, tr_idx, rng, loss_of):
    """Train `net` for cfg.epochs with AdamW and a one-cycle schedule, on the indices `tr_idx` in
    a new random order each epoch, cfg.batch at a time; `loss_of(idx)` is a batch's loss (idx
    a tensor of indices). Yields (epoch, mean training loss per sample) after each epoch, with
    the net in eval mode for the caller's validation."""
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)
    steps = cfg.epochs * int(np.ceil(len(tr_idx) / cfg.batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=max(steps, 1))
    for epoch in range(cfg.epochs):
        net.train()
        order = rng.permutation(tr_idx)
        total = 0.0
        for k in range(0, len(order), cfg.batch):
            idx = torch.from_numpy(order[k:k + cfg.batch])
            loss = loss_of(idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        net.eval()
        yield epoch + 1, total / max(len(tr_idx), 1)


def softmax_batches(net, torch, x, batch: int = 1024) -> np.ndarray:
    """(N, classes) softmax of `net` (in eval mode) on uint8 crops `x` (N, C, H, W), a batch at a time."""
    out = []
    with torch.inference_mode():
        for k in range(0, len(x), batch):
            out.append(torch.softmax(net(x[k:k + batch].float() / 255.0), 1).numpy())
    return np.concatenate(out) if out else np.zeros((0, net[-1].out_features), np.float32)


def conv_block(cin: int, cout: int, pool: bool) -> list:
    """3x3 conv, batch norm, ReLU, then a 2x2 max pool when `pool`."""
    from torch import nn
    layers = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
    return layers + ([nn.MaxPool2d(2)] if pool else [])


def openvino_compile(net, torch, shape: tuple[int, int, int], threads: int = 1):
    """The network converted to OpenVINO in memory (any batch size of `shape` = (C, H, W)), compiled
    for `threads` CPU threads, in FP32 (vision.openvino_cpu)."""
    import warnings
    import openvino as ov
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ov.convert_model(net, example_input=torch.zeros(2, *shape), input=[(-1, *shape)])
    return ov.Core().compile_model(model, "CPU", cpu_config(INFERENCE_NUM_THREADS=threads))


def save_weights(out: str | Path, payload: dict, record: dict) -> None:
    """`payload` (state dicts in half precision and their settings) to `out`, and the training
    `record` to `out` with the suffix .train.json, each written atomically (reports.atomic)."""
    import torch
    out = Path(out)
    with atomic_open(out, "wb") as fh:
        torch.save(payload, fh)
    with atomic_open(out.with_suffix(".train.json"), "w") as fh:
        json.dump(record, fh, indent=1)


def half_state(net) -> dict:
    """The network's state dict with floating tensors in half precision (half the file)."""
    return {k: (v.half() if v.is_floating_point() else v) for k, v in net.state_dict().items()}


def resized_crops(frame: np.ndarray, boxes: np.ndarray, width: int, height: int,
                  margin_x: float, margin_y: float) -> np.ndarray:
    """(N, 3, height, width) float32 in [0, 1], RGB: each box (x1 y1 x2 y2) grown by `margin_x`
    of its width and `margin_y` of its height each side, cut from the frame and resized (a box
    wholly outside the frame is left blank)."""
    import cv2
    h, w = frame.shape[:2]
    out = np.zeros((len(boxes), 3, height, width), np.float32)
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, float)):
        mx, my = margin_x * (x2 - x1), margin_y * (y2 - y1)
        a, b = int(max(0, np.floor(x1 - mx))), int(min(w, np.ceil(x2 + mx)))
        c, d = int(max(0, np.floor(y1 - my))), int(min(h, np.ceil(y2 + my)))
        if b - a < 2 or d - c < 2:
            continue
        crop = frame[c:d, a:b]
        interp = cv2.INTER_AREA if crop.shape[0] > height else cv2.INTER_LINEAR
        crop = cv2.resize(crop, (width, height), interpolation=interp)
        out[i] = crop[:, :, ::-1].transpose(2, 0, 1) / 255.0
    return out


def photometric(x, torch):
    """Training augmentation of crops (N, 3, H, W) in [0, 1]: brightness, contrast and colour gain
    per crop, and a softened detail on some (video compression and motion blur soften stripes and
    strokes)."""
    gain = 1 + 0.25 * (torch.rand(len(x), 1, 1, 1) - 0.5) + 0.08 * (torch.rand(len(x), 3, 1, 1) - 0.5)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 1 + 0.3 * (torch.rand(len(x), 1, 1, 1) - 0.5)
    x = ((x - mean) * contrast + mean * gain).clamp(0, 1)
    soft = torch.rand(len(x)) < 0.3
    blurred = torch.nn.functional.avg_pool2d(torch.nn.functional.pad(x, (1, 1, 1, 1), mode="replicate"), 3, 1)
    return torch.where(soft[:, None, None, None], 0.5 * x + 0.5 * blurred, x)


class SmallClassifier:
    """A small CNN classifier on crops, its weights loaded once from `path` (else `default_path`):
    `probabilities(crops)` gives (N, classes). Converted to OpenVINO in memory when OpenVINO
    imports and takes it (one thread), else PyTorch. Subclasses set `what` (its name in errors),
    `default_path`, `crop_shape` (C, H, W) and `build_net`."""

    what = "network"
    default_path: Path
    crop_shape: tuple[int, int, int]

    @staticmethod
    def build_net():
        raise NotImplementedError

    def __init__(self, path: str | Path | None = None):
        import torch
        from vision.detect import ModelError
        self.path = Path(path) if path else self.default_path
        if not self.path.exists():
            raise ModelError(f"{self.what} not found: {self.path}")
        try:
            saved = torch.load(self.path, map_location="cpu", weights_only=True)
            self.net = self.build_net()
            self.net.load_state_dict({k: v.float() for k, v in saved["state_dict"].items()})
        except Exception as exc:  # noqa: BLE001 - any loader failure is the file's
            raise ModelError(f"cannot load {self.what} {self.path}: {exc}") from None
        self.net.eval()
        self._torch = torch
        self.runtime = "torch"
        self._compiled = None
        try:
            self._compiled = openvino_compile(self.net, torch, self.crop_shape)
            self.runtime = "openvino"
        except Exception:  # noqa: BLE001 - no OpenVINO, or it cannot take the net: PyTorch serves
            self._compiled = None

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, classes) softmax of the network's logits on crops (N, C, H, W) in [0, 1]."""
        if not len(crops):
            return np.zeros((0, self.net[-1].out_features), np.float32)
        if self._compiled is not None:
            logits = self._compiled(np.ascontiguousarray(crops, np.float32))[0]
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
        torch = self._torch
        with torch.inference_mode():
            return torch.softmax(self.net(torch.from_numpy(np.ascontiguousarray(crops))), 1).numpy().astype(np.float32)


def load_optional(model, default_path: Path, make):
    """A second-look network by the `--*-model` option: "auto" the shipped one when its file is
    there (else None), "none" (or None) none, a path that file; `make(path or None)` loads it."""
    if model in (None, "none"):
        return None
    if model == "auto":
        return make(None) if default_path.exists() else None
    return make(model)
