"""vision.camera_motion: tracking a panning, zooming camera over a synthetic field."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.camera_motion import (CameraMotionTracker, field_mask, fit_ptz, line_offsets,
                                  ptz_from_homography)
from vision.homography import field_to_image, image_to_field, look_at_homography

SIZE = (640, 360)
PPY = 4.0                      # texture pixels per yard
X0, Y0 = -40.0, -20.0          # texture origin, yards
TEX_TO_YD = np.array([[1 / PPY, 0, X0], [0, 1 / PPY, Y0], [0, 0, 1]])
N_FRAMES = 50


def _texture(seed: int = 0) -> np.ndarray:
    """Top-down grass: multi-scale noise, mowing stripes, white lines (4 px per yard)."""
    rng = np.random.default_rng(seed)
    th, tw = int(200 * PPY), int(380 * PPY)
    g = np.zeros((th, tw), np.float32)
    for sigma, amp in ((1.0, 10), (3, 14), (10, 18)):
        n = cv2.GaussianBlur(rng.normal(0, 1, (th, tw)).astype(np.float32), (0, 0), sigma)
        g += amp * n / n.std()
    xs = np.arange(tw) / PPY + X0
    g += np.where((xs // 10) % 2 == 0, 8.0, -8.0).astype(np.float32)[None, :]
    g = np.clip(g + 110, 0, 255)
    img = np.stack([g * 0.45, g, g * 0.55], axis=2)
    x_cols = lambda x: slice(int((x - X0) * PPY) - 1, int((x - X0) * PPY) + 2)  # centred
    y_rows = lambda y: slice(int((y - Y0) * PPY) - 1, int((y - Y0) * PPY) + 2)
    for x in (0, 30, 40, 60, 150, 240, 260, 270, 300):
        img[:, x_cols(x)] = 235
    for y in (0, 160):
        img[y_rows(y), int(-X0 * PPY):int((300 - X0) * PPY)] = 235
    return img.astype(np.uint8)


def _render(tex: np.ndarray, G: np.ndarray, ss: int = 2) -> np.ndarray:
    """Frame of field→image homography G (supersampled ×ss), sky above the horizon."""
    big = (SIZE[0] * ss, SIZE[1] * ss)
    # Output pixel i is the mean of big pixels ss*i .. ss*i + ss-1, centred at ss*i + (ss-1)/2:
    # without that half-step the frame sat 0.25 px off G (the lines seen 0.05-0.1 yd off).
    Gb = np.array([[ss, 0, (ss - 1) / 2], [0, ss, (ss - 1) / 2], [0, 0, 1.0]]) @ G
    out = cv2.warpPerspective(tex, Gb @ TEX_TO_YD, big, borderValue=(60, 90, 60))
    u, v = np.meshgrid(np.arange(big[0]), np.arange(big[1]))
    Hi = np.linalg.inv(Gb)
    out[(Hi[2, 0] * u + Hi[2, 1] * v + Hi[2, 2]) * np.sign(Hi[2] @ [big[0] / 2, big[1], 1])
        <= 0] = (230, 200, 170)
    return cv2.resize(out, SIZE, interpolation=cv2.INTER_AREA)


def _camera(i: int, n: int = N_FRAMES) -> np.ndarray:
    """A pan from x=120 to x=170 with a 30 % zoom-in, from the west stand."""
    a = i / (n - 1)
    return look_at_homography((150, -45, 18), (120 + 50 * a, 70 + 10 * np.sin(3 * a)),
                              500 * (1 + 0.3 * a), SIZE)


@pytest.fixture(scope="module")
def clip():
    tex = _texture()
    Gs = [_camera(i) for i in range(N_FRAMES)]
    return Gs, [_render(tex, G) for G in Gs]


def _error_yd(H: np.ndarray, G: np.ndarray, max_y: float = 100.0) -> float:
    """Worst field error over the visible field points with y ≤ max_y (players' area)."""
    yd = np.array([[x, y] for x in range(0, 301, 5) for y in range(0, int(max_y) + 1, 5)],
                  float)
    px = field_to_image(G, yd, front_only=True)
    seen = np.all(np.isfinite(px), axis=1) & np.all((px >= 0) & (px < SIZE), axis=1)
    return float(np.max(np.hypot(*(image_to_field(H, px[seen]) - yd[seen]).T)))


def test_tracks_a_pan_with_zoom(clip):
    Gs, frames = clip
    tracker = CameraMotionTracker(np.linalg.inv(Gs[0]), SIZE, scale=1.0)
    errors = []
    for G, frame in zip(Gs, frames):
        step = tracker.update(frame)
        assert step.ok, step.reason
        errors.append(_error_yd(step.H, G))
    assert errors[-1] < 0.5
    assert np.median(errors) < 0.35 and max(errors) < 1.0
    # the camera really moved: the first H would be tens of yards off by now
    assert _error_yd(np.linalg.inv(Gs[0]), Gs[-1]) > 20


def test_without_line_reanchoring_also_holds(clip):
    Gs, frames = clip
    tracker = CameraMotionTracker(np.linalg.inv(Gs[0]), SIZE, scale=1.0, reanchor=False)
    for frame in frames:
        step = tracker.update(frame)
    assert step.ok and _error_yd(step.H, Gs[-1]) < 0.6


def test_working_size_off_the_mask_grid(clip):
    """A working image whose height is no multiple of the coarse masks' step: 960x540 footage
    at the default scale 0.5 is 480x270 (here 640x360 at 0.75). Picking features raised an
    IndexError on such frames."""
    Gs, frames = clip
    tracker = CameraMotionTracker(np.linalg.inv(Gs[0]), SIZE, scale=0.75)
    assert tracker.size_s == (480, 270) and 270 % tracker.MASK_STEP
    for frame in frames[:20]:
        step = tracker.update(frame)
        assert step.ok, step.reason
    assert _error_yd(step.H, Gs[19]) < 1.0
    assert _error_yd(np.linalg.inv(Gs[0]), Gs[19]) > 5       # the camera moved


def test_free_homography_model_also_holds(clip):
    Gs, frames = clip
    tracker = CameraMotionTracker(np.linalg.inv(Gs[0]), SIZE, scale=1.0, model="homography")
    assert tracker.camera is None
    for frame in frames:
        step = tracker.update(frame)
    assert step.ok and _error_yd(step.H, Gs[-1]) < 0.6


def test_pan_tilt_zoom_decomposition_and_fit():
    G = _camera(0)
    cam = ptz_from_homography(G, SIZE)
    assert cam is not None and cam.f == pytest.approx(500)
    assert cam.C[:2] == pytest.approx([150, -45]) and abs(cam.C[2]) == pytest.approx(18)
    H = cam.field_to_image()
    assert np.allclose(H / H[2, 2], G / G[2, 2], atol=1e-9)
    rng = np.random.default_rng(0)
    yd = rng.uniform((120, 20), (180, 120), (100, 2))
    target = _camera(10)
    fitted, res = fit_ptz(cam, yd, field_to_image(target, yd))
    assert res.max() < 1e-6 and fitted.f == pytest.approx(500 * (1 + 0.3 * 10 / 49))
    assert ptz_from_homography(np.diag([1.0, 1.0, 1.0]), SIZE) is None   # not a camera


def test_boxes_keep_features_off_moving_riders(clip):
    Gs, frames = clip
    tracker = CameraMotionTracker(np.linalg.inv(Gs[0]), SIZE, scale=1.0)
    rng = np.random.default_rng(3)
    start = rng.uniform((50, 150), (590, 300), size=(6, 2))
    for i, (G, frame) in enumerate(zip(Gs, frames)):
        frame = frame.copy()
        # riders: textured blobs moving against the pan
        centres = start + np.array([-6.0 * i, 0.5 * i])
        boxes = np.c_[centres - (18, 30), centres + (18, 30)]
        for x1, y1, x2, y2 in boxes.astype(int):
            patch = rng.integers(0, 255, (max(y2 - y1, 1), max(x2 - x1, 1), 3), np.uint8)
            ys, xs = slice(max(y1, 0), max(y2, 0)), slice(max(x1, 0), max(x2, 0))
            frame[ys, xs] = patch[:frame[ys, xs].shape[0], :frame[ys, xs].shape[1]]
        step = tracker.update(frame, exclude_boxes=boxes)
        assert step.ok, step.reason
        px = tracker._tracks.px
        inside = ((px[:, :1] > boxes[:, 0]) & (px[:, :1] < boxes[:, 2])
                  & (px[:, 1:] > boxes[:, 1]) & (px[:, 1:] < boxes[:, 3]))
        assert not inside.any()
    assert _error_yd(step.H, Gs[-1]) < 1.0      # noisy patches cost some accuracy


def test_bad_frame_is_refused_and_skipped(clip):
    Gs, frames = clip
    tracker = CameraMotionTracker(np.linalg.inv(Gs[0]), SIZE, scale=1.0)
    for frame in frames[:10]:
        tracker.update(frame)
    H_before = tracker.H.copy()
    step = tracker.update(np.zeros_like(frames[10]))          # a black frame
    assert not step.ok and "few" in step.reason
    assert np.array_equal(step.H, H_before) and tracker.n_failures == 1
    for G, frame in zip(Gs[11:20], frames[11:20]):            # picks up again
        step = tracker.update(frame)
        assert step.ok, step.reason
    assert tracker.n_failures == 0
    assert _error_yd(step.H, Gs[19]) < 0.5


def test_jump_is_refused(clip):
    Gs, frames = clip
    tracker = CameraMotionTracker(np.linalg.inv(Gs[0]), SIZE, scale=1.0,
                                  max_shift_fraction=0.05)
    tracker.update(frames[0])
    step = tracker.update(frames[20])          # 20 frames of pan in one step
    assert not step.ok
    assert "implausible" in step.reason or "few" in step.reason


def test_field_mask_excludes_sky_and_off_field():
    G = _camera(0)
    mask = field_mask(np.linalg.inv(G), SIZE, scale=1.0, margin_sides=0, margin_ends=0,
                      step=2)
    assert mask.shape == (SIZE[1], SIZE[0])
    assert mask[2, SIZE[0] // 2] == 0                           # sky
    u, v = np.round(field_to_image(G, [150, 40])).astype(int)
    assert mask[v, u] == 255                                   # on the field
    u, v = np.round(field_to_image(G, [150, -8])).astype(int)   # beyond the sideline
    if 0 <= v < SIZE[1]:
        assert mask[v, u] == 0


def test_line_offsets_measure_a_shift(clip):
    Gs, frames = clip
    gray = cv2.cvtColor(frames[25], cv2.COLOR_BGR2GRAY)
    H = np.linalg.inv(Gs[25])
    dx, dy = line_offsets(gray, H)
    assert abs(dx) < 0.25 and abs(dy) < 0.25
    shifted = np.array([[1, 0, 1.0], [0, 1, -0.6], [0, 0, 1]]) @ H
    dx, dy = line_offsets(gray, shifted)
    assert dx == pytest.approx(1.0, abs=0.25) and dy == pytest.approx(-0.6, abs=0.25)


def test_frame_size_is_checked():
    tracker = CameraMotionTracker(np.linalg.inv(_camera(0)), SIZE)
    with pytest.raises(ValueError, match="640x360"):
        tracker.update(np.zeros((100, 100, 3), np.uint8))


def test_last_grey_is_the_last_frame_in_grey(clip):
    """Observer hands the tracker's grey image to the thrown-ball finder instead of converting
    the frame again: it must be the full-resolution grey of the frame just passed."""
    Gs, frames = clip
    tracker = CameraMotionTracker(np.linalg.inv(Gs[0]), SIZE, scale=0.5)
    assert tracker.last_grey is None
    for frame in frames[:3]:
        tracker.update(frame)
        assert tracker.last_grey.shape == frame.shape[:2]
        assert np.array_equal(tracker.last_grey, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
