"""Every worked example of USPA Rule 20 (../shared/USPA-rule-20.txt), as a test named after it."""
from __future__ import annotations

import math

import pytest

from rules import check_document
from rules.direction import replay_game
from tests.lineups import codes, doc, frame, lineup_players, move, note_codes


# --- The opening throw-in ----------------------------------------------------------------
def test_opening_throw_in_each_team_on_its_side_none_within_5_yards_is_clean():
    v = check_document(doc(frame("lineup"), frame("throw_in", ball={"x": 150, "y": 60})))
    assert codes(v) == []
    assert v["summary"]["throw_in_frames"] == [1]


def test_opening_throw_in_player_within_5_yards_of_umpire():
    players = move(lineup_players(), "blue-1", x=151.5, y=63.0)   # 3.35 yd from the umpire
    v = check_document(doc(frame("lineup", players)))
    (rec,) = v["frames"][0]["violations"]
    assert rec["code"] == "FIVE_YARD" and rec["player"] == "blue-1" and rec["umpire"] == "U1"
    assert rec["distance_yd"] == pytest.approx(math.hypot(1.5, 3.0), abs=1e-9)


def test_opening_throw_in_exactly_5_yards_is_allowed():
    players = move(lineup_players(), "red-1", x=147.0, y=64.0)    # a 3-4-5 triangle: exactly 5 yd
    assert codes(check_document(doc(frame("lineup", players)))) == []


def test_opening_throw_in_team_on_wrong_side_of_centre_line():
    players = move(lineup_players(), "red-3", x=152.0, y=95.0)
    v = check_document(doc(frame("lineup", players)))
    (rec,) = v["frames"][0]["violations"]
    assert (rec["code"], rec["player"], rec["defending"]) == ("WRONG_SIDE", "red-3", "south")
    assert rec["across_yd"] == pytest.approx(2.0)


def test_opening_throw_in_on_the_centre_line_is_not_wrong_side():
    players = move(lineup_players(), "red-3", x=150.0)
    assert codes(check_document(doc(frame("lineup", players)))) == []


def test_two_umpires_each_keep_their_5_yards():
    umpires = [{"id": "U1", "x": 150, "y": 60}, {"id": "U2", "x": 150, "y": 90}]
    players = move(lineup_players(), "blue-4", y=88.0)            # 2.5 yd from U2
    v = check_document(doc(frame("lineup", players, umpires)))
    (rec,) = v["frames"][0]["violations"]
    assert (rec["code"], rec["player"], rec["umpire"]) == ("FIVE_YARD", "blue-4", "U2")


# --- Consistent procedure ------------------------------------------------------------------
def test_throw_in_more_than_20_yards_from_the_boards_is_allowed():
    umpire = [{"id": "U1", "x": 150, "y": 20.5}]
    players = lineup_players(y0=27.5)
    assert codes(check_document(doc(frame("throw_in", players, umpire)))) == []


@pytest.mark.parametrize("y, side", [(20.0, "west"), (12.0, "west"), (145.0, "east")])
def test_throw_in_20_yards_or_less_from_the_boards(y, side):
    umpire = [{"id": "U1", "x": 150, "y": y}]
    players = lineup_players(y0=y + 7 if y < 80 else y - 17)
    v = check_document(doc(frame("throw_in", players, umpire)))
    (rec,) = v["frames"][0]["violations"]
    assert (rec["code"], rec["sideline"]) == ("THROW_IN_NEAR_BOARDS", side)
    assert rec["distance_yd"] == pytest.approx(min(y, 160 - y), abs=1e-9)


def test_near_boards_only_judged_at_the_throw_in_frame():
    umpire = [{"id": "U1", "x": 150, "y": 15}]
    assert codes(check_document(doc(frame("lineup", lineup_players(y0=22), umpire)))) == []


def test_players_must_not_be_in_contact():
    players = move(move(lineup_players(), "red-2", x=149.6), "blue-2", x=150.4)
    v = check_document(doc(frame("lineup", players)))
    (rec,) = v["frames"][0]["violations"]
    assert rec["code"] == "CONTACT_BEFORE_THROW_IN"
    assert {rec["player"], rec["opponent"]} == {"red-2", "blue-2"}
    assert rec["distance_yd"] == pytest.approx(0.8, abs=1e-9)


def test_teammates_side_by_side_are_not_contact():
    players = move(lineup_players(), "red-2", y=68.0)              # 1 yd from red-1
    assert codes(check_document(doc(frame("lineup", players)))) == []


def test_players_may_not_rush_the_umpire():
    # blue-1 charges the umpire at 8 yd/s from 14 yd away (25 fps); stays outside 5 yd.
    frames = []
    for k in range(8):
        y = 74.0 - 8.0 * k / 25.0
        frames.append(frame("lineup", move(lineup_players(), "blue-1", y=y, x=151.5)))
    v = check_document(doc(*frames))
    rushing = [r for fr in v["frames"] for r in fr["violations"] if r["code"] == "RUSHING_UMPIRE"]
    assert rushing and all(r["player"] == "blue-1" for r in rushing)
    assert max(r["closing_speed_yds"] for r in rushing) > 4.0


def test_walking_up_to_the_line_up_is_not_rushing():
    frames = [frame("lineup", move(lineup_players(), "blue-1", y=74.0 - 1.5 * k / 25.0)) for k in range(20)]
    assert "RUSHING_UMPIRE" not in codes(check_document(doc(*frames)))


# --- The worked examples -------------------------------------------------------------------
def test_example_both_teams_jostle_for_position_at_the_centre_line():
    """Both teams arrive at the center line and jostle for position: play should be stopped."""
    players = lineup_players(red_x=149.5, blue_x=150.4)
    v = check_document(doc(frame("lineup", players)))
    assert codes(v) == ["CONTACT_BEFORE_THROW_IN"] * 4


def test_example_teams_advance_on_the_umpire_inside_5_yards():
    """The teams line up and move toward the Umpire: stopped if the 5-yard provision is violated."""
    frames = [frame("lineup", lineup_players(y0=67 - k)) for k in range(4)]   # y0 = 67, 66, 65, 64
    v = check_document(doc(*frames, fps=1.0))                              # at a walk: 1 yd/s
    assert codes(v, 0) == [] and codes(v, 1) == []
    assert codes(v, 3) == ["FIVE_YARD", "FIVE_YARD"]                       # red-1 and blue-1 at 4.27 yd


def test_example_red_2_slow_returning_gets_extra_time_with_the_clock_stopped():
    """Red #2 is still 20 yards from center when the Umpire is ready: extra time, clock stopped."""
    players = move(lineup_players(), "red-2", x=130.0)
    v = check_document(doc(frame("lineup", players)))
    assert codes(v) == []
    (note,) = v["frames"][0]["notes"]
    assert note["code"] == "SLOW_TO_LINEUP" and note["player"] == "red-2"
    assert note["distance_from_centre_yd"] == pytest.approx(20.0)
    assert "clock stopped" in note["text"]


def test_riding_back_through_the_other_half_is_not_yet_the_line_up():
    """After a goal, ends change and half the players ride back through what is now the other
    half. Farther than the line-up depth (10 yd) from the centre line a player is not yet in
    the line-up, whichever side he is on (Red #2's extra time): no WRONG_SIDE while he rides in.
    Across the line and in the line-up, or across it anywhere when the ball is thrown in, he is."""
    riding = move(lineup_players(), "red-2", x=172.0)                   # red defends south: 22 yd across
    near = move(lineup_players(), "red-2", x=156.0)                     # 6 yd across: in the line-up
    v = check_document(doc(frame("lineup", riding), frame("lineup", near), frame("throw_in", riding),
                           fps=0.2))                                    # 5 s apart: nobody rushes
    assert codes(v, 0) == [] and note_codes(v, 0) == ["SLOW_TO_LINEUP"]
    assert codes(v, 1) == ["WRONG_SIDE"]
    (rec,) = v["frames"][2]["violations"]
    assert (rec["code"], rec["player"], rec["across_yd"]) == ("WRONG_SIDE", "red-2", pytest.approx(22.0))


def test_the_line_up_is_judged_once_the_umpire_is_positioned():
    """"The ball is ready for play when the Umpire is positioned." While he still rides to the
    throw-in spot (2 yd/s) the players are arriving too: Red #3, 3 yd across the line, and Blue #1
    cantering at him are not yet judged; about half a second after he stands (his speed over the
    last second under 1 yd/s), the line-up is: WRONG_SIDE (and the throw-in frame always)."""
    players = move(lineup_players(), "red-3", x=153.0)
    frames = []
    for i in range(40):
        umpire = {"id": "U1", "x": 150.0, "y": 58.0 - 0.08 * max(0, 20 - i)}     # stands from frame 20
        blue_1 = move(players, "blue-1", y=64.0 + 0.25 * max(0, 20 - i))        # 6 yd/s at him, then still
        frames.append(frame("lineup" if i < 39 else "throw_in", blue_1, umpires=[umpire]))
    v = check_document(doc(*frames))
    assert all(codes(v, i) == [] for i in range(1, 21)), [codes(v, i) for i in range(1, 21)]
    assert all("WRONG_SIDE" in codes(v, i) for i in range(34, 40))
    assert not any("RUSHING_UMPIRE" in codes(v, i) for i in range(40))


def test_example_blue_3_changes_horses_no_extra_time():
    """Blue #3 changes horses: no extra time; the line-up and throw-in go on without him."""
    players = move(lineup_players(), "blue-3", x=185.0, changing_horse=True)
    v = check_document(doc(frame("lineup", players), frame("throw_in", players)))
    assert codes(v) == []
    assert note_codes(v, 0) == ["HORSE_CHANGE_NO_EXTRA_TIME"] and note_codes(v, 1) == ["HORSE_CHANGE_NO_EXTRA_TIME"]
    assert "no extra time" in v["frames"][0]["notes"][0]["text"]


def _slow_blue_1_sequence(blue_1_plays: bool) -> dict:
    players = move(lineup_players(), "blue-1", x=170.0, y=80.0)          # 20 yd from centre, own side
    after = move(players, "blue-3", x=155.0)
    play_frames = [frame("play", after, ball={"x": 160, "y": 75}, play={"player": "blue-3"})]
    play_frames.append(frame("play", after, ball={"x": 169, "y": 79},
                             **({"play": {"player": "blue-1"}} if blue_1_plays else {})))
    return doc(frame("lineup", players), frame("throw_in", players, ball={"x": 150, "y": 66}), *play_frames)


def test_example_blue_1_slow_returning_then_involved_delayed_foul():
    """Blue #1 is 20 yards from center when the ball is ready; Blue #3 hits to him: foul on Blue #1."""
    v = check_document(_slow_blue_1_sequence(blue_1_plays=True))
    assert note_codes(v, 1) == ["OUT_OF_LINEUP_AT_THROW_IN"]
    assert codes(v) == ["IMPROPER_POSITIONING"]
    (rec,) = v["frames"][3]["violations"]
    assert rec["player"] == "blue-1" and rec["delayed_whistle"] is True and rec["throw_in_frame"] == 1
    assert rec["distance_from_centre_yd"] == pytest.approx(20.0)


def test_example_blue_1_slow_returning_not_involved_no_foul():
    """Had Blue not become involved in the play, the Umpire could elect not to call a foul."""
    v = check_document(_slow_blue_1_sequence(blue_1_plays=False))
    assert codes(v) == []


# --- Wrong side of the line-up ------------------------------------------------------------------
def _wrong_side_sequence(after_frames: list[dict]) -> dict:
    """red-4 lines up on the north (wrong) side; the throw-in is at (150, 60)."""
    players = move(lineup_players(), "red-4", x=153.0, y=85.0)
    return doc(frame("lineup", players), frame("throw_in", players, ball={"x": 150, "y": 60}), *after_frames)


def test_wrong_side_player_plays_at_once_is_penalised():
    players = move(lineup_players(), "red-4", x=153.0, y=85.0)
    v = check_document(_wrong_side_sequence([frame("play", players, ball={"x": 152, "y": 80},
                                                   play={"player": "red-4"})]))
    assert "WRONG_SIDE" in codes(v, 0) and codes(v, 2) == ["ILLEGAL_PLAY_FROM_WRONG_SIDE"]
    (rec,) = v["frames"][2]["violations"]
    assert rec["player"] == "red-4" and rec["throw_in_frame"] == 1 and rec["passed_midfield"] is False


def test_wrong_side_player_may_play_once_behind_a_properly_positioned_teammate():
    # Red attacks north: red-4 is "behind" red-1 once red-1 (properly positioned) is farther north.
    players = move(move(lineup_players(), "red-4", x=153.0, y=85.0), "red-1", x=160.0)
    v = check_document(_wrong_side_sequence([frame("play", players, ball={"x": 158, "y": 80},
                                                   play={"player": "red-4"})]))
    assert codes(v, 2) == []


def test_wrong_side_player_passed_by_teammate_stays_free_for_the_play():
    passed = move(move(lineup_players(), "red-4", x=153.0, y=85.0), "red-1", x=160.0)
    later = move(passed, "red-1", x=150.0)            # teammate drops back again: red-4 is still free
    v = check_document(_wrong_side_sequence([frame("play", passed, ball={"x": 150, "y": 70}),
                                             frame("play", later, ball={"x": 154, "y": 84},
                                                   play={"player": "red-4"})]))
    assert codes(v, 3) == []


def test_wrong_side_player_free_after_ball_travelled_30_yards_and_he_passed_midfield():
    players = move(lineup_players(), "red-4", x=140.0, y=85.0)          # back in his own half
    v = check_document(_wrong_side_sequence([frame("play", players, ball={"x": 120, "y": 60}),   # 30.0 yd
                                             frame("play", players, ball={"x": 141, "y": 85},
                                                   play={"player": "red-4"})]))
    assert codes(v, 3) == []


def test_wrong_side_player_ball_travelled_30_yards_but_not_past_midfield_is_penalised():
    players = move(lineup_players(), "red-4", x=155.0, y=85.0)
    v = check_document(_wrong_side_sequence([frame("play", players, ball={"x": 150, "y": 95},
                                                   play={"player": "red-4"})]))
    (rec,) = v["frames"][2]["violations"]
    assert rec["code"] == "ILLEGAL_PLAY_FROM_WRONG_SIDE" and rec["ball_travel_yd"] == pytest.approx(35.0)


def test_wrong_side_player_past_midfield_but_ball_under_30_yards_is_penalised():
    players = move(lineup_players(), "red-4", x=149.0, y=85.0)   # in his half, not behind a teammate
    v = check_document(_wrong_side_sequence([frame("play", players, ball={"x": 145, "y": 80},
                                                   play={"player": "red-4"})]))
    (rec,) = v["frames"][2]["violations"]
    assert rec["code"] == "ILLEGAL_PLAY_FROM_WRONG_SIDE" and rec["passed_midfield"] is True
    assert rec["ball_travel_yd"] == pytest.approx(math.hypot(5, 20), abs=1e-9)


# --- No right of way inside the line-up ---------------------------------------------------
def test_no_right_of_way_inside_the_line_up_plays_from_any_angle_are_legal():
    players = lineup_players()
    frames = [frame("throw_in", players, ball={"x": 150, "y": 60})]
    for k, pid in enumerate(["blue-2", "red-1", "red-3", "blue-4"]):
        frames.append(frame("play", players, ball={"x": 150 + k, "y": 68}, play={"player": pid}))
    assert codes(check_document(doc(*frames))) == []


# --- Everyone lined up the wrong way ------------------------------------------------------
def test_example_everyone_lined_up_the_wrong_way_no_redress():
    players = lineup_players(red_x=151.5, blue_x=148.5)
    after = frame("play", players, ball={"x": 140, "y": 70}, play={"player": "red-1"})
    v = check_document(doc(frame("lineup", players), frame("throw_in", players), after))
    assert codes(v, 0) == ["REVERSED_LINEUP"] and codes(v, 1) == ["REVERSED_LINEUP"]
    assert v["frames"][0]["violations"][0]["redress"] is False
    assert note_codes(v, 0) == ["REVERSED_LINEUP_NO_REDRESS"]
    assert codes(v, 2) == []                         # play goes on: no wrong-side penalty


def test_all_but_one_player_wrong_is_not_a_reversed_line_up():
    players = move(lineup_players(red_x=151.5, blue_x=148.5), "blue-4", x=152.0, y=95.0)
    v = check_document(doc(frame("lineup", players)))
    assert codes(v) == ["WRONG_SIDE"] * 7


# --- Goals and direction (the line-up accepted by all) ------------------------------------------
def test_example_red_scores_south_twice_goal_stands_and_ends_change_normally():
    red_south_attack = {"red": "north", "blue": "south"}
    events = [{"type": "throw_in"}, {"type": "goal", "team": "red", "end": "south"},
              {"type": "throw_in", "defending": red_south_attack},        # lined up the wrong way
              {"type": "goal", "team": "red", "end": "south"},
              {"type": "throw_in"}]
    rec = replay_game(red_south_attack, events)
    assert rec[2]["wrong_way"] is True
    assert rec[3]["credited_to"] == "red" and rec[3]["wrong_way_lineup"] is True
    assert rec[4]["expected"] == {"red": "south", "blue": "north"}       # Red now attacks north
    assert rec[4]["wrong_way"] is False


def test_example_wrong_way_discovered_between_periods_direction_reversed():
    toss = {"red": "north", "blue": "south"}
    events = [{"type": "throw_in"}, {"type": "goal", "team": "red", "end": "south"},
              {"type": "throw_in", "defending": toss}, {"type": "period_end"}, {"type": "throw_in"}]
    rec = replay_game(toss, events)
    assert rec[3]["direction_corrected"] is True
    assert rec[4]["expected"] == {"red": "south", "blue": "north"}       # Red attacks north again


def test_example_blue_1_late_after_horse_change_scores_own_goal_counts_for_red():
    blue_attacks_north = {"red": "north", "blue": "south"}
    rec = replay_game(blue_attacks_north, [{"type": "throw_in"}, {"type": "goal", "team": "blue", "end": "south"}])
    assert rec[1]["credited_to"] == "red" and rec[1]["own_goal"] is True
    # And on the field: 7 players in position, Blue #1 riding in from the south (his own side).
    players = move(lineup_players(red_x=151.5, blue_x=148.5), "blue-1", x=110.0, changing_horse=True)
    v = check_document(doc(frame("throw_in", players), defending=blue_attacks_north))
    assert codes(v) == [] and note_codes(v, 0) == ["HORSE_CHANGE_NO_EXTRA_TIME"]


def test_goal_in_the_right_goal_counts_for_the_scorer_and_ends_change():
    rec = replay_game({"red": "south", "blue": "north"},
                      [{"type": "throw_in"}, {"type": "goal", "team": "red", "end": "north"}, {"type": "throw_in"}])
    assert rec[1]["credited_to"] == "red" and rec[1]["own_goal"] is False
    assert rec[2]["expected"] == {"red": "north", "blue": "south"}
