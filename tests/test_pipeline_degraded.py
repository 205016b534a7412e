"""Documented degraded result (docs/robustness.md): a clip where nobody is detected still
gives complete, honest outputs (vision.roster's limits are tested in test_vision_roster)."""
from __future__ import annotations

import json
from pathlib import Path

from vision.analyze_job import analyze_to_folder
from vision.detections import Detections
from vision.pipeline import AnalyzeOptions
from vision.sidecar import load_sidecar

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"


class _Nothing:
    wants_index = True
    map = {0: 0, 1: 1, 2: 2, 3: 3}

    def __call__(self, frame, index):
        return Detections()


def _opts(name: str) -> AnalyzeOptions:
    side = load_sidecar(SAMPLES / name / "clip.mp4")
    return AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"], annotate=False, stride=2)


def test_nobody_detected_gives_an_empty_complete_report(tmp_path):
    report, written = analyze_to_folder(SAMPLES / "clean_lineup" / "clip.mp4", tmp_path, _opts("clean_lineup"),
                                        detector=_Nothing())
    assert sorted(p.name for p in written) == ["debrief.html", "report.csv", "report.json"]
    assert report["throw_in"] == {"frame": None, "t": None, "method": "none"}
    assert report["events"] == [] and report["tracks"] == []
    assert all(f["players"] == [] and f["violations"] == [] for f in report["frames"])
    assert json.loads((tmp_path / "report.json").read_text())["frames_analysed"] == report["frames_analysed"]
