"""The sample scenarios act out Rule 20's worked examples; sample_videos/ holds them rendered."""
import json
from pathlib import Path

import pytest

from synth.clip import expected_for
from synth.samples import SAMPLES, summarise_expected
from synth.scenario import parse_scenario

ROOT = Path(__file__).resolve().parents[1] / "sample_videos"

# the finding each example is about (the rules engine decides; these are the ones that must appear)
EXPECTED = {
    "clean_lineup": set(), "clean_lineup_pan": set(), "clean_two_umpires": set(),
    "jostling_at_centre": {"CONTACT_BEFORE_THROW_IN"},
    "advancing_on_umpire": {"FIVE_YARD"},
    "slow_returner_red2": {"SLOW_TO_LINEUP"},
    "horse_change_blue3": {"HORSE_CHANGE_NO_EXTRA_TIME"},
    "slow_returner_blue1_delayed_foul": {"IMPROPER_POSITIONING"},
    "wrong_side_plays_early": {"ILLEGAL_PLAY_FROM_WRONG_SIDE"},
    "reversed_lineup": {"REVERSED_LINEUP"},
    "throw_in_near_boards": {"THROW_IN_NEAR_BOARDS"},
    "own_goal_blue1": {"HORSE_CHANGE_NO_EXTRA_TIME", "IMPROPER_POSITIONING"},
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_sample_scenario_gets_the_verdict_of_its_example(name):
    s = parse_scenario(SAMPLES[name]())
    assert 4.0 <= s.duration_s <= 10.0 and s.image_size == (1280, 720) and s.fps == 25
    verdict = expected_for(s)
    codes = {v["code"] for f in verdict["frames"] for v in f["violations"]}
    codes |= {n["code"] for f in verdict["frames"] for n in f.get("notes", [])}
    if EXPECTED[name]:
        assert EXPECTED[name] <= codes, (name, codes)
    else:
        assert not any(f["violations"] for f in verdict["frames"]), (name, codes)


def test_panning_sample_pans():
    s = parse_scenario(SAMPLES["clean_lineup_pan"]())
    assert abs(s.camera.pose(0).pan_deg - s.camera.pose(s.duration_s).pan_deg) > 10


@pytest.mark.skipif(not (ROOT / "README.md").exists(), reason="sample_videos/ not rendered")
def test_rendered_samples_are_complete_small_and_listed():
    total = sum(p.stat().st_size for p in ROOT.rglob("*") if p.is_file())
    assert total < 30e6
    readme = (ROOT / "README.md").read_text()
    for name in SAMPLES:
        d = ROOT / name
        assert {p.name for p in d.iterdir()} >= {"scenario.json", "clip.mp4", "truth.json", "calibration.json"}
        assert f"[{name}]" in readme
        truth = json.loads((d / "truth.json").read_text())
        assert truth["image_size"] == [1280, 720]
        assert summarise_expected(truth)[0] in readme          # the table is generated from the truth
        side = json.loads((d / "clip.polo.json").read_text())
        assert side["defending"] == truth["defending"], name    # analyze is told what the scene was
