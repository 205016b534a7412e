"""The moving things of a scenario at one frame: mounted players and umpires, and the ball.

A unit is a pony and its rider (and mallet) as one world-space mesh with part codes HORSE,
RIDER and MALLET. Static pieces (pony body, rider) are built once per level of detail and
cached; legs and mallet are posed every frame.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from synth.colours import COAT_BGR, JERSEY_BGR
from synth.horse import body_bob, gait_name, horse_body, horse_legs
from synth.look import Look
from synth.mesh import Mesh, concat
from synth.motion import MOVING_YD_S, Motion, sample_motion
from synth.rider import NUMBER_ANCHORS, mallet_angle, mallet_mesh, rider_mesh
from synth.scenario import ObjectSpec, Scenario

UMPIRE_SHIRT = "umpire"
HELMET_CHOICES = ((70, 35, 20), (235, 235, 235), (25, 25, 25), (120, 70, 30))
BANDAGE_CHOICES = ((235, 235, 235), (25, 25, 25))


@dataclass
class Unit:
    """One mounted player or umpire at one frame."""

    obj: ObjectSpec
    mesh: Mesh                         # world coordinates
    x: float
    y: float
    heading_deg: float
    speed: float
    numbers: list[tuple[np.ndarray, np.ndarray]]   # (world point, outward normal) where numbers are printed


def lod_for(height_px: float) -> int:
    """Level of detail from the unit's height on screen."""
    return 0 if height_px > 140 else (1 if height_px > 45 else 2)


class SceneModel:
    """Per-scenario state: sampled motion of every object, kit colours, mesh caches."""

    def __init__(self, scenario: Scenario, look: Look) -> None:
        self.scenario = scenario
        self.look = look
        times = scenario.times()
        self.motion: dict[str, Motion] = {}
        self.plays: dict[str, list[float]] = {}
        for t, pid in scenario.plays:
            self.plays.setdefault(pid, []).append(t)
        rng = np.random.default_rng([scenario.seed, 4242])
        coats = list(COAT_BGR)
        self.coat: dict[str, tuple] = {}
        self.kit: dict[str, dict] = {}
        team_kit = {}
        for name, team in scenario.teams.items():
            helmet = team.helmet_bgr or HELMET_CHOICES[int(rng.integers(len(HELMET_CHOICES)))]
            bandage = team.jersey_bgr if rng.random() < 0.5 else BANDAGE_CHOICES[int(rng.integers(2))]
            pad = team.jersey_bgr if rng.random() < 0.6 else (235, 235, 235)
            lum = 0.114 * team.jersey_bgr[0] + 0.587 * team.jersey_bgr[1] + 0.299 * team.jersey_bgr[2]
            number = team.number_bgr or ((25, 25, 25) if lum > 150 else (240, 240, 240))
            team_kit[name] = {"jersey": team.jersey_bgr, "helmet": helmet, "bandage": bandage, "pad": pad,
                              "number": number}
        for obj in scenario.objects:
            default_heading = 90.0
            self.motion[obj.id] = sample_motion(obj, times, default_heading)
            if obj.role == "ball":
                continue
            self.coat[obj.id] = COAT_BGR[obj.coat] if obj.coat else COAT_BGR[coats[int(rng.integers(len(coats)))]]
            jitter = rng.uniform(0.85, 1.15)
            self.coat[obj.id] = tuple(float(c) * jitter for c in self.coat[obj.id])
            if obj.role == "umpire":
                self.kit[obj.id] = {"jersey": JERSEY_BGR["white"], "helmet": (20, 20, 20),
                                    "bandage": BANDAGE_CHOICES[int(rng.integers(2))], "pad": (30, 30, 30),
                                    "number": None}
            else:
                self.kit[obj.id] = team_kit[obj.team]
        self.palette = {oid: np.array([self.coat[oid], k["pad"], k["jersey"], k["helmet"], k["bandage"]], float)
                        for oid, k in self.kit.items()}

    def units(self, index: int, lod_of=None) -> list[Unit]:
        """All mounted units at frame `index`. `lod_of(x, y) -> int` picks detail (default 1)."""
        t = index / self.scenario.fps
        out = []
        for obj in self.scenario.objects:
            if obj.role == "ball":
                continue
            m = self.motion[obj.id]
            x, y = float(m.pos[index, 0]), float(m.pos[index, 1])
            hd, sp, gait = float(m.heading[index]), float(m.speed[index]), float(m.gait[index])
            lod = lod_of(x, y) if lod_of else 1
            umpire = obj.role == "umpire"
            lean = min(0.35, 0.03 * sp)
            lean_q = round(lean / 0.07) * 0.07
            body = _body(lod)
            rider = _rider(umpire, lean_q, lod)
            gname = gait_name(sp)
            if gname == "stand":
                legs = _legs(lod, 0, 0.0)
            else:                       # poses cached at 1/32 of a stride and 0.25 yd/s
                legs = _legs(lod, round((gait % 1.0) * 32) % 32, round(sp * 4) / 4)
            bob = body_bob(gait, sp)
            upper = [body, rider]
            if not umpire:
                ang = round(mallet_angle(t, self.plays.get(obj.id, []), sp > MOVING_YD_S) / 0.04) * 0.04
                upper.append(_mallet(ang, lean_q))
            local = concat([legs, *upper]).recoloured(self.palette[obj.id])
            if bob:                     # the body rises and falls in the stride; the hooves stay put
                local.V = local.V.copy()
                local.V[len(legs.V):, 2] += bob
                local.centre = local.centre.copy()
                local.centre[len(legs.F):, 2] += bob
            A = _frame(hd)
            mesh = local.transformed(A, np.array([x, y, 0.0]))
            numbers = []
            if not umpire:
                c, s = math.cos(lean_q), math.sin(lean_q)
                rot = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
                seat = np.array([0.02, 0.0, 1.70])
                for p, nrm in NUMBER_ANCHORS:
                    a = rot @ (np.array(p) - seat) + seat + (0.0, 0.0, bob)
                    numbers.append((A @ a + (x, y, 0.0), A @ (rot @ np.array(nrm))))
            out.append(Unit(obj, mesh, x, y, hd, sp, numbers))
        return out

    def ball(self, index: int) -> np.ndarray | None:
        for obj in self.scenario.objects:
            if obj.role == "ball":
                return self.motion[obj.id].pos[index]
        return None


# Shapes depend only on pose and detail, so they are shared by every object and scenario.
@lru_cache(maxsize=16)
def _body(lod: int) -> Mesh:
    return horse_body(lod)


@lru_cache(maxsize=64)
def _rider(umpire: bool, lean_q: float, lod: int) -> Mesh:
    return rider_mesh(umpire, lean_q, lod)


@lru_cache(maxsize=4096)
def _legs(lod: int, phase_32: int, speed_q: float) -> Mesh:
    return horse_legs(phase_32 / 32, speed_q, lod)


@lru_cache(maxsize=1024)
def _mallet(angle: float, lean_q: float) -> Mesh:
    return mallet_mesh(angle, lean_q)


def _frame(heading_deg: float) -> np.ndarray:
    """Columns: the pony's forward, right and up axes in the field frame."""
    h = math.radians(heading_deg)
    f = np.array([math.cos(h), math.sin(h), 0.0])
    r = np.array([-math.sin(h), math.cos(h), 0.0])
    return np.column_stack([f, r, [0.0, 0.0, 1.0]])
