"""bench/compare_samples.py: totals of two bench_samples runs and the clips whose verdicts moved."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import compare_samples  # noqa: E402


def score(p=1.0, r=1.0, med=0.3, p95=1.0, throw=63, truth=62, switches=5, placed=0.9):
    return {"event_precision": p, "event_recall": r, "position_error_median_yd": med,
            "position_error_p95_yd": p95, "throw_in_frame": throw, "truth_throw_in_frame": truth,
            "throw_in_frame_error": None if throw is None or truth is None else abs(throw - truth),
            "id_switches": switches, "position_coverage": placed, "shirt_numbers": 2, "shirt_numbers_right": 1}


BASE = {"clean_lineup": score(), "own_goal_blue1": score(throw=31, truth=30), "jostling_at_centre":
        score(p=0.6, r=0.25, throw=None, truth=None), "reversed_lineup": score(p95=1.2)}
NEW = {"clean_lineup": score(p95=1.05), "own_goal_blue1": score(throw=38, truth=30), "jostling_at_centre":
       score(p=0.6, r=0.25, throw=None, truth=None), "reversed_lineup": score(p95=1.6, switches=9)}


def test_totals_count_the_clips_meeting_every_target():
    a, b = compare_samples.totals([BASE]), compare_samples.totals([NEW])
    assert (a["clips"], a["meets"], b["meets"]) == (4, 3, 1)  # own_goal late throw-in, reversed p95 > 1.5
    assert (a["p95_over_1_5"], b["p95_over_1_5"]) == (0, 1)
    assert (a["id_switches"], b["id_switches"]) == (20, 24)
    assert abs(b["p95_mean_yd"] - (1.05 + 1.0 + 1.0 + 1.6) / 4) < 1e-9


def test_only_clips_whose_verdicts_moved_are_listed():
    rows = compare_samples.moved(BASE, NEW, "samples")
    assert [r["clip"] for r in rows] == ["own_goal_blue1", "reversed_lineup"]  # clean_lineup's p95 moved 0.05
    own = rows[0]
    assert own["meets"] == (True, False) and own["throw_in"] == (31, 38) and own["truth_throw_in"] == 30
    assert [r["clip"] for r in compare_samples.moved(BASE, NEW, "samples", p95_step=0.01)][0] == "clean_lineup"


def test_the_command_prints_both_runs_and_refuses_unpaired_files(tmp_path, capsys):
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_text(json.dumps(BASE))
    new.write_text(json.dumps({k: v for k, v in NEW.items() if k != "jostling_at_centre"}))
    assert compare_samples.main(["--base", str(base), "--new", str(new), "--labels", "samples"]) == 0
    out = capsys.readouterr().out
    assert "| meets | 3 | 1 |" in out and "| samples | own_goal_blue1 | yes → no |" in out
    assert "| samples | jostling_at_centre | only in the base run |" in out
    with pytest.raises(SystemExit) as unpaired:
        compare_samples.main(["--base", str(base), str(base), "--new", str(new)])
    assert unpaired.value.code == 2
    (tmp_path / "bad.json").write_text("{")
    assert compare_samples.main(["--base", str(tmp_path / "bad.json"), "--new", str(new)]) == 2
    assert "compare_samples:" in capsys.readouterr().err
