"""`polo-lineup calibrate`: --point specs (non-interactive) and the local calibration page."""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from cli.commands.calibrate import parse_point_spec
from cli.errors import UserError
from cli.main import main
from vision.calibration_ui import CalibrationPage, grab_frame
from vision.errors import VideoError
from vision.homography import calibrate, field_landmarks, image_to_field, landmark_yd

SAMPLE = Path(__file__).resolve().parents[1] / "sample_videos" / "clean_lineup"
VIDEO = SAMPLE / "clip.mp4"
TRUE_POINTS = json.loads((SAMPLE / "calibration.json").read_text())["points"]


def _spec(p: dict) -> str:
    """NAME=U,V when the sample's name is a landmark at its yards, else X,Y=U,V."""
    (u, v), (x, y) = p["px"], p["yd"]
    known = landmark_yd(p["name"]) if p.get("name") else None
    if known is not None and np.allclose(known, (x, y)):
        return f"{p['name']}={u},{v}"
    return f"{x},{y}={u},{v}"


SPECS = [_spec(p) for p in TRUE_POINTS]


def _calibrate(capsys, out: Path, *args) -> tuple[int, str, str]:
    rc = main(["calibrate", *map(str, args), "--out", str(out)])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _point_args(specs) -> list[str]:
    return [a for s in specs for a in ("--point", s)]


# ------------------------------------------------------------------------------------
# Non-interactive
# ------------------------------------------------------------------------------------
def test_point_specs_write_a_calibration_that_loads(tmp_path, capsys):
    assert any("=" in s and "," not in s.split("=")[0] for s in SPECS)   # a landmark name used
    out = tmp_path / "cal" / "calibration.json"
    rc, stdout, err = _calibrate(capsys, out, VIDEO, *_point_args(SPECS))
    assert rc == 0, err
    assert "reprojection RMS" in stdout and "px" in stdout and "yd" in stdout
    fit = calibrate(out)
    px = np.array([p["px"] for p in TRUE_POINTS])
    yd = np.array([p["yd"] for p in TRUE_POINTS])
    assert np.abs(image_to_field(fit.H, px) - yd).max() < 0.05
    doc = json.loads(out.read_text())
    assert doc["image_size"] == [1280, 720] and doc["frame"] == 0
    assert len(doc["points"]) == len(TRUE_POINTS)
    assert [p.name for p in out.parent.iterdir()] == ["calibration.json"]   # no temp files


def test_frame_index_is_recorded(tmp_path, capsys):
    out = tmp_path / "cal.json"
    rc, _, err = _calibrate(capsys, out, VIDEO, "--frame", "3", *_point_args(SPECS))
    assert rc == 0, err
    assert json.loads(out.read_text())["frame"] == 3 and calibrate(out).calibration.frame == 3


def test_landmarks_follow_the_field_size(tmp_path, capsys):
    from vision.homography import field_to_image, look_at_homography
    G = look_at_homography((137.5, -60, 25), (137.5, 60), 900, (1280, 720))
    names = ["centre_spot", "centre_line_x_west_sideline", "south_60_x_west_sideline",
             "north_60_x_west_sideline", "south_60_centre", "north_60_centre"]
    marks = field_landmarks(275, 150)
    specs = [f"{n}={u},{v}" for n in names for u, v in [field_to_image(G, marks[n])]]
    out = tmp_path / "cal.json"
    rc, _, err = _calibrate(capsys, out, VIDEO, "--field", "275x150", *_point_args(specs))
    assert rc == 0, err
    fit = calibrate(out)
    assert (fit.calibration.length_yd, fit.calibration.width_yd) == (275, 150)
    assert fit.rms_yd < 0.01 and np.allclose(fit.calibration.yd[0], (137.5, 75))


COLLINEAR = [f"150,{y}={100 + 10 * y},{200 + 3 * y}" for y in (10, 40, 70, 100, 130)]


@pytest.mark.parametrize("args, needle", [
    (_point_args(COLLINEAR), "collinear"),
    (_point_args(SPECS[-3:]), "at least 4"),
    (_point_args(["no_such_mark=100,100"] + SPECS[-4:]), "unknown landmark"),
    (_point_args(["150,80"] + SPECS[-4:]), "NAME=U,V"),
    (_point_args(["150,80=12,x"] + SPECS[-4:]), "two numbers"),
    (_point_args(["1,2,3=12,40"] + SPECS[-4:]), "two numbers"),
    (_point_args(["900,80=640,300"] + SPECS[-4:]), "outside the field"),
    (["--frame", "150", *_point_args(SPECS)], "past the end"),
    (["--frame", "-1", *_point_args(SPECS)], "--frame"),
    (["--field", "big", *_point_args(SPECS)], "--field"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, args, needle):
    out = tmp_path / "cal.json"
    rc, _, err = _calibrate(capsys, out, VIDEO, *args)
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert needle.lower() in err.lower(), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [None, b"", b"not a video\n" * 40])
def test_missing_or_corrupt_video(tmp_path, capsys, content):
    video = tmp_path / "clip.mp4"
    if content is not None:
        video.write_bytes(content)
    out = tmp_path / "cal.json"
    rc, _, err = _calibrate(capsys, out, video, *_point_args(SPECS))
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert str(video) in err and not out.exists()


def test_point_spec_forms():
    assert parse_point_spec("centre_spot=780.5,292") == ("centre_spot", (780.5, 292.0), None)
    assert parse_point_spec(" -5, 80 = 10,20 ") == (None, (10.0, 20.0), (-5.0, 80.0))
    for bad in ("centre_spot", "=1,2", "a=1", "a=1,2,3", "1,2=nan,3"):
        with pytest.raises(UserError):
            parse_point_spec(bad)


def test_grab_frame():
    frame = grab_frame(VIDEO, 2)
    assert frame.shape == (720, 1280, 3) and frame.dtype == np.uint8
    with pytest.raises(VideoError, match="past the end"):
        grab_frame(VIDEO, 10_000)
    with pytest.raises(ValueError):
        grab_frame(VIDEO, -1)


# ------------------------------------------------------------------------------------
# The page
# ------------------------------------------------------------------------------------
def _post(url: str, body) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _page_points(points: list[dict]) -> list[dict]:
    """The page's JSON: {px, name} for landmarks, {px, yd} otherwise."""
    out = []
    for p in points:
        known = landmark_yd(p["name"]) if p.get("name") else None
        if known is not None and np.allclose(known, p["yd"]):
            out.append({"px": p["px"], "name": p["name"]})
        else:
            out.append({"px": p["px"], "yd": p["yd"]})
    return out


def test_page_check_and_save(tmp_path):
    out = tmp_path / "cal.json"
    page = CalibrationPage(grab_frame(VIDEO, 0), 0, out, port=0)
    result: dict = {}
    thread = threading.Thread(target=lambda: result.setdefault("path", page.serve_until_saved(20)))
    thread.start()
    try:
        base = page.url
        assert base.startswith("http://127.0.0.1:") and page.port > 0
        with urllib.request.urlopen(base, timeout=10) as resp:
            assert resp.status == 200
            text = resp.read().decode()
        assert "<canvas" in text or "<img" in text
        assert "data:image/jpeg;base64," in text
        assert all(name in text for name in field_landmarks())
        assert "http://" not in text.replace(base, "") and "https://" not in text   # offline

        status, ans = _post(base + "check", {"points": [{"px": [1, 2], "name": "centre_spot"}]})
        assert status == 200 and ans["ok"] is False and "4" in ans["error"]
        status, ans = _post(base + "check", {"points": [{"px": [100, 100], "name": "nowhere"}]})
        assert status == 200 and ans["ok"] is False and "unknown landmark" in ans["error"]
        status, ans = _post(base + "check", b"{not json")
        assert status == 400 and ans["ok"] is False
        status, ans = _post(base + "check", {"pts": []})
        assert status == 400 and ans["ok"] is False

        good = {"points": _page_points(TRUE_POINTS)}
        status, ans = _post(base + "check", good)
        assert status == 200 and ans["ok"] is True, ans
        assert ans["rms_px"] < 0.5 and ans["rms_yd"] < 0.05
        assert len(ans["points"]) == len(TRUE_POINTS)
        assert not out.exists()                       # /check never writes

        status, ans = _post(base + "save", {"points": [{"px": [1, 2], "yd": [3, 4]}]})
        assert status == 200 and ans["ok"] is False and not out.exists()
        status, ans = _post(base + "save", good)
        assert status == 200 and ans["ok"] is True and ans["path"] == str(out)
    finally:
        thread.join(timeout=20)
    assert not thread.is_alive()
    assert result["path"] == out
    fit = calibrate(out)
    px = np.array([p["px"] for p in TRUE_POINTS])
    assert np.abs(image_to_field(fit.H, px) - np.array([p["yd"] for p in TRUE_POINTS])).max() < 0.05
    assert [p.name for p in tmp_path.iterdir()] == ["cal.json"]
    with pytest.raises(urllib.error.URLError):            # the server has stopped
        urllib.request.urlopen(base, timeout=2)


def _when_serving(url: str, then) -> threading.Thread:
    """A thread that waits until `url` answers, then calls `then()`."""
    def go():
        for _ in range(100):
            try:
                urllib.request.urlopen(url, timeout=2).close()
                break
            except OSError:
                threading.Event().wait(0.05)
        then()
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


def test_cli_page_saves_and_exits_0(tmp_path, capsys, monkeypatch):
    out = tmp_path / "cal.json"
    helpers = []

    def fake_open(url):         # the "browser": saves the true points, then fails to open
        helpers.append(_when_serving(url, lambda: _post(url + "save", {"points": _page_points(TRUE_POINTS)})))
        raise RuntimeError("no display")

    monkeypatch.setattr("webbrowser.open", fake_open)
    rc, stdout, err = _calibrate(capsys, out, VIDEO, "--port", "0", "--frame", "0")
    helpers[0].join(timeout=10)
    assert rc == 0, err
    assert "http://127.0.0.1:" in stdout and f"wrote {out}" in stdout
    assert calibrate(out).rms_px < 0.5


def test_cli_page_ctrl_c_writes_nothing(tmp_path, capsys, monkeypatch):
    import _thread
    import signal
    # A shell starts background jobs with SIGINT ignored, and interrupt_main() then does
    # nothing (the test would wait forever): give it the terminal's default Ctrl-C handler.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        out = tmp_path / "cal.json"
        helpers = []
        monkeypatch.setattr("webbrowser.open",
                            lambda url: helpers.append(_when_serving(url, _thread.interrupt_main)))
        rc, stdout, err = _calibrate(capsys, out, VIDEO, "--port", "0")
        helpers[0].join(timeout=10)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert rc == 130 and "nothing written" in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


def test_port_in_use(tmp_path, capsys):
    page = CalibrationPage(grab_frame(VIDEO, 0), 0, tmp_path / "x.json", port=0)
    try:
        rc, _, err = _calibrate(capsys, tmp_path / "cal.json", VIDEO, "--port", page.port, "--no-browser")
    finally:
        page.close()
    assert rc == 2 and "--port" in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []
