"""Score a detector on a YOLO-format dataset: mAP50 per class (Ultralytics' validator) and
horse recall at IoU 0.5, overall and inside the dense line-up (horses whose truth box
overlaps another horse's).
"""
from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import yaml

from vision.detections import CLASS_NAMES, HORSE, box_iou

os.environ.setdefault("YOLO_OFFLINE", "1")

DENSE_OVERLAP = 0.05    # a horse whose true box overlaps another's by more than this IoU is in the dense line-up
RAW_CONF = 0.1          # dense_misses: the model's boxes scored below this are not counted as proposed


def read_labels(path: Path, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    if not path.exists() or not path.read_text().strip():
        return np.zeros(0, int), np.zeros((0, 4))
    arr = np.loadtxt(path, ndmin=2)
    cls, (cx, cy, bw, bh) = arr[:, 0].astype(int), arr[:, 1:5].T
    return cls, np.stack([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h], 1)


def labels_of(img_path: Path, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """The YOLO labels of a dataset image (…/images/… → …/labels/….txt) as classes and xyxy pixels."""
    return read_labels(Path(str(img_path).replace(f"{os.sep}images{os.sep}", f"{os.sep}labels{os.sep}"))
                       .with_suffix(".txt"), w, h)


def _split_images(data_yaml: Path, split: str) -> list[Path]:
    cfg = yaml.safe_load(data_yaml.read_text())
    root = Path(cfg.get("path") or data_yaml.parent)
    if not root.is_absolute():
        root = data_yaml.parent / root
    folder = root / cfg[split]
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))


def labelled_frames(data: str | Path, split: str = "train"):
    """The dataset's images of `split` (a folder with data.yaml, or the yaml) and their labels: the
    image paths, and a generator of (frame BGR, classes, xyxy pixel boxes) in the same order."""
    data_yaml = Path(data)
    if data_yaml.is_dir():
        data_yaml = data_yaml / "data.yaml"
    if not data_yaml.exists():
        raise FileNotFoundError(f"no data.yaml at {data_yaml}")
    images = _split_images(data_yaml, split)
    if not images:
        raise FileNotFoundError(f"no images in the {split!r} split of {data_yaml}")

    def frames():
        for path in images:
            frame = cv2.imread(str(path))
            h, w = frame.shape[:2]
            yield (frame, *labels_of(path, w, h))
    return images, frames()


def _matched(truth: np.ndarray, boxes: np.ndarray, iou: float) -> np.ndarray:
    """(len(truth),) each true box matched at IoU `iou` by one of `boxes`, greedily one to one
    (best IoU first)."""
    hit = np.zeros(len(truth), bool)
    if len(boxes) and len(truth):
        m = box_iou(truth, boxes.astype(float))
        for t, d in sorted(zip(*np.nonzero(m >= iou)), key=lambda td: -m[td]):
            if not hit[t] and m[t, d] >= 0:
                hit[t] = True
                m[:, d] = -1
    return hit


def _neighbour_overlap(truth: np.ndarray) -> np.ndarray:
    """(len(truth),) each true horse box's largest IoU with another's (0 for a lone horse)."""
    if len(truth) < 2:
        return np.zeros(len(truth))
    overlap = box_iou(truth, truth)
    np.fill_diagonal(overlap, 0)
    return overlap.max(axis=1)


def _horse_truths(data_yaml: Path, split: str):
    """(image, true horse boxes) of each image of `split` with at least one horse."""
    for img_path in _split_images(data_yaml, split):
        image = cv2.imread(str(img_path))
        h, w = image.shape[:2]
        cls, boxes = labels_of(img_path, w, h)
        if (cls == HORSE).any():
            yield image, boxes[cls == HORSE]


def horse_recall(detector, data_yaml: Path, split: str = "val", iou: float = 0.5, min_conf: float = 0.0,
                 account_raw_conf: float | None = None) -> dict:
    """Share of true horses matched one-to-one at IoU `iou` by the detector's horse boxes scored at
    least `min_conf`, overall and in the dense line-up (horses whose box overlaps another's), and
    the share of those boxes so matched (one-to-one precision: a second box on a horse is not).
    With `account_raw_conf`, also `dense_misses`' account of the dense horses missed, from the
    same detections."""
    found = total = dense_found = dense_total = boxes = 0
    misses = dict.fromkeys(("missed", "suppressed", "low_score", "not_proposed", "over_nms"), 0)
    for image, truth in _horse_truths(data_yaml, split):
        det = detector(image).of(HORSE)
        kept = det.xyxy[det.confidence >= min_conf]
        hit = _matched(truth, kept, iou)
        near = _neighbour_overlap(truth)
        dense = near > DENSE_OVERLAP
        found += hit.sum(); total += len(truth); boxes += len(kept)
        dense_found += hit[dense].sum(); dense_total += dense.sum()
        if account_raw_conf is not None and dense.any():
            _count_misses(detector, image, truth, near, dense & ~hit, iou, account_raw_conf, misses)
    out = {"horse_recall_iou50": found / max(total, 1), "horses": int(total),
           "horse_recall_iou50_dense": dense_found / max(dense_total, 1), "dense_horses": int(dense_total),
           "horse_precision_iou50": found / max(boxes, 1), "horse_boxes": int(boxes)}
    if account_raw_conf is not None:
        n = max(int(dense_total), 1)
        out["dense_misses"] = {"dense_horses": int(dense_total), "missed": misses["missed"],
                               "missed_share": {k: misses[k] / n for k in ("suppressed", "low_score", "not_proposed")},
                               "overlapping_over_nms": misses["over_nms"] / n, "raw_conf": account_raw_conf}
    return out


def _count_misses(detector, image: np.ndarray, truth: np.ndarray, near: np.ndarray, missed: np.ndarray,
                  iou: float, raw_conf: float, out: dict) -> None:
    """Add one image's dense horses missed (`missed`, of `truth`), by kind, to the counts `out`
    (see dense_misses); `near`: each true horse's largest IoU with a neighbour."""
    out["over_nms"] += int((near > detector.iou).sum())
    if not missed.any():
        return
    raw = detector.raw(image, raw_conf).of(HORSE)
    best = np.zeros(len(truth))
    if len(raw):
        m = box_iou(truth, raw.xyxy.astype(float))
        best = np.where(m >= iou, raw.confidence[None, :], 0).max(axis=1)
    out["missed"] += int(missed.sum())
    out["suppressed"] += int((missed & (best >= detector.conf)).sum())
    out["low_score"] += int((missed & (best > 0) & (best < detector.conf)).sum())
    out["not_proposed"] += int((missed & (best == 0)).sum())


def dense_misses(detector, data_yaml: Path, split: str = "val", iou: float = 0.5, raw_conf: float = RAW_CONF) -> dict:
    """Why the detector's model misses line-up horses (session 18). Each dense-line-up horse it
    misses (IoU `iou`, one to one, at its own score threshold) is counted once as
    - `suppressed`: the model proposed a box on it (IoU >= `iou`) scored above the threshold,
      and non-maximum suppression took that box away for a neighbour's, or the one box was
      matched to the neighbour (one box for two horses);
    - `low_score`: its best such box scored between `raw_conf` and the threshold;
    - `not_proposed`: no box on it scored `raw_conf` or more (boxes too far off, or none).
    `overlapping_over_nms`: the share of dense horses whose true box overlaps a neighbour's by
    more than the suppression IoU, of which suppression can keep one box of two at best: the
    ceiling suppression puts on dense recall. `detector` must have `raw(frame, conf)` (the
    model's boxes before suppression; vision.detect.Detector) and `conf`/`iou` thresholds."""
    return horse_recall(detector, data_yaml, split, iou, account_raw_conf=raw_conf)["dense_misses"]


def pipeline_map50(detector, data_yaml: Path, split: str = "val", iou: float = 0.5) -> dict[str, float]:
    """mAP50 per class of what the Detector hands the pipeline (the model, then the rider/umpire
    classifier when it has one), scored as Ultralytics' validator scores a model: predictions
    matched greedily by IoU to unmatched truths of their class, AP by Ultralytics' ap_per_class.
    Call it with a detector made at a low confidence (0.001, as the validator uses)."""
    from ultralytics.utils.metrics import ap_per_class
    tps, confs, pred_cls, target_cls = [], [], [], []
    for img_path in _split_images(data_yaml, split):
        image = cv2.imread(str(img_path))
        h, w = image.shape[:2]
        cls, boxes = labels_of(img_path, w, h)
        det = detector(image)
        tp = np.zeros(len(det), bool)
        for c in np.unique(det.class_id):
            mine = np.flatnonzero(det.class_id == c)
            truth = boxes[cls == c]
            if not len(truth):
                continue
            m = box_iou(det.xyxy[mine], truth)
            taken = np.zeros(len(truth), bool)
            for k in np.argsort(-det.confidence[mine], kind="stable"):
                cand = np.where(taken, -1, m[k])
                j = int(np.argmax(cand))
                if cand[j] >= iou:
                    taken[j] = True
                    tp[mine[k]] = True
        tps.append(tp); confs.append(det.confidence); pred_cls.append(det.class_id); target_cls.append(cls)
    out = ap_per_class(np.concatenate(tps)[:, None], np.concatenate(confs), np.concatenate(pred_cls),
                       np.concatenate(target_cls))
    ap, classes = out[5], out[6]
    return {CLASS_NAMES[int(c)]: float(ap[i, 0]) for i, c in enumerate(classes)}


def evaluate_detector(model_path: str | None, data: str, split: str = "val", imgsz: int | None = None,
                      runtime: str = "torch", kind_model: str | None = "auto", refine_model: str | None = "auto",
                      with_kind: bool = True) -> dict:
    """Scores of the .pt by default (the figures hold for its exports: tests/test_detector_runtimes.py
    checks that they give the same boxes)."""
    from vision.detect import Detector
    data_yaml = Path(data)
    if data_yaml.is_dir():
        data_yaml = data_yaml / "data.yaml"
    detector = Detector(model_path, imgsz=imgsz, conf=0.25, runtime=runtime, ball_model="none", kind_model="none",
                        refine_model="none", number_model="none")
    metrics = detector.model.val(data=str(data_yaml.resolve()), split=split, imgsz=detector.imgsz, device="cpu",
                                 workers=0, plots=False, verbose=False, batch=8)
    ap50 = {}
    for i, cls in enumerate(metrics.box.ap_class_index):
        ours = detector.map.get(int(cls))
        if ours is not None:
            ap50[CLASS_NAMES[ours]] = float(metrics.box.ap50[i])
    out = {"model": str(detector.path), "imgsz": detector.imgsz, "images": len(_split_images(data_yaml, split)),
           "map50": {n: ap50.get(n) for n in CLASS_NAMES}}
    out.update(horse_recall(detector, data_yaml, split, account_raw_conf=RAW_CONF))     # with dense_misses
    if with_kind:
        # What the pipeline gets: the model's boxes moved by the box refiner, persons re-classed by
        # the rider/umpire classifier. Neither changes a horse's score, so its horses above 0.25
        # are those of a detector made at 0.25.
        full = Detector(model_path, imgsz=imgsz, conf=0.001, runtime=runtime, ball_model="none", kind_model=kind_model,
                        refine_model=refine_model, number_model="none")
        if full.kind is not None or full.refiner is not None:
            out["kind_model"] = str(full.kind.path) if full.kind is not None else None
            out["refine_model"] = str(full.refiner.path) if full.refiner is not None else None
            out["map50_with_kind"] = {n: pipeline_map50(full, data_yaml, split).get(n) for n in CLASS_NAMES}
            out["pipeline"] = horse_recall(full, data_yaml, split, min_conf=detector.conf)
    return out
