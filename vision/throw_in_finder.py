"""Finding the throw-ins of a whole recording: where the teams stand in a line-up.

A chukker's recording holds a throw-in at its start and one after every goal, with minutes
of play between. `analyze` judges one throw-in; this module finds the parts of a recording
worth judging, so that a person need not look for them (`polo-lineup find-throw-ins`, which
writes them into the clip's sidecar as `throw_ins` for `batch`).

    scan: the pipeline on a few frames a second (no ball stage) → players' field positions
    find_lineups: frames where at least MIN_PLAYERS players stand still (slower than
        MAX_SPEED_YDS) within BAND_YD of the centre line, on both sides of it (at least
        MIN_EACH_SIDE each) and within SPREAD_YD of one another along it, or fewer with an
        umpire standing at the line beside them (lineup_counts); runs of such frames
        (gaps up to BRIDGE_S bridged) lasting at least MIN_S are line-ups
    windows: each line-up from PRE_S before it is seen formed to POST_S after it breaks up (the
        throw-in ends it: play follows), cut where it would overlap the next; `analyze
        --start/--end` (or `batch` with the sidecar's throw_ins) then finds the throw-in frame.

A camera cut ends a shot (the calibration holds for one): the scan looks for the calibrated
camera's view again after it (vision.relocate: key views of the shot followed so far) and goes
on from where it is found, skipping a broadcast's cutaways. What it cannot see it cannot find:
a line-up out of the camera's view, or in a shot from another camera.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from vision.phase import SPEED_WINDOW_S, speeds

BAND_YD = 6.0            # a line-up's ranks stand within this of the centre line (the samples: 0.6-2 yd)
SPREAD_YD = 16.0         # ... along it, from the umpire's end to the far end of four ranks (~10 yd)
MIN_PLAYERS = 5          # of eight: in a dense line-up a camera places about three of each four
MIN_EACH_SIDE = 2        # players on each side of the line (a reversed line-up too)
MIN_WITH_UMPIRE = 2      # ... or this many, one or more each side, with an umpire standing at the line by them
MAX_SPEED_YDS = 4.0      # standing or walking up to the line (after a throw-in play is 5-12 yd/s)
MIN_S = 1.0              # a line-up lasts at least this long
BRIDGE_S = 1.0           # a gap this short in the middle of one (players hidden, a jostle) is bridged
PRE_S = 0.0              # the window starts this long before the line-up is seen formed: not the teams
                         # riding back to it after a goal, some across the line (the rules judge a rider
                         # more than 10 yd out as not yet in the line-up, but one nearer, still crossing,
                         # would be on the wrong side)
POST_S = 10.0            # ... and ends this long after it breaks up (the throw-in, and the plays a late or
                         # wrong-side player may not make: own_goal_blue1's last 7.6 s after it)
SCAN_RATE = 5.0          # frames a second the scan looks at


@dataclass
class LineUp:
    start_s: float           # first and last frame (times) with a line-up seen
    end_s: float
    players: int             # the most players seen in it at once
    window_start_s: float    # the part of the recording to judge
    window_end_s: float

    def to_dict(self) -> dict:
        return {k: round(v, 2) if isinstance(v, float) else v for k, v in asdict(self).items()}


def lineup_counts(t: np.ndarray, xy: np.ndarray, centre_x: float, umpires: np.ndarray | None = None) -> np.ndarray:
    """(F,) players standing in a line-up per frame, 0 where there is none: `xy` (P, F, 2)
    players' and `umpires` (U, F, 2) umpires' field positions (NaN where unplaced), `t` (F,)
    seconds. A line-up: at least MIN_PLAYERS players standing within BAND_YD of the centre
    line, MIN_EACH_SIDE or more on either side, within SPREAD_YD of one another along it; or,
    with an umpire standing at the line within SPREAD_YD of them, MIN_WITH_UMPIRE players, one
    or more on either side (the ranks hide one another: a camera often places only 3-4 of 8)."""
    P, F = xy.shape[:2]
    out = np.zeros(F, np.int64)
    if not P or not F:
        return out
    v = speeds(xy, t, SPEED_WINDOW_S) if F > 2 else np.full((P, F), np.nan)
    ump = np.zeros((0, F, 2)) if umpires is None else np.asarray(umpires, float).reshape(-1, F, 2)
    vu = speeds(ump, t, SPEED_WINDOW_S) if len(ump) and F > 2 else np.full((len(ump), F), np.nan)
    for f in range(F):
        x, y = xy[:, f, 0], xy[:, f, 1]
        with np.errstate(invalid="ignore"):
            ok = ~np.isnan(x) & (np.abs(x - centre_x) <= BAND_YD) & ~(v[:, f] > MAX_SPEED_YDS)
            at_line = ~np.isnan(ump[:, f, 0]) & (np.abs(ump[:, f, 0] - centre_x) <= BAND_YD) \
                & ~(vu[:, f] > MAX_SPEED_YDS)
        if np.count_nonzero(ok) < MIN_WITH_UMPIRE:
            continue
        xs, ys = x[ok], y[ok]
        order = np.argsort(ys)
        xs, ys = xs[order], ys[order]
        uy = ump[at_line, f, 1]
        best = 0
        for i in range(len(ys)):                   # the most players within SPREAD_YD along the line
            j = int(np.searchsorted(ys, ys[i] + SPREAD_YD, side="right"))
            south = np.count_nonzero(xs[i:j] < centre_x)
            each = min(south, j - i - south)
            umpire = np.any((uy >= ys[i] - SPREAD_YD) & (uy <= ys[j - 1] + SPREAD_YD))
            if (j - i >= MIN_PLAYERS and each >= MIN_EACH_SIDE) or (umpire and j - i >= MIN_WITH_UMPIRE and each >= 1):
                best = max(best, j - i)
        out[f] = best
    return out


def find_lineups(t: np.ndarray, xy: np.ndarray, centre_x: float, duration_s: float | None = None,
                 first_s: float = 0.0, umpires: np.ndarray | None = None) -> list[LineUp]:
    """The line-ups seen, in time order, each with the window of the recording to judge
    (within [first_s, duration_s])."""
    t = np.asarray(t, float)
    counts = lineup_counts(t, xy, centre_x, umpires)
    on = np.flatnonzero(counts > 0)
    runs: list[list[int]] = []
    for f in on:
        if runs and t[f] - t[runs[-1][-1]] <= BRIDGE_S:
            runs[-1].append(int(f))
        else:
            runs.append([int(f)])
    end_of = float(t[-1]) if duration_s is None and len(t) else float(duration_s or 0.0)
    found = []
    for run in runs:
        a, b = float(t[run[0]]), float(t[run[-1]])
        if b - a < MIN_S:
            continue
        found.append(LineUp(a, b, int(counts[run].max()), max(first_s, a - PRE_S), min(end_of, b + POST_S)))
    for prev, nxt in zip(found, found[1:]):       # windows never overlap: they meet half-way
        if prev.window_end_s > nxt.window_start_s:
            cut = min(max((prev.window_end_s + nxt.window_start_s) / 2, prev.end_s), nxt.start_s)
            prev.window_end_s = nxt.window_start_s = cut
    return found


def sidecar_entries(lineups: list[LineUp], calibrations: list[dict | None] | None = None) -> list[dict]:
    """The sidecar's `throw_ins` for these line-ups: start and end as m:ss.s text, and each
    one's own calibration where given (a moving camera: Scan.calibrations)."""
    out = [{"start": clock(lu.window_start_s), "end": clock(lu.window_end_s)} for lu in lineups]
    for entry, cal in zip(out, calibrations or []):
        if cal is not None:
            entry["calibration"] = cal
    return out


def clock(seconds: float) -> str:
    """1:05.2, 0:03, 1:02:05.5: a time a person reads and vision.video_io.parse_time reads back."""
    tenths = int(round(seconds * 10))
    s, d = divmod(tenths, 10)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    text = f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"
    return text + (f".{d}" if d else "")


@dataclass
class Scan:
    lineups: list[LineUp]
    stride: int                  # every stride-th frame looked at
    frames_looked: int
    duration_s: float            # of the parts scanned (the calibrated camera's shots)
    camera_cut: dict | None      # where the scan stopped for good (vision.scene_cuts), if it did
    sides: list[dict | None]     # per line-up, the side of the line each team stood on ({"south": team, ...}), if named
    seconds: float
    calibrations: list[dict | None] | None = None   # per line-up, the camera as followed to its window's start
                                                     # (a calibration document), where it moved (moving_calibration)
    shots: list[dict] | None = None   # the parts of the recording in time order: {"start_s", "end_s", "view"}, view
                                      # "calibrated" (the first), "found again" (the calibrated camera after a
                                      # cutaway, vision.relocate) or "other" (another shot: not scanned)


def scan(video, opts, detector=None, progress=None, rate: float = SCAN_RATE, across_cuts: bool = True) -> Scan:
    """The line-ups of `video` (within opts.window, if any) from the pipeline run on `rate`
    frames a second, without the ball stage, the annotated clip or a throw-in override (`opts`:
    vision.pipeline.AnalyzeOptions; its defending only names the teams).

    The shots are taken one by one: at a camera cut the analysis stops (the calibration holds
    for one shot); with `across_cuts` the frames after it are matched against key views of the
    calibrated camera kept while it was followed (vision.relocate.KeyViews, over all its shots
    so far), and where it is seen again the scan goes on from there, with that frame's
    homography as its calibration: a broadcast's cutaways (replays, close-ups) are skipped.
    Line-ups in the later shots always carry their own calibration. The search runs to the end
    of the recording (a long break in another shot costs a try every 0.5 s, ~0.2 s each)."""
    import time
    from dataclasses import replace

    from vision.pipeline import analyze, team_hints
    from vision.relocate import KeyViews, find_view_again
    from vision.replays import ReplayWatch
    from vision.video_io import Window, probe_video
    started = time.perf_counter()
    info = probe_video(video)
    stride = max(1, int(round((info.fps or 25.0) / rate)))
    opts = replace(opts, stride=stride, ball_model="none", ball_motion=False, annotate=False, throw_in_frame=None,
                   across_cuts=across_cuts, number_model="none")        # the scan names nobody: no shirt numbers
    last_s = opts.window.end_s if opts.window is not None and opts.window.end_s is not None else info.duration_s
    named = team_hints(opts) is not None
    lineups, sides, cals, shots = [], [], [], []
    looked, stop, seg_opts, seg_first = 0, None, opts, 0
    keys = KeyViews(info.size) if across_cuts else None     # views of the calibrated camera, over every shot of it
    # The footage followed, over every shot: a replay of it is another shot (vision.replays).
    watch = ReplayWatch(info.fps or 25.0) if across_cuts and opts.replays else None
    n_all = max(1, int(info.n_frames))

    def counted(first_frame: int):         # the bar counts the video's frames, whatever part a call covers
        return (lambda done, total: progress(min(first_frame + done, n_all), n_all)) if progress else None

    while True:
        analysis = analyze(video, seg_opts, detector=detector, progress=counted(seg_first),   # one shot a call: each
                           on_frame=keys.offer_seen if keys is not None else None, one_shot=True,   # line-up after a cut gets
                           replays=watch)                                                          # its calibration
        b, frames = analysis.batch, analysis.frames
        win = analysis.report.get("window") or {}
        first = float(win.get("start_s") or 0.0)
        cut = analysis.report.get("camera_cut")
        end = cut["t"] if cut else float(last_s)
        xy = np.swapaxes(b.players, 0, 1) if b.players.size else np.zeros((0, len(b.t), 2))
        ump = np.swapaxes(b.umpires, 0, 1) if b.umpires.size else None
        found = find_lineups(b.t, xy, b.field.centre_x, end, first_s=first, umpires=ump)
        # Compared with the calibrated frame's: the first looked at, unless the camera was followed to
        # it; in a shot after a cut there is nothing to compare with (each line-up gets its calibration).
        H0 = frames[0].H if frames and not shots and not analysis.report.get("camera_lead_in") else None
        for lu in found:
            k = min(int(np.searchsorted(b.t, lu.window_start_s - 1e-6)), len(frames) - 1)
            cals.append(moving_calibration(H0, frames[k].H, frames[k].index, frames[k].camera_ok,
                                           info.size, b.field.length_yd, b.field.width_yd) if frames else None)
            sides.append(_sides(b, lu) if named else None)
        lineups += found
        shots.append({"start_s": round(first, 3), "end_s": round(end, 3), "view": "found again" if shots else "calibrated"})
        looked += len(b.t)
        if not cut:
            break
        again = cal = None
        replays_before = len(watch.found) if watch is not None else 0
        if keys is not None:
            keys.close_shot()
            again = find_view_again(video, keys.library, int(cut["frame"]), stride, float(last_s),
                                    progress=(lambda i: progress(min(i, n_all), n_all)) if progress else None,
                                    replays=watch)
            cal = None if again is None else moving_calibration(None, again.H, again.index, True, info.size,
                                                                b.field.length_yd, b.field.width_yd)
        if cal is None:                    # not seen again: the rest is left unscanned
            stop = cut
            shots.append({"start_s": round(end, 3), "end_s": round(float(last_s), 3), "view": "other",
                          **({"replay": True} if cut.get("replay") or _replayed(watch, replays_before) else {})})
            break
        looked += again.looked - 1
        seg_first = again.index
        shots.append({"start_s": round(end, 3), "end_s": round(again.t, 3), "view": "other",
                      **({"replay": True} if cut.get("replay") or _replayed(watch, replays_before) else {})})
        seg_opts = replace(opts, window=Window(again.t, opts.window.end_s if opts.window is not None else None),
                           calibration=cal)
    scanned = sum(s["end_s"] - s["start_s"] for s in shots if s["view"] != "other")
    return Scan(lineups, stride, looked, scanned, stop, sides, time.perf_counter() - started, cals, shots)


def _replayed(watch, before: int) -> bool:
    """Has `watch` (a vision.replays.ReplayWatch, or None) found a replay since it had found `before`?"""
    return watch is not None and len(watch.found) > before


MOVED_YD = 0.25          # the camera has moved when a point of the picture lands this far from where it did


def moving_calibration(H0: np.ndarray | None, H: np.ndarray, frame: int, ok: bool, size: tuple[int, int],
                       length_yd: float, width_yd: float, grid: int = 5) -> dict | None:
    """A calibration document for `frame`, whose image → field homography the scan's camera
    tracker followed to (`H`; `H0` its first frame's): points of a grid over the lower two
    thirds of the picture that fall on the field, with the yards `H` gives them. None when the
    camera has not moved (every point within MOVED_YD of where `H0` puts it; `H0` None: the
    calibrated frame was not looked at, so it may have), the step there was
    lost (`ok` False), or fewer than four points fall on the field. A window judged with it
    needs no camera lead-in (vision.camera_lead_in) from the recording's calibrated frame."""
    from vision.homography import image_to_field
    if not ok:
        return None
    w, h = size
    px = np.array([(u * w, v * h) for v in np.linspace(0.4, 0.95, grid - 1) for u in np.linspace(0.08, 0.92, grid)])
    yd = image_to_field(H, px, front_only=True)
    with np.errstate(invalid="ignore"):
        moved = np.inf if H0 is None else np.nanmax(np.hypot(*(yd - image_to_field(H0, px, front_only=True)).T)) \
            if np.isfinite(yd).any() else 0.0
        on = np.isfinite(yd).all(axis=1) & (yd[:, 0] >= 0) & (yd[:, 0] <= length_yd) \
            & (yd[:, 1] >= 0) & (yd[:, 1] <= width_yd)
    if not moved > MOVED_YD or np.count_nonzero(on) < 4:
        return None
    points = [{"name": f"tracked_{k}", "px": [round(float(u), 1), round(float(v), 1)],
               "yd": [round(float(x), 3), round(float(y), 3)]} for k, ((u, v), (x, y)) in enumerate(zip(px[on], yd[on]))]
    return {"image_size": [int(w), int(h)], "field": {"length_yd": length_yd, "width_yd": width_yd},
            "points": points, "frame": int(frame)}


def _sides(b, lu: LineUp) -> dict | None:
    """{"south": team, "north": team}: where each team's players stood (median) in the line-up;
    None unless the two stood on opposite sides."""
    f = (b.t >= lu.start_s) & (b.t <= lu.end_s)
    where = {}
    for k, team in enumerate(b.teams):
        xs = b.players[f][:, b.player_team == k, 0]
        xs = xs[~np.isnan(xs)]
        if len(xs):
            where[team] = "south" if np.median(xs) < b.field.centre_x else "north"
    if len(where) != 2 or len(set(where.values())) != 2:
        return None
    return {end: team for team, end in where.items()}
