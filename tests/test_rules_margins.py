"""Findings on measured positions must hold by a margin of their uncertainty
(Thresholds.margin_sigmas / speed_margin_sigmas with FrameBatch.player_cov/umpire_cov: the same
sigma every way, or by direction)."""
import numpy as np
import pytest

from rules import Thresholds, check_batch
from rules.document import parse_document
from tests.lineups import codes, doc, frame, lineup_players, move


def _batch(players, sigma: float, n_frames: int = 1, **kw):
    b = parse_document(doc(*[frame(players=players, **kw) for _ in range(n_frames)]))
    return _same_every_way(b, sigma, sigma)


def _same_every_way(b, player_sigma: float, umpire_sigma: float):
    """Covariances of positions as sure in every direction: sigma² times the identity."""
    b.player_cov = np.broadcast_to(player_sigma ** 2 * np.eye(2), b.players.shape[:2] + (2, 2)).copy()
    b.umpire_cov = np.broadcast_to(umpire_sigma ** 2 * np.eye(2), b.umpires.shape[:2] + (2, 2)).copy()
    return b


def test_a_near_miss_within_the_noise_is_not_a_violation():
    # red-1 4.8 yd from the umpire (the limit is 5): flagged as exact, not with sigma 0.4 and a 1-sigma margin
    players = move(lineup_players(), "red-1", x=150.0, y=64.8)
    b = _batch(players, sigma=0.4 / np.sqrt(2))                    # player and umpire each: pair sigma 0.4
    assert "FIVE_YARD" in codes(check_batch(b, Thresholds()), 0)
    assert "FIVE_YARD" not in codes(check_batch(b, Thresholds(margin_sigmas=1.0)), 0)
    # well inside the limit it still is one
    b = _batch(move(lineup_players(), "red-1", x=150.0, y=63.0), sigma=0.4 / np.sqrt(2))
    assert "FIVE_YARD" in codes(check_batch(b, Thresholds(margin_sigmas=1.0)), 0)


def test_wrong_side_by_less_than_the_noise_is_not_flagged():
    players = move(lineup_players(), "red-2", x=150.2)            # 0.2 yd over the centre line
    assert "WRONG_SIDE" in codes(check_batch(_batch(players, 0.3), Thresholds()), 0)
    assert "WRONG_SIDE" not in codes(check_batch(_batch(players, 0.3), Thresholds(margin_sigmas=1.0)), 0)
    players = move(lineup_players(), "red-2", x=151.0)            # a yard over: flagged
    assert "WRONG_SIDE" in codes(check_batch(_batch(players, 0.3), Thresholds(margin_sigmas=1.0)), 0)


def test_without_sigmas_the_margin_changes_nothing():
    players = move(lineup_players(), "red-1", x=150.0, y=64.8)
    b = parse_document(doc(frame(players=players)))
    assert codes(check_batch(b, Thresholds(margin_sigmas=3.0)), 0) == codes(check_batch(b, Thresholds()), 0)


def test_rushing_needs_its_speed_margin():
    """A player closing on the umpire at 5 yd/s (limit 4): with noisy positions (sigma 0.5 yd
    at both ends of the 0.5 s window: speed sigma ~1.4 yd/s) two sigmas are not met."""
    frames = []
    for k in range(26):
        players = move(lineup_players(), "blue-1", x=151.5, y=75.0 - 5.0 * k / 25)
        frames.append(frame(players=players))
    b = parse_document(doc(*frames))
    exact = check_batch(b, Thresholds())
    assert "RUSHING_UMPIRE" in codes(exact, 25)
    _same_every_way(b, 0.5, 0.0)
    assert "RUSHING_UMPIRE" in codes(check_batch(b, Thresholds(margin_sigmas=1.0)), 25)   # speeds untouched
    assert "RUSHING_UMPIRE" not in codes(check_batch(b, Thresholds(speed_margin_sigmas=2.0)), 25)


def _side_on(b, across: float, depth: float):
    """Covariances of a camera that measures x (across its view) to `across` yd and y (depth) to `depth` yd."""
    c = np.diag([across ** 2, depth ** 2])
    b.player_cov = np.broadcast_to(c, b.players.shape[:2] + (2, 2)).copy()
    b.umpire_cov = np.broadcast_to(c, b.umpires.shape[:2] + (2, 2)).copy()
    return b


def test_contact_abreast_is_sure_where_the_camera_measures_across():
    """Red-1 and Blue-1 abreast 1.1 yd apart across the centre line (contact under 1.5 yd): a
    yard of depth uncertainty says nothing about a gap across the view, which is known to 0.1 yd."""
    players = move(move(lineup_players(), "red-1", x=149.45), "blue-1", x=150.55)
    exact = check_batch(parse_document(doc(frame(players=players))), Thresholds())
    assert "CONTACT_BEFORE_THROW_IN" in codes(exact, 0)
    iso = _batch(players, sigma=1.0)                               # 1 yd in every direction: not sure
    assert "CONTACT_BEFORE_THROW_IN" not in codes(check_batch(iso, Thresholds(margin_sigmas=1.0)), 0)
    side_on = _side_on(_batch(players, sigma=1.0), across=0.1, depth=1.0)
    assert "CONTACT_BEFORE_THROW_IN" in codes(check_batch(side_on, Thresholds(margin_sigmas=1.0)), 0)
    # the same pair one behind the other along the depth (1.1 yd apart in y): not sure
    players = move(move(lineup_players(), "red-1", x=148.5, y=67.0), "blue-1", x=148.5, y=68.1)
    players = move(players, "red-2", y=72.0)
    side_on = _side_on(_batch(players, sigma=1.0), across=0.1, depth=1.0)
    assert "CONTACT_BEFORE_THROW_IN" in codes(check_batch(side_on, Thresholds()), 0)
    assert "CONTACT_BEFORE_THROW_IN" not in codes(check_batch(side_on, Thresholds(margin_sigmas=1.0)), 0)


def test_the_side_of_the_line_uses_the_uncertainty_across_it():
    players = move(lineup_players(), "red-2", x=150.3)            # 0.3 yd over the centre line
    assert "WRONG_SIDE" not in codes(check_batch(_batch(players, 1.0), Thresholds(margin_sigmas=1.0)), 0)
    side_on = _side_on(_batch(players, 1.0), across=0.1, depth=1.0)
    assert "WRONG_SIDE" in codes(check_batch(side_on, Thresholds(margin_sigmas=1.0)), 0)
    # a camera behind the goal measures x in depth: the same 0.3 yd is not sure
    end_on = _side_on(_batch(players, 1.0), across=1.0, depth=0.1)
    assert "WRONG_SIDE" not in codes(check_batch(end_on, Thresholds(margin_sigmas=1.0)), 0)


def test_the_five_yards_use_the_uncertainty_along_the_line_to_the_umpire():
    # red-1 4.6 yd straight up the field (y) from the umpire: sure when y is known to 0.1 yd, not at 1 yd
    players = move(lineup_players(), "red-1", x=150.0, y=64.6)
    assert "FIVE_YARD" in codes(check_batch(_side_on(_batch(players, 1.0), across=1.0, depth=0.1),
                                            Thresholds(margin_sigmas=1.0)), 0)
    assert "FIVE_YARD" not in codes(check_batch(_side_on(_batch(players, 1.0), across=0.1, depth=1.0),
                                                Thresholds(margin_sigmas=1.0)), 0)


def test_a_speed_needs_the_player_seen_throughout_its_window():
    """The same 5 yd/s closing run: a finding when blue-1 is seen, none where his positions
    are a straight-line guess across a gap in his track (the tracker lost him, then found
    someone further on: in a line-up, the next horse of the rank, 2.9 yd nearer the umpire).
    Seen again, the run is a finding once the gap has left the speed's window."""
    frames = []
    for k in range(45):
        players = move(lineup_players(), "blue-1", x=151.5, y=78.0 - 5.0 * k / 25)
        frames.append(frame(players=players))
    b = parse_document(doc(*frames))
    assert "RUSHING_UMPIRE" in codes(check_batch(b, Thresholds()), 25)
    col = b.player_ids.index("blue-1")
    b.player_unseen = np.zeros(b.players.shape[:2], bool)
    b.player_unseen[5:26, col] = True
    assert "RUSHING_UMPIRE" not in codes(check_batch(b, Thresholds()), 25)
    b.player_unseen[:] = False
    b.player_unseen[20:24, col] = True              # unseen between, seen at both ends: a guess between
    v = check_batch(b, Thresholds())
    assert "RUSHING_UMPIRE" not in codes(v, 25)
    assert "RUSHING_UMPIRE" in codes(v, 40)         # 0.5 s after the gap: seen closing throughout


def test_a_positions_document_can_carry_each_position_s_uncertainty():
    """`sigma_yd` or `cov_yd2` on a player or umpire, and `thresholds.margin_sigmas`: the
    check-positions path judges measured positions as the video pipeline does."""
    from rules import InvalidDocument, check_document

    def verdict(**uncertainty):
        players = move(lineup_players(), "red-2", x=150.3)          # 0.3 yd over, 1.2 yd from blue-2
        for p in players:
            p.update(uncertainty)
        d = doc(frame(players=players))
        d["thresholds"] = {"margin_sigmas": 1.0}
        return set(codes(check_document(d), 0))

    assert verdict() == {"WRONG_SIDE", "CONTACT_BEFORE_THROW_IN"}             # exact positions
    assert verdict(sigma_yd=1.0) == set()                                      # a yard every way: not sure
    assert verdict(cov_yd2=[0.01, 0.0, 1.0]) == {"WRONG_SIDE", "CONTACT_BEFORE_THROW_IN"}   # sure across
    for bad, msg in (({"sigma_yd": -1}, "must not be negative"), ({"cov_yd2": [1, 2, 1]}, "not a covariance"),
                     ({"cov_yd2": [1, 0]}, r"\[xx, xy, yy\]"), ({"cov_yd2": [1, 0, 1], "sigma_yd": 1}, "not both")):
        with pytest.raises(InvalidDocument, match=msg):
            verdict(**bad)


def test_each_finding_gives_its_measure_s_uncertainty_along_its_own_direction():
    """A reviewer sees how sure a call is: FIVE_YARD's `sigma_yd` is along the line to the
    umpire, WRONG_SIDE's across the centre line, a contact's along the gap; exact positions
    carry none."""
    def rec(verdict, code):
        return next(v for v in verdict["frames"][0]["violations"] if v["code"] == code)
    players = move(move(lineup_players(), "red-1", x=150.0, y=63.0), "red-2", x=151.0)     # 3 yd from U1; a yard over
    side_on = _side_on(_batch(players, 1.0), across=0.1, depth=0.6)
    v = check_batch(side_on, Thresholds(margin_sigmas=1.0))
    assert rec(v, "FIVE_YARD")["sigma_yd"] == pytest.approx(np.hypot(0.6, 0.6))        # along y: both depths
    assert rec(v, "WRONG_SIDE")["sigma_yd"] == pytest.approx(0.1)                        # across the line: x
    abreast = move(move(lineup_players(), "red-1", x=149.45), "blue-1", x=150.55)
    v = check_batch(_side_on(_batch(abreast, 1.0), across=0.1, depth=1.0), Thresholds(margin_sigmas=1.0))
    assert rec(v, "CONTACT_BEFORE_THROW_IN")["sigma_yd"] == pytest.approx(np.hypot(0.1, 0.1))
    exact = check_batch(parse_document(doc(frame(players=players))), Thresholds())
    assert "sigma_yd" not in rec(exact, "FIVE_YARD") and "sigma_yd" not in rec(exact, "WRONG_SIDE")


def test_a_finding_within_its_uncertainty_is_listed_to_check_not_as_a_violation():
    """4.8 yd from the umpire with a pair sigma of 0.4: no FIVE_YARD by the 1-sigma margin,
    but the reviewer is told to look (`to_check`), for as long as it holds; exact positions
    have no such list, and a sure finding is not listed twice."""
    from rules.events import to_check_events, violation_events
    near = move(lineup_players(), "red-1", x=150.0, y=64.8)
    b = _batch(near, sigma=0.4 / np.sqrt(2), n_frames=6)
    v = check_batch(b, Thresholds(margin_sigmas=1.0))
    assert not violation_events(v["frames"])
    assert all([r["code"] for r in fr["to_check"]] == ["FIVE_YARD"] for fr in v["frames"])
    ev = to_check_events(v["frames"], [])
    assert [(e["code"], e["player"], e["start_frame"], e["end_frame"]) for e in ev] == [("FIVE_YARD", "red-1", 0, 5)]
    assert ev[0]["worst"]["distance_yd"] == pytest.approx(4.8) and ev[0]["worst"]["sigma_yd"] == pytest.approx(0.4)
    inside = _batch(move(lineup_players(), "red-1", x=150.0, y=63.0), sigma=0.4 / np.sqrt(2), n_frames=6)
    v = check_batch(inside, Thresholds(margin_sigmas=1.0))
    assert violation_events(v["frames"]) and not any(fr["to_check"] for fr in v["frames"])
    exact = check_batch(parse_document(doc(*[frame(players=near) for _ in range(6)])), Thresholds(margin_sigmas=1.0))
    assert all("to_check" not in fr for fr in exact["frames"])


def test_the_frames_where_a_sure_violation_comes_and_goes_are_not_listed_to_check():
    from rules.events import to_check_events
    sure = [{"code": "FIVE_YARD", "player": "red-1", "opponent": None, "start_frame": 10, "end_frame": 30}]
    rec = {"code": "FIVE_YARD", "player": "red-1", "distance_yd": 4.8}
    frames = [{"index": i, "violations": [], "to_check": [rec] if 6 <= i < 10 or 40 <= i < 45 else []}
              for i in range(50)]
    assert [(e["start_frame"], e["end_frame"]) for e in to_check_events(frames, sure)] == [(40, 44)]


def test_a_reversed_line_up_within_the_noise_is_one_finding_to_check_not_eight_sides():
    """Every player 0.2 yd over the line the wrong way, each known to 0.3 yd across it: as
    measured the line-up is reversed, by the margin nobody is across; the list to check holds
    the reversed line-up once, not each player's side."""
    from tests.lineups import DEFENDING
    south = next(t for t, end in DEFENDING.items() if end == "south")
    reversed_ = [{**p, "x": 150.2 if p["team"] == south else 149.8, "y": p["y"] + (p["team"] == south) * 2.0}
                 for p in lineup_players(gap=4.0)]                      # ranks staggered: no two in contact
    v = check_batch(_batch(reversed_, 0.3), Thresholds(margin_sigmas=1.0))
    assert not v["frames"][0]["violations"]
    assert [r["code"] for r in v["frames"][0]["to_check"]] == ["REVERSED_LINEUP"]
    assert "REVERSED_LINEUP" in codes(check_batch(_batch(reversed_, 0.3), Thresholds()), 0)      # no margin: sure
