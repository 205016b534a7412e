"""Builders of positions documents for rule tests: a standard throw-in line-up and variations."""
from __future__ import annotations

import copy

UMPIRE = {"id": "U1", "x": 150.0, "y": 60.0}
DEFENDING = {"red": "south", "blue": "north"}


def lineup_players(red_x: float = 148.5, blue_x: float = 151.5, y0: float = 67.0, gap: float = 2.5) -> list[dict]:
    """Two ranks, one each side of the centre line, starting 7 yd from the umpire along y."""
    players = []
    for n in range(1, 5):
        y = y0 + (n - 1) * gap
        players.append({"id": f"red-{n}", "team": "red", "x": red_x, "y": y})
        players.append({"id": f"blue-{n}", "team": "blue", "x": blue_x, "y": y})
    return players


def frame(phase: str = "lineup", players: list[dict] | None = None, umpires: list[dict] | None = None,
          **extra) -> dict:
    fr = {"phase": phase, "umpires": copy.deepcopy(umpires or [UMPIRE]),
          "players": copy.deepcopy(players if players is not None else lineup_players())}
    fr.update(extra)
    return fr


def doc(*frames: dict, defending: dict | None = None, fps: float = 25.0) -> dict:
    return {"field": {"length_yd": 300, "width_yd": 160}, "defending": dict(defending or DEFENDING),
            "fps": fps, "frames": list(frames)}


def move(players: list[dict], pid: str, **xy) -> list[dict]:
    out = copy.deepcopy(players)
    for p in out:
        if p["id"] == pid:
            p.update(xy)
    return out


def codes(verdict: dict, index: int | None = None) -> list[str]:
    frames = verdict["frames"] if index is None else [verdict["frames"][index]]
    return sorted(v["code"] for fr in frames for v in fr["violations"])


def note_codes(verdict: dict, index: int) -> list[str]:
    return sorted(n["code"] for n in verdict["frames"][index]["notes"])
