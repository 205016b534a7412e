"""The camera model against hand-computed projections."""
import numpy as np
import pytest

from synth.camera import Camera, clip_near, pan_tilt_towards, rotation_from_pan_tilt


def level_camera(focal=1000.0):
    # On the west side at 10 yd height, looking due east (+y), level.
    return Camera.from_pose([150.0, -50.0, 10.0], pan_deg=90.0, tilt_deg=0.0, focal_px=focal, image_size=(1280, 720))


def test_point_straight_ahead_lands_on_the_principal_point():
    uv, z = level_camera().project(np.array([[150.0, 50.0, 10.0]]))
    assert z[0] == pytest.approx(100.0)
    assert uv[0] == pytest.approx([640.0, 360.0])


def test_hand_computed_offsets():
    cam = level_camera()
    # 10 yd north of the view axis at 100 yd: facing east, north is on the LEFT -> u = 640 - 1000 * 10 / 100
    # 10 yd below the camera at 100 yd -> v = 360 + 1000 * 10 / 100
    uv, _ = cam.project(np.array([[160.0, 50.0, 10.0], [150.0, 50.0, 0.0], [140.0, 0.0, 5.0]]))
    assert uv[0] == pytest.approx([540.0, 360.0])
    assert uv[1] == pytest.approx([640.0, 460.0])
    assert uv[2] == pytest.approx([640.0 + 1000 * 10 / 50, 360.0 + 1000 * 5 / 50])


def test_tilted_camera_centres_the_ground_point_it_looks_at():
    cam = Camera.from_pose([0.0, 0.0, 10.0], pan_deg=0.0, tilt_deg=45.0, focal_px=800.0, image_size=(640, 480))
    uv, z = cam.project(np.array([[10.0, 0.0, 0.0]]))
    assert uv[0] == pytest.approx([320.0, 240.0])
    assert z[0] == pytest.approx(np.hypot(10, 10))
    pan, tilt = pan_tilt_towards(np.array([0.0, 0.0, 10.0]), np.array([10.0, 0.0, 0.0]))
    assert (pan, tilt) == pytest.approx((0.0, 45.0))


def test_rotation_is_orthonormal_with_the_field_frames_handedness():
    R = rotation_from_pan_tilt(37.0, 12.0, 3.0)
    assert R @ R.T == pytest.approx(np.eye(3))
    assert np.linalg.det(R) == pytest.approx(-1.0)   # x north, y east, z up is left-handed


def test_homography_matches_projection_and_inverts():
    cam = Camera.from_pose([120.0, -30.0, 14.0], 80.0, 9.0, 2300.0, (1280, 720))
    g = np.array([[150.0, 60.0], [140.0, 70.0], [160.0, 55.0], [150.0, 80.0]])
    uv, _ = cam.project(np.column_stack([g, np.zeros(len(g))]))
    H = cam.homography()
    p = (H @ np.column_stack([g, np.ones(len(g))]).T).T
    assert p[:, :2] / p[:, 2:] == pytest.approx(uv, abs=1e-6)
    assert cam.image_to_ground(uv) == pytest.approx(g, abs=1e-6)


def test_horizon_separates_ground_from_sky():
    cam = level_camera()
    line, ground_sign = cam.horizon()
    # level camera: the horizon is the middle row
    assert -line[2] / line[1] == pytest.approx(360.0)
    below = np.array([640.0, 500.0, 1.0]) @ line
    assert np.sign(below) == ground_sign
    assert np.isnan(cam.image_to_ground(np.array([[640.0, 200.0]]))).all()


def test_near_plane_clipping_keeps_the_front_part():
    quad = np.array([[0.0, 0.0, -1.0], [1.0, 0.0, -1.0], [1.0, 0.0, 3.0], [0.0, 0.0, 3.0]])
    out = clip_near(quad, 0.5)
    assert out[:, 2].min() == pytest.approx(0.5)
    assert len(out) == 4
    assert len(clip_near(quad[:2], 0.5)) == 0
