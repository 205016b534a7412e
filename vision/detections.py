"""The one small container that carries detections between stages (supervision-style)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CLASS_NAMES = ("horse", "rider", "umpire", "ball")
HORSE, RIDER, UMPIRE, BALL = range(4)


@dataclass
class Detections:
    """Boxes in pixels (x1, y1, x2, y2) with our class ids (see CLASS_NAMES) and scores."""

    xyxy: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    class_id: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    confidence: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))

    def __len__(self) -> int:
        return len(self.class_id)

    def __getitem__(self, index) -> "Detections":
        return Detections(self.xyxy[index], self.class_id[index], self.confidence[index])

    def of(self, *classes: int) -> "Detections":
        return self[np.isin(self.class_id, classes)]

    @property
    def bottom_centre(self) -> np.ndarray:
        """(N, 2) pixel point at the middle of each box's bottom edge."""
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, self.xyxy[:, 3]], axis=1)


def inside_grown(points: np.ndarray, boxes: np.ndarray, margin: float) -> np.ndarray:
    """(N,) each point (N, 2) inside its box (N, 4), the box grown by `margin` of its height
    each way; False where either is NaN."""
    points, boxes = np.asarray(points, float).reshape(-1, 2), np.asarray(boxes, float).reshape(-1, 4)
    grow = margin * (boxes[:, 3] - boxes[:, 1])
    x, y = points[:, 0], points[:, 1]
    with np.errstate(invalid="ignore"):
        return ((x >= boxes[:, 0] - grow) & (x <= boxes[:, 2] + grow)
                & (y >= boxes[:, 1] - grow) & (y <= boxes[:, 3] + grow))


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) IoU of xyxy boxes."""
    a, b = np.asarray(a, float).reshape(-1, 4), np.asarray(b, float).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def suppress(score: np.ndarray, alike: np.ndarray) -> np.ndarray:
    """Indices kept by greedy suppression, highest score first: each kept item removes the
    items `alike` (N, N bool) to it."""
    order = np.argsort(-np.asarray(score), kind="stable")
    keep, gone = [], np.zeros(len(order), bool)
    for i in order:
        if gone[i]:
            continue
        keep.append(int(i))
        gone |= alike[i]
    return np.array(keep, np.int64)


def nms(xyxy: np.ndarray, score: np.ndarray, overlap: float) -> np.ndarray:
    """Indices of the boxes kept by greedy non-maximum suppression (highest score first)."""
    return suppress(score, box_iou(xyxy, xyxy) > overlap)
