"""PyTorch's thread count under Ultralytics: its device set-up resets torch to one core fewer
than the machine has (one of two on a 2-core machine); vision.torch_threads gives training
the count asked for, and gives the process its own back afterwards."""
from __future__ import annotations

import os

import torch
from ultralytics.utils import torch_utils

from vision.torch_threads import torch_threads

CORES = os.cpu_count() or 1


def test_ultralytics_device_setup_uses_the_count_asked_for_then_it_comes_back():
    before = torch_utils.NUM_THREADS, torch.get_num_threads()
    with torch_threads(CORES + 2):
        torch_utils.select_device("cpu", verbose=False)
        assert torch.get_num_threads() == CORES + 2
    assert (torch_utils.NUM_THREADS, torch.get_num_threads()) == before
