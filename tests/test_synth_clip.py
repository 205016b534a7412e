"""A whole (tiny) clip: MP4, truth.json against its schema, calibration.json, expected verdicts."""
import json

import imageio_ffmpeg
import numpy as np
import pytest

from cli.main import main
from synth.clip import render_clip
from synth.examples import lineup_doc
from synth.scenario import parse_scenario
from synth.truth import validate_truth


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    out = tmp_path_factory.mktemp("clip")
    res = render_clip(parse_scenario(lineup_doc((320, 180), frames=5, seed=3, throw_in_frame=3)), out)
    return out, res


def test_writes_three_files_and_no_temporaries(clip):
    out, _ = clip
    assert sorted(p.name for p in out.iterdir()) == ["calibration.json", "clip.mp4", "truth.json"]


def test_mp4_is_h264_yuv420p_with_every_frame(clip):
    out, _ = clip
    reader = imageio_ffmpeg.read_frames(str(out / "clip.mp4"))
    meta = next(reader)
    frames = list(reader)
    assert meta["size"] == (320, 180) and len(frames) == 5
    assert meta["codec"].startswith("h264")
    data = (out / "clip.mp4").read_bytes()
    assert 0 <= data.find(b"moov") < data.find(b"mdat")           # +faststart: playable while loading


def test_truth_validates_and_matches_the_scenario(clip):
    out, _ = clip
    truth = json.loads((out / "truth.json").read_text())
    validate_truth(truth)
    assert truth["n_frames"] == 5 and truth["throw_in_frame"] == 3
    assert [f["phase"] for f in truth["frames"]] == ["lineup"] * 3 + ["throw_in", "play"]
    ids = {o["id"] for o in truth["frames"][0]["objects"]}
    assert ids == {"U1", "ball"} | {f"{t}-{n}" for t in ("red", "blue") for n in range(1, 5)}
    assert len(truth["expected"]["frames"]) == 5
    assert all(not f["violations"] for f in truth["expected"]["frames"])      # a clean line-up


def test_schema_rejects_a_broken_truth(clip):
    import jsonschema
    out, _ = clip
    truth = json.loads((out / "truth.json").read_text())
    truth["frames"][0]["objects"][0]["boxes"]["saddle"] = [0, 0, 1, 1]
    with pytest.raises(jsonschema.ValidationError):
        validate_truth(truth)


def test_calibration_points_agree_with_the_true_homography(clip):
    out, _ = clip
    cal = json.loads((out / "calibration.json").read_text())
    truth = json.loads((out / "truth.json").read_text())
    H = np.array(truth["frames"][0]["H_field_to_image"])
    assert cal["image_size"] == [320, 180] and cal["frame"] == 0 and len(cal["points"]) >= 4
    for p in cal["points"]:
        q = H @ [p["yd"][0], p["yd"][1], 1.0]
        assert q[:2] / q[2] == pytest.approx(p["px"], abs=0.02)
        assert 0 <= p["px"][0] <= 320 and 0 <= p["px"][1] <= 180


def test_expected_verdicts_come_from_the_rules_engine(tmp_path):
    d = lineup_doc((160, 90), frames=3, seed=1, throw_in_frame=2)
    red1 = next(o for o in d["objects"] if o["id"] == "red-1")
    red1["track"][0]["x"] = 151.5            # across the centre line: wrong side
    res = render_clip(parse_scenario(d), tmp_path)
    codes = {v["code"] for f in res.truth["expected"]["frames"] for v in f["violations"]}
    assert "WRONG_SIDE" in codes


def test_render_command_end_to_end(tmp_path, capsys):
    (tmp_path / "s.json").write_text(json.dumps(lineup_doc((320, 180), frames=3, throw_in_frame=None)))
    rc = main(["render", str(tmp_path / "s.json"), "--out", str(tmp_path / "o"), "--size", "160x90", "--quiet"])
    assert rc == 0
    truth = json.loads((tmp_path / "o" / "truth.json").read_text())
    assert truth["image_size"] == [160, 90] and truth["n_frames"] == 3
    assert "wrote" in capsys.readouterr().out
