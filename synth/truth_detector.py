"""A stand-in detector that reads a rendered clip's truth boxes (for testing the stages
after detection in isolation). It never sees pixels, and it is never used to make truth."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.detections import BALL, HORSE, RIDER, UMPIRE, Detections

PART_CLASS = {"horse": HORSE, "rider": RIDER, "umpire": UMPIRE, "ball": BALL}


class TruthDetector:
    wants_index = True
    map = {0: HORSE, 1: RIDER, 2: UMPIRE, 3: BALL}

    def __init__(self, truth: str | Path | dict, min_visible: float = 0.25, jitter_px: float = 0.0, seed: int = 0):
        self.truth = truth if isinstance(truth, dict) else json.loads(Path(truth).read_text())
        self.min_visible = min_visible
        self.jitter = jitter_px
        self.rng = np.random.default_rng(seed)

    def __call__(self, frame, index: int) -> Detections:
        boxes, cls = [], []
        for obj in self.truth["frames"][index]["objects"]:
            vis = obj.get("part_visible", {})
            for part, box in obj.get("boxes", {}).items():
                if vis.get(part, obj.get("visible_fraction", 1.0)) >= self.min_visible:
                    boxes.append(box)
                    cls.append(PART_CLASS[part])
        xyxy = np.array(boxes, np.float32).reshape(-1, 4)
        if self.jitter:
            xyxy += self.rng.normal(0, self.jitter, xyxy.shape).astype(np.float32)
        return Detections(xyxy, np.array(cls, np.int64), np.full(len(cls), 0.9, np.float32))
