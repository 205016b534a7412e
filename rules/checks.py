"""Rule 20 checks, vectorised over all frames of a FrameBatch.

Each check returns boolean masks / arrays over (frames, players[, umpires]); `verdicts.py`
turns them into the per-frame violation and note records.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.document import LINEUP, PLAY, THROW_IN, FrameBatch
from rules.thresholds import Thresholds


@dataclass
class UmpireDistances:
    dist: np.ndarray        # (F, P, U) yards, +inf where either is absent
    nearest: np.ndarray     # (F, P) column of the nearest umpire
    min_dist: np.ndarray    # (F, P) yards to the nearest umpire (+inf without one)


def umpire_distances(b: FrameBatch) -> UmpireDistances:
    d = np.hypot(b.players[:, :, None, 0] - b.umpires[:, None, :, 0],
                 b.players[:, :, None, 1] - b.umpires[:, None, :, 1])
    d = np.where(np.isnan(d), np.inf, d)
    if d.shape[2] == 0:
        return UmpireDistances(d, np.zeros(d.shape[:2], np.int64), np.full(d.shape[:2], np.inf))
    nearest = np.argmin(d, axis=2)
    return UmpireDistances(d, nearest, np.take_along_axis(d, nearest[..., None], 2)[..., 0])


def _cov(cov: np.ndarray | None, positions: np.ndarray) -> tuple[np.ndarray, ...]:
    """(xx, xy, yy), each (F, N): the covariance in yd² of each position of `positions`
    (F, N, 2); 0 where exact (no covariance) or unknown."""
    if cov is None:
        zero = np.zeros(positions.shape[:2])
        return zero, zero, zero
    c = np.nan_to_num(np.asarray(cov, float))
    return c[..., 0, 0], c[..., 0, 1], c[..., 1, 1]


def uncertain(b: FrameBatch) -> bool:
    """Whether the batch's positions carry an uncertainty at all (measured, not exact)."""
    return b.player_cov is not None or b.umpire_cov is not None


def player_cov(b: FrameBatch) -> tuple[np.ndarray, ...]:
    """Players' position covariance (xx, xy, yy), each (F, P) (see _cov)."""
    return _cov(b.player_cov, b.players)


def umpire_cov(b: FrameBatch) -> tuple[np.ndarray, ...]:
    """Umpires' position covariance (xx, xy, yy), each (F, U) (see _cov)."""
    return _cov(b.umpire_cov, b.umpires)


def largest_variance(xx: np.ndarray, xy: np.ndarray, yy: np.ndarray) -> np.ndarray:
    """The larger eigenvalue of each 2x2 covariance [[xx, xy], [xy, yy]]: the variance in its
    least sure direction."""
    return (xx + yy) / 2 + np.sqrt(((xx - yy) / 2) ** 2 + xy ** 2)


def sigma_along(cov: tuple[np.ndarray, ...], d: np.ndarray) -> np.ndarray:
    """1-sigma uncertainty along the vectors `d` (..., 2) of positions with covariance `cov`
    (xx, xy, yy, each (...)): sqrt(u' C u) with u = d / |d|; the least sure direction's
    where d is 0 or unknown."""
    xx, xy, yy = cov
    dx, dy = d[..., 0], d[..., 1]
    n2 = dx * dx + dy * dy
    ok = np.isfinite(n2) & (n2 > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        along = (xx * dx * dx + 2 * xy * dx * dy + yy * dy * dy) / n2
    return np.sqrt(np.maximum(np.where(ok, along, largest_variance(xx, xy, yy)), 0.0))


def across_sigma(b: FrameBatch) -> np.ndarray:
    """(F, P) players' uncertainty across the centre line (along the field's x)."""
    return np.sqrt(np.maximum(player_cov(b)[0], 0.0))


def pair_sigma(b: FrameBatch) -> np.ndarray:
    """(F, P, U) uncertainty of each player-umpire distance: along the line between them."""
    F, P, U = b.n_frames, b.players.shape[1], b.umpires.shape[1]
    if not uncertain(b):
        return np.zeros((F, P, U))
    pc, uc = player_cov(b), umpire_cov(b)
    d = b.players[:, :, None, :] - b.umpires[:, None, :, :]
    return sigma_along(tuple(p[:, :, None] + u[:, None, :] for p, u in zip(pc, uc)), d)


def before_throw_in(b: FrameBatch) -> np.ndarray:
    """(F,) frames where the line-up rules apply (line-up and throw-in frames)."""
    return b.phase != PLAY


def umpire_positioned(b: FrameBatch, still_yds: float, window_s: float = 1.0) -> np.ndarray:
    """(F,) frames where an umpire stands (has moved slower than `still_yds` yd/s over the last
    `window_s`): "The ball is ready for play when the Umpire is positioned." Frames where no
    umpire's movement is known (none seen then, or the first frame) count as positioned: the
    line-up is judged, as it would be without this."""
    prev = np.clip(np.searchsorted(b.t, b.t - window_s, side="right") - 1, 0, None)
    dt = (b.t - b.t[prev])[:, None]
    u = b.umpires
    with np.errstate(invalid="ignore", divide="ignore"):
        speed = np.hypot(u[:, :, 0] - u[prev, :, 0], u[:, :, 1] - u[prev, :, 1]) / np.where(dt > 0, dt, np.nan)
    known = np.isfinite(speed)
    return np.any(known & (speed <= still_yds), axis=1) | ~np.any(known, axis=1)


def line_up_judged(b: FrameBatch, still_yds: float) -> np.ndarray:
    """(F,) the line-up frames the line-up codes judge: once an umpire is positioned, and the
    throw-in frame always (before_throw_in less these: the umpire still riding to his spot)."""
    return before_throw_in(b) & (umpire_positioned(b, still_yds) | (b.phase == THROW_IN))


def wrong_side(b: FrameBatch, margin: float | np.ndarray = 0.0) -> np.ndarray:
    """(F, P) players strictly on the far side of the centre line from the goal they defend
    (by more than `margin` yards)."""
    return b.attack_sign()[None, :] * (b.players[:, :, 0] - b.field.centre_x) > margin


def reversed_lineup(b: FrameBatch, wrong: np.ndarray) -> np.ndarray:
    """(F,) frames where every present player of both teams is on the wrong side."""
    present = ~np.isnan(b.players[:, :, 0])
    all_wrong = np.all(wrong | ~present, axis=1)
    teams_present = np.stack([np.any(present & (b.player_team == k), axis=1) for k in range(len(b.teams))], 1)
    return all_wrong & np.all(teams_present, axis=1)


def player_pair_sigma(b: FrameBatch) -> np.ndarray:
    """(F, P, P) uncertainty of each two players' distance: along the line between them (0 for
    exact positions)."""
    p = b.players
    if not uncertain(b):
        return np.zeros((p.shape[0], p.shape[1], p.shape[1]))
    c = player_cov(b)
    return sigma_along(tuple(v[:, :, None] + v[:, None, :] for v in c), p[:, :, None] - p[:, None, :])


def opposing_pairs(b: FrameBatch) -> np.ndarray:
    """(P, P) mask of the pairs (i < j) of players of opposite teams."""
    opposing = b.player_team[:, None] != b.player_team[None, :]
    return opposing & np.triu(np.ones(opposing.shape, bool), 1)


def contacts(b: FrameBatch, thr: Thresholds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(F, P, P) mask of opposing pairs (i < j) closer than the contact distance, their
    distances and the distances' 1-sigma uncertainty."""
    p = b.players
    d = np.hypot(p[:, :, None, 0] - p[:, None, :, 0], p[:, :, None, 1] - p[:, None, :, 1])
    sigma = player_pair_sigma(b)
    return (d + thr.margin_sigmas * sigma < thr.contact_yd) & opposing_pairs(b)[None], d, sigma


def closing_speed(b: FrameBatch, ud: UmpireDistances, window_s: float = 0.5,
                  with_sigma: bool = False):
    """(F, P, U) speed in yd/s at which each player closes on each umpire over the last window
    (and, `with_sigma`, its 1-sigma uncertainty from the positions' at both ends). A player not
    seen in some frame of the window (player_unseen: his position there is a straight-line
    guess across a gap) has no closing speed: 0. Across a gap a track can have passed to the
    next horse of the rank, nearer the umpire (a re-rendered clean_lineup: a still rider's
    track unseen for 5 frames came back 2.9 yd nearer, "closing" at 10 yd/s), and a rider who
    rushes the umpire is seen doing it: the windows after the gap catch him."""
    prev = np.searchsorted(b.t, b.t - window_s, side="right") - 1
    prev = np.clip(prev, 0, None)
    dt = b.t - b.t[prev]
    rate = 1.0 / np.where(dt > 0, dt, np.nan)[:, None, None]
    with np.errstate(invalid="ignore"):
        closing = (ud.dist[prev] - ud.dist) * rate
    closing = np.where(np.isfinite(closing), closing, 0.0)
    if b.player_unseen is not None:
        unseen = np.asarray(b.player_unseen, bool)
        count = np.cumsum(unseen, axis=0)                   # unseen frames up to each frame
        gap = (count - count[prev] + unseen[prev]) > 0      # ... in the window [prev, f]
        closing = np.where(gap[:, :, None], 0.0, closing)
    if not with_sigma:
        return closing
    ps = pair_sigma(b)
    sigma = np.nan_to_num(np.hypot(ps, ps[prev]) * rate)
    return closing, sigma


def thrower(b: FrameBatch, frame: int) -> int:
    """The umpire column throwing in at `frame`: given, else nearest the ball, else first present; -1 if none."""
    if b.thrower[frame] >= 0:
        return int(b.thrower[frame])
    u = b.umpires[frame]
    present = ~np.isnan(u[:, 0])
    if not present.any():
        return -1
    if not np.isnan(b.ball[frame, 0]):
        d = np.where(present, np.hypot(u[:, 0] - b.ball[frame, 0], u[:, 1] - b.ball[frame, 1]), np.inf)
        return int(np.argmin(d))
    return int(np.argmax(present))


def throw_in_starts(b: FrameBatch) -> np.ndarray:
    """Frame indices where a throw-in happens (first frame of each run of throw_in frames)."""
    ti = b.phase == THROW_IN
    return np.flatnonzero(ti & ~np.concatenate([[False], ti[:-1]]))


def sequence_end(b: FrameBatch, start: int, starts: np.ndarray) -> int:
    """End (exclusive) of the play following the throw-in at `start`: next line-up or throw-in."""
    later = starts[starts > start]
    stop = int(later[0]) if len(later) else b.n_frames
    lineup_after = np.flatnonzero(b.phase[start + 1:stop] == LINEUP)
    return start + 1 + int(lineup_after[0]) if len(lineup_after) else stop
