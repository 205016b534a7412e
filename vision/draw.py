"""Overlays on BGR frames (drawing only, no analysis).

- `draw_boxes`: boxes with track id and team colour.
- `draw_field_segments` / `draw_centre_line` / `draw_field_circle`: field-space shapes
  drawn back into the image through the field→image homography, clipped properly at the
  horizon (points behind the camera) and at the image border.
- `draw_minimap`: a top-down inset of the field (outline, centre line, players as
  team-coloured dots with their numbers, the umpire with its 5-yd circle); north to the
  right; the whole field, or zoomed onto the players (`vision.map_view`).
- `draw_banner`: the violations active on the frame.
- `annotate`: all of the above for one frame from a list of `Marker`s.

Everything draws in place on the given image (``annotate(copy=True)`` works on a copy).
Homographies: `H_inv` maps field yards (x, y, 1) to pixels; its sign is normalised so
that the ground at the bottom of the image is in front of the camera.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Mapping, Sequence

import cv2
import numpy as np

from vision.homography import DEFAULT_LENGTH, DEFAULT_WIDTH
from vision.map_view import MapView

BGR = tuple[int, int, int]
UMPIRE = "umpire"
DEFAULT_COLOURS: dict[str | None, BGR] = {
    "red": (40, 40, 220), "blue": (220, 110, 30), "team_a": (40, 170, 250),
    "team_b": (230, 60, 200), UMPIRE: (255, 255, 255), None: (170, 170, 170),
}
FALLBACK_COLOURS: list[BGR] = [(0, 200, 255), (255, 0, 160), (0, 255, 0), (255, 255, 0)]
SHIFT = 4                     # sub-pixel bits for cv2 drawing
FONT = cv2.FONT_HERSHEY_SIMPLEX


@dataclass(frozen=True)
class Marker:
    """One tracked unit to draw: its box in the image and/or its field position."""

    track_id: Hashable
    team: str | None = None                  # a team name, "umpire", or None (unknown)
    box_px: Sequence[float] | None = None    # (x1, y1, x2, y2)
    field_yd: Sequence[float] | None = None  # (x, y)
    implied: bool = False                    # the box is implied (a hidden horse's, from its rider's): dashed
    shirt: int | None = None                 # his shirt number, where it was read (vision.shirt_numbers)

    @property
    def label(self) -> str:
        """The box's tag: the track id, and "#2" where the shirt number was read."""
        return str(self.track_id) + (f" #{self.shirt}" if self.shirt is not None else "")


def team_colour(team: str | None, colours: Mapping[str | None, Sequence[int]] | None = None
                ) -> BGR:
    """BGR colour of a team (given `colours` first, then the defaults, then a hash pick)."""
    for table in (colours or {}, DEFAULT_COLOURS):
        if team in table:
            return tuple(int(c) for c in table[team])  # type: ignore[return-value]
    return FALLBACK_COLOURS[sum(map(ord, str(team))) % len(FALLBACK_COLOURS)]


def _fixed(pts: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(pts, float) * (1 << SHIFT)).astype(np.int32)


def line_width(img: np.ndarray) -> int:
    """Overlay line width in pixels: 2 on a 720-line frame, in proportion on others (at least
    1), so that a 1440p clip's boxes are not hairlines."""
    return max(1, int(round(2 * img.shape[0] / 720)))


def _font_scale(img: np.ndarray) -> float:
    return max(0.35, img.shape[0] / 720 * 0.55)


# ------------------------------------------------------------------------------------
# Field shapes through the homography
# ------------------------------------------------------------------------------------
def orient_field_to_image(H_inv: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """`H_inv` scaled so that w > 0 for ground in front of the camera (the ground seen
    at the bottom-centre of the image)."""
    H_inv = np.asarray(H_inv, float)
    H = np.linalg.inv(H_inv)
    w_bottom = H[2] @ [image_size[0] / 2, image_size[1], 1.0]
    return -H_inv if w_bottom < 0 else H_inv


def project_segments(H_inv: np.ndarray, a_yd: np.ndarray, b_yd: np.ndarray,
                     image_size: tuple[int, int], pad: float = 2.0) -> np.ndarray:
    """Field segments a→b (N, 2) each → their visible parts in pixels, (M, 2, 2).

    Each segment is cut where it passes behind the camera (w ≤ ε, linear along a field
    segment) and then clipped to the image rectangle grown by `pad` (Liang–Barsky).
    """
    G = orient_field_to_image(H_inv, image_size)
    a = np.asarray(a_yd, float).reshape(-1, 2)
    b = np.asarray(b_yd, float).reshape(-1, 2)
    wa, wb = a @ G[2, :2] + G[2, 2], b @ G[2, :2] + G[2, 2]
    eps = 1e-6 * max(np.abs(G[2]).max(), 1e-12)
    keep = (wa > eps) | (wb > eps)
    a, b, wa, wb = a[keep], b[keep], wa[keep], wb[keep]
    t = np.where(wa != wb, (eps - wa) / np.where(wa != wb, wb - wa, 1.0), 0.0)
    t = np.clip(t, 0.0, 1.0)[:, None]
    cut = a + t * (b - a)                                  # where w crosses ε
    a = np.where((wa <= eps)[:, None], cut, a)
    b = np.where((wb <= eps)[:, None], cut, b)
    pa, pb = _apply(G, a), _apply(G, b)
    return _clip_to_rect(pa, pb, image_size, pad)


def _apply(G: np.ndarray, pts: np.ndarray) -> np.ndarray:
    h = pts @ G[:, :2].T + G[:, 2]
    return h[:, :2] / h[:, 2:]


def _clip_to_rect(pa: np.ndarray, pb: np.ndarray, image_size: tuple[int, int],
                  pad: float) -> np.ndarray:
    """Liang–Barsky clipping of pixel segments to the padded image; (M, 2, 2)."""
    w, h = image_size
    lo = np.array([-pad, -pad])
    hi = np.array([w - 1 + pad, h - 1 + pad])
    d = pb - pa
    p = np.concatenate([-d, d], axis=1)                          # (N, 4)
    q = np.concatenate([pa - lo, hi - pa], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = q / p
    t0 = np.max(np.where(p < 0, r, 0.0), axis=1)
    t1 = np.min(np.where(p > 0, r, 1.0), axis=1)
    ok = (t0 <= t1) & ~np.any((p == 0) & (q < 0), axis=1) & np.all(np.isfinite(pa), axis=1)
    ok &= np.all(np.isfinite(pb), axis=1)
    s0, s1 = pa + t0[:, None] * d, pa + t1[:, None] * d
    return np.stack([s0, s1], axis=1)[ok]


def draw_field_segments(img: np.ndarray, H_inv: np.ndarray, a_yd: np.ndarray,
                        b_yd: np.ndarray, colour: Sequence[int], thickness: int = 2) -> None:
    """Draw straight field segments a→b (yards) into the image."""
    segs = project_segments(H_inv, a_yd, b_yd, (img.shape[1], img.shape[0]))
    if len(segs):
        cv2.polylines(img, list(_fixed(segs)), False, tuple(int(c) for c in colour),
                      thickness, cv2.LINE_AA, SHIFT)


def draw_field_polyline(img: np.ndarray, H_inv: np.ndarray, yd_points: np.ndarray,
                        colour: Sequence[int], thickness: int = 2, closed: bool = False
                        ) -> None:
    """Draw a polyline given in field yards (each edge clipped on its own)."""
    pts = np.asarray(yd_points, float).reshape(-1, 2)
    b = np.roll(pts, -1, axis=0) if closed else pts[1:]
    a = pts if closed else pts[:-1]
    draw_field_segments(img, H_inv, a, b, colour, thickness)


def circle_polygon_yd(centre_yd: Sequence[float], radius_yd: float = 5.0, n: int = 72
                      ) -> np.ndarray:
    """(n, 2) vertices of a circle in field yards."""
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.asarray(centre_yd, float) + radius_yd * np.c_[np.cos(a), np.sin(a)]


def draw_field_circle(img: np.ndarray, H_inv: np.ndarray, centre_yd: Sequence[float],
                      radius_yd: float = 5.0, colour: Sequence[int] = (255, 255, 255),
                      thickness: int = 2, n: int = 72) -> None:
    """Draw a field circle (e.g. the umpire's 5-yd circle) as its projected polygon."""
    draw_field_polyline(img, H_inv, circle_polygon_yd(centre_yd, radius_yd, n), colour,
                        thickness, closed=True)


def draw_centre_line(img: np.ndarray, H_inv: np.ndarray, length: float = DEFAULT_LENGTH,
                     width: float = DEFAULT_WIDTH, colour: Sequence[int] = (0, 255, 255),
                     thickness: int = 2) -> None:
    """Draw the centre line x = length / 2 from sideline to sideline."""
    draw_field_segments(img, H_inv, [[length / 2, 0.0]], [[length / 2, width]], colour,
                        thickness)


# ------------------------------------------------------------------------------------
# Boxes, banner
# ------------------------------------------------------------------------------------
def _label(img: np.ndarray, text: str, org: tuple[int, int], colour: BGR, scale: float
           ) -> None:
    """Text on a filled tag in `colour` (black or white text, whichever reads); `org` is the
    tag's bottom-left corner."""
    (tw, th), base = cv2.getTextSize(text, FONT, scale, 1)
    x, y = int(org[0]), int(org[1])
    y = max(y, th + base + 2)
    cv2.rectangle(img, (x, y - th - base - 2), (x + tw + 4, y), colour, -1)
    ink = (0, 0, 0) if sum(colour) > 380 else (255, 255, 255)
    cv2.putText(img, text, (x + 2, y - base), FONT, scale, ink, 1, cv2.LINE_AA)


def place_tags(anchors: Sequence[tuple[int, int]], sizes: Sequence[tuple[int, int]], max_lift: int = 8
               ) -> list[tuple[int, int]]:
    """Bottom-left corners for tags of `sizes` (w, h), each wanting to sit at its anchor (a box's
    top-left corner). Tags are placed from the lowest anchor up (the nearest players first); a
    tag that would cover one already placed is lifted by its own height, up to `max_lift` times
    (then it stays where it overlaps least): in a dense line-up the ids stack up instead of
    hiding one another."""
    placed: list[tuple[int, int, int, int]] = []
    out: list[tuple[int, int]] = [(0, 0)] * len(anchors)

    def overlap(r) -> int:
        return sum(max(0, min(r[2], q[2]) - max(r[0], q[0])) * max(0, min(r[3], q[3]) - max(r[1], q[1]))
                   for q in placed)

    for k in sorted(range(len(anchors)), key=lambda i: -anchors[i][1]):
        (x, y), (w, h) = anchors[k], sizes[k]
        tries = [(x, y - lift * h) for lift in range(max_lift + 1) if y - lift * h - h >= 0] or [(x, max(y, h))]
        rects = [(tx, ty - h, tx + w, ty) for tx, ty in tries]
        best = next((i for i, r in enumerate(rects) if overlap(r) == 0), None)
        if best is None:
            best = min(range(len(rects)), key=lambda i: overlap(rects[i]))
        placed.append(rects[best])
        out[k] = tries[best]
    return out


def _dashed_rectangle(img: np.ndarray, p1: tuple[int, int], p2: tuple[int, int], colour, thickness: int,
                      dash: int = 6, gap: int = 8) -> None:
    """A rectangle drawn as dashes `dash` px long, `gap` px apart (the line's caps take a
    pixel or two of each gap)."""
    (x1, y1), (x2, y2) = p1, p2
    for a, b in (((x1, y1), (x2, y1)), ((x2, y1), (x2, y2)), ((x2, y2), (x1, y2)), ((x1, y2), (x1, y1))):
        length = float(np.hypot(b[0] - a[0], b[1] - a[1]))
        if length == 0:
            continue
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        for s in np.arange(0.0, length, dash + gap):
            e = min(s + dash, length)
            cv2.line(img, (round(a[0] + s * ux), round(a[1] + s * uy)), (round(a[0] + e * ux), round(a[1] + e * uy)),
                     colour, thickness, cv2.LINE_AA)


def draw_boxes(img: np.ndarray, boxes: Sequence[Sequence[float]], labels: Sequence[str],
               colours: Sequence[Sequence[int]], thickness: int = 2, dashed: Sequence[bool] | None = None) -> None:
    """Rectangles (x1, y1, x2, y2) with a label tag above each (lifted where tags would cover
    each other: place_tags); the tags are drawn over every box. `dashed` boxes (implied, not
    seen) are drawn in dashes."""
    scale = _font_scale(img)
    tags = []
    dashed = dashed if dashed is not None else [False] * len(boxes)
    for box, text, colour, dash in zip(boxes, labels, colours, dashed):
        x1, y1, x2, y2 = (int(round(v)) for v in box)
        colour = tuple(int(c) for c in colour)
        if dash:
            _dashed_rectangle(img, (x1, y1), (x2, y2), colour, thickness)
        else:
            cv2.rectangle(img, (x1, y1), (x2, y2), colour, thickness, cv2.LINE_AA)
        if text:
            (tw, th), base = cv2.getTextSize(text, FONT, scale, 1)
            tags.append((text, colour, (x1, y1 - 1), (tw + 4, th + base + 2)))
    corners = place_tags([a for *_, a, _ in tags], [sz for *_, sz in tags])
    for (text, colour, _, _), org in zip(tags, corners):
        _label(img, text, org, colour, scale)


CHECK_BGR = (0, 190, 255)       # amber: a finding to check (within its uncertainty), not a violation


def draw_banner(img: np.ndarray, lines: Sequence, colour: Sequence[int] = (0, 0, 255),
                alpha: float = 0.6, ok_text: str | None = None) -> None:
    """A strip along the top listing `lines` (the active violations; a line may be a
    (text, colour) pair); nothing (or `ok_text` in green) when there are none."""
    if not lines and ok_text is None:
        return
    scale = _font_scale(img)
    lines = list(lines) or [ok_text]
    colour = tuple(int(c) for c in colour) if lines != [ok_text] else (0, 200, 0)
    (_, th), base = cv2.getTextSize("Ag", FONT, scale, 1)
    step = th + base + 6
    height = min(img.shape[0], step * len(lines) + 6)
    roi = img[:height]
    cv2.convertScaleAbs(roi, roi, 1 - alpha)            # darken the strip in place
    for i, text in enumerate(lines):
        y = 4 + step * (i + 1) - base - 3
        if y > height:
            break
        text, ink = text if isinstance(text, tuple) else (text, colour)
        cv2.putText(img, str(text), (10, y), FONT, scale, tuple(int(c) for c in ink), 1 + (scale > 0.6),
                    cv2.LINE_AA)


# ------------------------------------------------------------------------------------
# Top-down inset
# ------------------------------------------------------------------------------------
def minimap_transform(img_shape: tuple[int, ...], length: float = DEFAULT_LENGTH,
                      width: float = DEFAULT_WIDTH, corner: str = "bottom-right",
                      fraction: float = 0.3, margin: int = 10, pad: int = 8,
                      view: MapView | None = None) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """(M, (x0, y0, x1, y1)): M maps field yards to inset pixels (north to the right,
    west at the top); the rectangle is the inset's area in the image. The inset's size is
    the whole field's; `view` (vision.map_view) zooms it onto a part of the field."""
    h, w = img_shape[:2]
    s = fraction * w / length
    iw, ih = int(round(length * s)) + 2 * pad, int(round(width * s)) + 2 * pad
    x0 = margin if "left" in corner else w - margin - iw
    y0 = margin if "top" in corner else h - margin - ih
    if view is None or view.is_whole_field(length):
        return np.array([[s, 0, x0 + pad], [0, s, y0 + pad], [0, 0, 1.0]]), (x0, y0, x0 + iw, y0 + ih)
    z = s * length / view.length_yd
    (left, top), _ = view.bounds(length, width)
    M = np.array([[z, 0, x0 + pad - z * left], [0, z, y0 + pad - z * top], [0, 0, 1.0]])
    return M, (x0, y0, x0 + iw, y0 + ih)


_GRASS: dict[tuple[int, ...], np.ndarray] = {}


def _grass(shape: tuple[int, ...]) -> np.ndarray:
    """The inset's background of `shape`, made once per shape: filling it anew (numpy
    broadcasting a colour over ~90k pixels) took half a millisecond a frame."""
    if shape not in _GRASS:
        base = np.empty(shape, np.uint8)
        base[:] = (40, 90, 40)
        base.flags.writeable = False
        _GRASS[shape] = base
    return _GRASS[shape]


def _map_label(track_id) -> str:
    """A track's number alone ("blue-t26" -> "t26": the dot's colour says the team); other
    ids as they are."""
    text = str(track_id)
    head, _, tail = text.rpartition("-")
    return tail if head not in ("", "U") and tail.lstrip("t").isdigit() else text


def draw_minimap(img: np.ndarray, markers: Sequence[Marker], length: float = DEFAULT_LENGTH,
                 width: float = DEFAULT_WIDTH, colours: Mapping | None = None,
                 corner: str = "bottom-right", fraction: float = 0.3, alpha: float = 0.65,
                 umpire_radius_yd: float = 5.0, view: MapView | None = None) -> tuple[int, int, int, int]:
    """Top-down inset of the field with the markers that have a field position: the whole
    field, or the part of it `view` names (vision.map_view: a line-up close up, with a 10-yd
    grid and a scale bar). Nothing is drawn outside the inset.

    Returns the inset rectangle (x0, y0, x1, y1).
    """
    M, rect = minimap_transform(img.shape, length, width, corner, fraction, view=view)
    x0, y0, x1, y1 = rect
    roi = img[max(y0, 0):y1, max(x0, 0):x1]
    if roi.size == 0:
        return rect
    cv2.addWeighted(_grass(roi.shape), alpha, roi, 1 - alpha, 0, dst=roi)
    M = M.copy()
    M[0, 2] -= max(x0, 0)
    M[1, 2] -= max(y0, 0)
    to_px = lambda pts: _fixed(np.asarray(pts, float) @ M[:2, :2].T + M[:2, 2])
    s = M[0, 0]
    zoomed = view is not None and not view.is_whole_field(length)
    if zoomed:                                     # a 10-yd grid to read distances by
        lo, hi = view.bounds(length, width)
        lo, hi = np.maximum(lo, 0), np.minimum(hi, [length, width])
        grid = [[[x, lo[1]], [x, hi[1]]] for x in np.arange(np.ceil(lo[0] / 10) * 10, hi[0] + 1e-6, 10)]
        grid += [[[lo[0], y], [hi[0], y]] for y in np.arange(np.ceil(lo[1] / 10) * 10, hi[1] + 1e-6, 10)]
        cv2.polylines(roi, [to_px(g) for g in grid], False, (70, 125, 70), 1, cv2.LINE_AA, SHIFT)
    outline = to_px([[0, 0], [length, 0], [length, width], [0, width]])
    cv2.polylines(roi, [outline], True, (235, 235, 235), 1, cv2.LINE_AA, SHIFT)
    cv2.polylines(roi, [to_px([[length / 2, 0], [length / 2, width]])], False,
                  (0, 255, 255), 1 + zoomed, cv2.LINE_AA, SHIFT)
    scale = 0.8 * _font_scale(img)
    for m in markers:
        if m.field_yd is None or not np.all(np.isfinite(m.field_yd)):
            continue
        colour = team_colour(m.team, colours)
        c = to_px([m.field_yd])[0]
        if m.team == UMPIRE:
            r = int(round(umpire_radius_yd * s * (1 << SHIFT)))
            cv2.circle(roi, tuple(c), r, (255, 255, 255), 1, cv2.LINE_AA, SHIFT)
        cv2.circle(roi, tuple(c), 4 << SHIFT, colour, -1, cv2.LINE_AA, SHIFT)
        cv2.circle(roi, tuple(c), 4 << SHIFT, (0, 0, 0), 1, cv2.LINE_AA, SHIFT)
        u, v = (c >> SHIFT) + (5, -4)
        label, org = (f"#{m.shirt}" if m.shirt is not None else _map_label(m.track_id)), (int(u), int(v))
        cv2.putText(roi, label, org, FONT, scale, (0, 0, 0), 3, cv2.LINE_AA)     # a dark rim: read on grass
        cv2.putText(roi, label, org, FONT, scale, colour, 1, cv2.LINE_AA)
    if zoomed:                                     # the scale: 10 yd, bottom left
        bx, by = 8, roi.shape[0] - 8
        bar = int(round(10 * s))
        cv2.line(roi, (bx, by), (bx + bar, by), (235, 235, 235), 2, cv2.LINE_AA)
        cv2.putText(roi, "10 yd", (bx + bar + 5, by + 4), FONT, scale, (235, 235, 235), 1, cv2.LINE_AA)
    return rect


# ------------------------------------------------------------------------------------
# Everything at once
# ------------------------------------------------------------------------------------
def draw_flags(img: np.ndarray, markers: Sequence[Marker], flags: Mapping, thickness: int = 2) -> None:
    """A frame round the box of each marker named in `flags` (track id -> BGR): the players
    a banner line names (red: a violation; amber: a finding to check), so the eye finds them."""
    pad = 3 * thickness
    for m in markers:
        colour = flags.get(m.track_id)
        if colour is None or m.box_px is None:
            continue
        x1, y1, x2, y2 = (int(round(v)) for v in m.box_px)
        cv2.rectangle(img, (x1 - pad, y1 - pad), (x2 + pad, y2 + pad), tuple(int(c) for c in colour),
                      thickness, cv2.LINE_AA)


def annotate(frame: np.ndarray, markers: Sequence[Marker], H_inv: np.ndarray | None = None,
             violations: Sequence = (), colours: Mapping | None = None,
             length: float = DEFAULT_LENGTH, width: float = DEFAULT_WIDTH,
             umpire_radius_yd: float = 5.0, minimap: bool = True, copy: bool = True,
             map_view: MapView | None = None, flags: Mapping | None = None) -> np.ndarray:
    """Boxes, the centre line and umpire circles (with `H_inv`), the inset map (the whole
    field, or `map_view`) and the violation banner on one frame, the players it names framed
    (`flags`: track id -> colour); returns the annotated image."""
    img = frame.copy() if copy else frame
    lw = line_width(img)
    if H_inv is not None:
        draw_centre_line(img, H_inv, length, width, thickness=lw)
        for m in markers:
            if m.team == UMPIRE and m.field_yd is not None and np.all(np.isfinite(m.field_yd)):
                draw_field_circle(img, H_inv, m.field_yd, umpire_radius_yd, (255, 255, 255), thickness=lw)
    boxed = [m for m in markers if m.box_px is not None]
    draw_boxes(img, [m.box_px for m in boxed], [m.label for m in boxed],
               [team_colour(m.team, colours) for m in boxed], thickness=lw, dashed=[m.implied for m in boxed])
    if flags:
        draw_flags(img, boxed, flags, thickness=lw)
    if minimap:
        draw_minimap(img, markers, length, width, colours,
                     umpire_radius_yd=umpire_radius_yd, view=map_view)
    draw_banner(img, violations)
    return img
