"""The annotated clip's top-down inset zooms onto the players (vision/map_view.py)."""
import numpy as np

from vision.map_view import PAD_YD, VIEW_LENGTHS_YD, MapView, plan_views

L, W, FPS = 300.0, 160.0, 25.0


def _lineup(n_frames=100, at=(150.0, 58.0)):
    """Eight players in two ranks a yard or two from the centre line, the umpire at `at`."""
    ranks = [(at[0] + dx, at[1] + 3 + 2.5 * k) for dx in (-1.5, 1.5) for k in range(4)]
    return [np.array([at] + ranks) for _ in range(n_frames)], np.arange(n_frames) / FPS


def _inside(view: MapView, pts: np.ndarray, pad: float = 0.0) -> bool:
    lo, hi = view.bounds(L, W)
    return bool(np.all(pts - pad >= lo - 1e-9) and np.all(pts + pad <= hi + 1e-9))


def test_a_lineup_is_shown_close_up_with_everyone_and_the_umpires_circle_in_view():
    pos, t = _lineup()
    views = plan_views(pos, t, L, W)
    assert all(v.length_yd == VIEW_LENGTHS_YD[0] for v in views)          # 40 yd, not the field's 300
    assert all(_inside(v, p, PAD_YD) for v, p in zip(views, pos))
    assert np.allclose(views[50].centre_yd, pos[50].mean(axis=0), atol=0.5)


def test_a_slow_returner_20_yd_out_widens_the_view_to_hold_him():
    pos, t = _lineup()
    pos = [np.vstack([p, [[128.0, 50.0]]]) for p in pos]
    views = plan_views(pos, t, L, W)
    assert all(v.length_yd == VIEW_LENGTHS_YD[1] for v in views)
    assert all(_inside(v, p, PAD_YD) for v, p in zip(views, pos))


def test_the_view_widens_a_second_before_a_player_rides_far_off_and_does_not_pump():
    pos, t = _lineup(150)
    for i in range(75, 150):                                  # from 3 s one rider gallops north at 20 yd/s
        pos[i] = np.vstack([pos[i], [[150 + 20 * (t[i] - 3.0), 60.0]]])
    views = plan_views(pos, t, L, W)
    lengths = [v.length_yd for v in views]
    assert lengths[0] == VIEW_LENGTHS_YD[0]
    assert all(_inside(v, p) for v, p in zip(views, pos))
    first_wider = next(i for i, n in enumerate(lengths) if n > lengths[0])
    first_needed = next(i for i, p in enumerate(pos) if plan_views([p], [0.0], L, W)[0].length_yd > lengths[0])
    assert first_needed > 75 and first_wider == first_needed - FPS   # zoomed out a second ahead
    changes = sum(a != b for a, b in zip(lengths, lengths[1:]))
    assert changes <= len(VIEW_LENGTHS_YD)                      # only ever wider, one step at a time
    assert lengths == sorted(lengths)


def test_a_lineup_near_the_boards_keeps_the_view_on_the_field():
    pos, t = _lineup(at=(150.0, 12.0))
    views = plan_views(pos, t, L, W)
    (_, top), _ = views[10].bounds(L, W)
    assert top >= -1e-9 and _inside(views[10], pos[10])


def test_nobody_placed_shows_the_whole_field():
    views = plan_views([None, np.empty((0, 2)), np.array([[np.nan, np.nan]])], [0, 0.04, 0.08], L, W)
    assert all(v.is_whole_field(L) and v.centre_yd == (150, 80) for v in views)
