"""Camera cuts: where the footage switches to another shot.

The calibration describes one camera. A broadcast that cuts to another camera shows another
view of the field, and positions read through the first shot's homography are nonsense: a
clip of throw_in_near_boards' first 90 frames followed by clean_lineup's last 90 (session 17)
got two FIVE_YARD events and a throw-in 40 frames after the cut, all in the second shot. The
analysis stops at the first cut (vision.pipeline), says so (report.json `camera_cut`, a
warning on the console and the debrief page), and judges only the first shot.

A cut is a frame whose content jumps from the previous one: the mean absolute change of its
hue, saturation and value (PySceneDetect's ContentDetector, on a 160x90 copy) above
CUT_THRESHOLD, which the camera tracker, where it runs, could not follow either (a whip pan
it follows is not a cut). Measured on 160x90 copies: that two-shot clip's cut 24.1; every
other frame of the 12 samples, their 12 held-out re-renders and resized copies (360p to
1440p) at most 5.3 (a pan; own_goal_blue1). A cut back to the first camera later is not
looked for: split such footage at its cuts and calibrate each shot.
"""
from __future__ import annotations

import cv2
import numpy as np

CUT_THRESHOLD = 12.0      # mean HSV change (0-255 scale) from the previous frame
SMALL = (160, 90)         # the copy compared (linear resize: 0.06 ms a 720p frame, area 1.1 ms)


class CutDetector:
    """Feed every decoded frame in order; `jumped` says whether the content jumped there."""

    def __init__(self, threshold: float = CUT_THRESHOLD):
        from scenedetect.detectors import ContentDetector
        # min_scene_len 1: a cut may come at any frame (the analysis stops at the first).
        self._detector = ContentDetector(threshold=float(threshold), min_scene_len=1)

    def jumped(self, index: int, frame: np.ndarray) -> bool:
        small = cv2.resize(frame, SMALL, interpolation=cv2.INTER_LINEAR)
        return bool(self._detector.process_frame(int(index), small))
