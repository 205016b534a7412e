"""Write files atomically: to a temporary name in the same folder, renamed when complete.

An interrupted or failing write leaves nothing under the final name. The file gets the mode a
plain open() would give it (0666 less the umask), not the temporary file's private 0600, so
a report can be served or shared like any other file.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator


def default_mode() -> int:
    """0666 less the process umask: the mode open() gives a new file. The umask is read from
    /proc where there is one (setting it to read it back would race other threads)."""
    try:
        line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("Umask:"))
        mask = int(line.split()[1], 8)
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0)
        os.umask(mask)
    return 0o666 & ~mask


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
        os.chmod(tmp, default_mode())
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
