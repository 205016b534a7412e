"""The shipped ball stage (models/polo-ball.pt and its exports) on rendered footage: it finds
the thrown ball where the renderer put it, finds nothing on empty grass, and every runtime
gives the same answer. No training here."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.ball import DEFAULT_BALL_MODEL, BallFinder, load_ball_finder
from vision.detect import ModelError, export_path

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
CLIP = SAMPLES / "throw_in_near_boards"


def _frame(index: int) -> np.ndarray:
    cap = cv2.VideoCapture(str(CLIP / "clip.mp4"))
    cap.set(cv2.CAP_PROP_POS_FRAMES, index)
    ok, img = cap.read()
    assert ok
    return img


def _truth_ball(index: int) -> np.ndarray | None:
    fr = json.loads((CLIP / "truth.json").read_text())["frames"][index]
    ball = next(o for o in fr["objects"] if o["role"] == "ball")
    b = ball["boxes"].get("ball")
    if b is None or ball["visible_fraction"] < 0.5:
        return None
    return np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2])


@pytest.fixture(scope="module")
def finders():
    return {rt: BallFinder(runtime=rt) for rt in ("torch", "onnx", "openvino")}


@pytest.mark.parametrize("index", [64, 65, 67])
def test_finds_the_thrown_ball(finders, index):
    """Just after the throw-in (frame 62) the ball flies between the ranks, 4-5 px across."""
    truth = _truth_ball(index)
    assert truth is not None
    rng = np.random.default_rng(index)
    for rt, finder in finders.items():
        centre = truth + rng.uniform(-60, 60, 2)          # the window need not be centred on it
        seen = finder.look(_frame(index), centre)
        assert seen is not None, rt
        assert np.hypot(*(seen.xy - truth)) <= 2.0, (rt, seen.xy, truth)


def test_nothing_on_empty_grass(finders):
    img = _frame(10)
    for rt, finder in finders.items():
        assert finder.look(img, (1100, 650)) is None, rt    # the bottom-right corner: grass only


def test_shipped_files_and_loading(tmp_path):
    assert DEFAULT_BALL_MODEL.exists()
    assert export_path(DEFAULT_BALL_MODEL, "openvino").is_dir()
    auto = load_ball_finder("auto")
    assert auto is not None and auto.runtime == "openvino" and auto.imgsz == 320
    assert load_ball_finder("none") is None
    with pytest.raises(ModelError, match="not found"):
        load_ball_finder("no/such/ball.pt")
    junk = tmp_path / "ball.pt"
    junk.write_text("not weights")
    with pytest.raises(ModelError, match="cannot load ball model"):
        load_ball_finder(junk)


def test_the_stage_runs_the_net_as_ultralytics_predictor_would(finders):
    """vision.ball_net runs the model without Ultralytics' predictor (a tenth of the stage's
    time): each runtime's sighting is the predictor's best box, to the pixel and the score."""
    from vision.ball import window_around
    from vision.openvino_cpu import recompile_ultralytics_model
    # The predictor compiles the OpenVINO export with Ultralytics' settings: again in FP32, as
    # the stage's own compile is (vision.openvino_cpu), so that both compute alike.
    ov = finders["openvino"]
    ov.model.predict(np.zeros((ov.imgsz, ov.imgsz, 3), np.uint8), imgsz=ov.imgsz, conf=0.05, verbose=False)
    assert recompile_ultralytics_model(ov.model, ov.path)
    rng = np.random.default_rng(3)
    for index in (20, 63, 66, 90):
        frame = _frame(index)
        truth = _truth_ball(index)
        centre = (truth if truth is not None else np.array([640.0, 300.0])) + rng.uniform(-60, 60, 2)
        for rt, finder in finders.items():
            x0, y0, side = window_around(frame.shape, centre, finder.window_side)
            big = cv2.resize(frame[y0:y0 + side, x0:x0 + side], (finder.imgsz, finder.imgsz),
                             interpolation=cv2.INTER_CUBIC)
            res = finder.model.predict(big, imgsz=finder.imgsz, conf=0.05, verbose=False)[0]
            mine = finder.net.best(big, finder.ball_class, 0.05)
            assert (mine is None) == (len(res.boxes) == 0), rt
            if mine is not None:
                k = int(np.argmax(res.boxes.conf.numpy()))
                assert np.allclose(mine[0], res.boxes.xyxy.numpy()[k], atol=0.01), rt
                assert mine[1] == pytest.approx(float(res.boxes.conf[k]), abs=1e-4), rt
    with pytest.raises(ValueError, match="320x320"):
        finders["openvino"].net.forward(np.zeros((160, 160, 3), np.uint8))



def test_an_end_to_end_ball_model_is_read_by_its_rows(tmp_path, monkeypatch):
    """User weights with an end-to-end (NMS-free) head, as YOLO26's, give (max_det, 6) rows
    (x1, y1, x2, y2, score, class) instead of anchors: the stage takes the best row of the
    ball's class. A YOLO26-layout model built from Ultralytics' own yaml (untrained, nothing
    downloaded) loads and gives such rows; the rows are then read as specified."""
    from ultralytics import YOLO
    from ultralytics.nn.tasks import DetectionModel
    yolo = YOLO("yolo26n.yaml", task="detect")
    net = DetectionModel("yolo26n.yaml", nc=2, verbose=False)
    net.names, net.end2end = {0: "horse", 1: "ball"}, True
    yolo.model = net
    yolo.save(tmp_path / "e2e-ball.pt")
    finder = BallFinder(tmp_path / "e2e-ball.pt", runtime="torch")
    assert finder.ball_class == 1
    size = finder.imgsz
    assert finder.net.forward(np.zeros((size, size, 3), np.uint8)).shape[1] == 6
    rows = np.array([[10, 10, 20, 20, 0.9, 0], [30, 40, 36, 46, 0.6, 1], [50, 50, 60, 60, 0.4, 1],
                     [size - 4, 5, size + 9, 11, 0.2, 1]], np.float32)
    monkeypatch.setattr(finder.net, "forward", lambda img: rows)
    img = np.zeros((size, size, 3), np.uint8)
    box, score = finder.net.best(img, 1, 0.3)
    assert np.allclose(box, [30, 40, 36, 46]) and score == pytest.approx(0.6)   # not the horse's 0.9
    assert finder.net.best(img, 1, 0.7) is None
    rows[:3, 5] = 0
    box, score = finder.net.best(img, 1, 0.1)
    assert np.allclose(box, [size - 4, 5, size, 11])                            # clipped to the window


def test_the_hit_search_finds_a_ball_hit_out_of_its_window(finders):
    """wrong_side_plays_early: the ball lies at (705, 351) px until Red #4 hits it at frame 92;
    it is seen at 93 (670 px) and not at 94 (hidden), and at 95 it is 139 px from where it was
    last seen, out of the 213 px window there. Following it from its sightings alone loses it;
    the hit search (60 px a frame towards either goal, what the Observer gives at this zoom for
    30 yd/s) finds it where the renderer put it."""
    from vision.ball import BallFollower
    clip = SAMPLES / "wrong_side_plays_early"
    cap = cv2.VideoCapture(str(clip / "clip.mp4"))
    cap.set(cv2.CAP_PROP_POS_FRAMES, 95)
    ok, frame = cap.read()
    assert ok
    fr = json.loads((clip / "truth.json").read_text())["frames"][95]
    b = next(o for o in fr["objects"] if o["role"] == "ball")["boxes"]["ball"]
    truth = np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2])
    steps = np.array([[-60.0, -0.9], [60.0, 0.9]])
    for hit_steps, found in ((None, False), (steps, True)):
        follower = BallFollower(finders["openvino"])
        follower.remember(88, np.array([705.4, 351.6]))
        follower.remember(93, np.array([670.4, 347.8]))        # after a gap: its speed unknown
        seen = follower.find(frame, 95, np.zeros((0, 4)), hit_steps=hit_steps)
        assert (seen is not None and np.hypot(*(seen.xy - truth)) < 3) == found, (hit_steps, seen)
