"""What stands around the ground: sky, a distant tree line, sideline boards and goal posts."""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from synth.camera import Camera, clip_near
from synth.look import Look
from synth.mesh import Mesh, MeshBuilder
from synth.raster import ONE, SHIFT

BOARD_HEIGHT_YD = 11 / 36          # boards are ~11 inches high
BOARD_THICK_YD = 0.06
BOARD_LEN_YD = 6.0
POST_HEIGHT_YD = 10 / 3            # 10 ft
GOAL_HALF_WIDTH_YD = 4.0           # goal posts 8 yards apart
BOARD, POST = 10, 11               # part codes (never in truth)

BOARD_STYLES = (  # (face BGR, top BGR)
    ((232, 235, 236), (240, 242, 243)),      # painted white
    ((232, 235, 236), (240, 242, 243)),      # painted white
    ((110, 160, 200), (125, 175, 215)),      # natural wood
)


def _clip_half_plane(poly: np.ndarray, a: float, b: float, c: float) -> np.ndarray:
    """Keep the part of a convex polygon where a u + b v + c >= 0."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = a * p[0] + b * p[1] + c, a * q[0] + b * q[1] + c
        if fp >= 0:
            out.append(p)
        if (fp >= 0) != (fq >= 0):
            out.append(p + (q - p) * (fp / (fp - fq)))
    return np.array(out) if out else np.zeros((0, 2))


def draw_sky(frame: np.ndarray, cam: Camera, look: Look, bands: int = 24) -> None:
    """Paint everything above the horizon (and 1.5 px below it) with a sky gradient, band by band."""
    h, w = frame.shape[:2]
    line, ground_sign = cam.horizon()
    a, b, c = line * -ground_sign            # now a u + b v + c > 0 above the horizon
    norm = float(np.hypot(a, b))
    if norm < 1e-12:
        return
    c += 1.5 * norm
    corners = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
    sky = _clip_half_plane(corners, a, b, c)
    if len(sky) < 3:
        return
    top_sky = np.array([215, 170, 120], float) * look.exposure
    low_sky = np.array([235, 215, 195], float) * look.exposure
    v0, v1 = float(sky[:, 1].min()), float(sky[:, 1].max())
    edges = np.linspace(v0, v1 + 1, bands + 1)
    for k in range(bands):
        band = _clip_half_plane(_clip_half_plane(sky, 0, 1, -edges[k]), 0, -1, edges[k + 1])
        if len(band) < 3:
            continue
        s = (k + 0.5) / bands
        col = np.clip(top_sky * (1 - s) + low_sky * s, 0, 255).tolist()
        cv2.fillConvexPoly(frame, np.round(band * ONE).astype(np.int32), col, cv2.LINE_8, SHIFT)


@lru_cache(maxsize=32)
def tree_line(length: float, width: float, seed: int) -> "TreeLine":
    """A cached TreeLine (one of 16 per field size)."""
    return TreeLine(length, width, seed % 16)


class TreeLine:
    """A ring of trees well beyond the field: a dark understorey strip topped by round crowns."""

    def __init__(self, length: float, width: float, seed: int) -> None:
        rng = np.random.default_rng([seed, 313])
        x0, x1 = -110.0 - rng.uniform(0, 40), length + 110.0 + rng.uniform(0, 40)
        y0, y1 = -70.0 - rng.uniform(0, 40), width + 70.0 + rng.uniform(0, 40)
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]])
        pts = []
        for a, b in zip(corners[:-1], corners[1:]):
            n = int(np.ceil(np.linalg.norm(b - a) / 3.0))
            for s in np.arange(n) / n:
                pts.append(a + s * (b - a))
        pts.append(corners[0])
        self.base = np.array(pts)
        m = len(pts)
        smooth = cv2.resize(rng.random((1, m // 12 + 2)).astype(np.float32), (m, 1),
                            interpolation=cv2.INTER_CUBIC)[0]
        self.height = np.clip(7.0 + 7.0 * smooth + rng.uniform(-1.0, 1.0, m), 4.0, 16.0)
        # gaps in the tree line now and then
        gaps = cv2.resize((rng.random((1, m // 20 + 2)) < 0.15).astype(np.float32), (m, 1),
                          interpolation=cv2.INTER_NEAREST)[0] > 0.5
        self.height[gaps] *= 0.35
        self.radius = np.clip(self.height * rng.uniform(0.14, 0.24, m), 1.0, 3.5)
        self.jitter = rng.uniform(-0.35, 0.35, (m, 2))
        self.shade = rng.uniform(0.7, 1.2, m)
        self.hue = rng.uniform(-0.12, 0.12, m)

    def draw(self, frame: np.ndarray, cam: Camera, look: Look) -> None:
        green = np.array([34, 66, 44], float) * look.exposure
        haze = np.array([170, 180, 175], float) * look.exposure
        h, w = frame.shape[:2]
        m = len(self.base)
        under = self.height * 0.55
        bottom = cam.to_camera(np.column_stack([self.base, np.zeros(m)]))
        top = cam.to_camera(np.column_stack([self.base, under]))
        # two crowns per base point: one at the top, one lower and to the side
        ring_dir = np.gradient(self.base, axis=0)
        ring_dir /= np.maximum(np.linalg.norm(ring_dir, axis=1, keepdims=True), 1e-9)
        side = self.base + ring_dir * (self.radius * self.jitter[:, 0] * 3)[:, None]
        crowns3 = np.concatenate([np.column_stack([self.base, self.height - self.radius]),
                                  np.column_stack([side, under + self.radius * (0.4 + self.jitter[:, 1])])])
        crowns = cam.to_camera(crowns3)
        quads = np.stack([bottom[:-1], bottom[1:], top[1:], top[:-1]], 1)          # (m-1, 4, 3)
        zmin, zmax = quads[..., 2].min(1), quads[..., 2].max(1)
        f, c = cam.focal_px, cam.K[:2, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = quads[..., :2] / quads[..., 2:3] * f + c
            cuv = crowns[:, :2] / crowns[:, 2:3] * f + c
        inview = (zmin >= 1.0) & (uv[..., 0].max(1) >= 0) & (uv[..., 0].min(1) <= w) & \
                 (uv[..., 1].max(1) >= -200) & (uv[..., 1].min(1) <= h)
        straddle = (zmin < 1.0) & (zmax >= 1.0)
        k = np.clip(crowns[:, 2] / 1600.0, 0, 0.45)[:, None]
        shade2 = np.concatenate([self.shade, self.shade[::-1] * 0.85])
        hue2 = np.concatenate([self.hue, -self.hue])
        base_col = green * shade2[:, None] * np.column_stack([1 - hue2, np.ones(2 * m), 1 + hue2])
        cols = (base_col * (1 - k) + haze * k).clip(0, 255)
        dark = (cols[:m] * 0.7).tolist()
        fill = np.flatnonzero(inview | straddle)
        if len(fill):
            # consecutive quads in front of the camera form one band: draw it as one polygon
            runs = np.split(fill, np.flatnonzero((np.diff(fill) > 1) | straddle[fill][1:]) + 1)
            for run in runs:
                if straddle[run].any():
                    for i in run:
                        q = clip_near(quads[i], 1.0)
                        if len(q) >= 3:
                            cv2.fillConvexPoly(frame, np.round(cam.project_camera(q) * ONE).astype(np.int32),
                                               dark[i], cv2.LINE_AA, SHIFT)
                    continue
                poly = np.concatenate([uv[run, 0], uv[run[-1:], 1], uv[run[::-1], 2], uv[run[:1], 3]])
                c = np.mean([dark[i] for i in run], axis=0).tolist()
                cv2.fillPoly(frame, [np.round(poly * ONE).astype(np.int32)], c, cv2.LINE_AA, SHIFT)
        r_px = np.concatenate([self.radius, self.radius * 0.8]) * f / np.maximum(crowns[:, 2], 1e-6)
        ok = (crowns[:, 2] > 1.0) & (cuv[:, 0] + r_px >= 0) & (cuv[:, 0] - r_px <= w) & \
             (cuv[:, 1] + r_px >= 0) & (cuv[:, 1] - r_px <= h)
        order = np.flatnonzero(ok)[np.argsort(-crowns[ok, 2])]
        colours = cols.tolist()
        for i in order:
            cx, cy, r = int(cuv[i, 0] * ONE), int(cuv[i, 1] * ONE), int(r_px[i] * ONE)
            cv2.ellipse(frame, (cx, cy), (r, int(r * 1.1)), 0, 0, 360, colours[i], -1, cv2.LINE_AA, SHIFT)


def board_meshes(length: float, width: float, look: Look) -> list[Mesh]:
    """One small box per board section along both sidelines (cached; treat as read-only)."""
    return _board_meshes(float(length), float(width), int(look.board_style) % len(BOARD_STYLES), look.seed % 4)


@lru_cache(maxsize=32)
def _board_meshes(length: float, width: float, style: int, seed: int) -> list[Mesh]:
    face, top = BOARD_STYLES[style]
    rng = np.random.default_rng([seed, 977])
    out = []
    n = int(np.ceil(length / BOARD_LEN_YD))
    for side, y in (("west", -BOARD_THICK_YD / 2), ("east", width + BOARD_THICK_YD / 2)):
        for i in range(n):
            x_a, x_b = i * BOARD_LEN_YD, min(length, (i + 1) * BOARD_LEN_YD)
            b = MeshBuilder()
            k = rng.uniform(0.93, 1.05)
            b.box(((x_a + x_b) / 2, y, BOARD_HEIGHT_YD / 2),
                  ((x_b - x_a) / 2 - 0.02, BOARD_THICK_YD / 2, BOARD_HEIGHT_YD / 2),
                  np.array(face, float) * k, BOARD)
            m = b.build()
            # the top face catches the light
            top_faces = m.V[m.F].mean(1)[:, 2] > BOARD_HEIGHT_YD * 0.99
            m.colour[top_faces] = top
            m.colour *= 0.86
            m.shade[:] = 0.0                # painted boards: shaded by a fixed amount, not the sun
            out.append(m)
    return out


def goal_post_meshes(length: float, width: float, colours: list[tuple]) -> list[Mesh]:
    """Four padded goal posts, banded in white and the defending team's colour (cached)."""
    return _goal_posts(float(length), float(width), tuple(tuple(int(v) for v in c) for c in colours))


@lru_cache(maxsize=64)
def _goal_posts(length: float, width: float, colours: tuple) -> list[Mesh]:
    out = []
    for x, ca in ((0.0, colours[0]), (length, colours[1])):
        for y in (width / 2 - GOAL_HALF_WIDTH_YD, width / 2 + GOAL_HALF_WIDTH_YD):
            b = MeshBuilder()
            bands = 6
            for k in range(bands):
                z0, z1 = POST_HEIGHT_YD * k / bands, POST_HEIGHT_YD * (k + 1) / bands
                c = ca if k % 2 == 0 else (235, 235, 235)
                b.tube((x, y, z0), (x, y, z1), 0.14, 0.12, c, POST, 8)
            b.ellipsoid((x, y, POST_HEIGHT_YD), (0.12, 0.12, 0.05), (235, 235, 235), POST, 2)
            out.append(b.build())
    return out
