"""Team and umpire identity from appearance, held per track by vote over time.

Per rider box: the torso (upper-middle part of the box) gives
- a jersey colour: median Lab of its saturated, non-skin pixels (or of all non-skin
  pixels when the jersey itself is white / black / grey), and
- an umpire score in [0, 1] for the black-and-white striped shirt: mostly unsaturated,
  two well-separated grey levels, and a strong single spatial frequency (stripes, either
  orientation, tolerant of tilt).

Colours are clustered into two teams with k-means (k=2) without being told the colours,
and clusters are named after the given colour hints (BGR per team) when there are any,
otherwise ``team_a`` / ``team_b`` in a stable order. `IdentityVoter` keeps every track's
observations and gives it the identity most of them vote for, so one odd frame (motion
blur, occlusion, a horse's rug in the crop) does not flip a rider's team.

Lab here is OpenCV's 8-bit Lab (L, a, b each 0..255, a = b = 128 for greys).
"""
from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Hashable, Iterable, Mapping, Sequence

import cv2
import numpy as np

UMPIRE = "umpire"
DEFAULT_TEAM_NAMES = ("team_a", "team_b")
# Distances between colours are taken on (L * L_WEIGHT, a, b): lighting moves L most.
L_WEIGHT = 0.5
CROP_SIZE = (32, 40)          # torso crops are resized to this (w, h) before analysis


# ------------------------------------------------------------------------------------
# Crops and pixel classes
# ------------------------------------------------------------------------------------
def torso_box(box: Sequence[float], top: float = 0.12, bottom: float = 0.55,
              side: float = 0.2) -> tuple[int, int, int, int]:
    """The torso part of a rider box (x1, y1, x2, y2): rows `top`..`bottom` of its height,
    minus `side` of its width on each side (drops background, arms, the horse)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    return (int(round(x1 + side * w)), int(round(y1 + top * h)),
            int(round(x2 - side * w)), int(round(y1 + bottom * h)))


def torso_crop(frame: np.ndarray, box: Sequence[float], **kw) -> np.ndarray | None:
    """BGR torso crop of `box` clipped to the frame; None if under 4×4 pixels."""
    h, w = frame.shape[:2]
    x1, y1, x2, y2 = torso_box(box, **kw)
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if x2 - x1 < 4 or y2 - y1 < 4:
        return None
    return frame[y1:y2, x1:x2]


def skin_mask(crop_bgr: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels (YCrCb box rule: 135 ≤ Cr ≤ 175, 85 ≤ Cb ≤ 135, Y ≥ 50)."""
    ycc = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2YCrCb)
    y, cr, cb = ycc[..., 0], ycc[..., 1], ycc[..., 2]
    return (cr >= 135) & (cr <= 175) & (cb >= 85) & (cb <= 135) & (y >= 50)


def bgr_to_lab(bgr: Sequence[float] | np.ndarray) -> np.ndarray:
    """BGR colour(s) (..., 3) 0..255 → OpenCV 8-bit Lab as float (..., 3)."""
    arr = np.asarray(bgr, np.float32).reshape(-1, 1, 3) / 255.0
    lab = cv2.cvtColor(arr, cv2.COLOR_BGR2Lab).reshape(-1, 3)
    lab8 = np.c_[lab[:, 0] * 255 / 100, lab[:, 1] + 128, lab[:, 2] + 128]
    return lab8.reshape(np.shape(bgr)).astype(float)


def lab_to_bgr(lab: Sequence[float] | np.ndarray) -> np.ndarray:
    """OpenCV 8-bit Lab (..., 3) → BGR uint8 (..., 3)."""
    arr = np.asarray(lab, np.float32).reshape(-1, 1, 3)
    arr = np.concatenate([arr[..., :1] * 100 / 255, arr[..., 1:] - 128], axis=-1)
    bgr = cv2.cvtColor(arr, cv2.COLOR_Lab2BGR)
    return np.clip(np.round(bgr * 255), 0, 255).astype(np.uint8).reshape(np.shape(lab))


def _features(lab: np.ndarray) -> np.ndarray:
    lab = np.asarray(lab, float)
    return np.stack([lab[..., 0] * L_WEIGHT, lab[..., 1], lab[..., 2]], axis=-1)


# ------------------------------------------------------------------------------------
# Per-crop descriptors
# ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Appearance:
    """What one torso crop looks like."""

    lab: np.ndarray | None     # (3,) jersey colour, 8-bit Lab; None if no usable pixels
    colourful: bool            # from saturated pixels (False: white/black/grey jersey)
    umpire_score: float        # 0..1, black-and-white stripes
    n_pixels: int              # pixels behind `lab`


def jersey_colour(crop_bgr: np.ndarray, min_sat: int = 60, min_val: int = 40,
                  min_fraction: float = 0.2, min_pixels: int = 6,
                  background_lab: np.ndarray | None = None, background_radius: float = 20.0
                  ) -> tuple[np.ndarray | None, bool, int]:
    """(Lab, colourful, n) of the jersey in a torso crop.

    Jersey pixels are the saturated ones (S ≥ `min_sat`, V ≥ `min_val`, not skin) when
    they make up `min_fraction` of the crop, else all non-skin pixels (a white / grey /
    black jersey). Among them, the dominant colour is found as the mode of a coarse
    colour histogram (so a neighbour's helmet or the horse's neck does not drag it), and
    the median of the pixels close to that mode is returned. Pixels within
    `background_radius` of `background_lab` (the grass around the rider) are ignored.
    """
    hsv = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    lab = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    not_skin = ~skin_mask(crop_bgr).ravel()
    if background_lab is not None:
        not_skin &= colour_distance(lab, background_lab) > background_radius
    sat = (hsv[:, 1] >= min_sat) & (hsv[:, 2] >= min_val) & not_skin
    colourful = bool(sat.sum() >= max(min_pixels, min_fraction * len(sat)))
    pick = sat if colourful else not_skin
    if pick.sum() < min_pixels:
        return None, False, 0
    colour, n = dominant_colour(lab[pick])
    return colour, colourful, n


def dominant_colour(lab: np.ndarray, bin_size: float = 14.0, radius: float = 18.0
                    ) -> tuple[np.ndarray, int]:
    """(median Lab near the mode, how many pixels) of Lab pixels (N, 3)."""
    f = _features(lab)
    q = np.floor(f / bin_size).astype(np.int32)
    lo = q.min(axis=0)
    q -= lo
    dims = q.max(axis=0) + 1
    counts = np.bincount(np.ravel_multi_index(q.T, dims), minlength=int(np.prod(dims)))
    counts = _box_sum3(counts.reshape(dims))   # a colour on a bin edge is not split
    mode = np.array(np.unravel_index(np.argmax(counts), dims))
    centre = (mode + lo + 0.5) * bin_size
    for _ in range(2):                          # re-centre on the pixels found (mean shift)
        near = np.linalg.norm(f - centre, axis=1) <= radius
        if near.sum() == 0:
            near[:] = True
        centre = np.median(f[near], axis=0)
    return np.median(lab[near], axis=0).astype(float), int(near.sum())


def _box_sum3(a: np.ndarray) -> np.ndarray:
    """Sum over each cell's 3×3×3 neighbourhood (zero padded), one axis at a time."""
    for axis in range(a.ndim):
        p = np.moveaxis(np.pad(a, [(1, 1) if k == axis else (0, 0) for k in range(a.ndim)]),
                        axis, 0)
        a = np.moveaxis(p[:-2] + p[1:-1] + p[2:], 0, axis)
    return a


def stripe_score(crop_bgr: np.ndarray) -> float:
    """0..1: how much the crop looks like a black-and-white striped shirt.

    Product of: how achromatic both Otsu grey classes are (black and white, not blue and
    white); the contrast between them (each ≥ 15 % of the crop); and how much of the
    crop's spatial variation sits in one frequency of 2..12 cycles across it (stripes in
    either orientation, tolerant of tilt).
    """
    crop = cv2.resize(crop_bgr, CROP_SIZE, interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    achromatic = (hsv[..., 1] < 70) | (hsv[..., 2] < 60)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    thr, _ = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    light = grey > thr
    if min(light.sum(), (~light).sum()) < 0.15 * grey.size:
        return 0.0
    grey_share = min(achromatic[light].mean(), achromatic[~light].mean())
    neutral = float(np.clip((grey_share - 0.4) / 0.3, 0.0, 1.0))
    diff = float(grey[light].mean() - grey[~light].mean())
    contrast = float(np.clip((diff - 35.0) / 40.0, 0.0, 1.0))
    periodic = _periodicity(grey.astype(np.float32))
    return neutral * contrast * periodic


@lru_cache(maxsize=8)
def _fft_grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Hann window and (centred) frequency radius in cycles for an h × w crop."""
    window = np.outer(np.hanning(h), np.hanning(w)).astype(np.float32)
    fy = (np.arange(h) - h // 2)[:, None].astype(float)
    fx = (np.arange(w) - w // 2)[None, :].astype(float)
    return window, np.hypot(fx, fy)


def _periodicity(grey: np.ndarray, min_cycles: float = 2.0, max_cycles: float = 12.0
                 ) -> float:
    """Share of the (windowed) crop's non-DC power in its strongest frequency band."""
    h, w = grey.shape
    window, radius = _fft_grid(h, w)
    power = np.abs(np.fft.fftshift(np.fft.fft2((grey - grey.mean()) * window))) ** 2
    total = power[radius >= 1].sum()
    if total <= 0:
        return 0.0
    band = (radius >= min_cycles) & (radius <= max_cycles)
    p = np.where(band, power, 0.0)
    iy, ix = np.unravel_index(np.argmax(p), p.shape)
    peak = p[max(iy - 1, 0):iy + 2, max(ix - 1, 0):ix + 2].sum()
    ratio = 2 * peak / total                            # the peak and its mirror
    return float(np.clip((ratio - 0.2) / 0.4, 0.0, 1.0))


def describe(frame: np.ndarray, box: Sequence[float]) -> Appearance:
    """Jersey colour and umpire score of one rider box (x1, y1, x2, y2) in `frame`."""
    crop = torso_crop(frame, box)
    if crop is None:
        return Appearance(None, False, 0.0, 0)
    lab, colourful, n = jersey_colour(crop)
    return Appearance(lab, colourful, stripe_score(crop), n)


def describe_all(frame: np.ndarray, boxes: Iterable[Sequence[float]]) -> list[Appearance]:
    """`describe` for each box."""
    return [describe(frame, b) for b in boxes]


# ------------------------------------------------------------------------------------
# Clustering and naming
# ------------------------------------------------------------------------------------
def cluster_two(labs: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """k-means (k = 2) of Lab colours (N, 3) → (labels (N,), centres (2, 3) in Lab).

    Centres are sorted (`stable_order`) so the same two colours give the same labels.
    """
    labs = np.asarray(labs, float).reshape(-1, 3)
    if len(labs) < 2:
        return np.zeros(len(labs), int), np.repeat(labs[:1], 2, axis=0)
    cv2.setRNGSeed(seed)
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 50, 0.1)
    _, labels, centres = cv2.kmeans(_features(labs).astype(np.float32), 2, None, crit, 4,
                                    cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    centres_lab = np.array([np.median(labs[labels == k], axis=0) if np.any(labels == k)
                            else labs[0] for k in range(2)])
    order = stable_order(centres_lab)
    remap = np.argsort(order)
    return remap[labels], centres_lab[order]


def stable_order(centres_lab: np.ndarray) -> np.ndarray:
    """Order of colours by hue angle in the a-b plane (greys first, then by lightness)."""
    c = np.asarray(centres_lab, float)
    chroma = np.hypot(c[:, 1] - 128, c[:, 2] - 128)
    hue = np.degrees(np.arctan2(c[:, 2] - 128, c[:, 1] - 128)) % 360
    key = np.where(chroma < 12, -1000 + c[:, 0], hue)
    return np.argsort(key, kind="stable")


def colour_distance(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """Distance between Lab colours with lightness down-weighted (broadcasts)."""
    return np.linalg.norm(_features(np.asarray(lab1, float))
                          - _features(np.asarray(lab2, float)), axis=-1)


def match_names(centres_lab: np.ndarray, named_lab: Mapping[str, np.ndarray]) -> list[str]:
    """Name each of two centres after the closer of two named colours (best pairing)."""
    names = list(named_lab)
    ref = np.array([named_lab[n] for n in names])
    if len(names) == 1:
        d = colour_distance(centres_lab, ref[0])
        first = int(np.argmin(d))
        return [names[0] if k == first else "" for k in range(len(centres_lab))]
    cost = colour_distance(centres_lab[:, None, :], ref[None, :2, :])
    straight = cost[0, 0] + cost[1, 1]
    crossed = cost[0, 1] + cost[1, 0]
    return [names[0], names[1]] if straight <= crossed else [names[1], names[0]]


def assign_teams(labs: np.ndarray, hints: Mapping[str, Sequence[float]] | None = None,
                 names: Sequence[str] = DEFAULT_TEAM_NAMES, min_separation: float = 20.0
                 ) -> list[str]:
    """Team name for each Lab colour (N, 3) in one go (no memory over time).

    Clusters into two with k-means; with `hints` (team → BGR) clusters are named after
    the closer hint, and if the two clusters are closer than `min_separation` (one team in
    view) each colour takes its nearest hint. Without hints the names are `names` in the
    stable order.
    """
    labs = np.asarray(labs, float).reshape(-1, 3)
    if len(labs) == 0:
        return []
    hint_lab = {k: bgr_to_lab(v) for k, v in (hints or {}).items()}
    labels, centres = cluster_two(labs)
    separated = colour_distance(centres[0], centres[1]) >= min_separation
    if hint_lab and not separated:
        keys = list(hint_lab)
        d = colour_distance(labs[:, None, :], np.array([hint_lab[k] for k in keys])[None])
        return [keys[i] for i in np.argmin(d, axis=1)]
    if not separated:
        return [names[0]] * len(labs)
    centre_names = match_names(centres, hint_lab) if hint_lab else list(names[:2])
    return [centre_names[k] for k in labels]


# ------------------------------------------------------------------------------------
# Identity over time
# ------------------------------------------------------------------------------------
class IdentityVoter:
    """Holds each track's identity (a team name or ``"umpire"``) by vote over time.

    Feed it per-frame observations with `observe` (or `observe_frame`); ask with
    `identity` / `identities`.

    - Umpire: a track is the umpire once at least `min_votes` and `umpire_fraction` of
      its looks score as striped (or were flagged ``umpire=True``, e.g. by the
      detector's umpire class). Per-look false alarms are rare, so a minority suffices.
    - Teams: the two team colours come from k-means over one colour per non-umpire
      track (the median of its looks), re-done every `recluster_every` observations.
      Each look votes for the closer team colour (looks farther than
      `max_vote_distance` from both abstain: a neighbour in the crop, motion blur), and
      a track's team is the one with the most votes once it has `min_votes`.
    - Names come from `hints` (team → BGR) or are `names`, kept attached to the same
      colours from one re-clustering to the next.
    """

    def __init__(self, hints: Mapping[str, Sequence[float]] | None = None,
                 names: Sequence[str] = DEFAULT_TEAM_NAMES, umpire_threshold: float = 0.5,
                 min_votes: int = 3, history: int = 200, recluster_every: int = 20,
                 min_separation: float = 20.0, max_vote_distance: float = 60.0,
                 umpire_fraction: float = 0.3):
        self.hints = {k: bgr_to_lab(v) for k, v in (hints or {}).items()}
        self.names = tuple(self.hints) if self.hints else tuple(names)
        if len(self.names) != 2:
            raise ValueError(f"need exactly two team names or hints, got {self.names}")
        self.umpire_threshold = float(umpire_threshold)
        self.min_votes = int(min_votes)
        self.history = int(history)
        self.recluster_every = int(recluster_every)
        self.min_separation = float(min_separation)
        self.max_vote_distance = float(max_vote_distance)
        self.umpire_fraction = float(umpire_fraction)
        self._labs: dict[Hashable, deque] = defaultdict(lambda: deque(maxlen=self.history))
        self._umpire_votes: dict[Hashable, float] = defaultdict(float)
        self._all_votes: dict[Hashable, float] = defaultdict(float)
        self._centres: dict[str, np.ndarray] = {}
        self._since_cluster = 0

    # -- feeding ----------------------------------------------------------------------
    def observe(self, track_id: Hashable, appearance: Appearance, weight: float = 1.0,
                umpire: bool | None = None) -> None:
        """Record one frame's look of a track. `umpire` (e.g. the detector's class)
        overrides the stripe score's vote when given."""
        is_umpire = (appearance.umpire_score >= self.umpire_threshold
                     if umpire is None else bool(umpire))
        self._all_votes[track_id] += weight
        if is_umpire:
            self._umpire_votes[track_id] += weight
        elif appearance.lab is not None:
            self._labs[track_id].append(np.asarray(appearance.lab, float))
            self._since_cluster += 1

    def observe_frame(self, frame: np.ndarray, boxes: Iterable[Sequence[float]],
                      track_ids: Iterable[Hashable]) -> list[Appearance]:
        """Describe each rider box of a frame and record it under its track id."""
        looks = []
        for box, tid in zip(boxes, track_ids):
            look = describe(frame, box)
            self.observe(tid, look)
            looks.append(look)
        return looks

    def forget(self, track_id: Hashable) -> None:
        """Drop a track's history (e.g. when the tracker retires its id)."""
        for store in (self._labs, self._umpire_votes, self._all_votes):
            store.pop(track_id, None)

    # -- asking -----------------------------------------------------------------------
    def is_umpire(self, track_id: Hashable) -> bool:
        total = self._all_votes.get(track_id, 0.0)
        ump = self._umpire_votes.get(track_id, 0.0)
        return ump >= self.min_votes and ump >= self.umpire_fraction * total

    def team_colours(self) -> dict[str, np.ndarray]:
        """Current team colour (Lab) per team name."""
        self._update_centres()
        return dict(self._centres)

    def votes(self, track_id: Hashable) -> dict[str, float]:
        """Votes per label for one track (umpire votes included)."""
        out = {UMPIRE: self._umpire_votes.get(track_id, 0.0)}
        labs = self._labs.get(track_id)
        if labs:
            self._update_centres()
            for name in self._vote_names(np.array(labs)):
                out[name] = out.get(name, 0.0) + 1.0
        return out

    def identity(self, track_id: Hashable) -> str | None:
        """``"umpire"``, a team name, or None while the votes are too few."""
        if self.is_umpire(track_id):
            return UMPIRE
        v = self.votes(track_id)
        v.pop(UMPIRE, None)
        if not v:
            return None
        name, n = max(v.items(), key=lambda kv: kv[1])
        return name if n >= self.min_votes else None

    def identities(self) -> dict[Hashable, str | None]:
        """Identity of every track seen so far."""
        return {tid: self.identity(tid) for tid in self._all_votes}

    # -- internals --------------------------------------------------------------------
    def _team_samples(self) -> np.ndarray:
        """One colour per non-umpire track (the median of its looks: a few odd frames do
        not move it), or every look while fewer than two tracks are known."""
        rows = [np.array(v) for tid, v in self._labs.items() if v and not self.is_umpire(tid)]
        if len(rows) >= 2:
            return np.array([np.median(r, axis=0) for r in rows])
        return np.concatenate(rows) if rows else np.empty((0, 3))

    def _update_centres(self) -> None:
        if self._centres and self._since_cluster < self.recluster_every:
            return
        samples = self._team_samples()
        if len(samples) == 0:
            return
        self._since_cluster = 0
        labels, centres = cluster_two(samples)
        separated = colour_distance(centres[0], centres[1]) >= self.min_separation
        if not separated:
            self._one_team(np.median(samples, axis=0))
            return
        reference = self._centres if len(self._centres) == 2 else self.hints
        if reference:
            names = match_names(centres, reference)
        elif len(self._centres) == 1:                 # the second team has appeared
            known = next(iter(self._centres))
            names = match_names(centres, self._centres)
            other = [n for n in self.names if n != known][0]
            names = [n or other for n in names]
        else:
            names = list(self.names)
        self._centres = {names[0]: centres[0], names[1]: centres[1]}

    def _one_team(self, colour: np.ndarray) -> None:
        """Only one colour in view: keep its name if known, else nearest hint/first."""
        if self._centres:
            d = {n: float(colour_distance(c, colour)) for n, c in self._centres.items()}
            name = min(d, key=d.get)
        elif self.hints:
            name = min(self.hints, key=lambda n: float(colour_distance(self.hints[n], colour)))
        else:
            name = self.names[0]
        if len(self._centres) == 2:
            self._centres[name] = colour
        else:
            self._centres = {name: colour}

    def _vote_names(self, labs: np.ndarray) -> list[str]:
        """Nearest team colour per look; looks far from every team colour abstain."""
        if not self._centres:
            return []
        names = list(self._centres)
        ref = np.array([self._centres[n] for n in names])
        d = colour_distance(labs[:, None, :], ref[None, :, :])
        best = np.argmin(d, axis=1)
        near = d[np.arange(len(d)), best] <= self.max_vote_distance
        return [names[i] for i in best[near]]
