"""Cutting a track where it jumped from one team's player to the other's (vision.swaps)."""
import numpy as np
import pytest

from vision.observe import FrameObs
from vision.swaps import MIN_LOOKS, change_point, exchange_swaps, run_of_other_team, split_swaps
from vision.teams import Appearance, IdentityVoter, colour_feature, bgr_to_lab
from tests.looks import BLUE, RED, jersey_look


def test_change_point_finds_the_jump_and_ignores_noise():
    seq = ["red"] * 10 + [None, "red"] + ["blue"] * 9
    assert change_point(seq) == 12
    # a few odd looks are not a jump; nor is a short run of the other team at the end
    assert change_point(["red"] * 10 + ["blue"] + ["red"] * 10) is None
    assert change_point(["red"] * 15 + ["blue"] * (MIN_LOOKS - 2)) is None
    assert change_point([None] * 30) is None
    # mixed looks on both sides (a track between two players) are no clean change either
    assert change_point(["red", "blue"] * 12) is None


def test_a_run_of_the_other_team_between_two_of_one_is_found():
    seq = ["red"] * 10 + ["blue"] * 8 + [None] + ["red"] * 10
    assert change_point(seq) is None                                  # no single cut leaves both sides pure
    assert run_of_other_team(seq) == (10, 19)
    assert run_of_other_team(["red"] * 10 + ["blue"] * (MIN_LOOKS - 2) + ["red"] * 10) is None
    assert run_of_other_team(["red", "blue"] * 20) is None
    assert run_of_other_team(["red"] * 40) is None


def _frame(pos, ids):
    n = len(ids)
    z = np.zeros((n, 4))
    return FrameObs(pos, pos / 25, np.eye(3), True, np.array(ids), z, z, np.zeros(n, bool), np.zeros((n, 2)),
                    np.zeros((n, 2)), None, None)


def test_split_swaps_cuts_the_track_and_redoes_its_votes():
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE})
    frames, looks = [], []
    for pos in range(40):
        frames.append(_frame(pos, [1, 2, 3]))
        # track 1 is a red player until frame 20, then his blue neighbour; 2 red, 3 blue all along
        for tid, colour in ((1, RED if pos < 20 else BLUE), (2, RED), (3, BLUE)):
            look = jersey_look(colour)
            voter.observe(tid, look)
            looks.append((pos, tid, look, None))
    cuts = split_swaps(frames, voter, looks)
    assert len(cuts) == 1
    old, new, at = cuts[0]
    assert old == 1 and new == 4 and at == 20
    assert all(1 in f.track_ids for f in frames[:20]) and all(4 in f.track_ids and 1 not in f.track_ids
                                                               for f in frames[20:])
    assert voter.identity(1) == "red" and voter.identity(4) == "blue"
    assert voter.identity(2) == "red" and voter.identity(3) == "blue"
    # the looks now carry the ids they were cut to
    assert {r[1] for r in looks if r[0] >= 20 and r[1] in (1, 4)} == {4}
    assert {r[1] for r in looks if r[0] < 20 and r[1] in (1, 4)} == {1}


def test_a_track_carried_onto_an_opponent_and_back_is_cut_twice():
    """Track 1: a red player (frames 0-24), his blue neighbour (25-44), then a red player
    again (45-69): three tracks, red, blue, red; the others are untouched."""
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE})
    frames, looks = [], []
    for pos in range(70):
        frames.append(_frame(pos, [1, 2]))
        for tid, colour in ((1, BLUE if 25 <= pos < 45 else RED), (2, BLUE)):
            look = jersey_look(colour)
            voter.observe(tid, look)
            looks.append((pos, tid, look, None))
    cuts = split_swaps(frames, voter, looks)
    assert sorted(c[2] for c in cuts) == [25, 45] and {c[0] for c in cuts} <= {1, 3}
    ids = [int(f.track_ids[0]) for f in frames]
    assert ids[:25] == [1] * 25 and len(set(ids[25:45])) == 1 and len(set(ids[45:])) == 1
    middle, last = ids[25], ids[45]
    assert len({1, middle, last}) == 3 and all(int(f.track_ids[1]) == 2 for f in frames)
    assert (voter.identity(1), voter.identity(middle), voter.identity(last)) == ("red", "blue", "red")
    assert voter.identity(2) == "blue"


def _exchange_scene(swap_at: int | None, b_changes: bool = True, apart_yd: float = 1.0, seen=None):
    """Tracks 1 (red) and 2 (blue) `apart_yd` apart, 3 (red) far off; from `swap_at` the tracker
    has given 1 the blue player's looks and (when `b_changes`) 2 the red one's. Looks every
    third frame, or (tracks 1 and 2) only at the frame positions `seen`."""
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE})
    frames, looks = [], []
    for pos in range(60):
        f = _frame(pos, [1, 2, 3])
        f.field_yd[:] = [[150.0, 60.0], [150.0, 60.0 + apart_yd], [120.0, 60.0]]
        frames.append(f)
        late = swap_at is not None and pos >= swap_at
        for tid, colour in ((1, BLUE if late else RED), (2, RED if late and b_changes else BLUE), (3, RED)):
            if (pos in seen if seen is not None and tid < 3 else pos % 3 == tid % 3):   # every third, as the pipeline
                look = jersey_look(colour)
                voter.observe(tid, look)
                looks.append((pos, tid, look, None))
    return frames, looks, voter


def test_exchanged_ids_of_two_crossing_players_are_given_back():
    frames, looks, voter = _exchange_scene(swap_at=30)
    done = exchange_swaps(frames, voter, looks)
    assert len(done) == 1 and set(done[0][:2]) == {1, 2} and abs(done[0][2] - 30) <= 2
    assert voter.identity(1) == "red" and voter.identity(2) == "blue" and voter.identity(3) == "red"
    # every look of track 1 is now red, of track 2 blue
    names = dict(zip(range(len(looks)), voter.look_names(np.array([r[2].feature for r in looks]))))
    assert all(names[k] == "red" for k, r in enumerate(looks) if r[1] == 1)
    assert all(names[k] == "blue" for k, r in enumerate(looks) if r[1] == 2)
    # and the frames: track 1 stays where the red player stands (the position of id 1 in frame 0)
    assert all(f.track_ids[0] == (1 if p < done[0][2] else 2) for p, f in enumerate(frames))


def test_an_exchange_seen_in_few_looks_in_a_bunch_is_given_back():
    """Riders bunched, seated looks scarce: two looks each side of the exchange for each track."""
    frames, looks, voter = _exchange_scene(swap_at=30, seen={20, 26, 33, 39})
    done = exchange_swaps(frames, voter, looks)
    assert len(done) == 1 and set(done[0][:2]) == {1, 2} and 26 < done[0][2] <= 33
    # one look each side is not enough
    frames, looks, voter = _exchange_scene(swap_at=30, seen={26, 33})
    assert exchange_swaps(frames, voter, looks) == []


def test_no_exchange_when_only_one_track_changes_team_or_they_are_far_apart():
    frames, looks, voter = _exchange_scene(swap_at=30, b_changes=False)
    assert exchange_swaps(frames, voter, looks) == []
    frames, looks, voter = _exchange_scene(swap_at=30, apart_yd=5.0)
    assert exchange_swaps(frames, voter, looks) == []
    frames, looks, voter = _exchange_scene(swap_at=None)
    assert exchange_swaps(frames, voter, looks) == []


def _moving_frames(n, paths, fps: float = 25.0):
    """`n` frames of tracks {id: function(frame position) -> (x, y) yd}, `fps` frames/s, with a
    little position noise."""
    rng = np.random.default_rng(3)
    frames = []
    for pos in range(n):
        f = _frame(pos, list(paths))
        f.t = pos / fps
        f.field_yd = np.array([p(pos) for p in paths.values()], float) + rng.normal(0, 0.15, (len(paths), 2))
        frames.append(f)
    return frames


def test_a_rider_passing_a_standing_one_keeps_his_id_by_motion():
    """wrong_side_plays_early, simplified: track 1 rides at 6 yd/s towards track 2, who stands;
    at the touch (frame 40) the tracker carried each id onto the other player, so track 1
    stops dead there and track 2 rides off at 6 yd/s the same way. With no looks to tell,
    exchange_by_motion gives each id its own player back from the touch on."""
    from vision.swaps import exchange_by_motion
    ride = lambda p: (150.0, 80.0 - 0.24 * p)                 # noqa: E731  6 yd/s, at 70.4 at frame 40
    stand = lambda p: (150.3, 70.4)                          # noqa: E731
    frames = _moving_frames(80, {1: lambda p: ride(p) if p < 40 else stand(p),
                                 2: lambda p: stand(p) if p < 40 else ride(p)})
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE})
    done = exchange_by_motion(frames, voter, [])
    assert len(done) == 1 and {done[0][0], done[0][1]} == {1, 2} and 34 <= done[0][2] <= 42
    at = done[0][2]
    y1 = [f.field_yd[list(f.track_ids).index(1), 1] for f in frames]
    assert y1[at + 10] < y1[at - 10] - 3                      # id 1 rides on through the touch
    # two riders going the same way side by side, or passing each other, keep their ids
    for other in (lambda p: (150.4, 80.5 - 0.24 * p), lambda p: (150.4, 60.0 + 0.24 * p)):
        frames = _moving_frames(80, {1: ride, 2: other})
        assert exchange_by_motion(frames, IdentityVoter(hints={"red": RED, "blue": BLUE}), []) == []


def test_standing_neighbours_are_never_exchanged_by_motion():
    from vision.swaps import exchange_by_motion
    frames = _moving_frames(60, {1: lambda p: (150.0, 70.0), 2: lambda p: (150.0, 70.8), 3: lambda p: (150.9, 70.4)})
    assert exchange_by_motion(frames, IdentityVoter(hints={"red": RED, "blue": BLUE}), []) == []


def test_riders_crossing_head_on_whose_ids_were_exchanged_get_them_back():
    from vision.swaps import exchange_by_motion
    north = lambda p: (150.0, 60.0 + 0.24 * p)              # noqa: E731  they meet at frame ~42
    south = lambda p: (150.4, 80.0 - 0.24 * p)              # noqa: E731
    frames = _moving_frames(84, {1: lambda p: north(p) if p < 42 else south(p),
                                 2: lambda p: south(p) if p < 42 else north(p)})
    done = exchange_by_motion(frames, IdentityVoter(hints={"red": RED, "blue": BLUE}), [])
    assert len(done) == 1 and 36 <= done[0][2] <= 44
    y1 = [f.field_yd[list(f.track_ids).index(1), 1] for f in frames]
    assert y1[-1] > y1[0] + 15                                 # id 1 went north all along


def test_a_rider_passing_a_standing_one_at_50_frames_a_second():
    """The same pass filmed at 50 frames/s (half the yards a frame, twice the frames; the
    velocity spans, the frames skipped at the touch and the positions asked for scaled to the
    footage's rate by vision.frame_rate): the exchange is found at the touch, and two riders
    going the same way side by side keep their ids."""
    from vision.swaps import exchange_by_motion
    ride = lambda p: (150.0, 80.0 - 0.12 * p)                 # noqa: E731  6 yd/s, at 70.4 at frame 80
    stand = lambda p: (150.3, 70.4)                          # noqa: E731
    frames = _moving_frames(160, {1: lambda p: ride(p) if p < 80 else stand(p),
                                  2: lambda p: stand(p) if p < 80 else ride(p)}, fps=50.0)
    done = exchange_by_motion(frames, IdentityVoter(hints={"red": RED, "blue": BLUE}), [])
    assert len(done) == 1 and 68 <= done[0][2] <= 84
    frames = _moving_frames(160, {1: ride, 2: lambda p: (150.4, 80.5 - 0.12 * p)}, fps=50.0)
    assert exchange_by_motion(frames, IdentityVoter(hints={"red": RED, "blue": BLUE}), []) == []


def test_named_looks_lists_a_look_of_two_kits_at_once_as_naming_neither_when_asked():
    """A look nearly as close to both team colours (a red rider seen over the shoulder of a blue
    one in front of him) names a team by a hair; for a side-of-the-line verdict (clear_only) it
    names neither (None: taken, saying nothing), while clear looks still count."""
    from vision.swaps import named_looks
    from vision.teams import colour_signature
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE})
    for pos in range(10):
        for tid, colour in ((1, RED), (2, RED), (3, BLUE), (4, BLUE)):
            voter.observe(tid, jersey_look(colour))
    px = np.array([RED] * 45 + [BLUE] * 55, np.float32)         # both kits in one jersey band
    mixed = Appearance(lab=bgr_to_lab(BLUE), colourful=True, umpire_score=0.0, n_pixels=100,
                       feature=colour_signature(px))
    looks = [(5, 9, mixed, None), (6, 9, jersey_look(RED), None), (7, 9, mixed, None)]
    assert named_looks(looks, voter)[9] == [(5, "blue"), (6, "red"), (7, "blue")]
    assert named_looks(looks, voter, clear_only=True)[9] == [(5, None), (6, "red"), (7, None)]
