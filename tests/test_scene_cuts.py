"""Camera cuts (vision.scene_cuts): the calibration describes one shot, so the analysis stops
at the first cut, says so, and judges only the first shot."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from reports.coverage import report_warnings
from reports.writers import console_summary
from vision.analyze_job import analyze_to_folder
from vision.detections import Detections
from vision.pipeline import AnalyzeOptions
from vision.scene_cuts import CutDetector
from vision.sidecar import load_sidecar
from vision.video_io import VideoWriter, open_video

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"


def _view(seed: int, horizon: int, size=(360, 1000)) -> np.ndarray:
    """A wide view: grass (soft noise, mowing stripes) below row `horizon`, a pale stand above."""
    rng = np.random.default_rng(seed)
    g = cv2.GaussianBlur(rng.normal(0, 1, size).astype(np.float32), (0, 0), 6)
    g = 110 + 12 * g / g.std() + np.where((np.arange(size[1]) // 60) % 2, 8, -8)[None, :]
    img = np.dstack([g * 0.45, g, g * 0.55])
    img[:horizon] = (200, 190, 180)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_a_cut_between_two_views_and_not_a_pan():
    a, b = _view(1, 40), _view(2, 150)                                           # another camera: higher
    det = CutDetector()
    jumps = [det.jumped(a[:, 8 * i:8 * i + 640]) for i in range(20)]            # a pan, 8 px a frame
    jumps += [det.jumped(b[:, 8 * i:8 * i + 640]) for i in range(10)]     # the cut, panning on
    assert [i for i, j in enumerate(jumps) if j] == [20]


class _Nothing:
    wants_index = True
    map = {0: 0, 1: 1, 2: 2, 3: 3}

    def __call__(self, frame, index):
        return Detections()


def _two_shots(path: Path, first: int, second: int) -> None:
    """`first` frames of throw_in_near_boards, then `second` of clean_lineup's (another camera)."""
    with VideoWriter(path, 25.0) as w:
        for clip, n, start in (("throw_in_near_boards", first, 0), ("clean_lineup", second, 60)):
            for i, _t, frame in open_video(SAMPLES / clip / "clip.mp4"):
                if i >= start + n:
                    break
                if i >= start:
                    w.write(frame)


def test_the_analysis_stops_at_a_camera_cut_and_says_so(tmp_path):
    side = load_sidecar(SAMPLES / "throw_in_near_boards" / "clip.mp4")
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"])
    _two_shots(tmp_path / "cut.mp4", 30, 15)
    report, _ = analyze_to_folder(tmp_path / "cut.mp4", tmp_path / "out", opts, detector=_Nothing())
    assert report["camera_cut"] == {"frame": 30, "t": 1.2}
    assert report["frames_analysed"] == 30 and report["frames"][-1]["index"] == 29
    assert "camera cut at frame 30" in report_warnings(report)[0]
    assert "warning: camera cut at frame 30" in console_summary(report)
    assert json.loads((tmp_path / "out" / "report.json").read_text())["camera_cut"]["frame"] == 30
    assert 'id="camera-cut-warning"' in (tmp_path / "out" / "debrief.html").read_text()
    cap = cv2.VideoCapture(str(tmp_path / "out" / "annotated.mp4"))
    assert cap.get(cv2.CAP_PROP_FRAME_COUNT) == 30          # nothing drawn on the other shot
    # one shot: no cut, every frame analysed
    report, _ = analyze_to_folder(SAMPLES / "throw_in_near_boards" / "clip.mp4", tmp_path / "one",
                                  AnalyzeOptions(**{**opts.__dict__, "annotate": False, "stride": 3}),
                                  detector=_Nothing(), debrief=False)
    assert report["camera_cut"] is None and report["frames_analysed"] == 50


def test_fades_are_not_cuts_but_a_dip_to_black_between_two_views_is():
    """A fade in from black and out to black within one view is no cut (the brightness is
    normalised, black frames skipped); a dip to black between two views is one, found on the
    first frame of the second view bright enough to compare with the last of the first."""
    a, b = _view(1, 40), _view(2, 150)
    ramp = [0.0, 0.1, 0.25, 0.45, 0.7, 1.0]
    det = CutDetector()
    frames = [a[:, 8 * i:8 * i + 640] * k for i, k in enumerate(ramp + [1.0] * 6 + ramp[::-1])]
    assert not any(det.jumped(f.astype(np.uint8)) for f in frames)
    det = CutDetector()
    dip = [a[:, :640] * k for k in ramp[::-1]] + [b[:, :640] * k for k in ramp]
    jumps = [det.jumped(f.astype(np.uint8)) for f in dip]
    assert sum(jumps) == 1 and 6 <= jumps.index(True) <= 9


def test_a_camera_cut_between_the_calibrated_frame_and_the_window_is_one_clear_error(tmp_path):
    """The camera is followed from the calibrated frame (0) to a window's start; a cut on the
    way means the calibration does not hold in the window: one line, nothing written."""
    import pytest

    from vision.analyze_job import AnalyzeError
    from vision.video_io import Window
    side = load_sidecar(SAMPLES / "throw_in_near_boards" / "clip.mp4")
    _two_shots(tmp_path / "cut.mp4", 30, 15)
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"], window=Window(1.4, None))
    with pytest.raises(AnalyzeError, match=r"camera cut at 1\.20 s \(frame 30\).*calibrate a frame") as err:
        analyze_to_folder(tmp_path / "cut.mp4", tmp_path / "out", opts, detector=_Nothing())
    assert "\n" not in str(err.value) and not (tmp_path / "out").exists()
    # the same window in a clip of one shot: followed, analysed
    opts = AnalyzeOptions(**{**opts.__dict__, "annotate": False})
    report, _ = analyze_to_folder(SAMPLES / "throw_in_near_boards" / "clip.mp4", tmp_path / "one", opts,
                                  detector=_Nothing(), debrief=False)
    assert report["camera_lead_in"]["from_frame"] == 0 and report["camera_lead_in"]["to_frame"] == 34


def test_the_throw_in_scan_stops_at_a_camera_cut_and_says_where(tmp_path):
    """find-throw-ins' scan: the calibration holds for one shot, so the scan ends at the cut,
    and the windows it gives stay before it."""
    from vision.throw_in_finder import scan
    side = load_sidecar(SAMPLES / "throw_in_near_boards" / "clip.mp4")
    _two_shots(tmp_path / "cut.mp4", 30, 15)
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"])
    found = scan(tmp_path / "cut.mp4", opts, detector=_Nothing(), rate=25.0)
    assert found.camera_cut == {"frame": 30, "t": 1.2}
    assert found.duration_s == 1.2 and found.frames_looked == 30 and found.lineups == []
