"""The person on the pony, in the pony's frame (a forward, b right, c up, yards).

Players: team jersey, white breeches, brown boots and knee guards, helmet, a mallet in the
right hand. Umpires: black-and-white striped shirt, black helmet, no mallet.
"""
from __future__ import annotations

import math

import numpy as np

from synth.horse import HELMET, JERSEY, MALLET, RIDER, _rot_b
from synth.mesh import Mesh, MeshBuilder, slot

SKIN_BGR = (150, 175, 215)
BREECHES_BGR = (232, 234, 236)
BOOT_BGR = (30, 50, 85)
GLOVE_BGR = (215, 220, 225)
MALLET_SHAFT_BGR = (110, 160, 190)
MALLET_HEAD_BGR = (150, 190, 215)

SHAFT_YD = 1.40
NUMBER_ANCHORS = (((-0.115, 0.0, 2.02), (-1.0, 0.0, 0.0)),     # jersey back: point, outward normal
                  ((0.145, 0.0, 2.02), (1.0, 0.0, 0.0)))       # jersey front
RIGHT_HAND = np.array([0.32, 0.11, 1.90])


def rider_mesh(umpire: bool, lean: float = 0.0, lod: int = 1) -> Mesh:
    """Body of a rider (no mallet); jersey and helmet colours are slots. `lean` (radians) tips the
    upper body forward."""
    b = MeshBuilder()
    jersey, helmet_bgr = slot(JERSEY), slot(HELMET)
    pivot = np.array([0.02, 0.0, 1.70])
    R = _rot_b(lean)

    def up(p):               # points of the upper body lean about the seat
        return pivot + R @ (np.asarray(p, float) - pivot)

    b.ellipsoid((0.02, 0.0, 1.71), (0.14, 0.17, 0.10), BREECHES_BGR, RIDER, max(lod, 1), shadow=False)
    stripes = ((235, 235, 235), (25, 25, 25)) if umpire else None
    b.ellipsoid(up((0.03, 0.0, 1.98)), (0.12, 0.175, 0.27), jersey, RIDER, lod, rot=R, stripes=stripes)
    b.tube(up((0.05, 0.0, 2.20)), up((0.06, 0.0, 2.30)), 0.05, 0.05, SKIN_BGR, RIDER, 4, shadow=False)
    b.ellipsoid(up((0.07, 0.0, 2.36)), (0.095, 0.085, 0.11), SKIN_BGR, RIDER, 2, shadow=False)
    b.ellipsoid(up((0.055, 0.0, 2.42)), (0.125, 0.11, 0.085), helmet_bgr, RIDER, max(lod, 1))
    b.ellipsoid(up((0.16, 0.0, 2.385)), (0.06, 0.09, 0.015), helmet_bgr, RIDER, 2, shadow=False)  # peak
    sleeve = (30, 30, 30) if umpire else jersey
    for s in (-1, 1):
        sh, el = up((0.03, 0.19 * s, 2.16)), up((0.13, 0.22 * s, 1.95))
        hand = RIGHT_HAND * (1, s, 1) if s > 0 else np.array([0.34, -0.09, 1.88])
        b.tube(sh, el, 0.055, 0.045, sleeve, RIDER, 4)
        b.tube(el, hand, 0.042, 0.035, GLOVE_BGR if not umpire else SKIN_BGR, RIDER, 4)
        hip, knee = (0.05, 0.13 * s, 1.72), (0.27, 0.31 * s, 1.50)
        ankle, toe = (0.15, 0.32 * s, 1.10), (0.27, 0.32 * s, 1.07)
        b.tube(hip, knee, 0.08, 0.065, BREECHES_BGR, RIDER, 5 if lod == 0 else 4)
        b.tube(knee, ankle, 0.06, 0.048, BOOT_BGR, RIDER, 5 if lod == 0 else 4)
        b.tube(ankle, toe, 0.04, 0.035, BOOT_BGR, RIDER, 4, shadow=False)
        if not umpire and lod < 2:
            b.ellipsoid(np.array(knee) + (0.04, 0.02 * s, 0.0), (0.06, 0.04, 0.09), (40, 70, 110), RIDER, 2,
                        shadow=False)
    return b.build()


def mallet_mesh(angle: float, lean: float = 0.0, swing_side: float = 0.25) -> Mesh:
    """The mallet in the right hand. `angle` 0 = held upright, pi/2 = forward, ~2.6 = head near the ground."""
    b = MeshBuilder()
    pivot = np.array([0.02, 0.0, 1.70])
    hand = pivot + _rot_b(lean) @ (RIGHT_HAND - pivot)
    d = np.array([math.sin(angle), swing_side * math.sin(angle / 2) + 0.05, math.cos(angle)])
    d /= np.linalg.norm(d)
    tip = hand + SHAFT_YD * d
    b.line(hand - 0.08 * d, tip, 0.018, MALLET_SHAFT_BGR, MALLET)
    head_dir = np.array([1.0, 0.0, 0.0]) - d * d[0]
    n = np.linalg.norm(head_dir)
    head_dir = head_dir / n if n > 1e-6 else np.array([0.0, 1.0, 0.0])
    b.tube(tip - 0.13 * head_dir, tip + 0.13 * head_dir, 0.03, 0.03, MALLET_HEAD_BGR, MALLET, 4, shadow=False)
    return b.build()


def mallet_angle(t: float, play_times: list[float], moving: bool) -> float:
    """Mallet pose over time: upright when standing, carried forward-down when riding, a full
    swing (up, then down through the ball) around each play."""
    for tp in play_times:
        dt = t - tp
        if -0.5 <= dt <= 0.35:
            if dt < -0.15:
                return 0.2 - 0.6 * (dt + 0.5) / 0.35            # wind up behind
            s = (dt + 0.15) / 0.5
            return -0.4 + 3.1 * min(1.0, s * 1.3)             # swing down through the ball
    return 1.2 if moving else 0.25
