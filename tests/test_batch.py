"""`batch`: a folder of clips → one output folder per clip, summaries, resumable, failures recorded.

The detector is the truth-box stand-in (synth.truth_detector) built per clip from the
truth.json beside it, through a picklable module-level factory, so these tests do not
depend on the detector model. Clips are analysed every 2nd frame without annotated video.
"""
from __future__ import annotations

import csv
import functools
import json
import os
import shutil
from pathlib import Path

import pytest

import vision.batch as batch_mod
from cli.main import main
from synth.truth_detector import TruthDetector
from vision.batch import (MARKER, BatchError, BatchSettings, ClipSettingsError, clip_options, completed_row,
                          find_clips, output_names, run_batch)
from vision.sidecar import SidecarError

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
FILES = ("clip.mp4", "truth.json", "calibration.json", "clip.polo.json")
FAST = BatchSettings(stride=2, annotate=False)


# Detector factories: module level, so that pool workers can unpickle them by name.
def truth_factory(clip):
    return TruthDetector(json.loads((Path(clip).parent / "truth.json").read_text()))


class _FailsAt:
    """The truth detector, until frame `at`, where it raises `exc` (a clip interrupted mid-way)."""

    def __init__(self, inner, at: int, exc: BaseException):
        self.inner, self.at, self.exc = inner, at, exc
        self.wants_index, self.map = inner.wants_index, inner.map

    def __call__(self, frame, index):
        if index >= self.at:
            raise self.exc
        return self.inner(frame, index)


def failing_factory(clip):
    return _FailsAt(truth_factory(clip), 10, RuntimeError("simulated failure inside the clip"))


def interrupting_factory(clip):
    return _FailsAt(truth_factory(clip), 10, KeyboardInterrupt())


def crashing_factory(clip):
    if Path(clip).parent.name == "crash":
        os._exit(3)                                  # the worker process dies
    return truth_factory(clip)


def _copy_sample(name: str, dest: Path, video_bytes: bytes | None = None) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for f in FILES:
        shutil.copy(SAMPLES / name / f, dest / f)
    if video_bytes is not None:
        (dest / "clip.mp4").write_bytes(video_bytes)
    return dest / "clip.mp4"


def _truncated() -> bytes:
    data = (SAMPLES / "clean_lineup" / "clip.mp4").read_bytes()
    return data[: len(data) // 3]


def _leftovers(out: Path) -> list[Path]:
    """Half-written files or staging folders anywhere under `out`."""
    return [p for p in out.rglob("*") if ".partial" in p.name or ".old-" in p.name]


@pytest.fixture
def clips(tmp_path) -> Path:
    root = tmp_path / "clips"
    _copy_sample("clean_lineup", root / "clean_lineup")
    _copy_sample("throw_in_near_boards", root / "throw_in_near_boards")
    _copy_sample("throw_in_near_boards", root / "broken", _truncated())
    return root


# ------------------------------------------------------------------------------------
def test_batch_records_failure_goes_on_and_resumes(tmp_path, clips):
    out = tmp_path / "out"
    res = run_batch(clips, out, FAST, workers=2, detector_factory=truth_factory, progress=False)
    status = {r["clip"]: r["status"] for r in res.rows}
    assert status == {"broken/clip.mp4": "failed", "clean_lineup/clip.mp4": "ok",
                      "throw_in_near_boards/clip.mp4": "ok"}
    assert res.exit_code == 1
    broken = next(r for r in res.rows if r["status"] == "failed")
    assert "truncated" in broken["error"] and "\n" not in broken["error"]

    for name in ("clean_lineup/clip", "throw_in_near_boards/clip"):
        folder = out / name
        assert sorted(p.name for p in folder.iterdir()) == ["debrief.html", "done.json", "report.csv", "report.json"]
        marker = json.loads((folder / MARKER).read_text())
        clip = clips / name.split("/")[0] / "clip.mp4"
        assert (marker["input"]["size"], marker["input"]["mtime_ns"]) == (clip.stat().st_size, clip.stat().st_mtime_ns)
    assert not (out / "broken").exists()
    assert not _leftovers(out)

    # Summaries: JSON and CSV agree with the reports.
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"] == {"ok": 2, "skipped": 0, "failed": 1, "interrupted": 0}
    rows = {r["clip"]: r for r in csv.DictReader((out / "summary.csv").open())}
    assert list(rows) == ["broken/clip.mp4", "clean_lineup/clip.mp4", "throw_in_near_boards/clip.mp4"]
    near = json.loads((out / "throw_in_near_boards/clip/report.json").read_text())
    assert rows["throw_in_near_boards/clip.mp4"]["throw_in_frame"] == str(near["throw_in"]["frame"])
    assert rows["throw_in_near_boards/clip.mp4"]["THROW_IN_NEAR_BOARDS"] == "1"
    assert rows["throw_in_near_boards/clip.mp4"]["FIVE_YARD"] == "0"
    assert rows["clean_lineup/clip.mp4"]["events"] == "0"
    for name, row in rows.items():           # the findings to check: as many as the clip's report lists
        if row["status"] == "ok":
            listed = json.loads((out / name.replace("/clip.mp4", "/clip") / "report.json").read_text())["events_to_check"]
            assert row["to_check"] == str(len(listed))
    assert rows["broken/clip.mp4"]["to_check"] == ""
    assert rows["clean_lineup/clip.mp4"]["warnings"] == ""          # truth boxes: every player placed
    assert float(rows["clean_lineup/clip.mp4"]["processing_s"]) > 0
    assert rows["broken/clip.mp4"]["status"] == "failed" and "truncated" in rows["broken/clip.mp4"]["error"]
    assert rows["broken/clip.mp4"]["THROW_IN_NEAR_BOARDS"] == ""
    index = (out / "index.html").read_text()
    assert 'href="clean_lineup/clip/debrief.html"' in index and 'href="broken/clip/debrief.html"' not in index

    # Rerun: the completed clips are skipped (untouched), the failed one is tried again.
    done_before = (out / "clean_lineup/clip" / MARKER).stat().st_mtime_ns
    again = run_batch(clips, out, FAST, workers=1, detector_factory=truth_factory, progress=False)
    assert [r["status"] for r in again.rows] == ["failed", "skipped", "skipped"]
    assert again.rows[2]["events_by_code"] == {"THROW_IN_NEAR_BOARDS": 1}
    assert (out / "clean_lineup/clip" / MARKER).stat().st_mtime_ns == done_before
    assert again.exit_code == 1

    # Without the broken clip everything is done: exit status 0, nothing analysed.
    shutil.rmtree(clips / "broken")
    last = run_batch(clips, out, FAST, detector_factory=truth_factory, progress=False)
    assert [r["status"] for r in last.rows] == ["skipped", "skipped"] and last.exit_code == 0


def test_a_failing_or_interrupted_clip_leaves_no_marker_and_no_partial_file(tmp_path):
    clip = _copy_sample("throw_in_near_boards", tmp_path / "clips" / "near")
    out = tmp_path / "out"
    res = run_batch(tmp_path / "clips", out, FAST, detector_factory=failing_factory, progress=False)
    (row,) = res.rows
    assert row["status"] == "failed" and row["error"] == "RuntimeError: simulated failure inside the clip"
    assert res.exit_code == 1
    assert not (out / "near").exists() and not _leftovers(out)

    # An earlier complete output survives a forced rerun that is interrupted (Ctrl-C inside the clip).
    final = out / "near" / "clip"
    final.mkdir(parents=True)
    (final / "report.json").write_text('{"earlier": true}')
    st = clip.stat()
    marker = {"input": {"size": st.st_size, "mtime_ns": st.st_mtime_ns}, "outputs": ["report.json"],
              "row": {"status": "ok", "events": 0, "events_by_code": {}, "throw_in_frame": 1}}
    (final / MARKER).write_text(json.dumps(marker))
    with pytest.raises(KeyboardInterrupt):
        run_batch(tmp_path / "clips", out, FAST, force=True, detector_factory=interrupting_factory, progress=False)
    assert json.loads((final / "report.json").read_text()) == {"earlier": True}
    assert json.loads((final / MARKER).read_text()) == marker
    assert not _leftovers(out)
    summary = json.loads((out / "summary.json").read_text())
    assert [c["status"] for c in summary["clips"]] == ["interrupted"]


def test_a_worker_that_dies_fails_only_its_clip(tmp_path):
    root = tmp_path / "clips"
    _copy_sample("throw_in_near_boards", root / "crash")
    _copy_sample("throw_in_near_boards", root / "broken", _truncated())
    res = run_batch(root, tmp_path / "out", FAST, workers=2, detector_factory=crashing_factory, progress=False)
    by = {r["clip"]: r for r in res.rows}
    assert by["crash/clip.mp4"]["status"] == "failed" and "worker process died" in by["crash/clip.mp4"]["error"]
    assert by["broken/clip.mp4"]["status"] == "failed" and "truncated" in by["broken/clip.mp4"]["error"]
    assert not _leftovers(tmp_path / "out")


# ------------------------------------------------------------------------------------
def test_completed_row_needs_the_same_input_and_every_output(tmp_path):
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"0" * 100)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "report.json").write_text("{}")
    st = clip.stat()
    (folder / MARKER).write_text(json.dumps({"input": {"size": 100, "mtime_ns": st.st_mtime_ns},
                                             "outputs": ["report.json"], "row": {"status": "ok"}}))
    assert completed_row(folder, clip) == {"status": "ok"}
    os.utime(clip, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))          # the input changed
    assert completed_row(folder, clip) is None
    os.utime(clip, ns=(st.st_atime_ns, st.st_mtime_ns))
    (folder / "report.json").unlink()                                    # an output went missing
    assert completed_row(folder, clip) is None
    (folder / MARKER).write_text("{not json")
    assert completed_row(folder, clip) is None


def test_find_clips_folders_globs_and_names(tmp_path):
    src = tmp_path / "src"
    for rel in ("a/x.mp4", "a/x.MOV", "a/b/y.mkv", "c.avi", "d.m4v", "notes.txt", ".hidden.mp4", ".cache/z.mp4"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(b"v")
    (src / "out" / "a").mkdir(parents=True)
    (src / "out" / "a" / "annotated.mp4").write_bytes(b"v")             # our own output, inside the input
    root, clips = find_clips(src, exclude=src / "out")
    assert root == src.resolve()
    assert [c.relative_to(root).as_posix() for c in clips] == ["a/b/y.mkv", "a/x.MOV", "a/x.mp4", "c.avi", "d.m4v"]
    assert sorted(output_names(root, clips).values()) == ["a/b/y", "a/x_mov", "a/x_mp4", "c", "d"]
    root, clips = find_clips(str(src / "**" / "*.mkv"))
    assert root == (src / "a" / "b").resolve() and [c.name for c in clips] == ["y.mkv"]
    root, clips = find_clips([src / "a" / "b", src / "c.avi"])
    assert root == src.resolve() and [c.relative_to(root).as_posix() for c in clips] == ["a/b/y.mkv", "c.avi"]
    assert find_clips(tmp_path / "nowhere")[1] == []


def test_clip_options_from_sidecar_and_batch_flags(tmp_path):
    clip = _copy_sample("clean_lineup", tmp_path / "c")
    opts = clip_options(clip, BatchSettings(stride=2, min_run=4, annotate=False))
    assert opts.defending == {"red": "south", "blue": "north"}
    assert Path(opts.calibration) == (tmp_path / "c" / "calibration.json").resolve()
    assert set(opts.team_colours) == {"red", "blue"} and (opts.stride, opts.min_run, opts.annotate) == (2, 4, False)
    flipped = clip_options(clip, BatchSettings(defending={"red": "north", "blue": "south"}))
    assert flipped.defending == {"red": "north", "blue": "south"}                  # the flag wins
    with pytest.raises(ClipSettingsError, match="team_colours"):
        clip_options(clip, BatchSettings(defending={"gold": "north", "navy": "south"}))
    (tmp_path / "c" / "clip.polo.json").unlink()
    with pytest.raises(ClipSettingsError, match="defends"):
        clip_options(clip, BatchSettings())
    assert clip_options(clip, BatchSettings(defending={"red": "south", "blue": "north"})).calibration is None


def test_a_window_from_the_sidecar(tmp_path):
    """A sidecar's start and end (seconds or clock times) make the clip's window; a bad one is one line."""
    clip = _copy_sample("clean_lineup", tmp_path / "c")
    side = tmp_path / "c" / "clip.polo.json"
    assert clip_options(clip, BatchSettings()).window is None
    data = json.loads(side.read_text())
    side.write_text(json.dumps({**data, "start": "0:01.5", "end": 4}))
    w = clip_options(clip, BatchSettings()).window
    assert (w.start_s, w.end_s) == (1.5, 4.0)
    for bad, message in (({"start": "soon"}, "not a time"), ({"start": 5, "end": 2}, "must come after the start"),
                         ({"end": True}, "end: expected a time")):
        side.write_text(json.dumps({**data, **bad}))
        with pytest.raises(SidecarError, match=message):
            clip_options(clip, BatchSettings())


def test_hidden_horses_from_the_batch_flag_else_the_sidecar_else_on(tmp_path):
    clip = _copy_sample("clean_lineup_pan", tmp_path / "c")
    side = tmp_path / "c" / "clip.polo.json"
    assert clip_options(clip, BatchSettings()).hidden_horses
    assert not clip_options(clip, BatchSettings(hidden_horses=False)).hidden_horses
    data = json.loads(side.read_text())
    side.write_text(json.dumps({**data, "hidden_horses": False}))
    assert not clip_options(clip, BatchSettings()).hidden_horses
    assert clip_options(clip, BatchSettings(hidden_horses=True)).hidden_horses          # the flag wins
    side.write_text(json.dumps({**data, "hidden_horses": "yes"}))
    with pytest.raises(SidecarError, match="hidden_horses: expected true or false"):
        clip_options(clip, BatchSettings())


def test_bad_batches_are_refused(tmp_path):
    with pytest.raises(BatchError, match="no video files"):
        run_batch(tmp_path, tmp_path / "out", detector_factory=truth_factory)
    _copy_sample("clean_lineup", tmp_path / "c")
    with pytest.raises(BatchError, match="workers"):
        run_batch(tmp_path, tmp_path / "out", workers=0, detector_factory=truth_factory)
    with pytest.raises(BatchError, match="model file not found"):
        run_batch(tmp_path, tmp_path / "out", BatchSettings(model=str(tmp_path / "none.pt")))
    with pytest.raises(BatchError, match="ball model file not found"):
        run_batch(tmp_path, tmp_path / "out", BatchSettings(ball_model=str(tmp_path / "none.pt")))
    with pytest.raises(BatchError, match="rider/umpire classifier file not found"):
        run_batch(tmp_path, tmp_path / "out", BatchSettings(kind_model=str(tmp_path / "none.pt")))
    with pytest.raises(BatchError, match="box refiner file not found"):
        run_batch(tmp_path, tmp_path / "out", BatchSettings(refine_model=str(tmp_path / "none.pt")))
    assert not (tmp_path / "out").exists()          # refused before anything was written


# ------------------------------------------------------------------------------------
def _cli(capsys, *args) -> tuple[int, str, str]:
    rc = main(["batch", *map(str, args)])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_cli_exit_status_for_bad_arguments(tmp_path, capsys):
    rc, _, err = _cli(capsys, tmp_path, "--out", tmp_path / "out", "--quiet")
    assert rc == 2 and "no video files" in err and err.count("\n") == 1
    _copy_sample("clean_lineup", tmp_path / "c")
    for extra, needle in ((["--workers", "0"], "workers"), (["--defending", "red=south,blue=south"], "defending"),
                          (["--model", tmp_path / "none.pt"], "model file not found")):
        rc, _, err = _cli(capsys, tmp_path / "c", "--out", tmp_path / "out", "--quiet", *extra)
        assert rc == 2 and needle in err, err


def test_cli_runs_a_batch(tmp_path, capsys, monkeypatch):
    _copy_sample("throw_in_near_boards", tmp_path / "clips" / "near")
    # The CLI has no detector option: give its library call the truth-box stand-in.
    monkeypatch.setattr(batch_mod, "run_batch", functools.partial(run_batch, detector_factory=truth_factory))
    out = tmp_path / "out"
    rc, stdout, _ = _cli(capsys, str(tmp_path / "clips" / "*" / "*.mp4"), "--out", out, "--stride", "2",
                         "--no-video", "--min-run", "2", "--quiet")
    assert rc == 0 and "1 clips: 1 ok" in stdout
    report = json.loads((out / "clip" / "report.json").read_text())
    assert report["options"]["min_run"] == 2 and report["options"]["stride"] == 2
    rc, stdout, _ = _cli(capsys, str(tmp_path / "clips" / "*" / "*.mp4"), "--out", out, "--quiet")
    assert rc == 0 and "1 skipped" in stdout


# ------------------------------------------------------------------------------------
def test_dask_backend_on_a_cluster_started_here(tmp_path, clips):
    """--backend dask: the same rows, folders and resumability, on a local Dask cluster of
    two worker processes that this test starts and hands over by its scheduler address."""
    import sys

    import cloudpickle
    from dask.distributed import LocalCluster
    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # workers need not import the tests
    out = tmp_path / "out"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as cluster:
        res = run_batch(clips, out, FAST, workers=2, detector_factory=truth_factory, progress=False,
                        backend="dask", scheduler=cluster.scheduler_address)
        status = {r["clip"]: r["status"] for r in res.rows}
        assert status == {"broken/clip.mp4": "failed", "clean_lineup/clip.mp4": "ok",
                          "throw_in_near_boards/clip.mp4": "ok"}
        assert res.exit_code == 1 and "truncated" in res.rows[0]["error"]
        assert res.rows[2]["events_by_code"] == {"THROW_IN_NEAR_BOARDS": 1}
        assert (out / "clean_lineup/clip" / MARKER).exists() and not (out / "broken").exists()
        assert not _leftovers(out)
        assert json.loads((out / "summary.json").read_text())["backend"] == "dask"
        again = run_batch(clips, out, FAST, workers=2, detector_factory=truth_factory, progress=False,
                          backend="dask", scheduler=cluster.scheduler_address)
        assert [r["status"] for r in again.rows] == ["failed", "skipped", "skipped"]


def test_dask_backend_bad_settings_are_refused(tmp_path, clips, monkeypatch):
    monkeypatch.setattr("vision.batch_dask.CONNECT_TIMEOUT", "2s")
    with pytest.raises(BatchError, match="--backend"):
        run_batch(clips, tmp_path / "o", FAST, detector_factory=truth_factory, backend="ray")
    with pytest.raises(BatchError, match="--scheduler needs --backend dask"):
        run_batch(clips, tmp_path / "o", FAST, detector_factory=truth_factory, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(BatchError, match="cannot reach the Dask scheduler"):
        run_batch(clips, tmp_path / "o", FAST, detector_factory=truth_factory, backend="dask",
                  scheduler="tcp://127.0.0.1:9")


def test_a_recordings_throw_ins_from_its_sidecar_each_get_a_folder_and_a_row(tmp_path):
    """A sidecar listing two throw-ins (windows) of one recording: one job each, named by its
    start, judged on its window only (the video's frame numbers kept); a rerun skips both, and a
    changed end redoes that one; `analyze` without --start/--end says what to do."""
    clip = _copy_sample("clean_lineup", tmp_path / "rec")
    side = tmp_path / "rec" / "clip.polo.json"
    data = json.loads(side.read_text())
    swapped = {"red": "north", "blue": "south"}          # after a goal the teams change ends
    side.write_text(json.dumps({**data, "throw_ins": [{"start": 0, "end": "0:04"},
                                                      {"start": 2.5, "end": 6, "defending": swapped}]}))
    assert clip_options(clip, FAST, 0).defending == data["defending"]
    assert clip_options(clip, FAST, 1).defending == swapped
    out = tmp_path / "out"
    res = run_batch(tmp_path / "rec", out, FAST, detector_factory=truth_factory, progress=False)
    assert [(r["clip"], r["output"], r["status"]) for r in res.rows] == [
        ("clip.mp4@0m00s", "clip@0m00s", "ok"), ("clip.mp4@0m02.5s", "clip@0m02.5s", "ok")]
    first = json.loads((out / "clip@0m00s" / "report.json").read_text())
    second = json.loads((out / "clip@0m02.5s" / "report.json").read_text())
    assert (first["window"]["first_frame"], first["window"]["last_frame"]) == (0, 99)
    assert [f["index"] for f in first["frames"]] == list(range(0, 100, 2))                  # every 2nd frame
    assert second["window"]["first_frame"] == 63 and second["frames"][0]["index"] == 64
    assert first["throw_in"]["frame"] is not None and abs(first["throw_in"]["frame"] - 75) <= 3
    again = run_batch(tmp_path / "rec", out, FAST, detector_factory=truth_factory, progress=False)
    assert [r["status"] for r in again.rows] == ["skipped", "skipped"]
    side.write_text(json.dumps({**data, "throw_ins": [{"start": 0, "end": "0:04"},
                                                      {"start": 2.5, "end": 5, "defending": swapped}]}))
    third = run_batch(tmp_path / "rec", out, FAST, detector_factory=truth_factory, progress=False)
    assert [r["status"] for r in third.rows] == ["skipped", "ok"]
    rc = main(["analyze", str(clip), "--out", str(tmp_path / "one"), "--quiet", "--no-video"])
    assert rc == 2 and not (tmp_path / "one").exists()


@pytest.mark.parametrize("bad, message", [
    ({"throw_ins": []}, "expected a list of objects"),
    ({"throw_ins": [{"start": 1, "end": 2}], "start": 3}, "inside each of throw_ins"),
    ({"throw_ins": [{"start": 1, "end": 2, "colour": "red"}]}, r"throw_ins\[0\]: unknown key"),
    ({"throw_ins": [{"start": 3, "end": 2}]}, r"throw_ins\[0\]: the end time"),
    ({"throw_ins": [{"start": 1, "end": 2}, {"start": "0:01", "end": 3}]}, "start at the same time"),
    ({"throw_ins": [{"start": 1, "throw_in_frame": -2}]}, "throw_in_frame: expected a frame number"),
    ({"throw_ins": [{"start": 1, "defending": {"red": "south"}}]}, "defending"),
    ({"throw_ins": [{"start": 1}, {"throw_in_frame": 3}]}, r"throw_ins\[1\]: give its start"),
    ({"throw_ins": [{"start": 1, "defending": {"red": "south", "blue": None}}]}, "defending"),
    ({"throw_ins": [{"start": 1, "calibration": 7}]}, r"throw_ins\[0\]: calibration: expected a path")])
def test_bad_throw_in_lists_are_refused_in_one_line(tmp_path, bad, message):
    clip = _copy_sample("clean_lineup", tmp_path / "rec")
    side = tmp_path / "rec" / "clip.polo.json"
    side.write_text(json.dumps({**json.loads(side.read_text()), **bad}))
    from vision.sidecar import load_sidecar
    with pytest.raises(SidecarError, match=message):
        load_sidecar(clip)


def test_a_throw_in_may_have_its_own_calibration(tmp_path):
    """Broadcast footage cuts to other views: a throw-in's own calibration (a path relative to
    the sidecar, or the object) wins over the file's, as its own ends do."""
    from vision.batch import BatchSettings, clip_options
    clip = _copy_sample("clean_lineup", tmp_path / "rec")
    side = tmp_path / "rec" / "clip.polo.json"
    own = {"points": [], "frame": 90}
    side.write_text(json.dumps({**json.loads(side.read_text()), "throw_ins": [
        {"start": 0, "end": 2}, {"start": 2, "end": 4, "calibration": "second-shot.json"},
        {"start": 4, "calibration": own}]}))
    settings = BatchSettings()
    assert clip_options(clip, settings, 0).calibration == str((tmp_path / "rec" / "calibration.json").resolve())
    assert clip_options(clip, settings, 1).calibration == str((tmp_path / "rec" / "second-shot.json").resolve())
    assert clip_options(clip, settings, 2).calibration == own
