"""How many CPU threads PyTorch trains with under Ultralytics.

Ultralytics' device set-up (a trainer's, and a predictor's when it is first used) calls
``torch.set_num_threads(NUM_THREADS)``, NUM_THREADS being one core fewer than the machine
has: on these 2-core machines, one core. It reads the value from its module at that call, so
setting it there is how training gets every core. Found in session 19: the shipped v2
detector had been trained on one core; on two, an epoch of its recipe takes 1/1.7 of the time.

Inference is left as Ultralytics sets it: under `--runtime torch` two threads ran the detector
~20% faster (28.9 and 33.1 frames/s against 25.0 and 26.2, bench/bench_detect.py), but
PyTorch's idle threads then took the CPU from ONNX Runtime's and OpenVINO's in the same
process (ONNX Runtime 37 -> 24 frames/s): the default runtime matters more.
"""
from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def torch_threads(n: int):
    """Ultralytics sets PyTorch to `n` threads while the block runs (instead of one fewer
    than the cores); the process's counts come back afterwards."""
    import torch
    from ultralytics.utils import torch_utils
    before = torch_utils.NUM_THREADS, torch.get_num_threads()
    torch_utils.NUM_THREADS = int(n)
    torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch_utils.NUM_THREADS = before[0]
        torch.set_num_threads(before[1])
