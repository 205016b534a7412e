"""`polo-lineup export-detector`: ONNX / OpenVINO exports of the detector weights."""
from __future__ import annotations

import argparse

from cli.errors import UserError


def run(args: argparse.Namespace) -> int:
    from vision.detect import DEFAULT_MODEL, ModelError, exported_imgsz
    from cli.commands.render import _parse_size
    from vision.export import export_detector
    frame = _parse_size(args.frame, "--frame")
    try:
        written = export_detector(args.model or DEFAULT_MODEL, tuple(args.format), frame_size=frame)
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
    p.set_defaults(func=run)
