"""Team and umpire identity from appearance, held per track by vote over time.

Per rider box, the jersey band (the rows between the helmet and the white breeches,
minus the sides) gives
- a colour signature that shade does not change: each pixel goes by its chromaticity
  (r, g, b) / (r + g + b), which a shadow, the sun or exposure scale leave as they are,
  to one of N_HUES hue sectors if it is chromatic, else (greys, white, black, and pixels
  too dark for a hue) to one of a few lightness levels; the signature is the square root
  of the band's share in each bin. A navy jersey in shade stays blue-ish and dark, an
  orange one seen from behind stays orange, where a mean or mode colour in Lab turned
  them into the brown of the horse under them;
- a Lab colour for display (the median of the strongest bin's pixels), and
- an umpire score in [0, 1] for the black-and-white striped shirt: mostly unsaturated,
  two well-separated grey levels, and a strong single spatial frequency (stripes, either
  orientation, tolerant of tilt).

Signatures are compared by Hellinger distance (× FEATURE_SCALE) and clustered into two
teams with k-means (k=2) without being told the colours. Clusters are named after the
colour hints (BGR per team, turned into the signature of that colour under a range of
shade) by the best one-to-one pairing in `colour_point` space (hue direction and
lightness, where red is near orange and far from blue), otherwise ``team_a`` /
``team_b`` in a stable order. `IdentityVoter` keeps every track's observations and gives
it the identity most of them vote for, so one odd frame (motion blur, occlusion, a
horse's head in the crop) does not flip a rider's team.

Lab here is OpenCV's 8-bit Lab (L, a, b each 0..255, a = b = 128 for greys).
"""
from __future__ import annotations

from collections import Counter, defaultdict, deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Hashable, Iterable, Mapping, Sequence

import cv2
import numpy as np

UMPIRE = "umpire"
DEFAULT_TEAM_NAMES = ("team_a", "team_b")
# Lab distances (colour_distance) are taken on (L * L_WEIGHT, a, b): lighting moves L most.
L_WEIGHT = 0.5
CROP_SIZE = (32, 40)          # torso crops are resized to this (w, h) for the stripe score
# Colour signatures (colour_signature): N_HUES hue sectors for chromatic pixels, lightness
# levels (mean of B, G, R) for the rest.
N_HUES = 18
LIGHT_LEVELS = (25.0, 100.0, 190.0)
FEATURE_DIM = N_HUES + len(LIGHT_LEVELS)
FEATURE_SCALE = 20.0          # signature distances are Hellinger × this (0..28); kits ~18+ apart
CHROMA_GREY, CHROMA_RAMP = 5.0, 10.0   # chromaticity radius where a pixel stops being grey
DARK_HUE, DARK_RAMP = 15.0, 25.0       # mean level under which a pixel's hue is noise
HINT_SHADES = (0.35, 0.5, 0.65, 0.8, 1.0)   # light a kit colour is seen in (colour_feature)
JERSEY_BAND = (0.16, 0.48, 0.2)   # rows top..bottom of the rider box, minus side each side
JERSEY_MAX_SIDE = 28              # larger jersey bands are shrunk to this (pixels) first
COLOURFUL_SHARE = 0.35            # chromatic share of the band for a colourful jersey
AMBIGUOUS_RATIO = 0.7             # a look this near (nearest / other distance) to both team colours is unclear


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


HIGH_TORSO = {"top": -0.06, "bottom": 0.36}


def torso_crop(frame: np.ndarray, box: Sequence[float], min_size: int = 4,
               **kw) -> np.ndarray | None:
    """BGR torso crop of `box` clipped to the frame; None if under `min_size` pixels a side."""
    h, w = frame.shape[:2]
    x1, y1, x2, y2 = torso_box(box, **kw)
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if x2 - x1 < min_size or y2 - y1 < min_size:
        return None
    return frame[y1:y2, x1:x2]


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


def chromaticity(bgr: Sequence[float] | np.ndarray) -> np.ndarray:
    """BGR (..., 3) → chromaticity (..., 2): (r - g, r + g - 2b) / (r + g + b) in an
    orthonormal basis, × 100 (greys at 0, 0; pure red ≈ (71, 41), pure blue (0, -82)).
    Scaling a colour (shade, exposure) leaves it unchanged."""
    bgr = np.asarray(bgr, np.float32)
    b, g, r = bgr[..., 0], bgr[..., 1], bgr[..., 2]
    s = np.maximum(b + g + r, 1.0)
    return np.stack([(r - g) * (100 / np.sqrt(2)) / s, (r + g - 2 * b) * (100 / np.sqrt(6)) / s],
                    axis=-1)


def _pixel_bins(px: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per BGR pixel (N, 3): (position among the hue sectors (0..N_HUES, sector k centred
    on k), how chromatic it is (0..1), position among the lightness levels)."""
    xy = chromaticity(px)
    level = px.sum(axis=1) * (1 / 3)
    alpha = (np.clip((np.hypot(xy[:, 0], xy[:, 1]) - CHROMA_GREY) / CHROMA_RAMP, 0.0, 1.0)
             * np.clip((level - DARK_HUE) / DARK_RAMP, 0.0, 1.0))
    hue = (np.arctan2(xy[:, 1], xy[:, 0]) * (N_HUES / (2 * np.pi)) - 0.5) % N_HUES
    lev = np.interp(level, LIGHT_LEVELS, np.arange(len(LIGHT_LEVELS), dtype=np.float32))
    return hue, alpha, lev


def _soft_bincount(pos: np.ndarray, weights: np.ndarray, n: int, wrap: bool) -> np.ndarray:
    """Histogram over n bins of positions split linearly between the two nearest bins."""
    i0 = np.floor(pos).astype(np.int32)
    f = pos - i0
    i1 = (i0 + 1) % n if wrap else np.minimum(i0 + 1, n - 1)
    return (np.bincount(np.minimum(i0, n - 1), weights * (1 - f), n)
            + np.bincount(i1, weights * f, n))


def colour_signature(px_bgr: np.ndarray, weights: np.ndarray | None = None,
                     bins: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                     ) -> np.ndarray:
    """Colour signature (FEATURE_DIM,) of BGR pixels (N, 3): how their (weighted) mass
    splits over N_HUES hue sectors (chromatic pixels, by chromaticity: a jersey in shade
    stays in its sector) and the LIGHT_LEVELS (grey, black and white pixels, and pixels
    too dark for their hue to mean anything), as √share × FEATURE_SCALE. `bins`:
    `_pixel_bins` of the pixels, if already at hand."""
    px = np.asarray(px_bgr, np.float32).reshape(-1, 3)
    w = np.ones(len(px), np.float32) if weights is None else np.asarray(weights, np.float32)
    hue, alpha, lev = bins if bins is not None else _pixel_bins(px)
    total = float(w.sum())
    if total <= 0:
        return np.zeros(FEATURE_DIM)
    out = np.concatenate([_soft_bincount(hue, w * alpha, N_HUES, wrap=True),
                          _soft_bincount(lev, w * (1 - alpha), len(LIGHT_LEVELS), wrap=False)])
    return np.sqrt(np.maximum(out, 0.0) / total) * FEATURE_SCALE


def colour_feature(bgr: Sequence[float] | np.ndarray,
                   shades: Sequence[float] = HINT_SHADES) -> np.ndarray:
    """The colour signature of a flat BGR colour (e.g. a team hint) as a jersey of that
    colour is seen: lit and in shade, at each of `shades` × the colour, equally."""
    bgr = np.asarray(bgr, np.float32).reshape(1, 3)
    px = np.clip(bgr * np.asarray(shades, np.float32)[:, None], 0, 255)
    return colour_signature(px).astype(float)


def feature_distance(f1: np.ndarray, f2: np.ndarray) -> np.ndarray:
    """Distance between colour signatures (Hellinger × FEATURE_SCALE; broadcasts)."""
    return np.linalg.norm(np.asarray(f1, float) - np.asarray(f2, float), axis=-1)


_HUE_DIRS = np.exp(1j * (np.arange(N_HUES) + 0.5) * (2 * np.pi / N_HUES))
_LEVEL_HEIGHT = np.linspace(0.0, 1.0, len(LIGHT_LEVELS))


def colour_point(signature: np.ndarray) -> np.ndarray:
    """A signature (..., FEATURE_DIM) as a point (..., 3) in a colour space with geometry:
    (x, y) the mean hue direction of its mass (chromatic mass on the unit circle at its
    hue sector, grey mass at the centre), z the mean height of its grey mass (black 0,
    white 1). Signatures of neighbouring hues are near here (red, orange, yellow),
    whereas as histograms they merely do not overlap; used to pair clusters with named
    colours, which may name a kit only roughly."""
    m = (np.asarray(signature, float) / FEATURE_SCALE) ** 2
    v = m[..., :N_HUES] @ _HUE_DIRS
    return np.stack([v.real, v.imag, m[..., N_HUES:] @ _LEVEL_HEIGHT], axis=-1)


def point_distance(f1: np.ndarray, f2: np.ndarray) -> np.ndarray:
    """Distance between signatures as colour points (`colour_point`; broadcasts)."""
    return np.linalg.norm(colour_point(f1) - colour_point(f2), axis=-1)


# ------------------------------------------------------------------------------------
# Per-crop descriptors
# ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Appearance:
    """What one rider box looks like."""

    lab: np.ndarray | None     # (3,) jersey colour, 8-bit Lab; None if no usable pixels
    colourful: bool            # a chromatic jersey (False: white/black/grey)
    umpire_score: float        # 0..1, black-and-white stripes
    n_pixels: int              # pixels behind `lab`
    feature: np.ndarray | None = None   # (FEATURE_DIM,) colour signature (colour_signature)


def jersey_band(frame: np.ndarray, box: Sequence[float],
                band: tuple[float, float, float] | None = None,
                max_side: int = JERSEY_MAX_SIDE) -> np.ndarray | None:
    """BGR jersey band (top, bottom, side as in `torso_box`; default JERSEY_BAND) of a
    rider box (x1, y1, x2, y2), clipped to the frame and shrunk to at most `max_side`
    pixels a side; None if under 3×3 pixels."""
    top, bottom, side = band or JERSEY_BAND
    crop = torso_crop(frame, box, top=top, bottom=bottom, side=side, min_size=3)
    if crop is None:
        return None
    h, w = crop.shape[:2]
    if max(h, w) > max_side:
        f = max_side / max(h, w)
        crop = cv2.resize(crop, (max(3, round(w * f)), max(3, round(h * f))),
                          interpolation=cv2.INTER_AREA)
    return crop


@lru_cache(maxsize=64)
def _centre_weight(h: int, w: int) -> np.ndarray:
    """Pixel weights (h·w,): 1 in the middle of the band, ½ at the middle of each edge."""
    wy = 0.5 + 0.5 * np.sin(np.pi * (np.arange(h) + 0.5) / h)
    wx = 0.5 + 0.5 * np.sin(np.pi * (np.arange(w) + 0.5) / w)
    return np.outer(wy, wx).astype(np.float32).ravel()


def jersey_colour(crop_bgr: np.ndarray, dark: float = 10.0, bright: float = 40.0
                  ) -> tuple[np.ndarray | None, np.ndarray | None, int, float]:
    """(signature, Lab, n, chromatic share) of a jersey band (BGR).

    Pixels weigh by how central they are and a little by how bright (near-black ones
    say least). The Lab colour, for display, is the median of the pixels in the
    signature's strongest bin; n is how many pixels that is. No shade correction is
    needed: shade moves a pixel's lightness, not its hue sector.
    """
    h, w = crop_bgr.shape[:2]
    if h * w < 6:
        return None, None, 0, 0.0
    px = crop_bgr.reshape(-1, 3).astype(np.float32)
    level = px.sum(axis=1) * (1 / 3)
    wt = (0.3 + 0.7 * np.clip((level - dark) / (bright - dark), 0.0, 1.0)) * _centre_weight(h, w)
    bins = _pixel_bins(px)
    sig = colour_signature(px, wt, bins)
    hue, alpha, lev = bins
    k = int(np.argmax(sig))
    if k < N_HUES:
        pick = (alpha >= 0.5) & (np.abs((hue - k + N_HUES / 2) % N_HUES - N_HUES / 2) <= 1.0)
    else:
        pick = (alpha < 0.5) & (np.abs(lev - (k - N_HUES)) <= 0.75)
    if not pick.any():
        pick = np.ones(len(px), bool)
    lab = cv2.cvtColor(px[pick][:, None, :] * (1 / 255), cv2.COLOR_BGR2Lab).reshape(-1, 3)
    lab8 = np.median(lab, axis=0) * (255 / 100, 1, 1) + (0, 128, 128)
    share = float((sig[:N_HUES] ** 2).sum()) / FEATURE_SCALE ** 2
    return sig, lab8.astype(float), int(pick.sum()), share


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


def describe(frame: np.ndarray, box: Sequence[float], stripes: bool = True) -> Appearance:
    """Jersey colour and umpire score of one rider box (x1, y1, x2, y2) in `frame`.
    `stripes=False` skips the umpire score (0) when the detector tells umpires apart."""
    band = jersey_band(frame, box)
    if band is None:
        return Appearance(None, False, 0.0, 0)
    feature, lab, n, share = jersey_colour(band)
    score = 0.0
    if stripes:
        # The torso band, and one a little higher: a detector's box often misses the
        # helmet and shoulders, which pushes the band down onto the saddle. The higher band
        # only counts half (it can catch a horse's head or the background): the score is
        # the usual band's, or the mean of both when that is more. Measured on the samples
        # with detector boxes: the umpire's median on advancing_on_umpire 0.37 → 0.65; with
        # the higher band at full weight, a rider of clean_two_umpires scored 0.62.
        crops = [torso_crop(frame, box), torso_crop(frame, box, **HIGH_TORSO)]
        usual, high = (stripe_score(c) if c is not None else 0.0 for c in crops)
        score = max(usual, (usual + high) / 2)
    return Appearance(lab, share >= COLOURFUL_SHARE, score, n, feature)


def describe_all(frame: np.ndarray, boxes: Iterable[Sequence[float]]) -> list[Appearance]:
    """`describe` for each box."""
    return [describe(frame, b) for b in boxes]


# ------------------------------------------------------------------------------------
# Clustering and naming
# ------------------------------------------------------------------------------------
def cluster_two(features: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """k-means (k = 2) of colour signatures (N, D) → (labels (N,), centres (2, D)).

    Centres are the clusters' medians, sorted (`stable_order`) so the same two colours
    give the same labels.
    """
    f = np.asarray(features, float).reshape(-1, FEATURE_DIM)
    if len(f) < 2:
        return np.zeros(len(f), int), np.repeat(f[:1], 2, axis=0)
    cv2.setRNGSeed(seed)
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 50, 0.05)
    _, labels, _ = cv2.kmeans(f.astype(np.float32), 2, None, crit, 4, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    centres = np.array([np.median(f[labels == k], axis=0) if np.any(labels == k) else f[0]
                        for k in range(2)])
    order = stable_order(centres)
    return np.argsort(order)[labels], centres[order]


def stable_order(centres: np.ndarray) -> np.ndarray:
    """Order of colour signatures by their strongest bin (hue sectors, then lightness),
    ties by that bin's strength."""
    c = np.asarray(centres, float)
    top = np.argmax(c, axis=1)
    return np.lexsort((-c[np.arange(len(c)), top], top))


def colour_distance(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """Distance between Lab colours with lightness down-weighted (broadcasts)."""
    return np.linalg.norm(_features(np.asarray(lab1, float))
                          - _features(np.asarray(lab2, float)), axis=-1)


def match_names(centres: np.ndarray, named: Mapping[str, np.ndarray],
                distance=feature_distance) -> list[str]:
    """Names for two cluster centres (signatures) from one or two named signatures: the
    pairing with the smaller total `distance` (with one name, the closer centre gets it
    and the other ``""``). A pairing, not each centre's nearest name: a grading that
    pulls both kits the same way (dull light, warm light), or a hint that only names the
    colour roughly (a navy kit for "blue"), cannot give both one name."""
    names = list(named)
    ref = np.array([named[n] for n in names], float)
    if len(names) == 1:
        first = int(np.argmin(distance(centres, ref[0])))
        return [names[0] if k == first else "" for k in range(len(centres))]
    cost = distance(np.asarray(centres, float)[:, None, :], ref[None, :2, :])
    straight = cost[0, 0] + cost[1, 1]
    crossed = cost[0, 1] + cost[1, 0]
    return [names[0], names[1]] if straight <= crossed else [names[1], names[0]]


def assign_teams(features: np.ndarray, hints: Mapping[str, Sequence[float]] | None = None,
                 names: Sequence[str] = DEFAULT_TEAM_NAMES, min_separation: float = 8.0
                 ) -> list[str]:
    """Team name for each colour signature (N, FEATURE_DIM) in one go (no memory over time).

    Clusters into two with k-means; with `hints` (team → BGR) clusters are named after the
    hints by the best pairing, and if the two clusters are closer than `min_separation`
    (one team in view) each colour takes its nearest hint. Without hints the names are
    `names` in the stable order.
    """
    f = np.asarray(features, float).reshape(-1, FEATURE_DIM)
    if len(f) == 0:
        return []
    hint_f = {k: colour_feature(v) for k, v in (hints or {}).items()}
    labels, centres = cluster_two(f)
    separated = feature_distance(centres[0], centres[1]) >= min_separation
    if hint_f and not separated:
        keys = list(hint_f)
        d = point_distance(f[:, None, :], np.array([hint_f[k] for k in keys])[None])
        return [keys[i] for i in np.argmin(d, axis=1)]
    if not separated:
        return [names[0]] * len(f)
    centre_names = match_names(centres, hint_f, point_distance) if hint_f else list(names[:2])
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
      detector's umpire class), and its share of such looks is at least
      `umpire_relative` of the best share among well-seen tracks (`relative_min_looks`):
      a rider whose looks are called "umpire" a third of the time is not one when the
      real umpire's are nearly all called so (measured on the sample clips with the v2
      detector: umpires 0.57-1.0, riders up to 0.53).
    - Teams: the two team colours come from k-means over one colour signature per
      non-umpire track (the median of its looks), re-done every `recluster_every`
      observations. Each look votes for the closer team colour (looks farther than
      `max_vote_distance` from both abstain: a neighbour in the crop, motion blur; so do
      looks nearly as close to both, AMBIGUOUS_RATIO, while `min_votes` clear ones are
      there), and a track's team is the one with the most votes once it has `min_votes`.
    - Names: with `hints` (team → BGR) the two clusters are named after the hints by the
      best one-to-one pairing, every time; otherwise they are `names`, kept attached to
      the same colours from one re-clustering to the next.
    """

    def __init__(self, hints: Mapping[str, Sequence[float]] | None = None,
                 names: Sequence[str] = DEFAULT_TEAM_NAMES, umpire_threshold: float = 0.5,
                 min_votes: int = 3, history: int = 200, recluster_every: int = 20,
                 min_separation: float = 8.0, max_vote_distance: float = 16.0,
                 umpire_fraction: float = 0.45, umpire_relative: float = 0.6, relative_min_looks: int = 20):
        self.hints = {k: colour_feature(v) for k, v in (hints or {}).items()}
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
        self.umpire_relative = float(umpire_relative)
        self.relative_min_looks = int(relative_min_looks)
        self._looks: dict[Hashable, deque] = defaultdict(lambda: deque(maxlen=self.history))
        self._labs: dict[Hashable, deque] = defaultdict(lambda: deque(maxlen=self.history))
        self._umpire_votes: dict[Hashable, float] = defaultdict(float)
        self._all_votes: dict[Hashable, float] = defaultdict(float)
        self._centres: dict[str, np.ndarray] = {}
        self._centre_labs: dict[str, np.ndarray] = {}
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
        elif appearance.feature is not None:
            self._looks[track_id].append(np.asarray(appearance.feature, float))
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
        for store in (self._looks, self._labs, self._umpire_votes, self._all_votes):
            store.pop(track_id, None)

    # -- asking -----------------------------------------------------------------------
    def is_umpire(self, track_id: Hashable) -> bool:
        total = self._all_votes.get(track_id, 0.0)
        ump = self._umpire_votes.get(track_id, 0.0)
        if not (ump >= self.min_votes and ump >= self.umpire_fraction * total):
            return False
        shares = [self._umpire_votes.get(k, 0.0) / n for k, n in self._all_votes.items()
                  if n >= self.relative_min_looks]
        return ump / total >= self.umpire_relative * max(shares, default=0.0)

    def observations(self, track_id: Hashable) -> float:
        """How many looks (by weight) of a track have been recorded."""
        return self._all_votes.get(track_id, 0.0)

    def team_colours(self) -> dict[str, np.ndarray]:
        """Current team colour (Lab) per team name."""
        self._update_centres()
        return dict(self._centre_labs)

    def votes(self, track_id: Hashable) -> dict[str, float]:
        """Votes per label for one track (umpire votes included)."""
        out = {UMPIRE: self._umpire_votes.get(track_id, 0.0)}
        looks = self._looks.get(track_id)
        if looks:
            self._update_centres()
            names, clear = self.look_votes(np.array(looks))
            # Looks nearly as close to both team colours (two kits in the band: a rider seen
            # over the shoulder of one of the other team in front of him) say little: when
            # enough looks are clear, only they vote.
            for name in self._voting(names, clear):
                out[name] = out.get(name, 0.0) + 1.0
        return out

    def _voting(self, names: list[str | None], clear: list[bool]) -> list[str]:
        """The team names looks vote for (look_votes): the clear ones when there are at
        least `min_votes` of them, else every look near a team colour."""
        voting = [n for n, c in zip(names, clear) if n is not None and c]
        return voting if len(voting) >= self.min_votes else [n for n in names if n is not None]

    def team_of(self, looks: Sequence[np.ndarray]) -> str | None:
        """The team that looks (colour features) not recorded under any track vote for, as a
        track's own looks vote (votes): None when no team has `min_votes` of them. Never the
        umpire, and the looks do not move the team colours."""
        if not len(looks):
            return None
        return self._leader(Counter(self._voting(*self.look_votes(np.asarray(looks, float).reshape(len(looks), -1)))))

    def _leader(self, tally: Mapping[str, float]) -> str | None:
        """The team with the most votes in `tally` (the first of equals), if it has `min_votes`."""
        if not tally:
            return None
        name, n = max(tally.items(), key=lambda kv: kv[1])
        return name if n >= self.min_votes else None

    def identity(self, track_id: Hashable) -> str | None:
        """``"umpire"``, a team name, or None while the votes are too few."""
        if self.is_umpire(track_id):
            return UMPIRE
        v = self.votes(track_id)
        v.pop(UMPIRE, None)
        return self._leader(v)

    def identities(self) -> dict[Hashable, str | None]:
        """Identity of every track seen so far."""
        return {tid: self.identity(tid) for tid in self._all_votes}

    # -- internals --------------------------------------------------------------------
    def _team_tracks(self) -> list[Hashable]:
        return [tid for tid, v in self._looks.items() if v and not self.is_umpire(tid)]

    def _update_centres(self) -> None:
        if self._centres and self._since_cluster < self.recluster_every:
            return
        tids = self._team_tracks()
        if not tids:
            return
        self._since_cluster = 0
        if len(tids) >= 2:     # one colour per track: a few odd frames do not move it
            samples = np.array([np.median(np.array(self._looks[t]), axis=0) for t in tids])
            labs = np.array([np.median(np.array(self._labs[t]), axis=0) for t in tids])
        else:                  # a single track: its looks
            samples, labs = np.array(self._looks[tids[0]]), np.array(self._labs[tids[0]])
        labels, centres = cluster_two(samples)
        if feature_distance(centres[0], centres[1]) < self.min_separation:
            self._one_team(np.median(samples, axis=0), np.median(labs, axis=0))
            return
        if self.hints:
            names = match_names(centres, self.hints, point_distance)
        elif len(self._centres) == 2:
            names = match_names(centres, self._centres)
        elif len(self._centres) == 1:                 # the second team has appeared
            known = next(iter(self._centres))
            names = match_names(centres, self._centres)
            other = [n for n in self.names if n != known][0]
            names = [n or other for n in names]
        else:
            names = list(self.names)
        self._centres = {names[k]: centres[k] for k in range(2)}
        self._centre_labs = {names[k]: np.median(labs[labels == k] if np.any(labels == k) else labs,
                                                 axis=0) for k in range(2)}

    def _one_team(self, colour: np.ndarray, lab: np.ndarray) -> None:
        """Only one colour in view: keep its name if known, else nearest hint/first."""
        if self._centres:
            d = {n: float(feature_distance(c, colour)) for n, c in self._centres.items()}
            name = min(d, key=d.get)
        elif self.hints:
            name = min(self.hints, key=lambda n: float(point_distance(self.hints[n], colour)))
        else:
            name = self.names[0]
        if len(self._centres) == 2:
            self._centres[name], self._centre_labs[name] = colour, lab
        else:
            self._centres, self._centre_labs = {name: colour}, {name: lab}

    def look_names(self, looks: np.ndarray) -> list[str | None]:
        """The team colour each look (colour feature) is nearest to, None where it is far
        from every team colour (a neighbour in the crop, motion blur)."""
        return self.look_votes(looks)[0]

    def look_votes(self, looks: np.ndarray) -> tuple[list[str | None], list[bool]]:
        """`look_names`, and whether each look is clear: its nearest team colour nearer than
        AMBIGUOUS_RATIO of its distance to the other."""
        self._update_centres()
        if not self._centres or not len(looks):
            return [None] * len(looks), [False] * len(looks)
        names = list(self._centres)
        ref = np.array([self._centres[n] for n in names])
        d = feature_distance(np.asarray(looks)[:, None, :], ref[None, :, :])
        best = np.argmin(d, axis=1)
        nearest = d[np.arange(len(d)), best]
        near = nearest <= self.max_vote_distance
        clear = nearest < AMBIGUOUS_RATIO * d.max(axis=1) if len(names) == 2 else np.ones(len(d), bool)
        return [names[b] if ok else None for b, ok in zip(best, near)], [bool(c) for c in clear]
