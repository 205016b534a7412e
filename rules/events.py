"""Per-frame violations → violation events (start, end, worst numbers).

Measured positions jitter, so a violation seen on one frame may be noise. A violation is
flagged as an event when it holds for at least `min_run` frames, bridging gaps of up to
`max_gap` frames. Violations that by nature happen at one instant (the throw-in, a play)
are events as soon as they occur.
"""
from __future__ import annotations

from typing import Any

PLAY_CODES = {"ILLEGAL_PLAY_FROM_WRONG_SIDE", "IMPROPER_POSITIONING"}     # found at a play (a hit)
INSTANT_CODES = {"THROW_IN_NEAR_BOARDS"} | PLAY_CODES
# For each code: the number that measures how bad it is, and whether smaller is worse.
WORST = {"FIVE_YARD": ("distance_yd", min), "CONTACT_BEFORE_THROW_IN": ("distance_yd", min),
         "THROW_IN_NEAR_BOARDS": ("distance_yd", min), "WRONG_SIDE": ("across_yd", max),
         "RUSHING_UMPIRE": ("closing_speed_yds", max), "REVERSED_LINEUP": ("players", max),
         "ILLEGAL_PLAY_FROM_WRONG_SIDE": ("ball_travel_yd", min),
         "IMPROPER_POSITIONING": ("distance_from_centre_yd", max)}


def event_key(v: dict) -> tuple:
    return (v["code"], v.get("player"), v.get("opponent") if v["code"] == "CONTACT_BEFORE_THROW_IN" else None)


def violation_events(frames: list[dict], min_run: int = 3, max_gap: int = 2) -> list[dict[str, Any]]:
    """Group a verdict document's per-frame violations into events, ordered by start frame."""
    open_: dict[tuple, dict] = {}
    done: list[dict] = []

    def close(key):
        ev = open_.pop(key)
        if ev["frames"] >= (1 if key[0] in INSTANT_CODES else min_run):
            done.append(ev)

    for pos, fr in enumerate(frames):
        idx = fr.get("index", pos)
        for key in [k for k, ev in open_.items() if idx - ev["end_frame"] > max_gap + 1]:
            close(key)
        for v in fr["violations"]:
            key = event_key(v)
            field, pick = WORST.get(v["code"], (None, None))
            ev = open_.get(key)
            if ev is None:
                ev = open_[key] = {"code": v["code"], "player": v.get("player"), "start_frame": idx, "end_frame": idx,
                                   "frames": 0, "worst": dict(v)}
                if key[2]:
                    ev["opponent"] = key[2]
            ev["end_frame"] = idx
            ev["frames"] += 1
            if field and field in v and pick(v[field], ev["worst"][field]) != ev["worst"][field]:
                ev["worst"] = dict(v)
    for key in list(open_):
        close(key)
    done.sort(key=lambda e: (e["start_frame"], e["code"], str(e["player"])))
    return done


def to_check_events(frames: list[dict], sure: list[dict], min_run: int = 3, max_gap: int = 2) -> list[dict[str, Any]]:
    """Events of the frames' `to_check` records (findings that hold on the measured positions
    but not by their margin of uncertainty: rules.verdicts), held for `min_run` frames as
    violations are, less those that only run into or out of an event in `sure` of the same
    code and player (the frames where a violation is coming or going)."""
    found = violation_events([{"index": fr.get("index", k), "violations": fr.get("to_check") or []}
                              for k, fr in enumerate(frames)], min_run=min_run, max_gap=max_gap)
    reach = max_gap + 1

    def next_to_sure(ev):
        key = (ev["code"], ev.get("player"), ev.get("opponent"))
        return any((s["code"], s.get("player"), s.get("opponent")) == key
                   and ev["start_frame"] <= s["end_frame"] + reach and s["start_frame"] <= ev["end_frame"] + reach
                   for s in sure)
    return [ev for ev in found if not next_to_sure(ev)]
