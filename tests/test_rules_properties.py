"""Property tests of the rule engine's geometry (hypothesis)."""
from __future__ import annotations

import copy
import math

from hypothesis import given, settings, strategies as st

from rules import check_document

L, W = 300.0, 160.0
PIDS = [f"{t}-{n}" for t in ("red", "blue") for n in range(1, 5)]

coord_x = st.floats(min_value=-30, max_value=L + 30, allow_nan=False, allow_infinity=False)
coord_y = st.floats(min_value=-10, max_value=W + 10, allow_nan=False, allow_infinity=False)
near_x = st.floats(min_value=130, max_value=170, allow_nan=False)
near_y = st.floats(min_value=40, max_value=100, allow_nan=False)


@st.composite
def frames(draw, xs=near_x, ys=near_y):
    ids = draw(st.lists(st.sampled_from(PIDS), unique=True, max_size=8))
    players = [{"id": pid, "team": pid.split("-")[0], "x": draw(xs), "y": draw(ys)} for pid in ids]
    n_ump = draw(st.integers(0, 2))
    umpires = [{"id": f"U{k + 1}", "x": draw(xs), "y": draw(ys)} for k in range(n_ump)]
    fr = {"phase": draw(st.sampled_from(["lineup", "throw_in", "play"])), "players": players, "umpires": umpires}
    if draw(st.booleans()):
        fr["ball"] = {"x": draw(xs), "y": draw(ys)}
    if ids and draw(st.booleans()):
        fr["play"] = {"player": draw(st.sampled_from(ids))}
    return fr


@st.composite
def documents(draw, xs=near_x, ys=near_y):
    defending = draw(st.sampled_from([{"red": "south", "blue": "north"}, {"red": "north", "blue": "south"}]))
    return {"defending": defending, "fps": 25, "frames": draw(st.lists(frames(xs, ys), min_size=1, max_size=6))}


def _mirror_x(doc):
    out = copy.deepcopy(doc)
    out["defending"] = {t: ("north" if e == "south" else "south") for t, e in doc["defending"].items()}
    for fr in out["frames"]:
        for obj in fr["players"] + fr["umpires"] + ([fr["ball"]] if "ball" in fr else []):
            obj["x"] = L - obj["x"]
    return out


def _signature(verdict):
    """What must not change under a mirror: codes, players and distances per frame."""
    sig = []
    for fr in verdict["frames"]:
        recs = []
        for v in fr["violations"]:
            d = {k: v[k] for k in ("code", "player", "umpire", "opponent") if k in v}
            for k in ("distance_yd", "across_yd", "ball_travel_yd", "closing_speed_yds"):
                if k in v:
                    d[k] = round(v[k], 6)
            recs.append(tuple(sorted(d.items())))
        sig.append(sorted(recs))
    return sig


@settings(max_examples=150, deadline=None)
@given(documents())
def test_mirror_south_north_with_sides_swapped_gives_same_verdicts(doc):
    assert _signature(check_document(doc)) == _signature(check_document(_mirror_x(doc)))


@settings(max_examples=100, deadline=None)
@given(documents())
def test_mirror_west_east_gives_same_verdicts(doc):
    mirrored = copy.deepcopy(doc)
    for fr in mirrored["frames"]:
        for obj in fr["players"] + fr["umpires"] + ([fr["ball"]] if "ball" in fr else []):
            obj["y"] = W - obj["y"]
    assert _signature(check_document(doc)) == _signature(check_document(mirrored))


@settings(max_examples=150, deadline=None)
@given(documents())
def test_reported_distances_are_exact(doc):
    verdict = check_document(doc)
    for fr_doc, fr in zip(doc["frames"], verdict["frames"]):
        pos = {o["id"]: (o["x"], o["y"]) for o in fr_doc["players"] + fr_doc["umpires"]}
        for v in fr["violations"]:
            if v["code"] == "FIVE_YARD":
                (px, py), (ux, uy) = pos[v["player"]], pos[v["umpire"]]
                assert abs(v["distance_yd"] - math.hypot(px - ux, py - uy)) <= 1e-9
                assert v["distance_yd"] < 5.0
            elif v["code"] == "CONTACT_BEFORE_THROW_IN":
                (ax, ay), (bx, by) = pos[v["player"]], pos[v["opponent"]]
                assert abs(v["distance_yd"] - math.hypot(ax - bx, ay - by)) <= 1e-9
            elif v["code"] == "WRONG_SIDE":
                assert abs(v["across_yd"] - abs(pos[v["player"]][0] - L / 2)) <= 1e-9
            elif v["code"] == "THROW_IN_NEAR_BOARDS":
                y = pos[v["umpire"]][1]
                assert abs(v["distance_yd"] - min(y, W - y)) <= 1e-9


@settings(max_examples=200, deadline=None)
@given(documents(coord_x, coord_y))
def test_any_well_formed_document_is_checked_without_exception(doc):
    verdict = check_document(doc)
    assert len(verdict["frames"]) == len(doc["frames"])
    assert all(isinstance(fr["violations"], list) for fr in verdict["frames"])
