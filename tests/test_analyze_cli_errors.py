"""`polo-lineup analyze` on bad input: one clear line, exit status 2, nothing half-written."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli.main import main

SAMPLE = Path(__file__).resolve().parents[1] / "sample_videos" / "clean_lineup"


def _analyze(capsys, *args) -> tuple[int, str]:
    rc = main(["analyze", *map(str, args), "--quiet"])
    return rc, capsys.readouterr().err


def _no_outputs(out: Path) -> bool:
    return not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("content, what", [(b"", "empty"), (b"this is not a video\n" * 50, "text"),
                                           (None, "missing")])
def test_bad_video_files(tmp_path, capsys, content, what):
    video = tmp_path / "clip.mp4"
    if content is not None:
        video.write_bytes(content)
    out = tmp_path / "out"
    rc, err = _analyze(capsys, video, "--out", out, "--defending", "red=south,blue=north",
                       "--calibration", SAMPLE / "calibration.json")
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert _no_outputs(out)


def test_truncated_video(tmp_path, capsys):
    data = (SAMPLE / "clip.mp4").read_bytes()
    video = tmp_path / "clip.mp4"
    video.write_bytes(data[: len(data) // 3])
    rc, err = _analyze(capsys, video, "--out", tmp_path / "out", "--defending", "red=south,blue=north",
                       "--calibration", SAMPLE / "calibration.json", "--model", tmp_path / "none.pt")
    assert rc == 2 and "Traceback" not in err
    assert _no_outputs(tmp_path / "out")


@pytest.mark.parametrize("points, needle", [
    ([{"px": [0, 0], "yd": [150, 0]}, {"px": [10, 0], "yd": [160, 0]}, {"px": [0, 10], "yd": [150, 10]}], "4"),
    ([{"px": [k * 10, 5], "yd": [140 + k * 5, 20]} for k in range(5)], "collinear"),
    ([{"px": [0, 0], "yd": [150, 0]}, {"px": [100, 0], "yd": [160, 0]}, {"px": [0, 100], "yd": [150, 10]},
      {"px": [100, 100], "yd": [900, 10]}], "outside"),
])
def test_bad_calibrations(tmp_path, capsys, points, needle):
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps({"image_size": [1280, 720], "points": points}))
    rc, err = _analyze(capsys, SAMPLE / "clip.mp4", "--out", tmp_path / "out", "--defending",
                       "red=south,blue=north", "--calibration", cal)
    assert rc == 2 and "Traceback" not in err
    assert needle in err.lower(), err
    assert _no_outputs(tmp_path / "out")


def test_bad_defending_and_missing_model(tmp_path, capsys):
    rc, err = _analyze(capsys, SAMPLE / "clip.mp4", "--out", tmp_path / "o", "--defending", "red=south,blue=south")
    assert rc == 2 and "defending" in err
    clip = tmp_path / "clip.mp4"
    shutil.copy(SAMPLE / "clip.mp4", clip)
    rc, err = _analyze(capsys, clip, "--out", tmp_path / "o", "--defending", "red=south,blue=north",
                       "--calibration", SAMPLE / "calibration.json", "--model", tmp_path / "missing.pt")
    assert rc == 2 and "model file not found" in err
    assert _no_outputs(tmp_path / "o")


@pytest.mark.parametrize("option, value, message", [
    ("--stride", "0", "--stride and --min-run must be at least 1"),
    ("--min-run", "0", "--stride and --min-run must be at least 1"),
    ("--margin-sigmas", "-1", "--margin-sigmas must be in [0, 10]"),
    ("--ball-model", "no/such/ball.pt", "model file not found: no/such/ball.pt"),
    ("--kind-model", "no/such/kind.pt", "rider/umpire classifier not found: no/such/kind.pt"),
    ("--refine-model", "no/such/refine.pt", "box refiner not found: no/such/refine.pt"),
    ("--start", "1:90", "--start/--end: not a time: '1:90'"),
    ("--start", "30", "the window starts at 30 s, after the video's end (6.00 s)")])
def test_bad_analysis_options(tmp_path, capsys, option, value, message):
    """Options out of range (a stride of 0 once divided by zero), a missing ball model, classifier or
    box refiner, a time that is not one or a window past the video's end."""
    out = tmp_path / "out"
    rc, err = _analyze(capsys, SAMPLE / "clip.mp4", "--out", out, option, value, "--no-video")
    assert rc == 2 and err.count("\n") == 1 and message in err, err
    assert _no_outputs(out)


@pytest.mark.parametrize("value", ["-5", "lots", "inf"])
def test_bad_frame_memory(tmp_path, capsys, value):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        _analyze(capsys, SAMPLE / "clip.mp4", "--out", out, "--frame-memory-mb", value)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "--frame-memory-mb" in err and "megabytes" in err, err
    assert _no_outputs(out)


def test_a_calibration_made_on_other_frames(tmp_path, capsys):
    """Made on a picture of another shape (a phone's rotated copy, a crop): its pixels would
    put every player elsewhere, so it is refused; made on the same picture at another size
    (a transcode), it is scaled (tests/test_vision_homography.py)."""
    doc = json.loads((SAMPLE / "calibration.json").read_text())
    doc["image_size"] = [720, 1280]
    for p in doc["points"]:
        p["px"] = [p["px"][1], p["px"][0]]                   # the same marks on a portrait frame
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps(doc))
    rc, err = _analyze(capsys, SAMPLE / "clip.mp4", "--out", tmp_path / "out", "--defending",
                       "red=south,blue=north", "--calibration", cal)
    assert rc == 2 and err.count("\n") == 1 and "720x1280" in err and "1280x720" in err, err
    assert _no_outputs(tmp_path / "out")
