"""vision.field_lines and the camera's re-anchoring on them (camera_motion.fit_ptz_to_lines),
on the rendered panning sample: the renderer's own homographies are the truth."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.camera_motion import fit_ptz_to_lines, ptz_from_homography
from vision.field_lines import (BOARD_LINE, LineSamples, board_bias_px, board_samples, line_samples,
                                warp_points)

PAN = Path(__file__).resolve().parents[1] / "sample_videos" / "clean_lineup_pan"
SIZE = (1280, 720)


@pytest.fixture(scope="module")
def pan():
    """Frames 0 and 150 of the panning sample (grey), their true field→image homographies,
    the players' and umpire's true positions and boxes."""
    truth = json.loads((PAN / "truth.json").read_text())
    cap = cv2.VideoCapture(str(PAN / "clip.mp4"))
    out = {}
    for i in range(151):
        ok, frame = cap.read()
        assert ok
        if i in (0, 150):
            tf = truth["frames"][i]
            people, boxes = _people(tf)
            out[i] = (cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.array(tf["H_field_to_image"]), people, boxes)
    cap.release()
    return out


def _people(tf: dict) -> tuple[np.ndarray, np.ndarray]:
    """A truth frame's players and umpires: their field places (N, 2) and, for those in view,
    one box each around all their parts (M, 4)."""
    people = [o for o in tf["objects"] if o["role"] in ("player", "umpire")]
    boxes = np.array([[min(b[k] for b in o["boxes"].values()) for k in (0, 1)]
                      + [max(b[k] for b in o["boxes"].values()) for k in (2, 3)] for o in people if o["boxes"]])
    return np.array([[o["x"], o["y"]] for o in people]), boxes.reshape(-1, 4)


def _error_yd(G_true, G, yd):
    """Median field error of the true places `yd` seen through the true G and read back through G."""
    return float(np.median(np.hypot(*(warp_points(np.linalg.inv(G), warp_points(G_true, yd)) - yd).T)))


def test_boards_foot_is_found_where_the_sideline_is(pan):
    gray0, G0, _, boxes0 = pan[0]
    cam_y = ptz_from_homography(G0, SIZE).C[1]
    bias = board_bias_px(board_samples(gray0, np.linalg.inv(G0), cam_y, boxes=boxes0))
    assert bias is not None and -1.0 < bias < -0.3    # rendered boards are drawn about half a pixel large
    gray, G, _, boxes = pan[150]
    s = board_samples(gray, np.linalg.inv(G), cam_y, boxes=boxes, bias_px=bias)
    ok = s.found()
    assert ok.sum() >= 8 and np.all(s.line == BOARD_LINE) and np.all(s.axis == 1)
    assert np.all(s.base[:, 1] == 160.0)                           # the far sideline, not the near one
    assert np.median(np.abs(s.offset[ok] * s.px_per_yd[ok])) < 0.25


def test_boards_are_not_found_on_plain_grass(pan):
    gray, G, _, _ = pan[150]
    cam_y = ptz_from_homography(G, SIZE).C[1]
    flat = np.full_like(gray, 110)
    s = board_samples(flat, np.linalg.inv(G), cam_y)
    assert s is None or not s.found().any()


def _drifted(pan):
    gray, G, players, boxes = pan[150]
    cam = ptz_from_homography(G, SIZE)
    wrong = cam.turned(np.array([0.0006, -0.0004, 0.0003, 0.003]))     # ~0.5 yd at the players
    bias = board_bias_px(board_samples(pan[0][0], np.linalg.inv(pan[0][1]), cam.C[1], boxes=pan[0][3]))
    return gray, G, players, boxes, cam, wrong, bias


def _measure(gray, cam, boxes, bias):
    H = np.linalg.inv(cam.field_to_image())
    return LineSamples.join([line_samples(gray, H, boxes=boxes),
                             board_samples(gray, H, cam.C[1], boxes=boxes, bias_px=bias)])


def test_fit_to_lines_and_boards_undoes_a_drifted_turn_and_zoom(pan):
    gray, G, players, boxes, cam, wrong, bias = _drifted(pan)
    G_wrong = wrong.field_to_image()
    before = _error_yd(G, G_wrong, players)
    assert before > 0.4
    grid = np.array([[x, y] for x in range(165, 200, 5) for y in range(50, 90, 5)], float)
    fitted, p, rms, n = fit_ptz_to_lines(wrong, _measure(gray, wrong, boxes, bias), G_wrong,
                                         warp_points(G_wrong, grid))
    assert n >= 10 and rms < 1.0 and np.any(p)
    assert _error_yd(G, fitted.field_to_image(), players) < 0.25 * before


def test_fit_to_lines_leaves_a_right_camera_alone(pan):
    gray, G, players, boxes, cam, _, bias = _drifted(pan)
    grid = np.array([[x, y] for x in range(165, 200, 5) for y in range(50, 90, 5)], float)
    G_cam = cam.field_to_image()
    fitted, p, rms, n = fit_ptz_to_lines(cam, _measure(gray, cam, boxes, bias), G_cam, warp_points(G_cam, grid))
    assert n >= 10 and rms < 1.0
    # no correction, or one within the measurement's own noise: hundredths of a yard
    assert _error_yd(G, fitted.field_to_image(), players) < 0.05


def test_tracker_holds_the_rendered_pan_by_its_lines_and_boards():
    """The whole panning sample (zoomed out a third, panned 55 yd), the players' and umpire's true
    boxes masked: without re-anchoring on the painted lines and the boards the players were read
    1.2 yd off (median) on the last frame (session 30); now a third of a yard."""
    from vision.camera_motion import CameraMotionTracker
    from vision.homography import calibrate
    from vision.video_io import open_video
    truth = json.loads((PAN / "truth.json").read_text())
    tracker = CameraMotionTracker(calibrate(str(PAN / "calibration.json")).H, SIZE)
    errors = []
    for (_i, _t, frame), tf in zip(open_video(PAN / "clip.mp4"), truth["frames"]):
        people, boxes = _people(tf)
        step = tracker.update(frame, exclude_boxes=boxes)
        errors.append(_error_yd(np.array(tf["H_field_to_image"]), np.linalg.inv(step.H), people))
    assert len(errors) == 200
    assert errors[-1] < 0.6 and max(errors) < 0.8
    assert tracker._board_bias is not None                  # the boards were seen, and used


def test_a_still_camera_is_not_re_anchored():
    """Until the panning sample's camera moves (frame 84), the tracker keeps the calibrated view:
    nothing to mend, and re-anchoring on marks measured a fraction of a pixel off would only move it
    (on a still camera the centre line and the boards once rolled it by 0.0002 rad every few fits)."""
    from vision.camera_motion import CameraMotionTracker
    from vision.homography import calibrate
    from vision.video_io import open_video
    H0 = calibrate(str(PAN / "calibration.json")).H
    tracker = CameraMotionTracker(H0, SIZE)
    for i, _t, frame in open_video(PAN / "clip.mp4"):
        step = tracker.update(frame)
        assert step.reanchor_yd == (0.0, 0.0)
        if i == 60:
            break
    assert tracker._board_bias is not None                   # the boards' look was taken meanwhile
    assert tracker._travel_px() < tracker.LINE_MIN_TRAVEL_PX


def test_boards_across_the_field_from_a_camera_on_the_east_side():
    """horse_change_blue3 is filmed from beyond the east sideline (y = 175): the boards it sees the
    face of stand on the west sideline, y = 0."""
    clip = PAN.parent / "horse_change_blue3"
    truth = json.loads((clip / "truth.json").read_text())
    cap = cv2.VideoCapture(str(clip / "clip.mp4"))
    ok, frame = cap.read()
    cap.release()
    assert ok
    G = np.array(truth["frames"][0]["H_field_to_image"])
    cam_y = ptz_from_homography(G, SIZE).C[1]
    assert cam_y > 160
    s = board_samples(cv2.extractChannel(frame, 2), np.linalg.inv(G), cam_y)
    assert s is not None and np.all(s.base[:, 1] == 0.0) and s.found().sum() >= 8
    assert -1.0 < board_bias_px(s) < -0.3
