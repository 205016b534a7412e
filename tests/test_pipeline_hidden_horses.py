"""`analyze --hidden-horses` (vision.players) on the panning sample, with the renderer's true
boxes (parts at least 25% in view): the camera looks along the line-up's ranks, so behind each
team's first horse the horses are hidden (1-9% in view) while their riders are not. Without
the option each team has a median of 1 of 4 players placed over the line-up; with it, every
rider of a hidden horse is placed from his own box, and the position errors stay within the
issue's bounds."""
import json
from pathlib import Path

from reports.evaluate import evaluate_report
from synth.truth_detector import TruthDetector
from vision.analyze_job import analyze_to_folder
from vision.pipeline import AnalyzeOptions
from vision.sidecar import load_sidecar

CLIP = Path(__file__).resolve().parents[1] / "sample_videos" / "clean_lineup_pan" / "clip.mp4"


def _run(out: Path, hidden_horses: bool):
    truth = json.loads((CLIP.parent / "truth.json").read_text())
    side = load_sidecar(CLIP)
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"], annotate=False, hidden_horses=hidden_horses)
    report, _ = analyze_to_folder(CLIP, out, opts, detector=TruthDetector(truth))
    return report, evaluate_report(report, truth)


def test_riders_of_hidden_horses_are_placed_in_the_panning_line_up(tmp_path):
    plain, plain_score = _run(tmp_path / "plain", False)
    assert max(plain["coverage"]["placed_median"].values()) <= 2
    report, score = _run(tmp_path / "hidden", True)
    assert min(report["coverage"]["placed_median"].values()) >= 3
    assert not report["coverage"]["warnings"] or len(report["coverage"]["warnings"]) < len(plain["coverage"]["warnings"])
    assert score["matched_positions"] > 1.2 * plain_score["matched_positions"]
    assert score["position_error_median_yd"] <= 1.0 and score["position_error_p95_yd"] <= 1.5
    assert score["event_precision"] == 1.0 and score["event_recall"] == 1.0
    # report.json says whose horse box is implied: in most line-up frames some, without the option none
    hidden = [any(p["horse_hidden"] for p in f["players"]) for f in report["frames"] if f["phase"] == "lineup"]
    assert sum(hidden) > 0.5 * len(hidden)
    assert not any(p["horse_hidden"] for f in plain["frames"] for p in f["players"])


def test_the_cli_turns_it_off_and_on_and_else_leaves_it_to_the_sidecar():
    from cli.main import build_parser
    p = build_parser()
    for cmd in (["analyze", "clip.mp4", "--out", "o"], ["batch", "clips/", "--out", "o"]):
        assert p.parse_args(cmd).hidden_horses is None
        assert p.parse_args(cmd + ["--no-hidden-horses"]).hidden_horses is False
        assert p.parse_args(cmd + ["--hidden-horses"]).hidden_horses is True
    assert AnalyzeOptions(defending={"red": "south", "blue": "north"}).hidden_horses
