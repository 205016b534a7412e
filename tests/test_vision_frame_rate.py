"""Frame counts written for 25 frames/s, scaled to the footage's rate (vision.frame_rate)."""
import numpy as np

from vision.frame_rate import REFERENCE_FPS, frame_rate, per_reference, scaled_frames


def test_the_rate_of_analysed_frames():
    assert frame_rate(np.arange(150) / 25.0) == REFERENCE_FPS == 25.0      # exactly: the counts stay as written
    assert frame_rate(np.arange(300) / 50.0) == 50.0
    assert frame_rate(np.arange(0, 150, 2) / 25.0) == 12.5                # a frame stride of 2
    assert frame_rate(np.arange(300) / 29.97) == 29.97
    assert frame_rate([]) == frame_rate([1.0]) == frame_rate([1.0, 1.0]) == REFERENCE_FPS


def test_counts_scale_up_only():
    assert per_reference(12.5) == per_reference(25.0) == 1.0 and per_reference(50.0) == 2.0
    assert [scaled_frames(n, 25.0) for n in (0, 1, 2, 3, 15)] == [0, 1, 2, 3, 15]
    assert [scaled_frames(n, 12.5) for n in (1, 3, 15)] == [1, 3, 15]     # slower: as written
    assert [scaled_frames(n, 50.0) for n in (1, 3, 15)] == [2, 6, 30]
    assert [scaled_frames(n, 59.94) for n in (1, 3, 12)] == [2, 7, 29]
