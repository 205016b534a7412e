"""Camera cuts: where the footage switches to another shot.

The calibration describes one camera. A broadcast that cuts to another camera shows another
view of the field, and positions read through the first shot's homography are nonsense: a
clip of throw_in_near_boards' first 90 frames followed by clean_lineup's last 90 (session 17)
got two FIVE_YARD events and a throw-in 40 frames after the cut, all in the second shot. The
analysis stops at the first cut (vision.pipeline), says so (report.json `camera_cut`, a
warning on the console and the debrief page), and judges only the first shot.

A cut is a frame whose content jumps from the last frame with a view: the mean absolute
change of hue (circular), saturation and brightness-normalised value over a 160x90 copy
(PySceneDetect's ContentDetector measure, made blind to fades) above CUT_THRESHOLD, which the
camera tracker, where it runs, could not follow either (a whip pan it follows is not a cut).
Fades are not cuts: the value is divided by the frame's mean, and (nearly) black frames are
skipped, the next frame with a view being compared with the last one before them (a fade
through black between two cameras is still a cut). PySceneDetect itself took a fade-in from
black for a cut at frame 1 and judged nothing; its measure is what is used here.

Measured on the 160x90 copies: the two-shot clip's cut 26.5, the same with a dip to black
between the shots 27.5; every other frame of the 12 samples, their 12 held-out re-renders,
resized copies (360p to 1440p), 30 and 50 frames/s renders and a copy with a half-second
fade in and out at most 6.5 (own_goal_blue1's pan). `analyze` does not look for the first camera
after a cut; `find-throw-ins` does (vision.relocate: the calibrated camera's view found again
by matching frames against views of it seen before the cut), and gives each throw-in it finds
after one its own calibration.
"""
from __future__ import annotations

import cv2
import numpy as np

CUT_THRESHOLD = 12.0      # mean change of hue, saturation and normalised value (0-255 scales)
DARK_V = 40.0             # a frame darker than this (mean value) has no view to compare
SMALL = (160, 90)         # the copy compared (linear resize: 0.06 ms a 720p frame, area 1.1 ms)


class CutDetector:
    """Feed every decoded frame in order; `jumped` says whether the content jumped there."""

    def __init__(self, threshold: float = CUT_THRESHOLD):
        self.threshold = float(threshold)
        self._last: np.ndarray | None = None       # the last frame with a view: hue, saturation, value / mean

    def change(self, frame: np.ndarray) -> float | None:
        """The content change from the last frame with a view (None: no such frame yet, or this
        one is too dark to have a view); this frame becomes the last one with a view."""
        hsv = cv2.cvtColor(cv2.resize(frame, SMALL, interpolation=cv2.INTER_LINEAR),
                           cv2.COLOR_BGR2HSV).astype(np.float32)
        mean_v = float(hsv[..., 2].mean())
        if mean_v < DARK_V:
            return None
        hsv[..., 2] *= 128.0 / mean_v
        last, self._last = self._last, hsv
        if last is None:
            return None
        dh = np.abs(hsv[..., 0] - last[..., 0])
        dh = np.minimum(dh, 180.0 - dh) * (255.0 / 90.0)         # OpenCV's hue is 0-179, circular
        return float((dh.mean() + np.abs(hsv[..., 1] - last[..., 1]).mean()
                      + np.abs(hsv[..., 2] - last[..., 2]).mean()) / 3.0)

    def jumped(self, frame: np.ndarray) -> bool:
        change = self.change(frame)
        return change is not None and change > self.threshold
