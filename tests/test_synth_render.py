"""Rendered frames against their truth: boxes, masks, visibility, ground points, determinism."""
from pathlib import Path

import cv2
import numpy as np
import pytest

from synth.examples import lineup_doc
from synth.horse import HORSE, RIDER
from synth.raster import draw_mesh
from synth.render import Renderer
from synth.scenario import parse_scenario

SIZE = (320, 180)


@pytest.fixture(scope="module")
def lineup():
    s = parse_scenario(lineup_doc(SIZE, frames=5, seed=4))
    r = Renderer(s)
    img, recs, cam = r.render(2)
    return s, r, img, recs, cam


def test_same_seed_same_frames_other_seed_other_frames():
    a = Renderer(parse_scenario(lineup_doc(SIZE, frames=5, seed=7)))
    b = Renderer(parse_scenario(lineup_doc(SIZE, frames=5, seed=7)))
    c = Renderer(parse_scenario(lineup_doc(SIZE, frames=5, seed=8)))
    for i in (0, 4):
        fa, fb = a.render(i)[0], b.render(i)[0]
        assert np.array_equal(fa, fb)
    assert not np.array_equal(a.render(0)[0], c.render(0)[0])


def test_projected_boxes_enclose_each_parts_pixels():
    """Draw each part of a unit alone on black: its pixels lie inside the truth box, which they touch."""
    s = parse_scenario(lineup_doc((640, 360), frames=1, seed=1, throw_in_frame=None))
    r = Renderer(s, effects=False)
    cam = r.camera(0)
    for unit in r.model.units(0, lambda x, y: 0)[:3]:
        full = draw_mesh(np.zeros((360, 640, 3), np.uint8), cam, unit.mesh, r.light, np.zeros((360, 640), np.uint8),
                         {HORSE: 1, RIDER: 2, 2: 3})
        for part in (HORSE, RIDER):
            frame = np.zeros((360, 640, 3), np.uint8)
            alone = unit.mesh.select(unit.mesh.part == part)
            alone.colour = np.full_like(alone.colour, 255.0)      # flat white: the mask is the coverage
            alone.shade = np.zeros_like(alone.shade)
            draw_mesh(frame, cam, alone, r.light)
            x1, y1, x2, y2 = full.boxes[part]
            # anti-aliasing spreads a faint fringe up to ~2 px; solid pixels stay within 1.5 px
            for threshold, tol in ((0, 2.0), (64, 1.5)):
                ys, xs = np.nonzero(frame.max(axis=2) > threshold)
                assert len(xs) > 50
                assert xs.min() >= x1 - tol and xs.max() <= x2 + tol, (unit.obj.id, part)
                assert ys.min() >= y1 - tol and ys.max() <= y2 + tol, (unit.obj.id, part)
            # tight: the silhouette reaches every side of the box
            assert xs.min() <= x1 + 1.5 and xs.max() >= x2 - 1.5 and ys.min() <= y1 + 1.5 and ys.max() >= y2 - 1.5


def test_visible_pixels_lie_inside_truth_boxes(lineup):
    s, r, img, recs, cam = lineup
    ids = r.last_idbuf
    units = [rec for rec in recs if rec.role != "ball"]
    assert len(units) == 9
    for k, rec in enumerate(units):
        for part, name in ((HORSE, "horse"), (RIDER, "umpire" if rec.role == "umpire" else "rider")):
            ys, xs = np.nonzero(ids == 3 * k + 1 + part)
            if not len(xs):
                continue
            x1, y1, x2, y2 = rec.boxes[name]
            assert x1 - 1 <= xs.min() and xs.max() <= x2 + 1 and y1 - 1 <= ys.min() and ys.max() <= y2 + 1


def test_ground_point_is_the_homography_image_of_the_position_and_sits_at_the_hooves(lineup):
    s, r, img, recs, cam = lineup
    H = cam.homography()
    for rec in recs:
        if rec.role == "ball":
            continue
        p = H @ [rec.x, rec.y, 1.0]
        assert rec.ground_px == pytest.approx(p[:2] / p[2], abs=0.01)
        x1, y1, x2, y2 = rec.boxes["horse"]
        assert x1 <= rec.ground_px[0] <= x2
        # near the bottom of the horse box, far below its centre (horses have height)
        assert y2 - 0.2 * (y2 - y1) <= rec.ground_px[1] <= y2 + 1
        assert rec.ground_px[1] - (y1 + y2) / 2 > 0.3 * (y2 - y1)


def test_occlusion_and_frame_edges_lower_the_visible_fraction():
    d = lineup_doc(SIZE, frames=1, seed=2, throw_in_frame=None)
    # camera looking straight along the red rank: red-1 hides red-2 .. red-4 behind it
    d["camera"] = {"position": [148.75, 20.0, 2.2], "look_at": [148.75, 70.0, 1.5], "focal_px": 700}
    r = Renderer(parse_scenario(d), effects=False)
    recs = {rec.id: rec for rec in r.render(0)[1]}
    assert recs["red-1"].visible_fraction > 0.9
    assert recs["red-3"].visible_fraction < 0.5
    assert recs["red-3"].part_visible["horse"] < 0.5

    d["camera"] = {"position": [150.0, -30.0, 12.0], "look_at": [110.0, 40.0], "focal_px": 900}
    recs = {rec.id: rec for rec in Renderer(parse_scenario(d), effects=False).render(0)[1]}
    assert recs["red-4"].boxes == {} and recs["red-4"].visible_fraction == 0.0


def test_contact_sheet_of_sample_frames(lineup):
    """A contact sheet to look at (test-output/synth_contact_sheet.png)."""
    from synth.samples import SAMPLES
    tiles = []
    for name in ("clean_lineup", "jostling_at_centre", "throw_in_near_boards", "own_goal_blue1"):
        doc = SAMPLES[name]()
        doc["image_size"] = [480, 270]
        s = parse_scenario(doc)
        r = Renderer(s)
        i = min(s.n_frames - 1, (s.throw_in_frame or 40) + 20)
        tiles.append(r.render(i)[0])
    sheet = cv2.vconcat([cv2.hconcat(tiles[:2]), cv2.hconcat(tiles[2:])])
    out = Path(__file__).resolve().parents[1] / "test-output"
    out.mkdir(exist_ok=True)
    assert cv2.imwrite(str(out / "synth_contact_sheet.png"), sheet)
    assert sheet.std() > 10
