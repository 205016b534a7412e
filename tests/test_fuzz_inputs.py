"""Fuzzing the JSON inputs other than positions (those are fuzzed in test_check_positions_cli):
calibration files and scenario documents. Whatever the content, the loaders either accept it
or raise their own one-line error (CalibrationError, ScenarioError), never anything else;
an accepted calibration always gives a finite homography, and the CLI answers exit 2 with
one line on stderr and writes nothing."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from cli.main import main
from synth.scenario import ScenarioError, parse_scenario
from vision.errors import CalibrationError
from vision.homography import calibrate

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
CAL = json.loads((SAMPLES / "clean_lineup" / "calibration.json").read_text())
SCENARIO = json.loads((SAMPLES / "clean_lineup" / "scenario.json").read_text())

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 6, 10 ** 6),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8))
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                           st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                           max_leaves=12)


def _paths(doc, prefix=()):
    """Every (path to a value) in a JSON tree."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, prefix + (i,))


def _mutate(doc, data) -> dict:
    """Replace, drop or duplicate a few values anywhere in a copy of `doc`."""
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        action = data.draw(st.sampled_from(["replace", "drop", "number"]))
        if action == "drop":
            parent.pop(path[-1]) if isinstance(parent, dict) else parent.pop(path[-1])
        elif action == "number":
            parent[path[-1]] = data.draw(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10 ** 9, 10 ** 9))
        else:
            parent[path[-1]] = data.draw(json_values)
    return doc


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_calibrations_fit_or_fail_with_calibration_error(data):
    doc = _mutate(CAL, data)
    try:
        fit = calibrate(doc)
    except CalibrationError as exc:
        assert "\n" not in str(exc) and str(exc)
        return
    assert np.all(np.isfinite(fit.H)) and np.all(np.isfinite(fit.H_inv))


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_any_json_as_calibration_fails_cleanly(doc):
    try:
        calibrate(doc) if isinstance(doc, dict) else calibrate({"points": doc})
    except CalibrationError:
        pass


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-2000, 4000), st.floats(-2000, 4000), st.floats(-50, 350),
                          st.floats(-40, 200)), min_size=0, max_size=7))
def test_random_point_sets_fit_or_fail_with_calibration_error(points):
    doc = {"image_size": [1280, 720], "points": [{"px": [u, v], "yd": [x, y]} for u, v, x, y in points]}
    try:
        fit = calibrate(doc)
    except CalibrationError:
        return
    assert len(points) >= 4 and np.all(np.isfinite(fit.H))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_scenarios_parse_or_fail_with_scenario_error(data):
    doc = _mutate(SCENARIO, data)
    try:
        parse_scenario(doc)
    except ScenarioError as exc:
        assert "\n" not in str(exc) and str(exc)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_cli_answers_a_fuzzed_calibration_with_exit_2_and_writes_nothing(tmp_path, capsys, data):
    doc = _mutate(CAL, data)
    try:
        calibrate(doc)
        return                                   # still valid: not this test's business
    except CalibrationError:
        pass
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps(doc))
    out = tmp_path / "out"
    rc = main(["analyze", str(SAMPLES / "clean_lineup" / "clip.mp4"), "--calibration", str(cal),
               "--defending", "red=south,blue=north", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and err.strip() and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_found_by_the_fuzzer_a_list_as_play_player_or_thrower():
    """Hypothesis found it in CI: `"player": []` in a play raised TypeError (unhashable list)."""
    import pytest
    for mutate in (lambda d: d["plays"][0].update(player=[]), lambda d: d.update(thrower={"a": 1})):
        doc = copy.deepcopy(SCENARIO)
        mutate(doc)
        with pytest.raises(ScenarioError):
            parse_scenario(doc)


SIDECAR = {"defending": {"red": "south", "blue": "north"}, "calibration": "calibration.json",
           "team_colours": {"red": "#c82828", "blue": [25, 80, 190]}, "hidden_horses": True,
           "throw_ins": [{"start": "0:01", "end": 4.5, "throw_in_frame": 40},
                         {"start": 2.5, "end": "0:00:06", "defending": {"red": "north", "blue": "south"}}]}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_mutated_sidecars_load_or_fail_with_sidecar_error(tmp_path, data):
    """A sidecar with its windows and throw-ins mutated (times as text, numbers, NaN, lists...)
    loads, and then every throw-in gives a window, or fails with SidecarError: never another
    exception."""
    from vision.sidecar import SidecarError, load_sidecar, windows
    doc = _mutate(SIDECAR, data)
    if data.draw(st.booleans()):                     # top-level start / end instead of throw_ins
        doc.pop("throw_ins", None)
        doc.update({k: data.draw(json_values | st.sampled_from(["1:30", "0:00:02.5", "61", "1:60"]))
                    for k in data.draw(st.sets(st.sampled_from(["start", "end"])))})
    video = tmp_path / "clip.mp4"
    (tmp_path / "clip.polo.json").write_text(json.dumps(doc))
    try:
        side = load_sidecar(video)
    except SidecarError:
        return
    for w in windows(side):
        assert 0 <= w.start_s and (w.end_s is None or w.end_s > w.start_s)
