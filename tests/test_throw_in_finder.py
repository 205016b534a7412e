"""Finding the line-ups of a whole recording (vision/throw_in_finder.py, `find-throw-ins`)."""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cli.main import main
from synth.motion import sample_motion
from synth.recording import recording
from synth.scenario import parse_scenario
from vision.sidecar import SidecarError, load_sidecar, windows, write_throw_ins
from vision.throw_in_finder import LineUp, clock, find_lineups, sidecar_entries
from vision.video_io import parse_time

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
C = 150.0


def _true_positions(times: list[float], rate: float = 5.0):
    """The true positions (players, umpires) of a recording of throw-ins at `times`, on `rate`
    frames a second."""
    doc, throw_ins = recording(times)
    sc = parse_scenario(doc)
    t = np.arange(0, sc.n_frames, int(sc.fps / rate)) / sc.fps
    pos = {o.id: sample_motion(o, t).pos[:, :2] for o in sc.objects}
    players = np.stack([pos[o.id] for o in sc.objects if o.role == "player"])
    umpires = np.stack([pos[o.id] for o in sc.objects if o.role == "umpire"])
    return t, players, umpires, sc.n_frames / sc.fps, throw_ins, sc


@pytest.mark.parametrize("times", [[3.0, 14.0], [3.0, 14.0, 26.0, 40.0, 51.0]])
def test_every_line_up_of_a_recording_is_found_and_its_window_holds_the_throw_in(times):
    t, players, umpires, duration, throw_ins, sc = _true_positions(times)
    found = find_lineups(t, players, C, duration, umpires=umpires)
    assert len(found) == len(times)
    for lu, ti in zip(found, throw_ins):
        assert lu.window_start_s <= lu.start_s < ti["t"] < lu.end_s <= lu.window_end_s, (lu, ti)
        assert lu.end_s - ti["t"] < 1.5                  # it breaks up when play starts
        assert lu.players == 8
    for a, b in zip(found, found[1:]):
        assert a.window_end_s <= b.window_start_s
    assert found[-1].window_end_s == pytest.approx(duration)
    # A later window starts once the teams have ridden back after the goal: no player is on the
    # wrong side of the line for that throw-in's ends from then on, until it is thrown in.
    ids = [o for o in sc.objects if o.role == "player"]
    for lu, ti in list(zip(found, throw_ins))[1:]:
        inside = (t >= lu.window_start_s) & (t <= ti["t"])
        for k, o in enumerate(ids):
            sign = -1 if ti["defending"][o.team] == "south" else 1
            assert np.all(sign * (players[k, inside, 0] - C) > 0), (o.id, ti)


def test_the_umpire_at_the_line_vouches_for_a_line_up_of_few_placed_players():
    """A camera along the ranks places 3-4 of the 8: with the umpire standing at the line by
    them they are a line-up; without him, or with him far from the line, they are not."""
    t = np.arange(0, 4.0, 0.2)
    F = len(t)
    three = np.array([[C - 1.2, 64.0], [C - 1.3, 70.0], [C + 1.2, 66.0]])[:, None, :].repeat(F, 1)
    at_line = np.array([[C, 58.5]])[:, None, :].repeat(F, 1)
    (lu,) = find_lineups(t, three, C, 4.0, umpires=at_line)
    assert lu.start_s == 0.0 and lu.players == 3
    assert find_lineups(t, three, C, 4.0) == []
    assert find_lineups(t, three, C, 4.0, umpires=at_line + [30.0, 0.0]) == []
    one_side = three.copy()
    one_side[2, :, 0] = C - 1.0
    assert find_lineups(t, one_side, C, 4.0, umpires=at_line) == []
    # A dense line-up seen along its ranks at the scan's 5 frames a second may place only two
    # (own_goal_blue1, re-authored in session 24: one a team): with the umpire by them, one each
    # side, they are the line-up; two of one team, or two without him, are not.
    two = three[1:]
    (lu,) = find_lineups(t, two, C, 4.0, umpires=at_line)
    assert lu.players == 2
    assert find_lineups(t, two, C, 4.0) == [] and find_lineups(t, one_side[:2], C, 4.0, umpires=at_line) == []


def test_play_across_midfield_a_group_on_one_side_and_a_short_halt_are_not_line_ups():
    t = np.arange(0, 6.0, 0.2)
    F = len(t)
    lanes = np.linspace(50.0, 70.0, 8)
    riding = np.stack([np.stack([C - 20 + 8.0 * t, np.full(F, y)], 1) for y in lanes])   # 8 yd/s through the line
    assert find_lineups(t, riding, C, 6.0) == []
    standing = np.stack([np.stack([np.full(F, C - 2.0), np.full(F, y)], 1) for y in lanes])  # all on one side
    assert find_lineups(t, standing, C, 6.0) == []
    halt = np.stack([np.stack([np.full(F, C + (1.0 if k % 2 else -1.0)), np.full(F, y)], 1)
                     for k, y in enumerate(lanes)])
    halt[:, t >= 0.8] = np.nan                                   # seen standing for 0.6 s only
    assert find_lineups(t, halt, C, 6.0) == []
    halt[:, t >= 0.8] = halt[:, :1]                              # standing throughout
    assert len(find_lineups(t, halt, C, 6.0)) == 1


def test_windows_never_overlap_and_stay_inside_the_recording():
    t = np.arange(0, 20.0, 0.2)
    F = len(t)
    lanes = np.linspace(60.0, 70.0, 6)
    xy = np.full((6, F, 2), np.nan)
    for k, y in enumerate(lanes):
        xy[k, :, 0] = C + (1.0 if k % 2 else -1.0)
        xy[k, :, 1] = y
    xy[:, (t > 4.0) & (t < 9.0)] = np.nan                        # play elsewhere, out of view
    a, b = find_lineups(t, xy, C, 20.0, first_s=0.0)
    assert a.window_start_s == 0.0 and b.window_end_s == 20.0
    assert a.end_s <= a.window_end_s == b.window_start_s <= b.start_s


def test_clock_times_read_back_and_the_sidecar_entries_are_windows():
    for s in (0.0, 3.0, 62.5, 599.9, 3725.5):
        assert parse_time(clock(s)) == pytest.approx(s)
    assert clock(62.5) == "1:02.5" and clock(3725.5) == "1:02:05.5" and clock(3.0) == "0:03"
    lus = [LineUp(1.0, 4.0, 8, 1.0, 14.0), LineUp(70.0, 73.2, 6, 70.0, 83.2)]
    assert sidecar_entries(lus) == [{"start": "0:01", "end": "0:14"}, {"start": "1:10", "end": "1:23.2"}]


def test_throw_ins_are_written_into_the_clips_own_sidecar(tmp_path):
    clip = tmp_path / "game.mp4"
    clip.write_bytes(b"")
    (tmp_path / "calibration.json").write_text("{}")
    (tmp_path / "polo.json").write_text(json.dumps({"defending": {"red": "south", "blue": "north"},
                                                     "calibration": "calibration.json", "start": "0:05"}))
    entries = [{"start": "0:01", "end": "0:14"}, {"start": "1:10", "end": "1:23.2"}]
    with pytest.raises(SidecarError, match="start.*--replace"):           # the folder's window is in the way
        write_throw_ins(clip, entries)
    assert not (tmp_path / "game.polo.json").exists()
    path = write_throw_ins(clip, entries, replace=True)
    assert path == tmp_path / "game.polo.json"
    side = load_sidecar(clip)                                              # the clip's own file is read now
    assert side["defending"] == {"red": "south", "blue": "north"}          # the folder's settings carried over
    assert side["calibration"] == str((tmp_path / "calibration.json").resolve())
    assert [(w.start_s, w.end_s) for w in windows(side)] == [(1.0, 14.0), (70.0, 83.2)]
    assert "start" not in side
    with pytest.raises(SidecarError, match="throw_ins"):
        write_throw_ins(clip, entries[:1])
    write_throw_ins(clip, entries[:1], replace=True)
    assert len(load_sidecar(clip)["throw_ins"]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calibration.json", "game.mp4", "game.polo.json", "polo.json"]


def test_find_throw_ins_on_a_sample_clip_with_the_shipped_models(tmp_path, capsys):
    """The command end to end: the one line-up of clean_lineup, its throw-in (frame 75, 3 s)
    inside the window written into the sidecar, with each throw-in's ends."""
    for name in ("clip.mp4", "calibration.json", "clip.polo.json"):
        shutil.copy(SAMPLES / "clean_lineup" / name, tmp_path / name)
    rc = main(["find-throw-ins", str(tmp_path / "clip.mp4"), "--write", "--after-goals", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "1 line-up(s) in 6.0 s" in out and "south of the line: red, north: blue" in out
    side = load_sidecar(tmp_path / "clip.mp4")
    (w,) = windows(side)
    assert w.start_s <= 1.0 and 3.0 + 1.0 < w.end_s
    assert side["throw_ins"][0]["defending"] == {"red": "south", "blue": "north"}
    rc = main(["find-throw-ins", str(tmp_path / "clip.mp4"), "--json", "--quiet"])
    found = json.loads(capsys.readouterr().out)                  # stdout: the JSON alone
    assert found["throw_ins"] == [{k: e[k] for k in ("start", "end")} for e in side["throw_ins"]]
    assert found["lineups"][0]["sides_seen"] == {"south": "red",
                                                                                            "north": "blue"}
    started = time.perf_counter()
    rc = main(["find-throw-ins", str(tmp_path / "clip.mp4"), "--write", "--quiet"])       # already there
    assert rc == 2 and "--replace" in capsys.readouterr().err
    assert time.perf_counter() - started < 1.0                   # refused before the scan, not after it


@pytest.mark.parametrize("extra, message", [
    (["--after-goals"], "give --write too"),
    (["--rate", "0"], "--rate"),
    (["--start", "9:99"], "--start/--end"),
])
def test_find_throw_ins_refuses_bad_settings_in_one_line(tmp_path, capsys, extra, message):
    for name in ("clip.mp4", "calibration.json"):
        shutil.copy(SAMPLES / "clean_lineup" / name, tmp_path / name)
    rc = main(["find-throw-ins", str(tmp_path / "clip.mp4"), "--quiet", *extra])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_after_goals_needs_the_first_throw_ins_ends(tmp_path, capsys):
    for name in ("clip.mp4", "calibration.json"):
        shutil.copy(SAMPLES / "clean_lineup" / name, tmp_path / name)
    rc = main(["find-throw-ins", str(tmp_path / "clip.mp4"), "--quiet", "--write", "--after-goals"])
    assert rc == 2 and "--defending" in capsys.readouterr().err
    assert not (tmp_path / "clip.polo.json").exists()


def test_several_recordings_in_one_run_a_failing_one_said_and_the_others_go_on(tmp_path, capsys):
    """One detector for all; a video that cannot be read is one line on stderr, the others are
    scanned; exit status 1; --json prints one list."""
    for name in ("clip.mp4", "calibration.json", "clip.polo.json"):
        shutil.copy(SAMPLES / "clean_lineup" / name, tmp_path / name)
    (tmp_path / "broken.mp4").write_bytes(b"not a video")
    rc = main(["find-throw-ins", str(tmp_path / "broken.mp4"), str(tmp_path / "clip.mp4"), "--json", "--quiet"])
    cap = capsys.readouterr()
    assert rc == 1
    (found,) = json.loads(cap.out)
    assert found["video"].endswith("clip.mp4") and len(found["throw_ins"]) == 1
    assert "broken.mp4: error:" in cap.err and "1 of 2 videos failed" in cap.err and "Traceback" not in cap.err


def test_a_moving_cameras_view_at_a_window_becomes_that_throw_ins_own_calibration():
    """The scan follows the camera; where it has moved by a window's start, the view there is
    written as the throw-in's calibration (points on the field through the followed
    homography, its frame), which the calibration reader accepts and fits back; a camera that
    has not moved gets none."""
    from vision.homography import calibrate, for_frame_size, image_to_field
    from vision.throw_in_finder import moving_calibration
    side = load_sidecar(SAMPLES / "clean_lineup" / "clip.mp4")
    H0 = for_frame_size(calibrate(side["calibration"]), (1280, 720)).H
    assert moving_calibration(H0, H0, 300, True, (1280, 720), 300.0, 160.0) is None
    pan = np.array([[1.0, 0.0, 8.0], [0.0, 1.0, 1.5], [0.0, 0.0, 1.0]])      # 8 yd north, 1.5 yd east
    H = pan @ H0
    cal = moving_calibration(H0, H, 300, True, (1280, 720), 300.0, 160.0)
    assert cal["frame"] == 300 and len(cal["points"]) >= 4
    assert moving_calibration(H0, H, 300, False, (1280, 720), 300.0, 160.0) is None    # a lost step: no guess
    assert moving_calibration(None, H0, 300, True, (1280, 720), 300.0, 160.0) is not None
    fit = calibrate(cal)
    assert fit.calibration.frame == 300 and fit.rms_yd < 0.05
    px = np.array([[640.0, 500.0], [200.0, 650.0]])
    assert np.allclose(image_to_field(fit.H, px), image_to_field(H, px), atol=0.05)
    (entry,) = sidecar_entries([LineUp(12.0, 15.0, 8, 12.0, 25.0)], [cal])
    assert entry["calibration"] is cal


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 10), st.integers(0, 3), st.integers(2, 80), st.floats(0.04, 0.5), st.integers(0, 2 ** 31 - 1),
       st.floats(0.0, 5.0))
def test_windows_are_in_order_apart_and_inside_the_footage_whatever_the_positions(P, U, F, dt, seed, first):
    """Any positions (players and umpires scattered about the line, standing or riding, some
    unplaced): the line-ups come in time order, each inside its own window, the windows apart
    and inside [first, duration]."""
    rng = np.random.default_rng(seed)
    t = first + np.arange(F) * dt
    xy = C + rng.choice([-1.5, 1.5], (P, 1, 1)) + rng.normal(0, 4, (P, F, 2)).cumsum(axis=1) \
        * rng.choice([0.0, 0.3], (P, 1, 1))                # standing by the line, or wandering
    xy[..., 1] += 60.0
    xy[rng.random((P, F)) < 0.2] = np.nan
    ump = np.stack([np.full((F,), C + rng.normal(0, 3)), np.full((F,), 58.0)], 1)[None].repeat(U, 0)
    duration = float(t[-1] + dt)
    found = find_lineups(t, xy, C, duration, first_s=first, umpires=ump if U else None)
    for lu in found:
        assert first <= lu.window_start_s <= lu.start_s <= lu.end_s <= lu.window_end_s <= duration
        assert lu.end_s - lu.start_s >= 1.0 - 1e-9 and lu.players >= 3
    for a, b in zip(found, found[1:]):
        assert a.end_s < b.start_s and a.window_end_s <= b.window_start_s
