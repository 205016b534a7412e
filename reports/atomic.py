"""Write files atomically: to a temporary name in the same folder, renamed when complete.

An interrupted or failing write leaves nothing under the final name.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", **kwargs) -> Iterator[IO]:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json(path: str | Path, data, indent: int | None = 1) -> None:
    """JSON (compact when `indent` is None; NaN refused) written atomically."""
    with atomic_open(path, "w", encoding="utf-8") as fh:
        if indent is None:
            json.dump(data, fh, separators=(",", ":"), allow_nan=False)
        else:
            json.dump(data, fh, indent=indent, allow_nan=False)
            fh.write("\n")


def write_text(path: str | Path, text: str) -> None:
    with atomic_open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
