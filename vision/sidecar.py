"""Per-clip settings from a sidecar file next to the video, so a folder of clips needs no
command line per clip.

For VIDEO = path/to/clip.mp4 the first of these that exists is read:
  path/to/clip.polo.json     (this clip only)
  path/to/polo.json          (every clip in the folder)
Format (every key optional; command-line options win over the file):
  {"defending": {"red": "south", "blue": "north"},
   "calibration": "calibration.json",          # a path relative to the sidecar, or the calibration object itself
   "team_colours": {"red": "#c82828", "blue": [25, 80, 190]},   # hex RGB, or a BGR list
   "throw_in_frame": 62,
   "field": {"length_yd": 300, "width_yd": 160},
   "hidden_horses": true,                      # a camera looking along the line-up's ranks (vision.players)
   "start": "1:23", "end": 112.5}              # analyse only this part: seconds, m:ss or h:mm:ss
or, for a recording of several throw-ins, instead of start/end (`batch` judges each in its own
output folder, CLIP@2m13s/; `analyze` wants --start/--end then):
  {"throw_ins": [{"start": "2:13", "end": "2:41"},
                 {"start": "9:05", "end": "9:30", "throw_in_frame": 13660, "defending": {"red": "north", "blue": "south"},
                  "calibration": "after-the-cut.calibration.json"}]}
(a throw-in's own `defending` and `calibration` win: the teams change ends after every goal, and
broadcast footage cuts to other views: calibrate a frame of that throw-in's own shot)
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

KEYS = {"defending", "calibration", "team_colours", "throw_in_frame", "field", "hidden_horses", "start", "end",
        "throw_ins"}
PART_KEYS = {"start", "end", "throw_in_frame", "defending", "calibration"}   # a throw-in's own win: ends change
                                                                          # after every goal, a camera after a cut


REPLACED_BY_THROW_INS = {"throw_ins", "start", "end", "throw_in_frame"}   # what a written throw_ins list replaces


class SidecarError(ValueError):
    pass


def sidecar_path(video: str | Path) -> Path | None:
    video = Path(video)
    for cand in (video.with_name(video.stem + ".polo.json"), video.with_name("polo.json")):
        if cand.is_file():
            return cand
    return None


def parse_colour(value: Any, where: str) -> tuple[int, int, int]:
    if isinstance(value, str):
        h = value.strip().lstrip("#")
        if len(h) == 6:
            try:
                r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
                return (b, g, r)
            except ValueError:
                pass
    elif isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in value):
        return tuple(value)  # type: ignore[return-value]
    raise SidecarError(f"{where}: expected \"#RRGGBB\" or [B, G, R], got {value!r}")


def defending_ok(defending: Any) -> bool:
    """Two named teams, one defending south and one north."""
    return (isinstance(defending, dict) and len(defending) == 2
            and sorted(map(str, defending.values())) == ["north", "south"]
            and all(isinstance(v, str) for v in defending.values()) and all(isinstance(t, str) and t for t in defending))


def hidden_horses_setting(given: bool | None, side: dict) -> bool:
    """Riders of hidden horses on or off: as given on the command line, else the sidecar's
    `hidden_horses`, else on."""
    return bool(side.get("hidden_horses", True)) if given is None else bool(given)


def window_setting(start: str | float | None, end: str | float | None, side: dict):
    """The part of the video to analyse (vision.video_io.Window), from the command line's
    --start / --end (times as text), else the sidecar's; None for the whole video. ValueError
    (one line) for a time that cannot be read or an end before the start."""
    from vision.errors import VideoError
    from vision.video_io import Window, parse_time
    start = side.get("start") if start is None else start
    end = side.get("end") if end is None else end
    if start is None and end is None:
        return None
    seconds = [None if v is None else float(v) if isinstance(v, (int, float)) else parse_time(v) for v in (start, end)]
    try:
        return Window(seconds[0] or 0.0, seconds[1])
    except VideoError as exc:
        raise ValueError(str(exc)) from None


def _read_object(path: Path) -> dict:
    """The JSON object in `path`; SidecarError (one line) when it cannot be read or is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SidecarError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise SidecarError(f"{path}: expected a JSON object")
    return data


def load_sidecar(video: str | Path) -> dict:
    """The sidecar's settings (calibration resolved to an absolute path), or {} when there is none."""
    path = sidecar_path(video)
    if path is None:
        return {}
    data = _read_object(path)
    unknown = set(data) - KEYS
    if unknown:
        raise SidecarError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    out = dict(data)
    if isinstance(out.get("calibration"), str):
        out["calibration"] = str((path.parent / out["calibration"]).resolve())
    if "team_colours" in out:
        if not isinstance(out["team_colours"], dict):
            raise SidecarError(f"{path}: team_colours: expected an object of team → colour")
        out["team_colours"] = {t: parse_colour(c, f"{path}: team_colours.{t}") for t, c in out["team_colours"].items()}
    if "hidden_horses" in out and not isinstance(out["hidden_horses"], bool):
        raise SidecarError(f"{path}: hidden_horses: expected true or false")
    _check_window(out, str(path))
    if "throw_ins" in out:
        parts = out["throw_ins"]
        if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) for p in parts):
            raise SidecarError(f"{path}: throw_ins: expected a list of objects with start and end")
        if "start" in out or "end" in out or "throw_in_frame" in out:
            raise SidecarError(f"{path}: give start, end and throw_in_frame inside each of throw_ins, not beside them")
        out["throw_ins"] = parts = [dict(p) for p in parts]
        for k, part in enumerate(parts):
            where = f"{path}: throw_ins[{k}]"
            unknown = set(part) - PART_KEYS
            if unknown:
                raise SidecarError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
            if part.get("start") is None and part.get("end") is None:
                raise SidecarError(f"{where}: give its start (and end)")
            _check_window(part, where)
            if "defending" in part and not defending_ok(part["defending"]):
                raise SidecarError(f"{where}: defending: name two teams, one defending south and one north")
            if isinstance(part.get("calibration"), str):
                part["calibration"] = str((path.parent / part["calibration"]).resolve())
            elif "calibration" in part and not isinstance(part["calibration"], dict):
                raise SidecarError(f"{where}: calibration: expected a path or the calibration object")
        labels = [part_label(w) for w in windows(out)]
        if len(set(labels)) != len(labels):
            raise SidecarError(f"{path}: throw_ins: two of them start at the same time")
    out["_path"] = str(path)
    return out


def _check_window(d: dict, where: str) -> None:
    """SidecarError unless `d`'s start / end / throw_in_frame (those present) make a window."""
    for key in ("start", "end"):
        value = d.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float, str))):
            raise SidecarError(f"{where}: {key}: expected a time (seconds, \"m:ss\" or \"h:mm:ss\")")
    if "throw_in_frame" in d and not (isinstance(d["throw_in_frame"], int) and not isinstance(d["throw_in_frame"], bool)
                                      and d["throw_in_frame"] >= 0):
        raise SidecarError(f"{where}: throw_in_frame: expected a frame number")
    try:
        window_setting(None, None, d)
    except ValueError as exc:
        raise SidecarError(f"{where}: {exc}") from None


def windows(side: dict) -> list:
    """The windows (vision.video_io.Window) of a sidecar's throw_ins, in its order; [] without."""
    return [window_setting(None, None, part) for part in side.get("throw_ins", [])]


def part_label(window) -> str:
    """A throw-in's name in output folders: its start, e.g. '2m13s', '1h02m05.5s', '0m00s'."""
    s = window.start_s
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    sec_text = f"{sec:05.2f}".rstrip("0").rstrip(".") if sec != int(sec) else f"{int(sec):02d}"
    return (f"{int(h)}h{int(m):02d}m" if h else f"{int(m)}m") + f"{sec_text}s"


def write_throw_ins(video: str | Path, throw_ins: list[dict], replace: bool = False) -> Path:
    """Write `throw_ins` into the clip's own sidecar (CLIP.polo.json; made from the folder's
    polo.json, whose settings it then carries, when that is the one read), atomically, and
    return its path. SidecarError (check_throw_ins_writable) when it may not."""
    from reports.atomic import write_json
    video = Path(video)
    data = check_throw_ins_writable(video, replace)
    for key in REPLACED_BY_THROW_INS:
        data.pop(key, None)
    data["throw_ins"] = throw_ins
    target = video.with_name(video.stem + ".polo.json")
    write_json(target, data, indent=2)
    return target


def check_throw_ins_writable(video: str | Path, replace: bool = False) -> dict:
    """The sidecar's contents as written ({} without one); SidecarError when it cannot be read,
    or already gives throw_ins or a start, end or throw_in_frame (which a throw_ins list
    replaces) and `replace` is False."""
    path = sidecar_path(video)
    if path is None:
        return {}
    data = _read_object(path)
    clash = sorted(REPLACED_BY_THROW_INS & set(data))
    if clash and not replace:
        raise SidecarError(f"{path} already gives {', '.join(clash)}: --replace to put the throw-ins found in "
                           "their place")
    return data
