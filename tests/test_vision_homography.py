"""vision.homography: landmarks, validation, RANSAC fit, vectorised mapping."""
from __future__ import annotations

import json

import numpy as np
import pytest

from vision.errors import CalibrationError
from vision.homography import (calibrate, field_landmarks, field_to_image, fit_homography, for_frame_size,
                               homography_from_points, image_to_field, landmark_yd,
                               load_calibration, look_at_homography, parse_calibration,
                               validate_calibration)

SIZE = (1280, 720)
G_TRUE = look_at_homography((150, -60, 25), (150, 80), 900, SIZE)   # field → image
H_TRUE = np.linalg.inv(G_TRUE)


def _norm(M):
    return M / M[2, 2]


def _grid_points():
    yd = np.array([[x, y] for x in (120, 135, 150, 165, 180) for y in (0, 40, 80, 120, 160)],
                  float)
    px = field_to_image(G_TRUE, yd)
    inside = np.all((px > 0) & (px < SIZE), axis=1)
    return px[inside], yd[inside]


def test_four_exact_points_recover_h():
    yd = np.array([[120, 10], [180, 10], [170, 120], [130, 130]], float)
    fit = homography_from_points(field_to_image(G_TRUE, yd), yd, SIZE)
    assert np.allclose(_norm(fit.H), _norm(H_TRUE), rtol=1e-6, atol=1e-9)
    assert np.allclose(_norm(fit.H_inv), _norm(G_TRUE), rtol=1e-6, atol=1e-6)
    assert fit.rms_px < 1e-6 and fit.max_yd < 1e-6
    assert any("only 4 points" in w for w in fit.warnings)


def test_noisy_points_small_error():
    px, yd = _grid_points()
    rng = np.random.default_rng(1)
    fit = homography_from_points(px + rng.normal(0, 1.0, px.shape), yd, SIZE)
    assert fit.inliers.all()
    assert 0.5 < fit.rms_px < 1.5 and fit.max_px < 4
    assert fit.rms_yd < 2.0
    # the fit is far better than the noise on a dense check grid
    probe = np.array([[140, 30], [160, 70], [150, 110]], float)
    assert np.abs(image_to_field(fit.H, field_to_image(G_TRUE, probe)) - probe).max() < 1.5


def test_ransac_flags_a_wrong_point():
    px, yd = _grid_points()
    px = px.copy()
    px[3] += (60, -40)
    fit = homography_from_points(px, yd, SIZE)
    assert not fit.inliers[3] and fit.inliers.sum() == len(px) - 1
    assert fit.max_px < 1e-6
    assert "point 3" in fit.warnings[0]


@pytest.mark.parametrize("yd, match", [
    ([[120, 10], [150, 10], [180, 10], [150, 120]], "collinear"),
    ([[120, 10], [150, 10], [180, 10], [165, 10], [135, 10]], "collinear"),
    ([[120, 10], [150, 10.3], [180, 10], [165, 9.8], [135, 10.1]], "collinear|unique"),
    ([[120, 10], [180, 10], [170, 120], [120, 10.2]], "same field point|at least 4"),
    ([[120, 10], [180, 10], [170, 120], [130, 175]], "outside the field"),
    ([[120, 10], [180, 10], [170, 120], [340, 100]], "outside the field"),
    ([[120, 10], [180, 10], [170, 120]], "at least 4"),
    ([[150, 78], [151, 78], [151, 79], [150, 79.5]], "sq yd"),
])
def test_degenerate_sets_raise(yd, match):
    yd = np.asarray(yd, float)
    with pytest.raises(CalibrationError, match=match):
        homography_from_points(field_to_image(G_TRUE, yd), yd, SIZE)


def test_swapped_pair_is_reported():
    yd = np.array([[120, 10], [180, 10], [170, 120], [130, 130]], float)
    px = field_to_image(G_TRUE, yd)
    with pytest.raises(CalibrationError, match="behind the camera|inconsistent"):
        homography_from_points(px, yd[[1, 0, 2, 3]], SIZE)


def test_non_finite_raises():
    with pytest.raises(CalibrationError, match="finite"):
        homography_from_points([[0, 0], [1, 1], [2, 5], [9, 9]],
                               [[0, 0], [1, 1], [2, np.inf], [9, 9]])


def test_landmarks_scale_with_field():
    m = field_landmarks(280, 150)
    assert m["centre_line_x_west_sideline"] == (140, 0)
    assert m["north_30_x_east_sideline"] == (250, 150)
    assert m["south_goal_centre"] == (0, 75)
    assert m["north_goal_east_post"] == (280, 79)
    assert landmark_yd("Center line at East sideline") == (150, 160)
    assert landmark_yd("west_sideline_x_south_60") == (60, 0)
    assert landmark_yd("40 yard line north x west side-line") == (260, 0)
    assert landmark_yd("nonsense") is None


def _doc(names_or_yd, size=SIZE):
    pts = []
    marks = field_landmarks()
    for item in names_or_yd:
        yd = marks[item] if isinstance(item, str) else item
        p = {"px": field_to_image(G_TRUE, np.asarray(yd, float)).tolist()}
        if isinstance(item, str):
            p["name"] = item
        else:
            p["yd"] = list(item)
        pts.append(p)
    return {"image_size": list(size), "field": {"length_yd": 300, "width_yd": 160},
            "points": pts, "frame": 3}


def test_named_points_and_file_roundtrip(tmp_path):
    doc = _doc(["centre_line_x_west_sideline", "south_60_centre", "north_60_centre",
                "centre_spot", (165, 10), (135, 140)])
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(doc))
    cal = load_calibration(path)
    assert cal.frame == 3 and cal.names[0] == "centre_line_x_west_sideline"
    assert cal.yd[1].tolist() == [60, 80]
    fit = calibrate(path)
    assert fit.rms_px < 1e-6
    assert np.allclose(_norm(fit.H), _norm(H_TRUE), rtol=1e-6, atol=1e-9)


def test_parse_errors_name_the_problem(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        load_calibration(bad)
    with pytest.raises(CalibrationError, match="no such file"):
        load_calibration(tmp_path / "missing.json")
    with pytest.raises(CalibrationError, match="point 1.*missing 'yd'"):
        parse_calibration({"points": [{"px": [1, 2], "yd": [3, 4]}, {"px": [5, 6]}]})
    with pytest.raises(CalibrationError, match="unknown landmark"):
        parse_calibration({"points": [{"name": "pub", "px": [5, 6]}]})
    with pytest.raises(CalibrationError, match="disagrees"):
        parse_calibration({"points": [{"name": "centre_spot", "px": [5, 6], "yd": [10, 10]}]})
    with pytest.raises(CalibrationError, match="px must be two numbers"):
        parse_calibration({"points": [{"px": [5], "yd": [1, 1]}]})
    with pytest.raises(CalibrationError, match="length_yd"):
        parse_calibration({"field": {"length_yd": -3}, "points": []})


def test_validate_rejects_points_far_outside_image():
    doc = _doc([(120, 10), (180, 10), (170, 120), (130, 130)])
    doc["points"][2]["px"] = [5000, 300]
    with pytest.raises(CalibrationError, match="outside the 1280x720 image"):
        validate_calibration(parse_calibration(doc))


def test_mapping_is_vectorised_and_inverse():
    rng = np.random.default_rng(2)
    yd = rng.uniform([0, 0], [300, 160], size=(4, 5, 2))
    px = field_to_image(G_TRUE, yd)
    assert px.shape == yd.shape
    assert np.allclose(image_to_field(H_TRUE, px), yd, atol=1e-9)
    assert image_to_field(H_TRUE, px[0, 0]).shape == (2,)
    # a pixel above the horizon maps "behind" the camera
    fit = fit_homography(parse_calibration(_doc([(120, 10), (180, 10), (170, 120),
                                                 (130, 130), (150, 60)])))
    sky = np.array([[640, 5]])
    assert np.isnan(image_to_field(fit.H, sky, front_only=True)).all()
    assert np.isfinite(image_to_field(fit.H, sky)).all()


def test_exact_repeats_are_dropped_conflicting_ones_raise():
    yd = np.array([[120, 10], [180, 10], [170, 120], [130, 130], [170, 120]], float)
    px = field_to_image(G_TRUE, yd)
    fit = homography_from_points(px, yd, SIZE)          # 4 distinct points + a repeat
    assert len(fit.inliers) == 4 and fit.rms_px < 1e-6
    px[4] += (30, 0)
    with pytest.raises(CalibrationError, match="point 2 and point 4 are the same field point"):
        homography_from_points(px, yd, SIZE)


def test_a_calibration_follows_a_transcode_and_refuses_another_picture():
    """Marked on 1280x720 frames: for the same picture at 1920x1080 its pixels are scaled (a
    point of the bigger frame maps to the same yards), for 720x1280 (rotated) it is refused,
    and for frames of its own size (or a calibration without image_size) it is kept."""
    px, yd = _grid_points()
    fit = homography_from_points(px, yd, image_size=SIZE)
    assert for_frame_size(fit, SIZE) is fit
    big = for_frame_size(fit, (1920, 1080))
    assert big.calibration.image_size == (1920, 1080) and "1280x720" in big.warnings[0]
    probe = np.array([[400.0, 500.0], [900.0, 300.0]])
    np.testing.assert_allclose(image_to_field(big.H, (probe + 0.5) * 1.5 - 0.5), image_to_field(fit.H, probe),
                               atol=1e-6)
    with pytest.raises(CalibrationError, match="720x1280"):
        for_frame_size(fit, (720, 1280))
    loose = homography_from_points(px, yd)
    assert for_frame_size(loose, (720, 1280)) is loose
