"""Finding a lost ball again (vision.ball.BallFollower and vision.observe.Observer): once the
ball has not been seen for TRACK_FRAMES frames, the ball stage also looks at the player nearest
its last sighting, for REACQUIRE_S; never before it was first seen, nor when it was last seen
at an umpire (the look at the umpire is there)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vision.ball import TRACK_FRAMES, BallFollower, BallSighting
from vision.observe import REACQUIRE_S, Observer


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
    obs._ball_last = (1.0, np.array([88.0, 71.0]), True)
    obs.frames.append(SimpleNamespace(t=2.0, index=50))
    assert obs._ball_lost_near(units, field_yd) is None           # last seen at the umpire: his look
    obs._ball_last = (1.0, np.array([88.0, 71.0]), False)
    assert obs._ball_lost_near(units, field_yd).tolist() == [740.0, 325.0]
    obs.frames.append(SimpleNamespace(t=1.0 + REACQUIRE_S + 0.1, index=200))
    assert obs._ball_lost_near(units, field_yd) is None         # lost too long ago
