"""`analyze`: a clip → Rule 20 verdicts per frame, violation events, reports and an annotated clip.

    video → vision.observe (detect, pair, track, vote, map to yards)
          → identities by vote, positions smoothed → vision.phase (throw-in)
          → rules.check_batch (verdicts) → rules.events (flagged violations)
          → reports (JSON, CSV) and vision.draw (annotated.mp4)
"""
from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from reports.coverage import PLAYERS_PER_TEAM, line_up_coverage
from reports.writers import shirt_name
from rules import Field, FrameBatch, Thresholds, check_batch
from rules.checks import before_throw_in, line_up_judged
from rules.events import PLAY_CODES, to_check_events, violation_events
from vision import phase as phase_mod
from vision.ball import BallFollower
from vision.ball_motion import MotionBallFinder
from vision.errors import SettingsError, VideoError
from vision.frame_rate import scaled_frames
from vision.shirt_numbers import name_events, resolve_clashes, track_reads, vote_numbers
from vision.frame_store import DEFAULT_BUDGET_MB, FrameStore
from vision.homography import calibrate, for_frame_size
from vision.identity_doubt import WINDOW_S, withhold_doubtful
from vision.observe import FrameObs, Observer, umpire_class_known
from vision.openvino_cpu import precision_name
from vision.plays import detect_plays
from vision.rejoin import rejoin_cut_parts
from vision.relocate import MAX_CUTAWAY_S, KeyViews, next_search_t
from vision.replays import Repeat, ReplayWatch
from vision.roster import limit_roster
from vision.scene_cuts import CutDetector
from vision.swaps import exchange_by_motion, exchange_swaps, named_looks, split_swaps
from vision.positions import (fill_gaps, fill_speeds, hidden_edge_px, hidden_share, largest_sigma, moving_ground,
                              position_cov, smooth_tracks)
from vision.teams import UMPIRE, IdentityVoter
from vision.tracking import UnitTracker
from vision.video_io import Window, open_video, prefetch

COLOUR_WORDS = {"red": (40, 40, 210), "blue": (200, 90, 30), "white": (235, 235, 235), "black": (25, 25, 25),
                "yellow": (30, 220, 230), "green": (40, 160, 40), "navy": (90, 40, 20), "orange": (20, 140, 250),
                "purple": (140, 40, 120), "pink": (180, 120, 240), "maroon": (40, 20, 120), "sky": (230, 190, 120)}


@dataclass
class AnalyzeOptions:
    defending: dict[str, str]                        # team → "south"/"north"
    calibration: str | Path | dict | None = None     # default: calibration.json beside the video
    model: str | None = None                         # default: models/polo-yolo.pt
    class_map: dict[str, str] | None = None
    imgsz: int | None = None
    runtime: str = "auto"                  # detector runtime (vision.detect.RUNTIMES)
    ball_model: str | None = "auto"        # ball stage (vision.ball): "auto" the shipped one, "none", or a path
    ball_motion: bool = True               # the thrown ball from motion (vision.ball_motion)
    kind_model: str | None = "auto"        # rider/umpire classifier (vision.person_kind): "auto", "none", or a path
    number_model: str | None = "auto"      # shirt-number reader (vision.shirt_numbers): "auto", "none", or a path
    refine_model: str | None = "auto"      # box refiner (vision.box_refine): "auto", "none", or a path
    conf: float = 0.3
    stride: int = 1                                  # analyse every Nth frame
    team_colours: dict[str, tuple[int, int, int]] | None = None   # BGR hints per team
    throw_in_frame: int | None = None                # override the detected throw-in
    min_run: int = 3                                 # frames a violation must hold to be an event
    margin_sigmas: float = 1.0                       # a finding must hold by this many sigmas of position uncertainty
    speed_margin_sigmas: float = 2.0                 # the same for closing speeds (rushing)
    smooth_window: int = 7
    min_track_frames: int = 5
    max_gap_s: float = 1.0                           # bridge a track's occlusions up to this long
    track_space: str = "field"                       # vision.tracking.SPACES: track in yards or in pixels
    split_swaps: bool = True                         # exchange ids back / cut tracks whose looks change team (vision.swaps)
    hidden_horses: bool = True                       # a rider whose horse is hidden is a unit (vision.players)
    moving_camera: bool = True                       # follow pan/zoom from the field itself
    window: Window | None = None                     # analyse only this part of the video (times in the source's seconds)
    across_cuts: bool = True                         # skip a cutaway to another shot where the calibrated camera is seen again
    replays: bool = True                             # skip a replay of the calibrated camera's footage (vision.replays)
    replay_memory_s: float = 60.0                    # a window: remember this much footage before it, to tell its replays
    annotate: bool = True
    frame_memory_mb: float = DEFAULT_BUDGET_MB       # decoded frames kept for the annotated clip (vision.frame_store)
    field: dict = field(default_factory=dict)        # length_yd / width_yd overrides




@dataclass
class _Away:
    frame: int               # the cut
    t: float
    next_t: float = -np.inf  # when to match a frame against the key views next (vision.relocate.next_search_t)
    replay: Repeat | None = None   # a replay of the calibrated camera's footage seen (vision.replays) ...
    in_replay: bool = False        # ... and on now (until a frame repeats nothing seen, or a cut)


def _replay_record(rep: Repeat | None) -> dict:
    """report.json's account of a replay skipped (in a cutaway's or camera cut's record)."""
    if rep is None:
        return {}
    return {"replay": {"frame": rep.index, "t": round(rep.t, 3), "repeats_frame": rep.of_index,
                       "repeats_t": round(rep.of_t, 3)}}


def remember_before(video: Path, window: Window | None, watch: ReplayWatch, memory_s: float) -> dict | None:
    """A window's replays may show what came before it (the goal, replayed while the teams line
    up): `watch` is shown the `memory_s` of footage before the window (decoded, thumbnails only:
    ~1.4 ms a 720p frame, 2 s for 60 s of footage). Returns what was remembered (None: nothing
    before the window, or unreadable: then only the window's own footage is known)."""
    if window is None or window.start_s <= 0 or memory_s <= 0:
        return None
    first = max(0.0, window.start_s - memory_s)
    n = 0
    try:
        with open_video(video, window=Window(first, window.start_s)) as reader:
            for index, t, frame in reader:
                watch.seen.add(int(index), float(t), frame)
                n += 1
    except VideoError:
        return None
    return {"from_s": round(first, 3), "frames": n}


def _cut_record(away: _Away) -> dict:
    return {"frame": away.frame, "t": round(away.t, 3), **_replay_record(away.replay)}


@dataclass
class Analysis:
    report: dict
    frames: list                                      # FrameObs
    batch: FrameBatch
    verdict: dict
    events: list[dict]
    track_identity: dict[int, str]
    kept_frames: FrameStore | None = None            # pass one's decoded frames, for the annotated clip


def check_settings(stride: int, min_run: int, margin_sigmas: float) -> None:
    """ValueError (one line, naming the option) for settings `analyze` and `batch` cannot use."""
    if stride < 1 or min_run < 1:
        raise ValueError("--stride and --min-run must be at least 1")
    if not 0 <= margin_sigmas <= 10:
        raise ValueError("--margin-sigmas must be in [0, 10]")


def team_hints(opts: AnalyzeOptions) -> dict[str, tuple[int, int, int]] | None:
    """Colour hints: given ones, else team names that are colour words (e.g. red, blue)."""
    if opts.team_colours:
        return dict(opts.team_colours)
    teams = list(opts.defending)
    if all(t.lower() in COLOUR_WORDS for t in teams):
        return {t: COLOUR_WORDS[t.lower()] for t in teams}
    return None


def _identities(voter: IdentityVoter, tids: list[int], xy: np.ndarray, lineup: np.ndarray,
                defending: dict[str, str], centre_x: float, named: bool,
                rider_less: dict[int, list] | None = None) -> dict[int, str]:
    """Each track's identity by the voter; a track no rider's look spoke for takes the team its
    horse's rider-less looks vote for (`rider_less`: track id → colour features; vision.observe)."""
    ident = {tid: voter.identity(tid) for tid in tids}
    for tid, looks in (rider_less or {}).items():
        if tid in ident and ident[tid] is None and not voter.observations(tid):
            ident[tid] = voter.team_of(looks)
    if named:
        return {k: v for k, v in ident.items() if v}
    # Unnamed clusters: each goes to the team whose own half most of its riders stand in
    # at the line-up. (Without colour hints a reversed line-up cannot be told from a correct one.)
    side = {}
    for k, tid in enumerate(tids):
        if ident[tid] in (None, UMPIRE):
            continue
        xs = xy[k, lineup, 0]
        xs = xs[~np.isnan(xs)]
        if len(xs):
            side.setdefault(ident[tid], []).append(np.median(xs) - centre_x)
    south_team = next(t for t, e in defending.items() if e == "south")
    north_team = next(t for t, e in defending.items() if e == "north")
    mapping = {}
    if side:
        means = {c: np.mean(v) for c, v in side.items()}
        first = min(means, key=means.get)            # most southern cluster
        mapping[first] = south_team
        for c in means:
            if c != first:
                mapping[c] = north_team
    return {tid: (UMPIRE if v == UMPIRE else mapping.get(v)) for tid, v in ident.items()
            if v == UMPIRE or mapping.get(v)}


def analyze(video: str | Path, opts: AnalyzeOptions, detector=None,
            progress: Callable[[int, int], None] | None = None,
            on_frame: Callable[[FrameObs, np.ndarray], None] | None = None, one_shot: bool = False,
            replays: ReplayWatch | None = None) -> Analysis:
    """Run the pipeline on a clip (no files written; see vision.outputs.write_outputs).
    `on_frame(observation, frame)` is called with each frame observed (vision.relocate.KeyViews
    keeps key views of the shot from it). `one_shot`: end at a camera cut even where
    opts.across_cuts would skip a cutaway (the throw-in scan takes the shots one by one; a
    window's camera lead-in still crosses cutaways as opts.across_cuts says). `replays`: the
    footage seen so far, to tell a replay of it (vision.replays; the throw-in scan keeps one over
    its shots), else a new one when opts.replays."""
    from vision.camera_lead_in import follow_to_window, lead_in_frames
    from vision.camera_motion import CameraMotionTracker
    started = time.perf_counter()
    video = Path(video)
    reader = open_video(video, window=opts.window)
    try:
        _check_override_early(opts.throw_in_frame, reader, opts.window)
    except SettingsError:
        reader.close()
        raise
    cal_src = opts.calibration or video.with_name("calibration.json")
    fit = for_frame_size(calibrate(cal_src if isinstance(cal_src, dict) else str(cal_src)), reader.size)
    # The field's size: the sidecar's "field" when given, else the calibration file's own.
    size = {"length_yd": fit.calibration.length_yd, "width_yd": fit.calibration.width_yd}
    size.update({k: v for k, v in opts.field.items() if k in ("length_yd", "width_yd")})
    fld = Field(**size)
    if detector is None:
        from vision.detect import Detector
        detector = Detector(opts.model, class_map=opts.class_map, imgsz=opts.imgsz, conf=opts.conf,
                            runtime=opts.runtime, ball_model=opts.ball_model, kind_model=opts.kind_model,
                            refine_model=opts.refine_model, number_model=opts.number_model)
    hints = team_hints(opts)
    voter = IdentityVoter(hints=hints, min_separation=8.0)
    fps = reader.fps or 25.0
    camera = CameraMotionTracker(fit.H, reader.size, length=fld.length_yd, width=fld.width_yd) \
        if opts.moving_camera else None
    finder = getattr(detector, "ball_finder", None)
    obs = Observer(detector, voter, UnitTracker(fps=fps / opts.stride, space=opts.track_space), camera, fit.H,
                   detector_knows_umpires=umpire_class_known(detector),
                   # The rider/umpire classifier sees the stripes at full resolution: it alone decides.
                   umpire_cues="detector" if getattr(detector, "kind", None) is not None else "both",
                   ball=BallFollower(finder, fps=fps / opts.stride) if finder is not None else None,
                   motion_ball=MotionBallFinder() if opts.ball_motion else None,
                   hidden_horses=opts.hidden_horses, look_every=scaled_frames(3, fps / opts.stride),
                   person_memory=scaled_frames(25, fps),                 # video frames: 1 s
                   numbers=getattr(detector, "numbers", None) if opts.number_model != "none" else None,
                   read_every=scaled_frames(3, fps / opts.stride))
    total, done = reader.n_window_frames, 0
    # A window starting after the calibrated frame: the camera followed there first (vision.camera_lead_in).
    lead_total = lead_in_frames(fit.calibration.frame, fps, opts.window) if camera is not None else 0
    lead_in = None
    if lead_total:
        lead_in = follow_to_window(video, camera, fit.calibration.frame, fps, opts.window, across_cuts=opts.across_cuts,
                                   progress=(lambda n: progress(min(n, lead_total), lead_total + total))
                                   if progress else None)
    decoded = []                          # the first and last frame decoded, (index, t): a window's bounds
    # Pass two (annotated.mp4) draws on these same frames: keep what fits the budget.
    kept = FrameStore(opts.frame_memory_mb if opts.annotate else 0)
    # Two stages overlap: a background thread decodes and detects frame i+1 (both release
    # the GIL) while this one follows the camera, tracks and describes frame i. The
    # calibration holds for one shot: the analysis stops at the first camera cut (a content
    # jump the camera tracker cannot follow either; vision.scene_cuts).
    # A cut to another shot and back (a broadcast's cutaway) is skipped where the calibrated
    # camera is seen again (vision.relocate: key views kept as the shot is followed; a frame of
    # the other shot tried every 0.2 s, after 2 s every 0.5 s).
    cuts, camera_cut, away, cutaways, catch_up = CutDetector(), None, None, [], False
    keys = KeyViews(reader.size) if camera is not None and opts.across_cuts and not one_shot else None
    # A window that starts on a cut (in a cutaway): its first frame is seen against the last one
    # the lead-in followed, and the calibrated camera is looked for among the views it followed.
    # (A fixed camera has no lead-in: the frame just before the window is decoded for it.)
    before = lead_in.last_image if lead_in is not None else \
        frame_before(video, opts.window, fps) if camera is None else None
    primed = before is not None
    if primed:
        cuts.change(before)
        if keys is not None and lead_in is not None and lead_in.keys is not None:
            keys = lead_in.keys
    # A replay of the calibrated camera's own footage (vision.replays) is skipped as a cutaway is:
    # it shows the past. Seen without a cut (a fixed camera's), the frames observed since it began
    # are taken back; after a cut, a frame where the camera is found again is looked at.
    watch = replays if replays is not None else ReplayWatch(fps) if opts.replays else None
    remembered = remember_before(video, opts.window, watch, opts.replay_memory_s) \
        if replays is None and watch is not None else None
    skip_replays = watch is not None and (keys is not None or camera is None) and not one_shot
    # The detector is not safe to call from two threads at once (an OpenVINO infer request is
    # busy while it runs): the catch-up below and the detection thread take turns.
    detecting = threading.Lock()
    for index, t, frame, det in prefetch(detect_frames(prefetch(kept.keep_all(reader)), detector, opts.stride,
                                                       idle=lambda: away is not None, lock=detecting), depth=2):
        if away is not None:                   # in another shot: the calibrated camera again?
            change = cuts.change(frame)
            if away.in_replay and change is not None and change > cuts.threshold:
                away.in_replay = False         # a cut ends the replay: the next view found is looked at anew
            if t - away.t > MAX_CUTAWAY_S:
                camera_cut = _cut_record(away)
                break
            if t >= away.next_t and index % opts.stride == 0:
                away.next_t = next_search_t(away.t, t)
                locate = keys.library.locate if camera is not None else (lambda _f: obs.H0)    # a fixed camera: there
                if watch is None:
                    found = locate(frame)
                else:
                    found, seen_as, rep = watch.found_again(frame, int(index), float(t), away.t, away.in_replay, locate)
                    if seen_as in ("replay", "suspect"):   # a replay, or maybe one: looked at again soon
                        away.in_replay, away.replay = seen_as == "replay", away.replay or rep
                        away.next_t = watch.next_look(t) if seen_as == "suspect" else away.next_t
                if found is not None:
                    if camera is not None:
                        camera.reset(found.H)          # restarts on this frame, observed below
                    cutaways.append({"cut_frame": away.frame, "cut_t": round(away.t, 3),
                                     "found_frame": int(index), "found_t": round(float(t), 3),
                                     **_replay_record(away.replay)})
                    if watch is not None:
                        watch.resumed(int(index), float(t))
                    away, catch_up = None, True
        if away is None:
            if catch_up and det is None and index % opts.stride == 0:
                with detecting:                             # queued undetected while another shot was on
                    det = detect_one(detector, frame, index)
            elif det is not None:
                catch_up = False                            # the detection thread has caught up
            jumped = cuts.jumped(frame)
            if det is not None or jumped:
                step = None
                if jumped and camera is not None:
                    step = camera.update(frame, exclude_boxes=det.xyxy if det is not None else None)
                if jumped and (camera is None or not step.ok) and (obs.frames or primed):
                    if keys is not None and len(keys.library):
                        keys.close_shot()
                        away = _Away(int(index), float(t))
                    else:
                        camera_cut = {"frame": int(index), "t": round(float(t), 3)}
                        break
                elif det is not None:
                    seen = obs.observe(index, t, frame, det, step)
                    if keys is not None:
                        keys.offer_seen(seen, frame)
                    if on_frame is not None:
                        on_frame(seen, frame)
            rep = watch.followed(int(index), float(t), frame) if watch is not None and away is None else None
            if rep is not None:                # a replay began at watch.start, after the last look that found none
                first = obs.forget_after(watch.start[0] - 1)
                start = (first.index, first.t) if first is not None else (int(index), float(t))
                if not skip_replays:           # one shot a call (the scan), or no camera to find again
                    camera_cut = {"frame": start[0], "t": round(start[1], 3), **_replay_record(rep)}
                    break
                if keys is not None:
                    keys.close_shot()
                away = _Away(start[0], start[1], replay=rep, in_replay=True)
        done += 1
        decoded[1:] = [(int(index), round(float(t), 4))]
        if progress:
            progress(lead_total + done, lead_total + max(total, done))
    reader.close()
    if away is not None:                       # the calibrated camera was not seen again
        camera_cut = _cut_record(away)
    frames = obs.frames
    if not frames and camera_cut is not None:     # the window opened on another shot, never left
        raise SettingsError(
            f"the part to analyse ({opts.window.describe() if opts.window else 'the video'}) starts on a camera cut "
            f"at frame {camera_cut['frame']} ({camera_cut['t']:.2f} s): another shot, and the calibrated camera's view "
            f"was not seen in it; start the part where that camera is on, or calibrate that shot")
    F = len(frames)
    t = np.array([f.t for f in frames])
    max_gap = int(round(opts.max_gap_s * fps / opts.stride))
    exchanges, moved, swaps, rejoined = [], [], [], []
    if opts.split_swaps:
        exchanges = exchange_swaps(frames, voter, obs.looks)
        moved = exchange_by_motion(frames, voter, obs.looks)
        swaps = split_swaps(frames, voter, obs.looks)
        # A cut part meets the track it continues on the places the positions stage gives
        # (gait, heads): raw, a box cut short can put a track yards from its horse (session 29).
        if swaps:
            with _placed_in_frames(frames, t, opts.min_track_frames, max_gap, opts.smooth_window):
                rejoined = rejoin_cut_parts(frames, voter, obs.looks, swaps)

    # Tracks seen long enough, their raw positions (T, F, 2) and uncertainty.
    tids, raw, boxes, persons, inferred = _track_arrays(frames, opts.min_track_frames)
    raw, hidden = _placed(raw, boxes, persons, inferred, frames, t, max_gap, opts.smooth_window)
    raw, interpolated = fill_gaps(raw, max_gap)
    xy = smooth_tracks(raw, opts.smooth_window)
    # Each position's uncertainty, by direction: a camera sees across its view far better
    # than in depth, so a side (across the centre line) or a gap between two riders abreast
    # can be sure where a distance towards the camera is not. Interpolated positions are less
    # sure: the gap's straight-line guess counts one more yard each way; so are those whose
    # box's bottom edge is hidden by a horse in front (the edge is the detector's guess).
    cov = position_cov(raw, xy, [f.H for f in frames], interpolated, opts.smooth_window,
                       edge_px=hidden_edge_px(boxes, hidden))

    # Who is who: umpire / team by vote over the whole clip.
    ump_rows = [k for k, tid in enumerate(tids) if voter.is_umpire(tid)]
    ump_boxes = boxes[ump_rows] if ump_rows else np.full((0, F, 4), np.nan)
    ball = np.array([f.ball_yd if f.ball_yd is not None else (np.nan, np.nan) for f in frames]).reshape(F, 2)
    ball_px = np.array([f.ball_px if f.ball_px is not None else (np.nan, np.nan) for f in frames]).reshape(F, 2)
    player_rows = [k for k in range(len(tids)) if k not in ump_rows]
    throw = phase_mod.detect_throw_in(t, xy[player_rows], ball_px, ump_boxes,
                                      override=_override_index(opts.throw_in_frame, frames))
    ph = phase_mod.phases(F, throw)
    identity = _identities(voter, tids, xy, ph == 0, opts.defending, fld.centre_x, hints is not None,
                           track_reads(obs.rider_less_looks, frames))
    identity, xy, roster = limit_roster(identity, tids, xy, list(opts.defending), fld.length_yd, fld.width_yd,
                                           max_per_team=PLAYERS_PER_TEAM, umpire_label=UMPIRE, guessed=interpolated)

    # Shirt numbers: each team player's track by vote over its reads (vision.shirt_numbers).
    votes = vote_numbers({tid: r for tid, r in track_reads(obs.number_reads, frames).items()
                          if identity.get(tid) in opts.defending})
    followed_twice = resolve_clashes(votes, identity, {tid: np.flatnonzero(~np.isnan(xy[k, :, 0]))
                                                       for k, tid in enumerate(tids)})
    named, shirts = {}, {}                  # player id → his number; → "Red #2"
    for tid, v in votes.items():
        if v.number is not None:
            pid = player_id(identity[tid], tid)
            named[pid], shirts[pid] = v.number, shirt_name(identity[tid], v.number)

    batch = _batch(fld, opts.defending, tids, identity, xy, t, ph, ball, cov, interpolated)
    unseen_hits: set[int] = set()                     # plays on a hit the ball stage did not see
    batch.play = detect_plays(t, batch.players, ball, ph, centre_x=fld.centre_x, unseen_hits=unseen_hits)
    thresholds = Thresholds(margin_sigmas=opts.margin_sigmas, speed_margin_sigmas=opts.speed_margin_sigmas)
    verdict = check_batch(batch, thresholds)
    for k, fr in enumerate(verdict["frames"]):
        fr["index"] = frames[k].index
    events = violation_events(verdict["frames"], min_run=opts.min_run, max_gap=max(1, 2 // opts.stride))
    # A side-of-the-line verdict on a track whose looks at the time name the other team is withheld.
    events, withheld = withhold_doubtful(
        events, verdict["frames"], named_looks(obs.looks, voter, clear_only=True),
        track_of={player_id(identity[tid], tid): tid for tid in tids if identity.get(tid) not in (None, UMPIRE)},
        cluster_of={tid: voter.identity(tid) for tid in tids}, pos_of={f.index: k for k, f in enumerate(frames)},
        window=max(1, int(round(WINDOW_S * fps / opts.stride))))
    # Findings within their uncertainty, for a reviewer (not violations; rules.events).
    to_check = to_check_events(verdict["frames"], events + withheld, min_run=opts.min_run,
                               max_gap=max(1, 2 // opts.stride))
    times = {f.index: f.t for f in frames}
    unseen_at = {frames[fi].index for fi in unseen_hits}
    for ev in events + withheld + to_check:
        ev["start_s"], ev["end_s"] = times[ev["start_frame"]], times[ev["end_frame"]]
        if ev["code"] in PLAY_CODES and ev["start_frame"] in unseen_at:
            ev["hit_seen"] = False                    # the play's hit was placed from the ball's flight

    name_events(events + withheld + to_check, shirts)
    report = _report(video, opts, fit, frames, tids, identity, xy, cov, boxes, inferred, ph, throw, verdict,
                     events, fps, time.perf_counter() - started, batch, unseen_hits)
    for rec in report["tracks"]:
        v = votes.get(rec["track_id"])
        rec.update({"number": v.number, "number_reads": v.reads, "number_agree": v.agree} if v is not None
                   else {"number": None, "number_reads": 0, "number_agree": 0.0})
        if v is not None and v.clash:
            rec["number_clash"] = v.clash
    report["shirt_numbers"] = {"reader": str(obs.numbers.path) if obs.numbers is not None else None,
                               "reads": len(obs.number_reads),
                               "named": named,
                               # tracks of one team and number never on the field together: one player
                               "same_player": [[player_id(identity[tid], tid) for tid in g] for g in followed_twice]}
    report["roster"] = {"off_field_tracks": roster.outside, "frames_with_too_many_players": roster.masked_frames,
                        "positions_masked": roster.masked_positions,
                        "positions_doubled": roster.doubled_positions}
    report["events_withheld"] = withheld
    report["events_to_check"] = to_check
    report["coverage"] = line_up_coverage(report["frames"], list(opts.defending), PLAYERS_PER_TEAM)
    # Line-up frames the rules left unjudged: no umpire positioned yet (rules.checks.umpire_positioned).
    waiting = before_throw_in(batch) & ~line_up_judged(batch, thresholds.umpire_still_yds)
    report["umpire_not_positioned"] = frame_runs(frames, waiting)
    report["tracks_exchanged"] = [{"track_ids": [a, b], "frame": frames[p].index, "by": by}
                                  for by, done in (("looks", exchanges), ("motion", moved)) for a, b, p in done]
    report["tracks_cut_at_team_change"] = [{"track_id": a, "new_track_id": b, "frame": frames[p].index}
                                           for a, b, p in swaps]
    report["tracks_rejoined"] = [{"track_id": part, "joined_to": tid, "frame": frames[p].index,
                                  "lost_id_later": later} for part, tid, p, later in rejoined]
    report["detector"] = {"model": str(getattr(detector, "path", None)), "runtime": getattr(detector, "runtime", None),
                          "openvino_precision": precision_name()}
    report["camera"] = camera.summary() if camera is not None else None   # None: a fixed calibration
    report["camera_cut"] = camera_cut
    report["cutaways"] = cutaways
    report["replays"] = None if watch is None else {     # what a replay is told against (vision.replays)
        "found": len(watch.found), "remembered_before_window": remembered}
    report["camera_lead_in"] = lead_in.to_dict() if lead_in is not None else None
    report["window"] = None if opts.window is None else {    # the frames decoded (analysed: `stride`)
        "start_s": opts.window.start_s, "end_s": opts.window.end_s, "first_frame": decoded[0][0],
        "first_t": decoded[0][1], "last_frame": decoded[-1][0]}
    report["ball"] = {"stage": str(finder.path) if finder is not None else None,
                      "frames_seen": int(np.sum(~np.isnan(ball_px[:, 0]))),
                      "stage_looks": int(obs.ball.looks) if obs.ball is not None else 0,
                      "motion_sightings": int(obs.motion_ball.sightings) if obs.motion_ball is not None else 0}
    return Analysis(report, frames, batch, verdict, events, {tids[k]: identity.get(tids[k]) for k in range(len(tids))},
                    kept)


def frame_before(video: Path, window: Window | None, fps: float) -> np.ndarray | None:
    """The last frame before `window` starts (None: it starts the video, or none can be read)."""
    if window is None or window.start_s <= 0 or fps <= 0:
        return None
    last = None
    try:
        with open_video(video, window=Window(max(0.0, window.start_s - 2.0 / fps), window.start_s)) as reader:
            for _i, _t, frame in reader:
                last = frame
    except VideoError:
        return None
    return last


def frame_runs(frames: list, mask: np.ndarray) -> list[dict]:
    """Runs of consecutive analysed frames (FrameObs) where `mask` (one bool a frame) holds:
    [{"start_frame", "end_frame", "start_t", "end_t"}]."""
    runs: list[dict] = []
    last = None
    for k in np.flatnonzero(mask):
        f = frames[k]
        if last is not None and k == last + 1:
            runs[-1].update(end_frame=int(f.index), end_t=round(float(f.t), 3))
        else:
            runs.append({"start_frame": int(f.index), "end_frame": int(f.index),
                         "start_t": round(float(f.t), 3), "end_t": round(float(f.t), 3)})
        last = k
    return runs


def detect_frames(frames, detector, stride: int = 1, idle=None, lock=None):
    """(index, t, frame, detections or None when the stride skips the frame) per frame; none
    either while `idle()` says so (another shot is on: nothing would be observed). `lock`: held
    while the detector runs, when another thread may call it too."""
    lock = lock if lock is not None else contextlib.nullcontext()
    for index, t, frame in frames:
        det = None
        if index % stride == 0 and not (idle is not None and idle()):
            with lock:
                det = detect_one(detector, frame, index)
        yield index, t, frame, det


def detect_one(detector, frame, index: int):
    return detector(frame, index=index) if getattr(detector, "wants_index", False) else detector(frame)


def _track_arrays(frames: list, min_frames: int):
    """The tracks seen in at least `min_frames` frames (their ids, sorted) and, per track and
    frame, the raw field position (T, F, 2), horse box and rider box (T, F, 4; NaN where not
    seen) and whether the horse box was implied by its rider's (T, F)."""
    counts: dict[int, int] = {}
    for f in frames:
        for tid in f.track_ids[f.track_ids >= 0]:
            counts[int(tid)] = counts.get(int(tid), 0) + 1
    tids = sorted(k for k, n in counts.items() if n >= min_frames)
    col = {tid: k for k, tid in enumerate(tids)}
    F = len(frames)
    raw = np.full((len(tids), F, 2), np.nan)
    boxes = np.full((len(tids), F, 4), np.nan)
    persons = np.full((len(tids), F, 4), np.nan)
    inferred = np.zeros((len(tids), F))
    for fi, f in enumerate(frames):
        for k, tid in enumerate(f.track_ids):
            if int(tid) in col:
                raw[col[int(tid)], fi] = f.field_yd[k]
                boxes[col[int(tid)], fi] = f.horse_xyxy[k]
                persons[col[int(tid)], fi] = f.person_xyxy[k]
                if f.inferred is not None:
                    inferred[col[int(tid)], fi] = f.inferred[k]
    return tids, raw, boxes, persons, inferred


def _placed(raw: np.ndarray, boxes: np.ndarray, persons: np.ndarray, inferred: np.ndarray, frames: list,
            t: np.ndarray, max_gap: int, smooth_window: int) -> tuple[np.ndarray, np.ndarray]:
    """The raw positions placed again (vision.positions.moving_ground) and each box's hidden
    share. A moving horse's box stands higher off the ground than a still one's: each horse is
    placed with the ground point for its speed, measured on a first smoothing (not where its
    bottom edge is hidden by a horse in front: there the edge is a guess, and the ground under
    its rider's head counts as much as the edge is hidden)."""
    first = smooth_tracks(fill_gaps(raw, max_gap)[0], smooth_window)
    speed = fill_speeds(phase_mod.speeds(first, t, phase_mod.SPEED_WINDOW_S))
    hidden = np.maximum(hidden_share(boxes), inferred)     # an implied horse box: wholly a guess
    return moving_ground(raw, boxes, [f.H for f in frames], speed, hidden, persons), hidden


@contextlib.contextmanager
def _placed_in_frames(frames: list, t: np.ndarray, min_frames: int, max_gap: int, smooth_window: int):
    """Inside: each frame's field positions of the tracks seen in `min_frames` frames are those
    _placed gives, with the tracks as they stand now; the raw ones come back on leaving."""
    tids, raw, boxes, persons, inferred = _track_arrays(frames, min_frames)
    placed, _ = _placed(raw, boxes, persons, inferred, frames, t, max_gap, smooth_window)
    col = {tid: k for k, tid in enumerate(tids)}
    kept = [f.field_yd for f in frames]
    try:
        for fi, f in enumerate(frames):
            rows = [(k, col[int(tid)]) for k, tid in enumerate(f.track_ids) if int(tid) in col]
            if rows:
                f.field_yd = f.field_yd.copy()
                for k, r in rows:
                    f.field_yd[k] = placed[r, fi]
        yield
    finally:
        for f, xy in zip(frames, kept):
            f.field_yd = xy


def _check_override_early(frame_index: int | None, reader, window: Window | None) -> None:
    """A throw-in frame far outside the part to analyse, by the container's frame count, is an
    error before anything is decoded (a recording's hour is not analysed to say so at the end).
    The count is the container's estimate (a variable frame rate's can be off), so a frame up to
    5% of the count past either end passes here and is judged on the frames decoded."""
    n, fps = reader.n_window_frames, reader.fps
    if frame_index is None or n <= 0 or fps <= 0:
        return
    first = int(round(window.start_s * fps)) if window is not None else 0
    last = first + n - 1
    slack = max(5, n // 20)
    if not first - slack <= frame_index <= last + slack:
        raise SettingsError(f"the throw-in frame {frame_index} is outside the analysed part of the video "
                            f"(frames {first}-{last}, by the container's frame count)")


def _override_index(frame_index: int | None, frames) -> int | None:
    """A throw-in given as a video frame number → position among the analysed frames; SettingsError
    when it lies outside them (a window, or a clip cut short)."""
    if frame_index is None:
        return None
    idx = np.array([f.index for f in frames])
    if not len(idx) or not idx[0] <= frame_index <= idx[-1]:
        span = f"frames {idx[0]}-{idx[-1]}" if len(idx) else "no frames"
        raise SettingsError(f"the throw-in frame {frame_index} is outside the analysed part of the video ({span})")
    return int(np.argmin(np.abs(idx - frame_index)))


def player_id(team: str, tid: int) -> str:
    """A placed player's id: his team and the analysis's track number, "red-t7". The "t" says
    it is no shirt number: "red-1" read as Red #1 (the renderer's truth names players so)."""
    return f"{team}-t{tid}"


def umpire_id(tid: int) -> str:
    """An umpire's id: "U-t2", the analysis's track number (not "umpire 2" of two)."""
    return f"U-t{tid}"


def _by_frame(a: np.ndarray | None, rows: list[int]) -> np.ndarray | None:
    """Rows `rows` of a per-track array (T, F, ...) as a per-frame one (F, len(rows), ...); None stays None."""
    return None if a is None else np.swapaxes(a[np.asarray(rows, dtype=np.int64)], 0, 1)


def _batch(fld: Field, defending, tids, identity, xy, t, ph, ball, cov=None, unseen=None) -> FrameBatch:
    teams = list(defending)
    prow = [k for k, tid in enumerate(tids) if identity.get(tid) in teams]
    urow = [k for k, tid in enumerate(tids) if identity.get(tid) == UMPIRE]
    players = _by_frame(xy, prow)
    return FrameBatch(field=fld, defending=dict(defending), teams=teams,
                      player_ids=[player_id(identity[tids[k]], tids[k]) for k in prow],
                      player_team=np.array([teams.index(identity[tids[k]]) for k in prow], np.int64),
                      players=players, umpire_ids=[umpire_id(tids[k]) for k in urow], umpires=_by_frame(xy, urow),
                      phase=ph.astype(np.int8), t=t, ball=ball, play=np.full(len(t), -1, np.int64),
                      thrower=np.full(len(t), -1, np.int64), changing_horse=np.zeros(players.shape[:2], bool),
                      player_cov=_by_frame(cov, prow), umpire_cov=_by_frame(cov, urow),
                      player_unseen=_by_frame(unseen, prow))


def _r(v, nd=3):
    return None if v is None or not np.isfinite(v) else round(float(v), nd)


def _report(video, opts, fit, frames, tids, identity, xy, cov, boxes, inferred, ph, throw, verdict, events, fps,
            seconds, batch, unseen_hits=frozenset()):
    from rules.document import PHASES
    sigma = largest_sigma(cov)
    out_frames = []
    for fi, f in enumerate(frames):
        players, umpires = [], []
        for k, tid in enumerate(tids):
            who = identity.get(tid)
            if who is None or np.isnan(xy[k, fi, 0]):
                continue
            rec = {"track_id": tid, "x_yd": _r(xy[k, fi, 0]), "y_yd": _r(xy[k, fi, 1]),
                   "sigma_yd": _r(sigma[k, fi]),
                   "cov_yd2": [_r(cov[k, fi, 0, 0], 4), _r(cov[k, fi, 0, 1], 4), _r(cov[k, fi, 1, 1], 4)],
                   "box_px": None if np.isnan(boxes[k, fi, 0]) else [_r(v, 1) for v in boxes[k, fi]],
                   # the horse box is the one his rider's implies (vision.players: horse hidden)
                   "horse_hidden": bool(inferred[k, fi])}
            if who == UMPIRE:
                umpires.append({"id": umpire_id(tid), **rec})
            else:
                players.append({"id": player_id(who, tid), "team": who, **rec})
        play = {"player": batch.player_ids[batch.play[fi]]} if batch.play[fi] >= 0 else None
        if play is not None and fi in unseen_hits:
            play["hit_seen"] = False
        ball = None if f.ball_px is None else [_r(v, 1) for v in f.ball_px]
        out_frames.append({"index": f.index, "t": round(f.t, 4), "phase": PHASES[ph[fi]], "play": play,
                           "ball_px": ball,
                           "camera_ok": bool(f.camera_ok), "players": players, "umpires": umpires,
                           "violations": verdict["frames"][fi]["violations"], "notes": verdict["frames"][fi]["notes"],
                           "to_check": verdict["frames"][fi].get("to_check", [])})
    by_code: dict[str, int] = {}
    for ev in events:
        by_code[ev["code"]] = by_code.get(ev["code"], 0) + 1
    opt = {k: v for k, v in asdict(opts).items() if k != "calibration" or not isinstance(v, dict)}
    opt = {k: (str(v) if isinstance(v, Path) else v) for k, v in opt.items()}
    return {"version": 1, "video": str(video), "fps": fps, "frames_analysed": len(frames), "options": opt,
            "calibration": {"rms_px": _r(fit.rms_px), "max_px": _r(fit.max_px), "rms_yd": _r(fit.rms_yd),
                            "max_yd": _r(fit.max_yd), "points_used": int(fit.inliers.sum()),
                            "warnings": list(fit.warnings)},
            "throw_in": {"frame": frames[throw.frame].index if throw.frame is not None else None,
                         "t": round(frames[throw.frame].t, 4) if throw.frame is not None else None,
                         "method": throw.method},
            "tracks": [{"track_id": tid, "identity": identity.get(tid)} for tid in tids],
            "events": events, "summary": {"events": len(events), "events_by_code": by_code,
                                          "processing_s": round(seconds, 2)},
            "frames": out_frames}
