"""Small helpers to write scenario documents in Python: tracks, line-ups, throws and hits."""
from __future__ import annotations

import math
from typing import Any

from synth.lineup import lineup_spots
from synth.scenario import BALL_RADIUS_YD

HAND_HEIGHT_YD = 1.9


class Track:
    """Keyframes of one object, built in time order."""

    def __init__(self, oid: str, role: str, **extra: Any) -> None:
        self.id, self.role, self.extra = oid, role, extra
        self.keys: list[dict] = []

    @property
    def last(self) -> dict:
        return self.keys[-1]

    def at(self, t: float, x: float, y: float, heading: float | None = None, z: float | None = None) -> "Track":
        k = {"t": round(t, 3), "x": round(x, 3), "y": round(y, 3)}
        if z is not None:
            k["z"] = round(z, 3)
        if heading is not None:
            k["heading_deg"] = round(heading, 1)
        self.keys.append(k)
        return self

    def hold(self, t: float, heading: float | None = None) -> "Track":
        """Stay where the last keyframe left off until `t`."""
        k = self.last
        return self.at(t, k["x"], k["y"], heading if heading is not None else k.get("heading_deg"), k.get("z"))

    def to(self, t: float, x: float, y: float, heading: float | None = None) -> "Track":
        return self.at(t, x, y, heading)

    def position(self, t: float) -> tuple[float, float]:
        """Linear interpolation of the keyframes so far."""
        ks = self.keys
        if t <= ks[0]["t"]:
            return ks[0]["x"], ks[0]["y"]
        for a, b in zip(ks, ks[1:]):
            if a["t"] <= t <= b["t"]:
                s = (t - a["t"]) / (b["t"] - a["t"]) if b["t"] > a["t"] else 1.0
                return a["x"] + s * (b["x"] - a["x"]), a["y"] + s * (b["y"] - a["y"])
        return ks[-1]["x"], ks[-1]["y"]

    def to_dict(self) -> dict:
        d = {"id": self.id, "role": self.role, **self.extra, "track": self.keys}
        return d


def umpire_hand(x: float, y: float, heading: float) -> tuple[float, float]:
    """Ground position of a mounted umpire's right hand."""
    h = math.radians(heading)
    f = (math.cos(h), math.sin(h))
    r = (-math.sin(h), math.cos(h))
    return x + 0.32 * f[0] + 0.11 * r[0], y + 0.32 * f[1] + 0.11 * r[1]


def throw(ball: Track, t: float, frm: tuple[float, float], direction: float, land_yd: float = 7.0,
          roll_yd: float = 4.0, x_drift: float = 0.0) -> tuple[float, float]:
    """Underhand and hard, along the centre line (y direction), onto the ground between the ranks.

    Returns where the ball comes to rest (at t + 0.75 s).
    """
    x, y = frm
    ball.at(t, x, y, z=HAND_HEIGHT_YD)
    ball.at(t + 0.15, x + 0.3 * x_drift, y + direction * land_yd * 0.45, z=1.1)
    ball.at(t + 0.32, x + 0.6 * x_drift, y + direction * land_yd, z=BALL_RADIUS_YD)
    ball.at(t + 0.5, x + 0.8 * x_drift, y + direction * (land_yd + roll_yd * 0.55), z=0.25)
    end = (x + x_drift, y + direction * (land_yd + roll_yd))
    ball.at(t + 0.75, end[0], end[1], z=BALL_RADIUS_YD)
    return end


def hit(ball: Track, t: float, frm: tuple[float, float], to: tuple[float, float], duration: float,
        loft: float = 0.6) -> None:
    """A hit from `frm` to `to`, slowing down as it rolls; a small first bounce of height `loft`."""
    steps = (0.0, 0.15, 0.3, 0.5, 0.7, 0.85, 1.0)
    for s in steps:
        e = 1 - (1 - s) ** 2
        z = BALL_RADIUS_YD + (loft * math.sin(math.pi * min(s / 0.3, 1.0)) if s < 0.3 else 0.0)
        ball.at(t + s * duration, frm[0] + e * (to[0] - frm[0]), frm[1] + e * (to[1] - frm[1]), z=z)


def standard_lineup(defending: dict[str, str], umpire_y: float, side: int = 1, centre_x: float = 150.0,
                    gap: float = 1.25, start: float = 6.0, rng=None, jitter_yd: float = 0.0) -> dict[str, Track]:
    """Tracks for all eight players standing in the line-up from t = 0 (each spot moved by up to
    a few `jitter_yd` with `rng`: synth.lineup.lineup_spots)."""
    out = {}
    for s in lineup_spots(defending, centre_x, umpire_y, side, start_yd=start, gap_yd=gap, rng=rng, jitter_yd=jitter_yd):
        out[s.id] = Track(s.id, "player").at(0.0, s.x, s.y, s.heading_deg)
    return out


def scenario_doc(name: str, description: str, duration: float, camera: dict, tracks: list[Track],
                 throw_in: float | None, plays: list[tuple[float, str]] = (), seed: int = 0,
                 teams: dict | None = None, defending: dict | None = None, look: dict | None = None,
                 thrower: str | None = None) -> dict:
    doc: dict[str, Any] = {
        "name": name, "description": description, "fps": 25, "duration_s": duration,
        "image_size": [1280, 720], "seed": seed,
        "field": {"length_yd": 300, "width_yd": 160},
        "camera": camera,
        "teams": teams or {"red": {"jersey": "red"}, "blue": {"jersey": "blue"}},
        "defending": defending or {"red": "south", "blue": "north"},
        "phases": {"lineup": 0.0, **({"throw_in": throw_in} if throw_in is not None else {})},
        "objects": [t.to_dict() for t in tracks],
    }
    if plays:
        doc["plays"] = [{"t": round(t, 3), "player": p} for t, p in plays]
    if look:
        doc["look"] = look
    if thrower:
        doc["thrower"] = thrower
    return doc
