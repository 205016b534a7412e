"""A second look at each horse and person box: a small CNN on the box's full-resolution crop
moves its four edges onto the object.

The main detector sees a 1280x720 frame at half size. It finds most riders and horses, but
places many a few pixels off: a 24 px rider with a box 3 px off has an IoU under 0.5, and a
horse's box bottom is its ground-contact point, so its error is a position error on the field.
This stage cuts each box from the full-resolution frame with part of its size added on every
side (40% for horses, whose head a short box often leaves out; 25% for riders and umpires), so
an edge placed short is still in the crop, resizes it to a fixed input (56x56 for horses,
32x48 for riders and umpires), and a network trained on the renderer's
true boxes, jittered as a detector's would be, predicts how far each edge must move, as a
fraction of the box's width or height (`polo-lineup train-refine`; models/README.md).
Each box is looked at twice, the second look starting from the first's box. (One look at
horses is 2.4 ms a frame faster and as good by held-out mAP50, but on the sample clips the
95th-percentile position error rose on 7 of 12, to 2.65 yd on advancing_on_umpire from 1.29.)

Weights: a PyTorch file with one network per kind of box (models/polo-refine.pt, 1.5 MB);
converted to OpenVINO in memory at load, PyTorch as the fallback.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.detect import ROOT, ModelError
from vision.detections import HORSE, RIDER, UMPIRE, Detections
from vision.small_nets import conv_block, load_optional, openvino_compile

DEFAULT_REFINE_MODEL = ROOT / "models" / "polo-refine.pt"
PADS = {"horse": 0.4, "person": 0.25}               # of the box's width / height, added on each side
SHAPES = {"horse": (56, 56), "person": (48, 32)}      # crop (height, width)
GROUPS = {"horse": (HORSE,), "person": (RIDER, UMPIRE)}
THREADS = 2                                         # OpenVINO threads (the detector's are idle by then)
ITERATIONS = {"horse": 2, "person": 2}              # looks per box


def crop_boxes(frame: np.ndarray, boxes: np.ndarray, shape: tuple[int, int], pad: float) -> np.ndarray:
    """(N, 3, H, W) uint8 RGB: each box with `pad` of its size added on every side, resized to
    `shape` = (H, W); parts off the frame repeat its edge pixels."""
    h, w = shape
    out = np.zeros((len(boxes), 3, h, w), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, float)):
        bw, bh = x2 - x1, y2 - y1
        if bw < 1 or bh < 1:
            continue
        src = np.float32([[x1 - pad * bw, y1 - pad * bh], [x2 + pad * bw, y1 - pad * bh], [x1 - pad * bw, y2 + pad * bh]])
        m = cv2.getAffineTransform(src, np.float32([[0, 0], [w, 0], [0, h]]))
        shrink = bh * (1 + 2 * pad) > h
        crop = cv2.warpAffine(frame, m, (w, h), flags=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
        out[i] = crop[:, :, ::-1].transpose(2, 0, 1)
    return out


def edge_units(boxes: np.ndarray) -> np.ndarray:
    """(N, 4): each box's width, height, width, height (what its edges' moves are fractions of)."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    return np.stack([bw, bh, bw, bh], 1)


def build_refine_net(shape: tuple[int, int]):
    """4 conv blocks (16, 32, 64, 64 channels; three 2x2 pools), then two dense layers to the four
    edge moves. No global pooling: where things are in the crop is the answer."""
    from torch import nn
    h, w = shape
    return nn.Sequential(*conv_block(3, 16, True), *conv_block(16, 32, True), *conv_block(32, 64, True),
                         *conv_block(64, 64, False), nn.Flatten(), nn.Linear(64 * (h // 8) * (w // 8), 128),
                         nn.ReLU(inplace=True), nn.Linear(128, 4))


class _Net:
    """One group's network with its runtime: OpenVINO compiled in memory, else PyTorch."""

    def __init__(self, state: dict, shape: tuple[int, int], torch):
        self.shape = shape
        self.net = build_refine_net(shape)
        self.net.load_state_dict({k: v.float() for k, v in state.items()})
        self.net.eval()
        self._torch = torch
        self.compiled = None
        try:
            self.compiled = openvino_compile(self.net, torch, (3, *shape), THREADS)
        except Exception:  # noqa: BLE001 - no OpenVINO, or it cannot take the net: PyTorch serves
            self.compiled = None

    def __call__(self, crops: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(crops, np.float32) / 255.0
        if self.compiled is not None:
            return np.asarray(self.compiled(x)[0], np.float32)
        with self._torch.inference_mode():
            return self.net(self._torch.from_numpy(x)).numpy().astype(np.float32)


class BoxRefiner:
    """Loads the weights once; `refiner(frame, det)` gives the detections with their horse, rider
    and umpire boxes moved onto the objects (classes and scores unchanged)."""

    def __init__(self, path: str | Path | None = None, iterations: dict[str, int] | None = None):
        import torch
        self.path = Path(path) if path else DEFAULT_REFINE_MODEL
        if not self.path.exists():
            raise ModelError(f"box refiner not found: {self.path}")
        try:
            saved = torch.load(self.path, map_location="cpu", weights_only=True)
            self.nets = {g: _Net(saved["nets"][g], tuple(saved["shapes"][g]), torch) for g in GROUPS}
            self.pads = {g: float(p) for g, p in saved["pads"].items()}
        except Exception as exc:  # noqa: BLE001 - any loader failure is the file's
            raise ModelError(f"cannot load box refiner {self.path}: {exc}") from None
        self.iterations = dict(ITERATIONS, **(iterations or {}))
        self.runtime = "openvino" if all(n.compiled is not None for n in self.nets.values()) else "torch"

    def moves(self, frame: np.ndarray, boxes: np.ndarray, group: str) -> np.ndarray:
        """(N, 4) each edge's move as a fraction of the box's width or height (one look)."""
        if not len(boxes):
            return np.zeros((0, 4), np.float32)
        net = self.nets[group]
        return net(crop_boxes(frame, boxes, net.shape, self.pads[group]))

    def refine_boxes(self, frame: np.ndarray, boxes: np.ndarray, group: str) -> np.ndarray:
        boxes = np.asarray(boxes, float).reshape(-1, 4)
        for _ in range(self.iterations[group]):
            if not len(boxes):
                break
            moved = boxes + self.moves(frame, boxes, group) * edge_units(boxes)
            # A move that would turn a box inside out is not taken.
            ok = (moved[:, 2] > moved[:, 0] + 1) & (moved[:, 3] > moved[:, 1] + 1)
            boxes = np.where(ok[:, None], moved, boxes)
        return boxes

    def __call__(self, frame: np.ndarray, det: Detections) -> Detections:
        xyxy = det.xyxy.astype(float).copy()
        for group, classes in GROUPS.items():
            mine = np.isin(det.class_id, classes)
            if mine.any():
                xyxy[mine] = self.refine_boxes(frame, xyxy[mine], group)
        return Detections(xyxy.astype(np.float32), det.class_id, det.confidence)


def load_box_refiner(model: str | Path | None = "auto") -> BoxRefiner | None:
    """"auto": the shipped refiner when its file is there (else None); "none": None; a path: that file."""
    return load_optional(model, DEFAULT_REFINE_MODEL, BoxRefiner)
