"""`polo-lineup find-throw-ins VIDEO`: the line-ups of a whole recording, as parts to judge."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cli.errors import UserError

PLACEHOLDER_TEAMS = {"team-a": "south", "team-b": "north"}    # names only: the scan judges nothing


def run(args: argparse.Namespace) -> int:
    from vision.detect import ModelError, parse_class_map
    if args.rate <= 0:
        raise UserError("--rate must be more than 0 frames a second")
    if args.after_goals and not args.write:
        raise UserError("--after-goals says what --write writes: give --write too")
    try:
        class_map = parse_class_map(args.class_map)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    shared: dict = {}                          # the detector, loaded once for every video
    if len(args.video) == 1:
        rc = _one(args.video[0], args, class_map, shared)
        if args.json:
            print(json.dumps(shared["json"][0], indent=1))
        return rc
    failed = 0
    for video in args.video:                   # several: a failing one is said, the others go on
        try:
            _one(video, args, class_map, shared)
        except UserError as exc:
            failed += 1
            print(f"polo-lineup find-throw-ins: {video}: error: {exc}", file=sys.stderr)
    if args.json:
        print(json.dumps(shared.get("json", []), indent=1))
    if failed:
        print(f"{failed} of {len(args.video)} videos failed", file=sys.stderr)
    return 1 if failed else 0


def _one(video: str, args: argparse.Namespace, class_map, shared: dict) -> int:
    from cli.commands.analyze import colours_setting, defending_setting
    from cli.options import frame_progress
    from vision.analyze_job import AnalyzeError
    from vision.detect import ModelError
    from vision.errors import CalibrationError, SettingsError, VideoError
    from vision.pipeline import AnalyzeOptions
    from vision.sidecar import (SidecarError, check_throw_ins_writable, load_sidecar, window_setting,
                                write_throw_ins)
    from vision.throw_in_finder import clock, scan, sidecar_entries
    try:
        side = load_sidecar(video)
        window = window_setting(args.start, args.end, side)     # (a sidecar with throw_ins has no start/end)
        if args.write:
            check_throw_ins_writable(video, args.replace)        # before a long scan, not after
    except SidecarError as exc:
        raise UserError(str(exc)) from None
    except ValueError as exc:
        raise UserError(f"--start/--end: {exc}") from None
    defending = defending_setting(args.defending, side)
    if defending is None:
        if args.after_goals:
            raise UserError("--after-goals: say which goal each team defends at the first throw-in: "
                            "--defending red=south,blue=north (or the sidecar's defending)")
        defending = dict(PLACEHOLDER_TEAMS)
    colours = colours_setting(args.team_colours, side, defending)
    opts = AnalyzeOptions(defending=defending, calibration=args.calibration or side.get("calibration"),
                          model=args.model, class_map=class_map, runtime=args.runtime, conf=args.conf,
                          team_colours=colours, moving_camera=not args.static_camera, annotate=False,
                          replays=not args.judge_replays,
                          field=side.get("field", {}), window=window)
    try:
        if "detector" not in shared:
            from vision.detect import Detector
            shared["detector"] = Detector(args.model, class_map=class_map, conf=args.conf, runtime=args.runtime,
                                          ball_model="none", number_model="none")
        with frame_progress(video, args.quiet) as progress:
            found = scan(video, opts, detector=shared["detector"], progress=progress, rate=args.rate,
                         across_cuts=not args.stop_at_cut)
    except AnalyzeError as exc:
        raise UserError(str(exc)) from None
    except (VideoError, CalibrationError, ModelError, SettingsError) as exc:
        raise UserError(str(exc)) from None
    except FileNotFoundError as exc:
        raise UserError(f"file not found: {exc.filename or exc}") from None
    entries = sidecar_entries(found.lineups, found.calibrations)
    if args.after_goals:
        for k, entry in enumerate(entries):         # ends change after every goal
            entry["defending"] = {t: (e if k % 2 == 0 else ("north" if e == "south" else "south"))
                                  for t, e in defending.items()}
    if args.json:                                   # printed by run(): one object, or a list of them
        shared.setdefault("json", []).append({
            "video": str(video), "stride": found.stride, "frames_looked": found.frames_looked,
            "camera_cut": found.camera_cut, "shots": found.shots, "seconds": round(found.seconds, 2),
            "lineups": [{**lu.to_dict(), "sides_seen": s} for lu, s in zip(found.lineups, found.sides)],
            "throw_ins": entries})
    else:
        print(f"{video}: {len(found.lineups)} line-up(s) in {found.duration_s:.1f} s of footage "
              f"({found.frames_looked} frames looked at, every {found.stride}; {found.seconds:.1f} s)")
        for k, (lu, s) in enumerate(zip(found.lineups, found.sides), 1):
            seen = f"; south of the line: {s['south']}, north: {s['north']}" if s else ""
            print(f"  {k}. line-up {clock(lu.start_s)}-{clock(lu.end_s)} ({lu.players} players placed at most)"
                  f" → judge {clock(lu.window_start_s)}-{clock(lu.window_end_s)}{seen}")
        if found.shots and len(found.shots) > 1:
            seen = {"calibrated": "the calibrated view", "found again": "the calibrated camera found again",
                    "other": "another shot, not scanned"}
            print("  shots: " + "; ".join(f"{clock(s['start_s'])}-{clock(s['end_s'])} {seen[s['view']]}"
                                          + (" (a replay of footage scanned)" if s.get("replay") else "")
                                          for s in found.shots))
        if found.camera_cut:
            why = ("(the calibration holds for one shot)" if args.stop_at_cut else
                   "and the calibrated camera's view was not seen again after it")
            what = "a replay" if found.camera_cut.get("replay") else "a camera cut"
            print(f"warning: the scan stopped at {what} at {clock(found.camera_cut['t'])} {why}: "
                  "line-ups after it were not looked for")
    if args.write:
        say = sys.stderr if args.json else sys.stdout       # --json: stdout holds the JSON alone
        if not entries:
            print("no line-up found: the sidecar is left as it is", file=say)
            return 0
        try:
            path = write_throw_ins(video, entries, replace=args.replace)
        except SidecarError as exc:
            raise UserError(str(exc)) from None
        check = "" if args.after_goals else " check each one's `defending` (the ends change after every goal), then"
        print(f"wrote {len(entries)} throw-in(s) to {path}:{check} judge them with "
              f"`polo-lineup batch {Path(video).parent} --out OUT`", file=say)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("find-throw-ins", help="find the line-ups of a whole recording (a chukker, a game)",
                       description="Run the detector and tracker over a recording at a few frames a second and "
                                   "list where the teams line up at the centre: each line-up, with the part of the "
                                   "recording to judge (from when it is seen formed to 10 s after it breaks up "
                                   "at the throw-in). After a camera cut the calibrated camera is looked for "
                                   "again and the scan goes on where it is seen (each throw-in after a cut "
                                   "gets its own calibration). --write puts them into the clip's sidecar as throw_ins, which "
                                   "`polo-lineup batch` judges one by one. Calibration, field and team colours "
                                   "come from the sidecar as for analyze.")
    p.add_argument("video", nargs="+", help="the recording(s) (any format OpenCV reads; several: the detector is "
                   "loaded once, a failing one is said and the others go on, exit status 1)")
    p.add_argument("--calibration", default=None,
                   help="calibration JSON (default: the sidecar's, else calibration.json beside the video)")
    p.add_argument("--defending", default=None,
                   help="the two teams, e.g. red=south,blue=north: names them (and, as colour words, hints "
                        "their colours) so the output says which side each stood on; nothing is judged")
    p.add_argument("--team-colours", default=None, help="jersey colour hints, e.g. red=#c02020,blue=#2040c0")
    p.add_argument("--start", default=None, metavar="TIME", help="scan from this time on (seconds, m:ss, h:mm:ss)")
    p.add_argument("--end", default=None, metavar="TIME", help="scan up to this time (default: the end)")
    p.add_argument("--rate", type=float, default=5.0,
                   help="frames a second to look at (default: %(default)s; every frame of a 25/s video: 25)")
    p.add_argument("--model", default=None, help="detector weights (default: models/polo-yolo.pt)")
    p.add_argument("--runtime", choices=("auto", "torch", "onnx", "openvino"), default="auto",
                   help="detector runtime (as for analyze)")
    p.add_argument("--class-map", default=None, help="map other weights' class names to ours (as for analyze)")
    p.add_argument("--conf", type=float, default=0.3, help="detection confidence threshold (default: %(default)s)")
    p.add_argument("--static-camera", action="store_true", help="the camera does not move: skip motion tracking")
    p.add_argument("--stop-at-cut", action="store_true",
                   help="stop at the first camera cut (default: after a cut, look for the calibrated camera's view "
                        "again, matching frames against views of it seen so far, and scan on from there: a "
                        "broadcast's cutaways to replays or close-ups are skipped)")
    p.add_argument("--judge-replays", action="store_true",
                   help="scan a replay of the calibrated camera's own footage as live (default: a replay, told by "
                        "frames that repeat footage already scanned, is skipped as another shot is: a throw-in "
                        "replayed is not found twice)")
    p.add_argument("--json", action="store_true", help="print the line-ups found as JSON")
    p.add_argument("--write", action="store_true",
                   help="write them into the clip's sidecar (CLIP.polo.json) as throw_ins, for batch")
    p.add_argument("--after-goals", action="store_true",
                   help="with --write: every line-up after the first follows a goal, so write each throw-in's "
                        "defending, the ends changed from the one before (the first: --defending or the sidecar's)")
    p.add_argument("--replace", action="store_true",
                   help="with --write: replace the sidecar's throw_ins (or start, end, throw_in_frame)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
