"""The ground point for the gait (vision.positions): where a moving horse's box stands above
the ground, on the renderer's truth and on made-up boxes; how hidden a box's bottom edge is;
the ground under the rider's head where the horse's hooves are hidden; each position's
uncertainty by direction."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.positions import (GAIT_DROP, HIDDEN_EDGE_SHARE, MIN_CLEAR, PIXEL_ERROR_PX, across_scale, gait_drop,
                              ground_point_px, ground_under_head, head_heights, hidden_edge_px, hidden_share,
                              largest_sigma, moving_ground, pixel_jacobian, position_cov)

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


def test_on_the_samples_truth_the_ground_under_a_hidden_horse_is_found_from_its_riders_head():
    """Head heights measured on a clip's still, fully visible horses place the still,
    half-hidden ones (less than 70% of the horse in view) from their rider's head alone,
    started 30 px off, within a pixel of the renderer's ground point."""
    for name in ("clean_lineup", "jostling_at_centre"):
        truth = json.loads((SAMPLES / name / "truth.json").read_text())
        heights, hidden = [], []
        for fr in truth["frames"]:
            H = np.linalg.inv(np.array(fr["H_field_to_image"]))
            for o in fr["objects"]:
                person = o["boxes"].get("rider", o["boxes"].get("umpire"))
                if person is None or o["speed_yds"] >= 1:
                    continue
                g = np.array(o["ground_px"], float)
                if o["part_visible"].get("horse", 1) >= 0.97:
                    heights.append((g[1] - person[1]) / across_scale(H, g[None])[0])
                elif o["part_visible"].get("horse", 1) < 0.7:
                    hidden.append((H, g, person[1]))
        assert len(heights) > 100 and len(hidden) > 50
        h = np.median(heights)
        err = [abs(ground_under_head(H, g[:1], np.array([top]), np.array([h]), g[1:] - 30)[0] - g[1])
               for H, g, top in hidden]
        assert np.percentile(err, 95) < 1.0, name


def _perspective() -> np.ndarray:
    """image px → field yd of a camera looking down the field: rows nearer the top are farther."""
    return np.linalg.inv(np.array([[8.0, 0.0, 100.0], [0.0, 3.0, 50.0], [0.0, 0.004, 1.0]]))


def test_moving_ground_moves_a_hidden_horse_towards_the_ground_under_its_riders_head():
    H = _perspective()
    F = MIN_CLEAR + 2
    x, ground_row, box_top = 640.0, 400.0, 300.0
    head = ground_row - 2.5 * across_scale(H, np.array([[x, ground_row]]))[0]      # 2.5 "yd" up
    height = (ground_row - box_top) / (1 + GAIT_DROP[0])       # a standing horse's ground point is 1.5% above its box bottom
    boxes = np.tile([x - 40, box_top, x + 40, box_top + height], (1, F, 1))
    persons = np.tile([x - 20, head, x + 20, 360.0], (1, F, 1))
    hidden = np.zeros((1, F))
    boxes[0, -2:, 3] += 20.0                    # the last two frames: the bottom edge is a guess, 20 px low
    hidden[0, -2:] = [1.0, 0.5]
    raw, speed, Hs = np.zeros((1, F, 2)), np.zeros((1, F)), [H] * F
    guess = ground_point_px(boxes[0, -1:])[0]
    assert abs(ground_point_px(boxes[0, :1])[0, 1] - ground_row) < 1e-6 and guess[1] > ground_row + 15

    def field(row: float) -> np.ndarray:
        return (np.c_[x, row, 1.0] @ H.T)[0, :2] / (np.c_[x, row, 1.0] @ H.T)[0, 2]

    out = moving_ground(raw, boxes, Hs, speed, hidden, persons)
    assert np.allclose(out[0, 0], field(ground_row))                     # in clear view: its own box
    assert np.allclose(out[0, -2], field(ground_row), atol=1e-3)         # all hidden: under the head
    assert np.allclose(out[0, -1], field((ground_row + guess[1]) / 2), atol=1e-3)   # half hidden: half way
    # without the rider's box the guess stands
    assert np.allclose(moving_ground(raw, boxes, Hs, speed, hidden)[0, -2], field(guess[1]))
    # too few frames in clear view anywhere: no height is known, the guess stands too
    few = hidden.copy()
    few[0, :F - MIN_CLEAR + 1] = 0.3
    assert np.allclose(moving_ground(raw, boxes, Hs, speed, few, persons)[0, -2], field(guess[1]))


def test_a_tracks_head_height_far_off_the_clips_is_the_clips():
    """Riders' heads stand alike above the ground (the samples' truth: within 1%). A track
    whose boxes are cut short in every frame (a horse end-on behind another, that one
    undetected: nothing says the edge is hidden) learns too low a head; more than HEAD_SPREAD
    under the clip's median, the clip's median stands for it. A track a few percent under, or
    higher (an umpire's seat), keeps its own (real riders and horses differ in size)."""
    H = _perspective()
    F = MIN_CLEAR + 2
    rows = np.array([400.0, 380.0, 420.0, 390.0, 410.0])
    xs = np.array([300.0, 450.0, 600.0, 750.0, 900.0])
    scale = across_scale(H, np.c_[xs, rows])
    own = np.array([2.5, 2.5, 2.5 * 1.12, 2.5 * 0.95, 2.5 * 0.88])   # the last: 12% too low a head
    ground = np.tile(np.c_[xs, rows][:, None, :], (1, F, 1))
    persons = np.zeros((5, F, 4))
    persons[:, :, 1] = (rows - own * scale)[:, None]
    h = head_heights(ground, persons, [H] * F, np.zeros((5, F)))
    assert np.allclose(h[:4], own[:4])
    assert h[4] == np.median(own)


def test_a_still_horses_box_gives_way_to_its_seated_riders_head_where_they_disagree():
    """A box spanning two horses of a line-up, its bottom edge in clear view but cut short: the
    ground under its seated rider's head wins; not for a rider who is not seated on that box,
    nor at a gallop, nor for a small disagreement."""
    H = _perspective()
    F = MIN_CLEAR + 4
    x, ground_row, box_top = 640.0, 400.0, 300.0
    head = ground_row - 2.5 * across_scale(H, np.array([[x, ground_row]]))[0]
    height = (ground_row - box_top) / (1 + GAIT_DROP[0])
    rider_h = (box_top - head) / 0.28                   # the horse's top 0.28 rider heights below his head
    boxes = np.tile([x - 40, box_top, x + 40, box_top + height], (1, F, 1))
    persons = np.tile([x - 20, head, x + 20, head + rider_h], (1, F, 1))
    boxes[0, -3:, 1] -= 8.0                             # the last three: a box cut short, 25% of its height
    boxes[0, -3:, 3] -= 0.25 * height + 8.0
    hidden, speed, raw, Hs = np.zeros((1, F)), np.zeros((1, F)), np.zeros((1, F, 2)), [H] * F

    def field(row: float) -> np.ndarray:
        return (np.c_[x, row, 1.0] @ H.T)[0, :2] / (np.c_[x, row, 1.0] @ H.T)[0, 2]

    short = ground_point_px(boxes[0, -1:])[0, 1]
    assert short < ground_row - 20
    out = moving_ground(raw, boxes, Hs, speed, hidden, persons)
    assert np.allclose(out[0, 0], field(ground_row))                    # agreeing: its own box
    assert np.allclose(out[0, -1], field(ground_row), atol=0.05)        # cut short: under the head
    not_seated = persons.copy()
    not_seated[0, -3:, [0, 2]] += 35.0                  # the rider of the horse beside, off its centre
    assert np.allclose(moving_ground(raw, boxes, Hs, speed, hidden, not_seated)[0, -1], field(short))
    too_high = persons.copy()
    too_high[0, -3:, 1] -= rider_h                      # a head a rider's height above: not on this horse
    assert np.allclose(moving_ground(raw, boxes, Hs, speed, hidden, too_high)[0, -1], field(short))
    galloping = np.full((1, F), 10.0)
    moved = moving_ground(raw, boxes, Hs, galloping, hidden, persons)[0, -1]
    assert np.allclose(moved, field(ground_point_px(boxes[0, -1:], gait_drop(np.array([10.0])))[0, 1]))
    slight = np.tile([x - 40, box_top, x + 40, box_top + height], (1, F, 1))
    slight[0, -3:, 3] -= 0.05 * height                  # 5% short: within a box's error, it stands
    assert np.allclose(moving_ground(raw, slight, Hs, speed, hidden, persons)[0, -1],
                       field(ground_point_px(slight[0, -1:])[0, 1]))


def _sideline_camera() -> np.ndarray:
    """image px → field yd of clean_lineup's camera (on the west sideline, looking up the field's y)."""
    truth = json.loads((SAMPLES / "clean_lineup" / "truth.json").read_text())
    return np.linalg.inv(np.array(truth["frames"][0]["H_field_to_image"], float))


def test_a_sideline_camera_measures_across_its_view_far_better_than_in_depth():
    H = _sideline_camera()
    J = pixel_jacobian(H, np.array([[148.75, 64.0], [151.25, 72.7]]))
    across, down = np.hypot(*J[:, :, 0].T), np.hypot(*J[:, :, 1].T)
    assert np.all(down > 5 * across)                                   # a pixel down the image: yards of depth
    assert np.all(np.abs(J[:, 1, 1]) > 3 * np.abs(J[:, 0, 1]))         # ... and depth is the field's y here
    # a still, fully seen track: the covariance is the pixel error carried through; x is sure, y is not
    F = 5
    xy = np.tile([[[148.75, 64.0]]], (1, F, 1))
    cov = position_cov(xy, xy, [H] * F, np.zeros((1, F), bool))
    sx, sy = np.sqrt(cov[0, :, 0, 0]), np.sqrt(cov[0, :, 1, 1])
    assert np.all(sy > 3 * sx) and np.all(sx < 0.1)
    assert np.allclose(largest_sigma(cov), np.sqrt(np.linalg.eigvalsh(cov)[..., -1]))
    assert np.allclose(largest_sigma(cov)[0], PIXEL_ERROR_PX * np.hypot(*J[0].T).max(), rtol=0.2)


def test_position_cov_grows_with_the_scatter_along_its_axis_and_across_gaps():
    H = _sideline_camera()
    F = 15
    rng = np.random.default_rng(0)
    smoothed = np.tile([[[148.75, 64.0]]], (1, F, 1))
    raw = smoothed + np.c_[np.zeros(F), rng.normal(0, 0.5, F)][None]        # jitter in depth only
    gaps = np.zeros((1, F), bool)
    gaps[0, 7] = True
    cov = position_cov(raw, smoothed, [H] * F, gaps)
    still = position_cov(smoothed, smoothed, [H] * F, np.zeros((1, F), bool))
    assert np.median(cov[0, :, 1, 1] - still[0, :, 1, 1]) > 0.1              # the jitter counts in y ...
    assert np.allclose(np.delete(cov[0, :, 0, 0], 7), np.delete(still[0, :, 0, 0], 7))   # ... not in x
    assert np.isclose(cov[0, 7, 0, 0] - still[0, 7, 0, 0], 1.0)             # a gap: one more yard each way
    smoothed[0, 3] = np.nan
    assert np.isnan(position_cov(smoothed, smoothed, [H] * F, np.zeros((1, F), bool))[0, 3]).all()


def test_a_hidden_bottom_edge_is_less_sure_in_depth():
    H = _sideline_camera()
    F = 5
    xy = np.tile([[[148.75, 64.0]]], (1, F, 1))
    boxes = np.tile([[[600.0, 300.0, 630.0, 400.0]]], (1, F, 1))
    hidden = np.array([[0.0, 0.5, 1.0, 0.0, 0.0]])
    edge = hidden_edge_px(boxes, hidden)
    assert np.allclose(edge[0], [0.0, 50 * HIDDEN_EDGE_SHARE, 100 * HIDDEN_EDGE_SHARE, 0.0, 0.0])
    plain = position_cov(xy, xy, [H] * F, np.zeros((1, F), bool))
    cov = position_cov(xy, xy, [H] * F, np.zeros((1, F), bool), edge_px=edge)
    assert np.allclose(cov[0, [0, 3, 4]], plain[0, [0, 3, 4]])
    sy, sx = np.sqrt(cov[0, :, 1, 1]), np.sqrt(cov[0, :, 0, 0])
    assert sy[2] > sy[1] > 1.5 * sy[0] and sy[2] > 0.6            # 4 px of edge: most of a yard in depth
    assert sx[2] < 0.25                                            # ... a fraction of it across


def test_a_rider_box_that_lost_its_top_does_not_move_his_horse():
    """The umpire of a re-rendered slow_returner_red2 (session 18): his horse's box in clear
    view and unchanged, his person box lost its top (a quarter of its height) after the
    throw-in, and the box-head disagreement moved him 2.6 yd. A head is trusted over a clear
    box only where the rider's box is its usual height; a box cut short still gives way."""
    H = _perspective()
    F = MIN_CLEAR + 4
    x, box_top, box_bottom = 640.0, 300.0, 400.0
    boxes = np.tile([x - 40, box_top, x + 40, box_bottom], (1, F, 1))
    persons = np.tile([x - 20, 260.0, x + 20, 360.0], (1, F, 1))   # seated: the horse's top 0.4 of him below his head
    hidden, speed, raw, Hs = np.zeros((1, F)), np.zeros((1, F)), np.zeros((1, F, 2)), [H] * F

    def field(px: np.ndarray) -> np.ndarray:
        p = np.c_[px[None, :], 1.0] @ H.T
        return p[0, :2] / p[0, 2]

    own = field(ground_point_px(boxes[0, -1:])[0])
    dropped = persons.copy()
    dropped[0, -3:, 1] += 25.0                          # the last three: his box 25 px shorter at the top
    assert np.allclose(moving_ground(raw, boxes, Hs, speed, hidden, dropped)[0, -1], own)
    # his box as usual, the horse's cut short by a quarter: the ground under his head counts
    cut = boxes.copy()
    cut[0, -3:, 3] -= 25.0
    short = field(ground_point_px(cut[0, -1:])[0])
    moved = moving_ground(raw, cut, Hs, speed, hidden, persons)[0, -1]
    assert np.linalg.norm(moved - short) > 0.5 * np.linalg.norm(own - short)
