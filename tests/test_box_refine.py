"""The box refiner (vision.box_refine, models/polo-refine.pt): it moves jittered true horse and
rider boxes of rendered video frames back onto the horse and the rider, leaves true boxes
where they are, the Detector applies it to horses and persons only, and its training runs
end to end on a tiny dataset."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.box_refine import (DEFAULT_REFINE_MODEL, SHAPES, BoxRefiner, crop_boxes, edge_units,
                               load_box_refiner)
from vision.detect import Detector, ModelError
from vision.detections import BALL, HORSE, RIDER, UMPIRE, Detections, box_iou

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"


def _frame(name: str, index: int):
    cap = cv2.VideoCapture(str(SAMPLES / name / "clip.mp4"))
    cap.set(cv2.CAP_PROP_POS_FRAMES, index)
    ok, frame = cap.read()
    assert ok
    return frame, json.loads((SAMPLES / name / "truth.json").read_text())["frames"][index]


def _true_boxes(truth: dict, key: str, visible: float = 0.5) -> np.ndarray:
    """The truth's `key` boxes ("horse" or "rider") of objects at least `visible` in view."""
    return np.array([o["boxes"][key] for o in truth["objects"]
                     if key in o["boxes"] and o["part_visible"].get(key, 0) >= visible], float)


def _pairwise_iou(a, b):
    return np.array([box_iou(p, q)[0, 0] for p, q in zip(a, b)])


@pytest.fixture(scope="module")
def refiner() -> BoxRefiner:
    return BoxRefiner()


def test_crops_have_the_network_shape_and_survive_boxes_off_the_frame():
    frame = np.full((100, 200, 3), 128, np.uint8)
    boxes = np.array([[10, 10, 30, 60], [190, 90, 260, 140], [5, 5, 5, 40]], float)
    crops = crop_boxes(frame, boxes, SHAPES["person"], 0.25)
    assert crops.shape == (3, 3, *SHAPES["person"]) and crops.dtype == np.uint8
    assert (crops[0] == 128).all() and (crops[1] == 128).all()   # off the frame: its edge repeated
    assert not crops[2].any()                                      # no width: left blank
    assert np.allclose(edge_units(boxes[:1]), [[20, 50, 20, 50]])


# (clip, frame, truth key, refiner group, least gain in mean IoU)
JITTER_CASES = [("throw_in_near_boards", 30, "horse", "horse", 0.1), ("throw_in_near_boards", 30, "rider", "person", 0.1),
                ("horse_change_blue3", 20, "horse", "horse", 0.1), ("horse_change_blue3", 20, "rider", "person", 0.1),
                ("clean_lineup", 40, "rider", "person", 0.1),
                # the dense line-up's half-hidden horses: the refiner cannot see their hidden part
                ("clean_lineup", 40, "horse", "horse", 0.0)]


@pytest.mark.parametrize("name, index, key, group, gain", JITTER_CASES)
def test_shipped_refiner_moves_jittered_true_boxes_back(refiner, name, index, key, group, gain):
    """True boxes with each edge moved by N(0, 12%) of the box's size, as a poor detector box:
    after the refiner their mean IoU with the truth has risen by `gain`, and as many or more
    reach 0.5 (at least 90%). Measured mean IoU: 0.67-0.70 → 0.85-0.92; clean_lineup's dense
    line-up horses 0.72 → 0.75 only (session 5)."""
    frame, truth = _frame(name, index)
    true = _true_boxes(truth, key)
    assert len(true) >= 4
    rng = np.random.default_rng(index)
    start = np.repeat(true, 5, axis=0)
    truth_rep = start.copy()
    start = start + rng.normal(0, 0.12, start.shape) * edge_units(start)
    before = _pairwise_iou(start, truth_rep)
    after = _pairwise_iou(refiner.refine_boxes(frame, start, group), truth_rep)
    assert after.mean() >= before.mean() + gain, (before.mean(), after.mean())
    assert (after >= 0.5).mean() >= max(0.9, (before >= 0.5).mean()), ((before >= 0.5).mean(), (after >= 0.5).mean())


@pytest.mark.parametrize("name, index, least", [("throw_in_near_boards", 30, 0.85), ("clean_lineup", 40, 0.7)])
def test_shipped_refiner_leaves_true_boxes_near_where_they_are(refiner, name, index, least):
    """Started from the true boxes, the refined ones keep a median IoU with them of at least 0.85
    (measured 0.92-0.94); in clean_lineup's dense line-up, where horses are half hidden, at least
    0.7 (measured: horses 0.78, riders 0.87)."""
    frame, truth = _frame(name, index)
    for key, group in (("horse", "horse"), ("rider", "person")):
        true = _true_boxes(truth, key)
        moved = refiner.refine_boxes(frame, true, group)
        assert np.median(_pairwise_iou(moved, true)) >= least, key


def test_detector_refines_horses_and_persons_only(refiner):
    frame, truth = _frame("clean_lineup", 40)
    horse, rider = _true_boxes(truth, "horse")[0], _true_boxes(truth, "rider")[0]
    ball = np.array([600, 300, 606, 306], float)
    det = Detections(np.vstack([horse + [6, -4, 6, 5], rider + [2, 3, -2, 4], ball]).astype(np.float32),
                     np.array([HORSE, RIDER, BALL]), np.array([0.9, 0.8, 0.4], np.float32))
    out = refiner(frame, det)
    assert out.class_id.tolist() == det.class_id.tolist() and np.allclose(out.confidence, det.confidence)
    assert np.allclose(out.xyxy[2], ball)                       # the ball is not its business
    assert box_iou(out.xyxy[0], horse)[0, 0] > box_iou(det.xyxy[0], horse)[0, 0]
    assert box_iou(out.xyxy[1], rider)[0, 0] > box_iou(det.xyxy[1], rider)[0, 0]
    assert len(refiner(frame, Detections())) == 0


def test_detector_loads_it_by_default():
    assert Detector(ball_model="none", kind_model="none").refiner.path == DEFAULT_REFINE_MODEL
    assert Detector(ball_model="none", kind_model="none", refine_model="none").refiner is None


def test_loading_options(tmp_path):
    assert load_box_refiner("none") is None
    assert load_box_refiner("auto").path == DEFAULT_REFINE_MODEL
    with pytest.raises(ModelError, match="not found"):
        load_box_refiner(tmp_path / "missing.pt")
    bad = tmp_path / "bad.pt"
    bad.write_text("not weights")
    with pytest.raises(ModelError, match="cannot load"):
        load_box_refiner(bad)


def test_openvino_and_pytorch_give_the_same_moves(refiner):
    assert refiner.runtime == "openvino"
    frame, truth = _frame("throw_in_near_boards", 30)
    boxes = _true_boxes(truth, "horse") + 3
    net = refiner.nets["horse"]
    fast = refiner.moves(frame, boxes, "horse")
    compiled, net.compiled = net.compiled, None
    try:
        slow = refiner.moves(frame, boxes, "horse")
    finally:
        net.compiled = compiled
    assert fast.shape == (len(boxes), 4) and np.allclose(fast, slow, atol=1e-3)


def test_training_runs_end_to_end_on_a_tiny_dataset(tmp_path):
    from synth.dataset import write_dataset
    from vision.refine_training import RefineTrainConfig, train_refiner
    data = tmp_path / "ds"
    write_dataset(data, n=6, seed=5, val_fraction=0.0, progress=False)
    lines = []
    record = train_refiner(RefineTrainConfig(data=str(data), out=str(tmp_path / "r.pt"), epochs=1, cuts=1,
                                             val_fraction=0.34), progress=lines.append)
    assert record["crops"]["horse"] >= 20 and record["crops"]["person"] >= 20
    assert len(lines) == 2 and (tmp_path / "r.train.json").exists()
    last = record["history"]["horse"][-1]
    assert 0 < last["edge_error_before"] < 0.3 and last["iou50_after"] is not None
    moved = BoxRefiner(tmp_path / "r.pt").refine_boxes(np.zeros((80, 80, 3), np.uint8), [[10, 10, 40, 50]], "horse")
    assert moved.shape == (1, 4) and np.isfinite(moved).all()


def test_detector_boxes_are_paired_with_the_true_box_they_overlap_most():
    from vision.detections import HORSE, RIDER, UMPIRE, Detections
    from vision.refine_training import detector_starts
    truth_cls = np.array([HORSE, HORSE, RIDER])
    truth = np.array([[0, 0, 40, 60], [100, 0, 140, 60], [5, -20, 30, 30]], float)
    det = Detections(np.array([[2, 3, 44, 70],          # the first horse, its bottom run on: kept
                               [60, 0, 90, 60],          # over nothing: dropped
                               [98, 0, 139, 50],         # the second horse, stopped short: kept
                               [6, -18, 31, 33]], np.float32),   # a person, not a horse
                     np.array([HORSE, HORSE, HORSE, UMPIRE]), np.full(4, 0.5, np.float32))
    start, target = detector_starts(det, truth_cls, truth, (HORSE,))
    assert np.allclose(start, det.xyxy[[0, 2]]) and np.allclose(target, truth[[0, 1]])
    start, target = detector_starts(det, truth_cls, truth, (RIDER, UMPIRE))
    assert np.allclose(target, truth[[2]])
    assert detector_starts(det, truth_cls[:2], truth[:2], (RIDER, UMPIRE))[0].shape == (0, 4)


def test_training_from_a_detectors_boxes_adds_their_crops(tmp_path, monkeypatch):
    """--from-detector: the detector's boxes (here a stand-in that returns each true box with its
    bottom run on by a fifth) are cut as well, with the true boxes as targets."""
    import vision.refine_training as rt
    from synth.dataset import write_dataset
    from vision.detections import Detections
    from vision.detector_eval import labelled_frames
    data = tmp_path / "ds"
    write_dataset(data, n=4, seed=6, val_fraction=0.0, progress=False)
    _, frames = labelled_frames(data)
    labels = {hash(frame.tobytes()): (cls, boxes) for frame, cls, boxes in frames}

    def stand_in(frame):
        cls, boxes = labels[hash(frame.tobytes())]
        run_on = boxes.copy()
        run_on[:, 3] += 0.2 * (boxes[:, 3] - boxes[:, 1])
        return Detections(run_on.astype(np.float32), cls, np.full(len(cls), 0.9, np.float32))
    monkeypatch.setattr(rt, "_raw_detector", lambda model: stand_in)
    plain = rt.collect(rt.RefineTrainConfig(data=str(data), cuts=1), np.random.default_rng(0))
    both = rt.collect(rt.RefineTrainConfig(data=str(data), cuts=1, detector="auto", detector_cuts=1),
                      np.random.default_rng(0))
    for group in ("horse", "person"):
        true_boxes = np.concatenate([b[np.isin(c, rt.GROUPS[group])] for c, b in labels.values()])
        big = int(np.sum((true_boxes[:, 2] - true_boxes[:, 0] >= 3) & (1.2 * (true_boxes[:, 3] - true_boxes[:, 1]) >= 3)))
        y = both[group]["y"]
        # the stand-in's crops ask for the bottom edge to move up by a sixth of the box (0.2 / 1.2)
        theirs = (np.abs(y[:, :3]) < 1e-3).all(axis=1) & (np.abs(y[:, 3] + 0.2 / 1.2) < 1e-3)
        assert big > 0 and theirs.sum() == big
        assert abs(int((~theirs).sum()) - len(plain[group]["y"])) <= 2    # the jittered true boxes as before


def test_train_refine_cli_errors(tmp_path, capsys):
    from cli.main import main
    assert main(["train-refine", "--data", str(tmp_path / "nope"), "--out", str(tmp_path / "r.pt")]) == 2
    assert "no data.yaml" in capsys.readouterr().err
    assert main(["train-refine", "--data", str(tmp_path), "--epochs", "0"]) == 2
    assert "must be at least 1" in capsys.readouterr().err
    assert main(["train-refine", "--data", str(tmp_path), "--from-detector", str(tmp_path / "no.pt")]) == 2
    assert "no such model file" in capsys.readouterr().err
    assert not (tmp_path / "r.pt").exists()
