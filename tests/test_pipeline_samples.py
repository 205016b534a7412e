"""The stages after detection, end to end on rendered sample clips.

A stand-in detector gives the renderer's truth boxes, so these tests measure tracking,
identity, homography, smoothing, throw-in, rules and events against the issue's thresholds
independently of the detector (tests/test_detector_model.py covers the shipped model).
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import pytest

from reports.coverage import DRIFT_TRAVEL_PX, camera_drift_warning
from reports.evaluate import evaluate_report
from synth.truth_detector import TruthDetector
from vision.analyze_job import analyze_to_folder
from vision.pipeline import AnalyzeOptions
from vision.sidecar import load_sidecar

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"


def _run(name: str, out: Path, annotate: bool = False):
    clip = SAMPLES / name / "clip.mp4"
    truth = json.loads((SAMPLES / name / "truth.json").read_text())
    side = load_sidecar(clip)
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"], annotate=annotate)
    report, written = analyze_to_folder(clip, out, opts, detector=TruthDetector(truth))
    return report, written, evaluate_report(report, truth)


@pytest.mark.parametrize("name", ["clean_lineup", "throw_in_near_boards", "slow_returner_red2"])
def test_sample_meets_the_pipeline_thresholds(tmp_path, name):
    _, _, score = _run(name, tmp_path)
    assert score["event_precision"] >= 0.95 and score["event_recall"] >= 0.95, score
    assert score["position_error_median_yd"] <= 0.5, score
    assert score["position_error_p95_yd"] <= 1.5, score
    assert score["throw_in_frame_error"] is not None and score["throw_in_frame_error"] <= 3, score


def test_panning_clip_positions_hold_through_the_pan(tmp_path):
    """clean_lineup_pan pans 55 yd and zooms out a third: the camera, re-anchored on the boards'
    foot and the painted lines as it goes, keeps the players' 95th-percentile error at 0.62 yd
    (1.22 in session 30, when drift in turn and zoom grew through the pan). Its throw-in is not
    asserted: the ball is hidden through the release (docs/measurements.md)."""
    report, _, score = _run("clean_lineup_pan", tmp_path)
    assert score["event_precision"] >= 0.95 and score["event_recall"] >= 0.95, score
    assert score["position_error_p95_yd"] <= 0.9, score
    cam = report["camera"]
    assert cam["model"] == "pan-tilt-zoom" and cam["reanchored"] > 5
    assert -1.0 < cam["boards_look_px"] < -0.3
    assert cam["max_travel_px"] > DRIFT_TRAVEL_PX and camera_drift_warning(report) is None   # held by the marks


def test_near_boards_event_is_reported_with_its_distance(tmp_path):
    report, _, _ = _run("throw_in_near_boards", tmp_path)
    (ev,) = [e for e in report["events"] if e["code"] == "THROW_IN_NEAR_BOARDS"]
    assert ev["worst"]["distance_yd"] <= 20.0
    truth = json.loads((SAMPLES / "throw_in_near_boards" / "truth.json").read_text())
    (tev,) = [v for fr in truth["expected"]["frames"] for v in fr["violations"] if v["code"] == "THROW_IN_NEAR_BOARDS"]
    assert ev["worst"]["distance_yd"] == pytest.approx(tev["distance_yd"], abs=0.5)


def test_outputs_are_complete_and_readable(tmp_path):
    report, written, _ = _run("clean_lineup", tmp_path, annotate=True)
    assert sorted(p.name for p in written) == ["annotated.mp4", "debrief.html", "report.csv", "report.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["annotated.mp4", "debrief.html", "report.csv", "report.json"]
    cap = cv2.VideoCapture(str(tmp_path / "annotated.mp4"))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == report["frames_analysed"]
    ok, frame = cap.read()
    assert ok and frame.shape == (720, 1280, 3)
    rows = list(csv.DictReader((tmp_path / "report.csv").open()))
    assert rows and {"frame", "id", "team", "x_yd", "y_yd", "sigma_yd", "violations"} <= set(rows[0])
    players = {r["id"] for r in rows if r["kind"] == "player"}
    assert len({p.split("-")[0] for p in players}) == 2
    assert json.loads((tmp_path / "report.json").read_text())["throw_in"]["frame"] == report["throw_in"]["frame"]
    cov = report["coverage"]            # every player placed through the line-up: nothing to warn of
    assert cov["line_up_frames"] == report["throw_in"]["frame"] and cov["placed_median"] == {"red": 4.0, "blue": 4.0}
    assert cov["warnings"] == []


def _shipped(name: str, tmp_path):
    """analyze (the shipped models, the clip's sidecar) then evaluate: (report, score)."""
    clip = SAMPLES / name / "clip.mp4"
    side = load_sidecar(clip)
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"], annotate=False)
    report, _ = analyze_to_folder(clip, tmp_path, opts, debrief=False)
    return report, evaluate_report(report, json.loads((SAMPLES / name / "truth.json").read_text()))


def test_shipped_models_meet_the_thresholds_on_the_near_boards_clip(tmp_path):
    """The whole product, the shipped detector and ball stage included, on a sample clip on
    which they meet every threshold (nine do; bench/bench_samples.py measures all twelve; docs/measurements.md)."""
    report, score = _shipped("throw_in_near_boards", tmp_path)
    assert report["throw_in"]["method"] == "ball" and report["ball"]["frames_seen"] > 10, report["throw_in"]
    assert score["event_precision"] >= 0.95 and score["event_recall"] >= 0.95, score
    assert score["position_error_median_yd"] <= 0.5 and score["position_error_p95_yd"] <= 1.5, score
    assert score["throw_in_frame_error"] is not None and score["throw_in_frame_error"] <= 3, score
    assert score["position_coverage"] >= 0.9, score
    assert score["errors_within_2_sigma"] >= 0.8, score       # the reported uncertainty is not far too small
    seen = [fr for fr in report["frames"] if fr["ball_px"] is not None]
    assert len(seen) == report["ball"]["frames_seen"]
    assert report["detector"]["runtime"] == "openvino" and report["detector"]["openvino_precision"] == "f32"


def test_shipped_models_on_the_own_goal_clip_find_the_far_umpires_throw_and_the_late_riders_plays(tmp_path):
    """own_goal_blue1 with the shipped models: the ball thrown by a far umpire (1.6 px) is seen
    by its motion, around the umpire even on the frames where the detector misses his rider
    (his rider box as last seen on his horse: without it the throw-in came from the players,
    24 frames late); Blue #1, riding in from his own half after a horse change, is out of the
    line-up at the throw-in; his three plays (improper positioning in the truth) are found: the
    ball, lost at Red #1's hit from the ranks and last seen by its motion, is looked for at every
    player in turn and found as Blue #1 reaches it; at his first hit his white glove is not
    taken for the ball (a ground ball does not leap into a rider's box). Before session 25 none
    was found."""
    report, score = _shipped("own_goal_blue1", tmp_path)
    assert report["throw_in"]["method"] == "ball" and report["ball"]["motion_sightings"] >= 3, report["ball"]
    assert score["throw_in_frame_error"] is not None and score["throw_in_frame_error"] <= 3, score
    at = next(fr for fr in report["frames"] if fr["index"] == report["throw_in"]["frame"])
    out = [n for n in at["notes"] if n["code"] == "OUT_OF_LINEUP_AT_THROW_IN"]
    assert len(out) == 1 and out[0]["distance_from_centre_yd"] > 40, at["notes"]
    assert {p["team"] for p in at["players"] if p["id"] == out[0]["player"]} == {"blue"}
    assert all(e["code"] == "IMPROPER_POSITIONING" for e in report["events"]), report["events"]
    assert score["event_precision"] >= 0.95 and score["event_recall"] >= 0.95, score
    assert score["position_error_median_yd"] <= 0.5 and score["position_error_p95_yd"] <= 1.5, score


def test_a_window_of_a_clip_is_analysed_as_that_part_of_the_video(tmp_path):
    """`--start/--end`: only the window's frames are analysed, under the video's own frame
    numbers and times (the throw-in found at the same frame as on the whole clip); annotated.mp4
    holds the window; the debrief's links seek into it from its first frame."""
    clip = SAMPLES / "clean_lineup" / "clip.mp4"
    truth = json.loads((SAMPLES / "clean_lineup" / "truth.json").read_text())
    side = load_sidecar(clip)
    from vision.video_io import Window
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"], annotate=True, window=Window(1.0, 4.0))
    report, _ = analyze_to_folder(clip, tmp_path, opts, detector=TruthDetector(truth))
    idx = [f["index"] for f in report["frames"]]
    assert idx == list(range(25, 100)) and report["frames"][0]["t"] == pytest.approx(1.0)
    assert report["window"] == {"start_s": 1.0, "end_s": 4.0, "first_frame": 25, "first_t": 1.0, "last_frame": 99}
    assert abs(report["throw_in"]["frame"] - truth["throw_in_frame"]) <= 3
    cap = cv2.VideoCapture(str(tmp_path / "annotated.mp4"))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == 75
    page = (tmp_path / "debrief.html").read_text()
    assert "frames 25-99 (from 1 s to 4 s of the video)" in page
    from reports.writers import console_summary
    assert console_summary(report).splitlines()[0].endswith("; frames 25-99 (from 1 s to 4 s of the video)")
    for ev in report["events"]:            # links seek into annotated.mp4, which starts at 1.0 s
        assert f'href="annotated.mp4#t={ev["start_s"] - 1.0:.2f}"' in page


def test_a_throw_in_frame_outside_the_window_is_one_clear_error(tmp_path):
    from vision.analyze_job import AnalyzeError
    from vision.video_io import Window
    clip = SAMPLES / "clean_lineup" / "clip.mp4"
    truth = json.loads((SAMPLES / "clean_lineup" / "truth.json").read_text())
    side = load_sidecar(clip)
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"], annotate=False,
                          window=Window(1.0, 2.0), throw_in_frame=75)
    with pytest.raises(AnalyzeError, match="throw-in frame 75 is outside the analysed part of the video"):
        analyze_to_folder(clip, tmp_path / "out", opts, detector=TruthDetector(truth))
    assert not (tmp_path / "out").exists()


def test_a_throw_in_frame_past_the_end_is_refused_before_decoding(tmp_path):
    """Checked against the container's frame count first: a long recording is not decoded and
    detected to the end only to be told the override was wrong."""
    from vision.analyze_job import AnalyzeError
    clip = SAMPLES / "clean_lineup" / "clip.mp4"
    side = load_sidecar(clip)

    def never(_frames):
        raise AssertionError("the detector ran")
    never.ball_finder = None
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"], annotate=False,
                          throw_in_frame=9999)
    with pytest.raises(AnalyzeError, match=r"throw-in frame 9999 is outside .*frames 0-149, by the container"):
        analyze_to_folder(clip, tmp_path / "out", opts, detector=never)
    assert not (tmp_path / "out").exists()


def test_a_window_of_a_panning_clip_starts_where_the_camera_has_gone(tmp_path):
    """The calibration is of frame 0; the window starts at 4 s, when the camera has panned and
    zoomed. The camera is followed there first (vision.camera_lead_in), so the window's
    positions are as good as the whole clip's there (before: the first frame's homography,
    median error 1.8 yd, 13% of the players placed, a false WRONG_SIDE)."""
    from vision.video_io import Window
    clip = SAMPLES / "clean_lineup_pan" / "clip.mp4"
    truth = json.loads((SAMPLES / "clean_lineup_pan" / "truth.json").read_text())
    side = load_sidecar(clip)
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"], annotate=False, window=Window(4.0, 6.0))
    report, _ = analyze_to_folder(clip, tmp_path, opts, detector=TruthDetector(truth), debrief=False)
    lead = report["camera_lead_in"]
    assert lead["from_frame"] == 0 and 96 <= lead["to_frame"] <= 99 and lead["lost"] == 0, lead
    score = evaluate_report(report, truth)
    assert score["position_error_median_yd"] <= 1.0 and score["position_coverage"] >= 0.6, score
    from reports.writers import console_summary
    assert console_summary(report).splitlines()[1].startswith("camera: followed from the calibrated frame 0 to frame")
