"""Rider or umpire: a small CNN on the full-resolution crop of each person box.

The main detector sees a 1280x720 frame at half size, where the umpire's black-and-white
striped shirt is 3-4 px of stripes: it finds the person but often calls the umpire a rider
(and a rider in a white or black jersey an umpire). This stage looks again, at full
resolution: every person box (the detector's rider and umpire boxes, or a COCO model's
persons) is cut from the frame with a small margin, resized to 32x48 px and scored by a
three-layer CNN trained on the renderer's true person boxes (`polo-lineup train-kind`;
models/README.md). Its answer replaces the detector's rider/umpire class, and the box's
score becomes the detector's score times the probability of the class it was given.

The weights are a plain PyTorch state dict (55 kB). When OpenVINO imports, the network is
converted in memory at load (~1.5 s) and runs there: ~1.3 ms for the ~10 persons of a
frame, against ~5 ms under PyTorch on one thread (the fallback).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.detect import ROOT
from vision.small_nets import SmallClassifier, conv_block, load_optional, resized_crops

DEFAULT_KIND_MODEL = ROOT / "models" / "polo-kind.pt"
CROP_W, CROP_H = 32, 48
MARGIN_X, MARGIN_Y = 0.10, 0.05      # of the box's width / height, each side


def crop_persons(frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(N, 3, CROP_H, CROP_W) float32 in [0, 1], RGB: each box with its margin, resized."""
    return resized_crops(frame, boxes, CROP_W, CROP_H, MARGIN_X, MARGIN_Y)


def build_net():
    """The network: 3 conv blocks (16, 32, 64 channels), global pooling, 2 logits (rider, umpire)."""
    from torch import nn
    return nn.Sequential(*conv_block(3, 16, True), *conv_block(16, 32, True), *conv_block(32, 64, False),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(64, 2))


class KindClassifier(SmallClassifier):
    """Loads the weights once; `p_umpire(frame, boxes)` gives each person box's probability of
    being an umpire."""

    what = "rider/umpire classifier"
    default_path = DEFAULT_KIND_MODEL
    crop_shape = (3, CROP_H, CROP_W)
    build_net = staticmethod(build_net)

    def p_umpire(self, frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        return self.p_umpire_crops(crop_persons(frame, np.asarray(boxes, float).reshape(-1, 4)))

    def p_umpire_crops(self, crops: np.ndarray) -> np.ndarray:
        return self.probabilities(crops)[:, 1]


def load_kind_classifier(model: str | Path | None = "auto") -> KindClassifier | None:
    """"auto": the shipped classifier when its file is there (else None); "none": None; a path: that file."""
    return load_optional(model, DEFAULT_KIND_MODEL, KindClassifier)
