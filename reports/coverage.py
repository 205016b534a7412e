"""How many of the players the line-up's verdicts could speak for.

The rules judge the players the pipeline placed; a player the detector missed (a horse half
hidden in the ranks) is judged by nobody, and a clean verdict says nothing of him. On
held-out footage a moved camera left 3 of the 8 players of wrong_side_plays_early placed for
the whole line-up, and the report looked like any other. So each report counts, over the
line-up frames, the players placed per team against the four a team lines up
(PLAYERS_PER_TEAM, Rule 20's outdoor game; vision.roster caps a team at that many), and says
so when a team is short for most of the line-up.
"""
from __future__ import annotations

import numpy as np

PLAYERS_PER_TEAM = 4
SHORT_SHARE = 0.5        # a team short of players in more than this share of the line-up frames is warned of
LATER_PLAY_S = 20.0      # footage running on this long after the throw-in may hold another line-up, not judged
PLAYERS_LAG_S = 1.5      # the players ride off at most about this long after the throw (27 rendered clips: 0.16-1.52 s)
DRIFT_TRAVEL_PX = 1280.0  # a view turned or zoomed a frame's width from the calibrated one (the image corners'
                          # mean move): followed by ground features alone, the panning sample drifted 0.4 yd by
                          # 1,570 px and 1.2 yd by 3,160 (session 30's tracker, true boxes masked)


def line_up_coverage(frames: list[dict], teams: list[str], per_team: int = PLAYERS_PER_TEAM) -> dict:
    """From report.json's frames: the line-up frames counted, the median number of each team's
    players placed in them, the share of them in which each team had fewer than `per_team`,
    and a warning per team short in more than SHORT_SHARE of them."""
    lineup = [f for f in frames if f.get("phase") == "lineup"]
    counts = {team: np.array([sum(p.get("team") == team for p in f.get("players", ())) for f in lineup], int)
              for team in teams}
    out = {"line_up_frames": len(lineup), "players_per_team": per_team,
           "placed_median": {t: (float(np.median(c)) if len(c) else None) for t, c in counts.items()},
           "short_share": {t: (round(float(np.mean(c < per_team)), 3) if len(c) else None) for t, c in counts.items()},
           "warnings": []}
    for team, short in out["short_share"].items():
        if short is not None and short > SHORT_SHARE:
            out["warnings"].append(
                f"{team}: a median of {out['placed_median'][team]:g} of {per_team} players placed over the "
                f"{len(lineup)} line-up frames (fewer than {per_team} in {short:.0%}); the verdicts say nothing "
                f"of the players not placed")
    return out


def camera_cut_warning(report: dict) -> str | None:
    """The warning for a report whose analysis stopped at a camera cut (vision.scene_cuts), or None."""
    cut = report.get("camera_cut")
    if not cut:
        return None
    if cut.get("replay"):
        return (f"{_replayed(cut['replay'])} from frame {cut['frame']} ({cut['t']:.2f} s) on, and the calibrated "
                f"camera's live footage was not seen again: frames from {cut['frame']} on were not analysed")
    return (f"camera cut at frame {cut['frame']} ({cut['t']:.2f} s): the calibrated camera was not seen again "
            f"after it, so frames from {cut['frame']} on were not analysed (split the clip at its cuts "
            f"and calibrate each shot)")


def cutaway_warnings(report: dict) -> list[str]:
    """One line per cutaway skipped (another shot between two of the calibrated camera's, or a
    replay of its footage): its frames were not judged."""
    return [f"frames {c['cut_frame']}-{c['found_frame'] - 1} ({c['cut_t']:.2f}-{c['found_t']:.2f} s) show "
            + (_replayed(c["replay"]) if c.get("replay") else "another camera")
            + f": not judged (the calibrated camera's live footage was found again at frame {c['found_frame']})"
            for c in report.get("cutaways") or []]


def _replayed(rep: dict) -> str:
    return (f"a replay (frame {rep['frame']} repeats frame {rep['repeats_frame']}, seen at "
            f"{rep['repeats_t']:.2f} s)")


def coverage_warnings(report: dict) -> list[str]:
    """A report's coverage warnings (none for a report written before coverage was counted)."""
    return list((report.get("coverage") or {}).get("warnings") or [])


def later_play_warning(report: dict) -> str | None:
    """A warning when the analysed footage runs on more than LATER_PLAY_S past the throw-in:
    one throw-in a clip is judged (vision.phase finds the first), so a later line-up (after a
    goal, at the next chukker) would be judged as play. None otherwise."""
    ti, frames = report.get("throw_in") or {}, report.get("frames") or []
    if ti.get("t") is None or not frames:
        return None
    after = float(frames[-1]["t"]) - float(ti["t"])
    if after <= LATER_PLAY_S:
        return None
    return (f"the footage runs {after:.0f} s past the throw-in at frame {ti['frame']}: only that throw-in is "
            f"judged, and a later line-up would be taken for play (judge each throw-in with --start/--end, or list "
            f"them in the sidecar's throw_ins, e.g. with `polo-lineup find-throw-ins VIDEO --write`, and run batch)")


def players_throw_in_warning(report: dict) -> str | None:
    """A warning when the throw-in was taken from the players riding off (vision.phase), not
    from the ball: the throw was not seen, and the players ride off some time after it (on
    the samples and both re-rendered sets, session 26, the players' start came 4-38 frames after
    the true throw on the 27 clips where it was found: 0.16-1.52 s), so the line-up's last frames
    before it may already be play. None otherwise."""
    ti = report.get("throw_in") or {}
    if ti.get("method") != "players" or ti.get("frame") is None:
        return None
    return (f"the throw-in (frame {ti['frame']}, {ti['t']:.2f} s) was taken from the players riding off: the throw "
            f"itself was not seen, and players ride off up to {PLAYERS_LAG_S:.1f} s after a throw, so line-up "
            f"verdicts in the {PLAYERS_LAG_S:.1f} s before it may be play (check the clip; --throw-in-frame or the "
            f"sidecar's throw_in_frame sets the throw-in)")


def camera_drift_warning(report: dict) -> str | None:
    """A warning when the camera turned or zoomed far from its calibrated view (DRIFT_TRAVEL_PX)
    and no painted line or boards were found to hold it to the field (report.json `camera`,
    vision.camera_motion): followed from ground features alone, the view drifts, and on the
    rendered pans the players were read ~1 yd off after a 4-s pan and zoom, ~2 yd after a
    longer one (session 30, before the re-anchoring on the boards). None otherwise."""
    cam = report.get("camera") or {}
    travel = cam.get("max_travel_px") or 0.0
    if travel < DRIFT_TRAVEL_PX or cam.get("reanchored"):
        return None
    return (f"the camera turned or zoomed away from its calibrated view ({travel:.0f} px) and no painted line "
            f"or sideline boards were found to hold it: positions far into the pan may be off by a yard or two "
            f"(calibrate a later frame, or check the overlays on the annotated clip)")


def report_warnings(report: dict) -> list[str]:
    """Everything a reader of the verdicts is warned of: the cutaways skipped, the frames not
    analysed after a camera cut, a pan no field mark held, footage running on long after the
    throw-in, a throw-in taken from the players, the line-up frames not judged while the umpire
    was still riding to his spot, then the teams short of players."""
    return cutaway_warnings(report) + [w for w in (camera_cut_warning(report), camera_drift_warning(report),
                                                   later_play_warning(report), players_throw_in_warning(report),
                                                   umpire_moving_warning(report)) if w] \
        + coverage_warnings(report)


def umpire_moving_warning(report: dict) -> str | None:
    """The line-up frames the rules did not judge because no umpire was positioned yet (the ball
    is ready for play when he is: rules.checks.umpire_positioned), or None."""
    runs = report.get("umpire_not_positioned") or []
    if not runs:
        return None
    where = ", ".join(f"{r['start_frame']}-{r['end_frame']} ({r['start_t']:.2f}-{r['end_t']:.2f} s)" for r in runs)
    return (f"line-up frames {where}: the umpire was still riding to the throw-in spot, the ball not yet ready "
            f"for play: the line-up rules were not applied there")
