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

import cv2
import numpy as np

from vision.detect import ROOT, ModelError
from vision.small_nets import conv_block, openvino_compile

DEFAULT_KIND_MODEL = ROOT / "models" / "polo-kind.pt"
CROP_W, CROP_H = 32, 48
MARGIN_X, MARGIN_Y = 0.10, 0.05      # of the box's width / height, each side


def crop_persons(frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(N, 3, CROP_H, CROP_W) float32 in [0, 1], RGB: each box with its margin, resized."""
    h, w = frame.shape[:2]
    out = np.zeros((len(boxes), 3, CROP_H, CROP_W), np.float32)
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, float)):
        mx, my = MARGIN_X * (x2 - x1), MARGIN_Y * (y2 - y1)
        a, b = int(max(0, np.floor(x1 - mx))), int(min(w, np.ceil(x2 + mx)))
        c, d = int(max(0, np.floor(y1 - my))), int(min(h, np.ceil(y2 + my)))
        if b - a < 2 or d - c < 2:
            continue
        crop = frame[c:d, a:b]
        interp = cv2.INTER_AREA if crop.shape[0] > CROP_H else cv2.INTER_LINEAR
        crop = cv2.resize(crop, (CROP_W, CROP_H), interpolation=interp)
        out[i] = crop[:, :, ::-1].transpose(2, 0, 1) / 255.0
    return out


def build_net():
    """The network: 3 conv blocks (16, 32, 64 channels), global pooling, 2 logits (rider, umpire)."""
    from torch import nn
    return nn.Sequential(*conv_block(3, 16, True), *conv_block(16, 32, True), *conv_block(32, 64, False),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(64, 2))


class KindClassifier:
    """Loads the weights once; `p_umpire(frame, boxes)` gives each person box's probability of
    being an umpire."""

    def __init__(self, path: str | Path | None = None):
        import torch
        self.path = Path(path) if path else DEFAULT_KIND_MODEL
        if not self.path.exists():
            raise ModelError(f"rider/umpire classifier not found: {self.path}")
        try:
            saved = torch.load(self.path, map_location="cpu", weights_only=True)
            self.net = build_net()
            self.net.load_state_dict({k: v.float() for k, v in saved["state_dict"].items()})
        except Exception as exc:  # noqa: BLE001 - any loader failure is the file's
            raise ModelError(f"cannot load rider/umpire classifier {self.path}: {exc}") from None
        self.net.eval()
        self._torch = torch
        self.runtime = "torch"
        self._compiled = None
        try:
            self._compiled = openvino_compile(self.net, torch, (3, CROP_H, CROP_W))
            self.runtime = "openvino"
        except Exception:  # noqa: BLE001 - no OpenVINO, or it cannot take the net: PyTorch serves
            self._compiled = None

    def p_umpire(self, frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        if not len(boxes):
            return np.zeros(0, np.float32)
        return self.p_umpire_crops(crop_persons(frame, boxes))

    def p_umpire_crops(self, crops: np.ndarray) -> np.ndarray:
        if not len(crops):
            return np.zeros(0, np.float32)
        if self._compiled is not None:
            logits = self._compiled(np.ascontiguousarray(crops, np.float32))[0]
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            return (e[:, 1] / e.sum(axis=1)).astype(np.float32)
        torch = self._torch
        with torch.inference_mode():
            logits = self.net(torch.from_numpy(np.ascontiguousarray(crops)))
            return torch.softmax(logits, 1)[:, 1].numpy().astype(np.float32)


def load_kind_classifier(model: str | Path | None = "auto") -> KindClassifier | None:
    """"auto": the shipped classifier when its file is there (else None); "none": None; a path: that file."""
    if model in (None, "none"):
        return None
    if model == "auto":
        return KindClassifier() if DEFAULT_KIND_MODEL.exists() else None
    return KindClassifier(model)
