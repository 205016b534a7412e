"""Render a whole scenario to DIR/clip.mp4, DIR/truth.json and DIR/calibration.json."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from synth.encode import calibration_json, write_json_atomic, write_text_atomic
from vision.video_io import VideoWriter
from synth.render import Renderer
from synth.scenario import Scenario, ScenarioError
from synth.truth import calibration_document, expected_verdicts, frame_truth, positions_document, truth_document


@dataclass
class ClipResult:
    out_dir: Path
    n_frames: int
    seconds: float
    truth: dict

    @property
    def fps_rendered(self) -> float:
        return self.n_frames / self.seconds if self.seconds > 0 else 0.0


def render_clip(scenario: Scenario, out_dir: str | Path, with_expected: bool = True, progress=None,
                crf: int | None = None) -> ClipResult:
    """Render every frame, encode, and write truth and calibration (all atomically).

    `progress(i, n)` is called after each frame. Raises ScenarioError when the rules engine
    rejects the scenario's positions (e.g. a player beyond the run-out).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    r = Renderer(scenario)
    changing = {o.id for o in scenario.objects if o.changing_horse}
    frames = []
    cam0 = r.camera(0)
    n = scenario.n_frames
    # verdicts first (from the true tracks): a rejected scenario fails before any pixel is drawn
    expected = expected_for(scenario) if with_expected else None
    with VideoWriter(out / "clip.mp4", scenario.fps, size=tuple(scenario.image_size),
                     crf=int(round(crf if crf is not None else r.look.crf)), preset="medium") as mp4:
        for i in range(n):
            img, records, cam = r.render(i)
            mp4.write(img)
            frames.append(frame_truth(scenario, i, cam, records, changing))
            if progress:
                progress(i + 1, n)
    doc = truth_document(scenario, frames, expected)
    write_json_atomic(out / "truth.json", doc, indent=None)       # compact: ~0.5 MB a clip, not 1.3
    write_text_atomic(out / "calibration.json", calibration_json(calibration_document(scenario, cam0, 0)))
    return ClipResult(out, n, time.perf_counter() - start, doc)


def expected_for(scenario: Scenario) -> dict:
    """The rules engine's verdicts on the scenario's true positions (no rendering needed)."""
    from synth.motion import sample_motion
    changing = {o.id for o in scenario.objects if o.changing_horse}
    times = scenario.times()
    frames = []
    motions = {o.id: sample_motion(o, times) for o in scenario.objects}
    for i in range(scenario.n_frames):
        objs = []
        for o in scenario.objects:
            p = motions[o.id].pos[i]
            d = {"id": o.id, "role": o.role, "team": o.team, "x": round(float(p[0]), 3), "y": round(float(p[1]), 3)}
            if o.id in changing:
                d["changing_horse"] = True
            objs.append(d)
        fr = {"index": i, "t": round(i / scenario.fps, 4), "phase": scenario.phase(i), "objects": objs}
        play = scenario.plays_by_frame().get(i)
        if play:
            fr["play"] = {"player": play}
        frames.append(fr)
    try:
        return expected_verdicts(positions_document(scenario, frames))
    except ValueError as exc:          # rules.InvalidDocument
        raise ScenarioError(f"the rules engine rejects this scenario's positions: {exc}") from None
