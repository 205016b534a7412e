"""Scoring a report against a clip's truth (reports.evaluate): positions, events, and how
honest the report's uncertainty is."""
from reports.evaluate import evaluate_report


def _truth(n: int = 6) -> dict:
    frames, expected = [], []
    for i in range(n):
        frames.append({"index": i, "objects": [
            {"id": "red-1", "role": "player", "x": 148.0, "y": 66.0},
            {"id": "U1", "role": "umpire", "x": 150.0, "y": 58.0}]})
        expected.append({"index": i, "phase": "lineup", "violations": [], "notes": []})
    return {"throw_in_frame": None, "frames": frames, "expected": {"frames": expected}}


def _report(dx: float, cov: list | None, sigma: float, n: int = 6) -> dict:
    frames = []
    for i in range(n):
        p = {"id": "red-7", "team": "red", "x_yd": 148.0 + dx, "y_yd": 66.0, "sigma_yd": sigma}
        if cov is not None:
            p["cov_yd2"] = cov
        frames.append({"index": i, "phase": "lineup", "violations": [], "players": [p],
                       "umpires": [{"id": "U3", "x_yd": 150.0, "y_yd": 58.0, "sigma_yd": sigma}]})
    return {"frames": frames, "events": [], "throw_in": {"frame": None}, "options": {"min_run": 3}}


def test_errors_within_two_sigma_use_the_uncertainty_along_each_axis():
    # 0.5 yd off across (x): sure across (sigma 0.1 yd) is dishonest, unsure across (0.5 yd) is not
    sure = evaluate_report(_report(0.5, [0.01, 0.0, 1.0], 1.0), _truth())
    unsure = evaluate_report(_report(0.5, [0.25, 0.0, 0.01], 1.0), _truth())
    assert sure["position_error_median_yd"] == 0.25 and sure["position_error_p95_yd"] == 0.5
    # per frame: red-1's x (off), red-1's y, the umpire's x and y (exact): 3 of 4 within
    assert sure["errors_within_2_sigma"] == 0.75
    assert unsure["errors_within_2_sigma"] == 1.0
    # without a covariance the sigma counts both ways
    assert evaluate_report(_report(0.5, None, 0.3), _truth())["errors_within_2_sigma"] == 1.0
    assert evaluate_report(_report(0.5, None, 0.1), _truth())["errors_within_2_sigma"] == 0.75
    assert sure["event_precision"] == 1.0 and sure["event_recall"] == 1.0


def test_findings_to_check_are_scored_apart_from_the_events():
    """A true 5-yard event the violations missed but the list to check holds: recall 0 for the
    events, 1 with the list; a listed finding of no true event is counted, not true."""
    truth = _truth(8)
    for fr in truth["expected"]["frames"]:
        fr["violations"] = [{"code": "FIVE_YARD", "player": "red-1", "distance_yd": 4.6}]
    report = _report(0.0, [0.01, 0.0, 0.25], 0.5, n=8)
    listed = {"code": "FIVE_YARD", "player": "red-7", "start_frame": 0, "end_frame": 7, "frames": 8,
              "worst": {"code": "FIVE_YARD", "player": "red-7", "distance_yd": 4.7, "sigma_yd": 0.5}}
    report["events_to_check"] = [listed, {**listed, "code": "WRONG_SIDE"}]
    s = evaluate_report(report, truth)
    assert s["event_recall"] == 0.0 and s["event_recall_with_to_check"] == 1.0
    assert s["to_check"] == 2 and s["to_check_true"] == 1
    del report["events_to_check"]
    s = evaluate_report(report, truth)
    assert s["to_check"] == 0 and s["event_recall_with_to_check"] == 0.0


def test_an_event_is_judged_on_the_player_its_track_followed_when_it_happened():
    """A track on Red #1 for 35 frames, then on Red #2 (an id switch in the line-up) while Red
    #2 stands inside the 5 yards: at the event its event is Red #2's (right), though the track's
    most frequent match over its life is Red #1 (the headline figure calls it wrong). Shirt
    numbers read are scored on the track's life."""
    n = 60
    frames, expected, rframes = [], [], []
    for i in range(n):
        frames.append({"index": i, "objects": [
            {"id": "red-1", "role": "player", "x": 140.0, "y": 66.0},
            {"id": "red-2", "role": "player", "x": 148.0, "y": 60.0},
            {"id": "U1", "role": "umpire", "x": 150.0, "y": 58.0}]})
        late = i >= 35
        expected.append({"index": i, "phase": "lineup", "notes": [], "violations":
                         [{"code": "FIVE_YARD", "player": "red-2", "distance_yd": 2.8}] if late else []})
        x, y = (148.0, 60.0) if late else (140.0, 66.0)
        rframes.append({"index": i, "phase": "lineup", "violations": [],
                        "players": [{"id": "red-t7", "team": "red", "x_yd": x, "y_yd": y, "sigma_yd": 0.2}],
                        "umpires": [{"id": "U-t3", "x_yd": 150.0, "y_yd": 58.0, "sigma_yd": 0.2}]})
    truth = {"throw_in_frame": None, "frames": frames, "expected": {"frames": expected}}
    event = {"code": "FIVE_YARD", "player": "red-t7", "start_frame": 40, "end_frame": 59, "frames": 20,
             "worst": {"code": "FIVE_YARD", "player": "red-t7", "distance_yd": 2.8}}
    report = {"frames": rframes, "events": [event], "throw_in": {"frame": None}, "options": {"min_run": 3},
              "shirt_numbers": {"named": {"red-t7": 1}}}
    s = evaluate_report(report, truth)
    assert s["event_precision_at_event"] == 1.0 and s["event_recall_at_event"] == 1.0
    assert s["event_precision"] == 0.0 and s["event_recall"] == 0.0
    assert s["shirt_numbers"] == 1 and s["shirt_numbers_right"] == 1 and s["shirt_numbers_wrong"] == []
    assert s["players_named"] == 1 and s["players"] == 2          # Red #1 named, Red #2 not
    report["shirt_numbers"]["named"]["red-t7"] = 2
    assert evaluate_report(report, truth)["shirt_numbers_wrong"] == ["red-t7"]
    report["shirt_numbers"]["named"] = {"red-t9": 1}         # a track never matched to a truth object: not scored
    s = evaluate_report(report, truth)
    assert s["shirt_numbers"] == 1 and s["shirt_numbers_unmatched"] == 1
    assert s["shirt_numbers_right"] == 0 and s["shirt_numbers_wrong"] == [] and s["players_named"] == 0
