"""Who counts as a player: at most `max_per_team` players of a team at a time, on the field.

Footage near the boards shows grooms, spare horses and spectators; a detector and the jersey
vote may make them tracks of a team. The documented degraded result:
- a track whose median position lies off the field (beyond a sideline or an end line by more
  than `margin_yd`) is nobody's player: it is left out of the rules and of the report;
- where a team has more than `max_per_team` tracks at once, only the `max_per_team` nearest
  the play take part in that frame (ranked by their median distance to the umpire over the
  clip; without an umpire, by the frames they were seen in); the others' positions are
  masked there. A split track of one player never overlaps itself in time, so it is kept.
  First, though, of two tracks closer than CROWDED_YD in that frame the one seen in fewer
  frames goes: a rank's horses stand 2.4-2.9 yd apart, and a detector's box between two of
  them (or half on one) makes a track nearer the umpire than the rank's far end (session 19:
  with a retrained detector, clean_two_umpires' front horse Red #4 was masked for 86 frames
  in favour of such a track: p95 2.73 -> 1.47 yd. With the shipped detector the samples'
  figures move by 0.03 yd at most; held-out, slow_returner_red2's p95 2.01 -> 0.98 yd, 5 of
  12 clips meeting every target instead of 4; jostling_at_centre, which fails either way,
  lost its one right event of 12).
- two tracks of a team closer than DOUBLED_YD (of both teams: OPPONENTS_DOUBLED_YD, as
  opponents in contact may be measured nearer than team-mates abreast) are one horse followed
  twice (no two horses can stand that close: they are ~0.7 yd wide and 2.5 yd long); in such
  frames the track seen in fewer frames is masked (seen on a re-rendered advancing_on_umpire:
  a second track on Red #1, 0.1 yd from the first, made a 5-yard event of its own).
- a track's position carried across a gap (`guessed`: a straight-line guess, no sighting of
  its own) within GUESSED_DOUBLED_YD of a team-mate's track seen in that frame is masked there:
  team-mates in a line-up stand a horse's length apart (2.4-2.9 yd on the samples), so a guess
  that near a seen horse is that horse followed twice, the detector's boxes on it alternating
  between two tracks (seen on a re-rendered slow_returner_red2: a second Blue #4 track, 0.95 yd
  off, shifted the matching of the whole blue rank). On the 12 samples this lowered the 95th
  percentile position error on 9 clips (jostling_at_centre 1.58 -> 1.32 yd) for 1-7 points
  fewer players placed; events unchanged (session 14). The cost: a team-mate riding abreast
  a yard behind another, hidden by him and carried across the gap, drops out for that gap.
  (Two seen tracks stay under DOUBLED_YD: a team-mate abreast can be 0.95 yd away. Raising
  it to 1.0 yd lowered p95 a little more, but that would mask such a pair.)
- a team's track nearer than UMPIRE_DOUBLED_YD to an umpire's track is the umpire's horse
  followed twice (the umpire rides a horse too): the player's position is masked there, the
  umpire's kept (seen on a re-rendered jostling_at_centre: a second track on the umpire's horse,
  0.05-0.27 yd from his, voted red, made a 5-yard event of 20 frames; over the 48 sample and
  re-rendered clips no track of a true player came within 1.2 yd of the umpire's).
Umpires are not capped (one or two, plus whoever the vote calls an umpire).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Roster:
    outside: list[int] = field(default_factory=list)        # track ids left out: off the field
    masked_frames: int = 0                                   # frames where a team had too many tracks
    masked_positions: int = 0                                # (track, frame) positions masked for that
    doubled_positions: int = 0                               # positions masked as a second track on one horse


DOUBLED_YD = 0.6
OPPONENTS_DOUBLED_YD = 0.3  # opponents in contact stand ~0.7 yd apart (a horse's width), measured a few tenths nearer
CROWDED_YD = 2.0         # closer than any two horses of a line-up rank
GUESSED_DOUBLED_YD = 1.5   # a gap's guess this near a team-mate's sighting is that horse again
UMPIRE_DOUBLED_YD = 0.5    # under a horse's width (~0.7 yd): a player this near the umpire is his horse again


def _nearer(xy: np.ndarray, a: int, b: int, yd: float) -> np.ndarray:
    """(F,) the frames where tracks a and b (rows of xy, T x F x 2) are nearer than `yd`."""
    with np.errstate(invalid="ignore"):
        return np.hypot(*(xy[a] - xy[b]).T) < yd


def _mask_doubled(xy: np.ndarray, seen: np.ndarray, k: int, where: np.ndarray, roster: "Roster") -> None:
    """Mask track k's positions where `where` (F,): a horse followed twice, this the second."""
    xy[k, where] = np.nan
    seen[k, where] = False
    roster.doubled_positions += int(where.sum())


def _rank_key(xy: np.ndarray, k: int, umpire: np.ndarray | None, seen: np.ndarray):
    if umpire is not None:
        with np.errstate(invalid="ignore"):
            d = np.hypot(*(xy[k] - umpire).T)
        d = d[np.isfinite(d)]
        if len(d):
            return (0, float(np.median(d)))
    return (1, -float(seen[k].sum()))


def limit_roster(identity: dict[int, str], tids: list[int], xy: np.ndarray, teams: list[str],
                 length_yd: float, width_yd: float, max_per_team: int = 4, margin_yd: float = 5.0,
                 umpire_label: str = "umpire", guessed: np.ndarray | None = None
                 ) -> tuple[dict[int, str], np.ndarray, Roster]:
    """(identity without off-field tracks, xy with the excess masked, what was done).

    xy: (T, F, 2) yards per track (row k is tids[k]); not modified.
    """
    roster = Roster()
    ident = dict(identity)
    xy = xy.copy()
    for k, tid in enumerate(tids):
        if ident.get(tid) not in teams:
            continue
        pts = xy[k][np.isfinite(xy[k, :, 0])]
        if not len(pts):
            continue
        mx, my = np.median(pts, axis=0)
        if not (-margin_yd <= mx <= length_yd + margin_yd and -margin_yd <= my <= width_yd + margin_yd):
            ident.pop(tid)
            roster.outside.append(int(tid))
    seen = np.isfinite(xy[:, :, 0])
    rows_of = {team: [k for k, tid in enumerate(tids) if ident.get(tid) == team] for team in teams}
    for rows in rows_of.values():           # a second track on one horse: the one seen less goes
        rows = sorted(rows, key=lambda k: (-seen[k].sum(), tids[k]))
        for i, a in enumerate(rows):
            for b in rows[i + 1:]:
                with np.errstate(invalid="ignore"):
                    d = np.hypot(*(xy[a] - xy[b]).T)
                twin = d < DOUBLED_YD
                if guessed is not None:      # a gap's guess where a team-mate's track sees a horse
                    near = d < GUESSED_DOUBLED_YD
                    a_guess = near & guessed[a] & ~guessed[b]
                    twin |= near & guessed[b] & ~guessed[a]
                    _mask_doubled(xy, seen, a, a_guess, roster)
                _mask_doubled(xy, seen, b, twin, roster)
    # Two tracks of opposing teams nearer than OPPONENTS_DOUBLED_YD are one horse too: a second
    # track on a horse, voted the other team, made a contact 0.15 yd long on a five-throw-in
    # recording seen from afar.
    players = sorted((k for team_rows in rows_of.values() for k in team_rows), key=lambda k: (-seen[k].sum(), tids[k]))
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            if ident.get(tids[a]) != ident.get(tids[b]):
                _mask_doubled(xy, seen, b, _nearer(xy, a, b, OPPONENTS_DOUBLED_YD), roster)
    ump_rows = [k for k, tid in enumerate(tids) if ident.get(tid) == umpire_label]
    for a in ump_rows:                       # the umpire's horse followed twice: the player goes
        for b in players:
            _mask_doubled(xy, seen, b, _nearer(xy, a, b, UMPIRE_DOUBLED_YD), roster)
    umpire = None
    if ump_rows:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)             # frames with no umpire: NaN
            umpire = np.nanmean(xy[ump_rows], axis=0)                           # (F, 2), NaN where none seen
    masked = np.zeros(xy.shape[1], bool)
    for rows in rows_of.values():
        if len(rows) <= max_per_team:
            continue
        order = sorted(rows, key=lambda k: (*_rank_key(xy, k, umpire, seen), tids[k]))   # nearest the play first
        rank = np.array(order)
        present = seen[rank]                                                   # (R, F) in rank order
        drop = np.zeros_like(present)
        frames_seen = present.sum(axis=1)                                      # (R,) each track's frames
        for f in np.flatnonzero(present.sum(axis=0) > max_per_team):
            live = list(np.flatnonzero(present[:, f]))
            while len(live) > max_per_team:
                p = xy[rank[live], f]
                d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1])
                np.fill_diagonal(d, np.inf)
                i, j = np.unravel_index(np.argmin(d), d.shape)
                if d[i, j] < CROWDED_YD:          # the one seen less of two too close for a rank
                    out = min((live[i], live[j]), key=lambda r: (frames_seen[r], -r))
                else:
                    out = live[-1]
                live.remove(out)
                drop[out, f] = True
        for r, k in enumerate(rank):
            xy[k, drop[r]] = np.nan
        roster.masked_positions += int(drop.sum())
        masked |= drop.any(axis=0)
    roster.masked_frames = int(masked.sum())
    return ident, xy, roster
