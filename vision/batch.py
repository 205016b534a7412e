"""Analyse a folder of clips: one output folder per clip, resumable, in a local process pool
(or on a Dask cluster: vision.batch_dask).

    run_batch(["clips/"], "out/", BatchSettings(stride=2), workers=2)

- Clips: video files (.mp4 .mov .avi .mkv .m4v) found recursively under each input folder,
  or matching a glob (``**`` allowed), or named directly; hidden files and folders and
  anything under the output folder are left out. Clip ``ROOT/a/b/clip.mp4`` (ROOT: the
  common folder of the inputs) writes ``OUT/a/b/clip/``; two clips differing only in their
  suffix (``x.mp4``, ``x.mov``) write ``OUT/x_mp4/`` and ``OUT/x_mov/``.
- Settings per clip come from its sidecar (vision.sidecar: defending, calibration,
  team_colours, throw_in_frame, field, start/end); `BatchSettings.defending`, when given, wins
  over every sidecar (as ``analyze --defending`` does); the detector, stride, min-run and
  video options are batch-wide. A sidecar listing several throw-ins of a recording
  (``throw_ins``: start, end, throw_in_frame each) makes one job per throw-in, written to
  ``OUT/a/b/clip@2m13s/`` (named by its start) and listed as ``a/b/clip.mp4@2m13s``.
- Each clip is analysed into a hidden staging folder next to its output folder
  (``OUT/a/b/.clip.partial-*``) that is renamed to ``OUT/a/b/clip`` only when everything,
  ``done.json`` last, is written. So an output folder either is complete, with a
  ``done.json`` recording the input's size and mtime (and the window judged), or is what an earlier complete run
  left; a failing or interrupted clip leaves nothing. A later run skips a clip whose
  ``done.json`` matches its input (unless ``force``), and redoes one whose input changed.
- A failing clip is recorded with its one-line error and the batch goes on; a worker
  process that dies (crash, out of memory) fails only the clip it was working on (the clips
  in flight with it are retried one at a time to find which).
- ``OUT/summary.json``, ``OUT/summary.csv`` and ``OUT/index.html`` (reports.debrief) list every
  clip: status (ok, skipped, failed, interrupted), throw-in frame, violation events by
  code, warnings (a camera cut, footage long past the throw-in, a team short of players in the
  line-up: reports.coverage), processing seconds, error. They are written at the end, also
  after Ctrl-C.

Workers start from a fork server that imports the pipeline once; each worker loads the
detector once (or calls `detector_factory(clip_path)` per clip, e.g. a truth-box stand-in
in tests: it must be a picklable module-level function). One batch at a time may write to
an output folder (a lock in ``OUT/.batch.lock``).
"""
from __future__ import annotations

import contextlib
import csv
import fcntl
import glob
import io
import json
import multiprocessing as mp
import os
import queue as queue_mod
import shutil
import time
import traceback
import uuid
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Sequence

from reports.atomic import write_json, write_text
from reports.coverage import report_warnings
from rules.verdicts import VIOLATION_CODES
from vision.frame_store import DEFAULT_BUDGET_MB

VIDEO_SUFFIXES = (".mp4", ".mov", ".avi", ".mkv", ".m4v")
MARKER = "done.json"
STATUSES = ("ok", "skipped", "failed", "interrupted")
CSV_COLUMNS = ["clip", "status", "throw_in_frame", "throw_in_s", "events", "to_check", *VIOLATION_CODES, "warnings",
               "processing_s", "output", "error"]
CSV_TAIL = 4             # the columns after the violation codes (a report's other codes go before them)
# Imported once by the fork server, so that workers start without importing torch & co.
PRELOAD = ["vision.batch", "vision.analyze_job", "vision.pipeline", "vision.annotate_clip", "reports.debrief",
           "matplotlib.figure", "matplotlib.backends.backend_agg"]
BACKENDS = ("local", "dask")
DIED = "the worker process died while analysing this clip (crash or out of memory)"


class BatchError(Exception):
    """The batch cannot start (no clips, bad arguments, output folder busy); one line."""


class ClipSettingsError(ValueError):
    """A clip's settings (sidecar + batch options) do not make a valid analysis."""


@dataclass
class BatchSettings:
    """Batch-wide options (per-clip ones come from each clip's sidecar)."""

    defending: dict[str, str] | None = None       # wins over every sidecar when given
    model: str | None = None                      # detector weights (default: models/polo-yolo.pt)
    class_map: dict[str, str] | None = None
    imgsz: int | None = None
    runtime: str = "auto"
    ball_model: str | None = "auto"               # the ball stage (vision.ball)
    ball_motion: bool = True                      # the thrown ball from motion (vision.ball_motion)
    kind_model: str | None = "auto"               # the rider/umpire classifier (vision.person_kind)
    refine_model: str | None = "auto"             # the box refiner (vision.box_refine)
    number_model: str | None = "auto"             # the shirt-number reader (vision.shirt_numbers)
    conf: float = 0.3
    stride: int = 1
    min_run: int = 3
    margin_sigmas: float = 1.0
    track_space: str = "field"
    hidden_horses: bool | None = None             # riders of hidden horses are units (vision.players);
                                                  # None: the sidecar's hidden_horses, else on
    annotate: bool = True                         # write annotated.mp4
    moving_camera: bool = True
    across_cuts: bool = True
    replays: bool = True                          # skip replays of the calibrated camera's footage (vision.replays)
    replay_memory_s: float = 60.0                 # a throw-in window remembers this much footage before it
    frame_memory_mb: float = DEFAULT_BUDGET_MB   # decoded frames kept for annotated.mp4 (vision.frame_store)


@dataclass
class ClipJob:
    clip: str                                     # absolute path of the video
    name: str                                     # output folder relative to OUT (posix)
    rel: str                                      # the clip relative to the inputs' root (posix)
    out: str                                      # absolute output folder
    settings: BatchSettings
    detector_factory: Callable | None = None
    part: int | None = None                       # which of the sidecar's throw_ins (None: the clip's own window)


@dataclass
class BatchResult:
    rows: list[dict]                              # one per clip, in clip order
    out_dir: Path
    written: list[Path] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(r["status"] == status for r in self.rows)

    @property
    def exit_code(self) -> int:
        """0 when every clip is analysed (now or before), 1 when any failed or was not run."""
        return 0 if all(r["status"] in ("ok", "skipped") for r in self.rows) else 1


# ------------------------------------------------------------------------------------
# Finding clips
# ------------------------------------------------------------------------------------
def _is_video(p: Path) -> bool:
    return p.suffix.lower() in VIDEO_SUFFIXES


def _walk(folder: Path) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            if not f.startswith("."):
                yield Path(dirpath) / f


def find_clips(inputs: str | Path | Sequence[str | Path], exclude: str | Path | None = None
               ) -> tuple[Path, list[Path]]:
    """(root, clips): the video files of folders (recursively), globs and files, resolved,
    sorted, without duplicates, hidden files or anything under `exclude`; root is the
    deepest folder holding them all (clip output names are relative to it)."""
    if isinstance(inputs, (str, Path)):
        inputs = [inputs]
    bases: list[Path] = []
    found: list[Path] = []
    for item in inputs:
        p = Path(os.path.expanduser(str(item)))
        if p.is_dir():
            bases.append(p.resolve())
            found += [q.resolve() for q in _walk(p) if _is_video(q)]
        elif p.is_file():
            bases.append(p.resolve().parent)
            found.append(p.resolve())
        else:
            for m in sorted(glob.glob(str(p), recursive=True)):
                q = Path(m)
                if q.is_file() and _is_video(q) and not any(part.startswith(".") for part in q.parts[-1:]):
                    bases.append(q.resolve().parent)
                    found.append(q.resolve())
                elif q.is_dir():
                    bases.append(q.resolve())
                    found += [r.resolve() for r in _walk(q) if _is_video(r)]
    ex = Path(exclude).resolve() if exclude is not None else None
    clips = sorted({c for c in found if _is_video(c) and not (ex and (c == ex or ex in c.parents))})
    if not clips:
        return (bases[0] if bases else Path.cwd()), []
    root = Path(os.path.commonpath([str(b) for b in bases] + [str(c.parent) for c in clips]))
    return root, clips


def output_names(root: Path, clips: Sequence[Path]) -> dict[Path, str]:
    """Clip → output folder name relative to OUT: its path under root without the suffix
    (``_ext`` appended when two clips would share a folder)."""
    stems = {c: c.relative_to(root).with_suffix("").as_posix() for c in clips}
    taken: dict[str, int] = {}
    for s in stems.values():
        taken[s] = taken.get(s, 0) + 1
    return {c: (s if taken[s] == 1 else f"{s}_{c.suffix.lower().lstrip('.')}") for c, s in stems.items()}


# ------------------------------------------------------------------------------------
# Per-clip settings
# ------------------------------------------------------------------------------------
def check_defending(defending, where: str) -> dict[str, str]:
    from vision.sidecar import defending_ok
    if not defending_ok(defending):
        raise ClipSettingsError(f"{where}: defending: name two teams, one defending south and one north, "
                                f"got {defending!r}")
    return dict(defending)


def clip_parts(clip: str | Path) -> list[tuple[int | None, str | None]]:
    """The jobs of a clip, (part, label): one per throw-in its sidecar lists (`throw_ins`; the
    label names it by its start, e.g. '2m13s'), else one, [(None, None)] (also when the sidecar
    cannot be read: the clip's job then fails with that error)."""
    from vision.sidecar import SidecarError, load_sidecar, part_label, windows
    try:
        labels = [part_label(w) for w in windows(load_sidecar(clip))]
    except SidecarError:
        labels = []
    return list(enumerate(labels)) if labels else [(None, None)]


def clip_options(clip: str | Path, settings: BatchSettings, part: int | None = None):
    """AnalyzeOptions of a clip (of its sidecar's throw-in `part`): its sidecar's settings with
    the batch's on top."""
    from vision.pipeline import AnalyzeOptions
    from vision.sidecar import hidden_horses_setting, load_sidecar, window_setting
    side = load_sidecar(clip)                                 # SidecarError: one line (a bad window too)
    if "throw_ins" in side and part is None:
        raise ClipSettingsError(f"{side['_path']}: lists throw_ins: analyse each with its own start and end")
    if part is not None:
        side = {**side, **side["throw_ins"][part]}
    where = side.get("_path", str(clip))
    if settings.defending:
        defending = check_defending(settings.defending, "--defending")
    elif "defending" in side:
        defending = check_defending(side["defending"], where)
    else:
        raise ClipSettingsError(f"{clip}: no sidecar says which goal each team defends (CLIP.polo.json or "
                                "polo.json with \"defending\"), and no --defending was given")
    colours = side.get("team_colours")
    if colours and set(colours) != set(defending):
        raise ClipSettingsError(f"{where}: team_colours name {sorted(colours)}, but the teams are {sorted(defending)}")
    return AnalyzeOptions(defending=defending, calibration=side.get("calibration"), model=settings.model,
                          class_map=settings.class_map, imgsz=settings.imgsz, conf=settings.conf,
                          runtime=settings.runtime, ball_model=settings.ball_model, ball_motion=settings.ball_motion,
                          kind_model=settings.kind_model,
                          refine_model=settings.refine_model, number_model=settings.number_model,
                          stride=settings.stride, team_colours=colours,
                          throw_in_frame=side.get("throw_in_frame"),
                          min_run=settings.min_run, margin_sigmas=settings.margin_sigmas,
                          track_space=settings.track_space,
                          hidden_horses=hidden_horses_setting(settings.hidden_horses, side),
                          moving_camera=settings.moving_camera, across_cuts=settings.across_cuts, replays=settings.replays,
                          replay_memory_s=settings.replay_memory_s,
                          annotate=settings.annotate, frame_memory_mb=settings.frame_memory_mb,
                          field=side.get("field", {}), window=window_setting(None, None, side))


# ------------------------------------------------------------------------------------
# Complete markers
# ------------------------------------------------------------------------------------
def _input_stamp(clip: Path) -> dict:
    st = clip.stat()
    return {"path": str(clip), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _window_stamp(opts) -> dict | None:
    w = opts.window
    return None if w is None else {"start_s": w.start_s, "end_s": w.end_s}


def completed_row(folder: str | Path, clip: str | Path, window: dict | None = None) -> dict | None:
    """The summary row of an earlier complete run into `folder` of this very input (same
    size and mtime, the same window of it, every listed output present), else None."""
    folder = Path(folder)
    try:
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
        stamp = _input_stamp(Path(clip))
        inp = marker["input"]
        if (inp["size"], inp["mtime_ns"]) != (stamp["size"], stamp["mtime_ns"]):
            return None
        if marker.get("window") != window:
            return None
        if not all((folder / name).is_file() for name in marker["outputs"]):
            return None
        return dict(marker["row"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _clean_stale(final: Path) -> None:
    """Staging / old folders of this clip left by a killed run."""
    if final.parent.is_dir():
        for p in final.parent.glob(f".{glob.escape(final.name)}.partial-*"):
            _remove(p)
        for p in final.parent.glob(f".{glob.escape(final.name)}.old-*"):
            _remove(p)


def _prune_empty(folder: Path, stop: Path) -> None:
    """Remove `folder` and its parents up to (not including) `stop` while they are empty."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _install(staging: Path, final: Path) -> None:
    """Put the complete staging folder in place of `final` (two renames; the old one goes)."""
    old = None
    if final.exists() or final.is_symlink():
        old = final.with_name(f".{final.name}.old-{uuid.uuid4().hex[:8]}")
        os.replace(final, old)
    os.replace(staging, final)
    if old is not None:
        _remove(old)


# ------------------------------------------------------------------------------------
# One clip (runs in a worker process)
# ------------------------------------------------------------------------------------
_DETECTORS: dict = {}
_PROGRESS_QUEUE = None


def _job(clip: Path, name: str, part: int | None, label: str | None, root: Path, out: Path,
         settings: BatchSettings, detector_factory) -> ClipJob:
    """The job of a clip, or of its sidecar's throw-in `part` (output CLIP@label/, row CLIP@label)."""
    rel = clip.relative_to(root).as_posix()
    if part is not None:
        name, rel = f"{name}@{label}", f"{rel}@{label}"
    return ClipJob(str(clip), name, rel, str(out / name), settings, detector_factory, part)


def _previous(job: ClipJob) -> dict | None:
    """The row of an earlier complete run of this job (completed_row), else None."""
    try:
        window = _window_stamp(clip_options(job.clip, job.settings, job.part))
    except (ValueError, OSError):          # settings that fail: the job will say so
        return None
    return completed_row(job.out, job.clip, window)


def shared_detector(settings: BatchSettings):
    """This process's detector for these settings, loaded on first use."""
    key = (settings.model, tuple(sorted((settings.class_map or {}).items())), settings.imgsz, settings.conf,
           settings.runtime, settings.ball_model, settings.kind_model, settings.refine_model, settings.number_model)
    if key not in _DETECTORS:
        from vision.detect import Detector
        _DETECTORS[key] = Detector(settings.model, class_map=settings.class_map, imgsz=settings.imgsz,
                                   conf=settings.conf, runtime=settings.runtime,
                                   ball_model=settings.ball_model, kind_model=settings.kind_model,
                                   refine_model=settings.refine_model, number_model=settings.number_model)
    return _DETECTORS[key]


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 500 else text[:497] + "..."


def _base_row(job: ClipJob) -> dict:
    return {"clip": job.rel, "output": job.name, "status": "failed", "throw_in_frame": None, "throw_in_s": None,
            "events": None, "to_check": None, "events_by_code": None, "warnings": None, "processing_s": None,
            "error": None}


def process_clip(job: ClipJob, progress: Callable[[int, int], None] | None = None) -> dict:
    """Analyse one clip into its output folder; its summary row (status ok or failed)."""
    from vision.analyze_job import AnalyzeError, analyze_to_folder
    from vision.detect import ModelError
    from vision.sidecar import SidecarError
    started = time.perf_counter()
    clip, final = Path(job.clip), Path(job.out)
    row = _base_row(job)
    staging = final.with_name(f".{final.name}.partial-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        _clean_stale(final)
        stamp = _input_stamp(clip)
        opts = clip_options(clip, job.settings, job.part)
        detector = job.detector_factory(clip) if job.detector_factory else shared_detector(job.settings)
        report, written = analyze_to_folder(clip, staging, opts, detector=detector, progress=progress)
        ti = report["throw_in"]
        row.update(status="ok", throw_in_frame=ti["frame"], throw_in_s=ti["t"], events=len(report["events"]),
                   to_check=len(report.get("events_to_check") or []),       # findings within their uncertainty
                   events_by_code=dict(report["summary"]["events_by_code"]),
                   warnings="; ".join(report_warnings(report)),
                   processing_s=round(time.perf_counter() - started, 2))
        write_json(staging / MARKER, {"version": 1, "clip": job.rel, "input": stamp, "window": _window_stamp(opts),
                                      "finished_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                      "outputs": sorted(Path(p).name for p in written), "row": row})
        _install(staging, final)
        return row
    except (AnalyzeError, SidecarError, ClipSettingsError, ModelError) as exc:
        row["error"] = one_line(exc)
    except FileNotFoundError as exc:
        row["error"] = f"file not found: {exc.filename or exc}"
    except Exception as exc:  # noqa: BLE001 - a bug on one clip must not stop the batch
        row["error"] = f"{type(exc).__name__}: {one_line(exc)}"
        row["traceback"] = traceback.format_exc(limit=8)
    finally:
        if staging.exists():
            _remove(staging)
        _prune_empty(final.parent, Path(job.out).parents[len(Path(job.name).parts) - 1])
    row["processing_s"] = round(time.perf_counter() - started, 2)
    return row


def limit_threads(threads: int) -> None:
    """This worker's share of the CPU threads (so that N workers' OpenCV and torch pools do
    not each take every core); 0 leaves them as they are."""
    if threads > 0:
        import sys

        import cv2
        cv2.setNumThreads(threads)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(threads)


def _init_worker(progress_queue, threads: int) -> None:
    """Pool worker start: where to report progress, and its share of the CPU threads."""
    global _PROGRESS_QUEUE
    _PROGRESS_QUEUE = progress_queue
    limit_threads(threads)


def _worker(job: ClipJob) -> dict:
    """process_clip in a pool worker, reporting frames done to the parent (≤ 5 times/s)."""
    q, last = _PROGRESS_QUEUE, [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if q is not None and (now - last[0] >= 0.2 or done == total):
            last[0] = now
            with contextlib.suppress(Exception):
                q.put_nowait((job.name, done, total))
    return process_clip(job, progress)


# ------------------------------------------------------------------------------------
# Progress bars (parent process)
# ------------------------------------------------------------------------------------
class _Bars:
    """A bar of clips at the top and one bar of frames per clip in progress below it."""

    def __init__(self, total: int, initial: int, slots: int, enabled: bool):
        from tqdm import tqdm
        self._tqdm = tqdm
        self.enabled = enabled
        self.main = tqdm(total=total, initial=initial, desc="clips", unit="clip", position=0, disable=not enabled,
                         dynamic_ncols=True)
        self.free = list(range(1, slots + 1))
        self.bars: dict[str, object] = {}
        self.finished: set[str] = set()

    def frames(self, name: str, done: int, total: int) -> None:
        if not self.enabled or name in self.finished:
            return
        bar = self.bars.get(name)
        if bar is None:
            pos = self.free.pop(0) if self.free else len(self.bars) + 1
            short = name if len(name) <= 32 else "…" + name[-31:]
            bar = self.bars[name] = self._tqdm(total=total or None, desc=short, unit="frame", position=pos,
                                               leave=False, dynamic_ncols=True)
            bar.slot = pos
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    def finish(self, row: dict) -> None:
        name = row["output"]
        self.finished.add(name)
        bar = self.bars.pop(name, None)
        if bar is not None:
            bar.close()
            self.free = sorted(self.free + [bar.slot])
        if row["status"] == "failed" and self.enabled:
            self.main.write(f"failed: {row['clip']}: {row['error']}")
        self.main.update(1)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()
        self.main.close()


# ------------------------------------------------------------------------------------
# The pool
# ------------------------------------------------------------------------------------
def _context(start_method: str):
    ctx = mp.get_context(start_method)
    if start_method == "forkserver":
        ctx.set_forkserver_preload(PRELOAD)
    return ctx


def _drain(q, bars: _Bars) -> None:
    while True:
        try:
            name, done, total = q.get_nowait()
        except (queue_mod.Empty, EOFError, OSError, ValueError):
            return
        bars.frames(name, done, total)


def _run_pool(jobs: deque, n: int, ctx, bars: _Bars, record: Callable[[ClipJob, dict], None]) -> list[ClipJob]:
    """Run jobs (taken from the left of `jobs`) on `n` workers, at most `n` in flight;
    the jobs in flight when a worker died (the pool is then given up), else []."""
    q = ctx.Queue()
    running: dict = {}
    threads = max(1, (os.cpu_count() or 1) // n) if n > 1 else 0
    pool = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker, initargs=(q, threads))
    try:
        while jobs or running:
            while jobs and len(running) < n:
                job = jobs.popleft()
                running[pool.submit(_worker, job)] = job
            done, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
            _drain(q, bars)
            for fut in done:
                job = running.pop(fut)
                try:
                    row = fut.result()
                except BrokenProcessPool:
                    broken = [job, *running.values()]
                    running.clear()
                    return broken
                record(job, row)
        return []
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _drain(q, bars)
        q.close()


def _execute(jobs: list[ClipJob], workers: int, ctx, bars: _Bars, record: Callable[[ClipJob, dict], None]) -> None:
    pending = deque(jobs)
    while pending:
        broken = _run_pool(pending, workers, ctx, bars, record)
        if len(broken) == 1:
            record(broken[0], {**_base_row(broken[0]), "error": DIED})
            continue
        for job in broken:                          # which one was it? each again, alone
            again = _run_pool(deque([job]), 1, ctx, bars, record)
            if again:
                record(job, {**_base_row(job), "error": DIED})


# ------------------------------------------------------------------------------------
# Summaries
# ------------------------------------------------------------------------------------
def summary_csv(rows: Sequence[dict]) -> str:
    extra = sorted({c for r in rows for c in (r.get("events_by_code") or {})} - set(VIOLATION_CODES))
    cols = CSV_COLUMNS[:-CSV_TAIL] + extra + CSV_COLUMNS[-CSV_TAIL:]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        by = r.get("events_by_code")
        out = []
        for c in cols:
            if c in VIOLATION_CODES or c in extra:
                out.append("" if by is None else by.get(c, 0))
            else:
                v = r.get(c)
                out.append("" if v is None else v)
        w.writerow(out)
    return buf.getvalue()


def write_summaries(rows: Sequence[dict], out_dir: Path, meta: dict) -> list[Path]:
    from reports.debrief import write_index
    counts = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
    write_json(out_dir / "summary.json", {"version": 1, **meta, "counts": counts, "clips": list(rows)})
    write_text(out_dir / "summary.csv", summary_csv(rows))
    index = write_index(rows, out_dir, meta)
    return [out_dir / "summary.json", out_dir / "summary.csv", index]


@contextlib.contextmanager
def _locked(out: Path):
    fh = open(out / ".batch.lock", "a+")
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BatchError(f"another batch is writing to {out}") from None
        yield
    finally:
        fh.close()


# ------------------------------------------------------------------------------------
# The batch
# ------------------------------------------------------------------------------------
def run_batch(inputs: str | Path | Sequence[str | Path], out_dir: str | Path, settings: BatchSettings | None = None,
              workers: int = 1, force: bool = False, detector_factory: Callable | None = None,
              progress: bool = True, start_method: str = "forkserver", backend: str = "local",
              scheduler: str | None = None) -> BatchResult:
    """Analyse every clip of `inputs` into `out_dir` (see the module docstring).

    `backend` "local" runs the clips in a local process pool; "dask" on a Dask distributed
    cluster (vision.batch_dask: a LocalCluster of `workers` processes, or the running one at
    `scheduler`).

    Raises BatchError (nothing analysed) for no clips, workers < 1, a missing model file or
    a busy output folder; KeyboardInterrupt after writing the summaries of what was done.
    """
    settings = settings or BatchSettings()
    if workers < 1:
        raise BatchError(f"--workers must be at least 1, got {workers}")
    if backend not in BACKENDS:
        raise BatchError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler and backend != "dask":
        raise BatchError("--scheduler needs --backend dask")
    from vision.pipeline import check_settings
    try:
        check_settings(settings.stride, settings.min_run, settings.margin_sigmas)
    except ValueError as exc:
        raise BatchError(str(exc)) from None
    if settings.defending:
        try:
            check_defending(settings.defending, "--defending")
        except ClipSettingsError as exc:
            raise BatchError(str(exc)) from None
    out = Path(out_dir).resolve()
    if out.exists() and not out.is_dir():
        raise BatchError(f"--out {out_dir}: exists and is not a folder")
    root, clips = find_clips(inputs, exclude=out)
    if not clips:
        shown = ", ".join(map(str, [inputs] if isinstance(inputs, (str, Path)) else inputs))
        raise BatchError(f"no video files ({' '.join(VIDEO_SUFFIXES)}) found in {shown}")
    if detector_factory is None:
        from vision.detect import DEFAULT_MODEL
        model = Path(settings.model) if settings.model else DEFAULT_MODEL
        if not model.is_file():
            raise BatchError(f"model file not found: {model}")
        if settings.ball_model not in (None, "auto", "none") and not Path(settings.ball_model).exists():
            raise BatchError(f"ball model file not found: {settings.ball_model}")
        if settings.kind_model not in (None, "auto", "none") and not Path(settings.kind_model).exists():
            raise BatchError(f"rider/umpire classifier file not found: {settings.kind_model}")
        if settings.refine_model not in (None, "auto", "none") and not Path(settings.refine_model).exists():
            raise BatchError(f"box refiner file not found: {settings.refine_model}")
        if settings.number_model not in (None, "auto", "none") and not Path(settings.number_model).exists():
            raise BatchError(f"shirt-number reader file not found: {settings.number_model}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BatchError(f"cannot create output folder {out}: {exc.strerror}") from None

    names = output_names(root, clips)
    parts = {clip: clip_parts(clip) for clip in clips}
    started = datetime.now(timezone.utc)
    meta = {"inputs": [str(i) for i in ([inputs] if isinstance(inputs, (str, Path)) else inputs)],
            "root": str(root), "out": str(out), "workers": workers, "force": force, "backend": backend,
            "started_utc": started.isoformat(timespec="seconds")}
    with _locked(out):
        rows: dict[str, dict] = {}
        jobs, order = [], []
        for clip in clips:
            for part, label in parts[clip]:
                job = _job(clip, names[clip], part, label, root, out, settings, detector_factory)
                order.append(job.name)
                prev = None if force else _previous(job)
                if prev is not None:
                    rows[job.name] = {**_base_row(job), **prev, "clip": job.rel, "output": job.name,
                                      "status": "skipped"}
                else:
                    jobs.append(job)
        bars = _Bars(len(order), len(order) - len(jobs), min(workers, max(1, len(jobs))), progress)

        def record(job: ClipJob, row: dict) -> None:
            rows[job.name] = row
            bars.finish(row)

        t0 = time.perf_counter()
        try:
            if jobs and backend == "dask":
                from vision.batch_dask import run_on_dask
                run_on_dask(jobs, min(workers, len(jobs)), scheduler, record)
            elif jobs:
                _execute(jobs, min(workers, len(jobs)), _context(start_method), bars, record)
        finally:
            bars.close()
            for job in jobs:
                if job.name not in rows:
                    rows[job.name] = {**_base_row(job), "status": "interrupted", "error": "interrupted"}
            meta["finished_utc"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
            meta["wall_s"] = round(time.perf_counter() - t0, 2)
            ordered = [rows[n] for n in order]
            written = write_summaries(ordered, out, meta)
    return BatchResult(ordered, out, written)
