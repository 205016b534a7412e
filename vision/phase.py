"""Line-up, throw-in and play, from the footage.

The throw-in frame is found, in order of preference, from
1. the ball (seen by the detector or the ball stage) leaving the umpire's hand: see
   throw_in_from_ball, back-dated one frame to the release;
2. the players: the end of the line-up's stillness, the first frame from which at least
   `movers` players ride faster than `speed_yds`, after at least `still_s` of stillness;
   unless the ball is seen still in the umpire's hand through the next HELD_CHECK_S (players
   who ride at the umpire before he throws have not started play), when the next such
   start is taken.
Play cannot start before the throw-in: a start from the players before the release found
from the ball wins (that "release" was a later hit; the thrown ball was not seen), unless
the players stood again at that release (fewer than two riding, for at least STOOD_S, from
before it): what moved them was the line-up's own shuffling, not play.
Frames before the throw-in are the line-up, after it play. A user override wins.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.document import LINEUP, PLAY, THROW_IN
from vision.detections import inside_grown
from vision.frame_rate import REFERENCE_FPS, frame_rate, per_reference, scaled_frames


# The ball's constants below count frames of 25 frames/s footage (vision.frame_rate): on
# faster footage throw_in_from_ball scales them (twice the frames, half the pixels a frame at 50/s).
HELD_RECENT_FRAMES = 25      # a ball seen in hand vouches for a throw of two sightings this long after
                             # (a second at 25 frames/s; a re-rendered jostling_at_centre: a fleck held
                             # at frame ~75, two scattered ones at 105 and 107 made a throw-in)
HAND_MARGIN = 0.1            # "in his hand": inside the umpire's box grown by this share of its height
RELEASE_LAG_FRAMES = 1       # the ball is first seen clear of the hand about a frame after its release
THROW_SPEED = 0.06           # a thrown ball moves at least this many umpire box heights a frame (measured
                             # 0.07-0.17 on the samples; a walking rider's white glove or breeches ~0.04)
SLOW_THROW_SPEED = 0.03     # a throw along the camera's line of sight moves slowly in the image (a re-rendered
                             # clean_lineup_pan, the camera behind the umpire: 0.047 box heights a frame) ...
SLOW_THROW_SIGHTINGS = 4     # ... and counts when this many sightings drop from his box at this speed or more
DROP_GAP_FRAMES = 8          # a ball seen leaving his hand and, at most this many frames later, ...
DROP_MIN = 0.15              # ... this many box heights lower (and more down than across) fell from it:
                             # an underhand throw into the ranks seen from behind him, the ball hidden by
                             # his body and the horses between (re-rendered wrong_side_plays_early and
                             # slow_returner_blue1_delayed_foul: seen at 64-65, then at 71 0.22-0.31 lower)
LAND_FRAMES = 25             # a ball seen in his box and, within this many frames, found lying on the ground
LAND_BELOW = 0.15            # ... this many box heights lower than that sighting and under his box ...
LAND_SIGHTINGS = 2           # ... seen this many times in a row (within 3 frames), each less than
LAND_SPEED = 0.03            # ... this many box heights a frame from the one before (lying or rolling), ...
LAND_NEW = 0.1               # ... and no sighting within this many box heights of there in the
                             # HELD_RECENT_FRAMES before: thrown there (re-rendered clean_two_umpires, seeds
                             # 900 and 1900: the throw seen once or twice in his box, its flight hidden by
                             # the line-up, the ball then seen lying 15-23 frames later; a still white
                             # thing on the ground there, seen before, is no ball thrown)
LINE_TOLERANCE = 0.05        # the third sighting's distance from the line, in box heights per frame since the first
STILL_PX = 1.5               # a sighting outside the umpire's box within this many pixels (relative to him) of ...
STILL_REPEATS = 3            # ... this many others within HELD_RECENT_FRAMES either side is a still fleck (a raised
                             # mallet's head: a two-throw-in recording's second line-up had four in a row above
                             # him, one per rank, seen by turns in an order that drew a throw), never a ball in flight
SPEED_WINDOW_S = 0.4         # the players' speeds are measured over this long (noise ~1 yd/s, not ~5)
HELD_CHECK_S = 1.0           # after a start of play from the players, look this long for a ball still in hand
HELD_NEAR = 1.0              # "in hand": within this many umpire box heights of the box centre
HELD_SHARE = 0.5             # ... seen in at least this share of the frames (the samples: all or none)
PLAY_SPEED = 4.0             # after a start, play reaches this (yd/s; a walk at the umpire is ~1.5) ...
CONFIRM_S = 1.0              # ... for at least two players within this long
PLAY_SUSTAIN_S = 0.5         # ... each time for this long: longer than SPEED_WINDOW_S, so that a track's
                             # step (an id passed to the neighbour in the rank, 3 yd deeper) cannot pass for
                             # play alone: it raises the speed over SPEED_WINDOW_S for that long only (a
                             # re-rendered advancing_on_umpire, riders walking at the umpire at 1.5 yd/s seen
                             # end-on: two tracks stepping between neighbours at 5-9 yd/s for 0.3-0.4 s made a
                             # throw-in from the players; at 0.3 s, as before session 26)
BALL_CONFIRM_S = 2.0         # a throw-in seen from the ball: play follows within this long (the
                             # ball must reach the players first; on the samples' true positions 0.9-1.3 s)
START_MOVERS = 2             # a start of play from the players: at least this many ride ...
START_SPEED_YDS = 2.5        # ... faster than this (throw_in_from_players; stood_at counts the same way)
STOOD_S = 1.0                # players standing this long at a release seen from the ball, after a "start of
                             # play" from them: that start was not play (a re-rendered slow_returner_red2, seeds
                             # 900 and 1900: the returner riding in front of his rank while the tracks behind him
                             # traded places made a start at 130-133, then the line-up stood, moving counts 0-1
                             # for 1.3 s, while the ball was thrown at 170; in the 3 s after the true start of
                             # play on the 48 clips, fewer than two rode for at most 0.24 s)
END_CHECK_S = 1.0            # a release too near the end for play to be seen in full is taken unless
                             # at least this much footage follows it and no player rides off in it


@dataclass
class ThrowIn:
    frame: int | None
    method: str                    # "ball", "players", "override" or "none"


def speeds(xy: np.ndarray, t: np.ndarray, window_s: float = 0.0) -> np.ndarray:
    """(T, F) speed in yd/s by central differences over about `window_s` (at least one frame
    each side); NaN where unknown. Over a few frames a position's noise (a fraction of a
    yard) is several yards a second; over SPEED_WINDOW_S it is about one."""
    v = np.full(xy.shape[:2], np.nan)
    F = xy.shape[1]
    dt_frame = float(np.median(np.diff(t))) if F > 1 else 0.0
    k = max(1, int(round(window_s / 2 / dt_frame))) if dt_frame > 0 else 1
    if F < 2 * k + 1:
        return v
    dt = (t[2 * k:] - t[:-2 * k])[None, :]
    d = np.hypot(*(xy[:, 2 * k:] - xy[:, :-2 * k]).transpose(2, 0, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        v[:, k:-k] = d / np.where(dt > 0, dt, np.nan)
    return v


def throw_in_from_ball(ball_px: np.ndarray, umpire_box: np.ndarray, near: float = 2.5, start: int = 0,
                       fps: float = REFERENCE_FPS) -> int | None:
    """The release: the first sighting of the ball next to the umpire (within `near` of his
    box height of the box centre, in the image: an airborne ball cannot be placed on the
    ground) that is away from where he held it, confirmed by a next sighting (within 3
    frames) that is not back in his hand; back-dated one frame to the release. A ball held
    still (its offset from his box centre unchanged, to a twentieth of his height; first seen
    inside his box, grown by HAND_MARGIN) is not thrown; a still fleck outside his box
    (_still_flecks) is not looked at; a lone sighting is not a throw (unless it is in his box
    and the next, after a gap, is well below it: _dropped_to_ground), nor a
    slow one (THROW_SPEED; unless it drops from his box, _drops_from_hand), nor (unless the
    ball was seen in his hand first, within HELD_RECENT_FRAMES, and the first of the two is in
    his box, where a ball leaving his hand is first seen) two without a third in line with
    them. Sightings before frame `start` are not looked at.
    The frame counts and speeds a frame are for REFERENCE_FPS; `fps` above it scales them
    (below it they stay: a frame stride makes the same sightings farther apart, which these
    allow for)."""
    r = per_reference(fps)                                 # frames of this footage per reference frame
    gap = scaled_frames(3, fps)                            # the next sighting: within 3 reference frames
    recent = HELD_RECENT_FRAMES * r
    cx = (umpire_box[:, 0] + umpire_box[:, 2]) / 2
    cy = (umpire_box[:, 1] + umpire_box[:, 3]) / 2
    h = umpire_box[:, 3] - umpire_box[:, 1]
    off = ball_px - np.stack([cx, cy], axis=1)             # the ball relative to the umpire
    with np.errstate(invalid="ignore"):
        d = np.hypot(off[:, 0], off[:, 1]) / h
    idx = np.flatnonzero(d < near)
    idx = idx[idx >= start]
    # A ball held still is in his hand only inside his box (grown by HAND_MARGIN of its
    # height): a fleck held still above his head is not a ball that can vouch for a throw.
    hand = inside_grown(ball_px, umpire_box, HAND_MARGIN)
    near_idx = idx
    idx = idx[~_still_flecks(idx, off, hand, recent)]
    held = None                                            # offset of the ball last seen in hand
    held_at = -1                                           # ... and its frame
    for k, a in enumerate(idx):
        nxt = idx[k + 1] if k + 1 < len(idx) else None
        if held is not None and a - held_at > recent:
            held = None                                    # seen in hand too long ago to vouch for a throw
        if _in_hand(off[a], held, h[a]):
            held, held_at = off[a], a                      # still in his hand
            continue
        if held is None and nxt is not None and nxt - a <= gap and hand[a] \
                and np.hypot(*(off[nxt] - off[a])) < 0.02 * h[a] * (nxt - a) / r:
            held, held_at = off[a], a                      # first seen, held still (in his hand)
            continue
        if nxt is None or nxt - a > gap:
            if _dropped_to_ground(a, idx, off, h, hand, held, gap, r) \
                    or _landed_below(a, near_idx, ball_px, umpire_box, hand, gap, r, recent):
                return max(0, int(a) - scaled_frames(RELEASE_LAG_FRAMES, fps))
            continue                                       # a lone sighting: not enough
        if _in_hand(off[nxt], held, h[nxt]):
            continue                                       # back in hand next: a jitter
        if np.hypot(*(off[nxt] - off[a])) < THROW_SPEED * h[a] * (nxt - a) / r \
                and not _drops_from_hand(idx[k:], off, h, hand, gap, r):
            continue                                       # too slow for a throw: a walking rider's glove
        # A third sighting (within `gap` frames) on the line the first two draw: two unrelated
        # false sightings in a row can look like a fast ball, three in line seldom do.
        vel = (off[nxt] - off[a]) / (nxt - a)
        later = idx[(idx > nxt) & (idx <= nxt + gap)]
        err = np.hypot(*(off[later] - (off[nxt] + vel * (later - nxt)[:, None])).T) if len(later) else np.zeros(0)
        # After a ball seen in hand two will do, the first in his box: what vouched may be a white
        # fleck at his knee (a re-rendered slow_returner_red2: one seen there for 4 s, then two
        # stray sightings over his shoulder made a throw-in 28 frames early).
        if (held is None or not hand[a]) and not np.any(err < LINE_TOLERANCE * h[a] * (later - a) / r) \
                and not _landed_below(a, near_idx, ball_px, umpire_box, hand, gap, r, recent):
            continue
        return max(0, int(a) - scaled_frames(RELEASE_LAG_FRAMES, fps))
    return None


def _in_hand(offset: np.ndarray, held: np.ndarray | None, height: float) -> bool:
    """A sighting at `offset` from the umpire's box centre is where the ball was last held
    (`held`, None if not seen held), to a twentieth of his box `height`."""
    return held is not None and bool(np.hypot(*(offset - held)) < 0.05 * height)


def _dropped_to_ground(a: int, idx: np.ndarray, off: np.ndarray, h: np.ndarray, hand: np.ndarray,
                       held: np.ndarray | None, gap: int, r: float) -> bool:
    """A sighting `a` in the umpire's box (his hand) whose next sightings come after a gap (more
    than `gap` frames): the first of them within DROP_GAP_FRAMES (reference frames, `r` each)
    that is at least DROP_MIN of his box height lower than `a` and moved more down than across
    says the ball fell from his hand: thrown down into the ranks. One back at the place it was
    held (`held`) first says it is still in his hand; a glove or a fleck beside him moves across
    or up, not straight down and away from the hand."""
    if not hand[a]:
        return False
    later = idx[(idx > a + gap) & (idx <= a + DROP_GAP_FRAMES * r)]
    for b in later:
        dy, dx = off[b, 1] - off[a, 1], off[b, 0] - off[a, 0]
        if _in_hand(off[b], held, h[b]):
            return False
        if dy >= DROP_MIN * h[a] and abs(dx) <= dy:
            return True
    return False


def _landed_below(a: int, idx: np.ndarray, ball_px: np.ndarray, box: np.ndarray, hand: np.ndarray, gap: int,
                  r: float, recent: float) -> bool:
    """A sighting `a` in the umpire's box (his hand) after which, within LAND_FRAMES (reference
    frames, `r` each), the ball is found lying on the ground under him: LAND_SIGHTINGS in a row
    (each within `gap` frames of the one before and moving less than LAND_SPEED box heights a
    reference frame), each below his box and at least LAND_BELOW box heights lower than `a`,
    where nothing was seen in the `recent` frames before `a` (LAND_NEW). The throw's flight,
    hidden by the line-up, is not needed: a ball lies on the ground only once thrown in."""
    if not hand[a]:
        return False
    h = box[a, 3] - box[a, 1]
    later = idx[(idx > a) & (idx <= a + LAND_FRAMES * r)]
    low = later[(ball_px[later, 1] >= ball_px[a, 1] + LAND_BELOW * h) & (ball_px[later, 1] > box[later, 3])]
    before = idx[(idx < a) & (idx >= a - recent)]
    run = []
    for b in low:
        if run and (b - run[-1] > gap
                    or np.hypot(*(ball_px[b] - ball_px[run[-1]])) >= LAND_SPEED * h * (b - run[-1]) / r):
            run = []                                       # not lying: moved on, or seen again too late
        if len(before) and np.min(np.hypot(*(ball_px[before] - ball_px[b]).T)) < LAND_NEW * h:
            run = []
            continue                                       # seen there before the throw: not the ball
        run.append(b)
        if len(run) >= LAND_SIGHTINGS:
            return True
    return False


def _still_flecks(idx: np.ndarray, off: np.ndarray, hand: np.ndarray, span: float) -> np.ndarray:
    """(len(idx),) True for a sighting outside the umpire's box seen at the same place relative
    to him (within STILL_PX) at least STILL_REPEATS more times within `span` frames either side:
    a still thing (a raised mallet's head), not a ball in flight, which never comes back to a
    place. The ball in his hand (inside his box) is left: it vouches for a throw."""
    out = np.zeros(len(idx), bool)
    for k, a in enumerate(idx):
        if hand[a]:
            continue
        near = idx[(np.abs(idx - a) <= span) & (idx != a)]
        out[k] = np.count_nonzero(np.hypot(*(off[near] - off[a]).T) <= STILL_PX) >= STILL_REPEATS
    return out


def _drops_from_hand(idx: np.ndarray, off: np.ndarray, h: np.ndarray, hand: np.ndarray, gap: int,
                     r: float) -> bool:
    """The sightings `idx` (frames, from the first on) start in the umpire's box and drop: at
    least SLOW_THROW_SIGHTINGS of them over as many reference frames (`r` frames each: more
    sightings on faster footage), each within `gap` frames of the one before, lower in the
    image than it and at least SLOW_THROW_SPEED box heights a reference frame from it. An
    underhand throw onto the ground thrown along the camera's line of sight is slow in the
    image but falls from his hand; a glove riding past moves across, a fleck above his head
    (re-rendered jostling_at_centre and slow_returner_red2) starts outside his box."""
    if not len(idx) or not hand[idx[0]]:
        return False
    run = [idx[0]]
    for b in idx[1:]:
        step = off[b] - off[run[-1]]
        if b - run[-1] > gap or step[1] <= 0 or np.hypot(*step) < SLOW_THROW_SPEED * h[b] * (b - run[-1]) / r:
            return False
        run.append(b)
        if len(run) >= SLOW_THROW_SIGHTINGS and run[-1] - run[0] >= (SLOW_THROW_SIGHTINGS - 1) * r:
            return True
    return False


def ball_held(ball_px: np.ndarray, umpire_box: np.ndarray, start: int, end: int, min_sightings: int = 3,
              min_share: float = HELD_SHARE) -> bool:
    """True when the ball is seen in at least `min_share` of the frames [start, end) (and at
    least `min_sightings` times), each time within HELD_NEAR box heights of the umpire's box
    centre, and hardly moving (less than a tenth of his box height from the first sighting to
    the last): not thrown yet. A ball in his hand is seen in nearly every frame or in none
    (hidden by his body); a few still sightings are a glove or a fleck of his shirt."""
    frames = range(max(0, start), min(end, len(ball_px)))
    seen = [f for f in frames if not np.isnan(ball_px[f, 0]) and not np.isnan(umpire_box[f, 0])]
    if len(seen) < max(min_sightings, min_share * len(frames)):
        return False
    box = umpire_box[seen]
    h = box[:, 3] - box[:, 1]
    centre = np.stack([(box[:, 0] + box[:, 2]) / 2, (box[:, 1] + box[:, 3]) / 2], axis=1)
    near = np.hypot(*(ball_px[seen] - centre).T) / h < HELD_NEAR
    moved = np.hypot(*(ball_px[seen[-1]] - ball_px[seen[0]])) - np.hypot(*(centre[-1] - centre[0]))
    return bool(near.all() and moved < 0.1 * np.median(h))


def throw_in_from_players(t: np.ndarray, xy: np.ndarray, movers: int = START_MOVERS,
                          speed_yds: float = START_SPEED_YDS,
                          still_s: float = 1.0, sustain_s: float = 0.3, start: int = 0,
                          play_sustain_s: float = PLAY_SUSTAIN_S) -> int | None:
    """The first frame (from `start`) from which at least `movers` players ride faster than
    `speed_yds` for `sustain_s` (a jump of one jittery track for a frame or two is not the
    start of play), after at least `still_s` of stillness, and confirmed by play: within
    CONFIRM_S, at least `movers` players faster than PLAY_SPEED for `play_sustain_s` (players
    walking at the umpire, whose measured speeds scatter about 1.5 yd/s, never get there, nor
    a track's step to a neighbour's horse, which lasts SPEED_WINDOW_S; after a throw-in they
    ride at 5-12 yd/s within a second)."""
    v = speeds(xy, t, SPEED_WINDOW_S)
    if not v.size:
        return None
    with np.errstate(invalid="ignore"):
        moving = np.sum(v > speed_yds, axis=0)
        fast = np.sum(v > PLAY_SPEED, axis=0)
    still_since = None
    F = xy.shape[1]
    for f in range(start, F):
        if moving[f] == 0:
            still_since = t[f] if still_since is None else still_since
        elif moving[f] >= movers and still_since is not None and t[f] - still_since >= still_s:
            if _held_for(t, moving, f, movers, sustain_s) and _confirmed(t, fast, f, movers, play_sustain_s):
                return f
        elif moving[f] >= movers:
            still_since = None
    return None


def _held_for(t: np.ndarray, count: np.ndarray, f: int, movers: int, sustain_s: float) -> bool:
    """`count` (players per frame) is at least `movers` in every frame from f for `sustain_s`."""
    end = int(np.searchsorted(t, t[f] + sustain_s))
    return end <= len(t) and bool(np.all(count[f:end] >= movers))


def _confirmed(t: np.ndarray, fast: np.ndarray, f: int, movers: int, sustain_s: float,
               within_s: float = CONFIRM_S) -> bool:
    """At least `movers` players faster than PLAY_SPEED for `sustain_s`, starting within `within_s` of frame f."""
    last = min(int(np.searchsorted(t, t[f] + within_s)), len(t))
    return any(_held_for(t, fast, g, movers, sustain_s) for g in range(f, last))


def detect_throw_in(t: np.ndarray, players: np.ndarray, ball_px: np.ndarray, umpire_boxes: np.ndarray,
                    override: int | None = None) -> ThrowIn:
    """The throw-in frame; `umpire_boxes` (U, F, 4) are the umpires' boxes (NaN where unseen):
    whichever of them throws in, the earliest release found counts."""
    if override is not None:
        return ThrowIn(int(override), "override")
    umpire_boxes = np.asarray(umpire_boxes, float).reshape(-1, len(t), 4)
    v = speeds(players, t, SPEED_WINDOW_S) if np.size(players) else np.zeros((0, len(t)))
    with np.errstate(invalid="ignore"):
        fast = np.sum(v > PLAY_SPEED, axis=0) if len(v) else np.zeros(len(t), int)
    found = [f for f in (_ball_throw_followed_by_play(t, fast, ball_px, box) for box in umpire_boxes)
             if f is not None]
    released = min(found) if found else None
    # Play cannot start before the throw-in: a start from the players before the release seen
    # from the ball says that "release" was a later hit (the thrown ball unseen), and the
    # throw-in was at the latest when play began.
    f = throw_in_from_players(t, players)
    while f is not None and (released is None or f < released):
        end = int(np.searchsorted(t, t[f] + HELD_CHECK_S))
        if not any(ball_held(ball_px, box, f, end) for box in umpire_boxes) and \
                not (released is not None and stood_at(t, v, f, released)):
            return ThrowIn(f, "players")
        f = throw_in_from_players(t, players, start=f + 1)
    return ThrowIn(released, "ball") if released is not None else ThrowIn(None, "none")


def stood_at(t: np.ndarray, v: np.ndarray, start: int, release: int, movers: int = START_MOVERS,
             speed_yds: float = START_SPEED_YDS, stood_s: float = STOOD_S) -> bool:
    """True when the players (`v`: their speeds (P, F), `speeds` over SPEED_WINDOW_S) stood at
    frame `release`: fewer than `movers` of them faster than
    `speed_yds` (throw_in_from_players' bar for a start) in a run of frames at least `stood_s`
    long that holds `release` and begins after frame `start` (a start of play from the
    players). Play, once begun, does not stand still again for a second, so that "start" was
    the line-up's shuffling. Frames where no player's speed is known (the footage's ends)
    do not count."""
    if not v.size or not 0 <= release < v.shape[1]:
        return False
    with np.errstate(invalid="ignore"):
        low = (np.sum(v > speed_yds, axis=0) < movers) & np.any(np.isfinite(v), axis=0)
    if not low[release]:
        return False
    a = b = release
    while a - 1 > start and low[a - 1]:
        a -= 1
    while b + 1 < len(low) and low[b + 1]:
        b += 1
    return bool(t[b] - t[a] >= stood_s)


def _ball_throw_followed_by_play(t: np.ndarray, fast: np.ndarray, ball_px: np.ndarray, box: np.ndarray,
                                 movers: int = 2, sustain_s: float = 0.3) -> int | None:
    """The first release seen from the ball (throw_in_from_ball) that play follows: within
    BALL_CONFIRM_S, at least `movers` players faster than PLAY_SPEED for `sustain_s`. A line of
    false sightings (a rider's white glove moving steadily past the umpire) can pass for a
    throw; the players, who are not moving, say it was not one, and the search goes on after
    it. A release too near the end of the footage (or of the part seen before a gap in it: a
    cutaway or replay skipped, seen_until) for play to be seen in full after it is taken
    when less than END_CHECK_S follows it, or when at least one player rides faster than
    PLAY_SPEED for `sustain_s` in what follows (on a re-rendered advancing_on_umpire, with no
    throw-in, a white fleck at the umpire's horse's feet followed for 14 frames, then a stray
    sighting, made a release 1.5 s before the end, and nobody rode off)."""
    start = 0
    fps = frame_rate(t)
    lag = scaled_frames(RELEASE_LAG_FRAMES, fps)
    while (f := throw_in_from_ball(ball_px, box, start=start, fps=fps)) is not None:
        seen = seen_until(t, f)
        if t[f] + BALL_CONFIRM_S + sustain_s > seen:
            if seen - t[f] < END_CHECK_S or _confirmed(t, fast, f, 1, sustain_s, within_s=np.inf):
                return f
            start = f + lag + 1
            continue
        if _confirmed(t, fast, f, movers, sustain_s, BALL_CONFIRM_S):
            return f
        start = f + lag + 1
    return None



GAP_SPACINGS = 3.0           # frames further apart than this many of the footage's usual spacings: a gap


def seen_until(t: np.ndarray, f: int) -> float:
    """The time up to which the footage is seen without a gap from frame position `f` on (the
    analysis skips cutaways and replays: their frames are missing from `t`)."""
    dt = np.diff(t[f:])
    if not len(dt):
        return float(t[-1])
    usual = float(np.median(np.diff(t))) if len(t) > 2 else float(dt[0])
    gaps = np.flatnonzero(dt > GAP_SPACINGS * usual)
    return float(t[f + gaps[0]]) if len(gaps) else float(t[-1])


def phases(n_frames: int, throw_in: ThrowIn) -> np.ndarray:
    """(F,) phase codes: line-up before the throw-in frame, throw_in at it, play after."""
    out = np.full(n_frames, LINEUP, np.int8)
    if throw_in.frame is not None and 0 <= throw_in.frame < n_frames:
        out[throw_in.frame] = THROW_IN
        out[throw_in.frame + 1:] = PLAY
    return out
