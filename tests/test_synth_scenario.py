"""Scenario files: parsing, defaults, interpolation, and one-line errors."""
import copy
import json

import pytest

from cli.main import main
from synth.examples import lineup_doc
from synth.motion import sample_motion
from synth.scenario import ScenarioError, load_scenario, parse_scenario


def test_example_parses_with_phases_and_ids():
    s = parse_scenario(lineup_doc(frames=5, throw_in_frame=3))
    assert s.n_frames == 5
    assert [s.phase(i) for i in range(5)] == ["lineup", "lineup", "lineup", "throw_in", "play"]
    assert s.defending == {"red": "south", "blue": "north"}
    players = [o for o in s.objects if o.role == "player"]
    assert len(players) == 8 and {o.team for o in players} == {"red", "blue"}
    assert {o.number for o in players} == {1, 2, 3, 4}


@pytest.mark.parametrize("mutate, where", [
    (lambda d: d.pop("defending"), "defending"),
    (lambda d: d["objects"][1].update(id="green-1"), "objects[1].id"),
    (lambda d: d["objects"][1].update(id="red-7"), "objects[1].id"),
    (lambda d: d["objects"][1]["track"].append({"t": -1, "x": 1, "y": 1}), "objects[1].track[1].t"),
    (lambda d: d["objects"][2]["track"][0].update(x="far"), "objects[2].track[0].x"),
    (lambda d: d["camera"].pop("focal_px"), "camera"),
    (lambda d: d.update(image_size=[321, 180]), "image_size"),
    (lambda d: d.update(colour="red"), "unknown key"),
    (lambda d: d["teams"]["red"].update(jersey="mauve"), "teams.red.jersey"),
    (lambda d: d.update(plays=[{"t": 0.1, "player": "U1"}]), "plays[0].player"),
    (lambda d: d["objects"].append(copy.deepcopy(d["objects"][1])), "duplicate"),
])
def test_bad_scenarios_name_the_field_at_fault(mutate, where):
    d = lineup_doc()
    mutate(d)
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d)
    assert where in str(err.value)
    assert "\n" not in str(err.value)


def test_yaml_and_json_files_load(tmp_path):
    import yaml
    d = lineup_doc()
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(d))
    (tmp_path / "b.json").write_text(json.dumps(d))
    assert load_scenario(tmp_path / "a.yaml").n_frames == load_scenario(tmp_path / "b.json").n_frames == 5
    (tmp_path / "c.json").write_text("{ not json")
    with pytest.raises(ScenarioError, match="not valid JSON"):
        load_scenario(tmp_path / "c.json")


def test_cli_reports_a_bad_scenario_in_one_line(tmp_path, capsys):
    d = lineup_doc()
    d["objects"][1]["track"][0]["y"] = "x"
    (tmp_path / "bad.json").write_text(json.dumps(d))
    rc = main(["render", str(tmp_path / "bad.json"), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert err.count("\n") == 0 and "objects[1].track[0].y" in err and "Traceback" not in err
    assert not (tmp_path / "out" / "clip.mp4").exists()


def test_camera_keyframes_pan_and_zoom():
    d = lineup_doc(frames=50)
    d["camera"]["keyframes"] = [{"t": 1.0, "look_at": [150, 66], "focal_px": 650},
                                {"t": 2.0, "look_at": [170, 66], "focal_px": 325}]
    s = parse_scenario(d)
    a, b, mid = s.camera.pose(0.5), s.camera.pose(2.0), s.camera.pose(1.5)
    assert a.focal_px == pytest.approx(650) and b.focal_px == pytest.approx(325)
    assert a.pan_deg > mid.pan_deg > b.pan_deg          # turning towards north (pan 0) from east (pan 90)
    assert 325 < mid.focal_px < 650


def test_track_sampling_positions_heading_and_gait():
    d = lineup_doc(frames=50)
    d["objects"][1]["track"] = [{"t": 0, "x": 140, "y": 60}, {"t": 1, "x": 150, "y": 60}]
    s = parse_scenario(d)
    m = sample_motion(s.objects[1], s.times())
    assert m.pos[12, 0] == pytest.approx(144.8)              # linear between keyframes
    assert m.pos[40, 0] == pytest.approx(150.0)              # holds after the last one
    assert m.speed[12] == pytest.approx(10.0)
    assert abs(m.heading[12]) < 1.0                          # heading north while riding north
    assert m.gait[30] > m.gait[5] > 0


def test_documented_example_is_a_valid_scenario():
    import re
    from pathlib import Path

    import yaml
    text = (Path(__file__).resolve().parents[1] / "synth" / "SCENARIO.md").read_text()
    doc = yaml.safe_load(re.search(r"```yaml\n(.*?)```", text, re.S).group(1))
    s = parse_scenario(doc)
    assert s.n_frames == 50 and s.throw_in_frame == 25 and len(s.objects) == 4
