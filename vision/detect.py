"""The detector stage: an Ultralytics YOLO model → per-frame Detections in our classes.

Our classes: 0 horse, 1 rider, 2 umpire, 3 ball (vision.detections.CLASS_NAMES). The shipped
model (models/polo-yolo.pt) predicts them directly. Other Ultralytics weights work through a
class map from their class names to ours; COCO-pretrained files map person → rider, horse →
horse, sports ball → ball (umpires among the persons are told apart later, by the striped
shirt, in vision.teams, or by a user hint).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from vision.detections import CLASS_NAMES, Detections

os.environ.setdefault("YOLO_OFFLINE", "1")          # never try the network from Ultralytics

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = ROOT / "models" / "polo-yolo.pt"
COCO_MAP = {"person": "rider", "horse": "horse", "sports ball": "ball"}


class ModelError(Exception):
    """Weights that cannot be loaded or whose classes cannot be mapped to ours."""


def class_map_for(names: dict[int, str], user_map: dict[str, str] | None = None) -> dict[int, int]:
    """Map a model's class ids to ours, by name. `user_map` maps model names to ours."""
    wanted = dict(COCO_MAP)
    wanted.update({n: n for n in CLASS_NAMES})
    if user_map:
        wanted.update(user_map)
    out = {}
    for k, name in names.items():
        ours = wanted.get(name)
        if ours is not None:
            if ours not in CLASS_NAMES:
                raise ModelError(f"class map: {name!r} → {ours!r} is not one of {', '.join(CLASS_NAMES)}")
            out[int(k)] = CLASS_NAMES.index(ours)
    if not any(v == 0 for v in out.values()):
        raise ModelError(f"the model has no class that maps to 'horse' (its classes: {sorted(names.values())[:10]}...)")
    return out


def parse_class_map(text: str | None) -> dict[str, str] | None:
    """'person=rider,horse=horse' → {'person': 'rider', 'horse': 'horse'}."""
    if not text:
        return None
    out = {}
    for part in text.split(","):
        if "=" not in part:
            raise ModelError(f"class map entry {part!r}: expected MODEL_NAME=OUR_NAME")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


class Detector:
    """Loads weights once; call it on BGR frames (one or a list) to get Detections."""

    def __init__(self, model: str | Path | None = None, class_map: dict[str, str] | None = None,
                 imgsz: int | None = None, conf: float = 0.25, iou: float = 0.6, device: str = "cpu"):
        path = Path(model) if model else DEFAULT_MODEL
        if not path.exists():
            raise ModelError(f"model file not found: {path}")
        try:
            from ultralytics import YOLO
            self.model = YOLO(str(path), task="detect")
            names = self.model.names
        except Exception as exc:  # noqa: BLE001 - any loader failure is the user's file
            raise ModelError(f"cannot load detector weights {path}: {exc}") from None
        self.path = path
        self.names = dict(names)
        self.map = class_map_for(self.names, class_map)
        self._lut = np.full(max(self.names) + 1, -1, np.int64)
        for k, v in self.map.items():
            self._lut[k] = v
        trained = getattr(self.model, "overrides", {}).get("imgsz")
        self.imgsz = int(imgsz or (trained if isinstance(trained, int) else 640))
        self.conf, self.iou, self.device = conf, iou, device

    def __call__(self, frames):
        single = isinstance(frames, np.ndarray)
        batch = [frames] if single else list(frames)
        results = self.model.predict(batch, imgsz=self.imgsz, conf=self.conf, iou=self.iou, device=self.device,
                                     verbose=False, classes=sorted(self.map))
        out = [self._convert(r) for r in results]
        return out[0] if single else out

    def _convert(self, result) -> Detections:
        boxes = result.boxes
        cls = self._lut[boxes.cls.cpu().numpy().astype(np.int64)]
        keep = cls >= 0
        return Detections(boxes.xyxy.cpu().numpy().astype(np.float32)[keep], cls[keep],
                          boxes.conf.cpu().numpy().astype(np.float32)[keep])
