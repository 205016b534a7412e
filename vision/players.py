"""Pair each rider (or umpire) with the horse he sits on into one mounted unit.

A unit's field position is its horse's ground-contact point. Pairing is an assignment over
box geometry: the person's box must sit on the horse's box (his lower half overlapping its
upper part, horizontally inside it), solved with the Hungarian method.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.detections import HORSE, RIDER, UMPIRE, Detections


SEAT = 0.52              # (rider box bottom - horse box top) / horse box height: on the samples' true
                         # boxes 0.49-0.56 (5th-95th percentile), median 0.52, all of them 0.44-0.60
SEAT_TOLERANCE = 0.4     # the score falls to 0 this far from SEAT: the rider of the horse behind, whose
                         # boots are near the top of the horse in front, is not paired with it


@dataclass
class Units:
    """Mounted units in one frame: the horse box, the person box (NaN if none), the kind."""

    horse_xyxy: np.ndarray      # (N, 4)
    person_xyxy: np.ndarray     # (N, 4), NaN where no rider was paired
    is_umpire: np.ndarray       # (N,) bool: the person is an umpire
    confidence: np.ndarray      # (N,) the horse's detection score
    person_index: np.ndarray    # (N,) index of the person in the frame's detections, -1 if none
    seat: np.ndarray | None = None  # (N,) seat_score of the pairing (0 where unpaired)

    def __len__(self) -> int:
        return len(self.is_umpire)


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


def pair_units(det: Detections, min_score: float = 0.2) -> Units:
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
    return Units(det.xyxy[horses].astype(np.float32), person_xyxy, is_umpire,
                 det.confidence[horses], person_index, seat)
