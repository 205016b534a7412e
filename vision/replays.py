"""Replays: footage of the calibrated camera shown again, later.

A broadcast replays what its main camera showed a few seconds or a minute before: the view is
the calibrated camera's (vision.relocate finds it "again" after the cut to the replay; on a
fixed camera a hard cut to a replay is not even a camera cut), but the players in it are where
they were then. Judged as live footage, a replay's positions belong to another time: a line-up
replayed after the throw-in would be judged again, a throw-in replayed would be found twice.

A replay repeats a stretch of footage already seen. Every frame followed leaves a thumbnail
(96x54 grey, and a 32x18 copy to search by); a frame is a repeat of an earlier one when

- a frame seen at least MIN_AGE_S before the last one seen before the cut (or before the last
  look) is the same to coding noise: it differs from it in at most REPEAT_MAX of the thumbnail's
  pixels by more than DIFF_GREY grey levels (and by at most MEAN_MAX on average), the corners
  (a broadcast's graphics) left out: the same frame coded twice differs in at most 0.07% of
  them; a wide view's play whose tiny players are a yard off, ~0.3%; consecutive frames of a
  line-up whose horses shuffle, 0.1-4%, of a panning camera, 7-9%;
- and the frames of the last RECENT_S seen before the cut or look differ from it clearly more (a
  still scene looks as it did a moment ago, live or not, and its positions are those of now
  either way; after a cutaway, the frames just before it).

(a frame between two consecutive frames seen, a blend of them as a slow motion makes, counts
as a repeat of the first), and a replay is two repeats, a few frames apart (the second look
0.12 s after the first, then every frame until one repeats, up to 0.32 s), of earlier frames in
the same order and at most at their pace (slow motion allowed to a fifth), or both of one still
stretch of footage (a line-up standing still, replayed after play has begun): a pan back over
still players repeats one earlier picture, not a stretch of them.

Only the footage followed since the analysis began is remembered (at most MAX_SEEN_S of it), so
a replay of what was shown before, or of what the main camera filmed while another shot was on
air, is not recognised; nor is one zoomed, cropped or tinted for broadcast.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

THUMB = (96, 54)            # the thumbnail compared (a horse 2-8 px wide in it)
COARSE = (32, 18)           # the copy the search ranks earlier frames by
DIFF_GREY = 8               # a pixel differs when its grey levels differ by more than this (coding noise on
                            # the area-averaged thumbnail: a few levels)
REPEAT_MAX = 0.0015         # a repeat differs in at most this share of the pixels compared (the same frame
                            # coded twice: at most 0.07% over 167 replayed frames of three clips; a wide
                            # view's play whose tiny players are a yard off: ~0.3%; consecutive frames of the
                            # samples: 0.1-9%) ...
MEAN_MAX = 1.5              # ... and by at most this many grey levels on average (coded twice: 0.08-0.67)
RECENT_FACTOR = 3.0         # the frames just before differ at least this many times more ...
RECENT_MIN = 0.004          # ... and in at least this share of the pixels
CORNER = (0.25, 0.15)       # the picture's corners (this share of its width and height) are not compared:
                            # a broadcast's graphics (score, clock, "replay") sit there
MIN_AGE_S = 1.0             # a repeat is of a frame at least this much older than the cut or last look
RECENT_S = 0.4              # the frames this long before the cut or last look are "just before"
CANDIDATES = 12             # earlier frames ranked by the coarse copy, compared in full
MAX_SEEN_S = 300.0          # thumbnails kept (5 minutes at 25 frames/s: 7500, 43 MB) ...
MAX_SEEN_FRAMES = 7500      # ... and never more frames than this (2.5 minutes at 50 frames/s)
MIN_PACE = 0.2              # a replay runs at its own pace or slowed down to this share of it


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """The frame's grey 96x54 thumbnail (0.1 ms for 720p: a linear step, then area)."""
    small = cv2.resize(frame, (THUMB[0] * 2, THUMB[1] * 2), interpolation=cv2.INTER_LINEAR)
    small = cv2.resize(small, THUMB, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small


def _compared() -> np.ndarray:
    keep = np.ones((THUMB[1], THUMB[0]), bool)
    cw, ch = int(round(CORNER[0] * THUMB[0])), int(round(CORNER[1] * THUMB[1]))
    for rows in (slice(0, ch), slice(THUMB[1] - ch, THUMB[1])):
        for cols in (slice(0, cw), slice(THUMB[0] - cw, THUMB[0])):
            keep[rows, cols] = False
    return keep.reshape(-1)


COMPARED = _compared()      # the thumbnail's pixels compared (all but the corners)


def differing(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Share of the compared pixels (COMPARED) of thumbnail `a` that differ from each of `b` (..., 54, 96)."""
    a = a.reshape(-1)[COMPARED]
    b = b.reshape(-1, COMPARED.size)[:, COMPARED]
    return (cv2.absdiff(b, np.broadcast_to(a.reshape(1, -1), b.shape)) > DIFF_GREY).mean(axis=1)


@dataclass(frozen=True)
class Repeat:
    index: int              # the frame looked at
    t: float
    of_index: int           # the earlier frame it repeats
    of_t: float
    share: float            # the share of pixels that differ
    still_s: float = 0.0    # how long the earlier frames it repeats as well last (a still stretch: > 0)


class SeenFrames:
    """Thumbnails of the frames followed (`add`), to tell a repeat of earlier footage (`repeat`)
    (ReplayWatch: two repeats in order make a replay)."""

    def __init__(self, fps: float = 25.0, max_seen_s: float = MAX_SEEN_S):
        self.capacity = max(16, min(MAX_SEEN_FRAMES, int(round(max_seen_s * (fps or 25.0)))))
        self._fine = np.zeros((0, THUMB[1] * THUMB[0]), np.uint8)
        self._coarse = np.zeros((0, COARSE[1] * COARSE[0]), np.uint8)
        self._index = np.zeros(0, np.int64)
        self._t = np.zeros(0, np.float64)
        self._n = 0                         # frames added (the ring's next slot: _n % capacity)

    def __len__(self) -> int:
        return min(self._n, self.capacity)

    def add(self, index: int, t: float, frame: np.ndarray | None = None, thumb: np.ndarray | None = None) -> None:
        thumb = thumbnail(frame) if thumb is None else thumb
        k = self._n % self.capacity
        if k >= len(self._t):               # grow in chunks up to the capacity
            grow = min(self.capacity, max(256, 2 * len(self._t))) - len(self._t)
            self._fine = np.concatenate([self._fine, np.zeros((grow, self._fine.shape[1]), np.uint8)])
            self._coarse = np.concatenate([self._coarse, np.zeros((grow, self._coarse.shape[1]), np.uint8)])
            self._index = np.concatenate([self._index, np.full(grow, -1, np.int64)])
            self._t = np.concatenate([self._t, np.full(grow, np.nan)])
        self._fine[k] = thumb.reshape(-1)
        self._coarse[k] = cv2.resize(thumb, COARSE, interpolation=cv2.INTER_AREA).reshape(-1)
        self._index[k], self._t[k] = int(index), float(t)
        self._n += 1

    def _closest(self, thumb: np.ndarray, rows: np.ndarray):
        """Of the frames kept at `rows`, the CANDIDATES nearest `thumb` by the coarse copy: their
        rows; for each, how far between it and the next frame kept `thumb` lies (0: the frame
        itself; a slow motion made by blending two frames lies between them: the thumbnail is a
        linear map of the frame), the share of pixels that differ from that, the mean
        difference, and whether it is the same to coding noise (REPEAT_MAX, MEAN_MAX)."""
        coarse = cv2.resize(thumb, COARSE, interpolation=cv2.INTER_AREA).reshape(1, -1).astype(np.int16)
        near = rows[np.argsort(np.abs(self._coarse[rows].astype(np.int16) - coarse).sum(axis=1))[:CANDIDATES]]
        nxt = (near + 1) % self.capacity                 # the ring's next slot: the frame kept after, if any
        follows = (nxt < len(self)) & (self._index[nxt] > self._index[near]) & (self._t[nxt] - self._t[near] < 0.1)
        x = thumb.reshape(-1)[COMPARED].astype(np.float32)
        a = self._fine[near][:, COMPARED].astype(np.float32)
        d = self._fine[nxt][:, COMPARED].astype(np.float32) - a
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha = np.clip(((x - a) * d).sum(axis=1) / (d * d).sum(axis=1), 0.0, 1.0)
        alpha = np.where(follows & np.isfinite(alpha), alpha, 0.0)
        off = np.abs(x - (a + alpha[:, None] * d))
        share, mean = (off > DIFF_GREY).mean(axis=1), off.mean(axis=1)
        return near, alpha, share, mean, (share <= REPEAT_MAX) & (mean <= MEAN_MAX)

    def seen_before(self, thumb: np.ndarray) -> bool:
        """Is a frame kept the same as `thumb` to coding noise?"""
        return bool(len(self)) and bool(self._closest(thumb, np.arange(len(self)))[4].any())

    def repeat(self, thumb: np.ndarray, index: int, t: float, before_t: float) -> Repeat | None:
        """The earlier frame that thumbnail `thumb` (frame `index` at `t`) repeats, if the frames seen last before `before_t`
        (those of the RECENT_S up to the last one; across a gap, a cutaway, the last ones before
        it) look clearly less like it; else None. Only frames seen MIN_AGE_S or more before that
        last one are repeated."""
        n = len(self)
        if not n:
            return None
        ts = self._t[:n]
        seen = ts < before_t
        if not seen.any():
            return None
        last_t = float(ts[seen].max())
        old = np.flatnonzero(ts < last_t - MIN_AGE_S)
        if not len(old):
            return None
        near, alpha, share, mean, same = self._closest(thumb, old)
        if not same.any():
            return None
        best = int(np.argmin(np.where(same, mean, np.inf)))
        recent = np.flatnonzero(seen & (ts >= last_t - RECENT_S))
        if differing(thumb, self._fine[recent]).min() < max(RECENT_MIN, RECENT_FACTOR * share[best]):
            return None                     # as it looked just before: a still scene
        j = int(near[best])
        of_t = float(self._t[j] + alpha[best] * (self._t[(j + 1) % self.capacity] - self._t[j])) if alpha[best] else \
            float(self._t[j])
        alike = self._t[near[same]]
        return Repeat(int(index), float(t), int(self._index[j]), of_t, float(share[best]),
                      float(alike.max() - alike.min()))


def in_order(first: Repeat, second: Repeat) -> bool:
    """Do two repeats, `second` looked at after `first`, repeat earlier footage in its order and
    at most at its pace (slowed down to MIN_PACE), or both a stretch of still footage lasting at
    least as long as the time between them (a line-up standing still: which of its frames is
    repeated cannot be told)?"""
    went, old_went = second.t - first.t, second.of_t - first.of_t
    if went <= 0:
        return False
    if min(first.still_s, second.still_s) >= went and abs(old_went) <= max(first.still_s, second.still_s):
        return True
    return MIN_PACE * went - 1e-6 <= old_went <= went * 1.25 + 1e-6 and second.of_t > first.of_t


LOOK_EVERY_S = 0.4           # while the calibrated camera is followed, a frame is looked at this often
SUSPECT_LOOK_S = 0.12        # a frame that repeats earlier footage: the next look this soon after, then at
SUSPECT_SPAN_S = 0.32        # every frame up to this long after it until one repeats earlier footage


class ReplayWatch:
    """Watches the footage followed for a replay of it.

    `followed(index, t, frame)`, every frame followed (each leaves a thumbnail; one every
    LOOK_EVERY_S is looked at): a Repeat when a replay has begun (two looks that repeat earlier
    footage in order: `in_order`); `start`: the first frame since `clean` (the last look that
    found none) that repeats earlier footage, where the replay began. After a cut,
    `after_cut(index, t, frame, cut_t)` says whether a frame where the calibrated camera is seen
    again is live ("live"), a replay ("replay"), or to be looked at again ("suspect"). In a replay, `still_replay`: does a frame still repeat
    footage seen before the replay began?"""

    def __init__(self, fps: float = 25.0, max_seen_s: float = MAX_SEEN_S):
        self.seen = SeenFrames(fps, max_seen_s)
        self.clean: tuple[int, float] = (-1, -np.inf)   # the last look that found no repeat
        self.start: tuple[int, float] | None = None     # where the last replay found began (followed)
        self._since: list[tuple[int, float, np.ndarray]] = []   # the frames followed since `clean`
        self._pending: Repeat | None = None
        self._next_t = -np.inf
        self.found: list[Repeat] = []                   # every replay found, in order

    def _look(self, thumb: np.ndarray, index: int, t: float, before_t: float) -> tuple[Repeat | None, bool]:
        rep = self.seen.repeat(thumb, index, t, before_t)
        pending, self._pending = self._pending, None
        if rep is None:
            if pending is not None and t - pending.t < SUSPECT_SPAN_S - 1e-6:
                self._pending = pending     # maybe a blended frame between two repeated ones: the next
                return None, True
            return None, False
        if pending is not None:            # the second repeat decides: a stretch repeated in order, or not
            if not in_order(pending, rep):
                return None, False
            self.found.append(pending)
            return pending, False
        self._pending = rep
        return None, True

    def followed(self, index: int, t: float, frame: np.ndarray) -> Repeat | None:
        thumb = thumbnail(frame)
        found = None
        self._since.append((int(index), float(t), thumb))
        if t >= self._next_t and len(self.seen):
            found, suspect = self._look(thumb, index, t, self.clean[1])
            if found is None and not suspect:
                self.clean, self._since = (int(index), float(t)), []
            self._next_t = self.next_look(t)
        if found is None:                   # a replay's frame is not footage seen
            self.seen.add(index, t, thumb=thumb)
        else:                               # the first frame since the last clean look that repeats
            self.start = next(((i, s) for i, s, th in self._since
                               if self.seen.repeat(th, i, s, self.clean[1]) is not None),
                              (found.index, found.t))
        return found

    def next_look(self, t: float) -> float:
        """When to look next after a look at `t`: LOOK_EVERY_S later; when a repeat is pending,
        SUSPECT_LOOK_S after it, then every frame."""
        if self._pending is None:
            return t + LOOK_EVERY_S - 1e-6
        return max(self._pending.t + SUSPECT_LOOK_S - 1e-6, t + 1e-6)

    def after_cut(self, index: int, t: float, frame: np.ndarray, cut_t: float) -> tuple[str, Repeat | None]:
        found, suspect = self._look(thumbnail(frame), index, t, cut_t)
        if found is not None:
            return "replay", found
        return ("suspect" if suspect else "live"), None

    def found_again(self, frame: np.ndarray, index: int, t: float, cut_t: float, in_replay: bool, locate
                    ) -> tuple[object, str, Repeat | None]:
        """After a cut at `cut_t` (`in_replay`: a replay found since): is `frame` the calibrated
        camera's live footage again? (what `locate(frame)` found, or None; "live", "replay" (a
        replay found, or one going on), "suspect" (to be looked at again at next_look) or
        "other" (another shot); the replay found at this frame, if any). A frame that still
        repeats footage seen, or may, is not located (the search's cost, ~0.2 s)."""
        if in_replay and self.still_replay(frame):
            return None, "replay", None
        if self._pending is not None:       # a repeat looked at before: thumbnails decide first
            seen_as, rep = self.after_cut(index, t, frame, cut_t)
            if seen_as != "live":
                return None, seen_as, rep
            found = locate(frame)
            return found, ("live" if found is not None else "other"), None
        found = locate(frame)
        if found is None:
            return None, "other", None
        if in_replay:                       # no longer repeats anything seen: live
            return found, "live", None
        seen_as, rep = self.after_cut(index, t, frame, cut_t)
        return (found if seen_as == "live" else None), seen_as, rep

    def still_replay(self, frame: np.ndarray) -> bool:
        """In a replay: does `frame` still repeat (SeenFrames.seen_before) a frame followed before it?
        Until one does not (or a cut ends the replay: the next frame found is looked at as after
        any cut), the calibrated camera shows the past; a still scene stays "replayed"."""
        return self.seen.seen_before(thumbnail(frame))

    def resumed(self, index: int, t: float) -> None:
        """The live footage of the calibrated camera is followed again from frame `index`."""
        self._pending, self._next_t, self.clean, self._since = None, -np.inf, (int(index), float(t)), []
