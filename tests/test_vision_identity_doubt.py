"""Withholding a side-of-the-line verdict whose rider's looks at the time name the other team
(vision.identity_doubt)."""
from vision.identity_doubt import MIN_CONTRARY, withhold_doubtful


def _setup():
    events = [{"code": "WRONG_SIDE", "player": "red-7", "start_frame": 10, "end_frame": 20},
              {"code": "FIVE_YARD", "player": "red-7", "start_frame": 10, "end_frame": 20},
              {"code": "WRONG_SIDE", "player": "blue-3", "start_frame": 10, "end_frame": 20}]
    frames = [{"index": i, "violations": [{"code": "WRONG_SIDE", "player": "red-7"},
                                          {"code": "FIVE_YARD", "player": "red-7"},
                                          {"code": "WRONG_SIDE", "player": "blue-3"}] if 10 <= i <= 20 else []}
              for i in range(40)]
    return events, frames


def _run(events, frames, looks):
    return withhold_doubtful(events, frames, looks, track_of={"red-7": 7, "blue-3": 3},
                             cluster_of={7: "red", 3: "blue"}, pos_of={i: i for i in range(40)}, window=3)


def test_a_wrong_side_event_whose_looks_name_the_other_team_is_withheld_with_its_frames():
    events, frames = _setup()
    # track 7 (voted red) looked blue three times during its event; its own look is long after
    looks = {7: [(8, "blue"), (12, "blue"), (15, "blue"), (30, "red")], 3: [(12, "blue"), (16, "blue")]}
    kept, withheld = _run(events, frames, looks)
    assert [(e["code"], e["player"]) for e in kept] == [("FIVE_YARD", "red-7"), ("WRONG_SIDE", "blue-3")]
    assert len(withheld) == 1 and withheld[0]["player"] == "red-7"
    assert withheld[0]["looks_other_team"] == 2 and withheld[0]["looks_own_team"] == 0    # 12 and 15
    for fr in frames[10:21]:                       # only that event's records go
        assert {(v["code"], v["player"]) for v in fr["violations"]} == {("FIVE_YARD", "red-7"), ("WRONG_SIDE", "blue-3")}


def test_a_tie_or_too_few_contrary_looks_keep_the_verdict():
    events, frames = _setup()
    tie = {7: [(11, "blue"), (12, "red"), (14, "blue"), (18, "red")]}
    assert len(_run(events, frames, tie)[0]) == 3
    few = {7: [(11, "blue")] * (MIN_CONTRARY - 1) + [(12, "red")]}
    assert len(_run(events, frames, few)[0]) == 3
    outside = {7: [(2, "blue"), (3, "blue"), (30, "blue")]}        # before and after the event's window
    assert len(_run(events, frames, outside)[0]) == 3


def test_a_lone_contrary_look_with_none_of_his_own_withholds():
    """A track found again on an opponent's horse across the line is often looked at once there."""
    events, frames = _setup()
    kept, withheld = _run(events, frames, {7: [(15, "blue")]})
    assert MIN_CONTRARY == 1 and [e["player"] for e in withheld] == ["red-7"] and len(kept) == 2
    assert len(_run(events, frames, {7: [(15, "blue"), (16, "red")]})[0]) == 3      # one each way: kept


def test_looks_taken_during_the_event_that_name_neither_team_keep_it():
    """Looks taken during the event that named neither team (two kits at once: vision.swaps.
    named_looks, clear_only) are looks taken: contrary looks just after the event do not stand
    in for them, as they do for an event nobody looked at."""
    events, frames = _setup()
    after = {7: [(21, "blue"), (22, "blue")]}                       # within the window after it
    assert [e["player"] for e in _run(events, frames, after)[1]] == ["red-7"]
    unclear = {7: [(12, None), (15, None), (18, None), (21, "blue"), (22, "blue")]}
    kept, withheld = _run(events, frames, unclear)
    assert withheld == [] and len(kept) == 3


def test_the_console_summary_names_a_withheld_event():
    from reports.writers import console_summary
    events, frames = _setup()
    kept, withheld = _run(events, frames, {7: [(8, "blue"), (12, "blue"), (15, "blue")]})
    for ev in kept + withheld:
        ev.update(start_s=0.4, end_s=0.8, worst={})
    report = {"video": "clip.mp4", "frames_analysed": 40, "summary": {"processing_s": 1.0},
              "calibration": {"rms_px": 0.5, "rms_yd": 0.1}, "throw_in": {"frame": None},
              "events": kept, "events_withheld": withheld}
    text = console_summary(report)
    assert "withheld: WRONG_SIDE red-7 frames 10-20" in text and "2 looks against 0" in text
    assert text.count("WRONG_SIDE") == 2                       # blue-3's stands, red-7's is withheld


def test_looks_during_the_event_outweigh_those_after_it():
    """A track carried onto an opponent and back: one contrary look while on him, its own team's
    looks once back (inside the window after the event) do not count against it; with no look
    during the event, the window's looks decide."""
    events, frames = _setup()
    kept, withheld = _run(events, frames, {7: [(15, "blue"), (21, "red"), (23, "red")]})
    assert [e["player"] for e in withheld] == ["red-7"] and withheld[0]["looks_own_team"] == 0
    assert len(_run(events, frames, {7: [(8, "blue"), (21, "red"), (23, "red")]})[0]) == 3   # window: 1 against 2
    assert [e["player"] for e in _run(events, frames, {7: [(8, "blue"), (22, "blue")]})[1]] == ["red-7"]
