"""The renderer's output formats: calibration.json text layout, plus re-exports of the
project's atomic writers (reports.atomic for JSON/text, vision.video_io for H.264 MP4)."""
from __future__ import annotations

import json

from reports.atomic import write_json as write_json_atomic
from reports.atomic import write_text as write_text_atomic

__all__ = ["calibration_json", "write_json_atomic", "write_text_atomic"]


def calibration_json(doc: dict) -> str:
    """calibration.json text: one correspondence per line."""
    head = {k: v for k, v in doc.items() if k != "points"}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v)},")
    pts = [f"    {json.dumps(p)}" for p in doc["points"]]
    lines.append('  "points": [\n' + ",\n".join(pts) + "\n  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"
