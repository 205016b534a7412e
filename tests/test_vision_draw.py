"""vision.draw: projected field shapes, clipping, inset map, banner."""
from __future__ import annotations

import numpy as np
import pytest

from vision.draw import (Marker, annotate, circle_polygon_yd, draw_banner, draw_boxes,
                         draw_centre_line, draw_field_circle, draw_field_segments,
                         draw_minimap, minimap_transform, project_segments, team_colour)
from vision.homography import field_to_image, look_at_homography

SIZE = (1280, 720)
G = look_at_homography((150, -45, 18), (150, 70), 1000, SIZE)     # field → image


def _blank():
    return np.zeros((SIZE[1], SIZE[0], 3), np.uint8)


def _lit_near(img, pts, r=1):
    """For each pixel point: is anything drawn within r pixels?"""
    out = []
    for u, v in np.round(pts).astype(int):
        patch = img[max(v - r, 0):v + r + 1, max(u - r, 0):u + r + 1]
        out.append(patch.size > 0 and patch.max() > 0)
    return np.array(out)


def test_circle_polygon_passes_through_projected_points():
    img = _blank()
    centre = np.array([150.0, 50.0])
    draw_field_circle(img, G, centre, 5.0, (255, 255, 255), thickness=1, n=90)
    angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    on = field_to_image(G, centre + 5 * np.c_[np.cos(angles), np.sin(angles)])
    assert _lit_near(img, on).all()
    # ... and not through the centre or points at 4 and 6 yd
    inner = field_to_image(G, centre + 3.5 * np.c_[np.cos(angles), np.sin(angles)])
    assert not _lit_near(img, [field_to_image(G, centre)], r=0).any()
    assert _lit_near(img, inner, r=0).mean() < 0.2


def test_circle_polygon_yd_is_a_circle():
    poly = circle_polygon_yd((10, 20), 5, n=36)
    assert poly.shape == (36, 2)
    assert np.hypot(*(poly - (10, 20)).T) == pytest.approx(np.full(36, 5.0))


def test_centre_line_projects_to_its_endpoints():
    segs = project_segments(G, [[150, 0]], [[150, 160]], SIZE)
    want = field_to_image(G, np.array([[150, 0], [150, 160]], float))
    assert segs.shape == (1, 2, 2)
    assert np.allclose(segs[0], want, atol=1e-6)
    img = _blank()
    draw_centre_line(img, G, colour=(0, 255, 255), thickness=1)
    mid = field_to_image(G, np.array([[150, y] for y in range(10, 160, 15)], float))
    assert _lit_near(img, mid).all()


def test_sign_of_the_homography_does_not_matter():
    a, b = _blank(), _blank()
    draw_field_circle(a, G, (150, 50), 5)
    draw_field_circle(b, -3.0 * G, (150, 50), 5)
    assert np.array_equal(a, b)


def test_segments_behind_the_camera_are_cut_at_the_horizon():
    # from the near sideline to a point far past the horizon (and behind the camera)
    segs = project_segments(G, [[150, 0], [150, -60]], [[150, 5000], [150, -1000]], SIZE)
    assert np.all(np.isfinite(segs))
    assert np.all((segs >= -2.01) & (segs <= np.array(SIZE) - 1 + 2.01))
    img = _blank()
    draw_field_segments(img, G, [[150, 0]], [[150, 5000]], (255, 255, 255))
    assert img.any()
    # entirely behind the camera: nothing
    assert len(project_segments(G, [[140, -60]], [[160, -80]], SIZE)) == 0


def test_segment_crossing_the_border_is_clipped_to_the_image():
    segs = project_segments(G, [[0, 40]], [[300, 40]], SIZE)       # much wider than view
    assert len(segs) == 1
    xs = segs[0, :, 0]
    assert xs.min() == pytest.approx(-2, abs=1e-6) and xs.max() == pytest.approx(SIZE[0] + 1,
                                                                                 abs=1e-6)


def test_minimap_places_markers():
    img = _blank()
    markers = [Marker("r1", "red", field_yd=(100, 40)), Marker("U1", "umpire",
                                                               field_yd=(150, 80))]
    rect = draw_minimap(img, markers)
    M, rect2 = minimap_transform(img.shape)
    assert rect == rect2 and rect[2] <= SIZE[0] and rect[3] <= SIZE[1]
    u, v = (M @ [100, 40, 1])[:2].round().astype(int)
    assert tuple(img[v, u]) == team_colour("red")
    u, v = (M @ [150, 80, 1])[:2].round().astype(int)
    assert tuple(img[v, u]) == team_colour("umpire")
    x0, y0, x1, y1 = rect
    assert not img[:y0 - 1].any()                                  # only the inset changed


def test_banner_only_when_there_is_something_to_say():
    img = _blank() + 100
    before = img.copy()
    draw_banner(img, [])
    assert np.array_equal(img, before)
    draw_banner(img, ["red-2 crossed the centre line"])
    assert (img[:10] < 100).any() and (img[:40, :, 2] > img[:40, :, 0]).any()
    assert np.array_equal(img[200:], before[200:])


def test_boxes_and_annotate():
    frame = _blank()
    img = frame.copy()
    draw_boxes(img, [(100, 200, 150, 300)], ["7"], [(0, 0, 255)])
    assert tuple(img[250, 100]) == (0, 0, 255)
    markers = [Marker(1, "red", (100, 200, 150, 300), (140, 50)),
               Marker("U", "umpire", (600, 200, 640, 300), (150, 50)),
               Marker(2, None, None, (160, 60))]
    out = annotate(frame, markers, G, ["one violation"])
    assert not frame.any()                                     # input untouched
    assert out.any()
    u, v = np.round(field_to_image(G, np.array([150.0, 55.0]))).astype(int)
    assert _lit_near(out, [(u, v)], r=2).all()                 # umpire circle drawn


def test_id_tags_of_a_dense_line_up_do_not_cover_one_another():
    from vision.draw import place_tags
    # six boxes side by side, each 12 px right of and 8 px below the last (a rank seen end-on)
    anchors = [(100 + 12 * k, 200 + 8 * k) for k in range(6)]
    sizes = [(40, 14)] * 6
    corners = place_tags(anchors, sizes)
    rects = [(x, y - h, x + w, y) for (x, y), (w, h) in zip(corners, sizes)]
    for i in range(6):
        for j in range(i + 1, 6):
            a, b = rects[i], rects[j]
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1]), (i, j)
    assert all(x == ax for (x, _), (ax, _) in zip(corners, anchors))       # lifted, never moved sideways
    assert corners[-1] == anchors[-1]                                      # the nearest keeps its place
    # a tag alone sits on its box; one at the top of the image is kept inside it
    assert place_tags([(50, 90)], [(40, 14)]) == [(50, 90)]
    assert place_tags([(50, 5)], [(40, 14)])[0][1] >= 14


def test_an_implied_box_is_drawn_in_dashes():
    """A hidden horse's box, implied from its rider's, is dashed: its edges have gaps where a
    seen box's are solid."""
    solid, dashed = _blank(), _blank()
    draw_boxes(solid, [(100, 200, 180, 300)], [""], [(0, 0, 255)])
    draw_boxes(dashed, [(100, 200, 180, 300)], [""], [(0, 0, 255)], dashed=[True])
    lit = lambda px: px[..., 2] > 128                          # noqa: E731  the red ink, not its anti-aliased fringe
    assert lit(solid[205:295, 100]).all() and lit(solid[200, 105:175]).all()
    assert 0.3 < lit(dashed[205:295, 100]).mean() < 0.75 and 0.3 < lit(dashed[200, 105:175]).mean() < 0.75
    out = annotate(_blank(), [Marker(1, "red", (100, 200, 180, 300), implied=True)], None, [])
    assert 0.3 < lit(out[205:295, 100]).mean() < 0.75


def test_lines_keep_their_weight_on_bigger_frames():
    """2 px on a 720-line frame, in proportion elsewhere (at least 1): a box edge on a
    1080- or 1440-line frame is drawn wider than on a 720-line one, not a hairline."""
    from vision.draw import line_width
    lit = {}
    for h, w_px in ((360, 1), (720, 2), (1080, 3), (1440, 4)):
        frame = np.zeros((h, h * 16 // 9, 3), np.uint8)
        assert line_width(frame) == w_px
        out = annotate(frame, [Marker(1, "red", (100, 100, 200, 300), None)], None, [], minimap=False)
        lit[h] = int((out[200, 90:120].max(axis=1) > 127).sum())     # the left edge, across
    assert lit[360] >= 1 and lit[360] < lit[720] < lit[1080] <= lit[1440]
    assert lit[720] == 3                                                # as before (thickness 2, anti-aliased)


def test_minimap_close_up_separates_a_lineup_the_whole_field_runs_together():
    """Two opponents 2.5 yd apart: 3 px apart on the whole-field inset, ~24 px close up."""
    from vision.map_view import MapView
    markers = [Marker("red-2", "red", field_yd=(148.75, 61.0)), Marker("blue-2", "blue", field_yd=(151.25, 61.0))]
    gaps = {}
    for name, view in (("whole", None), ("close", MapView((150.0, 60.0), 40.0))):
        img = _blank()
        rect = draw_minimap(img, markers, view=view)
        M, _ = minimap_transform(img.shape, view=view)
        px = [(M @ [*m.field_yd, 1])[:2].round().astype(int) for m in markers]
        if view is not None:                       # on the whole field one dot's rim covers the other
            for m, (u, v) in zip(markers, px):
                assert tuple(img[v, u]) == team_colour(m.team)
        gaps[name] = float(np.hypot(*(px[1] - px[0])))
        x0, y0, x1, y1 = rect
        assert not img[:y0].any() and not img[:, :x0].any()       # nothing drawn outside the inset
    assert gaps["whole"] < 5 and gaps["close"] > 20


def test_banner_lines_to_check_are_amber_under_the_red_violations():
    from vision.annotate_clip import event_lines
    from vision.draw import CHECK_BGR
    ev = {"code": "CONTACT_BEFORE_THROW_IN", "player": "red-t5", "opponent": "blue-t26", "start_frame": 50,
          "end_frame": 57, "worst": {"distance_yd": 0.95, "sigma_yd": 1.05}}
    assert event_lines([ev], 54, "CHECK: ") == ["CHECK: CONTACT BEFORE THROW IN red-t5 x blue-t26 0.9 +/-1.1 yd"]
    assert event_lines([ev], 80) == []                          # held ~0.5 s after the end only
    img = _blank() + 100
    draw_banner(img, ["FIVE YARD red-t1 4.2 yd", (event_lines([ev], 54, "CHECK: ")[0], CHECK_BGR)])
    red = np.all(img[:40] == (0, 0, 255), axis=2).sum()
    amber = np.all(img[:40] == CHECK_BGR, axis=2).sum()
    assert red > 20 and amber > 20
    rows = np.flatnonzero(np.all(img == CHECK_BGR, axis=2).any(axis=1))
    assert rows.min() > np.flatnonzero(np.all(img == (0, 0, 255), axis=2).any(axis=1)).max()   # the line below


def test_the_players_a_banner_names_are_framed_red_or_amber():
    from vision.annotate_clip import event_flags
    from vision.draw import CHECK_BGR
    sure = [{"code": "FIVE_YARD", "player": "red-t1", "start_frame": 10, "end_frame": 20, "worst": {}}]
    check = [{"code": "CONTACT_BEFORE_THROW_IN", "player": "red-t1", "opponent": "blue-t4", "start_frame": 15,
              "end_frame": 18, "worst": {}}]
    assert event_flags(sure, check, 16) == {"red-t1": (0, 0, 255), "blue-t4": CHECK_BGR}     # red wins
    assert event_flags(sure, check, 5) == {}
    markers = [Marker("red-t1", "red", (100, 100, 140, 200)), Marker("blue-t4", "blue", (300, 100, 340, 200)),
               Marker("blue-t5", "blue", (500, 100, 540, 200))]
    img = annotate(_blank(), markers, None, [], minimap=False, flags=event_flags(sure, check, 16))
    pad = 3 * 2
    assert tuple(img[150, 100 - pad]) == (0, 0, 255) and tuple(img[150, 300 - pad]) == CHECK_BGR
    assert not img[150, 500 - pad].any()                         # not named: no frame
