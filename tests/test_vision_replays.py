"""Replays of the calibrated camera's own footage (vision/replays.py): told by frames that repeat
footage already seen, skipped by analyze as a cutaway is."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from cli.main import main
from reports.coverage import cutaway_warnings
from vision.replays import REPEAT_MAX, ReplayWatch, differing, thumbnail
from vision.video_io import VideoWriter, open_video

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
FPS = 25.0


def _frames(clip: str) -> list[np.ndarray]:
    return [f for _i, _t, f in open_video(SAMPLES / clip / "clip.mp4")]


@pytest.fixture(scope="module")
def lineup() -> list[np.ndarray]:
    return _frames("clean_lineup")            # fixed camera; throw-in at frame 75 (truth)


def _bug(frame: np.ndarray) -> np.ndarray:
    """A broadcast's "REPLAY" graphic in the corner."""
    out = cv2.rectangle(frame.copy(), (1080, 30), (1250, 80), (20, 20, 160), -1)
    return cv2.putText(out, "REPLAY", (1092, 66), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (255, 255, 255), 2)


def _watch(shown: list[np.ndarray]) -> tuple[int, object, int] | None:
    """Feed `shown` to a ReplayWatch as followed footage: (frame, Repeat, the frame where it
    began) of the first replay found."""
    watch = ReplayWatch(FPS)
    for i, frame in enumerate(shown):
        rep = watch.followed(i, i / FPS, frame)
        if rep is not None:
            return i, rep, watch.start[0]
    return None


@pytest.mark.parametrize("slow", [1, 2])
def test_a_replay_of_the_throw_in_cut_into_a_fixed_camera_is_found_within_a_look(lineup, slow):
    # Live to frame 129, then frames 76-105 again (the players riding off after the throw-in) at
    # their pace, or each shown twice (slow motion), with a graphic in the corner.
    shown = lineup[:130] + [_bug(lineup[j]) for j in range(76, 106) for _ in range(slow)]
    found = _watch(shown)
    assert found is not None
    at, rep, start = found
    # found at the first look in it (one every 0.4 s) and the next, 0.12 s later; where it began
    assert 130 <= rep.index <= at <= 130 + 0.6 * FPS and start == 130
    # the frame it repeats: the one shown there (slow motion: frame 76 + (k - 130) / slow)
    assert abs(rep.of_index - (76 + (rep.index - 130) / slow)) <= 1


def test_a_slow_motion_made_by_blending_frames_of_a_panning_camera_is_told():
    # clean_lineup_pan's frames 80-99 shown again at frame 150 at half speed, every other frame
    # a blend of two (1-6% of its pixels differ from either): it lies between two frames seen.
    pan = _frames("clean_lineup_pan")
    slow = [f for k in range(80, 100) for f in (pan[k], cv2.addWeighted(pan[k], 0.5, pan[k + 1], 0.5, 0))]
    found = _watch(pan[:150] + slow)
    assert found is not None
    at, rep, start = found
    assert 150 <= rep.index <= at <= 150 + 0.6 * FPS and start == 150
    assert abs(rep.of_t - (80 + (rep.index - 150) / 2) / FPS) <= 1.5 / FPS


def test_live_footage_is_not_taken_for_a_replay():
    # Fixed and panning cameras, players still and riding off: nothing repeats earlier footage.
    for clip in ("clean_lineup", "clean_lineup_pan", "own_goal_blue1", "slow_returner_red2"):
        assert _watch(_frames(clip)) is None, clip


def test_a_replay_that_looks_as_the_picture_just_before_is_not_told(lineup):
    # The sample's line-up barely moves from frame 51 to 79 (its thumbnails are the same): frames
    # 55-69 shown again at frame 80 look as the camera showed them a second before (and place the
    # players where they are now): nothing to tell a replay by, nothing wrong in judging it.
    assert differing(thumbnail(lineup[55]), thumbnail(lineup[79])[None])[0] <= REPEAT_MAX
    assert _watch(lineup[:80] + lineup[55:70]) is None


def test_a_still_line_up_seen_again_after_a_cutaway_is_live(lineup):
    # The line-up stands still (frames 51-79 look alike); a cutaway from frame 80 to 129; back on
    # the line-up, still as before the cut: live at once, and not a replay as it goes on.
    watch = ReplayWatch(FPS)
    for i in range(80):
        watch.followed(i, i / FPS, lineup[i])
    assert watch.after_cut(130, 130 / FPS, lineup[79], 80 / FPS)[0] == "live"
    watch.resumed(130, 130 / FPS)
    assert [k for k in range(130, 160) if watch.followed(k, k / FPS, lineup[60 + k % 20]) is not None] == []


def test_a_slow_motion_replay_of_a_line_up_whose_horses_shuffle_is_told():
    # slow_returner_red2 stands still until its throw-in at 170, horses and riders shuffling:
    # its frames 30-59 shown again at frame 120, each twice.
    still = _frames("slow_returner_red2")
    found = _watch(still[:120] + [still[j] for j in range(30, 60) for _ in range(2)])
    assert found is not None and abs(found[1].of_index - (30 + (found[1].index - 120) / 2)) <= 1


def test_after_a_cut_the_calibrated_view_found_again_is_told_live_or_replay(lineup):
    watch = ReplayWatch(FPS)
    for i in range(100):
        watch.followed(i, i / FPS, lineup[i])
    # a cut at frame 100; 2 s of another shot; then the camera's footage of frames 40-70 again
    seen_as = [watch.after_cut(k, k / FPS, lineup[j], 100 / FPS)[0] for k, j in ((150, 40), (153, 43))]
    assert seen_as == ["suspect", "replay"]
    # the live footage after a cutaway (the players have ridden on): live at the first look
    assert watch.after_cut(160, 160 / FPS, lineup[130], 100 / FPS)[0] == "live"
    watch.resumed(160, 160 / FPS)
    # in a replay: a frame that repeats nothing seen before is the live footage again
    assert watch.still_replay(lineup[50]) and not watch.still_replay(lineup[140])


@pytest.fixture(scope="module")
def replayed(lineup, tmp_path_factory) -> Path:
    """clean_lineup, live to frame 124 (its throw-in at 75), then frames 70-99 again (the throw-in
    replayed), then live (frames 140-149)."""
    clip = tmp_path_factory.mktemp("replay")
    for name in ("calibration.json", "clip.polo.json"):
        shutil.copy(SAMPLES / "clean_lineup" / name, clip / name)
    with VideoWriter(clip / "clip.mp4", FPS) as w:
        for frame in lineup[:125] + lineup[70:100] + lineup[140:]:
            w.write(frame)
    return clip / "clip.mp4"


def test_analyze_skips_a_replay_of_the_throw_in(lineup, replayed, tmp_path):
    """The replay's frames are not judged; the throw-in stands; annotated.mp4 says so."""
    assert main(["analyze", str(replayed), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert abs(report["throw_in"]["frame"] - 75) <= 1
    assert report["events"] == []
    (away,) = report["cutaways"]
    # not judged from the frame the replay began to its end (the search's pace: 0.2 s)
    assert away["cut_frame"] == 125 and 155 <= away["found_frame"] <= 155 + 0.2 * FPS
    assert 125 <= away["replay"]["frame"] <= 125 + 0.6 * FPS
    assert abs(away["replay"]["repeats_frame"] - (away["replay"]["frame"] - 55)) <= 1
    judged = {f["index"] for f in report["frames"]}
    assert not judged & set(range(away["cut_frame"], 155)) and {0, 110, away["found_frame"], 164} <= judged
    assert "show a replay" in cutaway_warnings(report)[0]
    assert 'id="cutaway-warning"' in (tmp_path / "out" / "debrief.html").read_text()
    # annotated.mp4 shows the replay as it is under the banner: no boxes, no map
    shown = {i: f for i, _t, f in open_video(tmp_path / "out" / "annotated.mp4") if i in (140, 160)}
    replayed = shown[140].astype(int) - lineup[85]
    assert np.abs(replayed[100:]).mean() < 4 and np.abs(replayed[:60]).mean() > 4
    assert np.abs(shown[160].astype(int) - lineup[145])[100:].mean() > 4     # live: boxes and map drawn


def test_a_window_remembers_the_footage_before_it_to_tell_its_replays(replayed, tmp_path):
    """A part analysed from frame 120 (--start 4.8): the replay at 125 shows frames 70-99, before
    it. Remembered (--replay-memory, 60 s by default), it is told; without, judged as live."""
    reports = []
    for memory in ("60", "0"):
        out = tmp_path / memory
        assert main(["analyze", str(replayed), "--start", "4.8", "--out", str(out), "--no-video", "--quiet",
                     "--replay-memory", memory]) == 0
        reports.append(json.loads((out / "report.json").read_text()))
    told, not_told = reports
    assert told["replays"]["remembered_before_window"] == {"from_s": 0.0, "frames": 120}
    (away,) = told["cutaways"]
    assert away["replay"] and away["cut_frame"] == 125 and 155 <= away["found_frame"] <= 155 + 0.2 * FPS
    assert not_told["replays"]["remembered_before_window"] is None and not not_told["cutaways"]
    assert {f["index"] for f in not_told["frames"]} >= set(range(125, 155))


def test_two_repeats_make_a_replay_only_in_the_footage_s_order_and_pace():
    from vision.replays import Repeat, in_order
    first = Repeat(100, 4.0, 40, 1.6, 0.0)
    at = lambda t, of_t, still=0.0: Repeat(int(t * FPS), t, int(of_t * FPS), of_t, 0.0, still)   # noqa: E731
    assert in_order(first, at(4.2, 1.8))                # at its pace
    assert in_order(first, at(4.2, 1.7))                # slowed down twice
    assert not in_order(first, at(4.2, 1.61))           # 20 times slower: one picture, not a stretch
    assert not in_order(first, at(4.2, 1.6))            # a pan back over still players: the same earlier picture
    assert not in_order(first, at(4.2, 1.4))            # backwards
    assert not in_order(first, at(4.2, 2.2))            # three times faster than it was
    # a still stretch (the earlier frames alike over 1 s): which one is repeated cannot be told
    assert in_order(Repeat(100, 4.0, 40, 1.6, 0.0, 1.0), at(4.2, 1.6, still=1.0))


def test_only_the_last_minutes_seen_are_remembered():
    from vision.replays import SeenFrames
    seen = SeenFrames(FPS, max_seen_s=2.0)              # 50 frames
    rng = np.random.default_rng(1)
    thumbs = [rng.integers(0, 255, (54, 96), dtype=np.uint8) for _ in range(130)]
    for i, th in enumerate(thumbs):
        seen.add(i, i / FPS, thumb=th)
    assert len(seen) == 50
    rep = seen.repeat(thumbs[90], 200, 8.0, 5.2)
    assert rep is not None and rep.of_index == 90 and rep.share == 0.0
    assert seen.repeat(thumbs[40], 200, 8.0, 5.2) is None       # forgotten
