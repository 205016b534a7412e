"""`polo-lineup check-positions`: exit statuses and one-line errors for invalid documents."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cli.main import main
from tests.lineups import doc, frame, lineup_players, move


def run_cli(tmp_path, text: str, capsys) -> tuple[int, str, str]:
    path = tmp_path / "positions.json"
    path.write_text(text)
    rc = main(["check-positions", str(path)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_clean_document_exits_0_with_verdicts(tmp_path, capsys):
    rc, out, err = run_cli(tmp_path, json.dumps(doc(frame())), capsys)
    assert rc == 0 and err == ""
    assert json.loads(out)["frames"][0]["violations"] == []


def test_violation_exits_1(tmp_path, capsys):
    players = move(lineup_players(), "red-1", y=62.0)
    rc, out, _ = run_cli(tmp_path, json.dumps(doc(frame("lineup", players))), capsys)
    assert rc == 1 and json.loads(out)["frames"][0]["violations"][0]["code"] == "FIVE_YARD"


def test_bare_single_frame_is_accepted(tmp_path, capsys):
    single = dict(frame(), defending={"red": "south", "blue": "north"})
    rc, out, _ = run_cli(tmp_path, json.dumps(single), capsys)
    assert rc == 0 and len(json.loads(out)["frames"]) == 1


def _bad(mutate):
    d = doc(frame(), frame("throw_in"))
    mutate(d)
    return json.dumps(d)


BAD = {
    "missing defending": (_bad(lambda d: d.pop("defending")), "defending"),
    "unknown team": (_bad(lambda d: d["frames"][0]["players"][0].update(team="green")), "frames[0].players[0].team"),
    "bad end": (_bad(lambda d: d["defending"].update(red="east")), "defending.red"),
    "same end": (_bad(lambda d: d["defending"].update(red="north")), "defending"),
    "x not a number": (_bad(lambda d: d["frames"][1]["players"][2].update(x="148")), "frames[1].players[2].x"),
    "missing y": (_bad(lambda d: d["frames"][0]["umpires"][0].pop("y")), "frames[0].umpires[0]"),
    "duplicate id": (_bad(lambda d: d["frames"][0]["players"][1].update(id="red-1")), "frames[0].players[1].id"),
    "outside run-out": (_bad(lambda d: d["frames"][1]["players"][3].update(y=200)), "frames[1].players[3]"),
    "frames not a list": (_bad(lambda d: d.update(frames={})), "frames"),
    "empty frames": (_bad(lambda d: d.update(frames=[])), "frames"),
    "bad phase": (_bad(lambda d: d["frames"][0].update(phase="halftime")), "frames[0].phase"),
    "play by unknown": (_bad(lambda d: d["frames"][1].update(play={"player": "red-9"})), "frames[1].play.player"),
    "team switch": (_bad(lambda d: d["frames"][1]["players"][0].update(team="blue")), "frames[1].players[0].team"),
    "not json": ("{\"frames\": [", "not valid JSON"),
    "NaN literal": (_bad(lambda d: None).replace("148.5", "NaN", 1), "NaN"),
    "Infinity literal": (_bad(lambda d: None).replace("151.5", "Infinity", 1), "Infinity"),
    "array at top": ("[1, 2]", "expected an object"),
    "negative field": (_bad(lambda d: d["field"].update(length_yd=-3)), "field.length_yd"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_invalid_document_exits_2_with_message_naming_the_field(tmp_path, capsys, name):
    text, where = BAD[name]
    rc, out, err = run_cli(tmp_path, text, capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert where in err


def test_unreadable_file_exits_2(tmp_path, capsys):
    assert main(["check-positions", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_stdin_and_real_exit_status_through_the_console_script():
    text = json.dumps(doc(frame("lineup", move(lineup_players(), "blue-2", x=149.0, y=95))))
    proc = subprocess.run([sys.executable, "-m", "cli.main", "check-positions", "-"], input=text,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["violations_by_code"] == {"WRONG_SIDE": 1}


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                           lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4),
                           max_leaves=20)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["field", "defending", "frames", "fps", "players", "umpires", "x"]),
                       json_values, max_size=4))
def test_fuzzed_documents_never_raise_a_traceback(tmp_path, capsys, junk):
    rc, out, err = run_cli(tmp_path, json.dumps(junk), capsys)
    assert rc in (0, 1, 2)
    assert "Traceback" not in err
    if rc == 2:
        assert out == "" and err.strip()
