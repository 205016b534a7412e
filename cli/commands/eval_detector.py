"""`polo-lineup eval-detector --data DIR`: mAP50 per class and horse recall on a dataset."""
from __future__ import annotations

import argparse
import json

from cli.errors import UserError


def run(args: argparse.Namespace) -> int:
    from vision.detect import ModelError
    from vision.detector_eval import evaluate_detector
    try:
        result = evaluate_detector(args.model, args.data, split=args.split, imgsz=args.imgsz,
                                   kind_model=args.kind_model, refine_model=args.refine_model)
    except (ModelError, FileNotFoundError, KeyError) as exc:
        raise UserError(str(exc)) from None
    print(json.dumps(result, indent=1))
    for name, ap in result["map50"].items():
        kind = (result.get("map50_with_kind") or {}).get(name)
        print(f"mAP50 {name:7s} model {ap if ap is None else round(ap, 3)}"
              + ("" if kind is None else f"   with the box refiner and rider/umpire classifier {kind:.3f}"))
    print(f"horse recall@0.5 model {result['horse_recall_iou50']:.3f} (dense line-up "
          f"{result['horse_recall_iou50_dense']:.3f}, {result['dense_horses']} horses); one-to-one precision "
          f"{result['horse_precision_iou50']:.3f} ({result['horse_boxes']} boxes)")
    miss = result["dense_misses"]
    share = miss["missed_share"]
    print(f"dense line-up horses the model misses, of {miss['dense_horses']}: {miss['missed']}; a box on the horse "
          f"suppressed for a neighbour's (or shared with it) {share['suppressed']:.3f}, scored under the threshold "
          f"{share['low_score']:.3f}, none scored {miss['raw_conf']} or more {share['not_proposed']:.3f}; "
          f"true boxes overlapping a neighbour's beyond the suppression IoU {miss['overlapping_over_nms']:.3f}")
    if "pipeline" in result:
        pipe = result["pipeline"]
        print(f"horse recall@0.5 with the box refiner {pipe['horse_recall_iou50']:.3f} (dense line-up "
              f"{pipe['horse_recall_iou50_dense']:.3f}); one-to-one precision {pipe['horse_precision_iou50']:.3f} "
              f"({pipe['horse_boxes']} boxes)")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval-detector", help="score the detector on a YOLO dataset",
                       description="mAP50 per class and horse recall at IoU 0.5 (overall and in the dense line-up).")
    p.add_argument("--data", required=True, help="dataset folder or data.yaml (e.g. from synth-dataset)")
    p.add_argument("--model", default=None, help="weights (default: the shipped models/polo-yolo.pt)")
    p.add_argument("--split", default="val", help="dataset split to score (default: %(default)s)")
    p.add_argument("--imgsz", type=int, default=None, help="inference size (default: the model's training size)")
    p.add_argument("--kind-model", default="auto",
                   help="rider/umpire classifier scored behind the model: 'auto' (the shipped "
                        "models/polo-kind.pt), 'none', or a file (default: %(default)s)")
    p.add_argument("--refine-model", default="auto",
                   help="box refiner scored behind the model: 'auto' (the shipped models/polo-refine.pt), "
                        "'none', or a file (default: %(default)s)")
    p.set_defaults(func=run)
