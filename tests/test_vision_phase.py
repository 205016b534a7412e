"""The throw-in from the footage (vision.phase): the ball, the players, and a ball still in hand."""
import numpy as np

from vision.phase import RELEASE_LAG_FRAMES, detect_throw_in, phases
from rules.document import LINEUP, PLAY, THROW_IN

FPS = 25.0
F = 150
T = np.arange(F) / FPS
UMPIRE = np.tile([500.0, 200.0, 540.0, 300.0], (F, 1))     # his (person) box, in pixels
HAND = np.array([520.0, 235.0])


def _players(start: int | None, n: int = 4, speed: float = 6.0) -> np.ndarray:
    """(n, F, 2) players standing still, riding off at `speed` yd/s from frame `start`."""
    xy = np.zeros((n, F, 2))
    xy[:, :, 0] = np.arange(n)[:, None] * 3.0 + 140
    if start is not None:
        xy[:, start:, 1] = speed * (T[start:] - T[start])
    return xy


def _ball(held_until: int | None = None, thrown_at: int | None = None) -> np.ndarray:
    ball = np.full((F, 2), np.nan)
    if held_until is not None:
        ball[:held_until] = HAND
    if thrown_at is not None:
        k = np.arange(thrown_at, min(F, thrown_at + 10))
        ball[k] = HAND + np.stack([(k - thrown_at + 1) * 14.0, (k - thrown_at + 1) * 5.0], axis=1)
    return ball


def test_no_ball_the_players_start_is_the_throw_in():
    ti = detect_throw_in(T, _players(80), _ball(), UMPIRE)
    assert ti.method == "players" and abs(ti.frame - 80) <= 1


def test_the_ball_leaving_the_hand_is_the_throw_in_back_dated_to_the_release():
    ti = detect_throw_in(T, _players(90), _ball(held_until=60, thrown_at=61), UMPIRE)
    assert ti.method == "ball" and ti.frame == 61 - RELEASE_LAG_FRAMES


def test_a_release_seen_after_play_began_gives_way_to_the_start_of_play():
    """Play cannot start before the throw-in. The thrown ball unseen (behind the umpire), the
    ball stage's first "release" is a later hit near him (clean_lineup_pan: 87, the players
    ride off at 82, truth 62): the players' start is the latest the throw-in can be. A
    release seen before the players ride off stays the throw-in (every sample whose ball was
    seen thrown: the players followed 10-36 frames later)."""
    late = detect_throw_in(T, _players(80), _ball(thrown_at=95), UMPIRE)
    assert late.method == "players" and abs(late.frame - 80) <= 1
    early = detect_throw_in(T, _players(90), _ball(held_until=60, thrown_at=61), UMPIRE)
    assert early.method == "ball" and early.frame == 61 - RELEASE_LAG_FRAMES
    # a start of play while the ball is still seen in his hand is no start: the release stands
    held = _ball(held_until=110, thrown_at=110)
    ti = detect_throw_in(T, _players(80), held, UMPIRE)
    assert ti.method == "ball" and ti.frame == 110 - RELEASE_LAG_FRAMES


def test_a_start_after_which_the_line_up_stood_again_gives_way_to_the_release():
    """Two tracks that ride for 0.8 s and stop (a returner taking his place, tracks trading
    places in the rank: a re-rendered slow_returner_red2) pass for a start of play; but the
    players then stand for more than a second, through a release seen from the ball, and play
    follows that release: the release is the throw-in. Players who keep riding after their
    start still win over a later "release" (a hit)."""
    xy = _players(None)
    xy[:2, 50:70, 1] = 6.0 * (T[50:70] - T[50])[None, :]      # two ride 2.3 yd ...
    xy[:2, 70:, 1] = xy[:2, 69:70, 1]                           # ... and stand again
    xy[:, 125:, 1] += 6.0 * (T[125:] - T[125])[None, :]         # play, after the throw at 115
    from vision.phase import SPEED_WINDOW_S, speeds, stood_at, throw_in_from_players
    assert throw_in_from_players(T, xy) is not None and abs(throw_in_from_players(T, xy) - 50) <= 3
    ti = detect_throw_in(T, xy, _ball(thrown_at=115), UMPIRE)
    assert ti.method == "ball" and ti.frame == 115 - RELEASE_LAG_FRAMES
    # the same shuffle, the players not standing at the release (play began at 90): the players' start
    xy2 = _players(None)
    xy2[:2, 50:70, 1] = 6.0 * (T[50:70] - T[50])[None, :]
    xy2[:2, 70:, 1] = xy2[:2, 69:70, 1]
    xy2[:, 90:, 1] += 6.0 * (T[90:] - T[90])[None, :]
    ti = detect_throw_in(T, xy2, _ball(thrown_at=115), UMPIRE)
    assert ti.method == "players" and ti.frame < 115
    # standing for less than STOOD_S at the release is not enough
    v = speeds(xy, T, SPEED_WINDOW_S)
    assert stood_at(T, v, 50, 114) and not stood_at(T, v, 50, 114, stood_s=3.0)


def test_players_riding_at_the_umpire_while_he_holds_the_ball_have_not_started_play():
    """The ball still in his hand through the second after the players move: that is not
    the throw-in (advancing on the umpire); with no later start there is none."""
    ti = detect_throw_in(T, _players(60), _ball(held_until=F), UMPIRE)
    assert ti.method == "none" and ti.frame is None
    # the same players with the ball not seen at all: the players' start is all there is
    assert detect_throw_in(T, _players(60), _ball(), UMPIRE).frame is not None


def test_a_few_still_sightings_near_the_hand_do_not_hold_back_the_players_start():
    """Three still 'ball' sightings by the umpire's hand in the second after the players ride
    off (a glove, a fleck of his shirt; clean_lineup_pan) are not a ball held: a ball in hand
    is seen in most frames. The same three sightings every frame of that second do hold it."""
    ball = np.full((F, 2), np.nan)
    ball[[64, 65, 74]] = HAND
    ti = detect_throw_in(T, _players(60), ball, UMPIRE)
    assert ti.method == "players" and abs(ti.frame - 60) <= 1
    ball[60:86] = HAND
    assert detect_throw_in(T, _players(60), ball, UMPIRE).frame is None


def test_override_wins_and_phases_follow():
    ti = detect_throw_in(T, _players(60), _ball(held_until=60, thrown_at=61), UMPIRE, override=100)
    assert (ti.frame, ti.method) == (100, "override")
    ph = phases(F, ti)
    assert (ph[:100] == LINEUP).all() and ph[100] == THROW_IN and (ph[101:] == PLAY).all()


def test_a_walk_with_noisy_positions_is_not_the_start_of_play():
    """Players walking at 1.5 yd/s (advancing on the umpire) with 0.3 yd of position noise a
    frame are not a start of play; a real start (6 yd/s) under the same noise is found."""
    rng = np.random.default_rng(0)
    walk = _players(None)
    walk[:, 40:, 1] = 1.5 * (T[40:] - T[40])
    noisy = walk + rng.normal(0, 0.3, walk.shape)
    assert detect_throw_in(T, noisy, _ball(), UMPIRE).frame is None
    start = _players(80) + rng.normal(0, 0.3, walk.shape)
    ti = detect_throw_in(T, start, _ball(), UMPIRE)
    assert ti.method == "players" and abs(ti.frame - 80) <= 5


def test_a_brisk_walk_at_the_umpire_under_real_noise_is_not_the_start_of_play():
    """Walking at 2.2 yd/s with 0.3 yd of position noise a frame: measured speeds cross 2.5
    yd/s for two players at once for 0.3 s (without the confirmation by play the start was
    taken at frame 101), but play (two players above PLAY_SPEED) never comes; a start to 6
    yd/s under the same noise is still found at its frame."""
    from vision.phase import throw_in_from_players
    rng = np.random.default_rng(1)
    walk = _players(None)
    walk[:, 40:, 1] = 2.2 * (T[40:] - T[40])
    noisy = walk + rng.normal(0, 0.3, walk.shape)
    assert throw_in_from_players(T, noisy) is None
    start = _players(80) + rng.normal(0, 0.3, walk.shape)
    f = throw_in_from_players(T, start)
    assert f is not None and abs(f - 80) <= 5


def test_two_tracks_stepping_to_their_neighbours_horses_are_not_the_start_of_play():
    """Riders walking at the umpire seen end-on (held-out advancing_on_umpire, session 26):
    two tracks pass to the neighbour's horse 3 yd deeper in the rank at frames 56 and 57 (9
    yd/s over the 0.4-s speed window, for 0.4 s each). With
    play confirmed over 0.3 s that was a throw-in at frame 52; play has to last longer than the
    speed window (PLAY_SUSTAIN_S). A real start, riders at 6 yd/s from frame 80, is still found,
    also when the clip ends 1 s after it."""
    from vision.phase import PLAY_SUSTAIN_S, SPEED_WINDOW_S, throw_in_from_players
    assert PLAY_SUSTAIN_S > SPEED_WINDOW_S
    walk = _players(None)
    walk[:, 40:, 1] = 1.5 * (T[40:] - T[40])
    walk[1, 56:, 1] += 3.0                     # now on the horse behind his own
    walk[2, 57:, 1] += 3.0
    assert throw_in_from_players(T, walk, play_sustain_s=0.3) is not None    # as it was
    assert throw_in_from_players(T, walk) is None
    assert detect_throw_in(T, walk, _ball(), UMPIRE).frame is None
    start = _players(80)
    assert abs(throw_in_from_players(T, start) - 80) <= 3
    short = int(80 + FPS)                      # the footage ends a second after the start
    assert abs(throw_in_from_players(T[:short], start[:, :short]) - 80) <= 3


def _false_track(ball: np.ndarray, at: int) -> np.ndarray:
    """Three sightings in line, 8 px a frame, beside the umpire: a rider's white glove riding past
    at the pace of a slow throw (the false throw-in of clean_lineup in session 5)."""
    ball = ball.copy()
    for k in range(3):
        ball[at + k] = (580.0 + 8 * k, 240.0)
    return ball


def test_a_throw_seen_from_the_ball_must_be_followed_by_play():
    """The glove's line at frame 30 is not followed by play (the players are still until 80):
    the search goes on to the real throw at 75, which is."""
    ti = detect_throw_in(T, _players(80), _false_track(_ball(thrown_at=75), 30), UMPIRE)
    assert (ti.method, ti.frame) == ("ball", 75 - RELEASE_LAG_FRAMES)
    # without the later throw and with no play at all there is no throw-in
    ti = detect_throw_in(T, _players(None), _false_track(_ball(), 30), UMPIRE)
    assert (ti.method, ti.frame) == ("none", None)
    # the players' start alone, once the glove is set aside
    ti = detect_throw_in(T, _players(80), _false_track(_ball(), 30), UMPIRE)
    assert ti.method == "players" and abs(ti.frame - 80) <= 1


def test_a_throw_too_near_the_end_for_play_to_be_seen_is_taken():
    ti = detect_throw_in(T, _players(None), _ball(held_until=F - 20, thrown_at=F - 19), UMPIRE)
    assert (ti.method, ti.frame) == ("ball", F - 19 - RELEASE_LAG_FRAMES)


def test_a_throw_near_the_end_with_footage_enough_to_show_nobody_rides_off_is_not_taken():
    """1.4 s of footage after the release (less than play needs to be confirmed in full, more
    than END_CHECK_S): nobody riding off in it says it was no throw; one rider off says it was."""
    from vision.phase import END_CHECK_S
    at = F - 35
    assert T[-1] - T[at - RELEASE_LAG_FRAMES] > END_CHECK_S
    ti = detect_throw_in(T, _players(None), _ball(held_until=at - 1, thrown_at=at), UMPIRE)
    assert (ti.method, ti.frame) == ("none", None)
    one_off = _players(None)
    one_off[0, at + 12:, 1] = 6.0 * (T[at + 12:] - T[at + 12])
    ti = detect_throw_in(T, one_off, _ball(held_until=at - 1, thrown_at=at), UMPIRE)
    assert (ti.method, ti.frame) == ("ball", at - RELEASE_LAG_FRAMES)


def test_a_ball_seen_in_hand_long_before_does_not_vouch_for_two_stray_sightings():
    """Two fast sightings beside the umpire make a throw only after the ball was seen in his
    hand shortly before (HELD_RECENT_FRAMES); seen there 40 frames earlier, they need a third
    in line, and the players' start is taken instead."""
    from vision.phase import HELD_RECENT_FRAMES
    def ball(held_until):
        b = np.full((F, 2), np.nan)
        b[10:held_until] = HAND
        b[60], b[62] = HAND + (30.0, 10.0), HAND + (60.0, 20.0)
        return b
    assert 60 - 20 > HELD_RECENT_FRAMES >= 60 - 50
    ti = detect_throw_in(T, _players(70), ball(21), UMPIRE)
    assert ti.method == "players" and abs(ti.frame - 70) <= 1
    ti = detect_throw_in(T, _players(70), ball(51), UMPIRE)
    assert (ti.method, ti.frame) == ("ball", 60 - RELEASE_LAG_FRAMES)


def test_a_ball_seen_in_hand_vouches_only_for_a_throw_first_seen_in_his_box():
    """A re-rendered slow_returner_red2 (seed 2900): a white fleck at the umpire's knee, inside
    his box and still for seconds, passed for the ball in his hand; two sightings over his
    shoulder, outside his box, 1.6 box heights from it a frame later, then passed for the throw
    (two are enough after a ball in hand): a throw-in 28 frames early. A ball leaving his hand
    is first seen in his box: two sightings outside it need a third in line, and the players'
    start is the throw-in. The same two sightings starting in his box stay a throw."""
    knee = np.array([522.0, 293.0])                          # +0.43 box heights below his centre
    ball = np.full((F, 2), np.nan)
    ball[20:60:3] = knee
    ball[60] = knee
    outside = ball.copy()
    outside[61], outside[62] = (621.0, 163.0), (613.0, 244.0)    # over his shoulder: out of his box
    ti = detect_throw_in(T, _players(80), outside, UMPIRE)
    assert ti.method == "players" and abs(ti.frame - 80) <= 1, ti
    inside = ball.copy()
    inside[61], inside[62] = HAND + (10.0, -5.0), HAND + (40.0, 5.0)
    ti = detect_throw_in(T, _players(80), inside, UMPIRE)
    assert (ti.method, ti.frame) == ("ball", 61 - RELEASE_LAG_FRAMES), ti


def test_a_fleck_held_still_above_the_umpires_head_does_not_vouch_for_a_throw():
    """Held-out clean_lineup (session 16): a white fleck still for two frames 0.4-0.7 box
    heights above the umpire's box, then two unrelated sightings 80 px apart in consecutive
    frames, passed for a ball seen in hand and thrown (two sightings are enough after a ball
    in hand). Only a ball inside his box (grown by 10% of its height) is in his hand; the
    same pattern from inside it is still a throw."""
    from vision.phase import throw_in_from_ball
    ball = np.full((F, 2), np.nan)
    above = np.array([545.0, 140.0])                     # 60 px above the box top (200), 100 tall
    ball[50:52] = above
    ball[55], ball[56] = (490.0, 120.0), (570.0, 145.0)
    assert throw_in_from_ball(ball, UMPIRE) is None
    ball[50:52] = HAND
    ball[55], ball[56] = HAND + (14.0, 5.0), HAND + (28.0, 10.0)
    assert throw_in_from_ball(ball, UMPIRE) == 55 - RELEASE_LAG_FRAMES


def test_a_throw_filmed_at_50_frames_a_second():
    """The ball's frame counts and speeds a frame are for 25 frames/s footage; at 50 a thrown
    ball moves half as far a frame. A 50 frames/s render of throw_in_near_boards (session 17):
    the ball 0.05 box heights a frame, under THROW_SPEED, and the throw-in was taken from the
    hit a second later. The same throw is found at both rates."""
    for fps in (25.0, 50.0):
        n = int(6 * fps)
        t = np.arange(n) / fps
        release = int(round(2.4 * fps))
        ball = np.full((n, 2), np.nan)
        ball[:release] = HAND
        k = np.arange(release + 1, release + 1 + int(0.4 * fps))
        ball[k] = HAND + (k - release)[:, None] * (np.array([10.0, 4.0]) * 25.0 / fps)   # 0.11 box heights at 25/s
        players = np.zeros((4, n, 2))
        players[:, :, 0] = np.arange(4)[:, None] * 3.0 + 140
        go = int(round(3.6 * fps))
        players[:, go:, 1] = 6.0 * (t[go:] - t[go])
        ti = detect_throw_in(t, players, ball, np.tile(UMPIRE[0], (n, 1)))
        assert ti.method == "ball", fps
        assert abs(t[ti.frame] - 2.4) <= 1.0 / fps + 1e-9, (fps, ti.frame)


def _slow(start: np.ndarray, step: tuple[float, float], first: int, n: int = 9) -> np.ndarray:
    """A ball first seen at frame `first` at `start` (px), then moving `step` px a frame for `n` frames."""
    ball = np.full((F, 2), np.nan)
    k = np.arange(n)
    ball[first + k] = start + k[:, None] * np.array(step)
    return ball


def test_a_throw_along_the_line_of_sight_drops_slowly_from_his_hand():
    """A camera behind the umpire sees a throw away from it move slowly in the image (a
    re-rendered clean_lineup_pan: 0.047 box heights a frame, under THROW_SPEED): first seen
    in his box, dropping steadily, it is the throw-in (the players start 20 frames later)."""
    drop = _slow(HAND + (5.0, 0.0), (2.5, 4.0), 64)          # 0.047 box heights (100 px) a frame, downwards
    ti = detect_throw_in(T, _players(84), drop, UMPIRE)
    assert (ti.method, ti.frame) == ("ball", 64 - RELEASE_LAG_FRAMES)


def test_a_slow_track_across_or_above_his_head_is_not_a_throw():
    """The same slow speed riding across (a glove), or dropping from above his head (a fleck
    on a mallet behind him: re-rendered jostling_at_centre and slow_returner_red2), or only
    three sightings of a drop: the players' start stays the throw-in."""
    across = _slow(HAND + (5.0, 0.0), (4.7, 0.0), 64)
    above = _slow(np.array([520.0, 165.0]), (2.5, 4.0), 64)   # 0.85 box heights above his centre
    short = _slow(HAND + (5.0, 0.0), (2.5, 4.0), 64, n=3)
    for ball in (across, above, short):
        ti = detect_throw_in(T, _players(84), ball, UMPIRE)
        assert ti.method == "players" and abs(ti.frame - 84) <= 1


def test_a_slow_drop_spans_as_long_at_50_frames_a_second():
    """The drop's SLOW_THROW_SIGHTINGS count 25 frames/s frames: at 50 the same throw (half as
    far a frame) is found, and four sightings in 0.06 s are not enough."""
    for fps, n, found in ((25.0, 9, True), (50.0, 18, True), (50.0, 4, False)):
        frames = int(6 * fps)
        t = np.arange(frames) / fps
        first = int(round(2.56 * fps))
        ball = np.full((frames, 2), np.nan)
        k = np.arange(n)
        ball[first + k] = HAND + (5.0, 0.0) + k[:, None] * np.array([2.5, 4.0]) * 25.0 / fps
        players = np.zeros((4, frames, 2))
        players[:, :, 0] = np.arange(4)[:, None] * 3.0 + 140
        go = int(round(3.36 * fps))
        players[:, go:, 1] = 6.0 * (t[go:] - t[go])
        ti = detect_throw_in(t, players, ball, np.tile(UMPIRE[0], (frames, 1)))
        assert (ti.method == "ball") == found, (fps, n, ti)


def _two_sightings(first: int, offsets: list[tuple[int, float, float]]) -> np.ndarray:
    """The ball seen at `first` just below the hand (inside his box), then at `first + df` moved
    (dx, dy) box heights (100 px) from there, for each of `offsets`."""
    ball = np.full((F, 2), np.nan)
    ball[first] = HAND + (10.0, 7.0)
    for df, dx, dy in offsets:
        ball[first + df] = ball[first] + (100.0 * dx, 100.0 * dy)
    return ball


def test_a_ball_seen_leaving_his_hand_then_on_the_ground_after_a_gap_is_the_throw_in():
    """An underhand throw into the ranks, seen from behind the umpire (re-rendered
    wrong_side_plays_early and slow_returner_blue1_delayed_foul): the ball stage sees it once
    as it leaves his hand and once more, 6-7 frames later, 0.22-0.31 box heights lower, on the
    ground; his body and the horses hide the rest. The players ride off 28 frames after the
    throw: the throw-in is the first sighting, back-dated to the release."""
    for df, dx, dy in ((7, 0.12, 0.29), (6, 0.09, 0.22)):
        ti = detect_throw_in(T, _players(92), _two_sightings(64, [(df, dx, dy)]), UMPIRE)
        assert (ti.method, ti.frame) == ("ball", 64 - RELEASE_LAG_FRAMES), (df, ti)


def test_two_sightings_a_gap_apart_that_do_not_fall_from_his_hand_are_not_a_throw():
    """A second sighting moved across more than down (a glove riding past), up (a mallet's
    head), too little (jitter), too late, or back at the place the ball was held: the players'
    start stays the throw-in. Each would have been a throw as a straight drop."""
    for df, dx, dy in ((7, 0.55, 0.26), (7, 0.1, -0.3), (7, 0.02, 0.08), (12, 0.1, 0.3)):
        ti = detect_throw_in(T, _players(92), _two_sightings(64, [(df, dx, dy)]), UMPIRE)
        assert ti.method == "players" and abs(ti.frame - 92) <= 1, (df, dx, dy, ti)
    held = _two_sightings(64, [(7, 0.1, 0.3)])
    held[50:64:2] = held[64]                     # seen in his hand, still, before
    held[66] = held[64]                          # ... and back there after the gap
    ti = detect_throw_in(T, _players(92), held, UMPIRE)
    assert ti.method == "players", ti


def _landed(first: int, lie_at: int, n_lying: int = 3, in_box: int = 1,
            place: tuple[float, float] = (580.0, 345.0)) -> np.ndarray:
    """The ball seen `in_box` times from `first` in his box (leaving his hand, 12 px a frame
    down and across), then not until `lie_at`, from when it lies at `place` (px, under his box,
    whose bottom is at 300) for `n_lying` frames, rolling 1 px a frame."""
    ball = np.full((F, 2), np.nan)
    for k in range(in_box):
        ball[first + k] = HAND + (5.0 + 5.0 * k, 11.0 * k)
    for k in range(n_lying):
        ball[lie_at + k] = np.array(place) + (1.0 * k, 0.0)
    return ball


def test_a_ball_seen_leaving_his_hand_then_lying_on_the_ground_under_him_is_the_throw_in():
    """The throw's flight hidden by the line-up (re-rendered clean_two_umpires, seeds 900 and
    1900): the ball seen once or twice in his box, then 15-23 frames later lying on the ground
    under him. A ball lies there only once thrown: the throw-in is the first sighting,
    back-dated to the release, not the hit seen later or the players' start."""
    for in_box, lie_at in ((1, 64 + 23), (2, 64 + 15)):
        ti = detect_throw_in(T, _players(100), _landed(64, lie_at, in_box=in_box), UMPIRE)
        assert (ti.method, ti.frame) == ("ball", 64 - RELEASE_LAG_FRAMES), (in_box, lie_at, ti)


def test_a_sighting_in_his_box_and_a_white_thing_on_the_ground_are_not_always_a_throw():
    """The ground sightings seen once only, too late, not under his box (beside his horse), moving
    (a white bandage on a walking horse's leg), or of a thing lying there before the sighting in
    his box (a bandage on a still horse's leg): the players' start stays the throw-in."""
    cases = {"once": _landed(64, 80, n_lying=1), "late": _landed(64, 64 + 30),
             "beside": _landed(64, 80, place=(600.0, 290.0))}
    moving = _landed(64, 80)
    moving[80:83] += np.array([[0.0, 0.0], [3.0, 0.0], [6.0, 0.0]])      # 4 px (0.04 box heights) a frame
    cases["moving"] = moving
    there_before = _landed(64, 80)
    there_before[50] = there_before[80]
    cases["there before"] = there_before
    for name, ball in cases.items():
        ti = detect_throw_in(T, _players(100), ball, UMPIRE)
        assert ti.method == "players" and abs(ti.frame - 100) <= 1, (name, ti)


def test_still_flecks_above_the_umpire_seen_by_turns_are_not_a_throw():
    """Four raised mallet heads in a row above the umpire, one per rank, each seen at the same
    place again and again but by turns, in an order that draws a fast ball along a line (a
    re-rendered two-throw-in recording: a throw-in 15 frames early). Still things are not a
    ball in flight; the real throw after them is found."""
    heads = np.array([[531.0, 98.0], [569.0, 88.0], [604.0, 78.0], [637.0, 68.0]])   # above his box
    ball = np.full((F, 2), np.nan)
    for f in range(10, 70):
        ball[f] = heads[(f // 3) % 4]                   # the follower jumps among them
    ball[55:58] = heads[[3, 2, 1]]                      # ... once in an order that makes a line
    ball[70:80] = _ball(thrown_at=70)[70:80]            # the real throw, then play
    ti = detect_throw_in(T, _players(85), ball, UMPIRE)
    assert ti.method == "ball" and ti.frame == 70 - RELEASE_LAG_FRAMES, ti


def test_a_throw_just_before_a_gap_in_the_footage_is_taken_as_one_near_its_end():
    """A release 0.6 s before a cutaway or replay the analysis skipped (its frames missing):
    play cannot be seen in full after it, as at the end of the footage; the same release with the
    footage going on and nobody riding off is no throw-in."""
    from vision.phase import seen_until
    at, gap = 60, range(76, 126)            # 2 s not judged from 0.64 s after the release
    keep = np.setdiff1d(np.arange(F), gap)
    assert seen_until(T[keep], 10) == T[75] and seen_until(T, 10) == T[-1]
    ti = detect_throw_in(T[keep], _players(None)[:, keep], _ball(held_until=at - 1, thrown_at=at)[keep],
                         UMPIRE[keep])
    assert (ti.method, ti.frame) == ("ball", at - RELEASE_LAG_FRAMES)       # frame position = index before the gap
    ti = detect_throw_in(T, _players(None), _ball(held_until=at - 1, thrown_at=at), UMPIRE)
    assert (ti.method, ti.frame) == ("none", None)
