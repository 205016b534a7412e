"""Follow a panning / zooming camera: keep the image→field homography up to date.

Ground features (Shi–Tomasi corners on grass and paint) are tracked with pyramidal
Lucas–Kanade on a downscaled grey image. Each feature carries the field position (yards)
it had when it was picked, so every frame's homography is fitted (RANSAC) straight from
field yards to current pixels: there is no chain of frame-to-frame products to drift.

Camera model (``model``): a stand or tripod camera only turns and zooms about a fixed
point, so when the starting homography decomposes into such a camera (``"auto"``, the
default), each frame is fitted as that camera turned and zoomed: 4 unknowns instead of
the homography's 8, which leaves much less room for drift on long fast pans (on the
rendered panning samples: players' positions within ~1.5 yd instead of ~12 yd after
the pan). Frames the model cannot explain (the camera moved; lens distortion) fall back
to the free homography; ``"homography"`` always uses it.
Drift can only creep in through the field positions of features added later, so new
features are only added close to the live ones (where H is interpolated, not
extrapolated), and their positions are averaged over their first frames. Frame-to-frame
LK's own random walk is removed by re-matching each track against the frame it was born
in while that still matches.

Features are only picked on the field (pixels that the current H maps inside the field
plus a margin, in front of the camera) and outside the given boxes (players, umpires,
overlays); tracks that move into a box are dropped.

A bad update (too few features or inliers, an implausible jump) keeps the previous H and
reports ``ok=False`` with the reason. Up to `max_skip` bad frames in a row are skipped
(the next frame is matched against the last good one); after that the features restart
on the current frame from the last H.

With ``reanchor=True`` (the default) the field's own marks (vision.field_lines: the painted
lines, cross lines at 0/30/40/60 yd from each end and the centre line, and the foot of the
boards across the field) are looked for every few frames near where H puts them. Once the
camera has moved from the calibrated view, a pan-tilt-zoom camera is turned and zoomed half
way to where the marks put it (fit_ptz_to_lines: only in the directions the marks in view
pin down, and only by more than their own noise), and the features' field positions move
with it: this bounds the drift in turn and zoom, which moves far places most, in depth
(session 31, on 16 rendered pans: the 95th percentile of the players' error, mean over the
pans, 1.2 -> 0.4 yd). A free homography is shifted by half the field offset the painted
lines show. Marks that are not there are simply not found.

    tracker = CameraMotionTracker(fit.H, (1280, 720))
    for index, t, frame in video:
        step = tracker.update(frame, exclude_boxes=player_boxes)
        H = step.H
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import scipy.linalg

from vision.field_lines import (LineSamples, board_bias_px, board_samples, in_boxes as _in_boxes,
                                line_offsets, line_samples, warp_points as _warp_points)
from vision.homography import DEFAULT_LENGTH, DEFAULT_WIDTH

_LK_CRITERIA = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 0.03)


@dataclass(frozen=True)
class MotionStep:
    """Outcome of one `CameraMotionTracker.update`."""

    H: np.ndarray          # image px → field yd for this frame (previous H if not ok)
    ok: bool
    reason: str            # "ok", "first frame", or why the update was refused
    n_tracked: int         # features LK followed into this frame
    n_inliers: int         # of those, agreeing with the homography
    detected: bool         # new features were picked on this frame
    reanchor_yd: tuple[float, float] = (0.0, 0.0)   # (dx, dy) applied from painted lines


# ------------------------------------------------------------------------------------
# Small geometry helpers
# ------------------------------------------------------------------------------------
def _scale_matrix(s: float) -> np.ndarray:
    """Full-resolution pixels → pixels of the image resized by `s` (pixel centres kept)."""
    o = 0.5 * s - 0.5
    return np.array([[s, 0.0, o], [0.0, s, o], [0.0, 0.0, 1.0]])


def _field_grid(H: np.ndarray, size_s: tuple[int, int], scale: float, length: float,
                width: float, margin_sides: float, margin_ends: float,
                step: int) -> np.ndarray:
    """Boolean grid over `step`-pixel cells of the scaled image: is the cell centre on the
    field (plus margins) and in front of the camera under H (full-resolution px → yd)?"""
    w_s, h_s = size_s
    gu = (np.arange(0, w_s, step) + (step - 1) / 2 + 0.5) / scale - 0.5
    gv = (np.arange(0, h_s, step) + (step - 1) / 2 + 0.5) / scale - 0.5
    u, v = np.meshgrid(gu, gv)
    X = H[0, 0] * u + H[0, 1] * v + H[0, 2]
    Y = H[1, 0] * u + H[1, 1] * v + H[1, 2]
    W = H[2, 0] * u + H[2, 1] * v + H[2, 2]
    front = W > 1e-12
    Wsafe = np.where(front, W, 1.0)
    x, y = X / Wsafe, Y / Wsafe
    return (front & (x >= -margin_ends) & (x <= length + margin_ends)
            & (y >= -margin_sides) & (y <= width + margin_sides))


def field_mask(H: np.ndarray, image_size: tuple[int, int], scale: float = 1.0,
               length: float = DEFAULT_LENGTH, width: float = DEFAULT_WIDTH,
               margin_sides: float = 10.0, margin_ends: float = 30.0,
               step: int = 4) -> np.ndarray:
    """uint8 mask (255 = on the field plus margins) of the image resized by `scale`.

    Evaluated every `step` pixels and enlarged (nearest). Pixels above the horizon
    (w ≤ 0 under H) are off the field.
    """
    w_s, h_s = int(round(image_size[0] * scale)), int(round(image_size[1] * scale))
    grid = _field_grid(H, (w_s, h_s), scale, length, width, margin_sides, margin_ends, step)
    return cv2.resize(grid.astype(np.uint8) * 255, (w_s, h_s),
                      interpolation=cv2.INTER_NEAREST)


def _clear_boxes(mask: np.ndarray, boxes, scale: float, pad: float) -> np.ndarray:
    """Zero `mask` inside boxes (x1, y1, x2, y2) given in full-resolution pixels."""
    if boxes is None or len(boxes) == 0:
        return mask
    b = np.asarray(boxes, float).reshape(-1, 4) * scale
    b = np.round(b + (-pad, -pad, pad, pad)).astype(int).clip(0)
    for x1, y1, x2, y2 in b:
        mask[y1:y2 + 1, x1:x2 + 1] = 0
    return mask


def _translation(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


# ------------------------------------------------------------------------------------
# Pan-tilt-zoom camera model
# ------------------------------------------------------------------------------------
@dataclass
class PTZCamera:
    """A pinhole camera turning and zooming about a fixed centre: the usual tripod or
    stand camera. Square pixels, principal point at (cx, cy). Field frame: (x, y, z)
    with z = x × y (numerically right-handed, so z points down into the ground)."""

    R: np.ndarray          # (3, 3) field → camera rotation
    f: float               # focal length, pixels
    C: np.ndarray          # (3,) camera centre, yards
    cx: float
    cy: float

    def field_to_image(self) -> np.ndarray:
        """Ground-plane homography, field yards → pixels."""
        K = np.array([[self.f, 0, self.cx], [0, self.f, self.cy], [0, 0, 1.0]])
        return K @ np.c_[self.R[:, 0], self.R[:, 1], -self.R @ self.C]

    def turned(self, p: np.ndarray) -> "PTZCamera":
        """This camera turned by the rotation vector p[:3] and zoomed by exp(p[3])."""
        dR, _ = cv2.Rodrigues(np.asarray(p[:3], float).reshape(3, 1))
        return PTZCamera(dR @ self.R, self.f * float(np.exp(p[3])), self.C, self.cx, self.cy)


def ptz_from_homography(G: np.ndarray, image_size: tuple[int, int]) -> PTZCamera | None:
    """Decompose a field→image ground homography into a `PTZCamera` (principal point at
    the image centre, square pixels); None when no plausible camera explains it."""
    cx, cy = image_size[0] / 2, image_size[1] / 2
    A = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]]) @ np.asarray(G, float)
    A = A / np.linalg.norm(A)
    (a11, a12, a13), (a21, a22, a23), (a31, a32, a33) = A
    p = np.array([a11 * a12 + a21 * a22, a11 ** 2 + a21 ** 2 - a12 ** 2 - a22 ** 2])
    q = np.array([a31 * a32, a31 ** 2 - a32 ** 2])
    if p @ p < 1e-30:
        return None
    u = -(p @ q) / (p @ p)                         # u = 1 / f²
    if not np.isfinite(u) or u <= 0:
        return None
    f = 1.0 / np.sqrt(u)
    b1, b2, b3 = (np.array([A[0, k] / f, A[1, k] / f, A[2, k]]) for k in range(3))
    lam = (np.linalg.norm(b1) + np.linalg.norm(b2)) / 2
    r1, r2, t = b1 / lam, b2 / lam, b3 / lam
    depth = [(r1 * x + r2 * y + t)[2] for x, y in ((0, 0), (300, 160), (150, 80))]
    if np.median(depth) < 0:                       # the field must be in front
        r1, r2, t = -r1, -r2, -t
    U, _, Vt = np.linalg.svd(np.c_[r1, r2, np.cross(r1, r2)])
    R = U @ Vt
    if np.linalg.det(R) < 0:
        return None
    C = -R.T @ t
    if not (50 <= f <= 1e6) or abs(C[2]) < 0.5:
        return None
    return PTZCamera(R, float(f), C, cx, cy)


def _ptz_residuals(cam: PTZCamera, rel: np.ndarray, px: np.ndarray, jacobian: bool):
    """Residuals (2N,) of projecting field points (given relative to the camera centre,
    `rel` = (x - Cx, y - Cy, -Cz)) against `px`, and optionally the Jacobian (2N, 4) for
    a small turn ω (rad, applied on the camera side) and the log-zoom of `cam`."""
    Xc = rel @ cam.R.T
    z = Xc[:, 2]
    z = np.where(np.abs(z) < 1e-9, 1e-9, z)
    a, b = Xc[:, 0] / z, Xc[:, 1] / z                 # normalised image coordinates
    f = cam.f
    r = np.empty(2 * len(a))
    r[0::2] = f * a + cam.cx - px[:, 0]
    r[1::2] = f * b + cam.cy - px[:, 1]
    if not jacobian:
        return r, None
    J = np.empty((2 * len(a), 4))
    J[0::2, 0], J[0::2, 1], J[0::2, 2], J[0::2, 3] = -f * a * b, f * (1 + a * a), -f * b, f * a
    J[1::2, 0], J[1::2, 1], J[1::2, 2], J[1::2, 3] = -f * (1 + b * b), f * a * b, f * a, f * b
    return r, J


def fit_ptz(cam: PTZCamera, yd: np.ndarray, px: np.ndarray, iters: int = 6,
            huber_px: float = 0.5) -> tuple[PTZCamera, np.ndarray]:
    """Turn and zoom `cam` to best map field points `yd` onto pixels `px`: Levenberg–
    Marquardt over 3 rotation angles and log focal length (analytic Jacobian), with a
    Huber loss (residuals beyond `huber_px` count linearly). Returns the camera and the
    per-point residuals in pixels."""
    rel = np.c_[yd[:, 0] - cam.C[0], yd[:, 1] - cam.C[1], np.full(len(yd), -cam.C[2])]

    def cost(r: np.ndarray) -> float:
        a = np.abs(r)
        return float(np.sum(np.where(a <= huber_px, 0.5 * a * a,
                                     huber_px * (a - 0.5 * huber_px))))

    mu = 1e-3
    r, J = _ptz_residuals(cam, rel, px, True)
    for _ in range(iters):
        w = np.minimum(1.0, huber_px / np.maximum(np.abs(r), 1e-12))     # IRLS weights
        JtJ, Jtr = J.T @ (J * w[:, None]), J.T @ (w * r)
        step = -np.linalg.solve(JtJ + mu * np.diag(np.diag(JtJ) + 1e-12), Jtr)
        trial = cam.turned(step)
        r_new, J_new = _ptz_residuals(trial, rel, px, True)
        c_old, c_new = cost(r), cost(r_new)
        if np.all(np.isfinite(r_new)) and c_new < c_old:
            cam, r, J, mu = trial, r_new, J_new, mu * 0.3
            if np.abs(step).max() < 1e-8 or c_old - c_new < 1e-6 * c_old:
                break
        else:
            mu *= 10
    return cam, np.hypot(*r.reshape(-1, 2).T)


def fit_ptz_to_lines(cam: PTZCamera, samples: LineSamples, G_seen: np.ndarray,
                     keep_px: np.ndarray, min_gain: float = 2.0, min_sigmas: float = 2.0,
                     noise_px: float = 0.3, min_px: float = 0.2, iters: int = 8,
                     huber_px: float = 1.0, outlier_px: float = 3.0
                     ) -> tuple[PTZCamera, np.ndarray, float, int]:
    """Turn and zoom `cam` so that the field's marks fall where they were seen.

    `samples` (vision.field_lines: places along the painted lines and the boards' foot) were
    measured through the homography `G_seen` (field → image) of `cam` as it stood; each
    place found gives a pixel its mark really passes through. Its residual is how far
    (pixels, across the mark) the field point under that pixel lies off the mark; beyond
    `huber_px` it counts linearly (a place on something else bright).

    The marks in view may pin down only some of the 4 unknowns (one line, or only parallel
    ones), and a turn they barely see would be chosen by their few hundredths of a pixel of
    rendering or paint error. So the camera is only moved in the directions the marks see
    well: those where the places' residuals change, summed in squares, at least `min_gain`
    times as much as the mean square image motion at `keep_px` (the tracked ground points);
    and only by more than `min_sigmas` standard errors of the places (RMS residual, at least
    `noise_px`) and by at least `min_px` of image motion (RMS at `keep_px`): each fit starts
    from the last, so corrections within the noise would add up to a random walk (on a still
    camera, fits to the centre line and the boards rolled it by ±0.0002 rad every few fits).

    Returns (the camera, the turn and log-zoom (4,) made, the RMS residual in pixels of the
    places within `outlier_px` after the fit, how many they are). Gauss-Newton (reweighted)
    with a numerical Jacobian: a few dozen places, 4 unknowns."""
    ok = samples.found()
    n = int(ok.sum())
    ax = samples.axis[ok]
    seen = samples.base[ok].copy()
    value = seen[np.arange(n), ax].copy()
    seen[np.arange(n), ax] += samples.offset[ok]
    px_line = _warp_points(G_seen, seen)
    ppy = samples.px_per_yd[ok]
    keep_yd = _warp_points(np.linalg.inv(G_seen), keep_px)

    def resid(p: np.ndarray) -> np.ndarray:
        q = _warp_points(np.linalg.inv(cam.turned(p).field_to_image()), px_line)
        return (q[np.arange(n), ax] - value) * ppy

    def motion(p: np.ndarray) -> np.ndarray:
        return (_warp_points(cam.turned(p).field_to_image(), keep_yd) - keep_px).ravel()

    def cost(r: np.ndarray) -> float:
        a = np.abs(r)
        return float(np.sum(np.where(a <= huber_px, 0.5 * a * a, huber_px * (a - 0.5 * huber_px))))

    eps = 1e-5
    r = resid(np.zeros(4))
    J_line = np.stack([(resid(e) - r) / eps for e in np.eye(4) * eps], axis=1)
    m0 = motion(np.zeros(4))
    J_keep = np.stack([(motion(e) - m0) / eps for e in np.eye(4) * eps], axis=1)
    A = J_line.T @ J_line
    B = J_keep.T @ J_keep / max(len(keep_px), 1) + 1e-9 * np.eye(4)
    lam, V = scipy.linalg.eigh(A, B)          # B-orthonormal: a unit of c moves the image 1 px (RMS)
    keep = lam >= min_gain                    # the directions the marks see well
    V, lam = V[:, keep], lam[keep]
    c = np.zeros(V.shape[1])
    for _ in range(iters if len(c) else 0):
        J = np.stack([(resid(V @ c + v * eps) - r) / eps for v in V.T], axis=1)
        w = np.sqrt(np.minimum(1.0, huber_px / np.maximum(np.abs(r), 1e-12)))
        dc = -np.linalg.lstsq(J * w[:, None], r * w, rcond=None)[0]
        r_new = resid(V @ (c + dc))
        if not np.all(np.isfinite(r_new)) or cost(r_new) >= cost(r):
            break
        c, r = c + dc, r_new
        if np.abs(dc).max() < 1e-4:
            break
    inl = np.abs(r) <= outlier_px
    rms = float(np.sqrt(np.mean(r[inl] ** 2))) if inl.any() else float("inf")
    sig = (np.abs(c) * np.sqrt(lam) >= min_sigmas * max(rms, noise_px)) & (np.abs(c) >= min_px)
    if not sig.all():
        c = np.where(sig, c, 0.0)
        r = resid(V @ c)
        inl = np.abs(r) <= outlier_px
        rms = float(np.sqrt(np.mean(r[inl] ** 2))) if inl.any() else float("inf")
    p = V @ c
    return cam.turned(p), p, rms, int(inl.sum())


# ------------------------------------------------------------------------------------
# Feature store
# ------------------------------------------------------------------------------------
@dataclass
class _Tracks:
    """Live features, one row each (all arrays filtered together)."""

    px: np.ndarray      # (N, 2) float32 current position, scaled pixels
    yd: np.ndarray      # (N, 2) float64 field position, yards
    age: np.ndarray     # (N,) frames since picked
    birth: np.ndarray   # (N,) frame number of the template
    px0: np.ndarray     # (N, 2) float32 position in the template frame

    @classmethod
    def empty(cls) -> "_Tracks":
        return cls(np.empty((0, 2), np.float32), np.empty((0, 2)), np.empty(0, np.int32),
                   np.empty(0, np.int64), np.empty((0, 2), np.float32))

    def __len__(self) -> int:
        return len(self.px)

    def copy(self) -> "_Tracks":
        return _Tracks(self.px.copy(), self.yd.copy(), self.age.copy(), self.birth.copy(),
                       self.px0.copy())

    def keep(self, sel: np.ndarray) -> None:
        for name in ("px", "yd", "age", "birth", "px0"):
            setattr(self, name, getattr(self, name)[sel])

    def add(self, px: np.ndarray, yd: np.ndarray, frame_no: int) -> None:
        n = len(px)
        px = px.astype(np.float32)
        self.px = np.concatenate([self.px, px])
        self.yd = np.concatenate([self.yd, yd])
        self.age = np.concatenate([self.age, np.zeros(n, np.int32)])
        self.birth = np.concatenate([self.birth, np.full(n, frame_no, np.int64)])
        self.px0 = np.concatenate([self.px0, px])


# ------------------------------------------------------------------------------------
# Tracker
# ------------------------------------------------------------------------------------
class CameraMotionTracker:
    """Keeps the image→field homography of a moving camera up to date (module doc).

    `H` maps full-resolution pixels to yards for the first frame passed to `update`.
    Main knobs: `scale` (working resolution; 0.5 for 720p), `max_features`, `min_inliers`
    (fewer → refuse the update), `reanchor` (snap to painted lines).
    """

    MASK_STEP = 4          # scaled pixels per cell of the coarse masks
    REFINE_FRAMES = 10     # a new feature's field position is averaged over this many
    TEMPLATE_GROUPS = 2    # template frames re-matched per update (round robin)
    LINE_MIN_PLACES = 6    # places on the marks found before a PTZ camera is re-anchored on them
    LINE_FIT_PX = 1.5      # ... their RMS miss after the fit, pixels, at most
    LINE_MAX_TURN = 0.02   # ... and the correction at most this turn (rad, ~1.1 degrees)
    LINE_MAX_ZOOM = 0.05   # ... and zoom (log focal length)
    LINE_MIN_TRAVEL_PX = 20.0   # ... once it has moved this far from the calibrated view (_travel_px)

    def __init__(self, H: np.ndarray, image_size: tuple[int, int], *,
                 length: float = DEFAULT_LENGTH, width: float = DEFAULT_WIDTH,
                 scale: float = 0.5, max_features: int = 240, min_inliers: int = 20,
                 grid: tuple[int, int] = (6, 4), ransac_px: float = 1.0,
                 lk_window: int = 11, lk_levels: int = 2, detect_every: int = 4,
                 hull_margin: float = 0.08, template_tol: float = 0.75,
                 max_shift_fraction: float = 0.2, max_zoom_step: float = 0.15,
                 box_pad_px: float = 4.0, margin_sides: float = 10.0,
                 margin_ends: float = 30.0, reanchor: bool = True,
                 reanchor_every: int = 5, reanchor_gain: float = 0.5, max_skip: int = 3,
                 model: str = "auto", ptz_tolerance_px: float = 2.0, boards: bool = True):
        self.image_size = (int(image_size[0]), int(image_size[1]))
        w, h = self.image_size
        self._image_corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)   # the image's, px
        self.length, self.width = float(length), float(width)
        self.scale = float(scale)
        self.size_s = (int(round(self.image_size[0] * self.scale)),
                       int(round(self.image_size[1] * self.scale)))
        self.max_features, self.min_inliers = int(max_features), int(min_inliers)
        self.grid = (int(grid[0]), int(grid[1]))
        self.ransac_px = float(ransac_px)
        self.lk_window, self.lk_levels = int(lk_window), int(lk_levels)
        self.detect_every, self.hull_margin = int(detect_every), float(hull_margin)
        self.template_tol = float(template_tol)
        self.max_shift_fraction, self.max_zoom_step = max_shift_fraction, max_zoom_step
        self.box_pad = box_pad_px * self.scale
        self.margins = (float(margin_sides), float(margin_ends))
        self.reanchor = reanchor
        self.reanchor_every, self.reanchor_gain = int(reanchor_every), float(reanchor_gain)
        self.max_skip = int(max_skip)
        if model not in ("auto", "ptz", "homography"):
            raise ValueError(f"model must be 'auto', 'ptz' or 'homography', got {model!r}")
        self.model, self.ptz_tolerance = model, float(ptz_tolerance_px)
        self.boards = bool(boards)
        self._board_bias: float | None = None   # how the boards' foot looks (_board_samples)
        self.S = _scale_matrix(self.scale)
        self.S_inv = np.linalg.inv(self.S)
        self.H = self._oriented(np.asarray(H, float))
        self.camera = self._decompose(self.H)    # PTZCamera, or None for free homographies
        self._calibrated_G = np.linalg.inv(self.H)   # field → image of the calibrated view
        self.n_failures = 0                      # consecutive refused updates
        self.ptz_misfits = 0                     # frames where the PTZ model did not fit
        self.reanchors = 0                       # frames where the field's marks moved the view
        self.max_travel_px = 0.0                 # farthest the view went from the calibrated one (_travel_px)
        self._tracks = _Tracks.empty()
        self._templates: dict[int, np.ndarray] = {}
        self._prev_gray: np.ndarray | None = None
        self._full_gray: np.ndarray | None = None
        self._full_frame: np.ndarray | None = None
        self._frame_no = -1
        self._since_detect = 0
        self._vel = np.eye(3)                    # last frame-to-frame motion, scaled px

    # -- public ---------------------------------------------------------------------
    def update(self, frame: np.ndarray, exclude_boxes=None) -> MotionStep:
        """Track the camera into `frame` (BGR or grey); `exclude_boxes` (N, 4) px."""
        gray = self._grey(frame)
        self._frame_no += 1
        if self._prev_gray is None:
            self._prev_gray = gray
            self._restart(gray, exclude_boxes)
            self._keep_templates()
            return MotionStep(self.H, True, "first frame", 0, 0, True)
        saved = self._tracks.copy()
        step = self._track(gray, exclude_boxes)
        if step.ok:
            self._prev_gray = gray
            self.max_travel_px = max(self.max_travel_px, self._travel_px())
        elif self.n_failures <= self.max_skip:
            self._tracks = saved          # a glitch: match the next frame to the last good
        else:
            self._prev_gray = gray        # lost: start over here with the last H
            self._restart(gray, exclude_boxes)
        self._keep_templates()
        return step

    def reset(self, H: np.ndarray, frame: np.ndarray | None = None, exclude_boxes=None
              ) -> None:
        """Replace the homography (e.g. a fresh calibration); restart on `frame` if given."""
        self.H = self._oriented(np.asarray(H, float))
        self.camera = self._decompose(self.H)
        self._calibrated_G = np.linalg.inv(self.H)
        self.n_failures = 0
        self._board_bias = None
        self._tracks = _Tracks.empty()
        self._templates.clear()
        self._prev_gray = None
        self._vel = np.eye(3)
        if frame is not None:
            self.update(frame, exclude_boxes)

    @property
    def last_grey(self) -> np.ndarray | None:
        """The full-resolution grey image of the last frame passed to `update` (others that need
        the frame in grey take it from here instead of converting it again)."""
        return self._full_gray

    @property
    def boards_look_px(self) -> float | None:
        """How the boards' foot looks in this footage (field_lines.board_bias_px), once seen."""
        return self._board_bias

    def summary(self) -> dict:
        """What report.json says of the camera's following: its model, the frames where the PTZ
        model did not fit, those where the field's marks moved the view, the farthest the view
        went from the calibrated one, and how the boards look."""
        return {"model": "pan-tilt-zoom" if self.camera is not None else "homography",
                "ptz_misfits": self.ptz_misfits, "reanchored": self.reanchors,
                "max_travel_px": round(self.max_travel_px, 1),
                "boards_look_px": None if self._board_bias is None else round(self._board_bias, 2)}

    @property
    def n_features(self) -> int:
        """Live tracks."""
        return len(self._tracks)

    # -- per-frame steps ------------------------------------------------------------
    def _track(self, gray: np.ndarray, boxes) -> MotionStep:
        n_tracked = self._follow(gray, boxes)
        if n_tracked < self.min_inliers:
            return self._refuse(gray, boxes, f"too few features tracked ({n_tracked})",
                                n_tracked, 0)
        t = self._tracks
        G, inl = cv2.findHomography(t.yd, t.px.astype(np.float64), cv2.RANSAC,
                                    self.ransac_px, maxIters=500, confidence=0.995)
        n_inl = int(inl.sum()) if inl is not None else 0
        if G is None or n_inl < self.min_inliers:
            return self._refuse(gray, boxes, f"too few inliers ({n_inl} of {n_tracked})",
                                n_tracked, n_inl)
        inliers = inl.ravel().astype(bool)
        H_new = np.linalg.inv(G) @ self.S            # full-res px → yd
        if self.camera is not None:
            H_new, inliers = self._ptz_update(H_new, inliers)
        problem = self._implausible(H_new)
        if problem:
            return self._refuse(gray, boxes, problem, n_tracked, n_inl)
        self._accept(H_new, inliers)
        shift = (0.0, 0.0)
        if self.reanchor and self._frame_no % self.reanchor_every == 0:
            shift = self._snap_to_lines(boxes)
        n_before = len(self._tracks)
        self._detect(gray, boxes)
        return MotionStep(self.H, True, "ok", n_tracked, n_inl,
                          len(self._tracks) > n_before, shift)

    def _follow(self, gray: np.ndarray, boxes) -> int:
        """LK-track the features into `gray`, dropping lost ones; returns how many remain."""
        t = self._tracks
        if len(t) == 0:
            return 0
        guess = _warp_points(self._vel, t.px).astype(np.float32).reshape(-1, 1, 2)
        nxt, status, _ = cv2.calcOpticalFlowPyrLK(
            self._prev_gray, gray, t.px.reshape(-1, 1, 2), guess,
            winSize=(self.lk_window, self.lk_window), maxLevel=self.lk_levels,
            criteria=_LK_CRITERIA, flags=cv2.OPTFLOW_USE_INITIAL_FLOW)
        nxt = nxt.reshape(-1, 2)
        w, h = self.size_s
        good = (status.ravel() == 1) & np.all(np.isfinite(nxt), axis=1)
        good &= (nxt[:, 0] >= 0) & (nxt[:, 0] < w - 1) & (nxt[:, 1] >= 0) & (nxt[:, 1] < h - 1)
        good &= ~_in_boxes(nxt, boxes, self.scale, self.box_pad)
        t.px = nxt
        t.keep(good)
        self._rematch_templates(gray)
        return int(good.sum())

    def _decompose(self, H: np.ndarray) -> PTZCamera | None:
        if self.model == "homography":
            return None
        cam = ptz_from_homography(np.linalg.inv(H), self.image_size)
        if cam is None and self.model == "ptz":
            raise ValueError("the homography does not decompose into a pan-tilt-zoom camera")
        return cam

    def _ptz_update(self, H_free: np.ndarray, inliers: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Refit the frame as the PTZ camera turned and zoomed (4 unknowns, not 8: far
        less room to drift). Inliers are re-chosen by the PTZ fit. If the PTZ model fits
        much worse than the free homography (the camera moved, lens distortion), the free
        homography is used for this frame."""
        t = self._tracks
        px_full = _warp_points(self.S_inv, t.px)
        cam, res = fit_ptz(self.camera, t.yd[inliers], px_full[inliers])
        G = cam.field_to_image()
        res_all = np.hypot(*(_warp_points(G, t.yd) - px_full).T)
        thr = max(2.0 * self.ransac_px / self.scale, 1.5)
        new_inl = res_all <= thr
        if (new_inl.sum() >= self.min_inliers and new_inl.sum() >= 0.8 * inliers.sum()
                and np.any(new_inl != inliers)):
            cam, res = fit_ptz(cam, t.yd[new_inl], px_full[new_inl], iters=2)
            inliers = new_inl
        free = np.hypot(*(_warp_points(np.linalg.inv(H_free), t.yd[inliers])
                          - px_full[inliers]).T)
        rms_ptz, rms_free = np.sqrt(np.mean(res ** 2)), np.sqrt(np.mean(free ** 2))
        if self.model == "auto" and rms_ptz > rms_free + self.ptz_tolerance:
            self.ptz_misfits += 1
            return H_free, inliers
        self.camera = cam
        return np.linalg.inv(cam.field_to_image()), inliers

    def _implausible(self, H_new: np.ndarray) -> str:
        """Why the new homography is refused, or '' if the step looks like a camera's."""
        step = np.linalg.inv(H_new) @ self.H           # previous image → current image
        w, h = self.image_size
        corners = self._image_corners
        moved = _warp_points(step, corners)
        if not np.all(np.isfinite(moved)):
            return "implausible motion (image corners at infinity)"
        shift = float(np.max(np.hypot(*(moved - corners).T)))
        if shift > self.max_shift_fraction * np.hypot(w, h):
            return f"implausible motion ({shift:.0f} px in one frame)"
        area = cv2.contourArea(moved.astype(np.float32)) / (w * h)
        if not (1 - self.max_zoom_step) ** 2 <= area <= (1 + self.max_zoom_step) ** 2:
            return f"implausible zoom step (area x{area:.2f})"
        return ""

    def _accept(self, H_new: np.ndarray, inliers: np.ndarray) -> None:
        t = self._tracks
        self._vel = self.S @ np.linalg.inv(H_new) @ self.H @ self.S_inv
        self.H = self._signed(H_new, t.px[inliers])
        self.n_failures = 0
        t.keep(inliers)
        t.age += 1
        young = t.age <= self.REFINE_FRAMES       # average new features' field positions
        if young.any():
            est = _warp_points(self._H_scaled, t.px[young])
            a = (1.0 / (t.age[young] + 1.0))[:, None]
            t.yd[young] = (1 - a) * t.yd[young] + a * est

    def _signed(self, H: np.ndarray, px: np.ndarray) -> np.ndarray:
        """H at unit norm, its sign the one that puts the features `px` (scaled pixels) in front."""
        H = H / np.linalg.norm(H)
        w = px @ (H @ self.S_inv)[2, :2] + (H @ self.S_inv)[2, 2]
        return -H if np.median(w) < 0 else H

    def _refuse(self, gray, boxes, reason: str, n_tracked: int, n_inl: int) -> MotionStep:
        self.n_failures += 1
        restart = self.n_failures > self.max_skip
        return MotionStep(self.H, False, reason, n_tracked, n_inl, restart)

    def _restart(self, gray: np.ndarray, boxes) -> None:
        self._tracks = _Tracks.empty()
        self._vel = np.eye(3)
        self._detect(gray, boxes, force=True)

    # -- helpers --------------------------------------------------------------------
    def _oriented(self, H: np.ndarray) -> np.ndarray:
        """Unit-norm H, sign flipped if that is what puts the field in front."""
        H = H / np.linalg.norm(H)
        on = self._on_field(H).any()
        return -H if not on and self._on_field(-H).any() else H

    def _on_field(self, H: np.ndarray) -> np.ndarray:
        ms, me = self.margins
        return _field_grid(H, self.size_s, self.scale, self.length, self.width, ms, me,
                           self.MASK_STEP)

    def _grey(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        if (w, h) != self.image_size:
            raise ValueError(f"frame is {w}x{h}, the tracker was set up for "
                             f"{self.image_size[0]}x{self.image_size[1]}")
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        self._full_gray = grey
        self._full_frame = frame
        if self.scale == 1.0:
            return grey
        return cv2.resize(grey, self.size_s, interpolation=cv2.INTER_AREA)

    @property
    def _H_scaled(self) -> np.ndarray:
        """Scaled pixels → yards."""
        return self.H @ self.S_inv

    def _cells(self, pts: np.ndarray) -> np.ndarray:
        gx, gy = self.grid
        w, h = self.size_s
        cx = np.clip((pts[:, 0] * gx / w).astype(int), 0, gx - 1)
        cy = np.clip((pts[:, 1] * gy / h).astype(int), 0, gy - 1)
        return cy * gx + cx

    # -- picking features -----------------------------------------------------------
    def _detect(self, gray: np.ndarray, boxes, force: bool = False) -> None:
        """Add features in grid cells holding under half their share (every few frames,
        or at once when the track count runs low)."""
        self._since_detect += 1
        gx, gy = self.grid
        per_cell = max(1, self.max_features // (gx * gy))
        t = self._tracks
        urgent = force or len(t) < max(2 * self.min_inliers, self.max_features // 3)
        if not urgent and self._since_detect < self.detect_every:
            return
        have = np.bincount(self._cells(t.px), minlength=gx * gy)
        need = np.where(have <= per_cell // 2, per_cell - have, 0)
        if need.sum() < per_cell and not urgent:
            return
        self._since_detect = 0
        min_dist = max(3, min(self.size_s) // 40)
        mask = self._allowed(need, boxes, min_dist, restrict=not force)
        x0, y0, bw, bh = cv2.boundingRect(mask)
        if bw == 0 or bh == 0:
            return
        pts = self._corners(gray, mask, need, (x0, y0, bw, bh), min_dist)
        if len(pts):
            self._add(pts, need)

    def _corners(self, gray: np.ndarray, mask: np.ndarray, need: np.ndarray,
                 rect: tuple[int, int, int, int], min_dist: int) -> np.ndarray:
        """Shi–Tomasi corners in the allowed area, picked cell by cell so that a few
        very strong corners (painted-line crossings) do not silence the grass elsewhere
        (the quality threshold is relative to each cell's best corner)."""
        gx, gy = self.grid
        w, h = self.size_s
        x0, y0, bw, bh = rect
        found = []
        for c in np.flatnonzero(need):
            cx0, cx1 = (c % gx) * w // gx, (c % gx + 1) * w // gx
            cy0, cy1 = (c // gx) * h // gy, (c // gx + 1) * h // gy
            cx0, cx1 = max(cx0, x0), min(cx1, x0 + bw)
            cy0, cy1 = max(cy0, y0), min(cy1, y0 + bh)
            if cx1 - cx0 < 8 or cy1 - cy0 < 8:
                continue
            m = mask[cy0:cy1, cx0:cx1]
            if not m.any():
                continue
            p = cv2.goodFeaturesToTrack(gray[cy0:cy1, cx0:cx1], int(2 * need[c]) + 2, 0.01,
                                        min_dist, mask=m, blockSize=5)
            if p is not None:
                found.append(p.reshape(-1, 2) + (cx0, cy0))
        return np.concatenate(found) if found else np.empty((0, 2), np.float32)

    def _allowed(self, need: np.ndarray, boxes, min_dist: int, restrict: bool) -> np.ndarray:
        """uint8 mask of where new features may go: on the field, in thin grid cells, not
        next to a live track, outside boxes, and (when `restrict`) near the live tracks,
        where H is interpolated rather than extrapolated. Built on a coarse grid."""
        st = self.MASK_STEP
        w, h = self.size_s
        ok = self._on_field(self.H)
        gh, gw = ok.shape
        # The grid cell of each coarse cell's centre (the last coarse cell can reach past the
        # image's edge when the working size is not a multiple of MASK_STEP: 960x540 frames).
        cy = np.minimum((np.arange(gh) * st + st // 2) * self.grid[1] // h, self.grid[1] - 1)
        cx = np.minimum((np.arange(gw) * st + st // 2) * self.grid[0] // w, self.grid[0] - 1)
        ok &= (need > 0).reshape(self.grid[1], self.grid[0])[cy[:, None], cx[None, :]]
        small = ok.astype(np.uint8) * 255
        t = self._tracks
        if len(t):
            occ = np.zeros_like(small)
            q = np.clip((t.px // st).astype(int), 0, (gw - 1, gh - 1))
            occ[q[:, 1], q[:, 0]] = 255
            r = max(1, -(-min_dist // st))
            small[cv2.dilate(occ, np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0] = 0
        if restrict and len(t) >= 3:
            hull = cv2.convexHull(t.px).reshape(-1, 2)
            d = hull - hull.mean(axis=0)
            grow = self.hull_margin * w / np.maximum(np.hypot(*d.T), 1e-6)
            near = np.zeros_like(small)
            cv2.fillConvexPoly(near, np.round((hull + d * grow[:, None]) / st).astype(np.int32),
                               255)
            small &= near
        small = _clear_boxes(small, boxes, self.scale / st, 1.0)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST)

    def _add(self, pts: np.ndarray, need: np.ndarray) -> None:
        """Keep the strongest `need[cell]` of `pts` per cell, with their field positions."""
        cells = self._cells(pts)
        order = np.argsort(cells, kind="stable")
        first = np.searchsorted(cells[order], cells[order])
        rank = np.empty(len(pts), int)
        rank[order] = np.arange(len(pts)) - first
        pts = pts[rank < need[cells]]
        yd = _warp_points(self._H_scaled, pts)
        ok = np.all(np.isfinite(yd), axis=1)
        self._tracks.add(pts[ok], yd[ok], self._frame_no)

    # -- template re-matching (removes LK's frame-to-frame random walk) -------------
    def _rematch_templates(self, gray: np.ndarray) -> None:
        """Snap tracks back onto their look in the frame they were born in (a couple of
        template frames per update, round robin); a track whose template no longer
        matches within `template_tol` px takes the current frame as its template."""
        t = self._tracks
        groups = [b for b in np.unique(t.birth).tolist()
                  if b in self._templates and b < self._frame_no - 1]
        if not groups:
            return
        start = self._frame_no % len(groups)
        stale = np.zeros(len(t), bool)
        for b in (groups + groups)[start:start + min(self.TEMPLATE_GROUPS, len(groups))]:
            idx = np.flatnonzero(t.birth == b)
            p, ok = self._lk_crop(self._templates[b], gray, t.px0[idx], t.px[idx])
            ok &= np.abs(p - t.px[idx]).max(axis=1) < self.template_tol
            t.px[idx[ok]] = p[ok]
            stale[idx[~ok]] = True
        t.birth[stale] = self._frame_no
        t.px0[stale] = t.px[stale]

    def _lk_crop(self, ref: np.ndarray, gray: np.ndarray, p0: np.ndarray, guess: np.ndarray):
        """Single-level LK from `ref` at p0 into `gray` near `guess`, on two equal crops
        (around p0, and shifted by the mean motion) so the cost scales with the group."""
        r = self.lk_window + 2
        w, h = self.size_s
        d = np.round(np.mean(guess - p0, axis=0)).astype(int)
        lo = np.floor(p0.min(axis=0)).astype(int) - r
        hi = np.ceil(p0.max(axis=0)).astype(int) + r + 1
        lo = np.maximum(lo, np.maximum(0, -d))
        hi = np.minimum(hi, np.minimum((w, h), np.array((w, h)) - d))
        if np.any(hi - lo < 2 * r):
            return guess, np.zeros(len(p0), bool)
        a = ref[lo[1]:hi[1], lo[0]:hi[0]]
        b = gray[lo[1] + d[1]:hi[1] + d[1], lo[0] + d[0]:hi[0] + d[0]]
        p, st, _ = cv2.calcOpticalFlowPyrLK(
            a, b, (p0 - lo).astype(np.float32).reshape(-1, 1, 2),
            (guess - lo - d).astype(np.float32).reshape(-1, 1, 2),
            winSize=(self.lk_window, self.lk_window), maxLevel=0, criteria=_LK_CRITERIA,
            flags=cv2.OPTFLOW_USE_INITIAL_FLOW)
        return p.reshape(-1, 2) + lo + d, st.ravel() == 1

    def _keep_templates(self) -> None:
        """Store this frame if a track was born in it; forget frames no track uses."""
        live = set(np.unique(self._tracks.birth).tolist())
        if self._frame_no in live and self._frame_no not in self._templates:
            self._templates[self._frame_no] = self._prev_gray
        for b in [b for b in self._templates if b not in live]:
            del self._templates[b]

    # -- painted-line re-anchoring --------------------------------------------------
    def _snap_to_lines(self, boxes) -> tuple[float, float]:
        """Move the field frame so that the painted lines fall where H says they are: a
        pan-tilt-zoom camera is turned and zoomed (_snap_camera), a free homography shifted."""
        if self.camera is not None:
            return self._snap_camera(boxes)
        dx, dy = line_offsets(self._full_gray, self.H, self.length, self.width, boxes)
        dx, dy = self.reanchor_gain * dx, self.reanchor_gain * dy
        if dx == 0.0 and dy == 0.0:
            return 0.0, 0.0
        T = _translation(-dx, -dy)
        self.H = T @ self.H
        self._tracks.yd = _warp_points(T, self._tracks.yd)
        if self.camera is not None:          # same shift for the camera centre
            c = self.camera
            self.camera = PTZCamera(c.R, c.f, c.C - (dx, dy, 0.0), c.cx, c.cy)
        return dx, dy


    def _travel_px(self) -> float:
        """How far (pixels, the image corners' mean) the camera has turned and zoomed since it
        was calibrated: while it has hardly moved, its features are those of the calibrated
        view, and there is no drift to mend."""
        moved = _warp_points(self._calibrated_G @ self.H, self._image_corners)
        return float(np.mean(np.hypot(*(moved - self._image_corners).T)))

    def _board_samples(self, boxes, H: np.ndarray, learn: bool = False) -> LineSamples | None:
        """The boards' foot across the field (field_lines.board_samples), once its look is
        known: the first time the boards are seen (`learn`: through the tracked view), their
        foot is taken to stand where H puts it (board_bias_px), and later sightings are
        measured against that look. Seen first after the camera has drifted, the drift of that
        moment stays (what comes after is mended). Looked for in the red channel: grass is
        green, and boards white or pale wood (in grey, rendered wood stood out from the grass
        by 15-25 levels, in red by 45-67)."""
        if not self.boards or self.camera is None:
            return None
        if self._board_bias is None and not learn:
            return None
        cam_y = float(self.camera.C[1])
        f = self._full_frame
        red = cv2.extractChannel(f, 2) if f.ndim == 3 else f     # contiguous, for cv2.remap
        if self._board_bias is None:
            self._board_bias = board_bias_px(board_samples(red, H, cam_y, self.length, self.width, boxes))
            return None
        return board_samples(red, H, cam_y, self.length, self.width, boxes, bias_px=self._board_bias)

    def _marks(self, boxes, H: np.ndarray) -> LineSamples | None:
        """The painted lines' and the boards' places, looked for through H."""
        return LineSamples.join([line_samples(self._full_gray, H, self.length, self.width, boxes),
                                 self._board_samples(boxes, H)])

    def _snap_camera(self, boxes) -> tuple[float, float]:
        """Turn and zoom the PTZ camera part of the way (`reanchor_gain`) to where the field's
        marks in view put it: the painted lines and the boards' foot (vision.field_lines;
        fit_ptz_to_lines), and move every feature's field position with the correction.
        A tracked camera drifts in turn and zoom, which moves a place's yards by different
        amounts across the view (mostly in depth, most far away): a shift of the field cannot
        mend that, and there is no painted sideline to measure depth by; the boards' foot, a
        straight line deep in the view, is one. The marks are looked for twice: where the
        tracked view puts them, then where the first fit does.
        Nothing is changed while the camera has hardly moved from the calibrated view
        (LINE_MIN_TRAVEL_PX), when too few places are found, the marks do not agree with a
        turned camera (RMS of the places within 3 px over LINE_FIT_PX), or the correction is
        larger than drift (LINE_MAX_TURN, LINE_MAX_ZOOM). Returns the mean shift of the
        features, yd."""
        if self._board_bias is None:                  # from the start: how the boards look
            self._board_samples(boxes, self.H, learn=True)
        if self._travel_px() < self.LINE_MIN_TRAVEL_PX:
            return 0.0, 0.0
        s = self._marks(boxes, self.H)
        t = self._tracks
        if s is None or s.found().sum() < self.LINE_MIN_PLACES or len(t) == 0:
            return 0.0, 0.0
        G = np.linalg.inv(self.H)
        keep_px = _warp_points(self.S_inv, t.px)
        cam, p, rms, n_fit = fit_ptz_to_lines(self.camera, s, G, keep_px)
        if np.any(p):
            # Looked for again where the fit puts them: a mark far off where the drifted view put
            # it is cut by the search window or crossed at a slant, and found a pixel or two off.
            G1 = cam.field_to_image()
            s = self._marks(boxes, np.linalg.inv(G1))
            if s is None or s.found().sum() < self.LINE_MIN_PLACES:
                return 0.0, 0.0
            cam, p2, rms, n_fit = fit_ptz_to_lines(cam, s, G1, keep_px)
            p = p + p2                    # turns of a few thousandths of a radian: they add
        if (n_fit < self.LINE_MIN_PLACES or rms > self.LINE_FIT_PX
                or np.linalg.norm(p[:3]) > self.LINE_MAX_TURN
                or abs(p[3]) > self.LINE_MAX_ZOOM):
            return 0.0, 0.0
        if not np.any(p):
            return 0.0, 0.0
        self.camera = self.camera.turned(self.reanchor_gain * p)
        H_new = self._signed(np.linalg.inv(self.camera.field_to_image()), t.px)
        # Each feature's field position moves with the correction (through the image of the
        # camera as it was, back through the corrected one), keeping what it has averaged:
        # taken afresh from this frame's H, they would chain frame to frame and drift.
        old = t.yd
        t.yd = _warp_points(H_new @ G, old)
        self.H = H_new
        self.reanchors += 1
        moved = np.nanmean(t.yd - old, axis=0)
        return float(moved[0]), float(moved[1])
