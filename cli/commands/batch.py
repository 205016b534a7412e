"""`polo-lineup batch INPUT... --out DIR`: analyse every clip of folders/globs, resumably (vision.batch)."""
from __future__ import annotations

import argparse
import sys

from cli.errors import UserError
from cli.options import add_detection_options


def run(args: argparse.Namespace) -> int:
    from cli.commands.analyze import parse_defending
    from vision.batch import BatchError, BatchSettings, run_batch
    from vision.detect import ModelError, parse_class_map
    try:
        class_map = parse_class_map(args.class_map)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    settings = BatchSettings(defending=parse_defending(args.defending) if args.defending else None,
                             model=args.model, class_map=class_map, imgsz=args.imgsz, runtime=args.runtime, ball_model=args.ball_model,
                          ball_motion=not args.no_ball_motion, kind_model=args.kind_model,
                          refine_model=args.refine_model, number_model=args.number_model, conf=args.conf,
                             stride=args.stride, min_run=args.min_run, margin_sigmas=args.margin_sigmas, track_space=args.track_space, hidden_horses=args.hidden_horses, annotate=not args.no_video,
                             moving_camera=not args.static_camera, across_cuts=not args.stop_at_cut, replays=not args.judge_replays,
                             replay_memory_s=max(0.0, args.replay_memory),
                             frame_memory_mb=args.frame_memory_mb)
    try:
        result = run_batch(args.inputs, args.out, settings, workers=args.workers, force=args.force,
                           progress=not args.quiet, backend=args.backend, scheduler=args.scheduler)
    except BatchError as exc:
        raise UserError(str(exc)) from None
    for row in result.rows:
        if row["status"] == "failed":
            print(f"failed: {row['clip']}: {row['error']}", file=sys.stderr)
    counts = ", ".join(f"{result.count(s)} {s}" for s in ("ok", "skipped", "failed") if result.count(s))
    print(f"{len(result.rows)} clips: {counts}; wrote {', '.join(str(p) for p in result.written)}")
    return result.exit_code


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "batch", help="analyse every clip of folders or globs into one output folder per clip",
        description="Analyse every video (.mp4 .mov .avi .mkv .m4v) found in INPUT folders (recursively) "
                    "or matching INPUT globs (quote them, ** allowed). Clip ROOT/a/clip.mp4 writes "
                    "DIR/a/clip/: report.json, report.csv, debrief.html, annotated.mp4 (unless --no-video) "
                    "and done.json, last, when complete; DIR/summary.csv, DIR/summary.json and DIR/index.html "
                    "list every clip. Settings per clip come from its sidecar (CLIP.polo.json or polo.json: "
                    "defending, calibration, team_colours, throw_in_frame, field, start/end, or throw_ins: one "
                    "output folder per throw-in of a recording, CLIP@2m13s); --defending wins over "
                    "the sidecars. A rerun skips the clips already done (same input size and mtime) unless "
                    "--force. Exit status: 0 all clips done, 1 some failed, 2 bad arguments or no clips.")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="a folder, a glob or a video file (several allowed)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--workers", type=int, default=1,
                   help="clips analysed at once, each in its own process with its own detector (default: 1)")
    p.add_argument("--backend", choices=("local", "dask"), default="local",
                   help="where clips run: local processes (default) or a Dask distributed cluster; with dask "
                        "and no --scheduler, a local cluster of --workers processes is started for the batch")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (--backend dask); its workers must "
                        "see the clips, the model and --out at the same paths")
    p.add_argument("--defending", default=None,
                   help="goal each team defends for every clip, e.g. red=south,blue=north (default: each sidecar)")
    add_detection_options(p)
    p.add_argument("--static-camera", action="store_true", help="the cameras do not move: skip motion tracking")
    p.add_argument("--stop-at-cut", action="store_true",
                   help="end each analysis at its first camera cut (default: skip cutaways, as analyze)")
    p.add_argument("--judge-replays", action="store_true",
                   help="judge replays of the calibrated camera's footage as live (default: skipped, as analyze)")
    p.add_argument("--replay-memory", type=float, default=60.0, metavar="SECONDS",
                   help="footage remembered before each throw-in window, to tell a replay of it (as analyze; "
                        "default: %(default)s)")
    p.add_argument("--no-video", action="store_true", help="no annotated.mp4 (reports and debriefs only)")
    p.add_argument("--force", action="store_true", help="analyse again the clips already done")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=run)
