"""eval-detector's scoring of what the pipeline gets (vision.detector_eval.pipeline_map50):
perfect boxes score 1, boxes of the wrong class score 0 for both classes, shifted boxes lose
AP; no model is needed (a stand-in detector returns the dataset's own labels)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from synth.dataset import write_dataset
from vision.detections import HORSE, RIDER, UMPIRE, Detections, box_iou
from vision.detector_eval import DENSE_OVERLAP, _split_images, dense_misses, horse_recall, labels_of, pipeline_map50


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


class _StandIn:
    """A detector that returns the image's true boxes but for the dense horses in `drop`
    (indices among its true horses), and as its raw proposals `raw_boxes(truth)`."""

    conf, iou = 0.25, 0.6

    def __init__(self, dataset, drop, raw_boxes):
        self.images = {str(p): p for p in _split_images(dataset, "train")}
        self.drop, self.raw_boxes, self.seen = drop, raw_boxes, []

    def _truth(self, image):
        for path in self.images.values():
            cls, boxes = labels_of(path, image.shape[1], image.shape[0])
            if np.array_equal(cv2.imread(str(path)), image):
                return boxes[cls == HORSE]
        raise AssertionError("image not in the dataset")

    def __call__(self, image):
        truth = self._truth(image)
        keep = np.setdiff1d(np.arange(len(truth)), self.drop(truth))
        return Detections(truth[keep].astype(np.float32), np.zeros(len(keep), np.int64), np.full(len(keep), 0.9, np.float32))

    def raw(self, image, conf):
        boxes, scores = self.raw_boxes(self._truth(image))
        return Detections(boxes.astype(np.float32), np.zeros(len(boxes), np.int64), scores.astype(np.float32))


def _first_dense(truth):
    near = box_iou(truth, truth)
    np.fill_diagonal(near, 0)
    dense = np.flatnonzero(near.max(axis=1) > DENSE_OVERLAP) if len(truth) > 1 else []
    return dense[:1]


def test_dense_misses_tell_a_suppressed_box_from_a_low_score_and_none(dataset):
    # every image's first dense horse is missed; its raw box is the true one, scored 0.5 (kept
    # by the model but suppressed), 0.15 (under the threshold), or absent
    for score, kind in ((0.5, "suppressed"), (0.15, "low_score"), (None, "not_proposed")):
        def raw(truth, score=score):
            pick = _first_dense(truth)
            if score is None:
                return np.zeros((0, 4)), np.zeros(0)
            return truth[pick], np.full(len(pick), score)
        out = dense_misses(_StandIn(dataset, _first_dense, raw), dataset, "train")
        assert out["dense_horses"] > 0 and out["missed"] > 0, out
        assert out["missed_share"][kind] == pytest.approx(out["missed"] / out["dense_horses"]), out
        assert sum(out["missed_share"].values()) == pytest.approx(out["missed"] / out["dense_horses"])


def test_dense_misses_count_none_when_every_horse_is_found(dataset):
    none = _StandIn(dataset, lambda truth: np.zeros(0, int), lambda truth: (truth, np.ones(len(truth))))
    out = dense_misses(none, dataset, "train")
    assert out["missed"] == 0 and out["dense_horses"] > 0
    assert 0 <= out["overlapping_over_nms"] <= 1


def test_a_second_box_on_a_horse_lowers_precision_not_recall(dataset):
    """horse_recall's one-to-one precision: every true horse boxed once gives 1; each horse boxed
    twice (the copy 2 px off, IoU ~0.9 with it) keeps recall at 1 and halves precision."""
    images = iter(_split_images(dataset, "train"))

    def detector(image, twice):
        cls, boxes = labels_of(next(images), image.shape[1], image.shape[0])
        horses = boxes[cls == HORSE]
        if twice:
            horses = np.concatenate([horses, horses + 2.0])
        return Detections(horses.astype(np.float32), np.full(len(horses), HORSE, np.int64),
                          np.full(len(horses), 0.9, np.float32))
    once = horse_recall(lambda img: detector(img, False), dataset, "train")
    images = iter(_split_images(dataset, "train"))
    double = horse_recall(lambda img: detector(img, True), dataset, "train")
    assert once["horse_recall_iou50"] == pytest.approx(1.0) and once["horse_precision_iou50"] == pytest.approx(1.0)
    assert double["horse_recall_iou50"] == pytest.approx(1.0)
    assert double["horse_precision_iou50"] == pytest.approx(0.5)
    assert double["horse_boxes"] == 2 * once["horse_boxes"] > 0
