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
