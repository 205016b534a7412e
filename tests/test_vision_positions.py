"""The ground point for the gait (vision.positions): where a moving horse's box stands above
the ground, on the renderer's truth and on made-up boxes; how hidden a box's bottom edge is."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.positions import GAIT_DROP, gait_drop, ground_point_px, hidden_share, moving_ground

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"


def test_gait_drop_grows_with_speed_from_the_standing_figure():
    d = gait_drop(np.array([0.0, 0.5, 3.0, 8.0, 13.5, 40.0, np.nan]))
    assert d[0] == GAIT_DROP[0] and d[-1] == GAIT_DROP[0]          # unknown speed: standing
    assert np.all(np.diff(d[:6]) >= 0) and d[4] > 0.03


def test_on_the_samples_truth_a_galloping_horse_stands_on_the_dropped_point():
    """Fully visible horses faster than 10 yd/s in two samples: the speed's ground point is
    nearer the truth than the standing one, by more than a pixel in the median."""
    gains = []
    for name in ("own_goal_blue1", "reversed_lineup"):
        truth = json.loads((SAMPLES / name / "truth.json").read_text())
        for fr in truth["frames"]:
            for o in fr["objects"]:
                if o["role"] != "player" or o["speed_yds"] < 10 or o["part_visible"].get("horse", 0) < 0.97:
                    continue
                b = np.array(o["boxes"]["horse"], float)
                still = ground_point_px(b[None])[0]
                moving = np.array([(b[0] + b[2]) / 2, b[3] + gait_drop(o["speed_yds"]) * (b[3] - b[1])])
                gains.append(abs(still[1] - o["ground_px"][1]) - abs(moving[1] - o["ground_px"][1]))
    assert len(gains) > 100
    assert np.median(gains) > 1.0


def test_moving_ground_places_a_horse_for_its_speed_unless_its_bottom_is_hidden():
    boxes = np.array([[[100.0, 100, 200, 200], [100, 100, 200, 200]]])   # one track, two frames, 100 px tall
    raw = np.zeros((1, 2, 2))
    Hs = [np.eye(3), np.eye(3)]                                          # pixels are "yards"
    out = moving_ground(raw, boxes, Hs, np.array([[0.0, 13.5]]))
    assert np.allclose(out[0, 0], [150, 198.5]) and np.allclose(out[0, 1], [150, 203.4])
    out = moving_ground(raw, boxes, Hs, np.array([[0.0, 13.5]]), hidden=np.array([[0.0, 1.0]]))
    assert np.allclose(out[0, 1], [150, 198.5])                          # hidden: as if standing
    raw_gap = raw.copy()
    raw_gap[0, 1] = np.nan
    assert np.isnan(moving_ground(raw_gap, boxes, Hs, np.array([[0.0, 13.5]]))[0, 1, 0])


def test_hidden_share_counts_only_boxes_in_front_over_the_bottom_strip():
    boxes = np.array([
        [[100.0, 100, 200, 200]],      # behind (bottom 200) ...
        [[90.0, 170, 210, 260]],       # ... this one in front covers its bottom strip
        [[400.0, 100, 500, 200]],      # alone
        [[120.0, 50, 180, 120]],       # farther still, its bottom behind the first: hidden too
        [[205.0, 150, 305, 195]],      # beside the second's top, bottom not hidden by anything lower
    ])
    h = hidden_share(boxes)[:, 0]
    assert h[0] == 1.0 and h[1] == 0.0 and h[2] == 0.0 and h[3] == 1.0
    assert 0.0 < h[4] < 0.1            # the second's corner (x 205-210) covers a sliver of its strip
