"""Image ↔ field homography from a calibration.json (see docs/formats.md).

Field yards: x south→north (0..length), y west→east (0..width); pixels (u right, v down).

    fit = calibrate("calibration.json")       # load + validate + RANSAC fit
    yd = image_to_field(fit.H, px)            # (..., 2) pixels → yards
    px = field_to_image(fit.H_inv, yd)        # (..., 2) yards → pixels

`H` is normalised so that pixels on the ground (in front of the camera) have a positive
homogeneous w; pixels above the horizon then have w < 0 (``front_only=True`` gives NaN).
Named landmarks (`field_landmarks`) may stand in for ``yd`` in calibration points.
"""
from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import CalibrationError

DEFAULT_LENGTH = 300.0
DEFAULT_WIDTH = 160.0
MARGIN_SIDES_YD = 10.0      # points may lie this far outside the sidelines...
MARGIN_ENDS_YD = 30.0       # ...and this far beyond the end lines
GOAL_HALF_WIDTH_YD = 4.0    # goal posts are 8 yd apart
MIN_HULL_AREA_YD2 = 25.0
MIN_SPREAD_RATIO = 0.02     # smallest/largest principal spread of a point set
MIN_DLT_RATIO = 1e-5        # 2nd-smallest/largest singular value of the normalised DLT
MAX_COND_H = 1e7            # condition number of the normalised homography


# ------------------------------------------------------------------------------------
# Landmarks
# ------------------------------------------------------------------------------------
def _cross_lines(length: float) -> dict[str, float]:
    """Lines across the field (constant x) by canonical name."""
    lines = {"south_end_line": 0.0, "centre_line": length / 2, "north_end_line": length}
    for d in (30, 40, 60):
        lines[f"south_{d}"] = float(d)
        lines[f"north_{d}"] = length - d
    return lines


def field_landmarks(length: float = DEFAULT_LENGTH,
                    width: float = DEFAULT_WIDTH) -> dict[str, tuple[float, float]]:
    """Named field points in yards for a field of the given size.

    ``<line>_x_<sideline>`` for line in south_end_line, south_30, south_40, south_60,
    centre_line, north_60, north_40, north_30, north_end_line and sideline in
    west_sideline, east_sideline; ``<line>_centre`` (the line's midpoint, e.g.
    ``centre_spot`` = ``centre_line_centre``); ``south_goal_centre`` / ``north_goal_centre``
    and their ``_west_post`` / ``_east_post``; corners ``south_west_corner`` etc.
    """
    marks: dict[str, tuple[float, float]] = {}
    for name, x in _cross_lines(length).items():
        marks[f"{name}_x_west_sideline"] = (x, 0.0)
        marks[f"{name}_x_east_sideline"] = (x, width)
        marks[f"{name}_centre"] = (x, width / 2)
    for end, x in (("south", 0.0), ("north", length)):
        marks[f"{end}_goal_centre"] = (x, width / 2)
        marks[f"{end}_goal_west_post"] = (x, width / 2 - GOAL_HALF_WIDTH_YD)
        marks[f"{end}_goal_east_post"] = (x, width / 2 + GOAL_HALF_WIDTH_YD)
        marks[f"{end}_west_corner"] = (x, 0.0)
        marks[f"{end}_east_corner"] = (x, width)
    marks["centre_spot"] = (length / 2, width / 2)
    return marks


_ALIASES = [
    (r"center", "centre"), (r"[\s\-./]+", "_"), (r"side_line", "sideline"),
    (r"end_?line", "end_line"), (r"(half_?way|mid_?field)_line", "centre_line"),
    (r"(\d+)_?(yd|yds|yard|yards)(_line)?", r"\1"), (r"_(at|and|intersect(ion)?)_", "_x_"),
    (r"^(\d+)_(south|north)", r"\2_\1"), (r"^(field_centre|centre|mid_?field|centre_line_centre)$", "centre_spot"),
    (r"__+", "_"),
]


def normalise_landmark_name(name: str) -> str:
    """Lower-case and map common spellings onto the canonical landmark names."""
    s = name.strip().lower()
    for pattern, repl in _ALIASES:
        s = re.sub(pattern, repl, s)
    return s.strip("_")


def landmark_yd(name: str, length: float = DEFAULT_LENGTH,
                width: float = DEFAULT_WIDTH) -> tuple[float, float] | None:
    """Field position of a named landmark, or None if the name is not known."""
    marks = field_landmarks(length, width)
    key = normalise_landmark_name(name)
    if key in marks:
        return marks[key]
    if "_x_" in key:                       # "west_sideline_x_centre_line" order
        a, b = key.split("_x_", 1)
        return marks.get(f"{b}_x_{a}")
    return None


# ------------------------------------------------------------------------------------
# Calibration document
# ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Calibration:
    """Pixel ↔ field correspondences read from a calibration.json."""

    px: np.ndarray                      # (N, 2) pixels
    yd: np.ndarray                      # (N, 2) yards
    names: tuple[str | None, ...]
    image_size: tuple[int, int] | None  # (width, height)
    length_yd: float = DEFAULT_LENGTH
    width_yd: float = DEFAULT_WIDTH
    frame: int = 0

    def label(self, i: int) -> str:
        """'point 3 (centre_line_x_west_sideline)' for messages."""
        name = self.names[i]
        return f"point {i}" + (f" ({name})" if name else "")


def _pair(value: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise CalibrationError(f"{what} must be two numbers, got {value!r}") from None
    if arr.shape != (2,):
        raise CalibrationError(f"{what} must be two numbers, got {value!r}")
    if not np.all(np.isfinite(arr)):
        raise CalibrationError(f"{what} is not finite: {value!r}")
    return arr


def _parse_field(doc: dict) -> tuple[float, float]:
    fld = doc.get("field") or {}
    if not isinstance(fld, dict):
        raise CalibrationError("'field' must be an object with length_yd and width_yd")
    dims = []
    for key, default in (("length_yd", DEFAULT_LENGTH), ("width_yd", DEFAULT_WIDTH)):
        v = fld.get(key, default)
        if not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise CalibrationError(f"field.{key} must be a positive number, got {v!r}")
        dims.append(float(v))
    return dims[0], dims[1]


def _parse_image_size(doc: dict) -> tuple[int, int] | None:
    size = doc.get("image_size")
    if size is None:
        return None
    arr = _pair(size, "image_size")
    if np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise CalibrationError(f"image_size must be two positive integers, got {size!r}")
    return int(arr[0]), int(arr[1])


def _parse_point(i: int, p: Any, length: float, width: float):
    if not isinstance(p, dict):
        raise CalibrationError(f"point {i} must be an object with 'px' and 'yd' (or 'name')")
    name = p.get("name")
    if name is not None and not isinstance(name, str):
        raise CalibrationError(f"point {i}: name must be a string, got {name!r}")
    label = f"point {i}" + (f" ({name})" if name else "")
    if "px" not in p:
        raise CalibrationError(f"{label}: missing 'px'")
    px = _pair(p["px"], f"{label}: px")
    known = landmark_yd(name, length, width) if name else None
    if "yd" in p:
        yd = _pair(p["yd"], f"{label}: yd")
        if known is not None and np.hypot(*(yd - known)) > 1.0:
            raise CalibrationError(f"{label}: yd {yd.tolist()} disagrees with the landmark "
                                   f"position {list(known)}")
    elif known is not None:
        yd = np.asarray(known, float)
    else:
        hint = "" if not name else f"; unknown landmark name (known: {_known_names()})"
        raise CalibrationError(f"{label}: missing 'yd'{hint}")
    return name, px, yd


def _known_names() -> str:
    names = sorted(field_landmarks())
    return ", ".join(names[:6]) + f", ... ({len(names)} names, see field_landmarks())"


def parse_calibration(doc: Any, source: str = "calibration") -> Calibration:
    """Build a `Calibration` from a decoded calibration.json (no geometric checks)."""
    try:
        if not isinstance(doc, dict):
            raise CalibrationError("top level must be a JSON object")
        length, width = _parse_field(doc)
        points = doc.get("points")
        if not isinstance(points, list):
            raise CalibrationError("'points' must be a list of {px, yd} objects")
        parsed = [_parse_point(i, p, length, width) for i, p in enumerate(points)]
        frame = doc.get("frame", 0)
        if not isinstance(frame, int) or isinstance(frame, bool) or frame < 0:
            raise CalibrationError(f"'frame' must be a non-negative integer, got {frame!r}")
    except CalibrationError as exc:
        raise CalibrationError(f"{source}: {exc}") from None
    names = tuple(n for n, _, _ in parsed)
    px = np.array([p for _, p, _ in parsed], float).reshape(-1, 2)
    yd = np.array([y for _, _, y in parsed], float).reshape(-1, 2)
    return Calibration(px, yd, names, _parse_image_size(doc), length, width, frame)


def calibration_text(doc: dict) -> str:
    """calibration.json text with one correspondence per line (the renderer's and the
    `calibrate` command's layout); NaN or infinity refused (ValueError)."""
    lines = ["{"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v, allow_nan=False)}," for k, v in doc.items() if k != "points"]
    pts = ",\n".join(f"    {json.dumps(p, allow_nan=False)}" for p in doc["points"])
    lines.append('  "points": [\n' + pts + "\n  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def load_calibration(path: str | Path) -> Calibration:
    """Read and parse a calibration.json; `CalibrationError` on any problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"{path}: cannot read: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{path}: not valid JSON: {exc}") from None
    return parse_calibration(doc, source=str(path))


# ------------------------------------------------------------------------------------
# Geometric validation
# ------------------------------------------------------------------------------------
def _normaliser(pts: np.ndarray) -> np.ndarray:
    """Hartley normalisation: centroid to 0, mean distance √2."""
    c = pts.mean(axis=0)
    d = np.mean(np.hypot(*(pts - c).T))
    s = math.sqrt(2) / d if d > 0 else 1.0
    return np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1.0]])


def _apply(T: np.ndarray, pts: np.ndarray) -> np.ndarray:
    h = np.c_[pts, np.ones(len(pts))] @ T.T
    return h[:, :2] / h[:, 2:]


def spread_ratio(pts: np.ndarray) -> float:
    """Smallest / largest principal spread (0 for collinear points, 1 for isotropic)."""
    c = pts - pts.mean(axis=0)
    s = np.linalg.svd(c, compute_uv=False)
    return float(s[-1] / s[0]) if s[0] > 0 else 0.0


def _dlt_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x, y, u, v = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    z, o = np.zeros_like(x), np.ones_like(x)
    r1 = np.stack([-x, -y, -o, z, z, z, u * x, u * y, u], axis=1)
    r2 = np.stack([z, z, z, -x, -y, -o, v * x, v * y, v], axis=1)
    return np.concatenate([r1, r2])


def dlt_ratio(src: np.ndarray, dst: np.ndarray) -> float:
    """How well the correspondences pin down a unique homography (0 = not at all).

    Second-smallest over largest singular value of the Hartley-normalised DLT matrix: a
    one-dimensional null space (a unique H) keeps it well above zero.
    """
    a, b = _apply(_normaliser(src), src), _apply(_normaliser(dst), dst)
    s = np.linalg.svd(_dlt_matrix(a, b), compute_uv=False)
    return float(s[7] / s[0]) if len(s) >= 8 and s[0] > 0 else 0.0


def dlt_homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Least-squares (algebraic) homography src→dst by the normalised DLT; exact for 4."""
    Ts, Td = _normaliser(src), _normaliser(dst)
    _, _, vt = np.linalg.svd(_dlt_matrix(_apply(Ts, src), _apply(Td, dst)))
    Hn = vt[-1].reshape(3, 3)
    return np.linalg.inv(Td) @ Hn @ Ts


def _hull_area(pts: np.ndarray) -> float:
    return float(cv2.contourArea(cv2.convexHull(pts.astype(np.float32))))


def _check_bounds(cal: Calibration) -> None:
    L, W = cal.length_yd, cal.width_yd
    for i, (x, y) in enumerate(cal.yd):
        if not (-MARGIN_ENDS_YD <= x <= L + MARGIN_ENDS_YD
                and -MARGIN_SIDES_YD <= y <= W + MARGIN_SIDES_YD):
            raise CalibrationError(
                f"{cal.label(i)}: yd ({x:g}, {y:g}) is outside the field "
                f"({L:g} x {W:g} yd) plus margins ({MARGIN_ENDS_YD:g} yd ends, "
                f"{MARGIN_SIDES_YD:g} yd sides); x runs along the length, y across")
    if cal.image_size is not None:
        w, h = cal.image_size
        for i, (u, v) in enumerate(cal.px):
            if not (-0.5 * w <= u <= 1.5 * w and -0.5 * h <= v <= 1.5 * h):
                raise CalibrationError(f"{cal.label(i)}: px ({u:g}, {v:g}) lies far outside "
                                       f"the {w}x{h} image")


def _duplicates(cal: Calibration) -> list[int]:
    """Indices of points repeating an earlier one (same yd and same px): harmless, and
    dropped before fitting. Conflicting repeats raise `CalibrationError`."""
    repeats = []
    for i, j in itertools.combinations(range(len(cal.px)), 2):
        same_yd = np.hypot(*(cal.yd[i] - cal.yd[j])) < 0.5
        same_px = np.hypot(*(cal.px[i] - cal.px[j])) < 2.0
        if same_yd and same_px:
            repeats.append(j)
        elif same_yd:
            raise CalibrationError(f"{cal.label(i)} and {cal.label(j)} are the same field "
                                   "point (less than 0.5 yd apart) marked at different "
                                   "pixels")
        elif np.hypot(*(cal.px[i] - cal.px[j])) < 1.0:
            raise CalibrationError(f"{cal.label(i)} and {cal.label(j)} are the same pixel "
                                   "(less than 1 px apart) for different field points")
    return sorted(set(repeats))


def without_duplicates(cal: Calibration) -> Calibration:
    """`cal` minus points that repeat an earlier point exactly (see `_duplicates`)."""
    drop = _duplicates(cal)
    if not drop:
        return cal
    keep = np.setdiff1d(np.arange(len(cal.px)), drop)
    return Calibration(cal.px[keep], cal.yd[keep], tuple(cal.names[k] for k in keep),
                       cal.image_size, cal.length_yd, cal.width_yd, cal.frame)


def _check_triples(pts: np.ndarray, cal: Calibration, what: str) -> None:
    """With exactly four points, no three may be (nearly) collinear."""
    for tri in itertools.combinations(range(4), 3):
        p = pts[list(tri)]
        (ax, ay), (bx, by) = p[1] - p[0], p[2] - p[0]
        area2 = abs(ax * by - ay * bx)
        longest = max(np.sum((p[a] - p[b]) ** 2) for a, b in ((0, 1), (1, 2), (0, 2)))
        if area2 < 0.01 * longest:
            names = ", ".join(cal.label(k) for k in tri)
            raise CalibrationError(f"{names} are collinear in {what}: four points with "
                                   "three on one line do not define a homography")


def validate_calibration(cal: Calibration) -> None:
    """Raise `CalibrationError` naming the problem if `cal` cannot give a sound homography."""
    _check_bounds(cal)
    cal = without_duplicates(cal)
    n = len(cal.px)
    if n < 4:
        raise CalibrationError(f"need at least 4 distinct points, got {n}")
    for pts, what in ((cal.yd, "the field"), (cal.px, "the image")):
        if spread_ratio(pts) < MIN_SPREAD_RATIO:
            raise CalibrationError(f"the points are (nearly) collinear in {what}: "
                                   "pick points that span an area, not a line")
        if n == 4:
            _check_triples(pts, cal, what)
    area = _hull_area(cal.yd)
    if area < MIN_HULL_AREA_YD2:
        raise CalibrationError(f"the points cover only {area:.1f} sq yd of field; "
                               f"spread them over at least {MIN_HULL_AREA_YD2:g} sq yd")
    if dlt_ratio(cal.yd, cal.px) < MIN_DLT_RATIO:
        raise CalibrationError("the points do not determine a unique homography "
                               "(degenerate configuration: too many on one line)")


# ------------------------------------------------------------------------------------
# Mapping
# ------------------------------------------------------------------------------------
def _project(M: np.ndarray, pts: Any, front_only: bool) -> np.ndarray:
    pts = np.asarray(pts, dtype=float)
    if pts.shape[-1] != 2:
        raise ValueError(f"points must have shape (..., 2), got {pts.shape}")
    flat = pts.reshape(-1, 2)
    h = flat @ M[:, :2].T + M[:, 2]
    w = h[:, 2:]
    bad = (w <= 1e-12) if front_only else (np.abs(w) <= 1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = h[:, :2] / np.where(bad, np.nan, w)
    return out.reshape(pts.shape)


def image_to_field(H: np.ndarray, px_points: Any, front_only: bool = False) -> np.ndarray:
    """Map pixels (..., 2) to field yards with the image→field homography `H`.

    Points on the horizon give NaN; with ``front_only`` so do points above it (w ≤ 0).
    """
    return _project(np.asarray(H, float), px_points, front_only)


def field_to_image(H_inv: np.ndarray, yd_points: Any, front_only: bool = False) -> np.ndarray:
    """Map field yards (..., 2) to pixels with the field→image homography `H_inv`."""
    return _project(np.asarray(H_inv, float), yd_points, front_only)


def _w(M: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return pts @ M[2, :2] + M[2, 2]


def orient(M: np.ndarray, src_pts: np.ndarray) -> np.ndarray:
    """Scale `M` to unit norm with w > 0 at `src_pts` (the points known to be in front)."""
    M = M / np.linalg.norm(M)
    return -M if np.median(_w(M, np.asarray(src_pts, float))) < 0 else M


def normalised_condition(H: np.ndarray, px: np.ndarray, yd: np.ndarray) -> float:
    """Condition number of H between Hartley-normalised pixel and yard frames."""
    Hn = _normaliser(yd) @ H @ np.linalg.inv(_normaliser(px))
    return float(np.linalg.cond(Hn))


# ------------------------------------------------------------------------------------
# Fitting
# ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CalibrationFit:
    """An image→field homography with its reprojection errors."""

    H: np.ndarray            # image px → field yd (w > 0 on the ground)
    H_inv: np.ndarray        # field yd → image px (w > 0 in front of the camera)
    calibration: Calibration
    inliers: np.ndarray      # (N,) bool
    errors_px: np.ndarray    # (N,) |field_to_image(yd) − px|
    errors_yd: np.ndarray    # (N,) |image_to_field(px) − yd|
    rms_px: float
    max_px: float
    rms_yd: float
    max_yd: float
    warnings: tuple[str, ...] = field(default=())

    def summary(self) -> str:
        """One line: point count and inlier reprojection errors."""
        n, k = len(self.inliers), int(self.inliers.sum())
        return (f"{k}/{n} points used; reprojection RMS {self.rms_px:.2f} px "
                f"(max {self.max_px:.2f}), {self.rms_yd:.2f} yd (max {self.max_yd:.2f})")


def _rms(e: np.ndarray) -> float:
    return float(np.sqrt(np.mean(e ** 2))) if e.size else 0.0


def _ransac_threshold(cal: Calibration) -> float:
    if cal.image_size is None:
        span = np.ptp(cal.px, axis=0)
        diag = float(np.hypot(*span))
    else:
        diag = float(np.hypot(*cal.image_size))
    return max(4.0, 0.006 * diag)


def _estimate(cal: Calibration, threshold_px: float) -> tuple[np.ndarray, np.ndarray]:
    yd = cal.yd.astype(np.float64)
    px = cal.px.astype(np.float64)
    inliers = np.ones(len(px), bool)
    if len(px) > 4:
        G, mask = cv2.findHomography(yd, px, cv2.RANSAC, threshold_px,
                                     maxIters=5000, confidence=0.999)
        if G is None or not np.all(np.isfinite(G)):
            raise CalibrationError("no homography fits these points (degenerate "
                                   "configuration)")
        inliers = mask.ravel().astype(bool)
    if inliers.sum() < 4:
        raise CalibrationError(f"only {inliers.sum()} points agree on one homography; "
                               "check the px/yd pairs for mistakes")
    return _refine(yd[inliers], px[inliers]), inliers


def _refine(yd: np.ndarray, px: np.ndarray) -> np.ndarray:
    """Best of the normalised DLT (exact for 4 points) and OpenCV's LM fit, in pixels."""
    candidates = [dlt_homography(yd, px)]
    if len(px) > 4:
        G, _ = cv2.findHomography(yd, px, 0)
        if G is not None and np.all(np.isfinite(G)):
            candidates.append(G)
    errs = [np.nansum((field_to_image(G, yd) - px) ** 2) for G in candidates]
    return candidates[int(np.argmin(errs))]


def _check_fit(cal: Calibration, H: np.ndarray, G: np.ndarray) -> None:
    if abs(np.linalg.det(G)) < 1e-300 or normalised_condition(H, cal.px, cal.yd) > MAX_COND_H:
        raise CalibrationError("the estimated homography is ill-conditioned "
                               "(degenerate or nearly collinear points)")
    w = _w(H, cal.px)
    if np.any(w <= 0):
        bad = ", ".join(cal.label(i) for i in np.flatnonzero(w <= 0))
        raise CalibrationError(f"{bad} would lie behind the camera under the best fit: "
                               "the px/yd pairs are inconsistent (swapped or mislabelled?)")


def fit_homography(cal: Calibration, threshold_px: float | None = None,
                   validate: bool = True) -> CalibrationFit:
    """Validate `cal` and estimate the image→field homography with RANSAC.

    RANSAC runs field→image so that its threshold (default max(4 px, 0.6% of the image
    diagonal)) is in pixels, where marking errors live; H is its inverse.
    """
    if validate:
        validate_calibration(cal)
    cal = without_duplicates(cal)
    thr = threshold_px if threshold_px is not None else _ransac_threshold(cal)
    G, inliers = _estimate(cal, thr)
    G = orient(G, cal.yd)
    H = orient(np.linalg.inv(G), cal.px)
    _check_fit(cal, H, G)
    err_px = np.hypot(*(field_to_image(G, cal.yd) - cal.px).T)
    err_yd = np.hypot(*(image_to_field(H, cal.px) - cal.yd).T)
    warnings = []
    if not inliers.all():
        bad = ", ".join(f"{cal.label(i)} off by {err_px[i]:.0f} px"
                        for i in np.flatnonzero(~inliers))
        warnings.append(f"ignored as outliers: {bad}")
    if len(inliers) > 4 and inliers.sum() == 4:
        warnings.append("only 4 points agree: the fit is exact on them and cannot be "
                        "cross-checked; add or re-check points")
    if len(inliers) == 4:
        warnings.append("only 4 points: the fit is exact by construction, so the "
                        "reprojection error says nothing about its accuracy")
    e_px, e_yd = err_px[inliers], err_yd[inliers]
    return CalibrationFit(H, G, cal, inliers, err_px, err_yd, _rms(e_px), float(e_px.max()),
                          _rms(e_yd), float(e_yd.max()), tuple(warnings))


def calibrate(path_or_doc: str | Path | dict, threshold_px: float | None = None
              ) -> CalibrationFit:
    """Load (path or decoded dict), validate and fit a calibration in one call."""
    if isinstance(path_or_doc, dict):
        cal = parse_calibration(path_or_doc)
    else:
        cal = load_calibration(path_or_doc)
    return fit_homography(cal, threshold_px)


def for_frame_size(fit: CalibrationFit, size: tuple[int, int], aspect_tolerance: float = 0.01
                   ) -> CalibrationFit:
    """The calibration for frames of `size` (width, height). As it is when it was made on
    frames of that size, or does not say (no image_size). Scaled when it was made on the same
    picture at another size (a transcode: the aspect ratios agree within `aspect_tolerance`),
    with a warning saying so. A CalibrationError when the pictures differ (a rotated or
    cropped copy): its pixels would put every player somewhere else."""
    cal = fit.calibration
    if cal.image_size is None or tuple(cal.image_size) == tuple(size):
        return fit
    (cw, ch), (w, h) = cal.image_size, (int(size[0]), int(size[1]))
    if abs((cw / ch) / (w / h) - 1.0) > aspect_tolerance:
        raise CalibrationError(f"the calibration was made on {cw}x{ch} frames and this video's are {w}x{h} "
                               f"(rotated or cropped?): calibrate this video (polo-lineup calibrate)")
    s = np.array([w / cw, h / ch])
    scaled = Calibration((cal.px + 0.5) * s - 0.5, cal.yd, cal.names, (w, h), cal.length_yd, cal.width_yd, cal.frame)
    out = fit_homography(scaled)
    note = f"calibration made on {cw}x{ch} frames, scaled to this video's {w}x{h}"
    return replace(out, warnings=(note, *out.warnings))


def homography_from_points(px_points: Any, yd_points: Any,
                           image_size: tuple[int, int] | None = None,
                           length_yd: float = DEFAULT_LENGTH,
                           width_yd: float = DEFAULT_WIDTH) -> CalibrationFit:
    """Fit from bare arrays of matching pixel and yard points (N ≥ 4)."""
    px = np.asarray(px_points, float).reshape(-1, 2)
    yd = np.asarray(yd_points, float).reshape(-1, 2)
    if px.shape != yd.shape:
        raise CalibrationError(f"{len(px)} pixel points but {len(yd)} field points")
    if not (np.all(np.isfinite(px)) and np.all(np.isfinite(yd))):
        raise CalibrationError("points must be finite numbers")
    cal = Calibration(px, yd, (None,) * len(px), image_size, length_yd, width_yd)
    return fit_homography(cal)


# ------------------------------------------------------------------------------------
# Synthetic cameras (tests, renderers)
# ------------------------------------------------------------------------------------
def look_at_homography(camera_yd: Any, target_yd: Any, focal_px: float,
                       image_size: tuple[int, int], roll_deg: float = 0.0) -> np.ndarray:
    """Field→image homography of a pinhole camera at `camera_yd` (x, y, z) looking at
    `target_yd` (x, y[, z]); principal point at the image centre, square pixels."""
    C = np.asarray(camera_yd, float)
    T = np.asarray(target_yd, float)
    T = np.r_[T, 0.0] if T.size == 2 else T
    f = (T - C) / np.linalg.norm(T - C)
    up = np.array([0.0, 0.0, 1.0])
    right = np.cross(up, f)        # field axes (north, east, up) are left-handed
    if np.linalg.norm(right) < 1e-9:
        raise ValueError("camera looks straight down: give a target off the vertical")
    right /= np.linalg.norm(right)
    down = -(up - up @ f * f)
    down /= np.linalg.norm(down)
    r = math.radians(roll_deg)
    right, down = (math.cos(r) * right + math.sin(r) * down,
                   -math.sin(r) * right + math.cos(r) * down)
    R = np.stack([right, down, f])
    K = np.array([[focal_px, 0, image_size[0] / 2], [0, focal_px, image_size[1] / 2], [0, 0, 1]])
    G = K @ np.c_[R[:, 0], R[:, 1], -R @ C]
    return G / abs(G[2, 2]) if abs(G[2, 2]) > 1e-12 else G
