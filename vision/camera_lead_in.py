"""Following a moving camera from the calibrated frame to the start of a window.

The calibration holds for the frame it was made on (its `frame`, 0 by default). A window
(`analyze --start`, a sidecar's throw_ins) that starts later on footage from a camera that pans
or zooms starts where the camera may have moved: before session 21 its first frame was read
through the calibrated frame's homography (the panning sample from 4 s: positions 1.8 yd off,
a false WRONG_SIDE). So the camera tracker follows the frames between the two, every
LEAD_IN_EVERY-th (the others are decoded, not converted: about 2 ms a 720p frame), with the
players unmasked (no detector runs here: the tracker's RANSAC takes them for outliers), and the
window starts from the homography it arrives at. A camera cut between them is an error: the
calibration does not hold past it. With --static-camera none of this is done.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from vision.errors import SettingsError
from vision.scene_cuts import CutDetector
from vision.video_io import Window, open_video

LEAD_IN_EVERY = 2        # frames; the camera tracker followed the samples' pans at 5 (find-throw-ins)


@dataclass
class LeadIn:
    from_frame: int
    to_frame: int                # the last frame followed before the window
    frames_followed: int
    lost: int                    # of them, steps the tracker could not make (its homography kept)
    seconds: float

    def to_dict(self) -> dict:
        return {"from_frame": self.from_frame, "to_frame": self.to_frame, "frames_followed": self.frames_followed,
                "lost": self.lost, "seconds": round(self.seconds, 2)}


def lead_in_frames(calibration_frame: int, fps: float, window: Window | None, every: int = LEAD_IN_EVERY) -> int:
    """About how many frames follow_to_window will follow (0: none), for a progress bar."""
    if window is None or fps <= 0 or window.start_s <= (calibration_frame + 1) / fps:
        return 0
    return max(0, int(window.start_s * fps) - calibration_frame) // every


def follow_to_window(video: str | Path, camera, calibration_frame: int, fps: float, window: Window,
                     every: int = LEAD_IN_EVERY, progress=None) -> LeadIn | None:
    """Bring `camera` (a vision.camera_motion.CameraMotionTracker at the calibrated frame) to
    the window's start, following the frames from `calibration_frame` on; None when the window
    does not start after it. SettingsError for a camera cut in between. `progress(n)` is
    called with the frames followed so far."""
    if not lead_in_frames(calibration_frame, fps, window, every):
        return None
    start_s = calibration_frame / fps
    started = time.perf_counter()
    cuts, n, lost, last = CutDetector(), 0, 0, calibration_frame
    with open_video(video, window=Window(start_s, window.start_s)) as reader:
        for index, t, frame in reader.frames(start=calibration_frame, every=every):
            if cuts.jumped(frame):
                raise SettingsError(
                    f"a camera cut at {t:.2f} s (frame {index}) lies between the calibrated frame "
                    f"{calibration_frame} and the part to analyse ({window.describe()}): the calibration does not "
                    f"hold past it; calibrate a frame in that part (polo-lineup calibrate VIDEO --frame N; in a sidecar's "
                    f"throw_ins, as that throw-in's own calibration)")
            step = camera.update(frame)
            n += 1
            lost += int(not step.ok)
            last = index
            if progress:
                progress(n)
    return LeadIn(calibration_frame, last, n, lost, time.perf_counter() - started)
