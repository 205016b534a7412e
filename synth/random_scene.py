"""Random scenarios for training data: line-ups legal and illegal, and open play, under
random broadcast-like cameras (height 5-25 yd, 30-120 yd from the action, any focal length
that frames 18-90 yd, the action sometimes cut by the frame edge).

`random_scenario(seed)` returns (scenario document, frame index to render); the same seed
always gives the same document.
"""
from __future__ import annotations

import math

import numpy as np

from synth.colours import COAT_BGR, JERSEY_BGR
from synth.lineup import lineup_spots

RENDER_T = 1.0              # the frame rendered is at this time; tracks run from 0 to 2 s
FPS = 25
LINEUP_KINDS = ("clean", "clean", "clean", "five_yard", "contact", "wrong_side", "reversed", "slow",
                "missing", "near_boards")


def _team_colours(rng: np.random.Generator) -> tuple[str, str]:
    names = [n for n in JERSEY_BGR if n != "grey"]
    while True:
        a, b = rng.choice(names, 2, replace=False)
        ca, cb = np.array(JERSEY_BGR[a], float), np.array(JERSEY_BGR[b], float)
        if np.linalg.norm(ca - cb) > 90:
            return str(a), str(b)


def _moving(x: float, y: float, vx: float, vy: float, heading: float | None = None) -> list[dict]:
    """Keyframes at 0 and 2 s passing through (x, y) at RENDER_T with velocity (vx, vy)."""
    k0 = {"t": 0.0, "x": round(x - vx * RENDER_T, 3), "y": round(y - vy * RENDER_T, 3)}
    k1 = {"t": 2.0, "x": round(x + vx * RENDER_T, 3), "y": round(y + vy * RENDER_T, 3)}
    if heading is not None:
        k0["heading_deg"] = k1["heading_deg"] = round(heading, 1)
    return [k0, k1]


def random_scenario(seed: int, image_size: tuple[int, int] = (1280, 720)) -> tuple[dict, int]:
    rng = np.random.default_rng([seed, 60601])
    L, W = 300.0, 160.0
    c = L / 2
    ta, tb = _team_colours(rng)
    defending = {ta: "south", tb: "north"} if rng.random() < 0.5 else {ta: "north", tb: "south"}
    teams = {ta: {"jersey": ta}, tb: {"jersey": tb}}
    coats = list(COAT_BGR)
    objects: list[dict] = []
    lineup = rng.random() < 0.6

    if lineup:
        kind = LINEUP_KINDS[int(rng.integers(len(LINEUP_KINDS)))]
        yu = float(rng.uniform(10, 18) if kind == "near_boards" else rng.uniform(24, W - 24))
        side = 1 if rng.random() < 0.5 else -1
        if kind == "near_boards" and rng.random() < 0.5:
            yu, side = W - yu, -1
        if (side > 0 and yu + 20 > W - 2) or (side < 0 and yu - 20 < 2):
            side = -side
        start = float(rng.uniform(2.5, 4.5) if kind == "five_yard" else rng.uniform(5.5, 8.0))
        gap = float(rng.uniform(0.45, 0.7) if kind == "contact" else rng.uniform(0.9, 2.0))
        spacing = float(rng.uniform(2.6, 3.4))
        dfd = {t: ("north" if e == "south" else "south") for t, e in defending.items()} if kind == "reversed" \
            else defending
        spots = lineup_spots(dfd, c, yu, side, start_yd=start, gap_yd=gap, spacing_yd=spacing, rng=rng,
                             jitter_yd=0.4)
        if kind == "wrong_side":
            for s in rng.choice(len(spots), int(rng.integers(1, 3)), replace=False):
                spots[s].x = 2 * c - spots[s].x
        if kind in ("slow", "missing"):
            s = spots[int(rng.integers(len(spots)))]
            if kind == "slow":
                s.x = c + (1 if s.x > c else -1) * float(rng.uniform(12, 30))
                s.y += float(rng.uniform(-8, 8))
                s.heading_deg = float(np.degrees(np.arctan2(yu - s.y, c - s.x)))
            else:
                spots.remove(s)
        walking = rng.random() < 0.3
        for s in spots:
            if walking and rng.random() < 0.6:
                sp = float(rng.uniform(0.8, 3.5))
                h = math.radians(s.heading_deg + rng.normal(0, 30))
                track = _moving(s.x, s.y, sp * math.cos(h), sp * math.sin(h))
            else:
                track = [{"t": 0.0, "x": round(s.x, 3), "y": round(s.y, 3), "heading_deg": round(s.heading_deg, 1)}]
            objects.append({"id": s.id, "role": "player", "track": track})
        uh = 90.0 if side > 0 else -90.0
        objects.append({"id": "U1", "role": "umpire",
                        "track": [{"t": 0.0, "x": c + float(rng.normal(0, 0.2)), "y": yu,
                                   "heading_deg": uh + float(rng.normal(0, 8))}]})
        hand = (c - 0.11 * side, yu + 0.32 * side)
        if rng.random() < 0.7:
            ball = {"t": 0.0, "x": hand[0], "y": hand[1], "z": 1.9}
        else:                                   # just thrown in, between the ranks
            ball = {"t": 0.0, "x": c + float(rng.normal(0, 0.4)), "y": yu + side * float(rng.uniform(2, 12)),
                    "z": float(rng.choice([0.045, rng.uniform(0.1, 1.5)]))}
        focus = (c, yu + side * (start + 1.5 * spacing))
    else:
        # open play: a bunch of riders going the same general way after the ball
        bx, by = float(rng.uniform(30, L - 30)), float(rng.uniform(15, W - 15))
        heading = float(rng.uniform(-180, 180))
        radius = float(rng.uniform(5, 25))
        for team in (ta, tb):
            for n in range(1, 5):
                if rng.random() < 0.08:
                    continue
                x = bx + float(rng.normal(0, radius))
                y = float(np.clip(by + rng.normal(0, radius * 0.7), 2, W - 2))
                sp = float(rng.choice([rng.uniform(0, 2), rng.uniform(2, 8), rng.uniform(8, 16)]))
                h = math.radians(heading + rng.normal(0, 35))
                objects.append({"id": f"{team}-{n}", "role": "player",
                                "track": _moving(x, y, sp * math.cos(h), sp * math.sin(h),
                                                 None if sp > 0.5 else math.degrees(h))})
        ux = bx + float(rng.normal(0, radius + 8))
        uy = float(np.clip(by + rng.normal(0, radius), 2, W - 2))
        sp = float(rng.uniform(0, 10))
        h = math.radians(heading + rng.normal(0, 30))
        objects.append({"id": "U1", "role": "umpire",
                        "track": _moving(ux, uy, sp * math.cos(h), sp * math.sin(h),
                                         None if sp > 0.5 else math.degrees(h))})
        ball = {"t": 0.0, "x": bx, "y": by, "z": float(rng.choice([0.045, 0.045, rng.uniform(0.1, 2.0)]))}
        focus = (bx, by)
    if rng.random() < 0.5:
        objects.append({"id": "U2", "role": "umpire",
                        "track": [{"t": 0.0, "x": float(np.clip(focus[0] + rng.normal(0, 25), -20, L + 20)),
                                   "y": float(np.clip(focus[1] + rng.normal(0, 30), -5, W + 5)),
                                   "heading_deg": float(rng.uniform(-180, 180))}]})
    objects.append({"id": "ball", "role": "ball", "track": [ball]})
    for o in objects:
        if o["role"] != "ball" and rng.random() < 0.9:
            o["coat"] = coats[int(rng.integers(len(coats)))]
        for k in o["track"]:
            k["x"] = float(np.clip(k["x"], -50, L + 50))
            k["y"] = float(np.clip(k["y"], -30, W + 30))

    camera = _random_camera(rng, focus, [(o["track"][0]["x"], o["track"][0]["y"]) for o in objects], L, W,
                            image_size)
    doc = {"name": f"random-{seed}", "fps": FPS, "duration_s": 2.0, "image_size": list(image_size),
           "seed": int(seed % (2 ** 31)), "field": {"length_yd": L, "width_yd": W}, "camera": camera,
           "teams": teams, "defending": defending,
           "phases": {"lineup": 0.0, "throw_in": 1.6} if lineup else {"lineup": 2.0},
           "objects": objects}
    return doc, int(round(RENDER_T * FPS))


def _random_camera(rng: np.random.Generator, focus: tuple[float, float], pts: list[tuple[float, float]],
                   L: float, W: float, image_size: tuple[int, int]) -> dict:
    fx, fy = focus
    pts_a = np.array(pts)
    for _ in range(50):
        dist = float(rng.uniform(30, 120))
        height = float(rng.uniform(5, 25))
        r = rng.random()
        if r < 0.45:                    # west sideline side
            az = math.radians(-90 + rng.uniform(-55, 55))
        elif r < 0.9:                   # east
            az = math.radians(90 + rng.uniform(-55, 55))
        else:                           # an end
            az = math.radians((0 if rng.random() < 0.5 else 180) + rng.uniform(-30, 30))
        cx, cy = fx + dist * math.cos(az), fy + dist * math.sin(az)
        if np.min(np.hypot(pts_a[:, 0] - cx, pts_a[:, 1] - cy)) > 12:
            break
    d3 = math.sqrt(dist ** 2 + height ** 2)
    view_w = float(np.exp(rng.uniform(np.log(18), np.log(90))))
    focal = float(np.clip(1280 * d3 / view_w, 400, 12000)) * image_size[0] / 1280
    # aim off the action now and then so that some riders are cut by the frame edge
    off = rng.uniform(-0.45, 0.45, 2) * [view_w, view_w * 0.5] if rng.random() < 0.35 else rng.normal(0, 2, 2)
    look_at = [fx + float(off[0]), fy + float(off[1]), float(rng.uniform(0.5, 1.5))]
    return {"position": [round(cx, 3), round(cy, 3), round(height, 3)], "look_at": [round(v, 3) for v in look_at],
            "focal_px": round(focal, 2), "roll_deg": round(float(rng.normal(0, 1.0)), 2)}
