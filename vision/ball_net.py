"""The ball model's forward pass on one square window, without Ultralytics' predictor.

The ball stage runs its model one to three times a frame on a square window already cut and
enlarged to the model's input. Ultralytics' predictor would letterbox it (a no-op here),
build its Results objects and run NMS: ~2-3 ms of plumbing a call on these machines, a tenth
of the ball stage's time. Only the best box of one class is wanted, and NMS always keeps the
best-scored box, so this runs the network itself and takes the highest score:

- PyTorch (.pt): the module;
- OpenVINO: the export's IR compiled for the CPU with the LATENCY hint, as Ultralytics does,
  in FP32 (vision.openvino_cpu);
- ONNX Runtime: the export on the CPU provider.

The output is Ultralytics' (1, 4 + classes, anchors): box centre and size in input pixels,
then the class scores; or, for an end-to-end (NMS-free) head such as YOLO26's, (1, max_det,
6): x1, y1, x2, y2, score, class. Which one is told by its shape (the anchors of a stride 8,
16 and 32 grid against 6 columns). tests/test_ball_model.py checks the shipped model's
sightings are the predictor's on every runtime, and that end-to-end rows are read as above.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.openvino_cpu import cpu_config


def _blob(img_bgr: np.ndarray) -> np.ndarray:
    """(1, 3, S, S) float32 RGB in [0, 1], as Ultralytics' preprocessing makes it."""
    return np.ascontiguousarray(img_bgr[:, :, ::-1].transpose(2, 0, 1)[None], dtype=np.float32) / 255.0


class BallNet:
    """Raw forward passes of a YOLO detector at its input `size` (square), for `runtime`
    "torch" (`module`: the loaded nn.Module), "openvino" (`path`: the export folder) or
    "onnx" (`path`: the .onnx file)."""

    def __init__(self, runtime: str, size: int, path: Path | None = None, module=None):
        self.runtime, self.size = runtime, int(size)
        if runtime == "torch":
            import torch
            self._torch = torch
            self._module = module.float().eval()
        elif runtime == "openvino":
            import openvino as ov
            core = ov.Core()
            xml = next(Path(path).glob("*.xml"))
            self._compiled = core.compile_model(core.read_model(model=str(xml)), "CPU",
                                                cpu_config(PERFORMANCE_HINT="LATENCY"))
        elif runtime == "onnx":
            import onnxruntime as ort
            self._session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
            self._input = self._session.get_inputs()[0].name
        else:
            raise ValueError(f"unknown runtime {runtime!r}")
        self.best(np.zeros((self.size, self.size, 3), np.uint8), 0, np.inf)   # an output it can read, or ValueError now

    def forward(self, img_bgr: np.ndarray) -> np.ndarray:
        """The network's output for one size x size BGR image, batch dimension dropped."""
        if img_bgr.shape[:2] != (self.size, self.size):
            raise ValueError(f"ball window must be {self.size}x{self.size}, got {img_bgr.shape[1]}x{img_bgr.shape[0]}")
        x = _blob(img_bgr)
        if self.runtime == "torch":
            with self._torch.no_grad():
                y = self._module(self._torch.from_numpy(x))
            y = (y[0] if isinstance(y, (tuple, list)) else y).numpy()
        elif self.runtime == "openvino":
            y = self._compiled(x)[0]
        else:
            y = self._session.run(None, {self._input: x})[0]
        return np.asarray(y)[0]

    def best(self, img_bgr: np.ndarray, cls: int, conf: float) -> tuple[np.ndarray, float] | None:
        """The best-scored box of class `cls` scoring at least `conf`: (xyxy in the image's
        px, clipped to it as Ultralytics' boxes are; score), or None."""
        y = self.forward(img_bgr)
        anchors = sum((self.size // s) ** 2 for s in (8, 16, 32))
        if y.shape[1] == anchors:                      # (4 + classes, anchors): centre, size, scores
            scores = y[4 + cls]
            k = int(np.argmax(scores))
            cx, cy, w, h = (float(v) for v in y[:4, k])
            box = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
        elif y.ndim == 2 and y.shape[1] == 6:          # end-to-end: (max_det, x1 y1 x2 y2 score class)
            scores = np.where(y[:, 5] == cls, y[:, 4], -np.inf)
            k = int(np.argmax(scores))
            box = y[k, :4]
        else:
            raise ValueError(f"unexpected detector output of shape {y.shape}")
        if not scores[k] >= conf:
            return None
        return np.clip(np.asarray(box, float), 0, self.size), float(scores[k])
