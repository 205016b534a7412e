"""PyTorch's thread count under Ultralytics: its device set-up resets torch to one core fewer
than the machine has (one of two on a 2-core machine); vision.torch_threads keeps the
process's own count, for the detector under `--runtime torch` and for training."""
from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from ultralytics.utils import torch_utils

from vision.torch_threads import keep_torch_threads, torch_threads

CORES = os.cpu_count() or 1


@pytest.fixture(autouse=True)
def restore_threads():
    before = torch_utils.NUM_THREADS, torch.get_num_threads()
    yield
    torch_utils.NUM_THREADS = before[0]
    torch.set_num_threads(before[1])


def test_ultralytics_device_setup_keeps_the_count_kept():
    keep_torch_threads(CORES + 1)
    torch_utils.select_device("cpu", verbose=False)
    assert torch.get_num_threads() == CORES + 1


def test_the_count_comes_back_after_the_block():
    torch.set_num_threads(CORES)
    with torch_threads(CORES + 2):
        torch_utils.select_device("cpu", verbose=False)
        assert torch.get_num_threads() == CORES + 2
    assert torch.get_num_threads() == CORES


@pytest.mark.skipif(CORES < 2, reason="Ultralytics resets to max(1, cores - 1): the same count on one core")
def test_the_torch_runtime_detector_computes_on_every_core():
    from vision.detect import Detector
    torch.set_num_threads(CORES)
    det = Detector(runtime="torch", ball_model="none", kind_model="none", refine_model="none")
    det(np.zeros((720, 1280, 3), np.uint8))          # Ultralytics sets its predictor up here
    assert torch.get_num_threads() == CORES
