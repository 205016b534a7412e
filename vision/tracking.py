"""Track mounted units across frames with Ultralytics' ByteTrack, on their ground points.

Where a unit is: its horse's ground-contact point. Two spaces are offered:

- ``"field"`` (the default): the field position in yards, each unit a square `footprint_yd`
  wide in a top-down "image" of PX_PER_YD pixels per yard; the footprint is wide enough to
  keep galloping horses. From a side-on camera a few pixels of box height are a yard or two
  of depth, so the noise there is long and narrow, and neighbours in a line-up can swap ids
  (tests/test_vision_tracking.py shows it with box-bottom noise alone).
- ``"image"``: the ground point in the frame's own pixels, each unit a square
  IMAGE_FOOTPRINT of its horse box's height wide. A box bottom is a few pixels off at random
  in any direction, so the noise is round here, and the ranks of a line-up (1-3 yd apart) stay
  apart. When the camera pans or zooms, the tracks' Kalman states are carried from the last
  frame's pixels into this frame's with the camera's motion (the BoT-SORT "global motion
  compensation" idea, for ByteTrack's x, y, aspect, height state). A unit that moved far
  since the last frame gets a footprint as wide as twice that step, up to MAX_GROWTH times
  the usual. Measured on the sample clips with the v2 detector (models/README.md): fewer id
  switches in still line-ups, but the small footprints lose the detector's jumpier boxes
  (positions placed: 36-88% of the players in view, against 71-95% in yards), so it is an
  option (`--track-space image`), not the default.

Lost tracks live for `track_buffer_s` so ids survive occlusions.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from ultralytics.trackers.byte_tracker import BYTETracker

from vision.players import Units

PX_PER_YD = 10.0
IMAGE_FOOTPRINT = 0.3
MAX_GROWTH = 3.0
SPACES = ("image", "field")


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


def affine_of(M: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The 2x3 affine map closest (least squares on a 5x5 grid over a `size` (w, h) frame)
    to the 3x3 homography `M` between two frames' pixels."""
    w, h = size
    gx, gy = np.meshgrid(np.linspace(0, w, 5), np.linspace(0, h, 5))
    src = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)], axis=1)
    dst = src @ np.asarray(M, float).T
    dst = dst[:, :2] / dst[:, 2:3]
    A, *_ = np.linalg.lstsq(src, dst, rcond=None)
    return A.T


def warp_tracks(stracks: list, A: np.ndarray) -> None:
    """Carry ByteTrack states (x, y, aspect, height and their velocities) through the 2x3
    affine `A` (last frame's pixels → this frame's): centre and velocity follow it, the
    height scales with it, the aspect stays."""
    if not stracks:
        return
    R, t = A[:, :2], A[:, 2]
    s = float(np.sqrt(abs(np.linalg.det(R))))
    T = np.eye(8)
    T[0:2, 0:2] = R
    T[4:6, 4:6] = R
    T[3, 3] = T[7, 7] = s
    for st in stracks:
        st.mean = T @ st.mean
        st.mean[:2] += t
        st.covariance = T @ st.covariance @ T.T


class UnitTracker:
    def __init__(self, fps: float = 25.0, track_buffer_s: float = 2.0, high: float = 0.3, low: float = 0.1,
                 new_track: float = 0.35, match: float = 0.9, footprint_yd: float = 2.4,
                 space: str = "field", image_footprint: float = IMAGE_FOOTPRINT):
        if space not in SPACES:
            raise ValueError(f"space must be one of {', '.join(SPACES)}")
        self.footprint_yd = footprint_yd
        self.space, self.image_footprint = space, image_footprint
        self._prev = np.zeros((0, 2), np.float32)
        args = SimpleNamespace(tracker_type="bytetrack", track_high_thresh=high, track_low_thresh=low,
                               new_track_thresh=new_track, track_buffer=int(round(track_buffer_s * fps)),
                               match_thresh=match, fuse_score=True)
        self._tracker = BYTETracker(args)
        self._tracker.frame_rate = fps

    def update(self, units: Units, field_yd: np.ndarray, ground_px: np.ndarray | None = None,
               motion: np.ndarray | None = None, frame_size: tuple[int, int] = (1280, 720)) -> np.ndarray:
        """Track ids (N,) for this frame's units; -1 = not (yet) a confirmed track.

        `field_yd` (N, 2) are their field positions; in the "image" space `ground_px` (N, 2)
        are their ground points in this (w, h) `frame_size` frame and `motion` the camera's
        3x3 homography from the last frame's pixels to this one's (None: it did not move)."""
        ids = np.full(len(units), -1, np.int64)
        if self.space == "image":
            if ground_px is None:
                raise ValueError("image-space tracking needs the units' ground points in pixels")
            c = np.asarray(ground_px, np.float32).reshape(-1, 2)
            if motion is not None:
                A = affine_of(motion, frame_size)
                warp_tracks(self._tracker.tracked_stracks + self._tracker.lost_stracks, A)
                if len(self._prev):
                    self._prev = self._prev @ A[:, :2].T + A[:, 2]
            side = self.image_footprint * (units.horse_xyxy[:, 3] - units.horse_xyxy[:, 1]).astype(np.float32)
            if len(self._prev) and len(c):
                step = np.nanmin(np.hypot(c[:, None, 0] - self._prev[None, :, 0],
                                          c[:, None, 1] - self._prev[None, :, 1]), axis=1)
                side = np.clip(np.nan_to_num(2.0 * step), side, MAX_GROWTH * side)
            self._prev = c
            half = (side / 2)[:, None]
        else:
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
