"""Atomic output: H.264 MP4 through imageio-ffmpeg's bundled ffmpeg, and JSON files.

Everything is written to a temporary file in the destination directory and renamed into
place with os.replace once complete, so a reader never sees half a file.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import imageio_ffmpeg
import numpy as np


def _temp_path(path: Path, suffix: str) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(name, 0o666 & ~umask)        # mkstemp makes 0600; give the usual permissions
    return Path(name)


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


def write_json_atomic(path: str | Path, obj: Any, indent: int | None = None) -> None:
    """Write JSON (compact unless `indent`) to `path` atomically."""
    path = Path(path)
    tmp = _temp_path(path, ".json")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            if indent is None:
                json.dump(obj, f, separators=(",", ":"), allow_nan=False)
            else:
                json.dump(obj, f, indent=indent, allow_nan=False)
                f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    path = Path(path)
    tmp = _temp_path(path, path.suffix or ".txt")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class Mp4Writer:
    """Feed BGR frames; on `close()` the finished MP4 (libx264, yuv420p, +faststart) is moved to `path`.

    Use as a context manager: an exception inside the block discards the temporary file.
    """

    def __init__(self, path: str | Path, size: tuple[int, int], fps: float, crf: int = 23,
                 preset: str = "medium") -> None:
        self.path = Path(path)
        self.tmp = _temp_path(self.path, ".mp4")
        self.size = size
        self._gen = imageio_ffmpeg.write_frames(
            str(self.tmp), size, pix_fmt_in="bgr24", pix_fmt_out="yuv420p", fps=fps, codec="libx264",
            quality=None, macro_block_size=2, ffmpeg_log_level="error",
            output_params=["-crf", str(int(crf)), "-preset", preset, "-movflags", "+faststart",
                           "-profile:v", "high", "-tune", "film"])
        self._gen.send(None)
        self.frames = 0

    def write(self, frame: np.ndarray) -> None:
        h, w = frame.shape[:2]
        if (w, h) != tuple(self.size):
            raise ValueError(f"frame is {w}x{h}, the clip is {self.size[0]}x{self.size[1]}")
        self._gen.send(np.ascontiguousarray(frame))
        self.frames += 1

    def close(self) -> None:
        self._gen.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        try:
            self._gen.close()
        except Exception:
            pass
        self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> "Mp4Writer":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()
