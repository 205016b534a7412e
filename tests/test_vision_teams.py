"""vision.teams: jersey colours, umpire stripes, clustering, identity voting."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.teams import (UMPIRE, IdentityVoter, assign_teams, bgr_to_lab, cluster_two,
                          colour_distance, describe, jersey_colour, lab_to_bgr,
                          stripe_score, torso_box)

RED, BLUE = (30, 30, 200), (200, 60, 20)
BOX = (0, 0, 40, 90)


def rider(rng, jersey=None, stripes=None, w=40, h=90, period=6, light=1.0):
    """A rider box: grass, skin head and arms, torso (jersey or stripes), white pants."""
    img = np.zeros((h, w, 3), np.float32)
    img[:] = (40, 120, 50)
    x0, x1, t0, t1 = int(0.15 * w), int(0.85 * w), int(0.12 * h), int(0.55 * h)
    img[:t0, int(0.35 * w):int(0.65 * w)] = (120, 150, 200)
    yy, xx = np.mgrid[t0:t1, x0:x1]
    if stripes is None:
        img[t0:t1, x0:x1] = jersey
    else:
        coord = xx if stripes == "v" else yy
        img[t0:t1, x0:x1] = np.where(((coord // (period / 2)) % 2 == 0)[..., None],
                                     235.0, 25.0)
    img[t0 + 5:t1 - 5, x0:x0 + 4] = img[t0 + 5:t1 - 5, x1 - 4:x1] = (110, 140, 190)
    img[t1:int(0.8 * h), x0:x1] = (230, 230, 230)
    img *= light * np.linspace(rng.uniform(0.75, 0.9), rng.uniform(1.0, 1.15), w)[None, :, None]
    img += rng.normal(0, 8, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_torso_box_is_upper_middle():
    assert torso_box((100, 200, 140, 300)) == (108, 212, 132, 255)


def test_lab_roundtrip():
    for bgr in (RED, BLUE, (255, 255, 255), (0, 0, 0), (40, 160, 40)):
        assert np.abs(lab_to_bgr(bgr_to_lab(bgr)).astype(int) - bgr).max() <= 2
    assert bgr_to_lab((128, 128, 128))[1:] == pytest.approx([128, 128], abs=0.5)


def test_jersey_colour_ignores_skin_pants_and_grass():
    rng = np.random.default_rng(0)
    lab, colourful, n = jersey_colour(rider(rng, RED)[11:50, 8:32])
    assert colourful and n > 300
    assert colour_distance(lab, bgr_to_lab(RED)) < 12
    lab, colourful, _ = jersey_colour(rider(rng, (235, 235, 235))[11:50, 8:32])
    assert not colourful and lab[0] > 200                  # a white jersey still has a colour


def test_stripes_score_high_only_for_black_and_white_stripes():
    rng = np.random.default_rng(1)
    striped = [rider(rng, stripes=o, period=p) for o in "vh" for p in (4, 6, 8)]
    plain = [rider(rng, c) for c in (RED, BLUE, (235, 235, 235), (25, 25, 25))]
    hoops = rider(rng, stripes="h")
    hoops[hoops[..., 0] > 150] = BLUE                      # blue-and-black hoops
    numbered = rider(rng, (25, 25, 25))
    cv2.putText(numbered, "7", (12, 45), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (235, 235, 235), 3)
    assert min(describe(c, BOX).umpire_score for c in striped) > 0.6
    assert max(describe(c, BOX).umpire_score for c in plain + [hoops, numbered]) < 0.2
    # small and slightly soft still works
    small = cv2.resize(rider(rng, stripes="v"), (24, 54), interpolation=cv2.INTER_AREA)
    assert stripe_score(small[6:30, 5:19]) > 0.5


def test_crops_of_two_jerseys_and_an_umpire_are_separated():
    rng = np.random.default_rng(2)
    crops = ([rider(rng, RED, light=rng.uniform(0.7, 1.2)) for _ in range(5)]
             + [rider(rng, BLUE, light=rng.uniform(0.7, 1.2)) for _ in range(5)]
             + [rider(rng, stripes="v")])
    looks = [describe(c, BOX) for c in crops]
    assert [lk.umpire_score > 0.5 for lk in looks] == [False] * 10 + [True]
    labels, centres = cluster_two(np.array([lk.lab for lk in looks[:10]]))
    assert len(set(labels[:5])) == 1 and len(set(labels[5:])) == 1
    assert labels[0] != labels[5]
    # without hints: stable names; with (approximate) hints: the hint names
    names = assign_teams(np.array([lk.lab for lk in looks[:10]]))
    assert names[:5] == [names[0]] * 5 and names[5:] == [names[5]] * 5
    assert set(names) == {"team_a", "team_b"}
    shuffled = assign_teams(np.array([lk.lab for lk in looks[9::-1]]))
    assert shuffled[::-1] == names                         # same colours, same names
    hinted = assign_teams(np.array([lk.lab for lk in looks[:10]]),
                          hints={"blue": (160, 80, 40), "red": (60, 40, 160)})
    assert hinted == ["red"] * 5 + ["blue"] * 5


def test_one_team_in_view_with_hints_takes_nearest_hint():
    rng = np.random.default_rng(3)
    labs = np.array([describe(rider(rng, BLUE), BOX).lab for _ in range(4)])
    assert assign_teams(labs, hints={"red": RED, "blue": BLUE}) == ["blue"] * 4


def _play(voter, rng, frames=15, swap_every=5):
    """Three red tracks, three blue, umpire 'U'; every `swap_every`-th look is wrong."""
    kinds = {1: RED, 2: RED, 3: RED, 4: BLUE, 5: BLUE, 6: BLUE}
    for f in range(frames):
        for tid, colour in kinds.items():
            if f % swap_every == tid % swap_every:
                colour = BLUE if colour == RED else RED    # a misleading frame
            voter.observe(tid, describe(rider(rng, colour, light=rng.uniform(0.7, 1.2)), BOX))
        voter.observe("U", describe(rider(rng, stripes="v"), BOX))


def test_voter_holds_identity_by_majority():
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE})
    _play(voter, np.random.default_rng(4))
    ids = voter.identities()
    assert ids == {1: "red", 2: "red", 3: "red", 4: "blue", 5: "blue", 6: "blue",
                   "U": UMPIRE}
    assert voter.votes(1)["red"] > voter.votes(1)["blue"] > 0


def test_voter_without_hints_keeps_names_stable():
    voter = IdentityVoter(recluster_every=5)
    rng = np.random.default_rng(5)
    _play(voter, rng, frames=6)
    first = voter.identities()
    assert {first[1], first[4]} == {"team_a", "team_b"} and first[1] != first[4]
    assert first["U"] == UMPIRE
    _play(voter, rng, frames=10)                          # many re-clusterings later
    assert voter.identities() == first


def test_voter_second_team_appears_later():
    voter = IdentityVoter(recluster_every=1)
    rng = np.random.default_rng(6)
    for _ in range(5):
        voter.observe("r", describe(rider(rng, RED), BOX))
    assert voter.identity("r") == "team_a"
    for _ in range(5):
        voter.observe("r", describe(rider(rng, RED), BOX))
        voter.observe("b", describe(rider(rng, BLUE), BOX))
    assert voter.identity("r") == "team_a" and voter.identity("b") == "team_b"


def test_voter_needs_enough_votes_and_accepts_detector_umpire():
    voter = IdentityVoter(min_votes=3)
    rng = np.random.default_rng(7)
    voter.observe(9, describe(rider(rng, RED), BOX))
    assert voter.identity(9) is None
    for _ in range(3):
        voter.observe("u2", describe(rider(rng, (25, 25, 25)), BOX), umpire=True)
    assert voter.identity("u2") == UMPIRE
    voter.forget("u2")
    assert "u2" not in voter.identities()


def test_observe_frame_reads_boxes_from_a_frame():
    rng = np.random.default_rng(8)
    frame = np.zeros((120, 200, 3), np.uint8)
    frame[:] = (40, 120, 50)
    frame[10:100, 10:50] = rider(rng, RED)
    frame[10:100, 80:120] = rider(rng, BLUE)
    frame[10:100, 150:190] = rider(rng, stripes="v")
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE}, min_votes=1)
    boxes = [(10, 10, 50, 100), (80, 10, 120, 100), (150, 10, 190, 100)]
    for _ in range(2):
        looks = voter.observe_frame(frame, boxes, ["a", "b", "c"])
    assert looks[2].umpire_score > 0.5
    assert voter.identities() == {"a": "red", "b": "blue", "c": UMPIRE}


def test_dominant_colour_is_the_mode_not_a_mixture():
    from vision.teams import dominant_colour
    red, orange = bgr_to_lab(RED), bgr_to_lab((0, 140, 255))
    pixels = np.r_[np.repeat(red[None], 60, 0), np.repeat(orange[None], 40, 0)]
    pixels += np.random.default_rng(9).normal(0, 2, pixels.shape)
    colour, n = dominant_colour(pixels)
    assert colour_distance(colour, red) < 5 and n == 60


def test_background_colour_is_ignored():
    rng = np.random.default_rng(10)
    crop = rider(rng, RED)[11:50, 8:32].copy()
    crop[:, :12] = (40, 120, 50)                       # half the torso crop is grass
    grass = bgr_to_lab((40, 120, 50))
    lab, colourful, _ = jersey_colour(crop, background_lab=grass)
    assert colourful and colour_distance(lab, bgr_to_lab(RED)) < 15
