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
