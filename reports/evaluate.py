"""Score an analysis report against a rendered clip's truth.

- violation events: precision and recall (an event matches a truth event of the same code,
  the same player, overlapping in time within `tolerance_frames`);
- per-frame verdict agreement: share of frames whose set of violation codes is the same;
- position error in yards (median, 95th percentile) of every tracked player and umpire
  against the truth object it is matched to in that frame;
- how honest the reported uncertainty is: the share of position errors, along each field
  axis, within two of the report's sigmas along it (cov_yd2, else sigma_yd); 0.95 for
  normal errors with true sigmas;
- id switches: times a truth object's matched track id changes;
- throw-in frame error.

Tracks are matched to truth objects per frame with the Hungarian method on field distance
(at most `match_yd` apart); a track's truth id is its most frequent match, and an event's
player is his track's truth id. A second pair of figures (`event_precision_at_event`,
`event_recall_at_event`) takes instead the truth object the track was matched to most over
the event's own frames and half a second either side (EVENT_REACH): a track that changed
player in the line-up is judged on the one it followed when the event happened. In a scrum
the per-frame match itself flips between neighbours, so that figure moves both ways there
(session 33, jostling_at_centre: precision 0.33 → 0.00 on one re-render, 0.50 → 1.00 on
another); it is given beside the first, not instead of it.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.optimize import linear_sum_assignment

from reports.writers import named_numbers, player_teams
from rules.events import violation_events

EVENT_REACH = 12     # frames either side of an event over which its player's track is matched to the truth


def _objects(fr: dict) -> list[dict]:
    return [o for o in fr["objects"] if o["role"] in ("player", "umpire")]


def match_frames(report: dict, truth: dict, match_yd: float = 3.0):
    """Per analysed frame: list of (report id, truth id, error yd)."""
    tframes = {fr["index"]: fr for fr in truth["frames"]}
    out = {}
    for fr in report["frames"]:
        tf = tframes.get(fr["index"])
        if tf is None:
            continue
        mine = fr["players"] + fr["umpires"]
        theirs = _objects(tf)
        pairs = []
        if mine and theirs:
            a = np.array([[o["x_yd"], o["y_yd"]] for o in mine], float)
            b = np.array([[o["x"], o["y"]] for o in theirs], float)
            d = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
            r, c = linear_sum_assignment(d)
            pairs = [(mine[i]["id"], theirs[j]["id"], float(d[i, j])) for i, j in zip(r, c) if d[i, j] <= match_yd]
        out[fr["index"]] = pairs
    return out


def _event_match(ev: dict, tev: dict, id_map, tol: int) -> bool:
    """`id_map(report id, event)`: the truth id of the event's player."""
    if ev["code"] != tev["code"]:
        return False
    if ev["start_frame"] > tev["end_frame"] + tol or tev["start_frame"] > ev["end_frame"] + tol:
        return False
    mine = {id_map(ev.get("player"), ev), id_map(ev.get("opponent"), ev)} - {None}
    theirs = {tev.get("player"), tev.get("opponent")} - {None}
    return mine == theirs


def _coverage(report: dict, truth: dict, matched: int, visible: float = 0.25) -> float | None:
    """Matched positions per truth player/umpire in view (at least `visible` of him seen) over
    the analysed frames: the error figures say nothing of the players a run did not place."""
    analysed = {fr["index"] for fr in report["frames"]}
    seen = sum(1 for fr in truth["frames"] if fr["index"] in analysed for o in _objects(fr)
               if o.get("visible_fraction", 1.0) >= visible)
    return round(matched / seen, 4) if seen else None


def _within_two_sigma(report: dict, truth: dict, pairs: dict) -> float | None:
    """Share of the matched positions' errors along x and along y within two sigmas along that axis."""
    theirs = {fr["index"]: {o["id"]: o for o in _objects(fr)} for fr in truth["frames"]}
    mine = {fr["index"]: {o["id"]: o for o in fr["players"] + fr["umpires"]} for fr in report["frames"]}
    z = []
    for idx, plist in pairs.items():
        for rid, tid, _ in plist:
            o, g = mine[idx][rid], theirs[idx][tid]
            cov = o.get("cov_yd2")
            if cov and None not in cov:
                sx, sy = np.sqrt(max(cov[0], 0.0)), np.sqrt(max(cov[2], 0.0))
            elif o.get("sigma_yd"):
                sx = sy = o["sigma_yd"]
            else:
                continue
            for err, sig in ((o["x_yd"] - g["x"], sx), (o["y_yd"] - g["y"], sy)):
                z.append(abs(err) <= 2 * sig)
    return round(float(np.mean(z)), 4) if z else None


def evaluate_report(report: dict, truth: dict, min_run: int | None = None, tolerance_frames: int = 5,
                    match_yd: float = 3.0) -> dict:
    min_run = min_run or report.get("options", {}).get("min_run", 3)
    pairs = match_frames(report, truth, match_yd)
    votes: dict[str, Counter] = {}
    errors = []
    for plist in pairs.values():
        for rid, tid, err in plist:
            votes.setdefault(rid, Counter())[tid] += 1
            errors.append(err)
    id_map = {rid: c.most_common(1)[0][0] for rid, c in votes.items()}

    def over_life(rid, _ev):
        return id_map.get(rid)

    def during(rid, ev):
        """The truth object `rid` was matched to most over the event's frames and EVENT_REACH
        frames either side (one frame's match in a scrum is a coin toss), else over its life."""
        seen = Counter(t for i in range(ev["start_frame"] - EVENT_REACH, ev["end_frame"] + EVENT_REACH + 1)
                       for r, t, _ in pairs.get(i, ()) if r == rid)
        return seen.most_common(1)[0][0] if seen else id_map.get(rid)

    # Id switches: a truth object's matched report id changing between frames.
    last: dict[str, str] = {}
    switches = 0
    for idx in sorted(pairs):
        for rid, tid, _ in pairs[idx]:
            if tid in last and last[tid] != rid:
                switches += 1
            last[tid] = rid

    expected = truth["expected"]["frames"]
    truth_events = violation_events(expected, min_run=min_run)
    analysed = {fr["index"] for fr in report["frames"]}
    truth_events = [e for e in truth_events if any(i in analysed for i in range(e["start_frame"], e["end_frame"] + 1))]
    mine = report["events"]

    def precision_recall(who):
        matched_mine = sum(any(_event_match(e, t, who, tolerance_frames) for t in truth_events) for e in mine)
        matched_truth = sum(any(_event_match(e, t, who, tolerance_frames) for e in mine) for t in truth_events)
        return (matched_mine / len(mine) if mine else (1.0 if not truth_events else 0.0),
                matched_truth / len(truth_events) if truth_events else 1.0)

    precision, recall = precision_recall(over_life)
    precision_at_event, recall_at_event = precision_recall(during)

    # The findings to check (not violations): how many match a true event, and the recall of
    # the violations and the list together (what a reviewer who looks at the list finds).
    listed = report.get("events_to_check") or []
    listed_true = sum(any(_event_match(e, t, over_life, tolerance_frames) for t in truth_events) for e in listed)
    found_with = sum(any(_event_match(e, t, over_life, tolerance_frames) for e in mine + listed) for t in truth_events)

    exp_by_index = {fr["index"]: fr for fr in expected}
    agree = [sorted({v["code"] for v in fr["violations"]}) == sorted({v["code"] for v in exp_by_index[fr["index"]]["violations"]})
             for fr in report["frames"] if fr["index"] in exp_by_index]
    t_ti, r_ti = truth.get("throw_in_frame"), report["throw_in"]["frame"]
    # Shirt numbers read (vision.shirt_numbers): right when the truth object the track follows
    # most is that team's player of that number (truth ids are "<team>-<number>").
    team_of = player_teams(report)
    named = named_numbers(report)
    # (A track never matched to a truth object, placed more than match_yd from every one, is not scored.)
    scored = {pid: n for pid, n in named.items() if pid in id_map}
    wrong = sorted(pid for pid, n in scored.items() if id_map[pid] != f"{team_of.get(pid)}-{n}")
    # The truth players at least one track of whom carries his number rightly.
    players = {o["id"] for fr in truth["frames"] for o in fr["objects"] if o["role"] == "player"}
    named_players = {id_map[pid] for pid in scored if pid not in wrong}
    err = np.array(errors) if errors else np.array([np.nan])
    return {"events": len(mine), "truth_events": len(truth_events),
            "event_precision": round(precision, 4), "event_recall": round(recall, 4),
            "event_precision_at_event": round(precision_at_event, 4), "event_recall_at_event": round(recall_at_event, 4),
            "to_check": len(listed), "to_check_true": listed_true,
            "event_recall_with_to_check": round(found_with / len(truth_events), 4) if truth_events else 1.0,
            "frame_agreement": round(float(np.mean(agree)), 4) if agree else None,
            "position_error_median_yd": round(float(np.nanmedian(err)), 3),
            "position_error_p95_yd": round(float(np.nanpercentile(err, 95)), 3),
            "matched_positions": len(errors), "position_coverage": _coverage(report, truth, len(errors)),
            "errors_within_2_sigma": _within_two_sigma(report, truth, pairs),
            "id_switches": switches,
            "shirt_numbers": len(named), "shirt_numbers_right": len(scored) - len(wrong), "shirt_numbers_wrong": wrong,
            "shirt_numbers_unmatched": len(named) - len(scored),
            "players_named": len(named_players & players), "players": len(players),
            "player_tracks": len(team_of),
            "throw_in_frame": r_ti, "truth_throw_in_frame": t_ti,
            "throw_in_frame_error": None if r_ti is None or t_ti is None else abs(r_ti - t_ti),
            "unmatched_events": [{k: e[k] for k in ("code", "player", "start_frame", "end_frame")}
                                 for e in mine if not any(_event_match(e, t, over_life, tolerance_frames) for t in truth_events)],
            "missed_events": [{k: e.get(k) for k in ("code", "player", "start_frame", "end_frame")}
                              for e in truth_events if not any(_event_match(m, e, over_life, tolerance_frames) for m in mine)]}
