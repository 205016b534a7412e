"""Withhold a side-of-the-line verdict when the rider's looks at the time name the other team.

A track's team is a vote over its whole life. Where the tracker carried it, for a while, from a
player onto an opponent hidden beside him (a dense line-up, riders bunched at the centre line)
and too few looks were taken there to cut it (vision.swaps), the track keeps its vote and puts
"a red player" on the blue side. Whether a player is on his own side depends on his team at
that moment: when the looks taken during a WRONG_SIDE event (or, when none was taken during
it, within WINDOW_S either side) name the other team more often than the track's own, and at
least MIN_CONTRARY times, the event is withheld, with its per-frame records, and listed with
the looks that made it doubtful. Looks after the event are not counted against those taken
during it: a track carried onto an opponent and back (jostling_at_centre: Blue #4's track on
Red #3's horse for frames 114-122, one red look at 115 there, two blue ones at 127 and 130
once back on Blue #4) was looked at as itself again as soon as it was back.
MIN_CONTRARY is 1: a track lost in the bunch and found again on an opponent's horse across the
line may be looked at only once there (a re-rendered clean_lineup: one red look, no blue one,
and a false WRONG_SIDE); a withheld event is still listed for the reviewer, a wrong verdict is
not what a reviewer should be shown first.
Only clear looks count (vision.swaps.named_looks, clear_only): a look nearly as close to both
team colours names neither, though it was taken during the event (a re-rendered
wrong_side_plays_early: Red #4 on the wrong side, seen over the shoulder of Blue #4 in front of
him, 27 such looks a little nearer blue withheld his WRONG_SIDE; with them naming neither, two
clear blue looks just after the event, as he rode past Blue #4, withheld it again).
"""
from __future__ import annotations

IDENTITY_CODES = ("WRONG_SIDE",)
WINDOW_S = 0.4
MIN_CONTRARY = 1


def withhold_doubtful(events: list[dict], verdict_frames: list[dict], looks: dict[int, list[tuple[int, str]]],
                      track_of: dict[str, int], cluster_of: dict[int, str | None], pos_of: dict[int, int],
                      window: int) -> tuple[list[dict], list[dict]]:
    """(events kept, events withheld). `looks` are each track's named looks
    (vision.swaps.named_looks), `track_of` maps a player id to its track id, `cluster_of` a
    track id to the colour cluster it was voted, `pos_of` a frame index to its position in
    the analysed frames; `window` is WINDOW_S in frame positions. The per-frame violation
    records of a withheld event are removed from `verdict_frames` (in place)."""
    kept, withheld = [], []
    for ev in events:
        tid = track_of.get(ev.get("player"))
        own = cluster_of.get(tid)
        if ev["code"] not in IDENTITY_CODES or tid is None or own is None:
            kept.append(ev)
            continue
        start, end = pos_of[ev["start_frame"]], pos_of[ev["end_frame"]]
        names = [n for p, n in looks.get(tid, []) if start <= p <= end]
        if not names:                   # none during the event: those just before and after it
            names = [n for p, n in looks.get(tid, []) if start - window <= p <= end + window]
        n_own = sum(n == own for n in names)
        n_other = sum(n is not None and n != own for n in names)     # (None: a look that named neither)
        if n_other >= MIN_CONTRARY and n_other > n_own:
            withheld.append({**ev, "withheld": "the rider's looks at the time name the other team",
                             "looks_own_team": n_own, "looks_other_team": n_other})
            for fr in verdict_frames:
                if ev["start_frame"] <= fr["index"] <= ev["end_frame"]:
                    fr["violations"] = [v for v in fr["violations"]
                                        if not (v["code"] == ev["code"] and v.get("player") == ev["player"])]
        else:
            kept.append(ev)
    return kept, withheld
