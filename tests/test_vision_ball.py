"""The ball stage's search (vision.ball): where it looks, and how it follows a sighting."""
import numpy as np
import pytest

from vision.ball import TRACK_FRAMES, UPPER_BODY, BallFollower, BallSighting, window_around


class FakeFinder:
    """Stands in for the model: 'sees' the ball when the window centre is within `reach` px."""

    window_side = 213

    def __init__(self, ball_at: dict[int, tuple[float, float]], reach: float = 100.0):
        self.ball_at, self.reach, self.centres, self.frame = ball_at, reach, [], None

    def look(self, frame, centre):
        self.centres.append(np.asarray(centre, float))
        xy = self.ball_at.get(self.frame)
        for xy in ([] if xy is None else [xy] if np.ndim(xy) == 1 else xy):       # one ball or several
            if np.hypot(*(np.asarray(xy) - centre)) <= self.reach:
                return BallSighting(np.asarray(xy, float), np.array([xy[0] - 2, xy[1] - 2, xy[0] + 2, xy[1] + 2]), 0.9)
        return None


def test_window_stays_inside_the_frame():
    assert window_around((720, 1280, 3), (640, 360), 213) == (534, 254, 213)
    assert window_around((720, 1280, 3), (5, 5), 213) == (0, 0, 213)
    assert window_around((720, 1280, 3), (1279, 719), 213) == (1280 - 213, 720 - 213, 213)
    assert window_around((100, 80, 3), (40, 50), 213) == (0, 10, 80)        # a frame smaller than the window


def test_looks_at_the_umpire_first_then_follows_the_ball():
    umpire = np.array([[500.0, 200.0, 540.0, 300.0]])
    frame = np.zeros((720, 1280, 3), np.uint8)
    path = {0: (522.0, 236.0), 1: (560.0, 250.0), 2: (600.0, 264.0), 3: (640.0, 278.0)}
    finder = FakeFinder(path, reach=45)
    follow = BallFollower(finder)
    for i in range(4):
        finder.frame = i
        seen = follow.find(frame, i, umpire if i == 0 else np.zeros((0, 4)))
        assert seen is not None and np.allclose(seen.xy, path[i])
    # frame 0 looked at the umpire's upper body; later frames where the ball's motion predicts it
    assert np.allclose(finder.centres[0], [520, 200 + UPPER_BODY * 100])
    assert np.allclose(finder.centres[-1], [640, 278])          # 600 + 40, 264 + 14: constant velocity
    assert follow.looks == 4


def test_a_lost_ball_is_sought_at_the_umpire_again():
    umpire = np.array([[500.0, 200.0, 540.0, 300.0]])
    frame = np.zeros((720, 1280, 3), np.uint8)
    finder = FakeFinder({0: (900.0, 500.0)}, reach=1000)
    follow = BallFollower(finder)
    finder.frame = 0
    assert follow.find(frame, 0, umpire) is not None
    finder.frame = 1                                          # not there any more
    assert follow.find(frame, 1, umpire) is None
    assert len(finder.centres) == 3                           # predicted place, then the umpire
    finder.centres.clear()
    finder.frame = TRACK_FRAMES + 1                           # too long since the sighting
    follow.find(frame, TRACK_FRAMES + 1, umpire)
    assert len(finder.centres) == 1 and np.allclose(finder.centres[0], [520, 235])
    finder.centres.clear()
    assert follow.find(frame, TRACK_FRAMES + 2, np.zeros((0, 4))) is None
    assert finder.centres == []                               # nowhere to look: nothing is run


def test_detector_balls_seed_the_follower():
    finder = FakeFinder({5: (130.0, 100.0)}, reach=5)
    follow = BallFollower(finder)
    follow.remember(3, (110.0, 100.0))
    follow.remember(4, (120.0, 100.0))
    finder.frame = 5
    seen = follow.find(np.zeros((720, 1280, 3), np.uint8), 5, np.zeros((0, 4)))
    assert seen is not None and finder.centres[0] == pytest.approx([130, 100])


def test_a_still_sighting_does_not_hide_another_umpires_ball():
    """A white fleck taken for the ball, still, at one umpire's glove: the other umpire, whose
    window does not hold it, is still looked at every frame, and the ball in his hand wins;
    when he has none, the fleck stands (a dead ball on the ground is still too)."""
    thrower = np.array([500.0, 200.0, 540.0, 300.0])
    other = np.array([880.0, 470.0, 920.0, 570.0])
    hand, fleck = (520.0, 235.0), (900.0, 505.0)
    umpires = np.array([other, thrower])
    frame = np.zeros((720, 1280, 3), np.uint8)
    finder = FakeFinder({1: [fleck], 2: [fleck, hand], 3: [fleck, hand]}, reach=45)
    follow = BallFollower(finder)
    follow.remember(0, fleck)
    finder.frame = 1
    assert np.allclose(follow.find(frame, 1, umpires).xy, fleck)      # nothing in the thrower's hand
    assert len(finder.centres) == 2                                   # the fleck, then the thrower only
    assert np.allclose(finder.centres[1], [520, 235])
    finder.frame = 2
    assert np.allclose(follow.find(frame, 2, umpires).xy, hand)       # his ball wins
    # a moving ball is followed without a look at the umpires
    finder = FakeFinder({2: [(930.0, 500.0)]}, reach=45)
    follow = BallFollower(finder)
    follow.remember(0, (900.0, 500.0))
    follow.remember(1, (915.0, 500.0))
    finder.frame = 2
    assert follow.find(frame, 2, umpires) is not None and len(finder.centres) == 1
