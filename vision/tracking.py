"""Track mounted units across frames with Ultralytics' ByteTrack.

Each unit (horse + rider, or horse + umpire) is tracked by its horse box; the tracker keeps
lost tracks alive for `track_buffer` frames so ids survive the occlusions of a dense line-up.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from ultralytics.trackers.byte_tracker import BYTETracker

from vision.players import Units


class _Boxes:
    """The numpy view of detections that BYTETracker reads (conf, cls, xywh, boolean indexing)."""

    def __init__(self, xyxy: np.ndarray, conf: np.ndarray, cls: np.ndarray):
        self.xyxy, self.conf, self.cls = xyxy, conf, cls

    @property
    def xywh(self) -> np.ndarray:
        xy = (self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2
        return np.concatenate([xy, self.xyxy[:, 2:] - self.xyxy[:, :2]], axis=1)

    def __len__(self) -> int:
        return len(self.conf)

    def __getitem__(self, idx) -> "_Boxes":
        return _Boxes(self.xyxy[idx], self.conf[idx], self.cls[idx])


class UnitTracker:
    def __init__(self, fps: float = 25.0, track_buffer_s: float = 2.0, high: float = 0.4, low: float = 0.1,
                 new_track: float = 0.5, match: float = 0.8):
        args = SimpleNamespace(tracker_type="bytetrack", track_high_thresh=high, track_low_thresh=low,
                               new_track_thresh=new_track, track_buffer=int(round(track_buffer_s * fps)),
                               match_thresh=match, fuse_score=True)
        self._tracker = BYTETracker(args)
        self._tracker.frame_rate = fps

    def update(self, units: Units) -> np.ndarray:
        """Track ids (N,) for this frame's units; -1 for a unit not (yet) confirmed as a track."""
        ids = np.full(len(units), -1, np.int64)
        boxes = _Boxes(units.horse_xyxy.astype(np.float32), units.confidence.astype(np.float32),
                       units.is_umpire.astype(np.float32))
        out = self._tracker.update(boxes)
        if len(out):
            ids[out[:, 7].astype(np.int64)] = out[:, 4].astype(np.int64)
        return ids
