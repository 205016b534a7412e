"""`polo-lineup calibrate VIDEO --out CAL.json`: mark pixel ↔ field points on one frame.

With ``--point`` specs it validates, fits and writes the file without any interaction;
otherwise it serves a local web page for clicking the points (docs/calibrate.md).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from cli.errors import UserError


def parse_point_spec(spec: str) -> tuple[str | None, tuple[float, float], tuple[float, float] | None]:
    """``NAME=U,V`` (a field landmark) or ``X,Y=U,V`` (yards = pixels) → a point tuple."""
    left, sep, right = spec.partition("=")
    left, right = left.strip(), right.strip()
    if not sep or not left or not right:
        raise UserError(f"--point {spec!r}: expected NAME=U,V or X,Y=U,V (yards=pixels)")
    px = _pair(right, spec, "pixels U,V")
    if "," in left:
        return None, px, _pair(left, spec, "yards X,Y")
    return left, px, None


def _pair(text: str, spec: str, what: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        a, b = (float(p) for p in parts)
    except ValueError:
        raise UserError(f"--point {spec!r}: {what} must be two numbers, got {text!r}") from None
    if not (math.isfinite(a) and math.isfinite(b)):
        raise UserError(f"--point {spec!r}: {what} must be finite numbers, got {text!r}")
    return a, b


def parse_field(text: str) -> dict:
    """``LENGTHxWIDTH`` in yards (e.g. ``300x160``) → the calibration's ``field`` object."""
    try:
        length, width = (float(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--field: expected LENGTHxWIDTH in yards, e.g. 300x160, got {text!r}") from None
    if not (0 < length < 1000 and 0 < width < 1000):
        raise UserError(f"--field: length and width must be positive yards, got {text!r}")
    return {"length_yd": length, "width_yd": width}


def run(args: argparse.Namespace) -> int:
    from vision.calibration_ui import CalibrationPage, build_calibration, grab_frame
    from vision.errors import CalibrationError, VideoError

    points = [parse_point_spec(s) for s in args.point or []]
    field = parse_field(args.field)
    out = Path(args.out)
    if out.is_dir():
        raise UserError(f"--out {out}: is a directory; give a file name such as {out / 'calibration.json'}")
    if args.frame < 0:
        raise UserError(f"--frame must be 0 or more, got {args.frame}")
    try:
        frame = grab_frame(args.video, args.frame)
    except (VideoError, ValueError) as exc:
        raise UserError(str(exc)) from None
    image_size = (frame.shape[1], frame.shape[0])

    if points:
        try:
            result = build_calibration(points, image_size, args.frame, field)
        except CalibrationError as exc:
            raise UserError(str(exc)) from None
        _write(out, result["doc"])
        _report(out, result["summary"], args.frame)
        return 0

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be 0..65535, got {args.port}")
    try:
        page = CalibrationPage(frame, args.frame, out, port=args.port, field=field,
                               title=f"{Path(args.video).name}, frame {args.frame}")
    except OSError as exc:
        raise UserError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}"
                        " (try another --port, or --port 0 for any free one)") from None
    print(f"calibration page: {page.url}  (mark the points, Check, then Save; Ctrl-C to quit)",
          flush=True)
    if not args.no_browser:
        _open_browser(page.url)
    try:
        saved = page.serve_until_saved()
    except KeyboardInterrupt:
        if page.saved is None:
            print("polo-lineup calibrate: interrupted; nothing written", file=sys.stderr)
            return 130
        saved = page.saved
    _report(saved, page.summary, args.frame)
    return 0


def _write(out: Path, doc: dict) -> None:
    from vision.calibration_ui import save_calibration
    try:
        save_calibration(out, doc)
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None


def _report(out: Path, summary: dict, frame: int) -> None:
    print(f"wrote {out}: {summary['text']}")
    for w in summary["warnings"]:
        print(f"polo-lineup calibrate: warning: {w}", file=sys.stderr)
    if frame:
        print("polo-lineup calibrate: note: analyze applies the calibration from the clip's first "
              f"frame; frame {frame} is only right if the camera does not move before it",
              file=sys.stderr)


def _open_browser(url: str) -> None:
    try:
        import webbrowser
        webbrowser.open(url)
    except Exception:       # no browser, no display: the printed URL is enough
        pass


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="make a calibration.json by marking field points on a frame",
                       description="Mark 4 or more pixel ↔ field correspondences on one frame of VIDEO and "
                                   "write them to --out (docs/calibrate.md, docs/formats.md). With --point "
                                   "it runs without interaction; otherwise it serves a local web page.")
    p.add_argument("video", help="the clip to calibrate")
    p.add_argument("--frame", type=int, default=0, help="frame index to mark the points on (default 0)")
    p.add_argument("--out", required=True, help="calibration JSON to write (atomically)")
    p.add_argument("--port", type=int, default=8765,
                   help="port of the local page on 127.0.0.1 (default 8765; 0 = any free port)")
    p.add_argument("--no-browser", action="store_true", help="print the page's URL but do not open a browser")
    p.add_argument("--field", default="300x160", metavar="LENGTHxWIDTH",
                   help="field size in yards (default 300x160); landmark positions depend on it")
    p.add_argument("--point", action="append", metavar="SPEC",
                   help="non-interactive: NAME=U,V (a field landmark at pixel U,V) or X,Y=U,V (yards X,Y "
                        "at pixel U,V); repeat for each point (4 or more)")
    p.set_defaults(func=run)
