"""Assemble the per-frame verdict document from the vectorised checks.

Violation codes (each record carries the numbers behind it):
  FIVE_YARD                    a player closer than 5 yd to an umpire (line-up / throw-in)
  WRONG_SIDE                   a player strictly across the centre line from the goal he defends: in the
                               line-up (within lineup_depth_yd of the line) before the throw-in, anywhere
                               at it (farther out before it, he is riding in: SLOW_TO_LINEUP)
  REVERSED_LINEUP              every player of both teams wrong side: reported once, no redress
  THROW_IN_NEAR_BOARDS         the throw-in 20 yd or less from a sideline/boards
  ILLEGAL_PLAY_FROM_WRONG_SIDE a wrong-side player plays before he may
  CONTACT_BEFORE_THROW_IN      opposing players in contact (jostling) before the throw-in
  RUSHING_UMPIRE               a player closing fast on an umpire at the line-up
  IMPROPER_POSITIONING         delayed foul: out of the line-up at the throw-in, then involved in the play
Notes (no violation): REVERSED_LINEUP_NO_REDRESS, SLOW_TO_LINEUP, HORSE_CHANGE_NO_EXTRA_TIME,
OUT_OF_LINEUP_AT_THROW_IN.
The line-up codes (FIVE_YARD, WRONG_SIDE, REVERSED_LINEUP, CONTACT_BEFORE_THROW_IN,
RUSHING_UMPIRE) judge a line-up frame once an umpire is positioned (checks.umpire_positioned),
and the throw-in frame always.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from rules import checks
from rules.document import PHASES, THROW_IN, FrameBatch, parse_document
from rules.thresholds import Thresholds
from rules.throw_in import analyse_throw_ins

VIOLATION_CODES = ("FIVE_YARD", "WRONG_SIDE", "REVERSED_LINEUP", "THROW_IN_NEAR_BOARDS",
                   "ILLEGAL_PLAY_FROM_WRONG_SIDE", "CONTACT_BEFORE_THROW_IN", "RUSHING_UMPIRE",
                   "IMPROPER_POSITIONING")

REVERSED_NOTE = ("Every player of both teams is lined up the wrong way. The responsibility rests with the "
                 "umpire(s) and there is no redress: play on until a goal is scored or the period ends; a goal "
                 "consistent with this line-up counts for the team that scored it.")


def check_batch(b: FrameBatch, thr: Thresholds | None = None) -> dict[str, Any]:
    """Run every Rule 20 check on a FrameBatch and return the verdict document."""
    thr = thr or Thresholds()
    F = b.n_frames
    viol: list[list[dict]] = [[] for _ in range(F)]
    notes: list[list[dict]] = [[] for _ in range(F)]
    pid, team_of = b.player_ids, [b.teams[k] for k in b.player_team]
    uid = b.umpire_ids
    lineup = checks.before_throw_in(b)
    # The line-up is judged once the ball is ready for play, "when the Umpire is positioned":
    # while he still rides to the throw-in spot the players are arriving too (after a goal,
    # some across the line, some cantering towards him). The throw-in frame is always judged.
    at_throw_in = b.phase == THROW_IN
    judged = checks.line_up_judged(b, thr.umpire_still_yds)

    ud = checks.umpire_distances(b)
    z = thr.margin_sigmas
    # Measured positions (with a covariance): each record also gives its measure's 1-sigma
    # uncertainty along its own direction (`sigma_yd`), so a reviewer sees how sure it is.
    unsure = checks.uncertain(b)
    sig = (lambda v: {"sigma_yd": float(v)}) if unsure else (lambda v: {})
    across = checks.across_sigma(b)
    wrong = checks.wrong_side(b, z * across)
    rev = checks.reversed_lineup(b, wrong) & judged
    near_sigma = np.take_along_axis(checks.pair_sigma(b), ud.nearest[..., None], 2)[..., 0] \
        if ud.dist.shape[2] else np.zeros(ud.min_dist.shape)
    near_margin = z * near_sigma

    # On measured positions, what holds as measured but not by its margin is not a violation:
    # it is listed per frame as `to_check` (same records), for a reviewer to look at.
    review = unsure and z > 0
    check: list[list[dict]] = [[] for _ in range(F)]

    def five(f, p):
        return {"code": "FIVE_YARD", "player": pid[p], "team": team_of[p],
                "umpire": uid[ud.nearest[f, p]], "distance_yd": float(ud.min_dist[f, p]),
                **sig(near_sigma[f, p]), "limit_yd": thr.umpire_clearance_yd}

    close_by = judged[:, None] & (ud.min_dist < thr.umpire_clearance_yd)
    sure_close = judged[:, None] & (ud.min_dist + near_margin < thr.umpire_clearance_yd)
    for f, p in zip(*np.nonzero(sure_close)):
        viol[f].append(five(f, p))
    if review:
        for f, p in zip(*np.nonzero(close_by & ~sure_close)):
            check[f].append(five(f, p))

    def reversed_(f):
        return {"code": "REVERSED_LINEUP", "players": int(np.count_nonzero(~np.isnan(b.players[f, :, 0]))),
                "redress": False}

    for f in np.flatnonzero(rev):
        viol[f].append(reversed_(f))
        notes[f].append({"code": "REVERSED_LINEUP_NO_REDRESS", "text": REVERSED_NOTE})
    c = b.field.centre_x
    depth = np.abs(b.players[:, :, 0] - c)
    # Before the throw-in a player farther than the line-up depth from the centre line is not
    # yet in the line-up, whichever side he rides in on (Red #2, slow returning: extra time);
    # when the ball is thrown in, every player across the line is on the wrong side of it.
    side_judged = judged[:, None] & ((depth <= thr.lineup_depth_yd) | at_throw_in[:, None])

    def side(f, p):
        return {"code": "WRONG_SIDE", "player": pid[p], "team": team_of[p],
                "x_yd": float(b.players[f, p, 0]), "centre_x_yd": c,
                "across_yd": float(abs(b.players[f, p, 0] - c)), **sig(across[f, p]),
                "defending": b.defending[team_of[p]]}

    for f, p in zip(*np.nonzero(side_judged & wrong & ~rev[:, None])):
        viol[f].append(side(f, p))
    if review:
        measured = checks.wrong_side(b)
        rev_measured = checks.reversed_lineup(b, measured) & judged & ~rev
        for f in np.flatnonzero(rev_measured):
            check[f].append(reversed_(f))
        for f, p in zip(*np.nonzero(side_judged & measured & ~wrong & ~(rev | rev_measured)[:, None])):
            check[f].append(side(f, p))

    touching, pair_d, pair_s = checks.contacts(b, thr)

    def contact(f, i, j):
        return {"code": "CONTACT_BEFORE_THROW_IN", "player": pid[i], "team": team_of[i],
                "opponent": pid[j], "distance_yd": float(pair_d[f, i, j]), **sig(pair_s[f, i, j]),
                "limit_yd": thr.contact_yd}

    for f, i, j in zip(*np.nonzero(touching & judged[:, None, None])):
        viol[f].append(contact(f, i, j))
    if review:
        as_measured = (pair_d < thr.contact_yd) & checks.opposing_pairs(b)[None]
        for f, i, j in zip(*np.nonzero(as_measured & ~touching & judged[:, None, None])):
            check[f].append(contact(f, i, j))

    if ud.dist.shape[2]:
        closing, closing_sigma = checks.closing_speed(b, ud, with_sigma=True)
        rushing = (closing - thr.speed_margin_sigmas * closing_sigma > thr.rush_speed_yds) \
            & (ud.dist < thr.rush_zone_yd) \
            & judged[:, None, None]
        for f, p, u in zip(*np.nonzero(rushing)):
            viol[f].append({"code": "RUSHING_UMPIRE", "player": pid[p], "team": team_of[p], "umpire": uid[u],
                            "closing_speed_yds": float(closing[f, p, u]), "distance_yd": float(ud.dist[f, p, u]),
                            **({"closing_sigma_yds": float(closing_sigma[f, p, u])} if unsure else {}),
                            "limit_yds": thr.rush_speed_yds})

    for f in np.flatnonzero(b.phase == THROW_IN):
        u = checks.thrower(b, f)
        if u < 0:
            continue
        y = b.umpires[f, u, 1]
        to_side = min(y, b.field.width_yd - y)
        if to_side <= thr.boards_clearance_yd:
            viol[f].append({"code": "THROW_IN_NEAR_BOARDS", "umpire": uid[u], "distance_yd": float(to_side),
                            **sig(np.sqrt(max(checks.umpire_cov(b)[2][f, u], 0.0))),
                            "sideline": "west" if y <= b.field.width_yd - y else "east",
                            "limit_yd": thr.boards_clearance_yd})

    slow = lineup[:, None] & (depth > thr.lineup_depth_yd) & ~(wrong & at_throw_in[:, None])
    for f, p in zip(*np.nonzero(slow)):
        if b.changing_horse[f, p]:
            notes[f].append({"code": "HORSE_CHANGE_NO_EXTRA_TIME", "player": pid[p],
                             "distance_from_centre_yd": float(depth[f, p]),
                             "text": "changing horses: no extra time; the line-up and throw-in go on without him"})
        elif b.phase[f] != THROW_IN:
            notes[f].append({"code": "SLOW_TO_LINEUP", "player": pid[p],
                             "distance_from_centre_yd": float(depth[f, p]),
                             "text": "not yet in the line-up: extra time may be granted with the clock stopped"})

    for ti in analyse_throw_ins(b, thr, wrong):
        for p in ti.out_of_lineup:
            if not b.changing_horse[ti.start, p]:
                notes[ti.start].append({"code": "OUT_OF_LINEUP_AT_THROW_IN", "player": pid[p],
                                        "distance_from_centre_yd": float(depth[ti.start, p]),
                                        "text": "out of the line-up when the ball is ready: a foul for improper "
                                                "positioning if he becomes involved in the play"})
        for rec in ti.illegal_plays:
            p = rec["player"]
            viol[rec["frame"]].append({"code": "ILLEGAL_PLAY_FROM_WRONG_SIDE", "player": pid[p], "team": team_of[p],
                                       "throw_in_frame": ti.start, "ball_travel_yd": rec["ball_travel_yd"],
                                       "passed_midfield": rec["passed_midfield"],
                                       "behind_teammate": rec["behind_teammate"]})
        for rec in ti.improper_plays:
            p = rec["player"]
            viol[rec["frame"]].append({"code": "IMPROPER_POSITIONING", "player": pid[p], "team": team_of[p],
                                       "throw_in_frame": ti.start, "delayed_whistle": True,
                                       "distance_from_centre_yd": rec["distance_from_centre_yd"],
                                       "limit_yd": thr.lineup_depth_yd})

    frames = [{"index": i, "phase": PHASES[b.phase[i]], "violations": viol[i], "notes": notes[i],
               **({"to_check": check[i]} if review else {})} for i in range(F)]
    counts: dict[str, int] = {}
    for v in viol:
        for rec in v:
            counts[rec["code"]] = counts.get(rec["code"], 0) + 1
    return {"frames": frames,
            "summary": {"frames": F, "frames_with_violations": sum(1 for v in viol if v),
                        "violations_by_code": counts,
                        "throw_in_frames": [int(s) for s in checks.throw_in_starts(b)]}}


def check_document(doc: Any, thresholds: Thresholds | None = None) -> dict[str, Any]:
    """Validate a positions document (decoded JSON) and return its verdict document.

    Raises rules.InvalidDocument for a document that cannot be checked.
    """
    if thresholds is None and isinstance(doc, dict) and "thresholds" in doc:
        from rules.document import InvalidDocument
        try:
            thresholds = Thresholds.from_dict(doc["thresholds"] if isinstance(doc["thresholds"], dict) else {})
        except (TypeError, ValueError) as exc:
            raise InvalidDocument(f"thresholds: {exc}") from None
    return check_batch(parse_document(doc), thresholds)


def has_violation(verdict: dict[str, Any]) -> bool:
    return any(fr["violations"] for fr in verdict["frames"])
