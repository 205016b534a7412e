"""Direction of play over a game: which goal each team defends at each throw-in, and
whom each goal counts for.

Rule 20 and its examples:
- The teams decide by lot which goal each defends first; ends change after every goal.
- When all players and the umpires accept a line-up, it becomes correct: a goal scored
  consistent with it counts for the team that scored it, even if the line-up was the wrong
  way round (no redress); ends then change in the normal way, from that line-up.
- With the line-up in play, a goal scored into a team's own (defended) goal counts for the
  opponent.
- A wrong-way line-up discovered without a goal (e.g. between periods) is corrected: the
  umpire reverses direction back to what it should have been.

Events: {"type": "throw_in", "defending": {...}} (defending optional: the line-up actually
taken; absent means the expected one), {"type": "goal", "team": scorer, "end": "south"|"north"},
{"type": "period_end"}.
"""
from __future__ import annotations

from typing import Any

from rules.field import ENDS, NORTH, SOUTH


def _swap(defending: dict[str, str]) -> dict[str, str]:
    return {team: NORTH if end == SOUTH else SOUTH for team, end in defending.items()}


def _check_defending(defending: Any, where: str) -> dict[str, str]:
    if not isinstance(defending, dict) or len(defending) != 2 or set(defending.values()) != set(ENDS):
        raise ValueError(f"{where}: expected two teams defending 'south' and 'north', got {defending!r}")
    return dict(defending)


def replay_game(coin_toss: dict[str, str], events: list[dict]) -> list[dict]:
    """Walk the game's events; return one record per event with what the rule makes of it."""
    expected = _check_defending(coin_toss, "coin_toss")
    in_play = dict(expected)
    out: list[dict] = []
    for k, ev in enumerate(events):
        kind = ev.get("type") if isinstance(ev, dict) else None
        if kind == "throw_in":
            actual = _check_defending(ev.get("defending", expected), f"events[{k}].defending")
            if set(actual) != set(expected):
                raise ValueError(f"events[{k}].defending: teams {sorted(actual)} differ from {sorted(expected)}")
            in_play = actual
            out.append({"type": "throw_in", "expected": dict(expected), "actual": dict(actual),
                        "wrong_way": actual != expected})
        elif kind == "goal":
            scorer, end = ev.get("team"), ev.get("end")
            if scorer not in in_play or end not in ENDS:
                raise ValueError(f"events[{k}]: a goal needs a known 'team' and 'end' (south/north)")
            defender = next(t for t, e in in_play.items() if e == end)
            credited = next(t for t in in_play if t != defender)
            out.append({"type": "goal", "scorer": scorer, "end": end, "credited_to": credited,
                        "own_goal": scorer == defender,
                        "wrong_way_lineup": in_play != expected})
            expected = _swap(in_play)          # ends change after every goal, from the line-up in play
            in_play = dict(expected)
        elif kind == "period_end":
            corrected = in_play != expected
            out.append({"type": "period_end", "direction_corrected": corrected, "next": dict(expected)})
            in_play = dict(expected)
        else:
            raise ValueError(f"events[{k}].type: expected throw_in, goal or period_end, got {kind!r}")
    return out


def defending_at_throw_ins(coin_toss: dict[str, str], goals: list[dict]) -> list[dict[str, str]]:
    """Goal each team defends at the opening throw-in and after each goal (ends change every goal)."""
    events: list[dict] = [{"type": "throw_in"}]
    for g in goals:
        events += [g, {"type": "throw_in"}]
    return [r["expected"] for r in replay_game(coin_toss, events) if r["type"] == "throw_in"]
