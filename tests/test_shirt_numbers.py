"""Shirt numbers (vision.shirt_numbers): the renderer says where it drew each number and how
much of it shows; the shipped reader reads them on rendered riders; a track's number is a
vote over its reads; two tracks of one team cannot both be #2 while both are on the field;
events name the player by his shirt where it was read."""
from __future__ import annotations

import numpy as np
import pytest

from synth.examples import lineup_doc
from synth.render import Renderer
from synth.scenario import parse_scenario
from vision.detect import ModelError
from vision.shirt_numbers import (AGREE_MIN, CROP_H, CROP_W, DEFAULT_NUMBER_MODEL, MIN_READS, READ_MIN, NumberVote,
                                  NumberReader, crop_riders, load_number_reader, name_events, readable,
                                  resolve_clashes, track_reads, vote, vote_numbers)
from reports.writers import shirt_name


def _read(digit: int, p: float = 0.97) -> np.ndarray:
    """One read: `p` on `digit` (0: none readable), the rest spread over the other classes."""
    out = np.full(5, (1 - p) / 4)
    out[digit] = p
    return out


def test_a_track_needs_enough_reads_that_agree():
    assert vote(np.array([_read(2)] * MIN_READS)).number == 2
    assert vote(np.array([_read(2)] * (MIN_READS - 1))).number is None            # too few
    weak = vote(np.array([_read(2, READ_MIN - 0.05)] * 10))                         # none confident enough
    assert weak.number is None and weak.reads == 0
    assert vote(np.array([_read(0)] * 10)).number is None                           # "no number" reads
    # 3 of 4 agreeing is AGREE_MIN: enough; 2 against 2 is not
    mixed = vote(np.array([_read(3)] * 3 + [_read(1)]))
    assert mixed.number == 3 and mixed.reads == 4 and mixed.agree == pytest.approx(0.75) and AGREE_MIN <= 0.75
    assert vote(np.array([_read(3)] * 2 + [_read(1)] * 2)).number is None
    assert vote(np.zeros((0, 5))).number is None


def test_two_tracks_of_one_team_seen_together_cannot_share_a_number():
    votes = {1: NumberVote(2, 12, 1.0), 2: NumberVote(2, 5, 1.0), 3: NumberVote(2, 8, 1.0), 4: NumberVote(4, 9, 1.0)}
    team = {1: "red", 2: "red", 3: "blue", 4: "red"}
    frames = {1: np.arange(0, 100), 2: np.arange(50, 120), 3: np.arange(0, 100), 4: np.arange(0, 100)}
    assert resolve_clashes(votes, team, frames) == []
    assert votes[1].number == 2 and votes[2].number is None and "red #2" in votes[2].clash
    assert "track 1," in votes[2].clash
    assert votes[3].number == 2                                  # the other team's #2 is no clash
    # A third track of that number, after both: one player followed again (he keeps it); the
    # clash names only the track seen together with the loser.
    votes = {1: NumberVote(2, 12, 1.0), 2: NumberVote(2, 5, 1.0), 5: NumberVote(2, 7, 1.0)}
    frames[5], team[5] = np.arange(130, 200), "red"
    assert resolve_clashes(votes, team, frames) == [[1, 5]]
    assert votes[5].number == 2 and votes[2].clash == "red #2 also read on track 1, on the field at the same time"
    # One after the other (a lost track followed by a new one): one player, both keep the number.
    votes = {1: NumberVote(2, 12, 1.0), 2: NumberVote(2, 5, 1.0)}
    assert resolve_clashes(votes, team, {1: np.arange(0, 50), 2: np.arange(60, 120)}) == [[1, 2]]
    assert votes[2].number == 2
    # As many reads each: neither can be told the better, both lose it.
    votes = {1: NumberVote(2, 6, 1.0), 2: NumberVote(2, 6, 1.0)}
    resolve_clashes(votes, team, {1: np.arange(0, 50), 2: np.arange(0, 50)})
    assert votes[1].number is None and votes[2].number is None


def test_reads_follow_the_units_track_id_as_it_is_now():
    class Obs:
        def __init__(self, ids):
            self.track_ids = np.array(ids)
    frames = [Obs([5, 7]), Obs([7, -1])]          # track ids as vision.swaps left them
    reads = track_reads([(0, 0, _read(1)), (0, 1, _read(2)), (1, 0, _read(2)), (1, 1, _read(3)), (2, 0, _read(4))],
                        frames)
    assert sorted(reads) == [5, 7] and len(reads[7]) == 2 and len(reads[5]) == 1
    assert vote_numbers(reads)[7].reads == 2


def test_events_name_the_player_by_his_shirt_where_it_was_read():
    from reports.debrief import who
    from reports.writers import console_summary, shown
    events = [{"code": "CONTACT_BEFORE_THROW_IN", "player": "red-t7", "opponent": "blue-t3", "worst": {}},
              {"code": "FIVE_YARD", "player": "blue-t3", "worst": {}}]
    name_events(events, {"red-t7": shirt_name("red", 2)})
    assert events[0]["player_shirt"] == "Red #2" and "opponent_shirt" not in events[0]
    assert shown(events[0]) == "Red #2 (red-t7)" and shown(events[1]) == "blue-t3"
    assert who(events[0]) == "Red #2 (red-t7) × blue-t3"
    report = {"video": "v.mp4", "frames_analysed": 3, "summary": {"processing_s": 1.0},
              "calibration": {"rms_px": 1, "rms_yd": 0.1}, "throw_in": {"frame": None},
              "events": [{**events[1], "start_frame": 0, "end_frame": 2, "start_s": 0.0, "end_s": 0.1,
                          "worst": {"distance_yd": 3.0}, "player_shirt": "Blue #3"}]}
    assert "Blue #3 (blue-t3)" in console_summary(report)


def test_crops_and_the_size_a_number_is_read_at():
    boxes = np.array([[10, 10, 40, 80], [10, 10, 40, 30], [np.nan] * 4])
    assert readable(boxes).tolist() == [True, False, False]
    crops = crop_riders(np.full((100, 100, 3), 200, np.uint8), boxes[:2])
    assert crops.shape == (2, 3, CROP_H, CROP_W) and np.allclose(crops[0], 200 / 255)


def test_loading_options(tmp_path):
    assert load_number_reader("none") is None
    with pytest.raises(ModelError, match="not found"):
        load_number_reader(tmp_path / "missing.pt")
    bad = tmp_path / "bad.pt"
    bad.write_text("not weights")
    with pytest.raises(ModelError, match="cannot load"):
        load_number_reader(bad)


def test_the_renderer_records_where_it_drew_each_number_and_what_still_shows():
    d = lineup_doc((1280, 720), frames=1, seed=2, throw_in_frame=None)
    d["camera"] = {"position": [148.75, 40.0, 2.2], "look_at": [148.75, 70.0, 1.5], "focal_px": 1400}
    r = Renderer(parse_scenario(d), effects=False)
    recs = {rec.id: rec for rec in r.render(0)[1]}
    front = recs["red-1"]
    assert front.number_box is not None and front.number_visible > 0.9
    x1, y1, x2, y2 = front.number_box
    rider = front.boxes["rider"]
    assert rider[0] <= x1 < x2 <= rider[2] and rider[1] <= y1 < y2 <= rider[3]
    hidden = [recs[k] for k in ("red-2", "red-3", "red-4") if recs[k].number_box is not None]
    assert hidden and all(rec.number_visible < 0.5 for rec in hidden)       # behind red-1
    assert recs["umpire-1" if "umpire-1" in recs else next(k for k in recs if recs[k].role == "umpire")].number_box is None


@pytest.mark.skipif(not DEFAULT_NUMBER_MODEL.exists(), reason="no shipped shirt-number reader")
def test_shipped_reader_reads_the_numbers_it_can_see():
    """Rendered riders (frames and seeds the reader was not trained on): every confident read
    is right, and most numbers fully shown are read."""
    from vision.number_training import frame_crops, VAL_SEED_OFFSET
    reader = NumberReader()
    crops, labels = [], []
    for i in range(12):
        c, y = frame_crops((777 + VAL_SEED_OFFSET, i, 1, 0.03))
        crops.append(c)
        labels.append(y)
    crops, labels = np.concatenate(crops), np.concatenate(labels)
    assert (labels > 0).sum() >= 10
    p = reader.read_crops(crops.astype(np.float32) / 255)
    counted = p[:, 1:].max(axis=1) >= READ_MIN
    digit = p[:, 1:].argmax(axis=1) + 1
    assert (digit[counted] == labels[counted]).mean() >= 0.95
    assert (counted & (digit == labels))[labels > 0].mean() >= 0.5


def test_the_annotated_clip_tags_a_box_and_a_banner_with_the_number_read():
    from vision.annotate_clip import event_lines
    from vision.draw import Marker
    assert Marker("red-t7", "red", shirt=2).label == "red-t7 #2" and Marker("red-t7", "red").label == "red-t7"
    ev = {"code": "WRONG_SIDE", "player": "red-t2", "player_shirt": "Red #4", "start_frame": 0, "end_frame": 9,
          "worst": {"across_yd": 1.3}}
    assert event_lines([ev], 5) == ["WRONG SIDE Red #4 (red-t2) 1.3 yd"]


def test_report_csv_gives_each_players_shirt_number_where_read():
    import csv
    import io
    from reports.writers import report_csv
    frame = {"index": 3, "t": 0.12, "phase": "lineup", "violations": [], "umpires": [],
             "players": [{"id": "red-t2", "track_id": 2, "team": "red", "x_yd": 150.0, "y_yd": 60.0, "sigma_yd": 0.2},
                         {"id": "blue-t5", "track_id": 5, "team": "blue", "x_yd": 146.0, "y_yd": 60.0, "sigma_yd": 0.2}]}
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(report_csv(
        {"frames": [frame], "shirt_numbers": {"named": {"red-t2": 4}}})))}
    assert rows["red-t2"]["shirt_number"] == "4" and rows["blue-t5"]["shirt_number"] == ""


def test_training_runs_end_to_end_on_a_few_rendered_frames(tmp_path, capsys):
    from cli.main import main
    from vision.number_training import NumberTrainConfig, train_numbers
    lines = []
    record = train_numbers(NumberTrainConfig(out=str(tmp_path / "n.pt"), images=6, val_images=2, epochs=1,
                                             workers=1, cuts=1), progress=lines.append)
    assert record["crops"] == sum(record["crops_by_class"]) > 0 and len(lines) == 1
    assert (tmp_path / "n.train.json").exists()
    p = NumberReader(tmp_path / "n.pt").read(np.zeros((80, 80, 3), np.uint8), np.array([[10, 5, 40, 70]]))
    assert p.shape == (1, 5) and abs(float(p.sum()) - 1) < 1e-4
    assert main(["train-numbers", "--out", str(tmp_path / "m.pt"), "--epochs", "0"]) == 2
    assert "must be at least 1" in capsys.readouterr().err and not (tmp_path / "m.pt").exists()


def test_the_console_and_the_debrief_name_the_slow_returner_of_the_rules_example():
    """"Red #2 is slow returning to the lineup and is still 20 yards from center": the note is
    printed once for its run of frames, with the player's shirt and his largest distance."""
    from reports.debrief import debrief_html
    from reports.writers import console_summary
    frames = []
    for i, d in enumerate((20.4, 21.3, 20.9)):
        frames.append({"index": i, "t": i * 0.04, "phase": "lineup", "violations": [], "umpires": [],
                       "players": [{"id": "red-t1", "track_id": 1, "team": "red", "x_yd": 150.0 - d, "y_yd": 60.0,
                                    "sigma_yd": 0.2}],
                       "notes": [{"code": "SLOW_TO_LINEUP", "player": "red-t1", "distance_from_centre_yd": d,
                                  "text": "not yet in the line-up"}]})
    report = {"video": "v.mp4", "frames_analysed": 3, "fps": 25.0, "summary": {"processing_s": 1.0},
              "calibration": {"rms_px": 1, "rms_yd": 0.1}, "throw_in": {"frame": None}, "events": [],
              "frames": frames, "shirt_numbers": {"reader": "r.pt", "reads": 9, "named": {"red-t1": 2},
                                                  "same_player": []}}
    text = console_summary(report)
    assert "  SLOW_TO_LINEUP Red #2 (red-t1) frames 0-2, up to 21.3 yd from the centre" in text.splitlines()
    assert "Red #2 (red-t1) frames 0-2, up to 21.3 yd from the centre" in debrief_html(report)
