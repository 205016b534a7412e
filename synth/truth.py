"""truth.json and calibration.json: what was really there, per frame, and the expected verdicts.

The truth format is in docs/formats.md and validated by synth/truth.schema.json. Expected
verdicts come from running the rules engine on the true positions (`positions_document`),
never from hand-written lists.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from synth.camera import Camera
from synth.markings import landmarks, marking_lines
from synth.render import ObjectRender
from synth.scenario import Scenario

SCHEMA_PATH = Path(__file__).with_name("truth.schema.json")
TRUTH_VERSION = 1


def object_truth(r: ObjectRender) -> dict[str, Any]:
    d: dict[str, Any] = {"id": r.id, "role": r.role, "team": r.team}
    if r.number is not None:
        d["number"] = r.number
    d["x"] = round(r.x, 3)
    d["y"] = round(r.y, 3)
    if r.role == "ball":
        d["z"] = round(r.z, 3)
    else:
        d["heading_deg"] = round(r.heading_deg, 1)
        d["speed_yds"] = round(r.speed, 2)
        d["ground_px"] = r.ground_px
    d["boxes"] = r.boxes
    d["visible_fraction"] = r.visible_fraction
    d["part_visible"] = r.part_visible
    return d


def frame_truth(scenario: Scenario, index: int, cam: Camera, records: list[ObjectRender],
                changing: set[str]) -> dict[str, Any]:
    H = cam.homography()
    fr: dict[str, Any] = {"index": index, "t": round(index / scenario.fps, 4), "phase": scenario.phase(index),
                          "H_field_to_image": np.round(H, 8).tolist(), "camera": cam.to_dict(),
                          "objects": [object_truth(r) for r in records]}
    for o in fr["objects"]:
        if o["id"] in changing:
            o["changing_horse"] = True
    play = scenario.plays_by_frame().get(index)
    if play:
        fr["play"] = {"player": play}
    return fr


def thrower_id(scenario: Scenario) -> str | None:
    if scenario.thrower:
        return scenario.thrower
    umps = [o.id for o in scenario.objects if o.role == "umpire"]
    return umps[0] if len(umps) == 1 else None


def frame_positions(fr: dict[str, Any], phase: str, thrower: str | None) -> dict[str, Any]:
    """One truth frame as the rules engine's input (positions in yards), in `phase`."""
    f: dict[str, Any] = {"phase": phase, "t": fr["t"], "umpires": [], "players": []}
    for o in fr["objects"]:
        if o["role"] == "umpire":
            f["umpires"].append({"id": o["id"], "x": o["x"], "y": o["y"]})
        elif o["role"] == "player":
            p = {"id": o["id"], "team": o["team"], "x": o["x"], "y": o["y"]}
            if o.get("changing_horse"):
                p["changing_horse"] = True
            f["players"].append(p)
        elif o["role"] == "ball":
            f["ball"] = {"x": o["x"], "y": o["y"]}
    if "play" in fr:
        f["play"] = fr["play"]
    if phase == "throw_in" and thrower:
        f["thrower"] = thrower
    return f


def positions_document(scenario: Scenario, frames: list[dict[str, Any]]) -> dict[str, Any]:
    """The rules engine's input (positions in yards per frame) from the truth frames."""
    thrower = thrower_id(scenario)
    out = [frame_positions(fr, fr["phase"], thrower) for fr in frames]
    return {"field": {"length_yd": scenario.field_length_yd, "width_yd": scenario.field_width_yd},
            "defending": scenario.defending, "fps": scenario.fps, "frames": out}


def expected_verdicts(positions: dict[str, Any]) -> dict[str, Any]:
    """Run the rules engine on the true positions."""
    import rules
    return rules.check_document(positions)


def truth_document(scenario: Scenario, frames: list[dict[str, Any]], expected: dict[str, Any] | None) -> dict:
    return {
        "version": TRUTH_VERSION,
        "scenario": scenario.name,
        "description": scenario.description,
        "seed": scenario.seed,
        "fps": scenario.fps,
        "image_size": list(scenario.image_size),
        "n_frames": len(frames),
        "field": {"length_yd": scenario.field_length_yd, "width_yd": scenario.field_width_yd},
        "defending": scenario.defending,
        "teams": {n: {"jersey_bgr": list(t.jersey_bgr)} for n, t in scenario.teams.items()},
        "throw_in_frame": scenario.throw_in_frame,
        "frames": frames,
        "expected": expected,
    }


def calibration_document(scenario: Scenario, cam: Camera, frame: int = 0, margin_px: float = 4.0) -> dict:
    """Pixel <-> field correspondences of the markings' landmarks visible in `frame`.

    Landmarks: where each marking line meets the sidelines, the centre spot, and points every
    10 yd along each marking line. If fewer than four non-collinear landmarks are visible,
    ground points under the image corners are added (named ``ground_ref_*``).
    """
    L, W = scenario.field_length_yd, scenario.field_width_yd
    cands = list(landmarks(L, W))
    for name, x in marking_lines(L):
        for y in np.arange(10.0, W, 10.0):
            cands.append((f"{name}_y{int(y)}", x, float(y)))
    w, h = cam.image_size
    pts = []
    for name, x, y in cands:
        uv, z = cam.project(np.array([[x, y, 0.0]]))
        u, v = uv[0]
        if z[0] > 0.5 and margin_px <= u <= w - margin_px and margin_px <= v <= h - margin_px:
            pts.append({"name": name, "px": [round(float(u), 2), round(float(v), 2)],
                        "yd": [round(float(x), 3), round(float(y), 3)]})
    if len(pts) < 4 or _collinear([p["yd"] for p in pts]):
        for k, (u, v) in enumerate([(0.1 * w, 0.9 * h), (0.9 * w, 0.9 * h), (0.9 * w, 0.6 * h), (0.1 * w, 0.6 * h)]):
            g = cam.image_to_ground(np.array([[u, v]]))[0]
            if not np.isnan(g).any():
                pts.append({"name": f"ground_ref_{k}", "px": [round(u, 2), round(v, 2)],
                            "yd": [round(float(g[0]), 3), round(float(g[1]), 3)]})
    return {"image_size": list(cam.image_size), "field": {"length_yd": L, "width_yd": W},
            "points": pts, "frame": frame}


def _collinear(yd: list[list[float]]) -> bool:
    if len(yd) < 3:
        return True
    a = np.asarray(yd, float)
    a = a - a.mean(0)
    s = np.linalg.svd(a, compute_uv=False)
    return s[1] < 1e-6 * max(s[0], 1.0) or s[1] < 0.5


@lru_cache(maxsize=1)
def truth_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def validate_truth(doc: dict) -> None:
    """Raise jsonschema.ValidationError when `doc` does not follow synth/truth.schema.json."""
    import jsonschema
    jsonschema.validate(doc, truth_schema())
