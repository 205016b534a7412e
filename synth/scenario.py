"""Scenario files (JSON or YAML): what to render. Format and examples: synth/SCENARIO.md.

`load_scenario(path)` / `parse_scenario(dict)` validate everything up front and raise
`ScenarioError` whose one-line message names the field at fault, e.g.
``objects[3].track[1].t: times must not decrease``.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from synth.camera import Camera, pan_tilt_towards
from synth.colours import COAT_BGR, JERSEY_BGR, parse_colour

ROLES = ("player", "umpire", "ball")
ENDS = ("south", "north")
PLAYER_ID = re.compile(r"^(?P<team>.+)-(?P<number>[1-4])$")
BALL_RADIUS_YD = 3.25 / 36 / 2


class ScenarioError(ValueError):
    """A scenario that cannot be rendered; the message names the field at fault."""


def _fail(path: str, msg: str):
    text = f"{path}: {msg}" if path else msg
    raise ScenarioError(text.replace("\r", "\\r").replace("\n", "\\n"))     # one line, whatever the input held


def _num(v: Any, path: str, lo: float | None = None, hi: float | None = None) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        _fail(path, f"expected a finite number, got {v!r}")
    if lo is not None and v < lo or hi is not None and v > hi:
        _fail(path, f"must lie in [{lo:g}, {hi:g}], got {v:g}" if hi is not None else f"must be at least {lo:g}, got {v:g}")
    return float(v)


def _obj(v: Any, path: str) -> dict:
    if not isinstance(v, dict):
        _fail(path, f"expected an object, got {type(v).__name__}")
    return v


def _list(v: Any, path: str, min_len: int = 0) -> list:
    if not isinstance(v, list):
        _fail(path, f"expected a list, got {type(v).__name__}")
    if len(v) < min_len:
        _fail(path, f"needs at least {min_len} item(s)")
    return v


def _known(d: dict, keys: set[str], path: str) -> None:
    unknown = set(d) - keys
    if unknown:
        _fail(path, f"unknown key(s): {', '.join(sorted(map(repr, unknown)))}")


# ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Keyframe:
    t: float
    x: float
    y: float
    z: float | None = None
    heading_deg: float | None = None


@dataclass
class ObjectSpec:
    """A player, umpire or the ball, with its keyframed track in field yards."""

    id: str
    role: str
    track: list[Keyframe]
    team: str | None = None
    number: int | None = None
    heading_deg: float | None = None
    changing_horse: bool = False
    coat: str | None = None


@dataclass(frozen=True)
class CameraKey:
    t: float
    pan_deg: float
    tilt_deg: float
    focal_px: float
    roll_deg: float = 0.0


@dataclass
class CameraSpec:
    """Fixed camera position; pan, tilt, roll and focal length keyframed over time."""

    position: tuple[float, float, float]
    keys: list[CameraKey]
    ref_width: int

    def pose(self, t: float) -> CameraKey:
        ks = self.keys
        if t <= ks[0].t or len(ks) == 1:
            return ks[0]
        if t >= ks[-1].t:
            return ks[-1]
        i = int(np.searchsorted([k.t for k in ks], t, side="right")) - 1
        a, b = ks[i], ks[i + 1]
        s = (t - a.t) / (b.t - a.t) if b.t > a.t else 1.0
        s = s * s * (3 - 2 * s)                                   # ease in and out
        dpan = (b.pan_deg - a.pan_deg + 180.0) % 360.0 - 180.0
        return CameraKey(t, a.pan_deg + s * dpan, a.tilt_deg + s * (b.tilt_deg - a.tilt_deg),
                         math.exp(math.log(a.focal_px) + s * (math.log(b.focal_px) - math.log(a.focal_px))),
                         a.roll_deg + s * (b.roll_deg - a.roll_deg))

    def camera(self, t: float, image_size: tuple[int, int]) -> Camera:
        k = self.pose(t)
        scale = image_size[0] / self.ref_width
        return Camera.from_pose(self.position, k.pan_deg, k.tilt_deg, k.focal_px * scale, image_size, k.roll_deg)


@dataclass
class TeamSpec:
    name: str
    jersey_bgr: tuple[int, int, int]
    defends: str
    helmet_bgr: tuple[int, int, int] | None = None
    number_bgr: tuple[int, int, int] | None = None


@dataclass
class Scenario:
    name: str
    description: str
    fps: float
    duration_s: float
    image_size: tuple[int, int]
    seed: int
    field_length_yd: float
    field_width_yd: float
    camera: CameraSpec
    teams: dict[str, TeamSpec]
    objects: list[ObjectSpec]
    throw_in_t: float | None
    lineup_t: float = 0.0
    plays: list[tuple[float, str]] = field(default_factory=list)
    thrower: str | None = None
    look: dict[str, Any] = field(default_factory=dict)

    @property
    def n_frames(self) -> int:
        return max(1, int(round(self.duration_s * self.fps)))

    @property
    def defending(self) -> dict[str, str]:
        return {name: t.defends for name, t in self.teams.items()}

    @property
    def throw_in_frame(self) -> int | None:
        if self.throw_in_t is None:
            return None
        return min(self.n_frames - 1, int(round(self.throw_in_t * self.fps)))

    def times(self) -> np.ndarray:
        return np.arange(self.n_frames) / self.fps

    def phase(self, index: int) -> str:
        """'lineup' before the throw-in, 'throw_in' on its frame, 'play' after (and before lineup_t)."""
        ti = self.throw_in_frame
        if ti is not None and index == ti:
            return "throw_in"
        if ti is not None and index > ti:
            return "play"
        return "play" if index / self.fps < self.lineup_t - 1e-9 else "lineup"

    def plays_by_frame(self) -> dict[int, str]:
        return {min(self.n_frames - 1, int(round(t * self.fps))): pid for t, pid in self.plays}

    def with_image_size(self, size: tuple[int, int]) -> "Scenario":
        """A copy rendered at another size (the camera's focal length scales with the width)."""
        import copy
        s = copy.copy(self)
        s.image_size = (int(size[0]), int(size[1]))
        return s


# ------------------------------------------------------------------------------------
TOP_KEYS = {"name", "description", "fps", "duration_s", "image_size", "seed", "field", "camera", "teams",
            "defending", "objects", "phases", "plays", "look", "thrower"}


def parse_scenario(data: Any, default_name: str = "scenario") -> Scenario:
    """Validate a decoded scenario document and build a Scenario."""
    d = _obj(data, "scenario")
    _known(d, TOP_KEYS, "scenario")
    fps = _num(d.get("fps", 25), "fps", 1, 240)
    duration = _num(d["duration_s"] if "duration_s" in d else _fail("duration_s", "missing (clip length in seconds)"),
                    "duration_s", 0.04, 600)
    size = d.get("image_size", [1280, 720])
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                 and 16 <= v <= 4096 for v in size)):
        _fail("image_size", "expected [width, height] in pixels, integers 16-4096")
    if size[0] % 2 or size[1] % 2:
        _fail("image_size", "width and height must be even (H.264 with yuv420p)")
    seed = d.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        _fail("seed", "expected a non-negative integer")
    fld = _obj(d.get("field", {}), "field")
    _known(fld, {"length_yd", "width_yd"}, "field")
    length = _num(fld.get("length_yd", 300), "field.length_yd", 50, 400)
    width = _num(fld.get("width_yd", 160), "field.width_yd", 30, 250)

    teams = _parse_teams(d)
    camera = _parse_camera(d.get("camera"), size[0])
    objects = _parse_objects(d.get("objects"), teams, length, width)
    ids = {o.id for o in objects}

    phases = _obj(d.get("phases", {}), "phases")
    _known(phases, {"lineup", "throw_in"}, "phases")
    throw_in = _num(phases["throw_in"], "phases.throw_in", 0, duration) if "throw_in" in phases else None
    lineup = _num(phases.get("lineup", 0.0), "phases.lineup", 0, duration)
    if throw_in is not None and lineup > throw_in:
        _fail("phases.lineup", "must not come after phases.throw_in")

    plays = []
    for i, p in enumerate(_list(d.get("plays", []), "plays")):
        p = _obj(p, f"plays[{i}]")
        _known(p, {"t", "player"}, f"plays[{i}]")
        t = _num(p.get("t"), f"plays[{i}].t", 0, duration)
        pid = p.get("player")
        if not isinstance(pid, str) or pid not in ids or next(o for o in objects if o.id == pid).role != "player":
            _fail(f"plays[{i}].player", f"{pid!r} is not a player id in objects")
        plays.append((t, pid))
    thrower = d.get("thrower")
    if thrower is not None and (not isinstance(thrower, str) or thrower not in ids or next(o for o in objects if o.id == thrower).role != "umpire"):
        _fail("thrower", f"{thrower!r} is not an umpire id in objects")
    look = _obj(d.get("look", {}), "look")
    from synth.look import LOOK_KEYS
    _known(look, set(LOOK_KEYS), "look")
    for k, v in look.items():
        _num(v, f"look.{k}", *LOOK_KEYS[k])
    name = d.get("name", default_name)
    if not isinstance(name, str) or not name:
        _fail("name", "expected a non-empty string")
    desc = d.get("description", "")
    if not isinstance(desc, str):
        _fail("description", "expected a string")
    return Scenario(name=name, description=desc, fps=fps, duration_s=duration, image_size=(size[0], size[1]),
                    seed=seed, field_length_yd=length, field_width_yd=width, camera=camera, teams=teams,
                    objects=objects, throw_in_t=throw_in, lineup_t=lineup, plays=plays, thrower=thrower,
                    look=dict(look))


def _parse_teams(d: dict) -> dict[str, TeamSpec]:
    teams_d = _obj(d.get("teams") if "teams" in d else _fail("teams", "missing"), "teams")
    defending = _obj(d.get("defending") if "defending" in d else _fail(
        "defending", "missing: say which goal each team defends, e.g. {\"red\": \"south\", \"blue\": \"north\"}"),
        "defending")
    if len(teams_d) != 2:
        _fail("teams", f"expected exactly two teams, got {len(teams_d)}")
    if set(defending) != set(teams_d):
        _fail("defending", f"must name the same two teams as 'teams' ({', '.join(teams_d)})")
    for team, end in defending.items():
        if end not in ENDS:
            _fail(f"defending.{team}", f"expected \"south\" or \"north\", got {end!r}")
    if len(set(defending.values())) != 2:
        _fail("defending", "the two teams must defend different goals")
    out = {}
    for name, t in teams_d.items():
        path = f"teams.{name}"
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", str(name)):
            _fail(path, "team names must be letters, digits or _ (they form player ids like red-1)")
        t = _obj(t, path)
        _known(t, {"jersey_bgr", "jersey", "helmet_bgr", "number_bgr"}, path)
        if "jersey_bgr" in t:
            jersey = parse_colour(t["jersey_bgr"], f"{path}.jersey_bgr", _fail)
        elif "jersey" in t:
            jersey = parse_colour(t["jersey"], f"{path}.jersey", _fail)
        elif name in JERSEY_BGR:
            jersey = JERSEY_BGR[name]
        else:
            _fail(f"{path}.jersey_bgr", "missing (give [b, g, r] or a colour name in 'jersey')")
        helmet = parse_colour(t["helmet_bgr"], f"{path}.helmet_bgr", _fail) if "helmet_bgr" in t else None
        number = parse_colour(t["number_bgr"], f"{path}.number_bgr", _fail) if "number_bgr" in t else None
        out[name] = TeamSpec(name, jersey, defending[name], helmet, number)
    return out


def _parse_camera(c: Any, ref_width: int) -> CameraSpec:
    c = _obj(c if c is not None else _fail("camera", "missing"), "camera")
    _known(c, {"position", "pan_deg", "tilt_deg", "roll_deg", "focal_px", "hfov_deg", "look_at", "keyframes"},
           "camera")
    pos = c.get("position")
    if not (isinstance(pos, list) and len(pos) == 3):
        _fail("camera.position", "expected [x, y, height] in yards")
    pos = tuple(_num(v, f"camera.position[{i}]") for i, v in enumerate(pos))
    if pos[2] <= 0.5:
        _fail("camera.position[2]", "the camera height must be above 0.5 yd")

    def key(k: dict, path: str, t: float, prev: CameraKey | None) -> CameraKey:
        if "look_at" in k:
            la = k["look_at"]
            if not (isinstance(la, list) and len(la) in (2, 3)):
                _fail(f"{path}.look_at", "expected [x, y] or [x, y, z] in yards")
            la = [_num(v, f"{path}.look_at[{i}]") for i, v in enumerate(la)] + ([0.0] if len(la) == 2 else [])
            if math.hypot(la[0] - pos[0], la[1] - pos[1]) < 1e-6:
                _fail(f"{path}.look_at", "must not lie straight below the camera")
            pan, tilt = pan_tilt_towards(np.array(pos), np.array(la))
        elif "pan_deg" in k or "tilt_deg" in k or prev is not None:
            pan = _num(k.get("pan_deg", prev.pan_deg if prev else 90.0), f"{path}.pan_deg")
            tilt = _num(k.get("tilt_deg", prev.tilt_deg if prev else 10.0), f"{path}.tilt_deg", -89, 89)
        else:
            _fail(path, "give either look_at or pan_deg and tilt_deg")
        if "focal_px" in k:
            focal = _num(k["focal_px"], f"{path}.focal_px", 50, 100000)
        elif "hfov_deg" in k:
            focal = ref_width / 2 / math.tan(math.radians(_num(k["hfov_deg"], f"{path}.hfov_deg", 1, 150)) / 2)
        elif prev is not None:
            focal = prev.focal_px
        else:
            _fail(path, "give focal_px (pixels at image_size) or hfov_deg")
        roll = _num(k.get("roll_deg", prev.roll_deg if prev else 0.0), f"{path}.roll_deg", -45, 45)
        return CameraKey(t, pan, tilt, focal, roll)

    first = key(c, "camera", 0.0, None)
    keys = [first]
    last_t = 0.0
    for i, k in enumerate(_list(c.get("keyframes", []), "camera.keyframes")):
        path = f"camera.keyframes[{i}]"
        k = _obj(k, path)
        _known(k, {"t", "pan_deg", "tilt_deg", "roll_deg", "focal_px", "hfov_deg", "look_at"}, path)
        t = _num(k.get("t"), f"{path}.t", 0)
        if t < last_t:
            _fail(f"{path}.t", "times must not decrease")
        last_t = t
        keys.append(key(k, path, t, keys[-1]))
    if len(keys) > 1 and keys[1].t <= 0.0:
        keys = keys[1:]
    return CameraSpec(pos, keys, ref_width)


def _parse_objects(objs: Any, teams: dict[str, TeamSpec], length: float, width: float) -> list[ObjectSpec]:
    objs = _list(objs if objs is not None else _fail("objects", "missing"), "objects", 1)
    out: list[ObjectSpec] = []
    seen: set[str] = set()
    for i, o in enumerate(objs):
        path = f"objects[{i}]"
        o = _obj(o, path)
        _known(o, {"id", "role", "team", "number", "track", "heading_deg", "changing_horse", "coat"}, path)
        oid = o.get("id")
        if not isinstance(oid, str) or not oid:
            _fail(f"{path}.id", "expected a non-empty string")
        if oid in seen:
            _fail(f"{path}.id", f"duplicate id {oid!r}")
        seen.add(oid)
        role = o.get("role")
        if role not in ROLES:
            _fail(f"{path}.role", f"expected one of {', '.join(ROLES)}, got {role!r}")
        team = number = None
        if role == "player":
            m = PLAYER_ID.match(oid)
            if not m or m["team"] not in teams:
                _fail(f"{path}.id", f"player ids are <team>-<number 1-4> with a team from 'teams', got {oid!r}")
            team, number = m["team"], int(m["number"])
            if o.get("team", team) != team:
                _fail(f"{path}.team", f"does not match the id {oid!r}")
            if "number" in o and o["number"] != number:
                _fail(f"{path}.number", f"does not match the id {oid!r}")
        elif "team" in o and o["team"] is not None:
            _fail(f"{path}.team", f"a {role} has no team")
        if role == "ball" and any(x.role == "ball" for x in out):
            _fail(f"{path}.role", "only one ball")
        if role == "umpire" and sum(x.role == "umpire" for x in out) >= 3:
            _fail(f"{path}.role", "at most three mounted umpires")
        heading = _num(o["heading_deg"], f"{path}.heading_deg") if "heading_deg" in o else None
        changing = o.get("changing_horse", False)
        if not isinstance(changing, bool):
            _fail(f"{path}.changing_horse", "expected true or false")
        coat = o.get("coat")
        if coat is not None and coat not in COAT_BGR:
            _fail(f"{path}.coat", f"expected one of {', '.join(COAT_BGR)}")
        track = []
        last = -math.inf
        for j, k in enumerate(_list(o.get("track"), f"{path}.track", 1)):
            kp = f"{path}.track[{j}]"
            k = _obj(k, kp)
            _known(k, {"t", "x", "y", "z", "heading_deg"}, kp)
            t = _num(k.get("t", 0.0), f"{kp}.t", 0)
            if t < last:
                _fail(f"{kp}.t", "times must not decrease")
            last = t
            x = _num(k.get("x"), f"{kp}.x", -60, length + 60)
            y = _num(k.get("y"), f"{kp}.y", -40, width + 40)
            z = _num(k["z"], f"{kp}.z", 0, 100) if "z" in k else None
            if z is not None and role != "ball":
                _fail(f"{kp}.z", "only the ball has a height")
            h = _num(k["heading_deg"], f"{kp}.heading_deg") if "heading_deg" in k else None
            track.append(Keyframe(t, x, y, z, h))
        out.append(ObjectSpec(oid, role, track, team, number, heading, changing, coat))
    return out


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file (.json, .yaml or .yml)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{p}: cannot read: {exc}") from None
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{p}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{p}: not valid YAML: {str(exc).splitlines()[0]}") from None
    try:
        return parse_scenario(data, default_name=p.stem if p.stem != "scenario" else p.parent.name or "scenario")
    except ScenarioError as exc:
        raise ScenarioError(f"{p}: {exc}") from None
