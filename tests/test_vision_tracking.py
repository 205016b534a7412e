"""The unit tracker keeps ids through a line-up whose positions are noisy in depth.

A horse's ground point comes from its box bottom, a few pixels off at random; from a side-on
camera a few pixels of height are a yard or two of depth, so in yards the noise is long and
narrow while the ranks stand 1-3 yd apart. Tracking the ground points in the image keeps the
noise round, and ids stay put; a panning camera's motion is carried into the tracks.
"""
import json
from pathlib import Path

import numpy as np
import pytest

from vision.homography import calibrate, image_to_field
from vision.players import Units
from vision.tracking import UnitTracker

CLIP = Path(__file__).resolve().parents[1] / "sample_videos" / "clean_lineup"


def _lineup():
    truth = json.loads((CLIP / "truth.json").read_text())
    fr = truth["frames"][40]
    objs = [o for o in fr["objects"] if o["role"] in ("player", "umpire")]
    ground = np.array([o["ground_px"] for o in objs])
    heights = np.array([o["boxes"]["horse"][3] - o["boxes"]["horse"][1] for o in objs])
    return ground, heights


def _switches(space: str, seed: int, frames: int = 100, noise_px=(1.5, 4.0), pan_px: float = 0.0) -> int:
    """Id changes over `frames` of a still line-up seen with box-bottom noise, the camera
    panning `pan_px` pixels a frame (the scene slides left in the image)."""
    H = calibrate(str(CLIP / "calibration.json")).H
    ground, heights = _lineup()
    rng = np.random.default_rng(seed)
    tracker = UnitTracker(fps=25.0, space=space)
    first, switches = None, 0
    shift = np.array([[1.0, 0.0, -pan_px], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])    # last frame → this frame
    for i in range(frames):
        g = ground + rng.normal(0, 1, ground.shape) * noise_px - [pan_px * i, 0]   # box-bottom noise, px
        Hi = H @ np.linalg.inv(np.linalg.matrix_power(shift, i))                  # this frame's px → yards
        yd = image_to_field(Hi, g)
        boxes = np.stack([g[:, 0] - 20, g[:, 1] - heights, g[:, 0] + 20, g[:, 1]], axis=1).astype(np.float32)
        n = len(g)
        units = Units(boxes, np.full((n, 4), np.nan, np.float32), np.zeros(n, bool), np.full(n, 0.8, np.float32),
                      np.full(n, -1))
        ids = tracker.update(units, yd, g, shift if i else None)
        if first is None and (ids >= 0).all():
            first = ids.copy()
        elif first is not None:
            switches += int(np.sum((ids >= 0) & (ids != first)))
    assert first is not None, "the tracks were never confirmed"
    return switches


@pytest.mark.parametrize("seed", [0, 1])
def test_ids_hold_through_a_noisy_lineup(seed):
    assert _switches("image", seed) == 0


def test_ids_hold_while_the_camera_pans():
    """A fast pan, 30 px a frame (750 px a second): the tracks are carried with the camera."""
    assert _switches("image", 0, pan_px=30.0) == 0


def test_without_the_camera_motion_a_fast_pan_loses_them(monkeypatch):
    """The same pan with the motion withheld: ids are lost (the test above has teeth)."""
    update = UnitTracker.update
    monkeypatch.setattr(UnitTracker, "update", lambda self, u, yd, g, motion=None, frame_size=(1280, 720):
                        update(self, u, yd, g, None, frame_size))
    assert _switches("image", 0, pan_px=30.0) > 0


def test_tracking_in_yards_is_what_loses_them():
    """The same noise tracked in yards (the old way) swaps neighbours: the test above has teeth."""
    assert sum(_switches("field", s) for s in (0, 1)) > 0
