"""Export the detector for faster CPU runtimes: ONNX (ONNX Runtime) and OpenVINO.

The export has a fixed input shape: the letterboxed shape of a 1280x720 frame at the .pt's
inference size (e.g. 384x640 for imgsz 640), the same pixels the PyTorch model sees with
Ultralytics' rectangular letterbox, so the runtimes give the same boxes. Frames of another
aspect are letterboxed into that shape. Ultralytics writes the export next to a copy of the
weights in a hidden folder beside the destination, and each result is moved into place only
when complete (an existing OpenVINO folder is swapped out, then removed).

The OpenVINO export keeps its weights in half precision (half the file; OpenVINO computes in
FP32 on the CPU all the same, so the boxes are the .pt's: tests/test_detector_runtimes.py).
"""
from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path

from vision.detect import ModelError, export_path, runtime_of

os.environ.setdefault("YOLO_OFFLINE", "1")
FORMATS = ("onnx", "openvino")


def export_shape(imgsz: int, frame_size: tuple[int, int] = (1280, 720), stride: int = 32) -> tuple[int, int]:
    """(height, width) of a frame_size (w, h) frame letterboxed to long side `imgsz`, padded to `stride`."""
    w, h = frame_size
    r = imgsz / max(w, h)
    return (math.ceil(round(h * r) / stride) * stride, math.ceil(round(w * r) / stride) * stride)


def export_detector(model: str | Path, formats: tuple[str, ...] = FORMATS,
                    frame_size: tuple[int, int] = (1280, 720)) -> list[Path]:
    """Export the .pt `model` to each of `formats`; the paths written."""
    pt = Path(model)
    if not pt.is_file() or runtime_of(pt) != "torch":
        raise ModelError(f"export needs a PyTorch .pt weights file, got {pt}")
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise ModelError(f"unknown export format {bad[0]!r} (one of {', '.join(FORMATS)})")
    from ultralytics import YOLO
    try:
        imgsz = YOLO(str(pt), task="detect").overrides.get("imgsz", 640)
    except Exception as exc:  # noqa: BLE001 - a file Ultralytics cannot read is the user's
        raise ModelError(f"cannot load detector weights {pt}: {exc}") from None
    shape = export_shape(int(imgsz if isinstance(imgsz, int) else max(imgsz)), frame_size)
    written = []
    with tempfile.TemporaryDirectory(prefix=f".{pt.stem}.export-", dir=pt.parent) as tmp:
        copy = Path(tmp) / pt.name
        shutil.copyfile(pt, copy)
        for fmt in formats:
            half = {"quantize": 16} if fmt == "openvino" else {}
            out = Path(YOLO(str(copy), task="detect").export(format=fmt, imgsz=list(shape), device="cpu",
                                                             dynamic=False, simplify=True, verbose=False, **half))
            dest = export_path(pt, fmt)
            if dest.is_dir():
                old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
                os.replace(dest, old)
                os.replace(out, dest)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(out, dest)
            written.append(dest)
    return written
