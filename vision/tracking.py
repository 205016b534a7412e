"""Track mounted units across frames with Ultralytics' ByteTrack, in a bird's-eye view.

In a line-up the horses' image boxes overlap heavily, so IoU between image boxes confuses
neighbours. On the ground the same horses stand ~3 yd apart. Each unit is therefore given
to ByteTrack as a square footprint (`footprint_yd` wide) centred on its field position, in
a top-down "image" of `PX_PER_YD` pixels per yard: ByteTrack's Kalman filter and IoU
matching then work on ground positions, which also stay put while the camera pans.
Lost tracks live for `track_buffer_s` so ids survive occlusions.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from ultralytics.trackers.byte_tracker import BYTETracker

from vision.players import Units

PX_PER_YD = 10.0


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
    def __init__(self, fps: float = 25.0, track_buffer_s: float = 2.0, high: float = 0.3, low: float = 0.1,
                 new_track: float = 0.35, match: float = 0.9, footprint_yd: float = 2.4):
        self.footprint_yd = footprint_yd
        args = SimpleNamespace(tracker_type="bytetrack", track_high_thresh=high, track_low_thresh=low,
                               new_track_thresh=new_track, track_buffer=int(round(track_buffer_s * fps)),
                               match_thresh=match, fuse_score=True)
        self._tracker = BYTETracker(args)
        self._tracker.frame_rate = fps

    def update(self, units: Units, field_yd: np.ndarray) -> np.ndarray:
        """Track ids (N,) for this frame's units at `field_yd` (N, 2); -1 = not (yet) a confirmed track."""
        ids = np.full(len(units), -1, np.int64)
        c = np.asarray(field_yd, np.float32).reshape(-1, 2) * PX_PER_YD
        half = self.footprint_yd * PX_PER_YD / 2
        ok = np.all(np.isfinite(c), axis=1)
        xyxy = np.concatenate([c - half, c + half], axis=1)
        boxes = _Boxes(np.where(ok[:, None], xyxy, 0).astype(np.float32),
                       np.where(ok, units.confidence, 0).astype(np.float32), units.is_umpire.astype(np.float32))
        out = self._tracker.update(boxes)
        if len(out):
            ids[out[:, 7].astype(np.int64)] = out[:, 4].astype(np.int64)
        return ids
