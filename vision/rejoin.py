"""Give a track cut at a team change back the past of the player it carries on with.

vision.swaps cuts a track whose looks change team: the tracker carried it from one player
onto another, and the part after the cut becomes a new track. That new part is a player
whose own track was lost just then: the tracker, having carried the other track onto him,
had no box left for his own (wrong_side_plays_early, seed 2900: Red #4 rides past Blue #4,
who stands still, at 0.3 yd; Blue #4's track carries on with Red #4, and Red #4's own
track, the one on the wrong side at the throw-in, is lost there). Cut but not rejoined, the
part is a player with no line-up: his play before he may play is not seen.

`rejoin_cut_parts` gives the new part the id of the track of its team lost as it began: the
tracker's hand-over, where for a frame or two the carried track and the player's own one are
both on him (two boxes on one horse) and then the own one is lost. The lost track was last
seen from the frame before the part's first to REJOIN_OVERLAP frames into it, within
REJOIN_NEAR_YD of the part then; no other track of the team qualifies; and it is not seen again
for REJOIN_LOST_S after. Where the lost track is seen again later, the tracker has given its
id to someone else (often the player the new part was carried from): those later frames become
a track of their own. A track lost some frames before the part began is not taken: in the
bunch after a throw-in a track lost there and a part that begins a few frames later near its
place were two players (held-out slow_returner_blue1_delayed_foul, seed 1900: Blue #4's track
lost at frame 102, a part on Blue #3 from 105, 0.9 yd away).
"""
from __future__ import annotations

import numpy as np

from vision.frame_rate import frame_rate, scaled_frames

REJOIN_NEAR_YD = 2.0    # the lost track's last place this close to the new part's then ...
REJOIN_OVERLAP = 3      # ... last seen from the frame before the part to this many frames into it
                        # (frames of 25 frames/s footage; scaled to faster) ...
REJOIN_LOST_S = 0.5     # ... and then not seen for at least this long


def _sightings(frames: list) -> dict[int, list[int]]:
    """Each confirmed track's frame positions where it is placed, in order."""
    seen: dict[int, list[int]] = {}
    for pos, f in enumerate(frames):
        ok = (f.track_ids >= 0) & np.isfinite(f.field_yd).all(axis=1)
        for tid in f.track_ids[ok]:
            seen.setdefault(int(tid), []).append(pos)
    return seen


def _place(frame, tid: int) -> np.ndarray:
    return frame.field_yd[np.flatnonzero(frame.track_ids == tid)[0]]


def _lost_track(frames: list, voter, seen: dict, part: int, team: str, overlap: int, lost: int,
                near_yd: float) -> int | None:
    """The track of `team` lost where `part` began (see the module's docstring), or None."""
    start = seen[part][0]
    found = []
    for tid, pos in seen.items():
        if tid == part or voter.is_umpire(tid) or voter.identity(tid) != team:
            continue
        before = [p for p in pos if p <= start + overlap]
        if not before or before[0] >= start or before[-1] < start - 1:
            continue
        if any(start + overlap < p <= start + overlap + lost for p in pos):
            continue                                    # not lost: it goes on
        last = before[-1]
        at = max(last, start)
        if at not in seen[part]:
            continue
        d = float(np.hypot(*(_place(frames[last], tid) - _place(frames[at], part))))
        if d < near_yd:
            found.append((d, tid))
    return min(found)[1] if len(found) == 1 else None


def rejoin_cut_parts(frames: list, voter, looks: list[tuple], cuts: list[tuple[int, int, int]],
                     near_yd: float = REJOIN_NEAR_YD) -> list[tuple[int, int, int, int | None]]:
    """Rejoin each cut's new part (vision.swaps.split_swaps: (old id, new id, frame
    position)) to the track of its team lost where it began. `frames` (their track_ids) and
    `looks` (the voter's (frame position, track id, Appearance, umpire said)) are rewritten and
    the votes of the tracks changed redone. Returns (part id, id it takes, its first frame
    position, new id of the lost track's later frames or None) per rejoin."""
    if not cuts or not frames:
        return []
    fps = frame_rate([f.t for f in frames])
    lost = max(1, int(round(REJOIN_LOST_S * fps)))
    overlap = scaled_frames(REJOIN_OVERLAP, fps)
    next_id = 1 + max([int(f.track_ids.max()) for f in frames if len(f.track_ids)] + [0])
    done = []
    for _, part, _ in cuts:
        seen = _sightings(frames)
        team = voter.identity(part)
        if part not in seen or team is None or voter.is_umpire(part):
            continue
        tid = _lost_track(frames, voter, seen, part, team, overlap, lost, near_yd)
        if tid is None:
            continue
        start = seen[part][0]
        later = next((p for p in seen[tid] if p > start + overlap), None)
        for pos, f in enumerate(frames[start:], start):
            ids = f.track_ids
            if pos > start + overlap:
                ids[ids == tid] = next_id       # the lost id given to someone else: his own track
            elif (ids == part).any():
                ids[ids == tid] = -1            # the two boxes on one player: the part's is kept
            ids[ids == part] = tid
        for k, (pos, t, look, said) in enumerate(looks):
            if t == part:
                looks[k] = (pos, tid, look, said)
            elif t == tid and pos > start + overlap:
                looks[k] = (pos, next_id, look, said)
        changed = {part, tid, next_id}
        for t in changed:
            voter.forget(t)
        for pos, t, look, said in looks:
            if t in changed:
                voter.observe(t, look, umpire=said)
        done.append((part, tid, start, next_id if later is not None else None))
        next_id += 1
    return done
