"""The renderer's output formats: re-exports of the calibration.json text layout
(vision.homography, shared with `polo-lineup calibrate`) and of the project's atomic writers
(reports.atomic for JSON/text, vision.video_io for H.264 MP4)."""
from __future__ import annotations

from reports.atomic import write_json as write_json_atomic
from reports.atomic import write_text as write_text_atomic
from vision.homography import calibration_text as calibration_json

__all__ = ["calibration_json", "write_json_atomic", "write_text_atomic"]
