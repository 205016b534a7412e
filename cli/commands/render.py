"""`polo-lineup render SCENARIO --out DIR`: render a scenario to clip.mp4, truth.json, calibration.json."""
from __future__ import annotations

import argparse
import sys

from cli.errors import UserError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("render", help="render a synthetic throw-in clip with its truth (synth/SCENARIO.md)",
                       description="Render SCENARIO (JSON or YAML, see synth/SCENARIO.md) to DIR/clip.mp4, "
                                   "DIR/truth.json and DIR/calibration.json.")
    p.add_argument("scenario", help="scenario file (.json, .yaml)")
    p.add_argument("--out", required=True, help="output directory (created if missing)")
    p.add_argument("--size", help="override the image size, e.g. 640x360 (focal length scales with width)")
    p.add_argument("--seed", type=int, help="override the scenario's seed (look, colours, noise)")
    p.add_argument("--no-expected", action="store_true", help="skip the rules engine's expected verdicts")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from synth.clip import render_clip
    from synth.scenario import ScenarioError, load_scenario

    try:
        scenario = load_scenario(args.scenario)
        if args.size:
            scenario = scenario.with_image_size(_parse_size(args.size))
        if args.seed is not None:
            if args.seed < 0:
                raise UserError("--seed must be a non-negative integer")
            scenario.seed = args.seed
        bar = None
        if not args.quiet:
            from tqdm import tqdm
            bar = tqdm(total=scenario.n_frames, unit="frame", desc=scenario.name, file=sys.stderr)
        try:
            result = render_clip(scenario, args.out, with_expected=not args.no_expected,
                                 progress=(lambda i, n: bar.update(1)) if bar else None)
        finally:
            if bar:
                bar.close()
    except ScenarioError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot write to {args.out}: {exc.strerror or exc}") from None
    print(f"wrote {result.out_dir}/clip.mp4, truth.json, calibration.json "
          f"({result.n_frames} frames, {result.fps_rendered:.1f} frames/s)")
    return 0


def _parse_size(text: str, option: str = "--size") -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserError(f"{option}: expected WIDTHxHEIGHT, e.g. 640x360, got {text!r}") from None
    if not (16 <= w <= 4096 and 16 <= h <= 4096) or w % 2 or h % 2:
        raise UserError(f"{option}: width and height must be even numbers from 16 to 4096")
    return w, h
