"""vision.training's wiring to Ultralytics, without training: a stand-in YOLO records what
it is asked. A yaml architecture trains from random initialisation (nothing downloaded); a
.pt of ours is trained on (fine-tuning), which Ultralytics does only when `pretrained`
names it (with pretrained=False it silently starts from scratch)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import ultralytics
from vision.training import TrainConfig, train_detector


class FakeYOLO:
    calls: list = []

    def __init__(self, arch, task=None):
        self.arch = arch

    def train(self, **kw):
        FakeYOLO.calls.append((self.arch, kw))
        weights = Path(kw["project"]) / kw["name"] / "weights"
        weights.mkdir(parents=True)
        (weights / "best.pt").write_bytes(b"weights")
        (weights.parent / "results.csv").write_text("epoch,metrics/mAP50(B)\n1,0.5\n")


@pytest.fixture
def fake_yolo(monkeypatch):
    FakeYOLO.calls = []
    monkeypatch.setattr(ultralytics, "YOLO", FakeYOLO)
    return FakeYOLO


def _data(tmp_path) -> Path:
    (tmp_path / "data.yaml").write_text("path: .\ntrain: images/train\nval: images/val\nnames: {0: ball}\n")
    return tmp_path


@pytest.mark.parametrize("arch, pretrained", [("models/polo-yolo.yaml", False),
                                              ("models/polo-ball.pt", "models/polo-ball.pt")])
def test_yaml_trains_from_scratch_and_a_pt_is_trained_on(tmp_path, fake_yolo, arch, pretrained):
    out = tmp_path / "m" / "x.pt"
    record = train_detector(TrainConfig(data=str(_data(tmp_path)), out=str(out), arch=arch, epochs=2, hours=0.1))
    (used, kw), = fake_yolo.calls
    assert used == arch and kw["pretrained"] == pretrained
    assert kw["device"] == "cpu" and kw["workers"] == 0 and kw["plots"] is False and kw["time"] == 0.1
    assert out.read_bytes() == b"weights"
    assert json.loads(out.with_suffix(".train.json").read_text())["config"]["arch"] == arch
    assert record["results_csv"].startswith("epoch")


def test_missing_dataset_is_refused(tmp_path, fake_yolo):
    with pytest.raises(FileNotFoundError):
        train_detector(TrainConfig(data=str(tmp_path / "nope"), out=str(tmp_path / "x.pt")))
    assert not fake_yolo.calls


def test_the_trainer_computes_with_the_threads_asked_for(tmp_path, monkeypatch):
    """Ultralytics' device set-up sets torch's threads to one fewer than the machine's cores
    (one of two on a 2-core machine); the trainer must run with the count asked for, and the
    process gets its own count back afterwards."""
    import torch
    from ultralytics.utils import torch_utils

    seen = []

    class DeviceSettingYOLO(FakeYOLO):
        def train(self, **kw):
            torch_utils.select_device(kw["device"], verbose=False)     # what the real trainer does first
            seen.append(torch.get_num_threads())
            super().train(**kw)

    monkeypatch.setattr(ultralytics, "YOLO", DeviceSettingYOLO)
    before = torch_utils.NUM_THREADS, torch.get_num_threads()
    asked = torch_utils.NUM_THREADS + 2            # never what Ultralytics would pick by itself
    train_detector(TrainConfig(data=str(_data(tmp_path)), out=str(tmp_path / "x.pt"), threads=asked))
    assert seen == [asked]
    assert (torch_utils.NUM_THREADS, torch.get_num_threads()) == before
