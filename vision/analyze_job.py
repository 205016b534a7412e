"""One clip, end to end, into an output folder: the work unit of `analyze` and `batch`."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from reports.writers import write_reports
from rules.document import InvalidDocument
from vision.errors import CalibrationError, SettingsError, VideoError


class AnalyzeError(Exception):
    """A clip that cannot be analysed; the message says why in one line."""


def analyze_to_folder(video: str | Path, out_dir: str | Path, opts, detector=None,
                      progress: Callable[[int, int], None] | None = None,
                      debrief: bool = True) -> tuple[dict, list[Path]]:
    """Analyse `video` and write annotated.mp4 (if opts.annotate), report.json, report.csv and
    debrief.html (unless `debrief` is False) to `out_dir`, each file atomically. On failure the
    files written so far stay only if `out_dir` existed before (earlier outputs are never
    half-overwritten: each file is replaced whole); folders this call made are removed."""
    out = Path(out_dir)
    created = [p for p in (out, *out.parents) if not p.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise AnalyzeError(f"cannot create output folder {out}: {exc.strerror}") from None
    try:
        return _analyze_into(video, out, opts, detector, progress, debrief)
    except BaseException:
        if created:                             # a failed run leaves no folder it made, nor what is in it
            shutil.rmtree(created[-1], ignore_errors=True)
        raise


def _analyze_into(video, out: Path, opts, detector, progress, debrief) -> tuple[dict, list[Path]]:
    from vision.annotate_clip import write_annotated
    from vision.detect import ModelError
    from vision.pipeline import analyze, team_hints
    try:
        analysis = analyze(video, opts, detector=detector, progress=progress)
        written = []
        if opts.annotate:
            written.append(write_annotated(video, analysis, out / "annotated.mp4", team_colours=team_hints(opts)))
        written += write_reports(analysis.report, out)
        if debrief:
            from reports.debrief import write_debrief
            written.append(write_debrief(analysis.report, video, out))
    except (VideoError, CalibrationError, ModelError, InvalidDocument, SettingsError) as exc:
        raise AnalyzeError(str(exc)) from None
    except FileNotFoundError as exc:
        raise AnalyzeError(f"file not found: {exc.filename or exc}") from None
    return analysis.report, written
