"""Split a track where it jumped from one team's player to the other's.

In a line-up the two teams' ranks stand a yard or two apart, and the tracker can carry a
track from a player onto his opponent beside him. Identity is a vote over a track's looks,
so such a track gets one team for all of it and puts a player on the wrong side of the
centre line. The looks tell: before the jump they are one team's colour, after it the
other's. A track whose looks, in time order, change from one team to the other (each side
at least MIN_LOOKS looks and PURITY of them that team) is cut there, and the part after the
cut becomes a new track with its own vote.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

MIN_LOOKS = 6
PURITY = 0.8


def change_point(names: list[str | None], min_looks: int = MIN_LOOKS, purity: float = PURITY) -> int | None:
    """Index of the first look after a change of team in `names` (None entries abstain), or
    None when the sequence does not change: each side needs `min_looks` votes, `purity` of
    them for its team, and the two teams must differ. The cut that leaves the fewest
    disagreeing votes wins."""
    voted = [(k, n) for k, n in enumerate(names) if n is not None]
    if len(voted) < 2 * min_looks:
        return None
    labels = [n for _, n in voted]
    best, best_bad = None, None
    for cut in range(min_looks, len(voted) - min_looks + 1):
        left, right = labels[:cut], labels[cut:]
        a = max(set(left), key=left.count)
        b = max(set(right), key=right.count)
        if a == b:
            continue
        good_l, good_r = left.count(a), right.count(b)
        if good_l < purity * len(left) or good_r < purity * len(right):
            continue
        bad = len(left) - good_l + len(right) - good_r
        if best_bad is None or bad < best_bad:
            best, best_bad = voted[cut][0], bad
    return best


def split_swaps(frames: list, voter, looks: list[tuple]) -> list[tuple[int, int, int]]:
    """Cut tracks whose looks change team. `frames` are vision.observe.FrameObs (their
    track_ids are rewritten), `looks` the (frame position, track id, Appearance, umpire
    said) the voter was fed, in order. The voter's votes are redone for the tracks cut.
    Returns (old id, new id, first frame position of the new id) per cut."""
    by_tid: dict[int, list] = defaultdict(list)
    for rec in looks:
        by_tid[rec[1]].append(rec)
    next_id = 1 + max([int(f.track_ids.max()) for f in frames if len(f.track_ids)] + [0])
    cuts = []
    for tid, recs in by_tid.items():
        if voter.is_umpire(tid):
            continue
        team = [r for r in recs if r[2].feature is not None
                and not (r[3] if r[3] is not None else r[2].umpire_score >= voter.umpire_threshold)]
        names = voter.look_names(np.array([r[2].feature for r in team])) if team else []
        k = change_point(names)
        if k is None:
            continue
        pos = team[k][0]
        cuts.append((tid, next_id, pos))
        next_id += 1
    for tid, new, pos in cuts:
        for f in frames[pos:]:
            f.track_ids[f.track_ids == tid] = new
        voter.forget(tid)
        for p, t, look, said in by_tid[tid]:
            voter.observe(new if p >= pos else tid, look, umpire=said)
    return cuts
