"""Positions documents: validation and conversion into frame-batch arrays.

A positions document (JSON) holds, per frame, the field positions of players, umpires
and ball in yards. It is turned into a `FrameBatch` of numpy arrays (frames x objects),
so every check runs vectorised over all frames at once. Any fault raises
`InvalidDocument` whose message names the field at fault, e.g.
``frames[3].players[1].x: expected a finite number, got NaN``.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.field import ENDS, Field

PHASES = ("lineup", "throw_in", "play")
LINEUP, THROW_IN, PLAY = 0, 1, 2
DEFAULT_FPS = 25.0


class InvalidDocument(ValueError):
    """A positions document that cannot be checked; the message names the field at fault."""


@dataclass
class FrameBatch:
    """All frames of a positions document as arrays.

    Columns are objects (players or umpires) identified by id across frames; an object
    absent from a frame has NaN coordinates there.
    """

    field: Field
    defending: dict[str, str]            # team name -> end it defends ("south"/"north")
    teams: list[str]                     # team names, index = team code
    player_ids: list[str]
    player_team: np.ndarray              # (P,) int team code
    players: np.ndarray                  # (F, P, 2) yards, NaN where absent
    umpire_ids: list[str]
    umpires: np.ndarray                  # (F, U, 2)
    phase: np.ndarray                    # (F,) int8: LINEUP / THROW_IN / PLAY
    t: np.ndarray                        # (F,) seconds
    ball: np.ndarray                     # (F, 2), NaN where unknown
    play: np.ndarray                     # (F,) player column making a play, -1 for none
    thrower: np.ndarray                  # (F,) umpire column throwing in, -1 when unknown
    changing_horse: np.ndarray           # (F, P) bool
    # Measured positions: each one's 2x2 covariance in yd² (F, N, 2, 2); None = exact. The
    # uncertainty differs with direction (a camera measures across its view far better than in
    # depth): a distance or side is as sure as it is along its own direction.
    player_cov: np.ndarray | None = None     # (F, P, 2, 2)
    umpire_cov: np.ndarray | None = None     # (F, U, 2, 2)
    # True where a measured player's position is a guess across a gap in his track (he was
    # not seen there): good enough for where he is, not for how fast he moves.
    player_unseen: np.ndarray | None = None  # (F, P) bool

    @property
    def n_frames(self) -> int:
        return self.phase.shape[0]

    def attack_sign(self) -> np.ndarray:
        """(P,) +1 for players whose team attacks north (defends south), -1 otherwise."""
        team_sign = np.array([1.0 if self.defending[t] == "south" else -1.0 for t in self.teams])
        return team_sign[self.player_team] if len(self.player_team) else np.zeros(0)


# ----------------------------------------------------------------------------------------
def _fail(path: str, msg: str) -> None:
    raise InvalidDocument(f"{path}: {msg}" if path else msg)


def _number(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(path, f"expected a number, got {type(value).__name__}")
    if not math.isfinite(value):
        _fail(path, f"expected a finite number, got {value}")
    return float(value)


def _obj(value: Any, path: str) -> dict:
    if not isinstance(value, dict):
        _fail(path, f"expected an object, got {type(value).__name__}")
    return value


def _list(value: Any, path: str) -> list:
    if not isinstance(value, list):
        _fail(path, f"expected a list, got {type(value).__name__}")
    return value


def _string(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value:
        _fail(path, "expected a non-empty string")
    return value


def _parse_field(data: Any) -> Field:
    if data is None:
        return Field()
    data = _obj(data, "field")
    kwargs = {}
    for key in ("length_yd", "width_yd", "side_runout_yd", "end_runout_yd"):
        if key in data:
            v = _number(data[key], f"field.{key}")
            if v < 0 or (key in ("length_yd", "width_yd") and v <= 0):
                _fail(f"field.{key}", f"must be positive, got {v}")
            kwargs[key] = v
    if "boarded" in data:
        if not isinstance(data["boarded"], bool):
            _fail("field.boarded", "expected true or false")
        kwargs["boarded"] = data["boarded"]
    unknown = set(data) - set(kwargs) - {"boarded"}
    if unknown:
        _fail("field", f"unknown key(s): {', '.join(sorted(unknown))}")
    return Field(**kwargs)


def _parse_defending(data: Any) -> dict[str, str]:
    if data is None:
        _fail("defending", "missing: say which goal each team defends, e.g. {\"red\": \"south\", \"blue\": \"north\"}")
    data = _obj(data, "defending")
    if len(data) != 2:
        _fail("defending", f"expected exactly two teams, got {len(data)}")
    for team, end in data.items():
        if not team:
            _fail("defending", "team names must be non-empty")
        if end not in ENDS:
            _fail(f"defending.{team}", f"expected \"south\" or \"north\", got {end!r}")
    if len(set(data.values())) != 2:
        _fail("defending", "the two teams must defend different goals")
    return dict(data)


def parse_document(doc: Any) -> FrameBatch:
    """Validate a positions document (already decoded from JSON) and build its FrameBatch."""
    doc = _obj(doc, "")
    if "frames" in doc:
        frames = _list(doc["frames"], "frames")
        if not frames:
            _fail("frames", "is empty")
        prefix = "frames[{}]"
    else:  # a bare single frame
        frames = [doc]
        prefix = "frame"
    known_top = {"field", "defending", "frames", "fps", "thresholds"}
    if "frames" in doc:
        unknown = set(doc) - known_top
        if unknown:
            _fail("", f"unknown top-level key(s): {', '.join(sorted(unknown))}")
    field = _parse_field(doc.get("field"))
    defending = _parse_defending(doc.get("defending"))
    fps = _number(doc["fps"], "fps") if "fps" in doc else DEFAULT_FPS
    if fps <= 0:
        _fail("fps", "must be positive")
    teams = list(defending)

    n = len(frames)
    player_cols: dict[str, int] = {}
    player_team: list[int] = []
    umpire_cols: dict[str, int] = {}
    p_entries: list[tuple[int, int, float, float, bool]] = []
    u_entries: list[tuple[int, int, float, float]] = []
    p_cov: dict[tuple[int, int], tuple[float, float, float]] = {}     # (frame, column) -> (xx, xy, yy)
    u_cov: dict[tuple[int, int], tuple[float, float, float]] = {}
    phase = np.zeros(n, np.int8)
    t = np.empty(n)
    ball = np.full((n, 2), np.nan)
    play_ids: list[tuple[int, str, str]] = []
    thrower_ids: list[tuple[int, str, str]] = []
    where: list[str] = []        # path of every position, in parse order, for error messages

    def position(item: dict, path: str) -> tuple[float, float]:
        if "x" not in item or "y" not in item:
            _fail(path, "missing x or y")
        x = _number(item["x"], f"{path}.x")
        y = _number(item["y"], f"{path}.y")
        where.append(path)
        return x, y

    for i, frame in enumerate(frames):
        fpath = prefix.format(i)
        frame = _obj(frame, fpath)
        ph = frame.get("phase", "lineup")
        if ph not in PHASES:
            _fail(f"{fpath}.phase", f"expected one of {', '.join(PHASES)}, got {ph!r}")
        phase[i] = PHASES.index(ph)
        t[i] = _number(frame["t"], f"{fpath}.t") if "t" in frame else i / fps
        seen: set[str] = set()
        for j, u in enumerate(_list(frame.get("umpires", []), f"{fpath}.umpires")):
            upath = f"{fpath}.umpires[{j}]"
            u = _obj(u, upath)
            uid = _string(u.get("id"), f"{upath}.id")
            if uid in seen:
                _fail(f"{upath}.id", f"duplicate id {uid!r} in this frame")
            seen.add(uid)
            x, y = position(u, upath)
            col = umpire_cols.setdefault(uid, len(umpire_cols))
            u_entries.append((i, col, x, y))
            if (c := _uncertainty(u, upath)) is not None:
                u_cov[i, col] = c
        for j, p in enumerate(_list(frame.get("players", []), f"{fpath}.players")):
            ppath = f"{fpath}.players[{j}]"
            p = _obj(p, ppath)
            pid = _string(p.get("id"), f"{ppath}.id")
            if pid in seen:
                _fail(f"{ppath}.id", f"duplicate id {pid!r} in this frame")
            seen.add(pid)
            team = _string(p.get("team"), f"{ppath}.team")
            if team not in defending:
                _fail(f"{ppath}.team", f"team {team!r} is not in 'defending' ({', '.join(teams)})")
            code = teams.index(team)
            col = player_cols.get(pid)
            if col is None:
                col = player_cols[pid] = len(player_cols)
                player_team.append(code)
            elif player_team[col] != code:
                _fail(f"{ppath}.team", f"player {pid!r} changes team from {teams[player_team[col]]!r} to {team!r}")
            x, y = position(p, ppath)
            changing = p.get("changing_horse", False)
            if not isinstance(changing, bool):
                _fail(f"{ppath}.changing_horse", "expected true or false")
            p_entries.append((i, col, x, y, changing))
            if (c := _uncertainty(p, ppath)) is not None:
                p_cov[i, col] = c
        if frame.get("ball") is not None:
            ball[i] = position(_obj(frame["ball"], f"{fpath}.ball"), f"{fpath}.ball")
        if frame.get("play") is not None:
            play = _obj(frame["play"], f"{fpath}.play")
            play_ids.append((i, _string(play.get("player"), f"{fpath}.play.player"), f"{fpath}.play.player"))
        if frame.get("thrower") is not None:
            thrower_ids.append((i, _string(frame["thrower"], f"{fpath}.thrower"), f"{fpath}.thrower"))

    xy = np.array([(e[2], e[3]) for e in u_entries] + [(e[2], e[3]) for e in p_entries]
                  + [tuple(b) for b in ball if not np.isnan(b[0])]).reshape(-1, 2)
    inside = field.inside_runout(xy[:, 0], xy[:, 1])
    if not np.all(inside):
        k = int(np.argmin(inside))
        _fail(_sorted_paths(where)[k], f"position ({xy[k, 0]:g}, {xy[k, 1]:g}) yd lies outside the field and its "
              f"run-out ({field.side_runout_yd:g} yd beyond the sidelines, {field.end_runout_yd:g} yd beyond the end lines)")

    if np.any(np.diff(t) < 0):
        k = int(np.argmax(np.diff(t) < 0)) + 1
        _fail(f"{prefix.format(k)}.t", "times must not decrease")

    P, U = len(player_cols), len(umpire_cols)
    players = np.full((n, P, 2), np.nan)
    changing_horse = np.zeros((n, P), bool)
    if p_entries:
        arr = np.array([e[:4] for e in p_entries])
        fi, ci = arr[:, 0].astype(int), arr[:, 1].astype(int)
        players[fi, ci] = arr[:, 2:4]
        changing_horse[fi, ci] = [e[4] for e in p_entries]
    umpires = np.full((n, U, 2), np.nan)
    if u_entries:
        arr = np.array(u_entries)
        umpires[arr[:, 0].astype(int), arr[:, 1].astype(int)] = arr[:, 2:4]

    play = np.full(n, -1, np.int64)
    for i, pid, path in play_ids:
        if pid not in player_cols or np.isnan(players[i, player_cols[pid], 0]):
            _fail(path, f"player {pid!r} is not among this frame's players")
        play[i] = player_cols[pid]
    thrower = np.full(n, -1, np.int64)
    for i, uid, path in thrower_ids:
        if uid not in umpire_cols or np.isnan(umpires[i, umpire_cols[uid], 0]):
            _fail(path, f"umpire {uid!r} is not among this frame's umpires")
        thrower[i] = umpire_cols[uid]

    measured = bool(p_cov or u_cov)          # else every position is exact
    return FrameBatch(field=field, defending=defending, teams=teams,
                      player_ids=list(player_cols), player_team=np.array(player_team, np.int64),
                      players=players, umpire_ids=list(umpire_cols), umpires=umpires,
                      phase=phase, t=t, ball=ball, play=play, thrower=thrower,
                      changing_horse=changing_horse,
                      player_cov=_cov_array(p_cov, n, P) if measured else None,
                      umpire_cov=_cov_array(u_cov, n, U) if measured else None)


def _uncertainty(item: dict, path: str) -> tuple[float, float, float] | None:
    """A position's optional uncertainty as a covariance (xx, xy, yy) in yd²: `cov_yd2`
    [xx, xy, yy] (positive semi-definite), or `sigma_yd` (the same every way); None without."""
    if "cov_yd2" in item and "sigma_yd" in item:
        _fail(path, "give cov_yd2 or sigma_yd, not both")
    if "sigma_yd" in item:
        s = _number(item["sigma_yd"], f"{path}.sigma_yd")
        if s < 0:
            _fail(f"{path}.sigma_yd", "must not be negative")
        return s * s, 0.0, s * s
    if "cov_yd2" in item:
        c = _list(item["cov_yd2"], f"{path}.cov_yd2")
        if len(c) != 3:
            _fail(f"{path}.cov_yd2", "expected [xx, xy, yy]")
        xx, xy, yy = (_number(v, f"{path}.cov_yd2[{k}]") for k, v in enumerate(c))
        if xx < 0 or yy < 0 or xy * xy > xx * yy * (1 + 1e-9):
            _fail(f"{path}.cov_yd2", "is not a covariance (xx and yy at least 0, xy² at most xx·yy)")
        return xx, xy, yy
    return None


def _cov_array(entries: dict[tuple[int, int], tuple[float, float, float]], n: int, cols: int) -> np.ndarray:
    """(n, cols, 2, 2) covariances from (frame, column) -> (xx, xy, yy); 0 (exact) elsewhere."""
    out = np.zeros((n, cols, 2, 2))
    for (i, c), (xx, xy, yy) in entries.items():
        out[i, c] = ((xx, xy), (xy, yy))
    return out


def _sorted_paths(paths: list[str]) -> list[str]:
    """Paths reordered as the positions array above is built: umpires, players, then balls."""
    ump = [p for p in paths if ".umpires[" in p]
    ply = [p for p in paths if ".players[" in p]
    bal = [p for p in paths if p.endswith(".ball")]
    return ump + ply + bal


def load_document(text: str) -> Any:
    """Decode JSON text, turning decoder errors into InvalidDocument."""
    try:
        return json.loads(text, parse_constant=lambda c: _fail("", f"{c} is not allowed in positions"))
    except json.JSONDecodeError as exc:
        raise InvalidDocument(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
