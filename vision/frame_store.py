"""Decoded frames kept from pass one for pass two (the annotated clip), within a memory budget.

`analyze` decodes every frame once to detect; writing annotated.mp4 needs the same frames
again. Decoding a 720p H.264 frame costs ~3 ms of CPU, about a fifth of the annotated pass,
so the first pass keeps the frames it decoded (the decoder's own arrays: keeping one costs
no copy) while they fit in `budget_mb`, and the annotated pass takes them back, releasing
each as it is drawn. Only a run of frames from the start is kept; past the budget, pass two
decodes the rest (skipping the kept ones with `grab`, which decodes without converting).

The budget is at most a quarter of the memory available when the store is made, so several
batch workers on one machine do not crowd it out; 0 keeps nothing (pass two decodes every
frame, as before this store existed). A 720p frame is 2.76 MB: the default 1024 MB keeps
~380 frames, 15 s at 25 frames/s.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

DEFAULT_BUDGET_MB = 1024
MB = 1 << 20


def available_bytes() -> int | None:
    """Memory available to new allocations now (None if it cannot be told)."""
    try:
        import psutil
        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - no psutil, or no /proc: the budget alone decides
        return None


class FrameStore:
    """A clip's frames from its first on (0, or a window's first: vision.video_io.Window), as
    decoded, while they fit in the budget."""

    def __init__(self, budget_mb: float = DEFAULT_BUDGET_MB):
        if budget_mb < 0:
            raise ValueError("the frame memory budget must be at least 0 MB")
        budget = int(budget_mb * MB)
        free = available_bytes()
        if free is not None:
            budget = min(budget, free // 4)
        self.budget = max(0, budget)
        self.used = 0
        self._frames: dict[int, np.ndarray] = {}
        self._first: int | None = None         # the clip's first frame index (a window's need not be 0)
        self._full = self.budget == 0          # once a frame did not fit, no later one is kept
        self.complete = False                  # every frame of the clip is kept

    def keep(self, index: int, frame: np.ndarray) -> bool:
        """Keep frame `index` (the next of the run from the clip's first frame) if it fits; False
        once it does not."""
        if self._first is None:
            self._first = index
        if self._full or index != self._first + len(self._frames) or self.used + frame.nbytes > self.budget:
            self._full = True
            return False
        self._frames[index] = frame
        self.used += frame.nbytes
        return True

    def keep_all(self, items: Iterable[tuple]) -> Iterator[tuple]:
        """Pass (index, t, frame, ...) items through, keeping each frame that fits."""
        for item in items:
            self.keep(item[0], item[2])
            yield item
        self.complete = not self._full and len(self._frames) > 0

    def __len__(self) -> int:
        return len(self._frames)

    def take(self, index: int) -> np.ndarray | None:
        """Frame `index`, given up by the store (None when it was not kept)."""
        frame = self._frames.pop(index, None)
        if frame is not None:
            self.used -= frame.nbytes
        return frame

    def replay(self, reader, prefetch=None) -> Iterator[tuple[int, np.ndarray]]:
        """(index, frame) for every frame of `reader`'s clip: the kept ones from memory, then the
        rest decoded (through `prefetch`, a read-ahead wrapper, when given)."""
        n, complete, first = len(self._frames), self.complete, self._first or 0
        self._full, self.complete = True, False        # given up as it is replayed: a second replay decodes
        for index in range(first, first + n):
            yield index, self.take(index)
        if complete:
            return
        rest = reader.frames(start=first + n)
        if prefetch is not None:
            rest = prefetch(rest)
        for index, _t, frame in rest:
            yield index, frame
