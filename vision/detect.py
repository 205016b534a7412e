"""The detector stage: an Ultralytics YOLO model → per-frame Detections in our classes.

Our classes: 0 horse, 1 rider, 2 umpire, 3 ball (vision.detections.CLASS_NAMES). The shipped
model (models/polo-yolo.pt) predicts them directly. Other Ultralytics weights work through a
class map from their class names to ours; COCO-pretrained files map person → rider, horse →
horse, sports ball → ball (umpires among the persons are told apart later, by the striped
shirt, in vision.teams, or by a user hint).

Rider or umpire: whatever the model, every person box is looked at again at full resolution
by the rider/umpire classifier (vision.person_kind, models/polo-kind.pt) when it is there;
its answer sets the box's class. ``kind_model="none"`` keeps the model's own classes.
Before that, the box refiner (vision.box_refine, models/polo-refine.pt) moves every horse,
rider and umpire box onto its object from the full-resolution crop; ``refine_model="none"``
keeps the model's own boxes.

Runtimes: the same weights run under PyTorch (.pt), ONNX Runtime (.onnx) or OpenVINO (a
``NAME_openvino_model/`` folder), the last two exported by vision.export at a fixed input
shape recorded in their metadata. ``runtime="auto"`` takes, for the shipped model, its
OpenVINO export when it is there and OpenVINO imports (the fastest on these CPUs: see
bench/bench_detect.py), else the .pt; for a user's file, that file as it is.
"""
from __future__ import annotations

import ast
import os
from pathlib import Path

import numpy as np

from vision.detections import CLASS_NAMES, HORSE, RIDER, UMPIRE, Detections, box_iou, nms, suppress
from vision.openvino_cpu import precision_name, recompile_ultralytics_model

os.environ.setdefault("YOLO_OFFLINE", "1")          # never try the network from Ultralytics

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = ROOT / "models" / "polo-yolo.pt"
COCO_MAP = {"person": "rider", "horse": "horse", "sports ball": "ball"}
RUNTIMES = ("auto", "torch", "onnx", "openvino")


class ModelError(Exception):
    """Weights that cannot be loaded or whose classes cannot be mapped to ours."""


def class_map_for(names: dict[int, str], user_map: dict[str, str] | None = None) -> dict[int, int]:
    """Map a model's class ids to ours, by name. `user_map` maps model names to ours."""
    wanted = dict(COCO_MAP)
    wanted.update({n: n for n in CLASS_NAMES})
    if user_map:
        wanted.update(user_map)
    out = {}
    for k, name in names.items():
        ours = wanted.get(name)
        if ours is not None:
            if ours not in CLASS_NAMES:
                raise ModelError(f"class map: {name!r} → {ours!r} is not one of {', '.join(CLASS_NAMES)}")
            out[int(k)] = CLASS_NAMES.index(ours)
    if not any(v == 0 for v in out.values()):
        raise ModelError(f"the model has no class that maps to 'horse' (its classes: {sorted(names.values())[:10]}...)")
    return out


def parse_class_map(text: str | None) -> dict[str, str] | None:
    """'person=rider,horse=horse' → {'person': 'rider', 'horse': 'horse'}."""
    if not text:
        return None
    out = {}
    for part in text.split(","):
        if "=" not in part:
            raise ModelError(f"class map entry {part!r}: expected MODEL_NAME=OUR_NAME")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def runtime_of(path: Path) -> str:
    if path.is_dir() and path.name.endswith("_openvino_model"):
        return "openvino"
    return "onnx" if path.suffix.lower() == ".onnx" else "torch"


def export_path(pt: Path, runtime: str) -> Path:
    """Where vision.export puts `pt`'s export for `runtime`."""
    return pt.with_suffix(".onnx") if runtime == "onnx" else pt.parent / f"{pt.stem}_openvino_model"


def _importable(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None


def resolve_model(model: str | Path | None = None, runtime: str = "auto", default: Path = DEFAULT_MODEL) -> Path:
    """The weights file (or OpenVINO folder) to load for `model` (None: the shipped `default`) under `runtime`."""
    if runtime not in RUNTIMES:
        raise ModelError(f"runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
    path = Path(model) if model else default
    if not path.exists():
        raise ModelError(f"model file not found: {path}")
    have = runtime_of(path)
    if runtime == "auto":
        if model is None:
            ov = export_path(path, "openvino")
            if ov.is_dir() and _importable("openvino"):
                return ov
        return path
    if runtime == have:
        return path
    if have != "torch":
        raise ModelError(f"{path} is a {have} model; --runtime {runtime} needs the .pt it was exported from")
    exported = export_path(path, runtime)
    if not exported.exists():
        raise ModelError(f"no {runtime} export of {path} (looked for {exported}); make it with "
                         f"`polo-lineup export-detector --model {path} --format {runtime}`")
    if not _importable("onnxruntime" if runtime == "onnx" else "openvino"):
        raise ModelError(f"--runtime {runtime}: its Python package is not installed")
    return exported


def exported_imgsz(path: Path) -> list[int] | None:
    """The fixed [height, width] input an exported model was made for (from its metadata)."""
    meta = None
    if runtime_of(path) == "openvino":
        import yaml
        f = path / "metadata.yaml"
        meta = yaml.safe_load(f.read_text()) if f.exists() else None
    elif runtime_of(path) == "onnx":
        import onnx
        props = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
        meta = {"imgsz": ast.literal_eval(props["imgsz"])} if "imgsz" in props else None
    size = (meta or {}).get("imgsz")
    if isinstance(size, int):
        return [size, size]
    return [int(v) for v in size] if size else None


DUPLICATE_EDGE = 0.02


def drop_duplicate_horses(det: Detections, edge: float = DUPLICATE_EDGE) -> Detections:
    """The box refiner can move two of the model's boxes (one on a horse, one between it and
    its neighbour) onto the same horse, past the model's own suppression: two tracks then
    follow one horse, and a line-up has nine players (seen on re-rendered samples: two boxes
    1 px apart). Of horse boxes whose four edges all lie within `edge` of the box height of
    each other, the best scored is kept. Two real horses, one right behind the other, differ
    more: at least 2.72% in the 250 pairs overlapping at IoU > 0.7 in the truth of the 12
    samples and 36 re-rendered ones (every 2nd frame; IoU up to 0.96, which is why IoU cannot
    tell them). Session 29 tried 2.5% (own_goal_blue1 has two boxes 2.3% apart on Red #1:
    p95 1.02 -> 0.74 yd) and went back: on a rendered recording a blue rider's track was then
    voted an umpire, and his "5-yard circle" made eight false events."""
    horse = np.flatnonzero(det.class_id == HORSE)
    if len(horse) < 2:
        return det
    b = det.xyxy[horse].astype(float)
    h = np.maximum(b[:, 3] - b[:, 1], 1.0)
    apart = np.abs(b[:, None, :] - b[None, :, :]).max(axis=2) / np.maximum(h[:, None], h[None, :])
    keep = det.class_id != HORSE
    keep[horse[suppress(det.confidence[horse], apart < edge)]] = True
    return det[keep]


CONVERGED_IOU = 0.7
CONVERGED_GAIN = 0.2


def drop_converged_horses(raw: Detections, refined: Detections, overlap: float = CONVERGED_IOU,
                          gain: float = CONVERGED_GAIN) -> Detections:
    """The box refiner looks at each box alone. In a rank seen end-on it can pull a horse box
    placed between two horses onto the neighbour that fills most of its crop, where another
    box already sits: the horse it came from is then placed at its neighbour's spot, and a
    line-up has one unit too many (re-rendered `clean_lineup`, seed 2900, frame 50: Red #2's
    box moved 9 px up onto Red #3's, IoU 0.41 -> 0.80 with Red #3's own box, and Red #2's rider
    was paired with it, 2.4 yd behind where he was). Of horse boxes the refiner brought
    together, IoU at least `overlap` after and at least `gain` more than before (`raw`: the
    boxes before refining, in the same order as `refined`), the best scored is kept; the rider
    of the one taken away is then placed from his own box where his horse is hidden
    (vision.players). Horses that overlap in the truth mostly overlap before refining as well
    (two neighbours in a rank seen from the side: IoU ~0.6 in both), but not always: on the
    held-out renders (seed 777) 11 of the 153 boxes this takes were a horse's only good box
    (horse recall 0.930 -> 0.924), the other 142 second boxes on a horse (one-to-one precision
    0.905 -> 0.948); on the 48 sample and re-rendered clips 34 meet every target, not 32."""
    horse = np.flatnonzero(refined.class_id == HORSE)
    if len(horse) < 2:
        return refined
    after = box_iou(refined.xyxy[horse], refined.xyxy[horse])
    before = box_iou(raw.xyxy[horse], raw.xyxy[horse])
    converged = (after >= overlap) & (after - before >= gain)
    np.fill_diagonal(converged, False)
    keep = refined.class_id != HORSE
    keep[horse[suppress(refined.confidence[horse], converged)]] = True
    return refined[keep]


class Detector:
    """Loads weights once; call it on BGR frames (one or a list) to get Detections.

    It also carries the ball stage (`ball_finder`, vision.ball), which the pipeline runs on
    full-resolution windows where this model, at its whole-frame scale, cannot see the ball."""

    def __init__(self, model: str | Path | None = None, class_map: dict[str, str] | None = None,
                 imgsz: int | None = None, conf: float = 0.25, iou: float = 0.6, device: str = "cpu",
                 runtime: str = "auto", ball_model: str | Path | None = "auto",
                 kind_model: str | Path | None = "auto", refine_model: str | Path | None = "auto",
                 number_model: str | Path | None = "auto"):
        path = resolve_model(model, runtime)
        self.runtime = runtime_of(path)
        try:
            precision_name()                            # a bad POLO_OPENVINO_PRECISION fails here
        except ValueError as exc:
            raise ModelError(str(exc)) from None
        try:
            from ultralytics import YOLO
            self.model = YOLO(str(path), task="detect")
            names = self.model.names
        except Exception as exc:  # noqa: BLE001 - any loader failure is the user's file
            raise ModelError(f"cannot load detector weights {path}: {exc}") from None
        self.path = path
        self.names = dict(names)
        self.map = class_map_for(self.names, class_map)
        self._lut = np.full(max(self.names) + 1, -1, np.int64)
        for k, v in self.map.items():
            self._lut[k] = v
        if self.runtime == "torch":
            trained = getattr(self.model, "overrides", {}).get("imgsz")
            self.imgsz = int(imgsz or (trained if isinstance(trained, int) else 640))
        else:
            fixed = exported_imgsz(path)
            if fixed is None:
                raise ModelError(f"{path}: no input size in its metadata (export it with polo-lineup export-detector)")
            if imgsz and int(imgsz) != max(fixed):
                raise ModelError(f"{path} runs at its export size {fixed[1]}x{fixed[0]}; --imgsz {imgsz} needs "
                                 f"the .pt (--runtime torch) or a new export")
            self.imgsz = fixed
        self.conf, self.iou, self.device = conf, iou, device
        if self.runtime == "openvino":
            # Ultralytics compiles the model when its predictor is first set up: set it up now on
            # a blank frame, then compile again in FP32 (vision.openvino_cpu: bfloat16 on some CPUs).
            self._predict([np.zeros((*self.imgsz, 3), np.uint8)])
            recompile_ultralytics_model(self.model, path)
        # The ball stage (vision.ball): the shipped ball model by default, "none" for none.
        from vision.ball import load_ball_finder
        self.ball_finder = load_ball_finder(ball_model, runtime)
        # The rider/umpire classifier (vision.person_kind): the shipped one by default.
        from vision.person_kind import load_kind_classifier
        self.kind = load_kind_classifier(kind_model)
        # The box refiner (vision.box_refine): the shipped one by default.
        from vision.box_refine import load_box_refiner
        self.refiner = load_box_refiner(refine_model)
        # The shirt-number reader (vision.shirt_numbers), which the pipeline runs on tracked riders.
        from vision.shirt_numbers import load_number_reader
        self.numbers = load_number_reader(number_model)

    @property
    def knows_umpires(self) -> bool:
        """True when its boxes say which persons are umpires (an umpire class, or the classifier)."""
        return self.kind is not None or UMPIRE in set(self.map.values())

    def __call__(self, frames):
        single = isinstance(frames, np.ndarray)
        batch = [frames] if single else list(frames)
        out = [self._convert(r) for r in self._predict(batch)]
        if self.refiner is not None:
            out = [drop_duplicate_horses(drop_converged_horses(det, self.refiner(frame, det)))
                   for frame, det in zip(batch, out)]
        if self.kind is not None:
            out = [self.refine_persons(frame, det) for frame, det in zip(batch, out)]
        return out[0] if single else out

    def _predict(self, batch: list[np.ndarray], conf: float | None = None, iou: float | None = None,
                 max_det: int = 300):
        """Ultralytics' results for a list of frames (at the detector's own thresholds unless given)."""
        return self.model.predict(batch, imgsz=self.imgsz, conf=self.conf if conf is None else conf,
                                  iou=self.iou if iou is None else iou, max_det=max_det, device=self.device,
                                  verbose=False, classes=sorted(self.map))

    def raw(self, frame: np.ndarray, conf: float = 0.1) -> Detections:
        """The model's boxes scored above `conf` before non-maximum suppression (no box refiner, no
        classifier): what it proposed, for vision.detector_eval's account of missed horses."""
        return self._convert(self._predict([frame], conf=conf, iou=1.0, max_det=10000)[0])

    def refine_persons(self, frame: np.ndarray, det: Detections, overlap: float = 0.6) -> Detections:
        """One box per person (the model may give a rider and an umpire box for the same man), each
        classed by the rider/umpire classifier; its score becomes the box's score times the
        probability of its class."""
        person = np.isin(det.class_id, (RIDER, UMPIRE))
        if not person.any():
            return det
        people = det[person]
        people = people[nms(people.xyxy, people.confidence, overlap)]
        p = self.kind.p_umpire(frame, people.xyxy)
        umpire = p >= 0.5
        people = Detections(people.xyxy, np.where(umpire, UMPIRE, RIDER).astype(np.int64),
                            (people.confidence * np.where(umpire, p, 1 - p)).astype(np.float32))
        rest = det[~person]
        return Detections(np.concatenate([rest.xyxy, people.xyxy]), np.concatenate([rest.class_id, people.class_id]),
                          np.concatenate([rest.confidence, people.confidence]))

    def _convert(self, result) -> Detections:
        boxes = result.boxes
        cls = self._lut[boxes.cls.cpu().numpy().astype(np.int64)]
        keep = cls >= 0
        return Detections(boxes.xyxy.cpu().numpy().astype(np.float32)[keep], cls[keep],
                          boxes.conf.cpu().numpy().astype(np.float32)[keep])
