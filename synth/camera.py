"""Pinhole camera in field yards: intrinsics K, rotation R, centre C; projection and homography.

World frame = field frame (docs/formats.md): x north along the length, y east across the
width, z up, all in yards. That frame is left-handed (north x east = down), so the
world-to-camera rotation R built here has determinant -1; projection is unaffected.
Camera axes: x right, y down, z forward (OpenCV). Pixel (u, v) = column, row, with integer
values at pixel centres; the principal point is the image centre (w / 2, h / 2).

Angles: ``pan_deg`` is the compass of the viewing direction on the ground, measured from +x
(north, 0) towards +y (east, 90); ``tilt_deg`` is how far the camera looks below the
horizontal; ``roll_deg`` turns the image clockwise.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

NEAR_YD = 0.5   # near clipping distance


def rotation_from_pan_tilt(pan_deg: float, tilt_deg: float, roll_deg: float = 0.0) -> np.ndarray:
    """World-to-camera rotation rows [right, down, forward] for the given angles."""
    p, t, r = math.radians(pan_deg), math.radians(tilt_deg), math.radians(roll_deg)
    fwd = np.array([math.cos(t) * math.cos(p), math.cos(t) * math.sin(p), -math.sin(t)])
    right = np.array([-math.sin(p), math.cos(p), 0.0])     # up x forward, normalised
    down = np.cross(right, fwd)
    if roll_deg:
        c, s = math.cos(r), math.sin(r)
        right, down = c * right + s * down, -s * right + c * down
    return np.stack([right, down, fwd])


def pan_tilt_towards(position: np.ndarray, target: np.ndarray) -> tuple[float, float]:
    """Pan and tilt (degrees) that aim a camera at `position` on the 3-D `target`."""
    d = np.asarray(target, float) - np.asarray(position, float)
    pan = math.degrees(math.atan2(d[1], d[0]))
    tilt = math.degrees(math.atan2(-d[2], math.hypot(d[0], d[1])))
    return pan, tilt


@dataclass(frozen=True)
class Camera:
    """A pinhole camera: ``K`` (3x3), ``R`` (3x3 world->camera), ``C`` (3,) centre, image size."""

    K: np.ndarray
    R: np.ndarray
    C: np.ndarray
    image_size: tuple[int, int]

    @classmethod
    def from_pose(cls, position, pan_deg: float, tilt_deg: float, focal_px: float,
                  image_size: tuple[int, int], roll_deg: float = 0.0) -> "Camera":
        w, h = image_size
        K = np.array([[focal_px, 0.0, w / 2.0], [0.0, focal_px, h / 2.0], [0.0, 0.0, 1.0]])
        return cls(K, rotation_from_pan_tilt(pan_deg, tilt_deg, roll_deg), np.asarray(position, float),
                   (int(w), int(h)))

    @property
    def t(self) -> np.ndarray:
        """Translation of the extrinsics [R | t], t = -R C."""
        return -self.R @ self.C

    @property
    def focal_px(self) -> float:
        return float(self.K[0, 0])

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        """(N, 3) world points -> (N, 3) camera coordinates (z = depth along the view axis)."""
        return (np.asarray(pts, float) - self.C) @ self.R.T

    def project_camera(self, pc: np.ndarray) -> np.ndarray:
        """(N, 3) camera coordinates -> (N, 2) pixels (depth must be positive)."""
        z = pc[:, 2:3]
        return (pc[:, :2] / z) * self.K[0, 0] + self.K[:2, 2]

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) world points -> ((N, 2) pixels, (N,) depths). Points behind have depth <= 0."""
        pc = self.to_camera(pts)
        z = pc[:, 2]
        safe = np.where(z > 1e-9, z, 1e-9)
        uv = pc[:, :2] / safe[:, None] * self.K[0, 0] + self.K[:2, 2]
        return uv, z

    def homography(self) -> np.ndarray:
        """H mapping homogeneous ground points (x, y, 1) in yards to pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2] if abs(H[2, 2]) > 1e-12 else H

    def image_to_ground(self, px: np.ndarray) -> np.ndarray:
        """(N, 2) pixels -> (N, 2) ground points in yards (NaN above the horizon)."""
        px = np.atleast_2d(np.asarray(px, float))
        rays = np.column_stack([(px - self.K[:2, 2]) / self.K[0, 0], np.ones(len(px))]) @ self.R
        with np.errstate(divide="ignore", invalid="ignore"):
            s = -self.C[2] / rays[:, 2]
        out = self.C[:2] + s[:, None] * rays[:, :2]
        out[~(s > 0)] = np.nan
        return out

    def horizon(self) -> tuple[np.ndarray, float]:
        """The horizon line (a, b, c) with a u + b v + c = 0, and the sign of a u + b v + c on the ground."""
        # Ground points at infinity are directions (dx, dy, 0); their images satisfy n . K^-1 p = 0
        # with n the camera-frame image of the world up axis.
        n = self.R[:, 2]
        line = np.linalg.inv(self.K).T @ n
        return line, -1.0   # points below the horizon look down: up-axis component negative

    def to_dict(self) -> dict:
        return {"K": _round(self.K, 4), "R": _round(self.R, 6), "t": _round(self.t, 4),
                "position": _round(self.C, 4)}


def _round(a: np.ndarray, nd: int) -> list:
    return np.round(np.asarray(a, float), nd).tolist()


def clip_near(pc: np.ndarray, near: float = NEAR_YD) -> np.ndarray:
    """Clip a convex polygon (M, 3) in camera coordinates against the plane z = near."""
    z = pc[:, 2]
    if np.all(z >= near):
        return pc
    if np.all(z < near):
        return pc[:0]
    out = []
    n = len(pc)
    for i in range(n):
        a, b = pc[i], pc[(i + 1) % n]
        ina, inb = a[2] >= near, b[2] >= near
        if ina:
            out.append(a)
        if ina != inb:
            s = (near - a[2]) / (b[2] - a[2])
            out.append(a + s * (b - a))
    return np.array(out) if out else pc[:0]
