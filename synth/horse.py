"""A polo pony as 3-D primitives, in its own frame: a forward, b to its right, c up (yards).

The origin is the ground point under the barrel centre: the unit's field position. A pony
is ~2.35 yd nose to tail, ~0.65 yd wide and 1.7 yd at the withers; its mane is hogged and
its tail tied up, as on a polo field; lower legs wear bandages. Legs follow a gait cycle
(walk, trot, canter, gallop by speed); the static body is built once and cached.
"""
from __future__ import annotations

import math

import numpy as np

from synth.mesh import Mesh, MeshBuilder, slot

HORSE, RIDER, MALLET = 0, 1, 2          # part codes within a unit
HOOF_BGR = (28, 30, 34)

# legs: name, joint (a, b, c), is_front
LEGS = (("LF", (0.50, -0.15, 1.08), True), ("RF", (0.50, 0.15, 1.08), True),
        ("LH", (-0.55, -0.16, 1.12), False), ("RH", (-0.55, 0.16, 1.12), False))
GAIT_OFFSETS = {  # phase offset per leg LF, RF, LH, RH
    "stand": (0.0, 0.0, 0.0, 0.0),
    "walk": (0.25, 0.75, 0.0, 0.5),
    "trot": (0.0, 0.5, 0.5, 0.0),
    "canter": (0.3, 0.6, 0.0, 0.3),
    "gallop": (0.45, 0.55, 0.0, 0.1),
}


def gait_name(speed: float) -> str:
    if speed < 0.4:
        return "stand"
    if speed < 2.2:
        return "walk"
    if speed < 4.5:
        return "trot"
    if speed < 9.0:
        return "canter"
    return "gallop"


def _rot_b(angle: float) -> np.ndarray:
    """Rotation in the a-c plane (pitch), positive tips the +a axis down."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _frame_along(d: np.ndarray) -> np.ndarray:
    """Rotation whose first axis is the unit vector d (second axis kept horizontal)."""
    d = d / np.linalg.norm(d)
    side = np.cross([0.0, 0.0, 1.0], d)
    side = side / (np.linalg.norm(side) or 1.0)
    up = np.cross(d, side)
    return np.column_stack([d, side, up])


COAT, PAD, JERSEY, HELMET, BANDAGE = range(5)      # palette slots (see mesh.slot)


def horse_body(lod: int = 1) -> Mesh:
    """Barrel, chest, quarters, neck, head, ears, tail, saddle and pad (no legs); colours are slots."""
    b = MeshBuilder()
    coat, dark, pad_bgr = slot(COAT), slot(COAT, 0.75), slot(PAD)
    b.ellipsoid((0.0, 0.0, 1.27), (0.66, 0.29, 0.30), coat, HORSE, lod)
    b.ellipsoid((0.50, 0.0, 1.34), (0.32, 0.27, 0.33), coat, HORSE, lod)
    b.ellipsoid((-0.50, 0.0, 1.36), (0.34, 0.30, 0.32), coat, HORSE, lod)
    b.ellipsoid((0.42, 0.0, 1.56), (0.24, 0.12, 0.13), coat, HORSE, max(lod, 1), shadow=False)
    b.tube((0.62, 0.0, 1.48), (0.97, 0.0, 1.98), 0.20, 0.11, coat, HORSE, sides=8 if lod == 0 else 6)
    poll, muzzle = np.array([1.00, 0.0, 2.00]), np.array([1.30, 0.0, 1.62])
    b.ellipsoid((poll + muzzle) / 2, (0.27, 0.095, 0.12), coat, HORSE, max(lod, 1),
                rot=_frame_along(muzzle - poll))
    b.ellipsoid(muzzle, (0.07, 0.07, 0.07), dark, HORSE, 2, shadow=False)
    if lod < 2:
        for s in (-1, 1):
            b.tube((0.98, 0.045 * s, 2.04), (0.96, 0.06 * s, 2.15), 0.03, 0.008, dark, HORSE, sides=4, shadow=False)
    b.tube((-0.80, 0.0, 1.50), (-0.93, 0.0, 1.20), 0.075, 0.045, slot(COAT, 0.6), HORSE, sides=5)
    b.ellipsoid((0.05, 0.0, 1.55), (0.30, 0.31, 0.05), pad_bgr, HORSE, max(lod, 1), shadow=False)
    b.ellipsoid((0.08, 0.0, 1.59), (0.22, 0.24, 0.05), (25, 35, 50), HORSE, 2, shadow=False)
    return b.build()


def horse_legs(gait: float, speed: float, lod: int = 1) -> Mesh:
    """Four legs posed for a point `gait` (stride cycles) in the cycle of the gait for `speed`."""
    b = MeshBuilder()
    coat = slot(COAT)
    name = gait_name(speed)
    offs = GAIT_OFFSETS[name]
    amp = min(0.12 + 0.035 * speed, 0.55) if name != "stand" else 0.0
    duty = max(0.6 - 0.025 * speed, 0.3)
    bend_max = min(0.6 + 0.07 * speed, 1.5)
    sides = 6 if lod == 0 else 4
    P0, P1, R0, R1, C = [], [], [], [], []
    bandage = slot(BANDAGE)
    hoof_c = np.asarray(HOOF_BGR, float)
    for (leg, joint, front), off in zip(LEGS, offs):
        p = (gait + off) % 1.0
        if name == "stand":
            th, bend = (0.0 if front else 0.06), 0.0
        elif p < duty:
            th, bend = amp * (1 - 2 * p / duty), 0.0
        else:
            s = (p - duty) / (1 - duty)
            th = -amp + 2 * amp * s * s * (3 - 2 * s)
            bend = bend_max * math.sin(math.pi * s)
        j = np.array(joint)
        if front:
            l1, l2 = 0.50, 0.44
            d1 = np.array([math.sin(th), 0.0, -math.cos(th)])
            t2 = th - bend
        else:
            l1, l2 = 0.55, 0.42
            d1 = np.array([math.sin(th - 0.28), 0.0, -math.cos(th - 0.28)])
            t2 = th + 0.1 + 0.5 * bend
        knee = j + l1 * d1
        fet = knee + l2 * np.array([math.sin(t2), 0.0, -math.cos(t2)])
        hoof = fet + 0.11 * np.array([math.sin(t2 + 0.35), 0.0, -math.cos(t2 + 0.35)])
        P0 += [j, knee, fet]
        P1 += [knee, fet, hoof]
        R0 += [0.095 if front else 0.11, 0.05, 0.045]
        R1 += [0.055, 0.045, 0.055]
        C += [coat, bandage, hoof_c]
    b.tubes(np.array(P0), np.array(P1), np.array(R0), np.array(R1), np.array(C), HORSE, sides)
    return b.build()


def body_bob(gait: float, speed: float) -> float:
    """Vertical bob of the body (yards) in the stride."""
    if speed < 2.2:
        return 0.0
    return 0.035 * min(1.0, speed / 8.0) * math.sin(2 * math.pi * gait)
