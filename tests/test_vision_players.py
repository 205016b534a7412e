"""Pairing each rider with the horse he sits on (vision.players), on a sample's true boxes.

In the line-up of slow_returner_red2 (frame 100) Blue #4 stands behind Red #1: his rider's
boots are near the top of Red #1's horse. When the detector misses Red #1's rider, Blue #4's
must not be paired with Red #1's horse (the red player then votes blue and is judged on the
wrong side of the centre line).
"""
import json
from pathlib import Path

import numpy as np

from vision.detections import HORSE, RIDER, UMPIRE, Detections
from vision.players import pair_units, seat_score

TRUTH = Path(__file__).resolve().parents[1] / "sample_videos" / "slow_returner_red2" / "truth.json"


def _frame(skip_riders=()):
    """Detections from the renderer's true boxes of frame 100, without the riders named, and
    the object id of each horse."""
    fr = json.loads(TRUTH.read_text())["frames"][100]
    boxes, classes, horse_ids = [], [], []
    for o in fr["objects"]:
        b = o["boxes"]
        if "horse" in b:
            boxes.append(b["horse"]), classes.append(HORSE), horse_ids.append(o["id"])
        if "rider" in b and o["id"] not in skip_riders:
            boxes.append(b["rider"]), classes.append(RIDER)
        if "umpire" in b:
            boxes.append(b["umpire"]), classes.append(UMPIRE)
    det = Detections(np.array(boxes, np.float32), np.array(classes), np.full(len(boxes), 0.9, np.float32))
    return det, horse_ids


def _paired(det, horse_ids):
    """{horse's object id: its paired person's box (rounded) or None}."""
    units = pair_units(det)
    return {hid: (None if units.person_index[k] < 0 else tuple(np.round(det.xyxy[units.person_index[k]])))
            for k, hid in enumerate(horse_ids)}


def test_every_true_rider_is_paired_with_his_own_horse():
    det, horse_ids = _frame()
    units = pair_units(det)
    assert (units.person_index >= 0).all()
    fr = json.loads(TRUTH.read_text())["frames"][100]
    own = {o["id"]: tuple(np.round(o["boxes"].get("rider", o["boxes"].get("umpire")))) for o in fr["objects"]
           if "horse" in o["boxes"]}
    assert _paired(det, horse_ids) == own


def test_the_rider_behind_is_not_paired_with_the_horse_in_front_whose_rider_was_missed():
    det, horse_ids = _frame(skip_riders=("red-1",))
    paired = _paired(det, horse_ids)
    assert paired["red-1"] is None
    # Blue #4's own horse also missed: his rider stays unpaired rather than take Red #1's horse.
    keep = np.ones(len(det.xyxy), bool)
    keep[np.flatnonzero(det.class_id == HORSE)[horse_ids.index("blue-4")]] = False
    det2 = Detections(det.xyxy[keep], det.class_id[keep], det.confidence[keep])
    ids2 = [h for h in horse_ids if h != "blue-4"]
    assert _paired(det2, ids2)["red-1"] is None


def test_seat_score_peaks_half_way_down_the_horse():
    horse = np.array([[100.0, 100.0, 140.0, 200.0]])
    def rider(bottom):
        return np.array([[105.0, 80.0, 135.0, bottom]])
    scores = [float(seat_score(rider(b), horse)[0, 0]) for b in (110.0, 130.0, 152.0, 175.0, 195.0)]
    assert scores[2] == max(scores) and scores[2] > 0.9
    assert scores[0] == 0.0 and scores[-1] == 0.0       # boots at the horse's top, or at its hooves
