"""How many players the line-up's verdicts speak for (reports.coverage), and where a user is told."""
from __future__ import annotations

from reports.coverage import PLAYERS_PER_TEAM, line_up_coverage
from reports.debrief import debrief_html
from reports.writers import console_summary


def _frames(red: list[int], blue: list[int], phase: str = "lineup") -> list[dict]:
    return [{"index": i, "t": i / 25, "phase": phase, "violations": [], "notes": [], "umpires": [],
             "players": [{"id": f"red-{k}", "team": "red"} for k in range(r)]
             + [{"id": f"blue-{k}", "team": "blue"} for k in range(b)]}
            for i, (r, b) in enumerate(zip(red, blue))]


def test_a_full_line_up_gives_no_warning():
    cov = line_up_coverage(_frames([4, 4, 3, 4], [4, 4, 4, 4]) + _frames([1], [0], "play"), ["red", "blue"])
    assert cov["line_up_frames"] == 4 and cov["players_per_team"] == PLAYERS_PER_TEAM
    assert cov["placed_median"] == {"red": 4.0, "blue": 4.0}
    assert cov["short_share"] == {"red": 0.25, "blue": 0.0}          # one frame short: a blink, no warning
    assert cov["warnings"] == []


def test_a_team_short_for_most_of_the_line_up_is_warned_of():
    # held-out wrong_side_plays_early: 1 red and 2 blue of 4 placed for the whole line-up
    cov = line_up_coverage(_frames([1, 1, 2, 1], [2, 2, 2, 4]), ["red", "blue"])
    assert cov["placed_median"] == {"red": 1.0, "blue": 2.0}
    assert cov["short_share"] == {"red": 1.0, "blue": 0.75}
    assert len(cov["warnings"]) == 2 and cov["warnings"][0].startswith("red: a median of 1 of 4 players placed")
    # no line-up in the footage (the clip starts after the throw-in): nothing to count
    none = line_up_coverage(_frames([0], [0], "play"), ["red", "blue"])
    assert none["line_up_frames"] == 0 and none["placed_median"]["red"] is None and none["warnings"] == []


def test_the_warning_reaches_the_console_and_the_debrief():
    frames = _frames([1, 1, 1], [4, 4, 4])
    report = {"video": "x.mp4", "fps": 25.0, "frames_analysed": 3,
              "options": {"defending": {"red": "south", "blue": "north"}, "stride": 1, "min_run": 3},
              "calibration": {"rms_px": 0.1, "rms_yd": 0.01}, "throw_in": {"frame": None, "t": None, "method": "none"},
              "tracks": [], "events": [], "summary": {"processing_s": 0.1}, "frames": frames,
              "coverage": line_up_coverage(frames, ["red", "blue"])}
    text = console_summary(report)
    assert "warning: red: a median of 1 of 4 players placed" in text and "blue:" not in text
    html = debrief_html(report, None, "annotated.mp4")
    assert 'id="coverage-warning"' in html and "red: a median of 1 of 4" in html
    del report["coverage"]                                   # a report written before coverage was counted
    assert "warning" not in console_summary(report) and "coverage-warning" not in debrief_html(report, None, "a.mp4")


def test_footage_running_on_long_after_the_throw_in_is_warned_of():
    """One throw-in a clip is judged: a later line-up (after a goal) would be taken for play,
    so footage running on more than LATER_PLAY_S past the throw-in says so (console, batch)."""
    from reports.coverage import LATER_PLAY_S, report_warnings
    frames = [{"index": i, "t": i / 25} for i in range(0, 2000, 25)]        # 80 s
    report = {"throw_in": {"frame": 50, "t": 2.0, "method": "ball"}, "frames": frames}
    warnings = report_warnings(report)
    assert len(warnings) == 1 and "77 s past the throw-in at frame 50" in warnings[0]
    assert "--start/--end" in warnings[0] and "throw_ins" in warnings[0]          # what to do about it
    report["frames"] = [f for f in frames if f["t"] <= 2.0 + LATER_PLAY_S]     # the samples: a few s after
    assert report_warnings(report) == []
    report["throw_in"] = {"frame": None, "t": None, "method": "none"}
    report["frames"] = frames
    assert report_warnings(report) == []
    # on the debrief page too
    report = {"video": "x.mp4", "fps": 25.0, "frames_analysed": len(frames),
              "options": {"defending": {"red": "south", "blue": "north"}, "stride": 25, "min_run": 3},
              "calibration": {"rms_px": 0.1, "rms_yd": 0.01}, "throw_in": {"frame": 50, "t": 2.0, "method": "ball"},
              "tracks": [], "events": [], "summary": {"processing_s": 0.1},
              "frames": [{**f, "phase": "play", "players": [], "umpires": [], "violations": [], "notes": []}
                         for f in frames]}
    assert 'id="later-play-warning"' in debrief_html(report, None, "annotated.mp4")
    assert "warning: the footage runs 77 s past the throw-in" in console_summary(report)


def test_a_throw_in_taken_from_the_players_is_warned_of():
    """The throw not seen, the throw-in comes from the players riding off, who do so up to
    ~1.5 s after a throw: the reader is told the line-up's last frames may be play (console,
    debrief, batch); a throw-in from the ball or set by hand is not warned of."""
    from reports.coverage import PLAYERS_LAG_S, report_warnings
    frames = [{"index": i, "t": i / 25, "phase": "lineup" if i < 82 else "play", "players": [], "umpires": [],
               "violations": [], "notes": []} for i in range(150)]
    report = {"video": "x.mp4", "fps": 25.0, "frames_analysed": len(frames),
              "options": {"defending": {"red": "south", "blue": "north"}, "stride": 1, "min_run": 3},
              "calibration": {"rms_px": 0.1, "rms_yd": 0.01}, "throw_in": {"frame": 82, "t": 3.28, "method": "players"},
              "tracks": [], "events": [], "summary": {"processing_s": 0.1}, "frames": frames}
    warnings = report_warnings(report)
    assert len(warnings) == 1 and "frame 82, 3.28 s" in warnings[0] and "--throw-in-frame" in warnings[0]
    assert f"{PLAYERS_LAG_S:.1f} s" in warnings[0]
    assert 'id="throw-in-warning"' in debrief_html(report, None, "annotated.mp4")
    assert "warning: the throw-in (frame 82, 3.28 s) was taken from the players" in console_summary(report)
    for method in ("ball", "override"):
        report["throw_in"]["method"] = method
        assert report_warnings(report) == []
        assert 'id="throw-in-warning"' not in debrief_html(report, None, "annotated.mp4")


def test_line_up_frames_not_judged_while_the_umpire_rides_in_are_said():
    """The rules judge the line-up once the umpire is positioned: the frames before are named in
    a warning (report.json `umpire_not_positioned`, runs of analysed frames), none when he stood."""
    import numpy as np
    from types import SimpleNamespace

    from reports.coverage import report_warnings, umpire_moving_warning
    from vision.pipeline import frame_runs
    frames = [SimpleNamespace(index=i, t=i / 25) for i in range(0, 40, 2)]      # stride 2
    mask = np.zeros(len(frames), bool)
    mask[[0, 1, 2, 7]] = True
    runs = frame_runs(frames, mask)
    assert runs == [{"start_frame": 0, "end_frame": 4, "start_t": 0.0, "end_t": 0.16},
                    {"start_frame": 14, "end_frame": 14, "start_t": 0.56, "end_t": 0.56}]
    report = {"umpire_not_positioned": runs}
    w = umpire_moving_warning(report)
    assert "0-4 (0.00-0.16 s), 14-14 (0.56-0.56 s)" in w and "not applied" in w
    assert w in report_warnings(report)
    assert umpire_moving_warning({"umpire_not_positioned": []}) is None and umpire_moving_warning({}) is None


def test_a_play_on_a_hit_not_seen_says_so_in_the_console_and_the_debrief():
    """vision.plays.first_flight_hit places a hit the ball stage did not see from the ball's
    flight; the event built on it (hit_seen false) tells the reviewer so."""
    frames = _frames([4, 4, 4], [4, 4, 4])
    ev = {"code": "ILLEGAL_PLAY_FROM_WRONG_SIDE", "player": "red-4", "start_frame": 2, "end_frame": 2,
          "start_s": 0.08, "end_s": 0.08, "frames": 1, "hit_seen": False,
          "worst": {"code": "ILLEGAL_PLAY_FROM_WRONG_SIDE", "player": "red-4", "team": "red", "ball_travel_yd": 11.0}}
    report = {"video": "x.mp4", "fps": 25.0, "frames_analysed": 3,
              "options": {"defending": {"red": "south", "blue": "north"}, "stride": 1, "min_run": 3},
              "calibration": {"rms_px": 0.1, "rms_yd": 0.01}, "throw_in": {"frame": 0, "t": 0.0, "method": "ball"},
              "tracks": [], "events": [ev], "summary": {"processing_s": 0.1}, "frames": frames}
    line = next(s for s in console_summary(report).splitlines() if "ILLEGAL_PLAY" in s)
    assert line.endswith("(the hit not seen: its moment taken from the ball's flight)")
    assert "the hit not seen" in debrief_html(report, None, "annotated.mp4")
    del ev["hit_seen"]                                        # a seen hit: nothing said
    assert "hit not seen" not in console_summary(report) and "hit not seen" not in debrief_html(report, None, "a.mp4")


def test_a_pan_no_field_mark_held_is_warned_of():
    """A camera that turned or zoomed a frame's width from its calibrated view with no painted line
    or boards found to re-anchor it (report.json `camera`) may have drifted a yard or two: said in
    the console and the debrief. Held by the marks, or hardly moved, or a fixed calibration: not."""
    from reports.coverage import DRIFT_TRAVEL_PX, report_warnings
    frames = [{"index": i, "t": i / 25, "phase": "lineup", "players": [], "umpires": [],
               "violations": [], "notes": []} for i in range(50)]
    report = {"video": "x.mp4", "fps": 25.0, "frames_analysed": len(frames),
              "options": {"defending": {"red": "south", "blue": "north"}, "stride": 1, "min_run": 3},
              "calibration": {"rms_px": 0.1, "rms_yd": 0.01}, "throw_in": {"frame": None, "t": None},
              "tracks": [], "events": [], "summary": {"processing_s": 0.1}, "frames": frames,
              "camera": {"model": "pan-tilt-zoom", "ptz_misfits": 0, "reanchored": 0,
                         "max_travel_px": DRIFT_TRAVEL_PX + 500, "boards_look_px": None}}
    (warning,) = report_warnings(report)
    assert "1780 px" in warning and "no painted line or sideline boards" in warning
    assert 'id="camera-drift-warning"' in debrief_html(report, None, "annotated.mp4")
    assert "warning: the camera turned or zoomed away" in console_summary(report)
    for camera in ({**report["camera"], "reanchored": 3}, {**report["camera"], "max_travel_px": 300.0}, None):
        report["camera"] = camera
        assert report_warnings(report) == []
        assert 'id="camera-drift-warning"' not in debrief_html(report, None, "annotated.mp4")
