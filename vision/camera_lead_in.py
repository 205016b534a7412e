"""Following a moving camera from the calibrated frame to the start of a window.

The calibration holds for the frame it was made on (its `frame`, 0 by default). A window
(`analyze --start`, a sidecar's throw_ins) that starts later on footage from a camera that pans
or zooms starts where the camera may have moved: before session 21 its first frame was read
through the calibrated frame's homography (the panning sample from 4 s: positions 1.8 yd off,
a false WRONG_SIDE). So the camera tracker follows the frames between the two, every
LEAD_IN_EVERY-th (the others are decoded, not converted: about 2 ms a 720p frame), with the
players unmasked (no detector runs here: the tracker's RANSAC takes them for outliers), and the
window starts from the homography it arrives at. With --static-camera none of this is done.

A camera cut between them (a broadcast's cutaway to a replay or a close-up) is crossed where the
calibrated camera is seen again: the views followed are kept as key views (vision.relocate, one
each time the picture has moved KEY_MOVED_YD), the frames after the cut are matched against
them (every 0.2 s, after 2 s every 0.5 s), and the tracker restarts from the first that
matches. Where none does before the window starts (or within MAX_CUTAWAY_S), it is an error:
the calibration does not hold past the cut.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from vision.errors import SettingsError
from vision.relocate import MAX_CUTAWAY_S, KeyViews, next_search_t
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
    cutaways: list[dict] | None = None   # cuts crossed: {"cut_frame", "found_frame"} (the calibrated camera seen again)
    keys: KeyViews | None = None         # the calibrated camera's views followed (vision.relocate), for the window:
    last_image: object | None = None     # ... and the last frame followed, so a cut at the window's start is seen

    def to_dict(self) -> dict:
        return {"from_frame": self.from_frame, "to_frame": self.to_frame, "frames_followed": self.frames_followed,
                "lost": self.lost, "seconds": round(self.seconds, 2), "cutaways": self.cutaways or []}


def lead_in_frames(calibration_frame: int, fps: float, window: Window | None, every: int = LEAD_IN_EVERY) -> int:
    """About how many frames follow_to_window will follow (0: none), for a progress bar."""
    if window is None or fps <= 0 or window.start_s <= (calibration_frame + 1) / fps:
        return 0
    return max(0, int(window.start_s * fps) - calibration_frame) // every


def follow_to_window(video: str | Path, camera, calibration_frame: int, fps: float, window: Window,
                     every: int = LEAD_IN_EVERY, progress=None, across_cuts: bool = True) -> LeadIn | None:
    """Bring `camera` (a vision.camera_motion.CameraMotionTracker at the calibrated frame) to
    the window's start, following the frames from `calibration_frame` on; None when the window
    does not start after it. A camera cut in between is crossed where the calibrated camera is
    seen again (unless `across_cuts` is False); SettingsError when it is not before the window. `progress(n)` is called with
    the frames followed (or searched) so far."""
    if not lead_in_frames(calibration_frame, fps, window, every):
        return None
    start_s = calibration_frame / fps
    started = time.perf_counter()
    cuts, n, lost, last, last_image = CutDetector(), 0, 0, calibration_frame, None
    keys = KeyViews(camera.image_size)    # the views followed, to find the camera again after a cut
    crossed: list[dict] = []
    cut: tuple[int, float] | None = None  # (frame, t) of a cut not yet crossed
    next_t = -float("inf")
    with open_video(video, window=Window(start_s, window.start_s)) as reader:
        for index, t, frame in reader.frames(start=calibration_frame, every=every):
            n += 1
            if progress:
                progress(n)
            if cut is not None:                       # after a cut: is this the calibrated camera again?
                cuts.change(frame)
                if t - cut[1] > MAX_CUTAWAY_S:
                    break
                if t < next_t:
                    continue
                next_t = next_search_t(cut[1], t)
                found = keys.library.locate(frame)
                if found is None:
                    continue
                camera.reset(found.H, frame)
                crossed.append({"cut_frame": cut[0], "found_frame": int(index)})
                cut, last = None, index
                continue
            if cuts.jumped(frame):
                cut = (int(index), float(t))
                if not across_cuts:
                    break
                keys.close_shot()
                continue
            step = camera.update(frame)
            lost += int(not step.ok)
            last, last_image = index, frame
            if step.ok:
                keys.offer(frame, camera.H)
    if cut is not None:
        raise SettingsError(
            f"a camera cut at {cut[1]:.2f} s (frame {cut[0]}) lies between the calibrated frame "
            f"{calibration_frame} and the part to analyse ({window.describe()})"
            + (", and the calibrated camera's view was not seen again before it" if across_cuts else "")
            + ": the calibration does not hold past the cut; calibrate a frame in that "
            "part (polo-lineup calibrate VIDEO --frame N; in a sidecar's throw_ins, as that throw-in's own "
            "calibration)")
    if last_image is not None:
        keys.close_shot()
    return LeadIn(calibration_frame, last, n, lost, time.perf_counter() - started, crossed, keys, last_image)

