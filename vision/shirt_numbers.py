"""Shirt numbers: read each rider's number (1-4) from his box, then vote per track.

Rule 20 names players by team and number ("Red #2 is slow returning", "a foul against Blue
#1"); the tracker's ids (`red-t7`) are not shirt numbers. A small CNN reads the rider's crop
(his box with a margin, resized to CROP_W x CROP_H) into one of five classes: no readable
number (his side turned to the camera, the number hidden or too small), or 1, 2, 3, 4. It is
trained on the renderer's riders, labelled by the renderer itself: the number it drew and
how much of it nearer units left showing (`polo-lineup train-numbers`; models/README.md).

A frame's read is weak evidence (a side view, a blurred stroke); a track's number is a vote
(`vote_numbers`): the reads whose best digit holds at least READ_MIN, at least MIN_READS of
them, and at least AGREE_MIN of those naming the same digit. A track with too few reads, or
reads that disagree, has no number: the report then names it by its track id alone. Two
tracks of one team given the same number while both are on the field: the one with fewer
reads for it loses it (`resolve_clashes`); tracks of one team and number one after the other
are one player followed twice (a lost track), which the report says.

Riders under MIN_BOX_H px tall are not read: the renderer's numbers are 0.16 of the rider's
box, under 6 px there (unreadable in 8-bit video).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.detect import ROOT
from vision.small_nets import SmallClassifier, conv_block, load_optional, resized_crops

DEFAULT_NUMBER_MODEL = ROOT / "models" / "polo-numbers.pt"
CROP_W, CROP_H = 40, 56
MARGIN_X, MARGIN_Y = 0.08, 0.04      # of the box's width / height, each side
MIN_BOX_H = 36.0                     # px: smaller riders are not read
NUMBERS = (1, 2, 3, 4)               # class k (1-4) is shirt number k; class 0: none readable
READ_MIN = 0.9                       # a read counts when its best digit holds this much
MIN_READS = 3                        # a track needs this many counting reads ...
AGREE_MIN = 0.75                     # ... this share of them naming one digit
CLASH_OVERLAP = 5                    # frames two tracks must share to clash over a number


def crop_riders(frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(N, 3, CROP_H, CROP_W) float32 in [0, 1], RGB: each rider box with its margin, resized."""
    return resized_crops(frame, boxes, CROP_W, CROP_H, MARGIN_X, MARGIN_Y)


def readable(boxes: np.ndarray) -> np.ndarray:
    """(N,) bool: the box is tall enough to read a number on."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    return np.isfinite(boxes).all(axis=1) & (boxes[:, 3] - boxes[:, 1] >= MIN_BOX_H)


def build_net():
    """4 conv blocks (16, 32, 48, 64 channels), global pooling, 5 logits (none, 1, 2, 3, 4)."""
    from torch import nn
    return nn.Sequential(*conv_block(3, 16, True), *conv_block(16, 32, True), *conv_block(32, 48, True),
                         *conv_block(48, 64, False), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1),
                         nn.Linear(64, 1 + len(NUMBERS)))


class NumberReader(SmallClassifier):
    """Loads the weights once; `read(frame, boxes)` gives each rider box's class probabilities
    (N, 5): none readable, 1, 2, 3, 4."""

    what = "shirt-number reader"
    default_path = DEFAULT_NUMBER_MODEL
    crop_shape = (3, CROP_H, CROP_W)
    build_net = staticmethod(build_net)

    def read(self, frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        return self.read_crops(crop_riders(frame, np.asarray(boxes, float).reshape(-1, 4)))

    def read_crops(self, crops: np.ndarray) -> np.ndarray:
        return self.probabilities(crops)


def load_number_reader(model: str | Path | None = "auto") -> NumberReader | None:
    """"auto": the shipped reader when its file is there (else None); "none": None; a path: that file."""
    return load_optional(model, DEFAULT_NUMBER_MODEL, NumberReader)


@dataclass
class NumberVote:
    """A track's shirt number by vote: `number` None when the reads do not settle it."""
    number: int | None
    reads: int                 # reads that counted (best digit >= READ_MIN)
    agree: float               # share of them naming the winning digit (0 when none)
    clash: str | None = None   # why a number the reads gave was taken away


def vote(probs: np.ndarray) -> NumberVote:
    """One track's reads (K, 5) → its number (see the module's docstring)."""
    probs = np.asarray(probs, float).reshape(-1, 1 + len(NUMBERS))
    best = probs[:, 1:].max(axis=1) if len(probs) else np.zeros(0)
    digit = probs[:, 1:].argmax(axis=1) + 1 if len(probs) else np.zeros(0, int)
    counted = digit[best >= READ_MIN]
    if not len(counted):
        return NumberVote(None, 0, 0.0)
    values, counts = np.unique(counted, return_counts=True)
    top = int(np.argmax(counts))
    agree = float(counts[top] / len(counted))
    number = int(values[top]) if len(counted) >= MIN_READS and agree >= AGREE_MIN else None
    return NumberVote(number, int(len(counted)), round(agree, 3))


def vote_numbers(reads: dict[int, list[np.ndarray]]) -> dict[int, NumberVote]:
    """Track id → its vote, over every track with reads."""
    return {tid: vote(np.array(r)) for tid, r in reads.items()}


def resolve_clashes(votes: dict[int, NumberVote], team_of: dict[int, str | None],
                    frames_of: dict[int, np.ndarray]) -> list[list[int]]:
    """Two tracks of one team with one number seen together (at least CLASH_OVERLAP frames in
    common): the one with fewer counting reads loses the number (`clash` says why; equal
    reads: both lose it). Returns the groups of tracks of one team and number that were never
    on the field together (one player followed by more than one track), longest-read first.
    `frames_of`: each track's frame positions (sorted ints)."""
    by_key: dict[tuple, list[int]] = {}
    for tid, v in votes.items():
        if v.number is not None and team_of.get(tid):
            by_key.setdefault((team_of[tid], v.number), []).append(tid)
    groups = []
    for (team, number), tids in sorted(by_key.items()):
        tids = sorted(tids, key=lambda k: (-votes[k].reads, k))
        beside: dict[int, list[int]] = {}          # each loser: the tracks it was seen together with
        for i, a in enumerate(tids):
            for b in tids[i + 1:]:
                together = len(np.intersect1d(frames_of.get(a, []), frames_of.get(b, [])))
                if together < CLASH_OVERLAP:
                    continue
                if votes[a].reads == votes[b].reads:
                    beside.setdefault(a, []).append(b)
                beside.setdefault(b, []).append(a)
        losers = set(beside)
        for k in losers:
            votes[k].clash = (f"{team} #{number} also read on track {', '.join(str(o) for o in sorted(beside[k]))}, "
                              f"on the field at the same time")
            votes[k].number = None
        kept = [k for k in tids if k not in losers]
        if len(kept) > 1:
            groups.append(kept)
    return groups


def track_reads(number_reads: list[tuple], frames: list) -> dict[int, list[np.ndarray]]:
    """The reads (vision.observe: frame position, unit index, probabilities) by the track id
    each unit has now (after the tracks were cut or exchanged: vision.swaps)."""
    out: dict[int, list[np.ndarray]] = {}
    for pos, k, p in number_reads:
        if pos < len(frames) and k < len(frames[pos].track_ids):
            tid = int(frames[pos].track_ids[k])
            if tid >= 0:
                out.setdefault(tid, []).append(p)
    return out


def name_events(events: list[dict], shirts: dict[str, str]) -> None:
    """Each event's player (and opponent) gets his shirt's name where it was read
    (`player_shirt`, `opponent_shirt`: "Red #2"); `shirts` maps player ids to those names."""
    for ev in events:
        for key in ("player", "opponent"):
            if ev.get(key) in shirts:
                ev[f"{key}_shirt"] = shirts[ev[key]]
