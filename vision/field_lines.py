"""Where the field's own marks are in an image: the painted lines and the sideline boards.

Both are found near where a homography (image px -> field yd) puts them, place by place
along each mark, as offsets in yards from where H says they are (`LineSamples`); the
camera tracker (vision.camera_motion) re-anchors on them.

- Painted lines (line_samples): the cross lines at 0/30/40/60 yd from each end and the
  centre line, and painted sidelines where a ground has them; a bright stripe across each.
- Boards (board_samples): the boards along the sideline across the field from the camera
  show their face to it, standing on the ground at the sideline; where the grass meets the
  face is a step from grass to the brighter board (white, or pale wood). Its foot is a
  straight line on the ground across the whole length of the field, deep in the view: what
  measures a panning camera's drift in depth when no cross line is in view.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.homography import DEFAULT_LENGTH, DEFAULT_WIDTH

BOARD_LINE = -1            # LineSamples.line of the boards' foot (painted lines: 0, 1, ...)


def warp_points(M: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (N, 2) through the 3x3 projective map M; NaN/inf where they go to infinity."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    h = pts @ M[:, :2].T + M[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        return h[:, :2] / h[:, 2:]


def in_boxes(pts: np.ndarray, boxes, scale: float, pad: float) -> np.ndarray:
    """(N,) which points (N, 2) fall in any of `boxes` (M, 4; times `scale`) grown by `pad`."""
    if boxes is None or len(boxes) == 0 or len(pts) == 0:
        return np.zeros(len(pts), bool)
    b = np.asarray(boxes, float).reshape(-1, 4) * scale
    x, y = pts[:, :1], pts[:, 1:2]
    return np.any((x >= b[:, 0] - pad) & (x <= b[:, 2] + pad)
                  & (y >= b[:, 1] - pad) & (y <= b[:, 3] + pad), axis=1)


def painted_lines(length: float = DEFAULT_LENGTH, width: float = DEFAULT_WIDTH
                  ) -> list[tuple[int, float]]:
    """(axis, value) of the field's straight lines: axis 0 = cross lines x = value
    (end lines, 30/40/60 yd from each end, centre line), axis 1 = sidelines y = value."""
    xs = sorted({0.0, 30.0, 40.0, 60.0, length / 2, length - 60, length - 40, length - 30,
                 length})
    return [(0, x) for x in xs] + [(1, 0.0), (1, width)]


@dataclass(frozen=True)
class LineSamples:
    """Places along the field's marks where each was looked for (line_samples, board_samples)."""

    base: np.ndarray       # (N, 2) yd: the point on the mark where H puts it
    axis: np.ndarray       # (N,) 0: a cross line x = value, 1: a sideline (or boards' foot) y = value
    line: np.ndarray       # (N,) index into painted_lines, or BOARD_LINE
    offset: np.ndarray     # (N,) yd: where the mark was found, along `axis` from `base`; NaN: not
                           # found, or its mark not seen clearly (too few places, or they disagree)
    px_per_yd: np.ndarray  # (N,) image pixels a yard across the line there

    def found(self) -> np.ndarray:
        return np.isfinite(self.offset)

    @staticmethod
    def join(parts: "list[LineSamples | None]") -> "LineSamples | None":
        parts = [p for p in parts if p is not None]
        if not parts:
            return None
        return LineSamples(*(np.concatenate([getattr(p, k) for p in parts])
                             for k in ("base", "axis", "line", "offset", "px_per_yd")))


def line_samples(gray: np.ndarray, H: np.ndarray, length: float = DEFAULT_LENGTH,
                 width: float = DEFAULT_WIDTH, boxes=None, search_yd: float = 2.0,
                 step_yd: float = 0.1, spacing_yd: float = 5.0, min_samples: int = 6
                 ) -> LineSamples | None:
    """Where the painted lines are relative to where H puts them, place by place.

    For each line in view, brightness is sampled across it every `spacing_yd` along it,
    over ±`search_yd` in field units; the centre of the bright stripe in each profile
    gives that place's offset. A line counts when at least `min_samples` places show a
    clear stripe and they agree (median absolute deviation under 0.3 yd); the places of
    other lines are NaN. None when fewer than `min_samples` places are in view at all.
    """
    h_img, w_img = gray.shape[:2]
    G = np.linalg.inv(H)
    lines = painted_lines(length, width)
    base, line_id = [], []
    for k, (ax, v) in enumerate(lines):       # a sample every `spacing_yd` along each line
        span = width if ax == 0 else length
        along = np.arange(spacing_yd / 2, span, spacing_yd)
        p = np.empty((len(along), 2))
        p[:, ax], p[:, 1 - ax] = v, along
        base.append(p)
        line_id.append(np.full(len(along), k))
    base, line_id = np.concatenate(base), np.concatenate(line_id)
    axis = np.array([a for a, _ in lines])
    offs = np.arange(-search_yd, search_yd + step_yd / 2, step_yd)
    ends = np.stack([base, base], axis=1)
    ends[:, 0, :][np.arange(len(base)), axis[line_id]] -= search_yd
    ends[:, 1, :][np.arange(len(base)), axis[line_id]] += search_yd
    e = warp_points(G, ends.reshape(-1, 2)).reshape(-1, 2, 2)
    vis = np.all(np.isfinite(e), axis=(1, 2))
    vis &= np.all((e[..., 0] >= 1) & (e[..., 0] < w_img - 2)
                  & (e[..., 1] >= 1) & (e[..., 1] < h_img - 2), axis=1)
    px_per_yd = np.hypot(*(e[:, 1] - e[:, 0]).T) / (2 * search_yd)
    vis &= px_per_yd * 2 * search_yd >= 6.0             # window spans a few pixels
    if boxes is not None and len(boxes):
        vis &= ~in_boxes(e.mean(axis=1), boxes, 1.0, 6.0)
    if vis.sum() < min_samples:
        return None
    base, line_id, px_per_yd = base[vis], line_id[vis], px_per_yd[vis]
    pts = np.repeat(base[:, None, :], len(offs), axis=1)
    pts[np.arange(len(base)), :, axis[line_id]] += offs[None, :]
    px = warp_points(G, pts.reshape(-1, 2)).reshape(len(base), len(offs), 2)
    prof = cv2.remap(gray, px[..., 0].astype(np.float32), px[..., 1].astype(np.float32),
                     cv2.INTER_LINEAR)
    d = _stripe_centres(prof.astype(np.float32), offs)
    d[np.abs(d) > 0.75 * search_yd] = np.nan      # near the window's end: the grass level there is not
                                                  # the grass's, and the centre is pulled (a far line)
    for k in np.unique(line_id):
        sel = line_id == k
        dk = d[sel & np.isfinite(d)]
        if len(dk) < min_samples or np.median(np.abs(dk - np.median(dk))) >= 0.3:
            d[sel] = np.nan
    return LineSamples(base, axis[line_id], line_id, d, px_per_yd)


def line_offsets(gray: np.ndarray, H: np.ndarray, length: float = DEFAULT_LENGTH,
                 width: float = DEFAULT_WIDTH, boxes=None, **kw) -> tuple[float, float]:
    """Where the painted lines are relative to where H puts them: (dx, dy) in yards (the
    places of line_samples; keywords go to it). Each line's offset is the median over its
    places; cross lines give dx, sidelines dy, lines seen sharper (more pixels a yard)
    weighing more; 0.0 for an axis with no line seen well enough."""
    s = line_samples(gray, H, length, width, boxes, **kw)
    if s is None:
        return 0.0, 0.0
    est = np.zeros(2)
    wsum = np.zeros(2)
    for k in np.unique(s.line[s.found()]):
        sel = (s.line == k) & s.found()
        wk = sel.sum() * np.median(s.px_per_yd[sel]) ** 2
        est[s.axis[sel][0]] += wk * np.median(s.offset[sel])
        wsum[s.axis[sel][0]] += wk
    out = np.where(wsum > 0, est / np.maximum(wsum, 1e-12), 0.0)
    return float(out[0]), float(out[1])


def _stripe_centres(prof: np.ndarray, offs: np.ndarray, min_contrast: float = 25.0
                    ) -> np.ndarray:
    """Centre (in `offs` units) of the bright stripe in each row of `prof`: the weighted
    centroid of the run above half height around the maximum; NaN where no stripe
    stands out by `min_contrast` or the run touches the window's ends."""
    n, m = prof.shape
    r = np.arange(n)
    i = np.argmax(prof, axis=1)
    cols = np.arange(m)[None, :]
    q = max(2, m // 4)        # grass level on each side (mowing stripes may differ)
    left, right = np.median(prof[:, :q], axis=1), np.median(prof[:, -q:], axis=1)
    bg = np.where(cols < i[:, None], left[:, None], right[:, None])
    height = prof[r, i] - np.maximum(left, right)
    above = prof > bg + 0.5 * (prof[r, i][:, None] - bg)
    # the contiguous run of `above` containing the maximum
    below_left = np.where(~above & (cols < i[:, None]), cols, -1).max(axis=1)
    below_right = np.where(~above & (cols > i[:, None]), cols, m).min(axis=1)
    run = (cols > below_left[:, None]) & (cols < below_right[:, None])
    wgt = np.where(run, prof - bg, 0.0)
    centre = (wgt * offs[None, :]).sum(axis=1) / np.maximum(wgt.sum(axis=1), 1e-9)
    ok = (height >= min_contrast) & (below_left >= 0) & (below_right < m)
    ok &= (below_right - below_left - 1) <= m // 3        # a stripe, not a bright area
    return np.where(ok, centre, np.nan)


def board_samples(gray: np.ndarray, H: np.ndarray, camera_y: float, length: float = DEFAULT_LENGTH,
                  width: float = DEFAULT_WIDTH, boxes=None, spacing_yd: float = 5.0,
                  reach_px: float = 8.0, step_px: float = 0.25, min_contrast: float = 25.0,
                  min_px_per_yd: float = 0.3, min_samples: int = 6, max_mad_px: float = 1.0,
                  bias_px: float = 0.0) -> LineSamples | None:
    """Where the foot of the boards across the field from a camera standing at `camera_y`
    (yd) is, relative to where H puts the sideline (module doc), place by place.

    Every `spacing_yd` along the sideline the image is sampled across its projected line,
    ±`reach_px` pixels (field side first); the foot is where the profile rises half way
    from the grass below to the board face above (the crossing nearest where H puts it),
    when the face stands out by `min_contrast` grey levels; `bias_px` (towards the face)
    is taken off: how the foot looks, seen through a known H (board_bias_px). Places in
    `boxes` (players in front of the boards), out of the image, or seen at under
    `min_px_per_yd` across are skipped. Unless at least `min_samples` places are found and
    neighbours agree (the median difference between them under `max_mad_px` pixels), none
    count. None when fewer than `min_samples` are in view. LineSamples' axis is 1 (y = the
    sideline), line BOARD_LINE."""
    h_img, w_img = gray.shape[:2]
    y_b = width if camera_y < width / 2 else 0.0
    out = 1.0 if y_b == width else -1.0          # away from the camera, across the sideline
    G = np.linalg.inv(H)
    xs = np.arange(spacing_yd / 2, length, spacing_yd)
    base = np.c_[xs, np.full(len(xs), y_b)]
    p0 = warp_points(G, base)
    tangent = warp_points(G, base + (0.5, 0.0)) - warp_points(G, base - (0.5, 0.0))
    across = warp_points(G, base + (0.0, 0.5 * out)) - warp_points(G, base - (0.0, 0.5 * out))
    with np.errstate(invalid="ignore", divide="ignore"):
        n = np.c_[-tangent[:, 1], tangent[:, 0]] / np.hypot(*tangent.T)[:, None]
    n *= np.sign(np.sum(n * across, axis=1))[:, None]            # towards the board face
    ppy = np.abs(np.sum(n * across, axis=1))
    ok = np.all(np.isfinite(p0), axis=1) & np.all(np.isfinite(n), axis=1) & (ppy >= min_px_per_yd)
    for s in (-reach_px, reach_px):
        e = p0 + s * n
        ok &= np.all(np.isfinite(e), axis=1) & (e[:, 0] >= 1) & (e[:, 0] < w_img - 2) \
            & (e[:, 1] >= 1) & (e[:, 1] < h_img - 2)
    if boxes is not None and len(boxes):
        ok &= ~in_boxes(p0, boxes, 1.0, reach_px)
    if ok.sum() < min_samples:
        return None
    base, p0, n, ppy = base[ok], p0[ok], n[ok], ppy[ok]
    s = np.arange(-reach_px, reach_px + step_px / 2, step_px)
    pts = p0[:, None, :] + s[None, :, None] * n[:, None, :]
    prof = cv2.remap(gray, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32),
                     cv2.INTER_LINEAR).astype(np.float32)
    foot = _rising_step(prof, s, min_contrast) - bias_px
    edge = p0 + foot[:, None] * n
    q = warp_points(H, np.where(np.isfinite(edge), edge, p0))
    offset = np.where(np.isfinite(foot), q[:, 1] - y_b, np.nan)
    px = (offset * ppy * out)[np.isfinite(offset)]
    # A turned camera puts the line at a slant to the foot seen: the offsets then run along the
    # boards; neighbouring places still agree.
    if len(px) < min_samples or np.median(np.abs(np.diff(px))) >= max_mad_px:
        offset[:] = np.nan
    return LineSamples(base, np.ones(len(base), int), np.full(len(base), BOARD_LINE), offset, ppy)


def _rising_step(prof: np.ndarray, s: np.ndarray, min_contrast: float) -> np.ndarray:
    """(N,) where each row of `prof` (sampled at `s`, field side first) rises half way from
    its low side (the median over the first third) to its high side (the largest value in
    the last two thirds): the crossing nearest s = 0, linearly interpolated; NaN where the
    rise is under `min_contrast` or there is no crossing."""
    m = prof.shape[1]
    low = np.median(prof[:, :m // 3], axis=1)
    high = prof[:, m // 3:].max(axis=1)
    half = (low + high) / 2
    a, b = prof[:, :-1], prof[:, 1:]
    cross = (a < half[:, None]) & (b >= half[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        at = s[:-1][None, :] + (half[:, None] - a) / (b - a) * (s[1] - s[0])
    at = np.where(cross, at, np.inf)
    pick = np.argmin(np.abs(at), axis=1)
    out = at[np.arange(len(prof)), pick]
    return np.where(np.isfinite(out) & (high - low >= min_contrast), out, np.nan)


def board_bias_px(samples: LineSamples | None) -> float | None:
    """How far (pixels, towards the face; negative: on the field's side) the boards' foot was
    seen from the sideline of the H it was looked for through (board_samples with bias_px
    0): the median over the places found; None if none were. Through a calibrated H, this
    is how the foot looks in this footage: rendered boards are drawn about half a pixel
    large (-0.5 to -0.8 px on every rendered clip looked at), and a real board's foot may
    be hidden in the grass."""
    if samples is None or not samples.found().any():
        return None
    ok = samples.found()
    out = 1.0 if samples.base[0, 1] > 0 else -1.0
    return float(np.median(samples.offset[ok] * samples.px_per_yd[ok] * out))
