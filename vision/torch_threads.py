"""How many CPU threads PyTorch computes with under Ultralytics.

Ultralytics' device set-up (a trainer's, and a predictor's when it is first used) calls
``torch.set_num_threads(NUM_THREADS)``, NUM_THREADS being one core fewer than the machine
has: on these 2-core machines, one core. It reads the value from its module at that call, so
setting it there is how a process keeps its own count. Found in session 19: the shipped v2
detector had been trained on one core (an epoch of its recipe takes 1/1.7 of the time on
two), and `--runtime torch` ran the detector on one.
"""
from __future__ import annotations

from contextlib import contextmanager


def keep_torch_threads(n: int | None = None) -> int:
    """From now on Ultralytics sets PyTorch to `n` threads (default: the count it has now, i.e.
    every core, or a batch worker's share) instead of one fewer than the cores. Returns `n`."""
    import torch
    from ultralytics.utils import torch_utils
    n = int(n or torch.get_num_threads())
    torch_utils.NUM_THREADS = n
    torch.set_num_threads(n)
    return n


@contextmanager
def torch_threads(n: int):
    """`keep_torch_threads(n)` while the block runs; the process's counts come back afterwards."""
    import torch
    from ultralytics.utils import torch_utils
    before = torch_utils.NUM_THREADS, torch.get_num_threads()
    keep_torch_threads(n)
    try:
        yield
    finally:
        torch_utils.NUM_THREADS = before[0]
        torch.set_num_threads(before[1])
