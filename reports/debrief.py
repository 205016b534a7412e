"""debrief.html: one page per analysed clip for the umpires' debrief, and index.html of a batch.

The page is self-contained and opens offline: every picture is embedded as a base64 PNG.
It holds
- the verdict in a sentence, the throw-in, the calibration and the settings, and a warning
  when a team had fewer than four players placed for most of the line-up (reports.coverage);
- a timeline of the violation events over the clip (matplotlib), the throw-in marked;
- the top-down field in yards at the throw-in (whole field, and a close-up of the line-up):
  players in team colours, umpires with their 5-yd circles, the centre line, the 20-yd
  lines from the boards, objects in violation ringed in red (amber: a finding to check);
- a table of the events: code, who, frames, a link that plays the clip from the event
  (``annotated.mp4#t=SECONDS``, or the source clip when there is no annotated one),
  the measure that makes it a violation (distance, yards across, speed) and a thumbnail
  of the frame where it is worst, with the boxes and ids of the analysis drawn on it
  (vision.draw) and a close-up on the players and umpire involved;
- the notes (not violations) of the rules engine.

    write_debrief(report, video_path, out_dir) -> out_dir/debrief.html
    write_index(rows, out_dir, meta) -> out_dir/index.html    (rows: vision.batch summary rows)
"""
from __future__ import annotations

import base64
import html
import io
import os
from pathlib import Path
from typing import Mapping, Sequence
from urllib.parse import quote

import numpy as np

from reports.atomic import write_text
from reports.coverage import (camera_cut_warning, camera_drift_warning, coverage_warnings, cutaway_warnings,
                              later_play_warning, players_throw_in_warning)
from reports.writers import (named_numbers, note_line, note_runs, part_analysed, player_names, player_teams,
                             players_shown, plus_minus, shown, unseen_hit_note, withheld_reason)
from rules.events import WORST, event_key

THUMB_WIDTH = 480
MAX_THUMBNAILS = 40

TITLES = {"FIVE_YARD": "within 5 yards of an umpire", "WRONG_SIDE": "on the wrong side of the centre line",
          "REVERSED_LINEUP": "reversed (wrong-way) line-up",
          "THROW_IN_NEAR_BOARDS": "throw-in 20 yards or less from the boards",
          "ILLEGAL_PLAY_FROM_WRONG_SIDE": "play from the wrong side before he may play",
          "CONTACT_BEFORE_THROW_IN": "contact before the throw-in", "RUSHING_UMPIRE": "rushing the umpire",
          "IMPROPER_POSITIONING": "out of the line-up, then plays (delayed foul)"}
CODE_COLOURS = {"FIVE_YARD": "#d62728", "WRONG_SIDE": "#ff7f0e", "REVERSED_LINEUP": "#8c564b",
                "THROW_IN_NEAR_BOARDS": "#9467bd", "ILLEGAL_PLAY_FROM_WRONG_SIDE": "#e377c2",
                "CONTACT_BEFORE_THROW_IN": "#1f77b4", "RUSHING_UMPIRE": "#bcbd22", "IMPROPER_POSITIONING": "#17becf"}

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;margin:24px;color:#1d2327;background:#fff}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.sub{color:#555;margin:0 0 14px} .verdict{font-size:16px;padding:10px 14px;border-radius:6px;display:inline-block}
.bad{background:#fde8e8;border:1px solid #e6a3a3} .good{background:#e7f6e9;border:1px solid #9fd3a7}
.warn{background:#fff6e0;border:1px solid #e8c96b;font-size:14px}
table{border-collapse:collapse;font-size:14px}
th,td{border:1px solid #d4d8dc;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f5} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
img.plot{max-width:100%;height:auto;border:1px solid #e2e5e8} img.thumb{width:320px;height:auto;display:block}
.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600} .muted{color:#666}
.chip{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;vertical-align:middle}
.ok{color:#1b7f35;font-weight:600} .failed{color:#b3261e;font-weight:600} .skipped{color:#555;font-weight:600}
.interrupted{color:#a15c00;font-weight:600}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:14px}
dt{color:#555} dd{margin:0}
"""


# ------------------------------------------------------------------------------------
# Small helpers
# ------------------------------------------------------------------------------------
def _e(v) -> str:
    return html.escape("" if v is None else str(v), quote=True)


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _hex(bgr: Sequence[int]) -> str:
    b, g, r = (int(c) for c in bgr)
    return f"#{r:02x}{g:02x}{b:02x}"


def team_colours_bgr(report: dict) -> dict:
    """Team → BGR: the report's colour hints, else the drawing defaults (vision.draw)."""
    from vision.draw import UMPIRE, team_colour
    hints = (report.get("options") or {}).get("team_colours") or {}
    teams = list((report.get("options") or {}).get("defending") or {})
    return {**{t: team_colour(t, hints) for t in teams}, UMPIRE: (255, 255, 255)}


def _field_size(report: dict) -> tuple[float, float]:
    from vision.homography import DEFAULT_LENGTH, DEFAULT_WIDTH
    fld = (report.get("options") or {}).get("field") or {}
    return float(fld.get("length_yd", DEFAULT_LENGTH)), float(fld.get("width_yd", DEFAULT_WIDTH))


def _duration(report: dict) -> float:
    frames = report.get("frames") or []
    fps = report.get("fps") or 25.0
    return (frames[-1]["t"] + 1.0 / fps) if frames else 0.0


def shirt_numbers_text(shirts: dict | None) -> str:
    """What the shirt-number reader gave, in words (vision.shirt_numbers)."""
    if not shirts or not shirts.get("reader"):
        return "no shirt-number reader was run"
    named = shirts.get("named") or {}
    text = f"{len(named)} track{'' if len(named) == 1 else 's'} named by {shirts.get('reads', 0)} reads"
    same = shirts.get("same_player") or []
    if same:
        text += "; one player followed by more than one track: " + "; ".join(", ".join(g) for g in same)
    return text


def players_html(report: dict) -> str:
    """Who is who: each team's shirt numbers read and the tracks that carry them, then the
    tracks with none (vision.shirt_numbers); empty when no reader ran."""
    shirts = report.get("shirt_numbers") or {}
    if not shirts.get("reader"):
        return ""
    named = named_numbers(report)
    tracks: dict[str, list[str]] = {}
    for pid, team in player_teams(report).items():
        tracks.setdefault(team or "", []).append(pid)
    rows = []
    for team, ids in sorted(tracks.items()):
        numbers = sorted({named[i] for i in ids if i in named})
        cells = [f"<b>#{n}</b>: {_e(', '.join(i for i in ids if named.get(i) == n))}" for n in numbers]
        rest = [i for i in ids if i not in named]
        if rest:
            cells.append(f"<span class=\"muted\">not read: {_e(', '.join(rest))}</span>")
        rows.append(f"<tr><td>{_e(team)}</td><td>{'; '.join(cells)}</td></tr>")
    return ("<h2>Players</h2><p class=\"sub\">The shirt numbers read on each team's tracks (a number is "
            "a vote over a track's reads; tracks of one number one after the other are one player "
            "followed twice).</p><table id=\"players\"><thead><tr><th>team</th><th>shirt numbers and tracks"
            f"</th></tr></thead><tbody>{''.join(rows)}</tbody></table>") if rows else ""


def who(ev: dict) -> str:
    w = ev.get("worst") or {}
    if ev.get("player") and ev.get("opponent"):
        return players_shown(ev, " × ")
    if ev.get("player"):
        return shown(ev) + (f" (umpire {w['umpire']})" if w.get("umpire") else "")
    if w.get("umpire"):
        return f"umpire {w['umpire']}"
    if "players" in w:
        return f"{w['players']} players"
    return ""


def measure(ev: dict) -> str:
    """The number that makes the event a violation, in words (and, for a play whose hit was
    not seen, that it was placed from the ball's flight)."""
    note = unseen_hit_note(ev)
    return _measure(ev) + (f"; {note}" if note else "")


def _measure(ev: dict) -> str:
    w, c = ev.get("worst") or {}, ev["code"]
    f = lambda k: float(w[k])  # noqa: E731
    pm = lambda k: plus_minus(w, k, 1)  # noqa: E731    " ±0.3": the measure's 1 sigma, where measured
    try:
        if c == "FIVE_YARD":
            return f"{f('distance_yd'):.1f}{pm('distance_yd')} yd from umpire {w.get('umpire', '')} (limit {f('limit_yd'):g} yd)"
        if c == "CONTACT_BEFORE_THROW_IN":
            return (f"{f('distance_yd'):.1f}{pm('distance_yd')} yd from {w.get('opponent', 'an opponent')} "
                    f"(limit {f('limit_yd'):g} yd)")
        if c == "THROW_IN_NEAR_BOARDS":
            return (f"{f('distance_yd'):.1f}{pm('distance_yd')} yd from the {w.get('sideline', '')} boards "
                    f"(must be more than {f('limit_yd'):g} yd)")
        if c == "WRONG_SIDE":
            return f"{f('across_yd'):.1f}{pm('across_yd')} yd across the centre line (defends {w.get('defending', '?')})"
        if c == "RUSHING_UMPIRE":
            return f"closing on umpire {w.get('umpire', '')} at {f('closing_speed_yds'):.1f}{pm('closing_speed_yds')} yd/s"
        if c == "REVERSED_LINEUP":
            return f"{w['players']} players lined up the wrong way (no redress)"
        if c == "ILLEGAL_PLAY_FROM_WRONG_SIDE":
            return f"played when the ball had travelled {f('ball_travel_yd'):.1f} yd"
        if c == "IMPROPER_POSITIONING":
            return f"{f('distance_from_centre_yd'):.1f} yd from the centre line at the throw-in"
    except (KeyError, TypeError, ValueError):
        pass
    return ", ".join(f"{k} {v:.1f}" for k, v in w.items() if k.endswith("_yd") and isinstance(v, (int, float)))


def worst_frame(report: dict, ev: dict, records: str = "violations") -> int:
    """Video frame index where the event is worst (its worst measure), else its start; the
    frames' `records` list holds its records (`to_check` for a finding to check)."""
    key = event_key(ev["worst"]) if ev.get("worst") else (ev["code"], ev.get("player"), ev.get("opponent"))
    fld = WORST.get(ev["code"], (None, None))[0]
    target = (ev.get("worst") or {}).get(fld)
    first = None
    for fr in report["frames"]:
        if not ev["start_frame"] <= fr["index"] <= ev["end_frame"]:
            continue
        for v in fr.get(records) or []:
            if event_key(v) == key:
                if fld is None or target is None or v.get(fld) == target:
                    return fr["index"]
                first = fr["index"] if first is None else first
    return ev["start_frame"] if first is None else first


def _frame_by_index(report: dict, index: int) -> dict | None:
    best = None
    for fr in report["frames"]:
        if fr["index"] <= index:
            best = fr
        else:
            break
    return best


def video_href(video_path: str | Path | None, out_dir: str | Path) -> str:
    """What the event links play: annotated.mp4 beside the page, else the source clip."""
    out = Path(out_dir)
    if (out / "annotated.mp4").is_file() or video_path is None:
        return "annotated.mp4"
    try:
        return quote(Path(os.path.relpath(Path(video_path).resolve(), out.resolve())).as_posix())
    except ValueError:                                        # another drive
        return Path(video_path).resolve().as_uri()


# ------------------------------------------------------------------------------------
# Pictures
# ------------------------------------------------------------------------------------
def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def _figure(w_in: float, h_in: float):
    from matplotlib.figure import Figure
    return Figure(figsize=(w_in, h_in), layout="constrained")


def timeline_png(report: dict) -> bytes:
    """Violation events over the clip: one row per code and player, bars over their frames."""
    events = report.get("events") or []
    fps = report.get("fps") or 25.0
    dur = max(_duration(report), 1.0 / fps)
    labels: list[str] = []
    for ev in events:
        lab = f"{ev['code']}  {who(ev)}".strip()
        if lab not in labels:
            labels.append(lab)
    fig = _figure(11, 1.5 + 0.34 * max(len(labels), 1))
    ax = fig.add_subplot()
    ti = (report.get("throw_in") or {}).get("t")
    if ti is not None:
        ax.axvspan(0, ti, color="#eef2f7", zorder=0, label="line-up")
        ax.axvline(ti, color="#333", ls="--", lw=1.2, zorder=3)
        ax.text(ti, 1.0, " throw-in", transform=ax.get_xaxis_transform(), va="bottom", ha="left", fontsize=9)
    for ev in events:
        row = labels.index(f"{ev['code']}  {who(ev)}".strip())
        colour = CODE_COLOURS.get(ev["code"], "#444")
        width = max(ev["end_s"] - ev["start_s"], 1.0 / fps)
        ax.broken_barh([(ev["start_s"], width)], (row - 0.33, 0.66), color=colour, zorder=2)
        if ev["end_frame"] == ev["start_frame"]:
            ax.plot([ev["start_s"]], [row], marker="D", color=colour, ms=7, mec="k", zorder=4)
        wf = worst_frame(report, ev)
        wt = next((fr["t"] for fr in report["frames"] if fr["index"] == wf), None)
        if wt is not None:
            ax.plot([wt], [row], marker="|", color="k", ms=16, mew=2, zorder=5)
    ax.set_xlim(0, dur)
    ax.set_ylim(-0.7, max(len(labels), 1) - 0.3)
    ax.set_yticks(range(len(labels)), labels, fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("time in the clip (s)   | = worst frame")
    ax.grid(axis="x", color="#ddd", lw=0.8, zorder=1)
    if not events:
        ax.set_yticks([])
        ax.text(0.5, 0.5, "no Rule 20 violation", transform=ax.transAxes, ha="center", va="center",
                fontsize=13, color="#1b7f35")
    ax.set_title(f"Violation events ({len(events)})", fontsize=11, loc="left")
    return _png(fig)


def _map_frame(report: dict) -> tuple[dict | None, str]:
    frames = report.get("frames") or []
    ti = (report.get("throw_in") or {}).get("frame")
    if ti is not None:
        fr = next((f for f in frames if f["index"] == ti), None) or _frame_by_index(report, ti)
        if fr is not None:
            return fr, f"at the throw-in (frame {fr['index']}, {fr['t']:.2f} s)"
    lineup = [f for f in frames if f["phase"] == "lineup"]
    fr = lineup[-1] if lineup else (frames[-1] if frames else None)
    if fr is None:
        return None, "no frame analysed"
    return fr, f"throw-in not found: last line-up frame (frame {fr['index']}, {fr['t']:.2f} s)"


def sigma_ellipse(cov_yd2, sigmas: float = 2.0) -> tuple[float, float, float] | None:
    """(width, height, angle in degrees) of the `sigmas` ellipse of a position's covariance
    [xx, xy, yy] (yd²), in field axes; None without a covariance."""
    if not cov_yd2 or any(v is None for v in cov_yd2):
        return None
    xx, xy, yy = (float(v) for v in cov_yd2)
    vals, vecs = np.linalg.eigh(np.array([[xx, xy], [xy, yy]]))
    vals = np.maximum(vals, 0.0)
    angle = float(np.degrees(np.arctan2(vecs[1, 1], vecs[0, 1])))          # the larger axis's direction
    return 2 * sigmas * float(np.sqrt(vals[1])), 2 * sigmas * float(np.sqrt(vals[0])), angle


def check_bgr() -> tuple[int, int, int]:
    """The amber of a finding to check: the annotated clip's (vision.draw, imported when needed)."""
    from vision.draw import CHECK_BGR
    return CHECK_BGR


def check_hex() -> str:
    b, g, r = check_bgr()
    return f"#{r:02x}{g:02x}{b:02x}"


def field_map_png(report: dict) -> tuple[bytes, str]:
    """The field from above at the throw-in (whole field and the line-up close up), and its caption."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, Ellipse, Rectangle
    length, width = _field_size(report)
    fr, caption = _map_frame(report)
    colours = {t: _hex(c) for t, c in team_colours_bgr(report).items()}
    named = named_numbers(report)     # "red-t2 #4" where the number was read
    flagged, to_check = set(), set()
    if fr is not None:
        for v in fr["violations"]:
            flagged |= {v.get("player"), v.get("opponent"), v.get("umpire")} - {None}
        for v in fr.get("to_check") or []:             # within their uncertainty: amber
            to_check |= {v.get("player"), v.get("opponent")} - {None}
        to_check -= flagged
    objs = [] if fr is None else ([(o, o["team"]) for o in fr["players"]] + [(o, "umpire") for o in fr["umpires"]])
    objs = [(o, t) for o, t in objs if o.get("x_yd") is not None and o.get("y_yd") is not None]
    defending = (report.get("options") or {}).get("defending") or {}

    fig = _figure(11, 4.4)
    axes = fig.subplots(1, 2, width_ratios=[1.35, 1])

    def draw(ax, big: bool):
        ax.add_patch(Rectangle((0, 0), length, width, facecolor="#3f8a45", edgecolor="white", lw=1.5, zorder=0))
        for y in (20, width - 20):                     # the throw-in must be more than 20 yd from the boards
            ax.plot([0, length], [y, y], color="white", lw=0.8, ls=(0, (4, 4)), alpha=0.7, zorder=1)
        ax.plot([length / 2] * 2, [0, width], color="#ffe14d", lw=1.6, zorder=1)
        for x in (0, length):                          # goal posts 8 yd apart
            ax.plot([x, x], [width / 2 - 4, width / 2 + 4], color="white", lw=4, zorder=1)
        for o, team in objs:
            x, y = o["x_yd"], o["y_yd"]
            if team == "umpire":
                ax.add_patch(Circle((x, y), 5.0, fill=False, ec="white", lw=1.0, ls="--", zorder=2))
            if big and (ell := sigma_ellipse(o.get("cov_yd2"))) is not None:   # how sure the position is
                ax.add_patch(Ellipse((x, y), ell[0], ell[1], angle=ell[2], fill=False, ec="#f4f4f4",
                                     lw=1.0, zorder=4.5))
            ax.scatter([x], [y], s=30 if big else 26, c=colours.get(team, "#aaaaaa"), edgecolors="black",
                       linewidths=0.8, zorder=4)
            if o["id"] in flagged or o["id"] in to_check:
                ax.scatter([x], [y], s=260 if big else 110, facecolors="none", linewidths=2, zorder=5,
                           edgecolors="#ff1a1a" if o["id"] in flagged else check_hex())
            if big:
                tag = o["id"] + (f" #{named[o['id']]}" if o["id"] in named else "")
                ax.annotate(tag, (x, y), xytext=(5, 4), textcoords="offset points", fontsize=8, color="white",
                            zorder=6)
        ax.set_aspect("equal")
        ax.set_facecolor("#2d6a33")

    whole, close = axes
    draw(whole, False)
    whole.set_xlim(-8, length + 8)
    whole.set_ylim(width + 8, -8)
    whole.set_xlabel("x (yd): south end line → north end line", fontsize=9)
    whole.set_ylabel("y (yd): west → east", fontsize=9)
    ends = {e: t for t, e in defending.items()}
    whole.text(2, -10, f"SOUTH{' (' + ends['south'] + ' defends)' if 'south' in ends else ''}", fontsize=8,
               ha="left", va="bottom")
    whole.text(length - 2, -10, f"NORTH{' (' + ends['north'] + ' defends)' if 'north' in ends else ''}", fontsize=8,
               ha="right", va="bottom")
    whole.tick_params(labelsize=8)
    draw(close, True)
    if objs:
        xs = np.array([o["x_yd"] for o, _ in objs])
        ys = np.array([o["y_yd"] for o, _ in objs])
        cx, cy = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
        half = max(xs.max() - xs.min(), (ys.max() - ys.min()) * 1.35, 24.0) / 2 + 8
        close.set_xlim(cx - half, cx + half)
        close.set_ylim(cy + half / 1.35, cy - half / 1.35)
    else:
        close.set_xlim(length / 2 - 30, length / 2 + 30)
        close.set_ylim(width / 2 + 22, width / 2 - 22)
        close.text(length / 2, width / 2, "nobody located", ha="center", color="white")
    close.set_title("close-up (yd)", fontsize=9)
    close.tick_params(labelsize=8)
    whole.set_title("whole field", fontsize=9)
    handles = [Line2D([], [], ls="", marker="o", ms=7, mfc=c, mec="black", label=t) for t, c in colours.items()]
    if flagged:
        handles.append(Line2D([], [], ls="", marker="o", ms=11, mfc="none", mec="#ff1a1a", mew=2,
                              label="in violation"))
    if to_check:
        handles.append(Line2D([], [], ls="", marker="o", ms=11, mfc="none", mec=check_hex(), mew=2,
                              label="to check"))
    if any(sigma_ellipse(o.get("cov_yd2")) is not None for o, _ in objs):
        handles.append(Line2D([], [], ls="", marker="o", ms=12, mfc="none", mec="#dddddd", mew=1,
                              label="2-sigma ellipse of a position (close-up)"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    return _png(fig), caption


def read_frames(video: str | Path, indices: Sequence[int]) -> dict[int, np.ndarray]:
    """Frames by decode-order index (grabbing, not decoding to images, those in between);
    what could not be read is missing from the result."""
    import cv2
    want = sorted(set(int(i) for i in indices if i is not None and i >= 0))
    out: dict[int, np.ndarray] = {}
    if not want or video is None or not Path(video).is_file():
        return out
    cap = cv2.VideoCapture(str(video), cv2.CAP_FFMPEG)
    try:
        if not cap.isOpened():
            return out
        idx = 0
        for target in want:
            while idx < target:
                if not cap.grab():
                    return out
                idx += 1
            ok, frame = cap.read()
            if not ok or frame is None:
                return out
            out[target] = frame
            idx += 1
    finally:
        cap.release()
    return out


def event_thumbnail(frame: np.ndarray, report_frame: dict | None, ev: dict, colours: Mapping,
                    frame_bgr: tuple[int, int, int] = (0, 0, 255), shirts: Mapping | None = None) -> np.ndarray:
    """The frame with the analysis drawn on it (vision.draw: boxes and ids in team colours, "#4"
    where `shirts` (player id → number) has his shirt number), those involved framed in
    `frame_bgr` (red; amber for a finding to check), close up on them; THUMB_WIDTH wide."""
    import cv2

    from vision.draw import Marker, annotate
    def box(o):
        b = o.get("box_px")
        return b if b and all(v is not None for v in b) else None
    markers = []
    if report_frame is not None:
        markers = [Marker(o["id"], o["team"], box(o), implied=o.get("horse_hidden", False),
                          shirt=(shirts or {}).get(o["id"])) for o in report_frame["players"]]
        markers += [Marker(o["id"], "umpire", box(o), implied=o.get("horse_hidden", False))
                    for o in report_frame["umpires"]]
    img = annotate(frame, markers, None, (), colours=colours, minimap=False, copy=True)
    w = ev.get("worst") or {}
    involved = {ev.get("player"), ev.get("opponent"), w.get("umpire")} - {None}
    boxes = np.array([m.box_px for m in markers if m.track_id in involved and m.box_px is not None], float)
    for x1, y1, x2, y2 in boxes:
        cv2.rectangle(img, (int(x1) - 4, int(y1) - 4), (int(x2) + 4, int(y2) + 4), frame_bgr, 3, cv2.LINE_AA)
    H, W = img.shape[:2]
    if len(boxes):
        x1, y1 = boxes[:, 0].min(), boxes[:, 1].min()
        x2, y2 = boxes[:, 2].max(), boxes[:, 3].max()
        cw = max((x2 - x1) * 2.0, (y2 - y1) * 2.0 * W / H, W / 3)
        cw = min(cw, W)
        ch = cw * H / W
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        ox = int(round(min(max(cx - cw / 2, 0), W - cw)))
        oy = int(round(min(max(cy - ch / 2, 0), H - ch)))
        img = img[oy:oy + int(round(ch)), ox:ox + int(round(cw))]
    scale = THUMB_WIDTH / img.shape[1]
    return cv2.resize(img, (THUMB_WIDTH, max(1, int(round(img.shape[0] * scale)))),
                      interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)


def _png_of(img: np.ndarray) -> bytes:
    import cv2
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    return buf.tobytes() if ok else b""


# ------------------------------------------------------------------------------------
# Pages
# ------------------------------------------------------------------------------------
def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{_e(title)}</title>\n"
            f"<style>{CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def debrief_html(report: dict, video_path: str | Path | None = None, href: str = "annotated.mp4",
                 max_thumbnails: int = MAX_THUMBNAILS) -> str:
    """The debrief page of a report (thumbnails from `video_path` when it can be read)."""
    events = report.get("events") or []
    name = Path(report.get("video") or "clip").name
    ti = report.get("throw_in") or {}
    cal = report.get("calibration") or {}
    opts = report.get("options") or {}
    colours = team_colours_bgr(report)

    listed = report.get("events_to_check") or []
    thumb_idx = {k: worst_frame(report, ev) for k, ev in enumerate(events[:max_thumbnails])}
    check_idx = {k: worst_frame(report, ev, "to_check") for k, ev in enumerate(listed[:max_thumbnails])}
    frames = read_frames(video_path, {*thumb_idx.values(), *check_idx.values()}) if video_path is not None else {}
    thumbs, check_thumbs = {}, {}
    named = named_numbers(report)
    for k, fi in thumb_idx.items():
        if fi in frames:
            thumbs[k] = _png_of(event_thumbnail(frames[fi], _frame_by_index(report, fi), events[k], colours,
                                                shirts=named))
    for k, fi in check_idx.items():
        if fi in frames:
            check_thumbs[k] = _png_of(event_thumbnail(frames[fi], _frame_by_index(report, fi), listed[k], colours,
                                                      check_bgr(), shirts=named))

    by_code: dict[str, int] = {}
    for ev in events:
        by_code[ev["code"]] = by_code.get(ev["code"], 0) + 1
    if events:
        verdict = (f"<p class=\"verdict bad\" id=\"verdict\">{len(events)} Rule 20 violation event"
                   f"{'s' if len(events) != 1 else ''}: "
                   + ", ".join(f"<span class=\"code\">{_e(c)}</span> ×{n}" for c, n in by_code.items()) + "</p>")
    else:
        verdict = "<p class=\"verdict good\" id=\"verdict\">No Rule 20 violation found.</p>"
    cut = camera_cut_warning(report)
    if cut:           # the footage cut to another camera: what follows was not judged
        verdict += f"<br><p class=\"verdict warn\" id=\"camera-cut-warning\">Not analysed to the end: {_e(cut)}.</p>"
    away = cutaway_warnings(report)
    if away:          # a cutaway skipped: those frames show another camera
        verdict += ("<br><p class=\"verdict warn\" id=\"cutaway-warning\">Not judged: "
                    + "; ".join(_e(w) for w in away) + ".</p>")
    drift = camera_drift_warning(report)
    if drift:
        verdict += f"<br><p class=\"verdict warn\" id=\"camera-drift-warning\">Check the positions: {_e(drift)}.</p>"
    later = later_play_warning(report)
    if later:         # one throw-in a clip: a later line-up would be judged as play
        verdict += f"<br><p class=\"verdict warn\" id=\"later-play-warning\">One throw-in judged: {_e(later)}.</p>"
    by_players = players_throw_in_warning(report)
    if by_players:    # the throw was not seen: the line-up's last frames may be play
        verdict += f"<br><p class=\"verdict warn\" id=\"throw-in-warning\">Check the throw-in: {_e(by_players)}.</p>"
    warnings = coverage_warnings(report)
    if warnings:      # players the detector missed in the line-up: nobody judged them
        verdict += ("<br><p class=\"verdict warn\" id=\"coverage-warning\">Not every player was placed: "
                    + "; ".join(_e(w) for w in warnings) + ".</p>")
    ti_text = (f"frame {ti['frame']} at {ti['t']:.2f} s ({_e(ti.get('method'))})" if ti.get("frame") is not None
               else "not found (every frame judged as line-up)")

    # Times are the video's own; annotated.mp4 of a window of it (report "window") starts at the
    # window's first frame, so its links seek that much earlier.
    window = report.get("window")
    seek_from = float(window.get("first_t") or 0.0) if window and href == "annotated.mp4" else 0.0

    def seek(t0: float) -> str:
        """A link that plays the clip from `t0` s of the video."""
        return f"<a class=\"seek\" href=\"{_e(href)}#t={max(0.0, t0 - seek_from):.2f}\">▶ {t0:.2f} s</a>"

    def picture(pngs: dict, at: dict, k: int) -> str:
        """The k-th row's picture (of frame at[k]), else a word that there is none."""
        return (f"<img class=\"thumb\" alt=\"frame {at[k]}\" src=\"{_data_uri(pngs[k])}\">" if k in pngs
                else "<span class=\"muted\">no picture</span>")

    def row(k: int, ev: dict, cls: str, thumb: str, row_id: str = "") -> str:
        """One table row: the finding, who, frames, a link to its time, its measure, a picture."""
        t0 = float(ev.get("start_s") or 0.0)
        return (f"<tr class=\"{cls}\"{row_id}><td class=\"num\">{k + 1}</td>"
                f"<td><span class=\"chip\" style=\"background:{CODE_COLOURS.get(ev['code'], '#444')}\"></span>"
                f"<span class=\"code\">{_e(ev['code'])}</span><br><span class=\"muted\">{_e(TITLES.get(ev['code'], ''))}"
                f"</span></td><td>{_e(who(ev))}</td>"
                f"<td class=\"num\">{ev['start_frame']}–{ev['end_frame']}<br>"
                f"<span class=\"muted\">{ev.get('frames', '')} frame(s)</span></td>"
                f"<td class=\"num\">{seek(t0)}<br>"
                f"<span class=\"muted\">to {float(ev.get('end_s') or t0):.2f} s</span></td>"
                f"<td>{_e(measure(ev))}</td><td>{thumb}</td></tr>")

    rows = [row(k, ev, "event", picture(thumbs, thumb_idx, k), f" id=\"event-{k + 1}\"") for k, ev in enumerate(events)]
    if not rows:
        rows.append("<tr class=\"none\"><td colspan=\"7\">No violation event.</td></tr>")
    more = (f"<p class=\"muted\">Pictures of the first {max_thumbnails} events only.</p>"
            if len(events) > max_thumbnails else "")
    if video_path is not None and not frames and events:
        more += f"<p class=\"muted\">The clip {_e(video_path)} could not be read: no pictures of the events.</p>"

    checks = [row(k, ev, "to-check", picture(check_thumbs, check_idx, k)) for k, ev in enumerate(listed)]
    to_check = ("<h2>To check</h2><p class=\"sub\">Findings that hold on the measured positions but not by "
                "their margin of uncertainty: not violations; look at the clip.</p>"
                "<table id=\"to-check\"><thead><tr><th>#</th><th>finding</th><th>who</th><th>frames</th>"
                f"<th>time</th><th>measure</th><th>worst frame</th></tr></thead><tbody>{''.join(checks)}</tbody></table>"
                + (f"<p class=\"muted\">Pictures of the first {max_thumbnails} only.</p>"
                   if len(listed) > max_thumbnails else "")) if checks else ""

    names = player_names(report)
    items = [f"<li><span class=\"code\">{_e(run['code'])}</span> {_e(note_line(run, names)[len(run['code']):].strip())}"
             f"<br><span class=\"muted\">{_e(run['text'])}</span></li>" for run in note_runs(report)]
    for ev in report.get("events_withheld") or []:
        items.append(f"<li><span class=\"code\">withheld: {_e(ev['code'])}</span> {_e(who(ev))}, frames "
                     f"{ev['start_frame']}–{ev['end_frame']} ({_e(withheld_reason(ev))})</li>")
    notes_html = f"<ul>{''.join(items)}</ul>" if items else "<p class=\"muted\">None.</p>"

    timeline = _data_uri(timeline_png(report))
    fmap, caption = field_map_png(report)
    defending = ", ".join(f"{_e(t)} defends {_e(e)}" for t, e in (opts.get("defending") or {}).items())
    teams = "".join(f"<span class=\"chip\" style=\"background:{_hex(c)}\"></span>{_e(t)} "
                    for t, c in colours.items() if t != "umpire")
    shirts_text = shirt_numbers_text(report.get("shirt_numbers"))
    body = f"""
<h1>Throw-in debrief: {_e(name)}</h1>
<p class="sub">{_e(report.get('video'))} · {report.get('frames_analysed', 0)} frames analysed
 (every {opts.get('stride', 1)}) at {report.get('fps', 0):g} fps{_e(", " + part_analysed(window) if window else "")} ·
 events play from <a href="{_e(href)}">{_e(href)}</a></p>
{verdict}
<h2>Timeline</h2>
<img class="plot" id="timeline" alt="Timeline of the violation events" src="{timeline}">
<h2>Field at the throw-in</h2>
<p class="sub">{_e(caption)}. North to the right, west at the top; umpires with their 5-yd circles,
dashed lines 20 yd from the boards. {teams}</p>
<img class="plot" id="fieldmap" alt="Top-down field map {_e(caption)}" src="{_data_uri(fmap)}">
<h2>Events</h2>
<p class="sub">Players are named by team and track: red-t7 is the analysis's track 7 of a red
player, not a shirt number; U-t2 an umpire's track. "Red #2 (red-t7)": his shirt number was read
on that track ({_e(shirts_text)}). A measure "4.3 ±0.4 yd" gives its 1-sigma
uncertainty along its own direction (from the camera's view of the ground points); a finding
must hold by {_e(opts.get('margin_sigmas', 1))} sigma (speeds {_e(opts.get('speed_margin_sigmas', 2))}).</p>
<table id="events"><thead><tr><th>#</th><th>violation</th><th>who</th><th>frames</th><th>time</th>
<th>measure</th><th>worst frame</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table>
{more}
{to_check}
{players_html(report)}
<h2>Notes (not violations)</h2>
{notes_html}
<h2>Analysis</h2>
<dl>
<dt>throw-in</dt><dd>{ti_text}</dd>
<dt>teams</dt><dd>{defending}</dd>
<dt>calibration</dt><dd>RMS {_e(cal.get('rms_px'))} px ({_e(cal.get('rms_yd'))} yd), max {_e(cal.get('max_px'))} px,
 {_e(cal.get('points_used'))} points{''.join('; ' + _e(w) for w in cal.get('warnings') or [])}</dd>
<dt>tracks</dt><dd>{len(report.get('tracks') or [])}</dd>
<dt>minimum run</dt><dd>{_e(opts.get('min_run'))} frames</dd>
<dt>processing</dt><dd>{_e((report.get('summary') or {}).get('processing_s'))} s</dd>
</dl>
"""
    return _page(f"Debrief: {name}", body)


def write_debrief(report: dict, video_path: str | Path | None, out_dir: str | Path,
                  max_thumbnails: int = MAX_THUMBNAILS) -> Path:
    """Write out_dir/debrief.html (atomically); event links play annotated.mp4 when it is
    there, else `video_path`."""
    out = Path(out_dir)
    page = debrief_html(report, video_path, video_href(video_path, out), max_thumbnails)
    write_text(out / "debrief.html", page)
    return out / "debrief.html"


def index_html(rows: Sequence[dict], out_dir: str | Path, meta: Mapping | None = None) -> str:
    """The batch's page: one row per clip, linking its debrief."""
    out = Path(out_dir)
    meta = meta or {}
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    body_rows = []
    for r in rows:
        page = out / r["output"] / "debrief.html"
        link = (f"<a class=\"debrief\" href=\"{_e(quote(r['output']))}/debrief.html\">{_e(r['clip'])}</a>"
                if r["status"] in ("ok", "skipped") and page.is_file() else _e(r["clip"]))
        by = r.get("events_by_code")
        by_text = ", ".join(f"{_e(c)} ×{n}" for c, n in by.items()) if by else ("none" if by is not None else "")
        ti = "" if r.get("throw_in_frame") is None else f"{r['throw_in_frame']} ({r.get('throw_in_s', 0):.2f} s)"
        body_rows.append(
            f"<tr class=\"clip\"><td>{link}</td><td class=\"{_e(r['status'])}\">{_e(r['status'])}</td>"
            f"<td class=\"num\">{ti}</td><td class=\"num\">{'' if r.get('events') is None else r['events']}</td>"
            f"<td class=\"num\">{'' if r.get('to_check') is None else r['to_check']}</td>"
            f"<td>{by_text}</td><td class=\"warning\">{_e(r.get('warnings') or '')}</td>"
            f"<td class=\"num\">{'' if r.get('processing_s') is None else r['processing_s']}</td>"
            f"<td>{_e(r.get('error') or '')}</td></tr>")
    summary = " · ".join(f"<span class=\"{_e(s)}\">{n} {_e(s)}</span>" for s, n in counts.items())
    body = f"""
<h1>Throw-in line-ups: {len(rows)} clip{'s' if len(rows) != 1 else ''}</h1>
<p class="sub">{summary} · inputs {_e(', '.join(meta.get('inputs', [])))} ·
 finished {_e(meta.get('finished_utc', ''))}</p>
<table id="clips"><thead><tr><th>clip</th><th>status</th><th>throw-in frame</th><th>events</th><th>to check</th>
<th>violations by code</th><th>warnings</th><th>processing (s)</th><th>error</th></tr></thead>
<tbody>
{chr(10).join(body_rows)}
</tbody></table>
<p class="muted">Also: <a href="summary.csv">summary.csv</a>, <a href="summary.json">summary.json</a>.</p>
"""
    return _page("polo-lineup batch", body)


def write_index(rows: Sequence[dict], out_dir: str | Path, meta: Mapping | None = None) -> Path:
    out = Path(out_dir)
    write_text(out / "index.html", index_html(rows, out, meta))
    return out / "index.html"
