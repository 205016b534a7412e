"""YOLO detection datasets rendered from random scenarios (synth/random_scene.py).

Layout (Ultralytics): DIR/images/{train,val}/NNNNNN.jpg, DIR/labels/{train,val}/NNNNNN.txt
(one ``class cx cy w h`` line per box, normalised), DIR/data.yaml and DIR/dataset.json
(parameters and box counts). Classes: 0 horse, 1 rider, 2 umpire, 3 ball.

A box is labelled when at least VISIBLE_MIN (0.25) of that part's silhouette is visible,
i.e. neither hidden by nearer objects nor outside the frame; the box itself is the part's
full projected extent clipped to the image. Boxes under MIN_BOX_PX on a side are dropped.
Image i depends only on (seed, i), so a dataset is identical for any number of workers.

Training crops (``scale``/``crop``): the frame is rendered at full size, resized by ``scale`` the
way Ultralytics letterboxes it at inference (bilinear), and a ``crop`` window (w, h) is cut
around the action. A model trained on 384x360 crops of half-size frames sees objects at the
size they have when it runs on whole 1280x720 frames at imgsz 640, for the training cost of
a 384 image. A box cut by the crop keeps its label when at least CROP_KEEP of it is inside.

Ball crops (``focus="ball"``, ``classes=("ball",)``): for the ball stage (vision.ball), the
frame is enlarged (``scale`` up to 2) and the window is cut around the ball when it is
labelled, else around the umpire's upper body (where the ball is before the throw), with
only the ball's boxes kept (class 0): a one-class data set of 1-5 px balls made larger.
Their labels are widened to ``min_box`` px (e.g. 12) about the ball's centre: Ultralytics'
task-aligned assigner scores a prediction by IoU^6 with its box, and against a 4-7 px box a
prediction a pixel or two off has a tiny IoU, so the class targets for a ball stay near zero
(box loss ~1e-6 in a first run on true-size labels). The pipeline uses only the box centre.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

from synth.encode import write_json_atomic, write_text_atomic

CLASSES = {0: "horse", 1: "rider", 2: "umpire", 3: "ball"}
CLASS_OF = {"horse": 0, "rider": 1, "umpire": 2, "ball": 3}
VISIBLE_MIN = 0.25
MIN_BOX_PX = 2.0
TEXTURE_VARIANTS = 12
CROP_KEEP = 0.45
FOCUSES = ("action", "ball")
MAX_SCALE = 2.0


@dataclass
class DatasetResult:
    out_dir: Path
    n_train: int
    n_val: int
    boxes: dict[str, int]


def image_seed(seed: int, i: int) -> int:
    return int(np.random.default_rng([seed, i, 777]).integers(0, 2 ** 31 - 1))


_TEXTURES: dict = {}


def _texture(variant: int, size: tuple[int, int]):
    """Ground textures are the slow part of a new scene; each worker keeps a few variants."""
    from synth.field_texture import make_field_texture
    from synth.look import make_look
    if variant not in _TEXTURES:
        _TEXTURES[variant] = make_field_texture(300.0, 160.0, make_look(90001 + variant), 90001 + variant)
    return _TEXTURES[variant]


def render_example(seed: int, size: tuple[int, int] = (1280, 720)) -> tuple[np.ndarray, list[str], dict]:
    """One random image, its YOLO label lines and its truth objects."""
    from synth.random_scene import random_scenario
    from synth.render import Renderer
    from synth.scenario import parse_scenario
    doc, index = random_scenario(seed, size)
    scenario = parse_scenario(doc)
    variant = int(np.random.default_rng([seed, 3]).integers(TEXTURE_VARIANTS))
    r = Renderer(scenario, texture=_texture(variant, size))
    img, records, _ = r.render(index)
    w, h = size
    lines = []
    for rec in records:
        for part, box in rec.boxes.items():
            vis = rec.part_visible.get(part, rec.visible_fraction)
            bw, bh = box[2] - box[0], box[3] - box[1]
            if vis < VISIBLE_MIN or bw < MIN_BOX_PX or bh < MIN_BOX_PX:
                continue
            cx, cy = (box[0] + box[2]) / 2 / w, (box[1] + box[3]) / 2 / h
            lines.append(f"{CLASS_OF[part]} {cx:.6f} {cy:.6f} {bw / w:.6f} {bh / h:.6f}")
    return img, lines, {"seed": seed, "objects": len(records)}


def _focus_point(boxes: list[tuple], focus: str, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """Where a crop is centred: the horses' mean ("action"), or the ball, else the umpire's
    upper body, else a random point ("ball")."""
    if focus == "ball":
        for cls in ("ball", "umpire"):
            found = [b for b in boxes if b[0] == CLASS_OF[cls]]
            if found:
                b = found[0]
                return np.array([(b[1] + b[3]) / 2, b[2] + 0.35 * (b[4] - b[2])])
        return np.array([rng.uniform(0, w), rng.uniform(0, h)])
    horses = [b for b in boxes if b[0] == CLASS_OF["horse"]]
    return np.mean([[(b[1] + b[3]) / 2, (b[2] + b[4]) / 2] for b in horses], axis=0) if horses \
        else np.array([w / 2, h / 2])


def crop_example(img: np.ndarray, lines: list[str], scale: float, crop: tuple[int, int] | None,
                 rng: np.random.Generator, focus: str = "action",
                 classes: tuple[str, ...] | None = None, min_box: float = 0.0) -> tuple[np.ndarray, list[str]]:
    """Resize a rendered example by `scale` and cut a `crop` (w, h) window around its horses
    (or its ball: `focus`); `classes` keeps only those classes, renumbered from 0 in that order;
    boxes narrower or lower than `min_box` px are widened to it about their centre."""
    h0, w0 = img.shape[:2]
    w, h = int(round(w0 * scale)), int(round(h0 * scale))
    if (w, h) != (w0, h0):
        interp = cv2.INTER_LINEAR if scale <= 1 else cv2.INTER_CUBIC
        img = cv2.resize(img, (w, h), interpolation=interp)
    boxes = []
    for line in lines:
        c, cx, cy, bw, bh = line.split()
        cx, cy, bw, bh = float(cx) * w, float(cy) * h, float(bw) * w, float(bh) * h
        boxes.append((int(c), cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2))
    cw, ch = crop if crop else (w, h)
    cw, ch = min(cw, w), min(ch, h)
    centre = _focus_point(boxes, focus, w, h, rng)
    x0 = int(np.clip(centre[0] - cw / 2 + rng.uniform(-0.35, 0.35) * cw, 0, w - cw))
    y0 = int(np.clip(centre[1] - ch / 2 + rng.uniform(-0.35, 0.35) * ch, 0, h - ch))
    renumber = {CLASS_OF[c]: k for k, c in enumerate(classes)} if classes else None
    out = []
    for c, a, b, x1, y1 in boxes:
        if renumber is not None:
            if c not in renumber:
                continue
            c = renumber[c]
        ca, cb = np.clip([a - x0, x1 - x0], 0, cw)
        cc, cd = np.clip([b - y0, y1 - y0], 0, ch)
        area = (x1 - a) * (y1 - b)
        bw, bh = cb - ca, cd - cc
        if area <= 0 or bw * bh < CROP_KEEP * area or bw < MIN_BOX_PX or bh < MIN_BOX_PX:
            continue
        mx, my = (ca + cb) / 2, (cc + cd) / 2
        bw, bh = max(bw, min_box), max(bh, min_box)
        out.append(f"{c} {mx / cw:.6f} {my / ch:.6f} {min(bw / cw, 1):.6f} {min(bh / ch, 1):.6f}")
    return np.ascontiguousarray(img[y0:y0 + ch, x0:x0 + cw]), out


def _work(job: tuple) -> list[str]:
    i, seed, split, out, quality_seed, size, scale, crop, focus, classes, min_box = job
    img, lines, _ = render_example(image_seed(seed, i), size)
    if scale != 1.0 or crop or classes or min_box:
        img, lines = crop_example(img, lines, scale, crop, np.random.default_rng([seed, i, 5]), focus, classes,
                                  min_box)
    q = int(np.random.default_rng([quality_seed, i]).integers(60, 96))
    name = f"{i:06d}"
    root = Path(out)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    img_path = root / "images" / split / f"{name}.jpg"
    tmp = img_path.with_name(f".{name}.{os.getpid()}.tmp")
    tmp.write_bytes(buf.tobytes())
    os.replace(tmp, img_path)
    write_text_atomic(root / "labels" / split / f"{name}.txt", "".join(line + "\n" for line in lines))
    return [_named(line, classes) for line in lines]


def _named(line: str, classes: tuple[str, ...] | None) -> str:
    """A label line with its class given by name (the written files number a subset from 0)."""
    k = int(line.split()[0])
    return classes[k] if classes else CLASSES[k]


def val_indices(n: int, seed: int, val_fraction: float) -> set[int]:
    k = int(round(n * val_fraction))
    if val_fraction > 0 and n > 1:
        k = max(1, min(k, n - 1))
    return set(np.random.default_rng([seed, 4]).permutation(n)[:k].tolist())


def write_dataset(out_dir: str | Path, n: int, seed: int = 0, val_fraction: float = 0.1, workers: int = 1,
                  size: tuple[int, int] = (1280, 720), progress: bool = True, scale: float = 1.0,
                  crop: tuple[int, int] | None = None, focus: str = "action",
                  classes: tuple[str, ...] | None = None, min_box: float = 0.0) -> DatasetResult:
    """Render `n` images into a YOLO dataset at `out_dir` (optionally resized and cropped
    around the action or the ball, optionally with a subset of the classes)."""
    if not 0.05 <= scale <= MAX_SCALE:
        raise ValueError(f"scale must be in [0.05, {MAX_SCALE:g}]")
    if focus not in FOCUSES:
        raise ValueError(f"focus must be one of {', '.join(FOCUSES)}")
    classes = tuple(classes) if classes else None
    if classes is not None and (not set(classes) <= set(CLASS_OF) or len(set(classes)) != len(classes)):
        raise ValueError(f"classes must be distinct names among {', '.join(CLASS_OF)}")
    names = dict(enumerate(classes)) if classes else CLASSES
    out = Path(out_dir)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    val = val_indices(n, seed, val_fraction)
    jobs = [(i, seed, "val" if i in val else "train", str(out), seed, tuple(size), float(scale),
             tuple(crop) if crop else None, focus, classes, float(min_box)) for i in range(n)]
    counts: Counter = Counter()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n, unit="img", desc="synth-dataset")
    try:
        if workers > 1:
            with get_context("fork").Pool(workers) as pool:
                for named in pool.imap_unordered(_work, jobs, chunksize=4):
                    counts.update(named)
                    if bar:
                        bar.update(1)
        else:
            for job in jobs:
                counts.update(_work(job))
                if bar:
                    bar.update(1)
    finally:
        if bar:
            bar.close()
    yaml_text = "\n".join([
        "# Synthetic polo throw-in detection dataset (polo-lineup synth-dataset)",
        f"path: {out.resolve()}",
        "train: images/train",
        "val: images/val",
        "names:",
        *[f"  {k}: {v}" for k, v in names.items()],
        "",
    ])
    write_text_atomic(out / "data.yaml", yaml_text)
    boxes = {name: int(counts.get(name, 0)) for name in names.values()}
    write_json_atomic(out / "dataset.json", {
        "generator": "synth.dataset", "n": n, "seed": seed, "val_fraction": val_fraction,
        "image_size": list(size), "scale": scale, "crop": list(crop) if crop else None,
        "focus": focus, "min_box_label_px": min_box, "crop_keep": CROP_KEEP, "visible_min": VISIBLE_MIN, "min_box_px": MIN_BOX_PX,
        "classes": {str(k): v for k, v in names.items()}, "n_train": n - len(val), "n_val": len(val),
        "boxes": boxes}, indent=1)
    return DatasetResult(out, n - len(val), len(val), boxes)
