"""Draw meshes into a frame: project, cull back faces, shade, sort far-to-near, fill.

Faces are filled with cv2.fillConvexPoly (LINE_AA, 4 bits of sub-pixel precision) in
painter's order. For objects whose truth is wanted, the same faces are also drawn (no
anti-aliasing) into a per-object buffer of part codes, which gives the full silhouette
(including what lies outside the image) and is then pasted into the frame's id buffer, so
occlusion by anything drawn later is counted.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from synth.camera import NEAR_YD, Camera
from synth.mesh import LINE, Mesh

SHIFT = 4
ONE = 1 << SHIFT
OCCLUDER_ID = 255
MAX_ROI = 6000          # beyond this the per-object buffer is clipped to the image


@dataclass
class Light:
    sun: np.ndarray                   # unit vector towards the sun
    ambient: float
    diffuse: float
    tint: np.ndarray                  # (3,) BGR multipliers


@dataclass
class DrawResult:
    boxes: dict[int, np.ndarray] = field(default_factory=dict)   # part -> [x1, y1, x2, y2] (unclipped)
    area: dict[int, int] = field(default_factory=dict)           # part -> silhouette pixels, off-image included
    ids: dict[int, int] = field(default_factory=dict)            # part -> value in the id buffer
    roi: tuple[int, int, int, int] | None = None                 # drawn area (x1, y1, x2, y2), clipped


def shade_faces(mesh: Mesh, n: np.ndarray, light: Light) -> np.ndarray:
    lam = np.clip(n @ light.sun, 0.0, None)
    sky = light.ambient * (0.75 + 0.25 * n[:, 2])
    k = sky + light.diffuse * lam
    k = np.where(mesh.shade > 0, k, 1.0)
    return np.clip(mesh.colour * k[:, None] * light.tint, 0, 255)


def draw_mesh(frame: np.ndarray, cam: Camera, mesh: Mesh, light: Light, idbuf: np.ndarray | None = None,
              part_ids: dict[int, int] | None = None, occluder: bool = False) -> DrawResult | None:
    """Draw `mesh`; return per-part boxes and areas when `part_ids` (part -> id) is given.

    Returns None when the mesh is empty or reaches behind the near plane.
    """
    if not len(mesh.F):
        return None
    pc = cam.to_camera(mesh.V)
    if pc[:, 2].min() < NEAR_YD:
        return None
    f = cam.focal_px
    uv = pc[:, :2] / pc[:, 2:3] * f + cam.K[:2, 2]
    F = mesh.F
    Vw = mesh.V
    n = np.cross(Vw[F[:, 2]] - Vw[F[:, 0]], Vw[F[:, 3]] - Vw[F[:, 1]])
    cen = Vw[F].mean(1)
    flip = np.einsum("ij,ij->i", n, cen - mesh.centre) < 0
    n[flip] *= -1
    norm = np.linalg.norm(n, axis=1)
    n = n / np.where(norm > 0, norm, 1.0)[:, None]
    is_line = mesh.kind == LINE
    facing = np.einsum("ij,ij->i", n, cam.C - cen) > 0
    keep = (facing & (norm > 0)) | is_line
    idx = np.flatnonzero(keep)
    if not len(idx):
        return None
    depth = pc[F[idx]].mean(1)[:, 2]
    idx = idx[np.argsort(-depth, kind="stable")]

    col = shade_faces(mesh, n, light)[idx]
    pts = np.round(uv[F[idx]] * ONE).astype(np.int32)           # (K, 4, 2)
    lines = is_line[idx]
    parts = mesh.part[idx]
    width_px = np.maximum(1, np.round(mesh.width[idx] * f / np.maximum(pc[F[idx, 0], 2], 1e-6))).astype(int)

    h, w = frame.shape[:2]
    lo = pts.reshape(-1, 2).min(0) // ONE - 2
    hi = pts.reshape(-1, 2).max(0) // ONE + 3
    res = DrawResult()
    res.roi = (int(max(lo[0], 0)), int(max(lo[1], 0)), int(min(hi[0], w)), int(min(hi[1], h)))
    if res.roi[0] >= res.roi[2] or res.roi[1] >= res.roi[3]:
        # Entirely outside the image: nothing to draw, but the truth may still want its boxes.
        if part_ids is not None:
            _boxes(res, uv, F[idx], parts, lines, width_px)
            for p in np.unique(parts):
                res.area[int(p)] = 1
                res.ids[int(p)] = part_ids.get(int(p), 0)
        return res

    track = part_ids is not None and idbuf is not None
    if track:
        if (hi - lo).max() > MAX_ROI:
            lo = np.maximum(lo, 0)
            hi = np.minimum(hi, (w, h))
        buf = np.zeros((int(hi[1] - lo[1]), int(hi[0] - lo[0])), np.uint8)
        off = (lo * ONE).astype(np.int32)
    colours = col.tolist()
    fill = cv2.fillConvexPoly
    aa = cv2.LINE_AA
    any_lines = bool(lines.any())
    line_list = lines.tolist() if any_lines else None
    occ = occluder and idbuf is not None
    for k, p in enumerate(pts):
        if any_lines and line_list[k]:
            a, b = (int(p[0, 0]), int(p[0, 1])), (int(p[1, 0]), int(p[1, 1]))
            cv2.line(frame, a, b, colours[k], int(width_px[k]), aa, SHIFT)
            if occ:
                cv2.line(idbuf, a, b, OCCLUDER_ID, int(width_px[k]), cv2.LINE_8, SHIFT)
            continue
        fill(frame, p, colours[k], aa, SHIFT)
        if occ:
            fill(idbuf, p, OCCLUDER_ID, cv2.LINE_8, SHIFT)
    if track:
        _fill_part_buffer(buf, off, mesh, pc, uv, lines, idx, width_px)

    if part_ids is not None:
        _boxes(res, uv, F[idx], parts, lines, width_px)
    if track:
        counts = np.bincount(buf.ravel(), minlength=8)
        lut = np.zeros(256, np.uint8)
        for p in np.unique(parts):
            res.area[int(p)] = int(counts[int(p) + 1])
            res.ids[int(p)] = part_ids.get(int(p), 0)
            lut[int(p) + 1] = part_ids.get(int(p), 0)
        # paste into the global id buffer (only the part inside the image)
        x1, y1 = max(int(lo[0]), 0), max(int(lo[1]), 0)
        x2, y2 = min(int(hi[0]), w), min(int(hi[1]), h)
        sub = buf[y1 - int(lo[1]):y2 - int(lo[1]), x1 - int(lo[0]):x2 - int(lo[0])]
        dst = idbuf[y1:y2, x1:x2]
        m = sub > 0
        dst[m] = lut[sub[m]]
    return res


def _fill_part_buffer(buf: np.ndarray, off: np.ndarray, mesh: Mesh, pc: np.ndarray, uv: np.ndarray,
                      lines: np.ndarray, idx: np.ndarray, width_px: np.ndarray) -> None:
    """Part codes (+1) of the object's silhouette, one convex hull per primitive, far to near."""
    q = np.round(uv * ONE).astype(np.int32) - off
    vp = mesh.vprim
    n = int(vp[-1]) + 1
    cuts = np.flatnonzero(np.diff(vp)) + 1
    starts = np.concatenate([[0], cuts]).tolist()
    ends = np.concatenate([cuts, [len(vp)]]).tolist()
    depth = np.bincount(vp, weights=pc[:, 2], minlength=n) / np.maximum(np.bincount(vp, minlength=n), 1)
    face_prim = vp[mesh.F[:, 0]]
    part_of = np.zeros(n, int)
    part_of[face_prim] = mesh.part
    is_line = np.zeros(n, bool)
    is_line[face_prim] = mesh.kind == LINE
    width_of = np.ones(n, int)
    width_of[vp[mesh.F[idx, 0]]] = width_px
    part_of = (part_of + 1).tolist()
    hull, fill = cv2.convexHull, cv2.fillConvexPoly
    for g in np.argsort(-depth, kind="stable").tolist():
        a, b = starts[g], ends[g]
        if is_line[g]:
            p0, p1 = q[a], q[a + 1]
            cv2.line(buf, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), part_of[g], int(width_of[g]),
                     cv2.LINE_8, SHIFT)
        elif b - a >= 3:
            fill(buf, hull(q[a:b]), part_of[g], cv2.LINE_8, SHIFT)


def _boxes(res: DrawResult, uv: np.ndarray, Fi: np.ndarray, parts: np.ndarray, lines: np.ndarray,
           width_px: np.ndarray) -> None:
    for p in np.unique(parts):
        sel = parts == p
        q = uv[Fi[sel]].reshape(-1, 2)
        pad = float(width_px[sel & lines].max()) / 2 if np.any(sel & lines) else 0.0
        res.boxes[int(p)] = np.array([q[:, 0].min() - pad, q[:, 1].min() - pad, q[:, 0].max() + pad,
                                      q[:, 1].max() + pad])


def draw_ground_polygon(frame: np.ndarray, cam: Camera, poly_yd: np.ndarray, colour, z: float = 0.0,
                        aa: bool = True) -> bool:
    """Fill a convex polygon lying on the ground (or at height z), clipped at the near plane."""
    from synth.camera import clip_near
    P = np.column_stack([poly_yd, np.full(len(poly_yd), z)])
    pc = clip_near(cam.to_camera(P))
    if len(pc) < 3:
        return False
    uv = cam.project_camera(pc)
    h, w = frame.shape[:2]
    if uv[:, 0].max() < -2 or uv[:, 1].max() < -2 or uv[:, 0].min() > w + 2 or uv[:, 1].min() > h + 2:
        return False
    cv2.fillConvexPoly(frame, np.round(uv * ONE).astype(np.int32), colour,
                       cv2.LINE_AA if aa else cv2.LINE_8, SHIFT)
    return True
