"""`polo-lineup export-detector`: ONNX / OpenVINO exports of the detector weights."""
from __future__ import annotations

import argparse

from cli.errors import UserError


def run(args: argparse.Namespace) -> int:
    from vision.detect import DEFAULT_MODEL, ModelError, exported_imgsz
    from cli.commands.render import _parse_size
    from vision.export import export_detector
    frame = _parse_size(args.frame, "--frame")
    model = args.model or DEFAULT_MODEL
    if args.infer_imgsz is not None:
        if args.infer_imgsz < 32 or args.infer_imgsz % 32:
            raise UserError("--infer-imgsz must be a positive multiple of 32")
        from pathlib import Path
        from vision.training import set_inference_size
        if not Path(model).is_file():
            raise UserError(f"model file not found: {model}")
        set_inference_size(Path(model), Path(model), args.infer_imgsz)
        print(f"{model}: inference size set to {args.infer_imgsz}")
    try:
        written = export_detector(model, tuple(args.format), frame_size=frame)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    for path in written:
        h, w = exported_imgsz(path)
        print(f"wrote {path} (input {w}x{h})")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export-detector", help="export the detector to ONNX and/or OpenVINO",
                       description="Export .pt weights to ONNX (ONNX Runtime) and/or OpenVINO, beside the .pt "
                                   "(NAME.onnx, NAME_openvino_model/), at the fixed input of a letterboxed "
                                   "1280x720 frame. `analyze --runtime onnx|openvino` then uses them; the "
                                   "shipped model's OpenVINO export is the default runtime.")
    p.add_argument("--model", default=None, help="the .pt to export (default: models/polo-yolo.pt)")
    p.add_argument("--format", nargs="+", choices=("onnx", "openvino"), default=["onnx", "openvino"],
                   help="formats (default: both)")
    p.add_argument("--frame", default="1280x720", metavar="WxH",
                   help="the image size the fixed input is shaped for, letterboxed to the model's size "
                        "(default %(default)s; 320x320 for the ball stage's square windows)")
    p.add_argument("--infer-imgsz", type=int, default=None,
                   help="first record this whole-frame inference size in the .pt (a multiple of 32), "
                        "then export at it (default: the size the .pt already carries)")
    p.set_defaults(func=run)
