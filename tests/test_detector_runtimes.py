"""The detector's runtimes: ONNX Runtime and OpenVINO exports give the PyTorch model's boxes,
the shipped exports are of the shipped weights, and the runtime options fail clearly."""
from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detect import DEFAULT_MODEL, Detector, ModelError, export_path, exported_imgsz, resolve_model
from vision.detector_eval import box_iou
from vision.export import export_detector, export_shape

FRAME = Path(__file__).resolve().parents[1] / "sample_videos" / "clean_lineup" / "clip.mp4"


@pytest.fixture(scope="module")
def frame():
    cap = cv2.VideoCapture(str(FRAME))
    cap.set(cv2.CAP_PROP_POS_FRAMES, 40)
    ok, img = cap.read()
    assert ok
    return img


def _same_boxes(a, b, tol_px: float = 2.0) -> None:
    """Same classes and boxes (within tol_px) for every confident box of `a`."""
    keep = a.confidence >= 0.4
    assert keep.sum() >= 5
    ious = box_iou(a.xyxy[keep].astype(float), b.xyxy.astype(float))
    j = ious.argmax(axis=1)
    assert (ious.max(axis=1) > 0.9).all()
    assert (b.class_id[j] == a.class_id[keep]).all()
    assert np.abs(b.xyxy[j] - a.xyxy[keep]).max() <= tol_px


def test_export_shape_is_the_letterboxed_frame():
    assert export_shape(640) == (384, 640)
    assert export_shape(416) == (256, 416)
    assert export_shape(640, (720, 1280)) == (640, 384)


@pytest.mark.parametrize("runtime", ["onnx", "openvino"])
def test_shipped_exports_are_of_the_shipped_weights(frame, runtime):
    exported = export_path(DEFAULT_MODEL, runtime)
    assert exported.exists(), f"ship {exported}: polo-lineup export-detector"
    torch_det = Detector(runtime="torch")
    det = Detector(runtime=runtime)
    assert det.path == exported and det.runtime == runtime
    assert det.imgsz == list(export_shape(torch_det.imgsz))
    _same_boxes(torch_det(frame), det(frame))


def test_auto_runtime_takes_the_openvino_export_of_the_shipped_model_only(tmp_path):
    assert resolve_model() == export_path(DEFAULT_MODEL, "openvino")
    assert resolve_model(DEFAULT_MODEL) == DEFAULT_MODEL          # a named file runs as it is


def test_export_round_trip_and_runtime_errors(tmp_path, frame):
    pt = tmp_path / "m.pt"
    shutil.copyfile(DEFAULT_MODEL, pt)
    with pytest.raises(ModelError, match="no onnx export"):
        Detector(pt, runtime="onnx")
    written = export_detector(pt, ("onnx",))
    assert written == [tmp_path / "m.onnx"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "m.pt"]     # no export leftovers
    assert exported_imgsz(written[0]) == list(export_shape(Detector(pt).imgsz))
    _same_boxes(Detector(pt)(frame), Detector(pt, runtime="onnx")(frame))
    with pytest.raises(ModelError, match="export size"):
        Detector(written[0], imgsz=320)
    with pytest.raises(ModelError, match="needs the .pt"):
        Detector(written[0], runtime="openvino")
    with pytest.raises(ModelError, match="runtime must be"):
        Detector(pt, runtime="tensorrt")
    with pytest.raises(ModelError, match="needs a PyTorch .pt"):
        export_detector(written[0])


def test_every_openvino_model_computes_in_fp32(frame):
    """OpenVINO computes in bfloat16 by default on CPUs with AMX or AVX512-BF16; the shipped
    models' scores then move by ~1e-3 and a borderline ball decides a clip's verdicts
    (vision/openvino_cpu.py). Every OpenVINO model the detector runs (the detector's export,
    the ball stage, the rider/umpire classifier, the box refiner) is compiled in FP32, and
    the detector's scores are PyTorch's (bfloat16 is off by ~1e-3 on such a CPU)."""
    from vision.openvino_cpu import precision_of
    det = Detector(runtime="openvino")
    compiled = [det.model.predictor.model.backend.ov_compiled_model, det.ball_finder.net._compiled,
                det.kind._compiled] + [n.compiled for n in det.refiner.nets.values()]
    assert [precision_of(c) for c in compiled] == ["<Type: 'float32'>"] * len(compiled)
    raw = dict(kind_model="none", refine_model="none", ball_model="none")
    a, b = Detector(runtime="torch", **raw)(frame), Detector(runtime="openvino", **raw)(frame)
    keep = a.confidence >= 0.4
    ious = box_iou(a.xyxy[keep].astype(float), b.xyxy.astype(float))
    assert np.abs(b.confidence[ious.argmax(axis=1)] - a.confidence[keep]).max() < 3e-4


def test_openvino_precision_is_fp32_unless_the_environment_says(monkeypatch):
    """POLO_OPENVINO_PRECISION: unset or f32 → FP32; bf16 → bfloat16; cpu → the plugin's own
    choice; anything else a clear ModelError before any model is loaded."""
    from vision.openvino_cpu import ENV, cpu_config
    monkeypatch.delenv(ENV, raising=False)
    assert cpu_config(PERFORMANCE_HINT="LATENCY") == {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"}
    monkeypatch.setenv(ENV, "BF16")
    assert cpu_config() == {"INFERENCE_PRECISION_HINT": "bf16"}
    monkeypatch.setenv(ENV, "cpu")
    assert cpu_config() == {}
    monkeypatch.setenv(ENV, "int4")
    with pytest.raises(ModelError, match="POLO_OPENVINO_PRECISION='int4': expected one of f32, bf16, cpu"):
        Detector(runtime="openvino")
