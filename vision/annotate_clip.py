"""Pass two: draw the analysis back onto the footage and write annotated.mp4."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from reports.writers import named_numbers, players_shown, plus_minus
from vision.draw import CHECK_BGR, Marker, annotate
from vision.map_view import plan_views
from vision.video_io import VideoWriter, Window, open_video, prefetch


HOLD_FRAMES = 12                # a banner line stays ~0.5 s after its event ends


def _active(events: list[dict], frame_index: int) -> list[dict]:
    return [ev for ev in events if ev["start_frame"] <= frame_index <= ev["end_frame"] + HOLD_FRAMES]


def event_flags(events: list[dict], to_check: list[dict], frame_index: int) -> dict:
    """Track id -> colour of the players the banner names at this frame: red for a
    violation, amber for a finding to check (a violation's red wins)."""
    flags = {}
    for evs, colour in ((to_check, CHECK_BGR), (events, (0, 0, 255))):
        for ev in _active(evs, frame_index):
            for who in (ev.get("player"), ev.get("opponent")):
                if who:
                    flags[who] = colour
    return flags


def event_lines(events: list[dict], frame_index: int, prefix: str = "") -> list[str]:
    out = []
    for ev in _active(events, frame_index):
        w = ev["worst"]
        # OpenCV's Hershey font has no "±": "+/-" on the picture
        num = next((f" {w[k]:.1f}{plus_minus(w, k, 1, sign='+/-')} yd"
                    for k in ("distance_yd", "across_yd") if k in w), "")
        who = players_shown(ev, " x ")
        out.append(f"{prefix}{ev['code'].replace('_', ' ')} {who}{num}".strip())
    return out


# x264 "ultrafast": the annotated pass (decode, draw, encode) 1.6 s for clean_lineup_pan's 200
# frames against 2.0 s with "superfast" and 2.5 s with "veryfast" (3 rounds each, one run,
# session 11), for 1.5x superfast's bytes (2.8 MB, ~2.8 Mbit/s at 720p; veryfast 1.0 MB).
# Debrief clips are short and watched locally; every browser plays its Constrained Baseline.
ANNOTATED_PRESET = "ultrafast"
BALL_BGR = (0, 230, 255)        # the ring around a ball sighting
ANOTHER_SHOT = "ANOTHER CAMERA: NOT JUDGED"     # the banner over a cutaway the analysis skipped
REPLAY_SHOT = "REPLAY: NOT JUDGED"              # ... over a replay of the calibrated camera's footage


def write_annotated(video: str | Path, analysis, out_path: str | Path, team_colours=None,
                    progress: Callable[[int, int], None] | None = None) -> Path:
    by_index = {fr["index"]: fr for fr in analysis.report["frames"]}
    obs_by_index = {f.index: f for f in analysis.frames}
    window = analysis.report.get("window")           # the part of the video analysed, if not all of it
    reader = open_video(video, window=Window(window["start_s"], window["end_s"]) if window else None)
    fps = reader.fps or 25.0
    markers: list[Marker] = []
    H_inv = None
    cut = (analysis.report.get("camera_cut") or {}).get("frame")     # the analysis stopped there
    away = [(c["cut_frame"], c["found_frame"], REPLAY_SHOT if c.get("replay") else ANOTHER_SHOT)
            for c in analysis.report.get("cutaways") or []]      # other shots and replays, skipped
    length, width = analysis.batch.field.length_yd, analysis.batch.field.width_yd
    # The inset zooms onto the players (vision.map_view), planned over the whole clip at once.
    placed = [np.array([(o["x_yd"], o["y_yd"]) for o in fr["players"] + fr["umpires"]], float).reshape(-1, 2)
              for fr in analysis.report["frames"]]
    views = dict(zip(by_index, plan_views(placed, [fr["t"] for fr in analysis.report["frames"]], length, width)))
    view = None
    to_check = analysis.report.get("events_to_check") or []
    # "red-t7" → 2 where his shirt number was read ("Red #2"; vision.shirt_numbers)
    shirts = named_numbers(analysis.report)
    done = 0
    with VideoWriter(out_path, fps, preset=ANNOTATED_PRESET) as writer:
        kept = getattr(analysis, "kept_frames", None)
        frames = kept.replay(reader, prefetch) if kept is not None else ((i, f) for i, _t, f in prefetch(reader))
        for index, frame in frames:
            if cut is not None and index >= cut:
                break                     # another shot: nothing was analysed, nothing to draw
            fr = by_index.get(index)
            if fr is not None:
                markers = [Marker(o["id"], o["team"], o["box_px"], (o["x_yd"], o["y_yd"]), o.get("horse_hidden", False),
                                  shirts.get(o["id"])) for o in fr["players"]]
                markers += [Marker(o["id"], "umpire", o["box_px"], (o["x_yd"], o["y_yd"]), o.get("horse_hidden", False))
                            for o in fr["umpires"]]
                H_inv = np.linalg.inv(obs_by_index[index].H)
                view = views[index]
            lines = event_lines(analysis.events, index) + [
                (text, CHECK_BGR) for text in event_lines(to_check, index, "CHECK: ")]
            flags = event_flags(analysis.events, to_check, index)
            if fr is not None and fr["phase"] == "throw_in":
                lines = ["THROW-IN"] + lines
            other_shot = next((banner for a, b, banner in away if a <= index < b), None)   # nothing of ours to draw
            if other_shot:
                markers, H_inv, lines = [], None, [other_shot]
            out = annotate(frame, markers, H_inv, lines, colours=team_colours, copy=False,      # a new frame each time
                           length=length, width=width, minimap=other_shot is None, map_view=view,
                           flags=None if other_shot else flags)
            obs = obs_by_index.get(index)
            if obs is not None and obs.ball_px is not None:          # where the ball was seen
                cv2.circle(out, (int(round(obs.ball_px[0])), int(round(obs.ball_px[1]))), 9, BALL_BGR, 2, cv2.LINE_AA)
            writer.write(out)
            done += 1
            if progress:
                progress(done, max(done, reader.n_window_frames))
    reader.close()
    return Path(out_path)
