"""Split a track where it jumped from one team's player to the other's.

In a line-up the two teams' ranks stand a yard or two apart, and the tracker can carry a
track from a player onto his opponent beside him. Identity is a vote over a track's looks,
so such a track gets one team for all of it and puts a player on the wrong side of the
centre line. The looks tell: before the jump they are one team's colour, after it the
other's. A track whose looks, in time order, change from one team to the other (each side
at least MIN_LOOKS looks and PURITY of them that team) is cut there, and the part after the
cut becomes a new track with its own vote.

When two players of opposite teams cross (the bunch after a throw-in), the tracker can
exchange their ids: each track's looks change team at the same moment, the other way round.
Cutting both would lose who each player was in the line-up, which the wrong-side play rule
needs; `exchange_swaps` (run first) gives each track its own player back by exchanging the
two tracks' ids from that frame on.

Half-hidden riders give few looks. Where two tracks touch and there are too few looks to
tell, their motion can: a horse riding on does not stop dead at the moment another, standing
beside it, rides off the same way. `exchange_by_motion` exchanges two tracks' ids where their
velocities before and after the touch fit far better exchanged (wrong_side_plays_early: Red
#4 rides past Blue #4 at 0.3 yd, Blue #4's track carries on with him, and the play he makes
is given to Blue).
"""
from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict

import numpy as np

from vision.frame_rate import frame_rate, scaled_frames

MIN_LOOKS = 6
PURITY = 0.8
EXCHANGE_WINDOW = 15     # frames of looks on each side of an exchange ...
EXCHANGE_LOOKS = 2       # ... at least this many voting looks each side, for each track ...
EXCHANGE_PURITY = 0.75   # ... and this share of them one team's
EXCHANGE_NEAR_YD = 2.0   # the two tracks this close at the exchange
MOTION_NEAR_YD = 1.5     # exchange_by_motion: the two tracks this close (raw positions) ...
MOTION_SPAN = 12         # ... velocities fitted over this many frames each side ...
MOTION_SKIP = 2          # ... leaving out this many frames next to the touch (the boxes merge there)
MOTION_MIN_SEEN = 6      # ... from at least this many positions each side, each track
MOTION_GAIN_YDS = 4.0    # exchanged, the velocity changes must shrink by at least this (yd/s) ...
MOTION_SHARE = 0.35      # ... to at most this share of what they are as tracked
# The frame counts above are for 25 frames/s and are scaled to faster footage (vision.frame_rate).


def _rate(frames: list) -> float:
    return frame_rate([f.t for f in frames])


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


def run_of_other_team(names: list[str | None], min_looks: int = MIN_LOOKS, purity: float = PURITY
                      ) -> tuple[int, int] | None:
    """(first, end) indices in `names` of a run of one team's looks between two runs of the
    other's (a track carried onto an opponent and back), or None: each of the three runs needs
    `min_looks` votes and `purity` of them for its team, the middle one's team differing
    from both ends'. The cuts that leave the fewest disagreeing votes win."""
    voted = [(k, n) for k, n in enumerate(names) if n is not None]
    n = len(voted)
    if n < 3 * min_looks:
        return None
    labels = sorted({v for _, v in voted})
    onehot = np.array([[v == lab for lab in labels] for _, v in voted], int)       # (n, L)
    cum = np.vstack([np.zeros(len(labels), int), np.cumsum(onehot, axis=0)])      # (n+1, L)
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = (i >= min_looks) & (j - i >= min_looks) & (n - j >= min_looks)
    if not ok.any():
        return None
    left, mid, right = cum[i], cum[j] - cum[i], cum[n] - cum[j]                    # (n+1, n+1, L)
    best = [seg.max(axis=2) for seg in (left, mid, right)]
    size = [i, j - i, n - j]
    for b, sz in zip(best, size):
        ok &= b >= purity * np.maximum(sz, 1)
    ok &= (mid.argmax(axis=2) != left.argmax(axis=2)) & (mid.argmax(axis=2) != right.argmax(axis=2))
    if not ok.any():
        return None
    bad = np.where(ok, n - best[0] - best[1] - best[2], n + 1)
    a, b = np.unravel_index(np.argmin(bad), bad.shape)
    return voted[a][0], voted[b][0]


def team_look(rec: tuple, voter) -> bool:
    """A look (frame position, track id, Appearance, umpire said) that can vote for a team: it
    has a colour feature and is not an umpire's (by the detector's word, else the stripes)."""
    look, said = rec[2], rec[3]
    return look.feature is not None and not (said if said is not None else look.umpire_score >= voter.umpire_threshold)


def named_looks(looks: list[tuple], voter, clear_only: bool = False) -> dict[int, list[tuple[int, str | None]]]:
    """Per track id, (frame position, colour cluster name) of its looks that name a team, in
    the order taken (a defaultdict: a track without any has an empty list). `clear_only`: a
    look nearly as close to both team colours (vision.teams.AMBIGUOUS_RATIO) names neither:
    it is listed with None (it was taken, and said nothing)."""
    team = [r for r in looks if team_look(r, voter)]
    names, clear = voter.look_votes(np.array([r[2].feature for r in team])) if team else ([], [])
    out: dict[int, list[tuple[int, str | None]]] = defaultdict(list)
    for rec, name, ok in zip(team, names, clear):
        if name is not None:
            out[rec[1]].append((rec[0], name if ok or not clear_only else None))
    return out


def split_swaps(frames: list, voter, looks: list[tuple]) -> list[tuple[int, int, int]]:
    """Cut tracks whose looks change team. `frames` are vision.observe.FrameObs (their
    track_ids are rewritten), `looks` the (frame position, track id, Appearance, umpire
    said) the voter was fed, in order (the tuples of the tracks cut are rewritten with their
    new ids). A track carried onto an opponent and back (red, blue, red: run_of_other_team) is
    cut twice, and each part of a cut track is looked at again. The voter's votes
    are redone for the tracks cut. Returns (old id, new id, first frame position of the new
    id) per cut."""
    by_tid: dict[int, list] = defaultdict(list)
    for rec in looks:
        by_tid[rec[1]].append(rec)
    next_id = 1 + max([int(f.track_ids.max()) for f in frames if len(f.track_ids)] + [0])
    cuts = []
    todo = [(tid, recs) for tid, recs in by_tid.items() if not voter.is_umpire(tid)]
    while todo:
        tid, recs = todo.pop()
        team = [r for r in recs if team_look(r, voter)]
        names = voter.look_names(np.array([r[2].feature for r in team])) if team else []
        k = change_point(names)
        if k is not None:
            pos = team[k][0]
            cuts.append((tid, next_id, pos))
            todo += [(tid, [r for r in recs if r[0] < pos]), (next_id, [r for r in recs if r[0] >= pos])]
            next_id += 1
            continue
        run = run_of_other_team(names)
        if run is not None:
            a, b = team[run[0]][0], team[run[1]][0]
            cuts += [(tid, next_id, a), (next_id, next_id + 1, b)]
            todo += [(tid, [r for r in recs if r[0] < a]), (next_id, [r for r in recs if a <= r[0] < b]),
                     (next_id + 1, [r for r in recs if r[0] >= b])]
            next_id += 2
    # In the order found: a later cut of a track's earlier part only meets the frames that
    # still carry its id, those before the first cut.
    for tid, new, pos in cuts:
        for f in frames[pos:]:
            f.track_ids[f.track_ids == tid] = new
    cut = {c[0] for c in cuts}
    for tid in cut:
        voter.forget(tid)
    for k, (p, tid, look, said) in enumerate(looks):
        if tid in cut:
            looks[k] = (p, _owner_at(tid, p, cuts), look, said)
            voter.observe(looks[k][1], look, umpire=said)
    return cuts


def _owner_at(tid: int, pos: int, cuts: list[tuple[int, int, int]]) -> int:
    """The id that track `tid`'s look at frame position `pos` has after `cuts` (old id, new
    id, first position of the new id; in the order found)."""
    for old, new, start in cuts:
        if old == tid and pos >= start:
            tid = new
    return tid


def _window(seq: list[tuple[int, str]], lo: int, hi: int) -> list[tuple[int, str]]:
    """The looks of `seq` (sorted by frame position) at positions [lo, hi)."""
    return seq[bisect_left(seq, (lo, "")):bisect_left(seq, (hi, ""))]


def _team_of(seq: list[tuple[int, str]], lo: int, hi: int) -> str | None:
    """The team of the looks at frame positions [lo, hi), when there are EXCHANGE_LOOKS of them
    and EXCHANGE_PURITY are one team's."""
    names = [n for _, n in _window(seq, lo, hi)]
    if len(names) < EXCHANGE_LOOKS:
        return None
    best = max(set(names), key=names.count)
    return best if names.count(best) >= EXCHANGE_PURITY * len(names) else None


def _best_cut(frames: list, seq: dict, a: int, b: int, team_a: str, team_b: str, first: int, window: int) -> int:
    """Where, from `first` on (within half a window), the exchange fits the looks best: most of
    a's looks `team_a` before the cut and `team_b` after it, b's the other way round; among
    equals, where the two tracks are closest."""
    def fit(cut: int) -> int:
        return sum((n == (team_a if t == a else team_b)) if p < cut else (n == (team_b if t == a else team_a))
                   for t in (a, b) for p, n in _window(seq[t], cut - window, cut + window))

    def gap(cut: int) -> float:
        f = frames[cut]
        ia, ib = np.flatnonzero(f.track_ids == a), np.flatnonzero(f.track_ids == b)
        d = float(np.hypot(*(f.field_yd[ia[0]] - f.field_yd[ib[0]]))) if len(ia) and len(ib) else np.inf
        return d if np.isfinite(d) else np.inf     # an unplaced track (NaN position) is far

    cuts = range(first, min(first + window // 2 + 1, len(frames)))
    return max(cuts, key=lambda c: (fit(c), -gap(c)))


def _touching_pairs(frames: list, voter, near_yd: float):
    """(frame position, a, b) for each two placed tracks, neither an umpire's, less than
    `near_yd` apart, frame by frame; ids are read as each pair is reached, so an exchange
    made by the caller meanwhile is seen."""
    for pos, f in enumerate(frames):
        ids = f.track_ids
        live = np.flatnonzero((ids >= 0) & np.isfinite(f.field_yd).all(axis=1))
        xy = f.field_yd[live]
        close = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1]) < near_yd
        for i, j in zip(*np.nonzero(np.triu(close, 1))):
            a, b = int(ids[live[i]]), int(ids[live[j]])
            if not (voter.is_umpire(a) or voter.is_umpire(b)):
                yield pos, a, b


def exchange_swaps(frames: list, voter, looks: list[tuple], window: int | None = None,
                   near_yd: float = EXCHANGE_NEAR_YD) -> list[tuple[int, int, int]]:
    """Undo id exchanges between two players of opposite teams. At frame position p, tracks a
    and b (less than `near_yd` apart) have exchanged when a's looks are one team's over the
    `window` frames before p and the other's over the `window` from p, and b's the other way
    round; from p on their ids are exchanged back (in `frames` and in `looks`, whose tuples
    are rewritten) and the voter's votes redone. Returns (a, b, p) per exchange, in time order.
    `window` defaults to EXCHANGE_WINDOW scaled to the frames' rate."""
    window = scaled_frames(EXCHANGE_WINDOW, _rate(frames)) if window is None else window
    seq = named_looks(looks, voter)
    if not seq:
        return []
    done = []
    last_pair: dict[tuple[int, int], int] = {}
    for pos, a, b in _touching_pairs(frames, voter, near_yd):
        pair = (min(a, b), max(a, b))
        if pos - last_pair.get(pair, -window) < window:
            continue
        a_before, a_after = _team_of(seq[a], pos - window, pos), _team_of(seq[a], pos, pos + window)
        b_before, b_after = _team_of(seq[b], pos - window, pos), _team_of(seq[b], pos, pos + window)
        if None in (a_before, a_after, b_before, b_after) or a_before == b_before \
                or a_after != b_before or b_after != a_before:
            continue
        at = _best_cut(frames, seq, a, b, a_before, b_before, pos, window)
        _exchange_ids(frames, a, b, at)
        ka, kb = bisect_left(seq[a], (at, "")), bisect_left(seq[b], (at, ""))
        seq[a], seq[b] = seq[a][:ka] + seq[b][kb:], seq[b][:kb] + seq[a][ka:]
        last_pair[pair] = at
        done.append((a, b, at))
    _redo_looks(done, looks, voter)
    return done


def _exchange_ids(frames: list, a: int, b: int, at: int) -> None:
    """Tracks a and b exchange ids in `frames` from frame position `at` on."""
    for g in frames[at:]:
        in_a, in_b = g.track_ids == a, g.track_ids == b
        g.track_ids[in_a], g.track_ids[in_b] = b, a


def _redo_looks(done: list[tuple[int, int, int]], looks: list[tuple], voter) -> None:
    """After exchanges (a, b, frame position, in time order): rewrite the looks' track ids
    and redo the two tracks' votes."""
    if not done:
        return
    swapped = {t for a, b, _ in done for t in (a, b)}
    for k, (pos, tid, look, said) in enumerate(looks):
        for a, b, at in done:            # in time order: each exchange applies from its frame on
            if pos >= at and tid in (a, b):
                tid = b if tid == a else a
        looks[k] = (pos, tid, look, said)
    for tid in swapped:
        voter.forget(tid)
    for pos, tid, look, said in looks:
        if tid in swapped:
            voter.observe(tid, look, umpire=said)


def _velocity(frames: list, tid: int, lo: int, hi: int, min_seen: int = MOTION_MIN_SEEN) -> np.ndarray | None:
    """(2,) yd/s: the least-squares slope of track `tid`'s raw field positions over frame
    positions [lo, hi), or None with fewer than `min_seen` of them."""
    ts, xy = [], []
    for pos in range(max(lo, 0), min(hi, len(frames))):
        f = frames[pos]
        k = np.flatnonzero(f.track_ids == tid)
        if len(k) and np.isfinite(f.field_yd[k[0]]).all():
            ts.append(f.t), xy.append(f.field_yd[k[0]])
    if len(ts) < min_seen:
        return None
    t = np.array(ts) - ts[0]
    A = np.c_[t, np.ones(len(t))]
    return np.linalg.lstsq(A, np.array(xy), rcond=None)[0][0]


def exchange_by_motion(frames: list, voter, looks: list[tuple], near_yd: float = MOTION_NEAR_YD,
                       span: int | None = None, skip: int | None = None) -> list[tuple[int, int, int]]:
    """Exchange two tracks' ids from the frame where they touch (raw positions within
    `near_yd`) when their velocities (over `span` frames each side, `skip` frames from the
    touch left out) change by MOTION_GAIN_YDS less exchanged than as tracked, and exchanged
    by at most MOTION_SHARE of it: a track that rode on stops dead as the other, standing
    beside it, rides off. Umpires' tracks are left alone. `frames` (their track_ids) and
    `looks` are rewritten and the votes redone, as by exchange_swaps. Returns (a, b, frame
    position) per exchange, in time order. `span` and `skip` default to MOTION_SPAN and
    MOTION_SKIP (and MOTION_MIN_SEEN with them) scaled to the frames' rate."""
    fps = _rate(frames)
    span = scaled_frames(MOTION_SPAN, fps) if span is None else span
    skip = scaled_frames(MOTION_SKIP, fps) if skip is None else skip
    min_seen = scaled_frames(MOTION_MIN_SEEN, fps)
    done = []
    last_pair: dict[tuple[int, int], int] = {}
    for pos, a, b in _touching_pairs(frames, voter, near_yd):
        pair = (min(a, b), max(a, b))
        if pos - last_pair.get(pair, -2 * span) < 2 * span:
            continue
        v = [_velocity(frames, t, lo, hi, min_seen) for t in (a, b)
             for lo, hi in ((pos - skip - span, pos - skip), (pos + skip + 1, pos + skip + 1 + span))]
        if any(x is None for x in v):
            continue
        a_in, a_out, b_in, b_out = v
        kept = np.hypot(*(a_out - a_in)) + np.hypot(*(b_out - b_in))
        swapped = np.hypot(*(b_out - a_in)) + np.hypot(*(a_out - b_in))
        if kept - swapped < MOTION_GAIN_YDS or swapped > MOTION_SHARE * kept:
            continue
        _exchange_ids(frames, a, b, pos)
        last_pair[pair] = pos
        done.append((a, b, pos))
    _redo_looks(done, looks, voter)
    return done
