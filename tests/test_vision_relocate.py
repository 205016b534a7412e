"""Finding the calibrated camera's view again after a cut (vision/relocate.py), and the
throw-in scan going on across a broadcast's cutaway (vision.throw_in_finder.scan)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from cli.main import main
from vision.homography import calibrate, image_to_field
from vision.relocate import KeyViews, ViewLibrary
from vision.video_io import VideoWriter, Window, open_video

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
SIZE = (1280, 720)
GRID = np.array([(u * SIZE[0], v * SIZE[1]) for v in np.linspace(0.45, 0.95, 5) for u in np.linspace(0.05, 0.95, 6)])


def _frames(clip: str, keep) -> dict[int, np.ndarray]:
    return {i: f for i, _t, f in open_video(SAMPLES / clip / "clip.mp4") if keep(i)}


def _truth(clip: str) -> dict:
    return json.loads((SAMPLES / clip / "truth.json").read_text())


def _H(truth: dict, i: int) -> np.ndarray:
    return np.linalg.inv(np.array(truth["frames"][i]["H_field_to_image"]))


def _boxes(truth: dict, i: int) -> np.ndarray:
    return np.array([b for o in truth["frames"][i]["objects"] for b in o["boxes"].values()]).reshape(-1, 4)


@pytest.fixture(scope="module")
def pan_library():
    """Key views of the panning sample every second (the renderer's homographies, players masked)."""
    truth = _truth("clean_lineup_pan")
    frames = _frames("clean_lineup_pan", lambda i: i % 25 == 0 or i in (110, 160, 199))
    lib = ViewLibrary(SIZE)
    for i in range(0, 200, 25):
        lib.add(frames[i], _H(truth, i), _boxes(truth, i))
    return lib, frames, truth


def test_views_between_the_key_views_of_a_pan_are_found_to_a_tenth_of_a_yard(pan_library):
    """Frames 110, 160 and 199 (not key views; the camera has panned 30-60 yd from the first
    view) located from the key view they share most with: every point of the lower picture
    where the renderer's homography puts it, to 0.3 yd at worst."""
    lib, frames, truth = pan_library
    assert len(lib) >= 6                     # blurred mid-pan frames may have too few features to keep
    for i in (110, 160, 199):
        found = lib.locate(frames[i])
        assert found is not None, i
        err = np.hypot(*(image_to_field(found.H, GRID) - image_to_field(_H(truth, i), GRID)).T)
        assert np.nanmedian(err) < 0.2 and np.nanmax(err) < 0.5, (i, np.nanmedian(err), np.nanmax(err))
        assert found.inliers >= 20


@pytest.mark.parametrize("clip", ["clean_lineup", "jostling_at_centre", "own_goal_blue1", "throw_in_near_boards"])
def test_other_cameras_are_not_taken_for_the_calibrated_one(pan_library, clip):
    """Other sample clips: other camera stands and fields seen from elsewhere: never located."""
    lib = pan_library[0]
    frames = _frames(clip, lambda i: i % 30 == 0)
    assert [i for i, f in frames.items() if lib.locate(f) is not None] == []


def test_a_graphic_every_shot_shows_does_not_make_another_camera_the_calibrated_one():
    """A broadcast's score graphic, the same pixels in every shot (here a textured 240x70
    patch in the top left corner): its features match between any two shots, but they cover a
    corner of the picture, not a view. Another camera with the graphic: not located; the
    calibrated camera with it: located as before."""
    rng = np.random.default_rng(3)
    bug = cv2.GaussianBlur(rng.integers(0, 255, (70, 240, 3), dtype=np.uint8), (0, 0), 1.5)

    def with_bug(frame):
        out = frame.copy()
        out[20:90, 20:260] = bug
        return out
    truth = _truth("clean_lineup_pan")
    frames = _frames("clean_lineup_pan", lambda i: i in (0, 12, 25))
    lib = ViewLibrary(SIZE)
    for i in (0, 25):
        lib.add(with_bug(frames[i]), _H(truth, i), _boxes(truth, i))
    assert lib.locate(with_bug(frames[12])) is not None
    others = _frames("jostling_at_centre", lambda i: i % 40 == 0)
    assert [i for i, f in others.items() if lib.locate(with_bug(f)) is not None] == []


def test_key_views_are_where_the_picture_moved_and_the_last_one_before_a_cut():
    """A still camera: its first view (and its last, only if it moved); a pan of 1 yd a frame:
    a key every 3 yd; the library's cap keeps the first ones."""
    rng = np.random.default_rng(5)
    frame = cv2.GaussianBlur(rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8), (0, 0), 2)   # textured
    def H(dx):
        return np.array([[0.05, 0, 100 + dx], [0, 0.08, 20], [0, 0, 1.0]])      # image px → field yd, shifted
    still = KeyViews(SIZE)
    assert [still.offer(frame, H(0.0)) for _ in range(5)] == [True, False, False, False, False]
    still.close_shot()
    assert len(still.library) == 1                       # the last view is the first's
    pan = KeyViews(SIZE)
    kept = [i for i in range(31) if pan.offer(frame, H(1.0 * i))]
    assert kept[0] == 0 and np.all(np.diff(kept) >= 3) and np.all(np.diff(kept) <= 4) and 30 not in kept
    pan.close_shot()
    assert len(pan.library) == len(kept) + 1            # and the last one, 30
    capped = KeyViews(SIZE, max_views=3)
    assert [i for i in range(31) if capped.offer(frame, H(1.0 * i))] == kept[:3]


def _cutaway(path: Path, away: int = 50) -> None:
    """A broadcast's cutaway: clean_lineup (its line-up and throw-in), `away` frames of another
    camera (jostling_at_centre's), then clean_lineup's camera again (its footage once more)."""
    main_cam = [f for _i, _t, f in open_video(SAMPLES / "clean_lineup" / "clip.mp4")]
    other = [f for i, _t, f in open_video(SAMPLES / "jostling_at_centre" / "clip.mp4") if i < away]
    with VideoWriter(path, 25.0) as w:
        for f in main_cam + other + main_cam:
            w.write(f)


def test_the_scan_goes_on_after_a_cutaway_where_the_calibrated_camera_is_seen_again(tmp_path, capsys):
    """find-throw-ins on footage cut away to another camera for 2 s: the line-up before the cut
    and the one after it are both found, the cutaway is skipped, and the throw-in after it is
    written with the calibration of the view found again (which matches the clip's own);
    --stop-at-cut keeps the old behaviour. The footage after the cutaway is the same footage
    again, a replay: --judge-replays scans it as live; without it, it is skipped (test below)."""
    n = len(_truth("clean_lineup")["frames"])                       # 138 frames, the throw-in at 75
    _cutaway(tmp_path / "clip.mp4")
    shutil.copy(SAMPLES / "clean_lineup" / "calibration.json", tmp_path / "calibration.json")
    shutil.copy(SAMPLES / "clean_lineup" / "clip.polo.json", tmp_path / "clip.polo.json")
    rc = main(["find-throw-ins", str(tmp_path / "clip.mp4"), "--json", "--quiet", "--judge-replays"])
    found = json.loads(capsys.readouterr().out)
    assert rc == 0
    cut_s, back_s = n / 25, (n + 50) / 25
    assert [s["view"] for s in found["shots"]] == ["calibrated", "other", "found again"]
    assert abs(found["shots"][1]["start_s"] - cut_s) <= 0.2 and 0 <= found["shots"][2]["start_s"] - back_s <= 0.5
    assert found["camera_cut"] is None
    first, second = found["lineups"]
    assert first["window_start_s"] <= 3.0 < first["window_end_s"] <= cut_s + 1e-6     # the throw-in at 3 s
    assert back_s <= second["window_start_s"] <= back_s + 3.0 < second["window_end_s"]
    cal = found["throw_ins"][1]["calibration"]
    assert cal["frame"] >= n + 50
    again = calibrate(cal)                                           # the calibration reader takes it
    mine = calibrate(str(tmp_path / "calibration.json"))
    err = np.hypot(*(image_to_field(again.H, GRID) - image_to_field(mine.H, GRID)).T)
    assert np.nanmax(err) < 0.3                                      # the same view, found again

    rc = main(["find-throw-ins", str(tmp_path / "clip.mp4"), "--json", "--quiet", "--stop-at-cut"])
    stopped = json.loads(capsys.readouterr().out)
    assert rc == 0 and len(stopped["lineups"]) == 1
    assert abs(stopped["camera_cut"]["t"] - cut_s) <= 0.2
    assert [s["view"] for s in stopped["shots"]] == ["calibrated", "other"]

    # By default the footage after the cutaway, clean_lineup once more, is told for a replay of
    # what was scanned: its throw-in is not found twice, the rest is another shot.
    rc = main(["find-throw-ins", str(tmp_path / "clip.mp4"), "--json", "--quiet"])
    skipped = json.loads(capsys.readouterr().out)
    assert rc == 0 and len(skipped["lineups"]) == 1
    assert [(s["view"], s.get("replay", False)) for s in skipped["shots"]] == [("calibrated", False), ("other", True)]
    assert main(["find-throw-ins", str(tmp_path / "clip.mp4"), "--quiet"]) == 0
    assert "another shot, not scanned (a replay of footage scanned)" in capsys.readouterr().out


class _Nothing:
    wants_index = True
    map = {0: 0, 1: 1, 2: 2, 3: 3}

    def __call__(self, frame, index):
        from vision.detections import Detections
        return Detections()


def test_a_window_after_a_cutaway_is_reached_by_finding_the_calibrated_camera_again(tmp_path):
    """analyze (or batch) on a window that starts after a cutaway: the camera is followed from
    the calibrated frame, the cut crossed where the calibrated camera is seen again (said in
    report.json's camera_lead_in), and the window read through the view found (here the
    calibrated view itself: the same camera, not moved)."""
    from vision.pipeline import AnalyzeOptions, analyze
    n = len(_truth("clean_lineup")["frames"])
    _cutaway(tmp_path / "clip.mp4", away=30)
    side_cal = str(SAMPLES / "clean_lineup" / "calibration.json")
    start = (n + 30 + 20) / 25
    opts = AnalyzeOptions(defending={"red": "south", "blue": "north"}, calibration=side_cal, annotate=False,
                          window=Window(start, start + 1.0))
    analysis = analyze(tmp_path / "clip.mp4", opts, detector=_Nothing())
    lead = analysis.report["camera_lead_in"]
    (crossed,) = lead["cutaways"]
    assert abs(crossed["cut_frame"] - n) <= 2 and n + 30 <= crossed["found_frame"] <= n + 30 + 10
    assert lead["to_frame"] >= n + 48
    H_cal = calibrate(side_cal).H
    err = np.hypot(*(image_to_field(analysis.frames[0].H, GRID) - image_to_field(H_cal, GRID)).T)
    assert np.nanmax(err) < 0.3


def _shifted_truth(at: int, away: int) -> dict:
    """clean_lineup's truth for the footage with `away` frames of another camera cut in at frame
    `at`: frames from `at` on numbered `away` later; the cutaway's frames show none of them."""
    truth = _truth("clean_lineup")
    def moved(frames):
        out = []
        for fr in frames:
            i = fr["index"] if fr["index"] < at else fr["index"] + away
            out.append({**fr, "index": i})
        return out
    frames = moved(truth["frames"])
    expected = moved(truth["expected"]["frames"])
    gap = [{"index": i, "objects": []} for i in range(at, at + away)]
    return {**truth, "frames": sorted(frames + gap, key=lambda f: f["index"]), "throw_in_frame": truth["throw_in_frame"] + away,
            "expected": {**truth["expected"], "frames": expected}}


def test_a_cutaway_during_the_line_up_is_skipped_and_the_throw_in_still_judged(tmp_path):
    """A broadcast cuts away during the line-up (1 s of another camera from frame 40) and back:
    analyze skips the other shot where the calibrated camera is seen again and judges the rest
    as the clip without the cutaway: the throw-in within 3 frames (75 + 25), no event (the
    line-up is clean), positions within the sample thresholds; the cutaway's frames are not in
    the report, a warning says so, and annotated.mp4 shows them with a banner, not boxes."""
    from reports.coverage import report_warnings
    from reports.evaluate import evaluate_report
    from vision.analyze_job import analyze_to_folder
    from vision.pipeline import AnalyzeOptions
    from vision.sidecar import load_sidecar
    at, away = 40, 25
    main_cam = [f for _i, _t, f in open_video(SAMPLES / "clean_lineup" / "clip.mp4")]
    other = [f for i, _t, f in open_video(SAMPLES / "jostling_at_centre" / "clip.mp4") if i < away]
    with VideoWriter(tmp_path / "clip.mp4", 25.0) as w:
        for f in main_cam[:at] + other + main_cam[at:]:
            w.write(f)
    side = load_sidecar(SAMPLES / "clean_lineup" / "clip.mp4")
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"], team_colours=side["team_colours"])
    report, _ = analyze_to_folder(tmp_path / "clip.mp4", tmp_path / "out", opts)
    (c,) = report["cutaways"]
    assert c["cut_frame"] == at and at + away <= c["found_frame"] <= at + away + 5
    assert report["camera_cut"] is None
    assert not [fr["index"] for fr in report["frames"] if at <= fr["index"] < c["found_frame"]]
    assert any("show another camera: not judged" in w for w in report_warnings(report))
    assert 'id="cutaway-warning"' in (tmp_path / "out" / "debrief.html").read_text()
    m = evaluate_report(report, _shifted_truth(at, away))
    assert m["throw_in_frame_error"] <= 3 and report["events"] == []
    # Positions after the cutaway are read through the view found again: the calibrated one (a
    # still camera). The 95th percentile (2.0 yd; the clip re-encoded without the cutaway 1.5,
    # as shipped 1.35) is the hidden back ranks' depth, which the sample tests hold.
    assert m["position_error_median_yd"] <= 0.5, m
    total = len(main_cam) + away
    assert len([fr for fr in report["frames"] if fr["index"] >= c["found_frame"]]) == total - c["found_frame"]
    shown = {i: f for i, _t, f in open_video(tmp_path / "out" / "annotated.mp4") if i in (at + 10, c["found_frame"] + 5)}
    cutaway_frame = shown[at + 10].astype(int) - other[10].astype(int)
    assert np.abs(cutaway_frame[100:, :]).mean() < 4          # the other shot as it is below the banner: no boxes
    assert np.abs(cutaway_frame[:60, :]).mean() > 4           # ... the banner at the top


def test_stop_at_cut_ends_the_analysis_at_a_cutaway_as_before(tmp_path):
    """--stop-at-cut (across_cuts False): the analysis ends at the cutaway and says so; by
    default it goes on after it. (No detector: the cut and the camera are what is judged. The
    footage after the cutaway is the same again, a replay: judged as live here, replays=False.)"""
    from vision.pipeline import AnalyzeOptions, analyze
    n = len(_truth("clean_lineup")["frames"])
    _cutaway(tmp_path / "clip.mp4", away=30)
    cal = str(SAMPLES / "clean_lineup" / "calibration.json")
    for across in (False, True):
        opts = AnalyzeOptions(defending={"red": "south", "blue": "north"}, calibration=cal, annotate=False,
                              across_cuts=across, replays=False, window=Window(0.0, (n + 60) / 25))
        report = analyze(tmp_path / "clip.mp4", opts, detector=_Nothing()).report
        if across:
            assert report["camera_cut"] is None and report["cutaways"][0]["cut_frame"] == n
            assert report["frames"][-1]["index"] == n + 59
        else:
            assert report["camera_cut"]["frame"] == n and report["cutaways"] == []
            assert report["frames"][-1]["index"] == n - 1


class _OneAtATime(_Nothing):
    """A detector that cannot be called from two threads at once (as an OpenVINO infer request):
    counts the calls that overlapped."""

    def __init__(self):
        import threading
        self.lock, self.busy, self.overlaps, self.calls = threading.Lock(), 0, 0, 0

    def __call__(self, frame, index):
        import time
        with self.lock:
            self.busy += 1
            self.calls += 1
            self.overlaps += self.busy > 1
        time.sleep(0.004)
        with self.lock:
            self.busy -= 1
        return super().__call__(frame, index)


def test_after_a_cutaway_the_detector_is_never_called_from_two_threads_at_once(tmp_path):
    """Back from a cutaway, the frames queued undetected are detected by the main loop while the
    read-ahead thread goes on detecting the next ones: they take turns (CI once failed with
    OpenVINO's "Infer Request is busy" there)."""
    from vision.pipeline import AnalyzeOptions, analyze
    n = len(_truth("clean_lineup")["frames"])
    _cutaway(tmp_path / "clip.mp4", away=30)
    detector = _OneAtATime()
    opts = AnalyzeOptions(defending={"red": "south", "blue": "north"}, calibration=str(SAMPLES / "clean_lineup" /
                          "calibration.json"), annotate=False, replays=False, window=Window(0.0, (n + 60) / 25))
    report = analyze(tmp_path / "clip.mp4", opts, detector=detector).report
    assert report["cutaways"] and report["cutaways"][0]["cut_frame"] == n
    assert detector.calls >= n and detector.overlaps == 0


def test_a_window_that_starts_on_a_cut_skips_the_other_shot(tmp_path):
    """`--start` on the first frame of a cutaway: the lead-in follows the calibrated camera to the
    frame before, so the window's first frame is seen as a cut against it and the calibrated
    camera is looked for among the views the lead-in followed; the other shot is not judged (it
    was read through the calibrated camera's homography before: a recording's cutaway gave five
    false WRONG_SIDE events that way)."""
    from vision.pipeline import AnalyzeOptions, analyze
    n, away = len(_truth("clean_lineup")["frames"]), 30
    _cutaway(tmp_path / "clip.mp4", away=away)
    opts = AnalyzeOptions(defending={"red": "south", "blue": "north"}, calibration=str(SAMPLES / "clean_lineup" /
                          "calibration.json"), annotate=False, replays=False, window=Window(n / 25, (n + away + 40) / 25))
    report = analyze(tmp_path / "clip.mp4", opts, detector=_Nothing()).report
    assert report["camera_lead_in"] is not None and report["camera_cut"] is None
    (c,) = report["cutaways"]
    assert c["cut_frame"] == n and n + away <= c["found_frame"] <= n + away + 5, c
    assert report["frames"][0]["index"] == c["found_frame"]


def test_a_fixed_cameras_window_that_starts_on_a_cut_is_not_read_as_that_camera(tmp_path):
    """`--static-camera` (no lead-in) and `--start` on a cutaway's first frame: the frame before
    the window is decoded so that the first one is seen as a cut; a fixed camera's analysis ends
    at a cut, so nothing is left to judge: a one-line error (before, the other shot was judged
    through the calibration)."""
    from dataclasses import replace

    from vision.errors import SettingsError
    from vision.pipeline import AnalyzeOptions, analyze
    n, away = len(_truth("clean_lineup")["frames"]), 30
    _cutaway(tmp_path / "clip.mp4", away=away)
    opts = AnalyzeOptions(defending={"red": "south", "blue": "north"}, calibration=str(SAMPLES / "clean_lineup" /
                          "calibration.json"), annotate=False, replays=False, moving_camera=False,
                          window=Window(n / 25, (n + away + 40) / 25))
    with pytest.raises(SettingsError, match=f"starts on a camera cut at frame {n} "):
        analyze(tmp_path / "clip.mp4", opts, detector=_Nothing())
    # From a frame before the cut: judged up to the cut, which ends it.
    report = analyze(tmp_path / "clip.mp4", replace(opts, window=Window((n - 20) / 25, (n + away) / 25)),
                     detector=_Nothing()).report
    assert report["camera_cut"]["frame"] == n and report["frames"][-1]["index"] == n - 1
