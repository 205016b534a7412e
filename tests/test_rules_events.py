from rules.events import violation_events


def _frames(pattern: str, code: str = "FIVE_YARD", dist=None):
    out = []
    for i, ch in enumerate(pattern):
        v = []
        if ch == "x":
            v = [{"code": code, "player": "red-1", "distance_yd": (dist[i] if dist else 4.0)}]
        out.append({"index": i, "violations": v})
    return out


def test_short_blips_are_not_events_and_runs_are():
    assert violation_events(_frames("..x...x.."), min_run=3) == []
    (ev,) = violation_events(_frames("..xxxx..."), min_run=3)
    assert (ev["start_frame"], ev["end_frame"], ev["frames"]) == (2, 5, 4)


def test_gaps_up_to_max_gap_are_bridged():
    (ev,) = violation_events(_frames("xx..xx"), min_run=3, max_gap=2)
    assert (ev["start_frame"], ev["end_frame"]) == (0, 5)
    assert len(violation_events(_frames("xx...xx"), min_run=2, max_gap=2)) == 2


def test_worst_distance_is_kept():
    (ev,) = violation_events(_frames("xxxx", dist=[4.5, 3.1, 3.9, 4.8]), min_run=3)
    assert ev["worst"]["distance_yd"] == 3.1


def test_instant_codes_need_one_frame():
    frames = _frames("..x..", code="ILLEGAL_PLAY_FROM_WRONG_SIDE")
    (ev,) = violation_events(frames, min_run=5)
    assert ev["code"] == "ILLEGAL_PLAY_FROM_WRONG_SIDE" and ev["start_frame"] == 2
