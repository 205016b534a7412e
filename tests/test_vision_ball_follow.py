"""Finding a lost ball again (vision.ball.BallFollower and vision.observe.Observer): once the
ball has not been seen for TRACK_FRAMES frames, the ball stage also looks at the player nearest
its last sighting, for REACQUIRE_S, and at one other player a frame in turn, for SEARCH_S;
never before it was first seen, nor when it was last seen at an umpire before it was ever seen
away from the umpires (the look at the umpire is there: the ball in his hand). A loose ball
lying still and then missed may have been hit: it is looked for where a hit ball would be,
towards either goal."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vision.ball import (HIT_FROM, HIT_SPEED_YDS, LOST_HIT_S, LOST_HIT_STEPS, STILL_PX, TRACK_FRAMES, BallFollower,
                         BallSighting)
from vision.observe import REACQUIRE_S, SEARCH_S, Observer


class _Looker:
    """A ball model stand-in: records where it was asked to look, finds the ball at `ball`."""

    window_side = 213

    def __init__(self, ball=None):
        self.ball, self.places = ball, []

    def look(self, frame, centre):
        self.places.append(np.round(centre).tolist())
        if self.ball is not None and np.hypot(*(np.asarray(centre) - self.ball)) < 100:
            return BallSighting(np.asarray(self.ball, float), np.r_[self.ball, self.ball], 0.9)
        return None


def test_a_lost_ball_is_looked_for_near_the_given_place_only_once_lost():
    looker = _Looker()
    follower = BallFollower(looker)
    frame = np.zeros((720, 1280, 3), np.uint8)
    assert follower.find(frame, 0, np.zeros((0, 4)), lost_near=np.array([900.0, 400.0])) is None
    assert looker.places == []                       # never seen: nothing to find again
    follower.remember(10, np.array([500.0, 300.0]))
    follower.find(frame, 11, np.zeros((0, 4)), lost_near=np.array([900.0, 400.0]))
    assert looker.places == [[500.0, 300.0]]         # still followed from the sighting
    looker.places.clear()
    looker.ball = np.array([905.0, 410.0])
    seen = follower.find(frame, 10 + TRACK_FRAMES + 1, np.zeros((0, 4)), lost_near=np.array([900.0, 400.0]))
    assert looker.places == [[900.0, 400.0]] and seen is not None
    assert not follower.lost(10 + TRACK_FRAMES + 2)  # found again: followed from there


def test_the_observer_looks_at_the_horse_nearest_the_last_sighting_for_a_while():
    obs = Observer(detector=None, voter=None, tracker=None, camera=None, H0=np.eye(3))
    units = SimpleNamespace(horse_xyxy=np.array([[100.0, 200, 160, 300], [700, 250, 780, 350]]))
    field_yd = np.array([[40.0, 60.0], [90.0, 70.0]])
    assert obs._ball_lost_near(units, field_yd) is None           # no ball seen yet
    obs._ball_last = (1.0, np.array([88.0, 71.0]), True, False)
    obs.frames.append(SimpleNamespace(t=2.0, index=50))
    assert obs._ball_lost_near(units, field_yd) is None           # last seen at the umpire: his look
    obs._ball_last = (1.0, np.array([88.0, 71.0]), False, False)
    assert obs._ball_lost_near(units, field_yd).tolist() == [[740.0, 325.0], [130.0, 275.0]]   # nearest, then the other
    obs.frames.append(SimpleNamespace(t=1.0 + REACQUIRE_S + 0.1, index=200))
    assert obs._ball_lost_near(units, field_yd).tolist() == [[740.0, 325.0]] or \
        obs._ball_lost_near(units, field_yd).tolist() == [[130.0, 275.0]]     # only the look in turn now
    obs.frames.append(SimpleNamespace(t=1.0 + SEARCH_S + 0.1, index=400))
    assert obs._ball_lost_near(units, field_yd) is None         # lost too long ago


def test_a_lost_ball_is_looked_for_at_every_player_in_turn():
    """own_goal_blue1: the ball, hit from the line-up by Red #1, rolls on far from everyone and
    is lost; 1.2 s later Blue #1 rides on to it. Looking only at the player nearest its last
    sighting never finds it; looking at one other player a frame in turn does."""
    obs = Observer(detector=None, voter=None, tracker=None, camera=None, H0=np.eye(3))
    boxes = np.array([[100.0 * k, 200, 100.0 * k + 60, 300] for k in range(1, 9)])
    units = SimpleNamespace(horse_xyxy=boxes)
    field_yd = np.c_[np.arange(8) * 5.0 + 50.0, np.full(8, 70.0)]
    obs._ball_last = (0.0, np.array([50.0, 70.0]), False, False)        # nearest: the first player
    seen = set()
    for k in range(8):
        obs.frames.append(SimpleNamespace(t=REACQUIRE_S + 1.0 + 0.04 * k, index=200 + k))
        places = obs._ball_lost_near(units, field_yd)
        assert places.shape == (1, 2)                                  # one look a frame
        seen.add(tuple(places[0]))
    assert len(seen) == 8                # every player once in eight frames (the nearest's own
                                         # look ended with REACQUIRE_S: it takes its turn)


def test_once_in_play_a_ball_last_seen_at_an_umpire_is_looked_for_at_the_players():
    obs = Observer(detector=None, voter=None, tracker=None, camera=None, H0=np.eye(3))
    units = SimpleNamespace(horse_xyxy=np.array([[100.0, 200, 160, 300], [700, 250, 780, 350]]))
    field_yd = np.array([[40.0, 60.0], [90.0, 70.0]])
    obs.frames.append(SimpleNamespace(t=2.0, index=50))
    obs._ball_last = (1.0, np.array([88.0, 71.0]), True, True)
    assert obs._ball_lost_near(units, field_yd) is None          # in his hand, never seen in play
    obs._ball_played = True                                      # seen away from the umpires before
    places = obs._ball_lost_near(units, field_yd)
    assert places is not None and places.shape == (1, 2)        # the players in turn (not his nearest)


def test_a_ball_lying_still_then_missed_is_looked_for_where_a_hit_would_send_it():
    """wrong_side_plays_early: the ball lies at 705 px, is hit, is missed for a frame, and is
    135 px away two frames later, out of the window at its resting place."""
    frame = np.zeros((720, 1280, 3), np.uint8)
    steps = np.array([[-60.0, 0.0], [60.0, 0.0]])              # px a frame towards each goal
    looker = _Looker()
    follower = BallFollower(looker)
    follower.remember(8, np.array([705.0, 350.0]))
    follower.remember(10, np.array([705.0, 350.0]))           # lying still
    follower.find(frame, 11, np.zeros((0, 4)), hit_steps=steps)
    assert looker.places == [[705.0, 350.0]]                  # one frame on: its own window covers a hit
    looker.places.clear()
    looker.ball = np.array([570.0, 348.0])
    seen = follower.find(frame, 10 + HIT_FROM, np.zeros((0, 4)), hit_steps=steps)
    assert looker.places == [[705.0, 350.0], [585.0, 350.0]]  # its place, then 2 frames' hit to the left
    assert seen is not None and np.allclose(seen.xy, [570.0, 348.0])
    # followed from there at its speed: the next look is ahead of it
    looker.places.clear()
    follower.find(frame, 10 + HIT_FROM + 1, np.zeros((0, 4)), hit_steps=steps)
    assert looker.places[0] == [502.0, 347.0]
    # no hit search without steps (the ball was in an umpire's hands); once it was lost, a
    # window LOST_HIT_STEPS hit steps away, a goal's way, for LOST_HIT_S, then none
    looker = _Looker()
    follower = BallFollower(looker)
    follower.remember(10, np.array([705.0, 350.0]))
    follower.find(frame, 12, np.zeros((0, 4)))
    assert looker.places == [[705.0, 350.0]]
    looker.places.clear()
    follower.find(frame, 10 + TRACK_FRAMES + 1, np.zeros((0, 4)), hit_steps=steps)
    assert looker.places == [[705.0 - 60.0 * LOST_HIT_STEPS, 350.0], [705.0 + 60.0 * LOST_HIT_STEPS, 350.0]]
    looker.places.clear()
    follower.find(frame, 10 + int(LOST_HIT_S * 25) + 1, np.zeros((0, 4)), hit_steps=steps)
    assert looker.places == []


def test_a_still_ball_seen_where_it_lay_is_not_looked_for_elsewhere():
    frame = np.zeros((720, 1280, 3), np.uint8)
    umpire = np.array([[100.0, 100.0, 140.0, 200.0]])         # far from the ball: looked at too
    looker = _Looker(np.array([705.0, 350.0]))
    follower = BallFollower(looker)
    follower.remember(10, np.array([705.0, 350.0]))
    seen = follower.find(frame, 13, umpire, hit_steps=np.array([[-60.0, 0.0], [60.0, 0.0]]))
    assert seen is not None and np.allclose(seen.xy, [705.0, 350.0])
    assert looker.places == [[705.0, 350.0], [120.0, 135.0]]   # its place, the umpire: no hit windows


def test_the_observer_gives_a_hit_balls_step_along_the_field_unless_the_ball_is_in_hand():
    # image px -> field yd: 10 px a yard, the image's x along the field's length
    obs = Observer(detector=None, voter=None, tracker=None, camera=None, H0=np.eye(3))
    H = np.diag([0.1, 0.1, 1.0])
    assert obs._ball_hit_steps(H, 11, 0.44) is None               # no ball seen yet
    obs.frames.append(SimpleNamespace(t=0.40, index=10))
    obs._ball_last = (0.40, np.array([150.0, 70.0]), True, False)  # near an umpire, not in his hands
    step = obs._ball_hit_steps(H, 11, 0.44)
    px = HIT_SPEED_YDS * 0.04 * 10
    assert np.allclose(step, [[px, 0.0], [-px, 0.0]])
    assert np.allclose(obs._ball_hit_steps(H, 12, 0.48), step)    # a stride of 2: per frame index still
    obs._ball_last = (0.40, np.array([150.0, 70.0]), True, True)   # in his hands
    assert obs._ball_hit_steps(H, 11, 0.44) is None


def test_a_ball_is_in_an_umpires_hands_only_inside_his_box():
    from vision.observe import _in_umpire_box, _near_umpire
    umpire = np.array([[598.0, 278.0, 642.0, 363.0]])             # wrong_side_plays_early, frame 93
    lying = np.array([670.4, 347.8])                               # the ball Red #4 hits, 11 yd beyond him
    assert _near_umpire(lying, umpire) and not _in_umpire_box(lying, umpire)
    assert _in_umpire_box(np.array([640.0, 300.0]), umpire)        # at his hand
    assert not _in_umpire_box(lying, np.zeros((0, 4))) and not _in_umpire_box(lying, None)


def test_the_follow_is_as_long_in_time_on_faster_footage():
    """TRACK_FRAMES, HIT_FROM and STILL_PX count 25 frames/s frames: at 50 frames/s the
    follower keeps a sighting twice as many frames (on a 50 frames/s render of
    wrong_side_plays_early the model missed the resting ball for 13 frames, and the follow
    was given up after 4), and "still" is half the pixels a frame."""
    frame = np.zeros((720, 1280, 3), np.uint8)
    for fps, factor in ((25.0, 1), (50.0, 2)):
        looker = _Looker()
        follower = BallFollower(looker, fps=fps)
        assert (follower.track_frames, follower.hit_from) == (TRACK_FRAMES * factor, HIT_FROM * factor)
        assert follower.still_px == STILL_PX / factor
        follower.remember(10, np.array([500.0, 300.0]))
        assert not follower.lost(10 + TRACK_FRAMES * factor) and follower.lost(10 + TRACK_FRAMES * factor + 1)
        follower.find(frame, 10 + TRACK_FRAMES + 1, np.zeros((0, 4)), lost_near=np.array([900.0, 400.0]))
        # one frame past the 25 frames/s follow: given up at 25 (the lost ball's place),
        # still followed at 50 (its last sighting)
        assert looker.places == ([[900.0, 400.0]] if factor == 1 else [[500.0, 300.0]])


def test_a_window_sent_astray_by_a_false_velocity_is_followed_by_a_look_at_the_last_sighting():
    """A false sighting 24 px below the last one gives a velocity that predicts the ball ~100 px
    off (sample own_goal_blue1, frame 57, where the ball, hit, is 50 px from the last sighting):
    when the prediction finds nothing, the ball stage looks at the last sighting too, before the
    umpires."""
    looker = _Looker(ball=np.array([330.0, 300.0]))           # > 100 px from the prediction, < 100 from the last
    follower = BallFollower(looker)
    frame = np.zeros((720, 1280, 3), np.uint8)
    follower.remember(52, np.array([262.5, 296.0]))
    follower.remember(53, np.array([265.1, 320.2]))           # velocity (2.6, 24.2) px a frame
    umpire = np.array([[600.0, 250, 640, 380]])
    seen = follower.find(frame, 57, umpire)
    assert looker.places == [[276.0, 417.0], [265.0, 320.0]]   # the prediction, then the last sighting
    assert seen is not None and seen.xy.tolist() == [330.0, 300.0]
    looker.places.clear()
    follower.remember(60, np.array([400.0, 343.0]))           # 23 px a frame: predicted 27 px on
    follower.find(frame, 61, umpire)
    assert looker.places == [[423.0, 357.0], [620.0, 296.0]]   # no extra look: the prediction's window holds it


class _Votes:
    def __init__(self, umpires=()):
        self.umpires = set(umpires)

    def is_umpire(self, tid: int) -> bool:
        return tid in self.umpires


def test_an_umpire_whose_rider_box_is_missed_is_looked_for_where_he_sat_on_his_horse():
    """The detector finds the umpire's horse but not his rider in a frame (own_goal_blue1: his
    rider seen on 3 of the 10 frames around the release): the ball stage and the thrown-ball
    finder still look around him, at the rider box last seen on that horse moved as the horse
    moved, for a second; a rider never said to be an umpire is not taken for one."""
    obs = Observer(detector=None, voter=_Votes(), tracker=None, camera=None, H0=np.eye(3), person_memory=25)
    nan4 = [np.nan] * 4

    def units(person, umpire, horse=(170.0, 340, 190, 380), rider2=nan4):
        return SimpleNamespace(horse_xyxy=np.array([horse, [300.0, 340, 320, 380]]),
                               person_xyxy=np.array([person, rider2], float), is_umpire=np.array([umpire, False]))

    ids = np.array([3, 4])
    seen = obs._umpire_boxes(units([174.0, 335, 188, 361], True, rider2=[304.0, 335, 318, 361]), ids, 32)
    assert seen.tolist() == [[174.0, 335, 188, 361]]
    moved = obs._umpire_boxes(units(nan4, False, horse=(172.0, 341, 192, 381)), ids, 33)
    assert moved.tolist() == [[176.0, 336, 190, 362]]                   # the horse moved (+2, +1)
    assert len(obs._umpire_boxes(units(nan4, False), ids, 32 + 26)) == 0  # more than a second on: not known
    obs.voter.umpires.add(3)
    assert len(obs._umpire_boxes(units(nan4, False), ids, 40)) == 1        # the track's vote says umpire


class _Fleck(_Looker):
    """Finds the ball as _Looker does, else a white fleck (a glove, a mallet head) at `fleck` when
    the window holds it."""

    def __init__(self, ball, fleck):
        super().__init__(ball)
        self.fleck = np.asarray(fleck, float)

    def look(self, frame, centre):
        seen = super().look(frame, centre)                 # the ball scores higher where it is seen
        if seen is None and np.max(np.abs(np.asarray(centre) - self.fleck)) < self.window_side / 2:
            return BallSighting(self.fleck, np.r_[self.fleck, self.fleck], 0.37)
        return seen


def test_a_ground_ball_is_not_taken_from_a_riders_upper_body():
    """own_goal_blue1, frame 106: Blue #1 hits the ball he dribbles; the ball, just struck, is
    not seen, and the best box in the window is his glove 50 px above it, inside his rider box.
    A ball followed on the ground does not leap into a rider's upper body in a frame: the
    sighting is refused, and the ball is found again where it went."""
    frame = np.zeros((720, 1280, 3), np.uint8)
    rider = np.array([[660.0, 280, 710, 330]])
    follower = BallFollower(_Fleck(None, [687.0, 307.0]))
    follower.remember(104, np.array([671.0, 359.0]))
    follower.remember(105, np.array([669.0, 359.0]))           # dribbled: 2 px a frame
    assert follower.find(frame, 106, np.zeros((0, 4)), rider_boxes=rider) is None
    # without the rider's box the glove is taken for the ball, and followed
    other = BallFollower(_Fleck(None, [687.0, 307.0]))
    other.remember(104, np.array([671.0, 359.0]))
    other.remember(105, np.array([669.0, 359.0]))
    assert other.find(frame, 106, np.zeros((0, 4))) is not None
    # the ball seen the next frame, 65 px on, is followed from the last true sighting
    follower.finder.ball = np.array([734.0, 354.0])
    seen = follower.find(frame, 107, np.zeros((0, 4)), rider_boxes=rider)
    assert seen is not None and seen.xy.tolist() == [734.0, 354.0]


def test_a_ball_thrown_from_the_umpires_hand_may_pass_a_riders_box():
    """Just thrown (last seen in the umpire's hand), the ball flies at a rider's height: a
    sighting in a rider's box then stands."""
    frame = np.zeros((720, 1280, 3), np.uint8)
    umpire = np.array([[600.0, 260, 640, 330]])
    follower = BallFollower(_Looker(np.array([650.0, 300.0])))
    follower.remember(74, np.array([625.0, 285.0]))              # in his hand
    follower.remember(75, np.array([625.0, 285.0]))
    seen = follower.find(frame, 76, umpire, rider_boxes=np.array([[640.0, 280, 690, 330]]))
    assert seen is not None and seen.xy.tolist() == [650.0, 300.0]
