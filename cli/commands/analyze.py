"""`polo-lineup analyze VIDEO`: Rule 20 verdicts, reports and an annotated clip for one clip."""
from __future__ import annotations

import argparse

from cli.errors import UserError
from cli.options import add_detection_options, frame_progress


def parse_defending(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(","):
        team, _, end = part.partition("=")
        if not team or end not in ("south", "north"):
            raise UserError(f"--defending: expected TEAM=south,TEAM=north, got {text!r}")
        out[team.strip()] = end
    if len(out) != 2 or set(out.values()) != {"south", "north"}:
        raise UserError("--defending: name two teams, one defending south and one north")
    return out


def parse_colours(text: str | None) -> dict[str, tuple[int, int, int]] | None:
    """'red=#d02020,blue=#2040c0' → BGR tuples per team."""
    if not text:
        return None
    out = {}
    for part in text.split(","):
        team, _, hexcol = part.partition("=")
        hexcol = hexcol.strip().lstrip("#")
        if len(hexcol) != 6:
            raise UserError(f"--team-colours: expected TEAM=#RRGGBB, got {part!r}")
        try:
            r, g, b = (int(hexcol[i:i + 2], 16) for i in (0, 2, 4))
        except ValueError:
            raise UserError(f"--team-colours: {hexcol!r} is not a hex colour") from None
        out[team.strip()] = (b, g, r)
    return out


def defending_setting(text: str | None, side: dict) -> dict[str, str] | None:
    """Which goal each team defends: --defending's text, else the sidecar's (both checked),
    else None."""
    if text:
        return parse_defending(text)
    if "defending" in side:
        return parse_defending(",".join(f"{k}={v}" for k, v in side["defending"].items()))
    return None


def colours_setting(text: str | None, side: dict, defending: dict[str, str]) -> dict | None:
    """Jersey colour hints: --team-colours', else the sidecar's; they must name the teams of `defending`."""
    colours = parse_colours(text) or side.get("team_colours")
    if colours and set(colours) != set(defending):
        raise UserError("the team colours must name the same two teams as --defending")
    return colours


def run(args: argparse.Namespace) -> int:
    from reports.writers import console_summary, write_reports
    from vision.analyze_job import AnalyzeError, analyze_to_folder
    from vision.pipeline import AnalyzeOptions, check_settings

    from vision.detect import ModelError, parse_class_map
    from vision.sidecar import SidecarError, hidden_horses_setting, load_sidecar, window_setting
    try:
        side = load_sidecar(args.video)
        class_map = parse_class_map(args.class_map)
        window = window_setting(args.start, args.end, side)
    except (SidecarError, ModelError) as exc:
        raise UserError(str(exc)) from None
    except ValueError as exc:
        raise UserError(f"--start/--end: {exc}") from None
    if window is None and "throw_ins" in side:
        raise UserError(f"{side['_path']} lists {len(side['throw_ins'])} throw-ins: give --start and --end for one "
                        "of them, or judge them all with `polo-lineup batch`")
    defending = defending_setting(args.defending, side)
    if defending is None:
        raise UserError("say which goal each team defends: --defending red=south,blue=north (or a sidecar file)")
    colours = colours_setting(args.team_colours, side, defending)
    try:
        check_settings(args.stride, args.min_run, args.margin_sigmas)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    opts = AnalyzeOptions(defending=defending, calibration=args.calibration or side.get("calibration"),
                          model=args.model, class_map=class_map, imgsz=args.imgsz, runtime=args.runtime, ball_model=args.ball_model,
                          ball_motion=not args.no_ball_motion, kind_model=args.kind_model,
                          refine_model=args.refine_model, number_model=args.number_model, conf=args.conf,
                          stride=args.stride, team_colours=colours,
                          throw_in_frame=args.throw_in_frame if args.throw_in_frame is not None
                          else side.get("throw_in_frame"),
                          min_run=args.min_run, margin_sigmas=args.margin_sigmas, track_space=args.track_space,
                          hidden_horses=hidden_horses_setting(args.hidden_horses, side),
                          moving_camera=not args.static_camera, annotate=not args.no_video,
                          across_cuts=not args.stop_at_cut, replays=not args.judge_replays, replay_memory_s=max(0.0, args.replay_memory), frame_memory_mb=args.frame_memory_mb,
                          field=side.get("field", {}), window=window)
    try:
        with frame_progress(args.video, args.quiet) as progress:
            report, written = analyze_to_folder(args.video, args.out, opts, progress=progress)
    except AnalyzeError as exc:
        raise UserError(str(exc)) from None
    print(console_summary(report))
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyze", help="check the throw-in line-ups of a clip against Rule 20",
                       description="Detect, track and locate players and umpires, judge every frame against "
                                   "Rule 20, and write report.json, report.csv and annotated.mp4 to --out. "
                                   "Settings may come from a sidecar next to the video (CLIP.polo.json or "
                                   "polo.json: defending, calibration, team_colours, throw_in_frame, field, start, end); "
                                   "options given here win.")
    p.add_argument("video", help="the clip (any format OpenCV reads)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--defending", default=None,
                   help="goal each team defends, e.g. red=south,blue=north (default: from the sidecar file)")
    p.add_argument("--calibration", default=None,
                   help="calibration JSON (pixel ↔ field points; default: calibration.json beside the video)")
    add_detection_options(p)
    p.add_argument("--team-colours", default=None, help="jersey colour hints, e.g. red=#c02020,blue=#2040c0 "
                   "(default: team names that are colour words are used as hints)")
    p.add_argument("--throw-in-frame", type=int, default=None,
                   help="override the detected throw-in frame (the video's frame number)")
    p.add_argument("--start", default=None, metavar="TIME",
                   help="analyse from this time of the video on (seconds, m:ss or h:mm:ss; one throw-in of a "
                        "longer recording); report.json keeps the video's own frame numbers and times")
    p.add_argument("--end", default=None, metavar="TIME", help="analyse up to this time (default: the end)")
    p.add_argument("--static-camera", action="store_true", help="the camera does not move: skip motion tracking")
    p.add_argument("--stop-at-cut", action="store_true",
                   help="end the analysis at the first camera cut (default: skip a cutaway to another shot where the "
                        "calibrated camera is seen again; its frames are not judged)")
    p.add_argument("--judge-replays", action="store_true",
                   help="judge a replay of the calibrated camera's own footage as live (default: a replay, told by "
                        "frames that repeat footage already seen, is skipped as a cutaway is)")
    p.add_argument("--replay-memory", type=float, default=60.0, metavar="SECONDS",
                   help="with --start: remember this much footage before the part analysed, to tell a replay of it "
                        "(the goal replayed while the teams line up; default: %(default)s; 0: none)")
    p.add_argument("--no-video", action="store_true", help="write the reports only, no annotated.mp4")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
