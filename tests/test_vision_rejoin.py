"""A track cut at a team change given back the past of the player it carries on with (vision.rejoin)."""
import numpy as np

from vision.observe import FrameObs
from vision.rejoin import REJOIN_NEAR_YD, rejoin_cut_parts
from vision.swaps import split_swaps
from vision.teams import IdentityVoter
from tests.looks import BLUE, RED, jersey_look


def _frame(pos, rows):
    """rows: (track id, (x, y) yd)."""
    n = len(rows)
    z = np.zeros((n, 4))
    ids = np.array([r[0] for r in rows], int)
    xy = np.array([r[1] for r in rows], float).reshape(n, 2)
    return FrameObs(pos, pos / 25, np.eye(3), True, ids, z, z, np.zeros(n, bool), np.zeros((n, 2)), xy, None, None)


def _red_rides_past_blue(blue_id_to_red_at=30, red_lost_until=50, other_red=None, other_red_until=30):
    """Red (track 1) rides forward from y 76 and passes Blue (track 2), who stands at y 72.7.
    At `blue_id_to_red_at` Blue's track carries on with Red; Red's own track is lost until
    `red_lost_until`, when the tracker gives it to Blue's horse. `other_red`: a third track,
    red, seen until `other_red_until`."""
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE})
    frames, looks = [], []
    for pos in range(80):
        red = (150.0, 76.0 - 0.15 * max(0, pos - 20))
        blue = (150.3, 72.7)
        rows, said = [], []
        if other_red is not None and pos < other_red_until:
            rows.append((3, other_red(pos)))
            said.append((3, RED))
        if pos < blue_id_to_red_at:
            rows += [(1, red), (2, blue)]
            said += [(1, RED), (2, BLUE)]
        else:
            rows.append((2, red))
            said.append((2, RED))
            if pos >= red_lost_until:
                rows.append((1, blue))
                said.append((1, BLUE))
        frames.append(_frame(pos, rows))
        for tid, colour in said:
            look = jersey_look(colour)
            voter.observe(tid, look)
            looks.append((pos, tid, look, None))
    return frames, looks, voter


def _positions(frames, tid):
    return {pos: tuple(f.field_yd[np.flatnonzero(f.track_ids == tid)[0]]) for pos, f in enumerate(frames)
            if (f.track_ids == tid).any()}


def test_the_player_the_track_was_carried_onto_keeps_his_track_from_the_line_up_on():
    frames, looks, voter = _red_rides_past_blue()
    cuts = split_swaps(frames, voter, looks)
    assert len(cuts) == 2                       # both tracks change team: cut
    red_part = [new for old, new, at in cuts if old == 2][0]
    blue_part = [new for old, new, at in cuts if old == 1][0]
    done = rejoin_cut_parts(frames, voter, looks, cuts)
    assert [(part, tid) for part, tid, _, _ in done] == [(red_part, 1)]
    red, blue = _positions(frames, 1), _positions(frames, 2)
    # Red is track 1 in every frame, at Red's place; Blue track 2 until he was lost, then a
    # track of his own: lost 20 frames before, his is no hand-over
    assert sorted(red) == list(range(80))
    assert all(abs(x - 150.0) < 1e-9 for x, _ in red.values())
    assert sorted(blue) == list(range(30)) and sorted(_positions(frames, blue_part)) == list(range(50, 80))
    assert voter.identity(1) == "red" and voter.identity(2) == "blue" and voter.identity(blue_part) == "blue"
    # the looks follow the ids
    for tid, team in ((1, "red"), (2, "blue")):
        assert set(voter.look_names(np.array([look.feature for _, t, look, _ in looks if t == tid]))) == {team}


def test_two_boxes_on_one_player_at_the_hand_over_keep_the_parts():
    # Red's own track is still on him in the part's first two frames (two boxes on one horse)
    frames, looks, voter = _red_rides_past_blue()
    for pos in (30, 31):
        f = frames[pos]
        red = f.field_yd[f.track_ids == 2][0] + (0.1, 0.0)
        frames[pos] = _frame(pos, [(int(t), tuple(xy)) for t, xy in zip(f.track_ids, f.field_yd)] + [(1, tuple(red))])
    cuts = split_swaps(frames, voter, looks)
    red_part = [new for old, new, at in cuts if old == 2][0]
    done = rejoin_cut_parts(frames, voter, looks, cuts)
    assert (red_part, 1) in {(part, tid) for part, tid, _, _ in done}
    assert all((f.track_ids == 1).sum() == 1 for f in frames)     # the part's box kept, the other dropped
    assert sorted(_positions(frames, 1)) == list(range(80))


def test_a_track_lost_frames_before_the_part_began_is_not_joined():
    frames, looks, voter = _red_rides_past_blue()
    for f in frames[26:30]:                     # Red's own track lost four frames before the carry-over
        f.track_ids[f.track_ids == 1] = -1
    cuts = split_swaps(frames, voter, looks)
    red_part = [new for old, new, at in cuts if old == 2][0]
    done = rejoin_cut_parts(frames, voter, looks, cuts)
    assert red_part not in {part for part, _, _, _ in done}


def test_a_track_of_the_team_that_goes_on_is_not_taken_for_the_lost_one():
    # a red track standing 0.6 yd from where Red is lost, seen all along: Red's own lost track is the one
    frames, looks, voter = _red_rides_past_blue(other_red=lambda pos: (150.6, 74.5), other_red_until=80)
    cuts = split_swaps(frames, voter, looks)
    red_part = [new for old, new, at in cuts if old == 2][0]
    done = rejoin_cut_parts(frames, voter, looks, cuts)
    assert (red_part, 1) in {(part, tid) for part, tid, _, _ in done}
    assert sorted(_positions(frames, 3)) == list(range(80))


def test_two_lost_tracks_of_the_team_near_the_part_leave_it_alone():
    # another red track lost at the same moment, 0.5 yd from the first: which one goes on is unknown
    frames, looks, voter = _red_rides_past_blue(other_red=lambda pos: (150.5, 76.0 - 0.15 * max(0, pos - 20)))
    cuts = split_swaps(frames, voter, looks)
    red_part = [new for old, new, at in cuts if old == 2][0]
    done = rejoin_cut_parts(frames, voter, looks, cuts)
    assert red_part not in {part for part, _, _, _ in done}
    assert any((f.track_ids == red_part).any() for f in frames)


def test_a_lost_track_too_far_from_the_part_is_not_joined():
    frames, looks, voter = _red_rides_past_blue()
    for f in frames[30:]:                       # the carried-over track now starts far from where Red was lost
        f.field_yd[f.track_ids == 2] += (0.0, -(REJOIN_NEAR_YD + 1.0))
    cuts = split_swaps(frames, voter, looks)
    red_part = [new for old, new, at in cuts if old == 2][0]
    done = rejoin_cut_parts(frames, voter, looks, cuts)
    assert red_part not in {part for part, _, _, _ in done}
