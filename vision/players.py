"""Pair each rider (or umpire) with the horse he sits on into one mounted unit.

A unit's field position is its horse's ground-contact point. Pairing is an assignment over
box geometry: the person's box must sit on the horse's box (his lower half overlapping its
upper part, horizontally inside it), solved with the Hungarian method.

A person left without a horse is still a mounted unit when his horse is hidden: a camera
looking along a line-up's ranks sees the riders behind the first one from the waist up
(50-65% of each visible) and their horses hardly at all (1-9%), so the detector finds the
riders and not the horses. Such a unit gets the horse box its rider implies (horse_from_person,
`Units.inferred`); its ground point is a guess the pipeline treats as a wholly hidden bottom
edge (placed from the rider's head, with the larger uncertainty of a hidden edge).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.detections import HORSE, RIDER, UMPIRE, Detections
from vision.positions import GAIT_DROP, ground_point_px, hidden_share


SEAT = 0.52              # (rider box bottom - horse box top) / horse box height: on the samples' true
                         # boxes 0.49-0.56 (5th-95th percentile), median 0.52, all of them 0.44-0.60
SEAT_TOLERANCE = 0.4     # the score falls to 0 this far from SEAT: the rider of the horse behind, whose
                         # boots are near the top of the horse in front, is not paired with it
# The horse box a person's (amodal) box implies, from the 12 samples' truth (every 5th frame,
# every mounted person): the ground point lies 0.704 person heights below his box's bottom
# (5th-95th percentile 0.65-0.74) and the horse box is 1.43 person heights tall (1.35-1.64);
# across, the ground point is within 0.3 person widths of his centre (the horse's heading).
INFER_GROUND_BELOW = 0.704
INFER_HORSE_HEIGHT = 1.43
INFER_MAX_ASPECT = 3.2   # height / width of a mounted person's box: 1.86-3.01 (1st-99th pct 1.89-3.01);
                         # a taller, narrower box is not taken for a rider whose horse is hidden
DUPLICATE_SHARE = 0.15   # an implied ground point this near (share of the horse height) a detected
                         # unit's is that unit's own rider, unpaired: no second unit
INFER_CONF = 0.4         # an implied unit's score is at most this (the tracker then prefers a detected
                         # horse; on clean_lineup p95 error 1.41 -> 1.27 yd against the rider's own score);
                         # an umpire's unit scores at least his own box's score up to this: his horse, half
                         # hidden behind a line-up, boxed at 0.34, made him fainter than no horse box would
                         # (re-rendered clean_two_umpires, seed 1900: no umpire there for 100 frames)
HIDDEN_MIN = 0.5         # the implied horse's hooves must be this hidden (positions.hidden_share) by
                         # horses in front: a horse in clear view that the detector missed for a frame
                         # is the tracker's to bridge, not a guess from its rider


@dataclass
class Units:
    """Mounted units in one frame: the horse box, the person box (NaN if none), the kind."""

    horse_xyxy: np.ndarray      # (N, 4)
    person_xyxy: np.ndarray     # (N, 4), NaN where no rider was paired
    is_umpire: np.ndarray       # (N,) bool: the person is an umpire
    confidence: np.ndarray      # (N,) the horse's detection score
    person_index: np.ndarray    # (N,) index of the person in the frame's detections, -1 if none
    seat: np.ndarray | None = None  # (N,) seat_score of the pairing (0 where unpaired, 1 where inferred)
    inferred: np.ndarray | None = None  # (N,) the horse box is implied by the person's (hidden horse)

    def __len__(self) -> int:
        return len(self.is_umpire)

    def subset(self, keep: np.ndarray) -> "Units":
        """The units where `keep` (N,) bool is true."""
        pick = lambda a: None if a is None else a[keep]          # noqa: E731
        return Units(self.horse_xyxy[keep], self.person_xyxy[keep], self.is_umpire[keep], self.confidence[keep],
                     self.person_index[keep], pick(self.seat), pick(self.inferred))


def seat_score(person: np.ndarray, horse: np.ndarray) -> np.ndarray:
    """(P, H) how well each person box sits on each horse box; 0 = impossible, 1 = perfect."""
    px1, py1, px2, py2 = (person[:, None, k] for k in range(4))
    hx1, hy1, hx2, hy2 = (horse[None, :, k] for k in range(4))
    pw = np.maximum(px2 - px1, 1e-6)
    hh = np.maximum(hy2 - hy1, 1e-6)
    horiz = np.clip(np.minimum(px2, hx2) - np.maximum(px1, hx1), 0, None) / pw     # person inside horse span
    # The rider's box bottom (his boots) lies about half-way down the horse's box; his top is above
    # the horse's top.
    seat = (py2 - hy1) / hh
    vert = np.clip(1.0 - np.abs(seat - SEAT) / SEAT_TOLERANCE, 0, 1) * (py1 < hy1 + 0.25 * hh)
    return horiz * vert


def horse_from_person(person: np.ndarray) -> np.ndarray:
    """(N, 4) the horse box implied by person boxes (N, 4): INFER_HORSE_HEIGHT person heights
    tall, as wide as the person, its ground point (positions.ground_point_px: the bottom edge
    raised 1.5% of the height) INFER_GROUND_BELOW person heights below his box's bottom."""
    h = person[:, 3] - person[:, 1]
    horse_h = INFER_HORSE_HEIGHT * h
    bottom = person[:, 3] + INFER_GROUND_BELOW * h - GAIT_DROP[0] * horse_h
    return np.stack([person[:, 0], bottom - horse_h, person[:, 2], bottom], axis=1)


# The rider a horse box implies (the inverse, for a horse whose rider was not boxed), from the
# 12 samples' truth (every 10th frame, 577 fully visible mounted players): the rider's box is
# centred on the horse's (its centre within 0.08 horse widths, 10th-90th percentile), 0.33
# horse heights wide (0.25-0.37), from 0.21 horse heights above the horse box's top (0.12-0.23)
# to 0.52 below it (0.49-0.55).
RIDER_HALF_WIDTH = 0.165
RIDER_ABOVE = 0.21
RIDER_BELOW = 0.52


def rider_from_horse(horse: np.ndarray) -> np.ndarray:
    """(N, 4) the rider box implied by horse boxes (N, 4) (RIDER_HALF_WIDTH, RIDER_ABOVE,
    RIDER_BELOW: shares of the horse box's height)."""
    horse = np.asarray(horse, float).reshape(-1, 4)
    h = horse[:, 3] - horse[:, 1]
    cx = (horse[:, 0] + horse[:, 2]) / 2
    return np.stack([cx - RIDER_HALF_WIDTH * h, horse[:, 1] - RIDER_ABOVE * h,
                     cx + RIDER_HALF_WIDTH * h, horse[:, 1] + RIDER_BELOW * h], axis=1)


def _hidden_horse_units(det: Detections, people: np.ndarray, horse_xyxy: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Indices (into `det`) of the unpaired persons `people` taken as riders of hidden horses,
    and their implied horse boxes (K, 4)."""
    if not len(people):
        return people, np.zeros((0, 4), np.float32)
    person = det.xyxy[people].astype(np.float32)
    w, h = person[:, 2] - person[:, 0], person[:, 3] - person[:, 1]
    keep = (w > 0) & (h <= INFER_MAX_ASPECT * w)
    implied = horse_from_person(person)
    if len(horse_xyxy):
        g, gh = ground_point_px(implied), ground_point_px(horse_xyxy)
        scale = np.maximum(implied[:, 3] - implied[:, 1], 1e-6)
        near = np.hypot(g[:, None, 0] - gh[None, :, 0], g[:, None, 1] - gh[None, :, 1]) / scale[:, None]
        keep &= ~np.any(near < DUPLICATE_SHARE, axis=1)
    if keep.any():
        both = np.concatenate([horse_xyxy, implied[keep]])
        hidden = hidden_share(both[:, None, :])[len(horse_xyxy):, 0]
        keep[np.flatnonzero(keep)[hidden < HIDDEN_MIN]] = False
    return people[keep], implied[keep]


def pair_units(det: Detections, min_score: float = 0.2, hidden_horses: bool = False) -> Units:
    """Mounted units of one frame's detections; with `hidden_horses` a person left unpaired is
    a unit of his own, on the horse box he implies (module docstring)."""
    horses = np.flatnonzero(det.class_id == HORSE)
    people = np.flatnonzero(np.isin(det.class_id, (RIDER, UMPIRE)))
    n = len(horses)
    person_xyxy = np.full((n, 4), np.nan, np.float32)
    is_umpire = np.zeros(n, bool)
    person_index = np.full(n, -1, np.int64)
    seat = np.zeros(n, np.float32)
    if n and len(people):
        score = seat_score(det.xyxy[people], det.xyxy[horses])
        rows, cols = linear_sum_assignment(-score)
        ok = score[rows, cols] >= min_score
        rows, cols = rows[ok], cols[ok]
        person_xyxy[cols] = det.xyxy[people[rows]]
        is_umpire[cols] = det.class_id[people[rows]] == UMPIRE
        person_index[cols] = people[rows]
        seat[cols] = score[rows, cols]
    conf = det.confidence[horses].astype(np.float32)
    if is_umpire.any():      # the umpire's unit scores at least his own box's, up to INFER_CONF (below)
        ump = np.flatnonzero(is_umpire)
        conf[ump] = np.maximum(conf[ump], np.minimum(det.confidence[person_index[ump]], INFER_CONF))
    units = Units(det.xyxy[horses].astype(np.float32), person_xyxy, is_umpire,
                  conf, person_index, seat, np.zeros(n, bool))
    if not hidden_horses:
        return units
    lone, implied = _hidden_horse_units(det, np.setdiff1d(people, person_index), units.horse_xyxy)
    if not len(lone):
        return units
    return Units(np.concatenate([units.horse_xyxy, implied]),
                 np.concatenate([units.person_xyxy, det.xyxy[lone].astype(np.float32)]),
                 np.concatenate([units.is_umpire, det.class_id[lone] == UMPIRE]),
                 np.concatenate([units.confidence, np.minimum(det.confidence[lone], INFER_CONF).astype(np.float32)]),
                 np.concatenate([units.person_index, lone]),
                 np.concatenate([units.seat, np.ones(len(lone), np.float32)]),   # he is the unit's own
                 np.concatenate([units.inferred, np.ones(len(lone), bool)]))
