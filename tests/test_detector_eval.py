"""eval-detector's scoring of what the pipeline gets (vision.detector_eval.pipeline_map50):
perfect boxes score 1, boxes of the wrong class score 0 for both classes, shifted boxes lose
AP; no model is needed (a stand-in detector returns the dataset's own labels)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from synth.dataset import write_dataset
from vision.detections import RIDER, UMPIRE, Detections
from vision.detector_eval import _split_images, labels_of, pipeline_map50


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ds")
    write_dataset(out, n=4, seed=9, val_fraction=0.0, progress=False)
    return out / "data.yaml"


def _score(dataset, edit=lambda cls, boxes: (cls, boxes)):
    """pipeline_map50 of a stand-in detector that returns each image's true boxes, changed by
    `edit`; pipeline_map50 reads the images in _split_images order, so the stand-in follows it."""
    images = iter(_split_images(dataset, "train"))

    def detector(image):
        cls, boxes = edit(*labels_of(next(images), image.shape[1], image.shape[0]))
        return Detections(boxes.astype(np.float32), cls.astype(np.int64),
                          np.linspace(0.9, 0.5, len(cls)).astype(np.float32))
    return pipeline_map50(detector, dataset, "train")


def test_true_boxes_score_one(dataset):
    ap = _score(dataset)
    assert ap["horse"] == pytest.approx(1.0, abs=0.01)
    assert ap["rider"] == pytest.approx(1.0, abs=0.01) and ap["umpire"] == pytest.approx(1.0, abs=0.01)


def test_swapped_rider_and_umpire_classes_score_zero_for_both(dataset):
    def swap(cls, boxes):
        r, u = cls == RIDER, cls == UMPIRE
        cls[r], cls[u] = UMPIRE, RIDER
        return cls, boxes
    ap = _score(dataset, swap)
    assert ap["rider"] < 0.01 and ap["umpire"] < 0.01 and ap["horse"] > 0.99


def test_boxes_shifted_by_their_width_do_not_count(dataset):
    def shift(cls, boxes):
        w = boxes[:, 2] - boxes[:, 0]
        boxes[:, [0, 2]] += w[:, None]
        return cls, boxes
    ap = _score(dataset, shift)
    assert max(ap.values()) < 0.2
