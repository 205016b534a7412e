"""Grooms and spectators near the boards, and more than four tracks of a team at once
(vision.roster): off-field tracks are left out, the excess is masked frame by frame."""
from __future__ import annotations

import numpy as np

from vision.roster import limit_roster

TEAMS = ["red", "blue"]


def test_off_field_tracks_are_left_out_and_umpires_are_kept():
    F = 10
    xy = np.zeros((4, F, 2))
    xy[0] = [140.0, 60.0]                 # red player
    xy[1] = [150.0, 172.0]                # a "red" groom 12 yd beyond the east sideline
    xy[2] = [150.0, 58.0]                 # umpire
    xy[3] = [-20.0, 60.0]                 # a "blue" spectator behind the south end line
    ident = {1: "red", 2: "red", 3: "umpire", 4: "blue"}
    out, xy2, roster = limit_roster(ident, [1, 2, 3, 4], xy, TEAMS, 300.0, 160.0)
    assert out == {1: "red", 3: "umpire"}
    assert roster.outside == [2, 4] and roster.masked_frames == 0
    assert np.array_equal(xy2, xy)


def test_a_fifth_red_at_once_is_masked_but_a_split_track_is_kept():
    F = 20
    xy = np.full((6, F, 2), np.nan)
    for k in range(4):
        xy[k] = [140.0 + 3 * k, 60.0]      # four reds all clip long, a rank's spacing apart
    xy[4, :5] = [145.0, 70.0]              # a fifth red (a spare horse) in frames 0-4
    xy[3, 10:] = np.nan                    # the 4th red's track is lost at frame 10...
    xy[5, 10:] = [146.0, 71.0]             # ...and goes on as a new track (an id switch)
    ident = {t: "red" for t in range(1, 7)}
    out, xy2, roster = limit_roster(ident, list(range(1, 7)), xy, TEAMS, 300.0, 160.0)
    assert out == ident
    assert np.isnan(xy2[4, :5]).all()      # the extra one, seen least, is masked while five are present
    assert np.isfinite(xy2[5, 10:]).all()  # the continuation never overlaps four others plus itself
    assert np.isfinite(xy2[:4, :10]).all()
    assert roster.masked_frames == 5 and roster.masked_positions == 5
    assert np.isfinite(xy[4, :5]).all()    # the input is not modified


def test_the_extra_one_farthest_from_the_umpire_is_masked():
    F = 10
    xy = np.full((6, F, 2), np.nan)
    for k in range(4):
        xy[k] = [146.0 + 3 * k, 62.0]      # four reds by the umpire...
    xy[1, :3] = np.nan                     # (one of them seen less)
    xy[4] = [150.0, 5.0]                   # ...and a "red" groom by the boards, seen in every frame
    xy[5] = [150.0, 58.0]                  # the umpire
    ident = {1: "red", 2: "red", 3: "red", 4: "red", 5: "red", 6: "umpire"}
    out, xy2, roster = limit_roster(ident, [1, 2, 3, 4, 5, 6], xy, TEAMS, 300.0, 160.0)
    assert np.isnan(xy2[4, 3:]).all() and np.isfinite(xy2[1, 3:]).all()
    assert np.isfinite(xy2[4, :3]).all()   # while only four reds are seen, the fourth is not masked
    assert roster.masked_frames == F - 3


def test_a_track_between_two_horses_of_a_rank_is_masked_not_the_rank_s_end():
    """A detector's box between two horses of a line-up rank makes a fifth track of the team
    1.1 yd from a real one (a rank's horses stand 2.4-2.9 yd apart), nearer the umpire than the
    rank's far end: of two tracks too close for a rank, the one seen less goes, not the real
    horse at the end (seen on clean_two_umpires with a retrained detector, session 19)."""
    F = 20
    xy = np.full((6, F, 2), np.nan)
    for k, y in enumerate((85.3, 88.2, 91.1, 94.0)):
        xy[k] = [148.8, y]                 # Red #4 ... #1, #4 farthest from the umpire
    xy[4, :12] = [148.8, 89.3]             # the box between #3 and #2, tracked for 12 frames
    xy[5] = [150.0, 100.0]                 # the umpire
    ident = {1: "red", 2: "red", 3: "red", 4: "red", 5: "red", 6: "umpire"}
    _, xy2, roster = limit_roster(ident, [1, 2, 3, 4, 5, 6], xy, TEAMS, 300.0, 160.0)
    assert np.isnan(xy2[4, :12]).all()
    assert np.isfinite(xy2[:4]).all()
    assert roster.masked_frames == 12 and roster.masked_positions == 12


def test_a_second_track_on_one_horse_is_masked_where_it_doubles_a_team_mate():
    F = 20
    xy = np.full((4, F, 2), np.nan)
    xy[0] = [148.75, 60.0]                 # Red #1 all clip long
    xy[1, 5:15] = [148.8, 60.1]            # a second track on him, 0.1 yd away, frames 5-14
    xy[1, 15:] = [148.8, 62.5]             # ...then on Red #2, 2.5 yd behind: a player again
    xy[2] = [149.7, 60.0]                  # Red #3, abreast 0.95 yd away: a team-mate can be that near
    xy[3] = [149.0, 60.2]                  # a blue rider 0.3 yd away: an opponent in a ride-off
    ident = {1: "red", 2: "red", 3: "red", 4: "blue"}
    out, xy2, roster = limit_roster(ident, [1, 2, 3, 4], xy, TEAMS, 300.0, 160.0)
    assert np.isnan(xy2[1, 5:15]).all() and np.isfinite(xy2[1, 15:]).all()
    assert np.isfinite(xy2[[0, 2, 3]]).all()
    assert roster.doubled_positions == 10 and roster.masked_positions == 0


def test_a_gap_guess_where_a_team_mate_track_sees_a_horse_is_masked():
    """A track carried across a gap (its position there a straight-line guess) that passes within
    GUESSED_DOUBLED_YD of a team-mate's track seen in that frame is the same horse followed twice
    there: the guess goes, the sighting stays. A guess beside an opponent, or a yard and a half
    from a team-mate, stays; so does a guess beside another guess."""
    from vision.roster import GUESSED_DOUBLED_YD
    F = 12
    xy = np.full((5, F, 2), np.nan)
    xy[0] = [148.8, 72.9]                  # Blue #4, seen all along
    xy[1] = [148.8, 72.0]                  # a second blue track on him, 0.9 yd off ...
    guessed = np.zeros((5, F), bool)
    guessed[1, 3:9] = True                 # ... a guess in frames 3-8 (seen in the others)
    xy[2] = [151.2, 72.0]                  # a red track 2.4 yd across, guessed throughout
    guessed[2] = True
    xy[3] = [148.8, 69.9]                  # Blue #3, 2.1 yd behind the double, guessed in 0-5
    guessed[3, :6] = True
    xy[4] = [150.0, 58.0]                  # umpire
    ident = {1: "blue", 2: "blue", 3: "red", 4: "blue", 5: "umpire"}
    out, xy2, roster = limit_roster(ident, [1, 2, 3, 4, 5], xy, TEAMS, 300.0, 160.0, guessed=guessed)
    assert 0.9 < GUESSED_DOUBLED_YD < 2.1
    assert np.isnan(xy2[1, 3:9, 0]).all()                          # the guess on the seen horse goes
    assert np.isfinite(xy2[1, :3, 0]).all() and np.isfinite(xy2[1, 9:, 0]).all()   # 0.9 yd, both seen: kept
    assert np.isfinite(xy2[[0, 2, 3, 4]]).all()
    assert roster.doubled_positions == 6
    # without the gaps' marks only the 0.6 yd rule applies: nothing is masked
    _, xy3, roster3 = limit_roster(ident, [1, 2, 3, 4, 5], xy, TEAMS, 300.0, 160.0)
    assert np.isfinite(xy3).all() and roster3.doubled_positions == 0
    # the seen one is kept whichever track is seen less
    guessed_a = np.zeros((5, F), bool)
    guessed_a[0, 3:9] = True
    _, xy4, _ = limit_roster(ident, [1, 2, 3, 4, 5], xy, TEAMS, 300.0, 160.0, guessed=guessed_a)
    assert np.isnan(xy4[0, 3:9, 0]).all() and np.isfinite(xy4[1]).all()


def test_a_second_track_voted_the_other_team_on_one_horse_is_masked_where_it_doubles_him():
    """A track on Red #1's horse voted blue, 0.15 yd from him for frames 5-14 (a five-throw-in
    recording seen from afar: a 0.15-yd 'contact'), is masked there; an opponent in contact
    stands a horse's width away and stays."""
    F = 20
    xy = np.full((3, F, 2), np.nan)
    xy[0] = [148.75, 60.0]                 # Red #1 all clip long
    xy[1, 5:15] = [148.85, 60.1]           # the double, voted blue
    xy[1, 15:] = [151.2, 60.0]             # ...then on a blue horse across the line
    xy[2] = [149.45, 60.0]                 # Blue #2 in contact, 0.7 yd away
    out, xy2, roster = limit_roster({1: "red", 2: "blue", 3: "blue"}, [1, 2, 3], xy, TEAMS, 300.0, 160.0)
    assert np.isnan(xy2[1, 5:15]).all() and np.isfinite(xy2[1, 15:]).all()
    assert np.isfinite(xy2[[0, 2]]).all()
    assert roster.doubled_positions == 10


def test_a_team_s_track_on_the_umpire_s_horse_is_masked_where_it_doubles_him():
    """A track voted red on the umpire's horse, 0.05-0.27 yd from the umpire's track for frames
    4-13 (a re-rendered jostling_at_centre: a 20-frame 5-yard 'violation' of the umpire by
    himself), is masked there and the umpire kept; a player beside the umpire's horse, a horse's
    width (0.7 yd) away, stays."""
    F = 20
    xy = np.full((3, F, 2), np.nan)
    xy[0] = [150.0, 58.0]                                   # the umpire all clip long
    xy[1, 4:14] = [150.0, 57.75]                            # the double, voted red
    xy[1, 14:] = [148.75, 60.0]                             # ...then on a red horse in the rank
    xy[2] = [150.7, 58.0]                                   # Blue #1 beside the umpire
    out, xy2, roster = limit_roster({7: "umpire", 8: "red", 9: "blue"}, [7, 8, 9], xy, TEAMS, 300.0, 160.0)
    assert np.isnan(xy2[1, 4:14]).all() and np.isfinite(xy2[1, 14:]).all()
    assert np.isfinite(xy2[[0, 2]]).all()
    assert roster.doubled_positions == 10
    assert out[8] == "red"
