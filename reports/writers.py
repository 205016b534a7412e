"""report.json, report.csv and the console summary of an analysis."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from reports.atomic import write_json, write_text
from reports.coverage import report_warnings

CSV_COLUMNS = ["frame", "t_s", "phase", "kind", "id", "track_id", "team", "x_yd", "y_yd", "sigma_yd",
               "violations", "umpire_distance_yd", "to_check", "shirt_number"]


def _codes_by_object(records: list[dict]) -> dict[str, list[str]]:
    """Object id -> the codes of the records that name him (a contact names both players);
    "*" -> those of records naming no player (a reversed line-up, the throw-in's boards)."""
    out: dict[str, list[str]] = {}
    for v in records:
        for who in (v.get("player"), v.get("opponent")) if v.get("player") else ("*",):
            if who:
                out.setdefault(who, []).append(v["code"])
    return out


def report_csv(report: dict) -> str:
    """One row per tracked player or umpire per frame, with that object's violations (and the
    findings to check that name him: within their uncertainty, not violations) and his shirt
    number where it was read on his track (vision.shirt_numbers)."""
    named = named_numbers(report)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for fr in report["frames"]:
        dist: dict[str, float] = {}
        for v in fr["violations"]:
            if v.get("player") and v["code"] == "FIVE_YARD":
                dist[v["player"]] = v["distance_yd"]
        codes, check = _codes_by_object(fr["violations"]), _codes_by_object(fr.get("to_check") or [])
        for kind, items in (("player", fr["players"]), ("umpire", fr["umpires"])):
            for o in items:
                oid = o["id"]
                w.writerow([fr["index"], fr["t"], fr["phase"], kind, oid, o["track_id"], o.get("team", ""),
                            o["x_yd"], o["y_yd"], o["sigma_yd"], ";".join(codes.get(oid, []) + codes.get("*", [])),
                            "" if oid not in dist else round(dist[oid], 3),
                            ";".join(check.get(oid, []) + check.get("*", [])), named.get(oid, "")])
    return buf.getvalue()


def write_reports(report: dict, out_dir: str | Path) -> list[Path]:
    out = Path(out_dir)
    write_json(out / "report.json", report)
    write_text(out / "report.csv", report_csv(report))
    return [out / "report.json", out / "report.csv"]


SIGMA_OF = {"distance_yd": "sigma_yd", "across_yd": "sigma_yd", "closing_speed_yds": "closing_sigma_yds"}


def plus_minus(worst: dict, key: str, digits: int = 2, sign: str = "±") -> str:
    """" ±0.32" when the record gives the 1-sigma uncertainty of its measure `key` (measured
    positions), else "" (exact positions: nothing to add)."""
    sigma = worst.get(SIGMA_OF.get(key, ""))
    return f" {sign}{float(sigma):.{digits}f}" if isinstance(sigma, (int, float)) else ""


TO_CHECK_WHY = "these hold on the measured positions, not by their uncertainty: not violations; look at the clip"


def _number(worst: dict) -> str:
    """The record's measure as "distance_yd=4.30 ±0.32" (the first it has of the usual ones)."""
    return next((f"{k}={worst[k]:.2f}{plus_minus(worst, k)}" for k in ("distance_yd", "across_yd",
                 "closing_speed_yds", "ball_travel_yd") if k in worst), "")


def shirt_name(team: str, number: int | None) -> str | None:
    """"Red #2" for team "red" and number 2 (vision.shirt_numbers); None without a number."""
    return None if number is None else f"{team[:1].upper()}{team[1:]} #{number}"


def named_numbers(report: dict) -> dict[str, int]:
    """Player id → the shirt number read on his track (report.json `shirt_numbers` → `named`)."""
    return (report.get("shirt_numbers") or {}).get("named") or {}


def player_teams(report: dict) -> dict[str, str | None]:
    """Player id → his team, every player of the report's frames in the order first seen."""
    out: dict[str, str | None] = {}
    for fr in report.get("frames") or []:
        for p in fr.get("players") or []:
            out.setdefault(p["id"], p.get("team"))
    return out


def player_names(report: dict) -> dict[str, str]:
    """Player id → "Red #2 (red-t7)" where his shirt number was read, else the id itself."""
    named = named_numbers(report)
    out = {}
    for pid, team in player_teams(report).items():
        shirt = shirt_name(team, named.get(pid)) if team else None
        out[pid] = f"{shirt} ({pid})" if shirt else pid
    return out


def note_runs(report: dict) -> list[dict]:
    """The rules' notes (not violations) of the frames, one per code and player: its first and
    last frame and the largest distance from the centre it gives, in the order first seen."""
    runs: dict[tuple, dict] = {}
    for fr in report.get("frames") or []:
        for n in fr.get("notes") or []:
            run = runs.setdefault((n["code"], n.get("player")), {
                "code": n["code"], "player": n.get("player"), "first_frame": fr["index"], "first_s": fr["t"],
                "last_frame": fr["index"], "text": n.get("text", ""), "distance_from_centre_yd": None})
            run["last_frame"] = fr["index"]
            d = n.get("distance_from_centre_yd")
            if d is not None and (run["distance_from_centre_yd"] is None or d > run["distance_from_centre_yd"]):
                run["distance_from_centre_yd"] = d
    return list(runs.values())


def note_line(run: dict, names: dict[str, str]) -> str:
    """A note run in words: "SLOW_TO_LINEUP Red #2 (red-t7) frames 0-120, up to 21.3 yd from the centre"."""
    who = names.get(run["player"], run["player"]) if run["player"] else ""
    frames = f"frame {run['first_frame']}" if run["first_frame"] == run["last_frame"] else \
        f"frames {run['first_frame']}-{run['last_frame']}"
    far = run["distance_from_centre_yd"]
    return " ".join(w for w in (run["code"], who, frames) if w) + \
        (f", up to {far:.1f} yd from the centre" if far is not None else "")


def shown(ev: dict, key: str = "player") -> str | None:
    """An event's player (`key`: "player" or "opponent") as a reader should see him: "Red #2
    (red-t7)" where his shirt number was read (vision.shirt_numbers), else his track id."""
    pid, shirt = ev.get(key), ev.get(f"{key}_shirt")
    return f"{shirt} ({pid})" if pid and shirt else pid


def players_shown(ev: dict, joiner: str) -> str:
    """An event's player and opponent (either may be missing), shown, joined by `joiner`."""
    return joiner.join(w for w in (shown(ev), shown(ev, "opponent")) if w)


def unseen_hit_note(ev: dict) -> str:
    """What to say of an event found at a play whose hit the ball stage did not see (its moment
    taken from the ball's flight: vision.plays.first_flight_hit, hit_frame), else ""."""
    return "the hit not seen: its moment taken from the ball's flight" if ev.get("hit_seen") is False else ""


def withheld_reason(ev: dict) -> str:
    """Why an event of report.json's `events_withheld` was withheld, with the looks that said so."""
    return f"{ev.get('withheld', '')}: {ev.get('looks_other_team')} looks against {ev.get('looks_own_team')}"


def part_analysed(window: dict | None) -> str:
    """'frames A-B (from S s to E s of the video)' for a report of part of a video, else ''."""
    if not window or window.get("first_frame") is None:
        return ""
    end = "its end" if window.get("end_s") is None else f"{window['end_s']:g} s"
    return f"frames {window['first_frame']}-{window['last_frame']} (from {window['start_s']:g} s to {end} of the video)"


def console_summary(report: dict) -> str:
    ti = report["throw_in"]
    n = report["frames_analysed"]
    lines = [f"{report['video']}: {n} frame{'' if n == 1 else 's'} analysed in "
             f"{report['summary']['processing_s']:.1f} s; calibration RMS {report['calibration']['rms_px']} px "
             f"({report['calibration']['rms_yd']} yd)",
             f"throw-in: frame {ti['frame']} at {ti['t']} s ({ti['method']})" if ti["frame"] is not None
             else "throw-in: not found (every frame judged as line-up)"]
    part = part_analysed(report.get("window"))
    if part:
        lines[0] += f"; {part}"
    lines[1:1] = [f"calibration: {w}" for w in report["calibration"].get("warnings") or []]
    lead = report.get("camera_lead_in")
    if lead:                      # vision.camera_lead_in: the moving camera followed up to the window
        lost = f", {lead['lost']} steps lost" if lead["lost"] else ""
        crossed = "".join(f"; cut at frame {c['cut_frame']}, the calibrated camera seen again at frame {c['found_frame']}"
                          for c in lead.get("cutaways") or [])
        lines.insert(1, f"camera: followed from the calibrated frame {lead['from_frame']} to frame {lead['to_frame']} "
                        f"({lead['frames_followed']} frames, {lead['seconds']:.1f} s{lost}{crossed})")
    if not report["events"]:
        lines.append("no Rule 20 violation")
    for ev in report["events"]:
        who = shown(ev) or ""
        note = unseen_hit_note(ev)
        lines.append(f"  {ev['code']:28s} {who:12s} frames {ev['start_frame']}-{ev['end_frame']} "
                     f"({ev['start_s']:.2f}-{ev['end_s']:.2f} s) {_number(ev['worst'])}" + (f" ({note})" if note else ""))
    for ev in report.get("events_withheld") or []:
        lines.append(f"  withheld: {ev['code']} {shown(ev) or ''} frames {ev['start_frame']}-{ev['end_frame']} "
                     f"({withheld_reason(ev)})")
    if report.get("events_to_check"):
        lines.append(f"to check ({TO_CHECK_WHY}):")
    for ev in report.get("events_to_check") or []:
        who = players_shown(ev, " with ")
        lines.append(f"  {ev['code']} {who} frames {ev['start_frame']}-{ev['end_frame']} "
                     f"({ev['start_s']:.2f}-{ev['end_s']:.2f} s) {_number(ev['worst'])}")
    runs = note_runs(report)
    if runs:
        names = player_names(report)
        lines.append("notes (not violations):")
        lines += [f"  {note_line(run, names)}" for run in runs]
    for warning in report_warnings(report):
        lines.append(f"warning: {warning}")
    return "\n".join(lines)
