"""vision.teams: jersey colours, umpire stripes, clustering, identity voting."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.teams import (UMPIRE, IdentityVoter, assign_teams, bgr_to_lab, cluster_two,
                          colour_distance, colour_feature, describe, feature_distance,
                          jersey_band, jersey_colour, lab_to_bgr, stripe_score, torso_box)

RED, BLUE = (30, 30, 200), (200, 60, 20)
BOX = (0, 0, 40, 90)
KITS = {"red": (40, 35, 200), "blue": (190, 80, 25), "white": (235, 235, 235),
        "yellow": (40, 210, 235), "navy": (90, 40, 20), "orange": (20, 120, 240),
        "light_blue": (230, 180, 110)}
COATS = [(30, 60, 120), (35, 68, 135), (25, 25, 28), (165, 165, 160), (20, 35, 70)]


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


def mounted(rng, jersey, coat, light=1.0, number=(235, 235, 235), head_on=True, w=40, h=90):
    """A rider box on a pony: grass, helmet, face, jersey with a number, white breeches,
    the pony below and (head on) its head and neck rising in front of the jersey; all lit
    from one side and × `light` (a rider in the shade is a darker, not a greyer, kit)."""
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (45, 125, 60)
    cv2.ellipse(img, (w // 2, int(0.07 * h)), (int(0.16 * w), int(0.07 * h)), 0, 0, 360,
                (40, 40, 45), -1)
    img[int(0.11 * h):int(0.17 * h), int(0.4 * w):int(0.6 * w)] = (150, 175, 215)
    t0, t1, x0, x1 = int(0.16 * h), int(0.5 * h), int(0.16 * w), int(0.84 * w)
    img[t0:t1, x0:x1] = jersey
    cv2.putText(img, str(rng.integers(1, 5)), (int(0.36 * w), int(0.42 * h)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.55, number, 2)
    img[t1:int(0.68 * h), x0:x1] = (232, 234, 236)
    img[int(0.68 * h):] = coat
    if head_on:
        neck = np.array([[0.32, 1.0], [0.3, 0.42], [0.42, 0.36], [0.58, 0.38], [0.66, 1.0]])
        cv2.fillPoly(img, [(neck * (w, h)).astype(np.int32)], coat)
    side = np.linspace(rng.uniform(0.45, 0.7), 1.0, w)[::rng.choice([-1, 1])]
    out = img.astype(np.float32) * (side[None, :, None] * light)
    out = cv2.GaussianBlur(out + rng.normal(0, 4, out.shape), (3, 3), 0.6)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_torso_box_is_upper_middle():
    assert torso_box((100, 200, 140, 300)) == (108, 212, 132, 255)


def test_lab_roundtrip():
    for bgr in (RED, BLUE, (255, 255, 255), (0, 0, 0), (40, 160, 40)):
        assert np.abs(lab_to_bgr(bgr_to_lab(bgr)).astype(int) - bgr).max() <= 2
    assert bgr_to_lab((128, 128, 128))[1:] == pytest.approx([128, 128], abs=0.5)


def test_jersey_colour_ignores_skin_pants_and_grass():
    rng = np.random.default_rng(0)
    sig, lab, n, share = jersey_colour(jersey_band(rider(rng, RED), BOX))
    assert share > 0.6 and n > 150
    assert colour_distance(lab, bgr_to_lab(RED)) < 12
    assert feature_distance(sig, colour_feature(RED)) < feature_distance(sig, colour_feature(BLUE))
    look = describe(rider(rng, (235, 235, 235)), BOX)
    assert not look.colourful and look.lab[0] > 200        # a white jersey still has a colour
    assert describe(rider(rng, RED), BOX).colourful


def test_signature_is_the_same_in_sun_and_shade():
    """A kit in deep shade is darker, not another colour: its signature stays with the kit
    (Lab distance does not: navy and yellow in shade come out as the horse's brown)."""
    rng = np.random.default_rng(11)
    for kit in ("red", "yellow", "navy", "orange", "light_blue"):
        sun = describe(mounted(rng, KITS[kit], COATS[0], light=1.0), BOX).feature
        shade = describe(mounted(rng, KITS[kit], COATS[0], light=0.35), BOX).feature
        others = [describe(mounted(rng, KITS[o], COATS[0], light=0.7), BOX).feature
                  for o in KITS if o != kit and {o, kit} != {"blue", "navy"}]
        assert feature_distance(sun, shade) < min(feature_distance(shade, o) for o in others), kit


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
    labels, centres = cluster_two(np.array([lk.feature for lk in looks[:10]]))
    assert len(set(labels[:5])) == 1 and len(set(labels[5:])) == 1
    assert labels[0] != labels[5]
    # without hints: stable names; with (approximate) hints: the hint names
    names = assign_teams(np.array([lk.feature for lk in looks[:10]]))
    assert names[:5] == [names[0]] * 5 and names[5:] == [names[5]] * 5
    assert set(names) == {"team_a", "team_b"}
    shuffled = assign_teams(np.array([lk.feature for lk in looks[9::-1]]))
    assert shuffled[::-1] == names                         # same colours, same names
    hinted = assign_teams(np.array([lk.feature for lk in looks[:10]]),
                          hints={"blue": (160, 80, 40), "red": (60, 40, 160)})
    assert hinted == ["red"] * 5 + ["blue"] * 5


def test_one_team_in_view_with_hints_takes_nearest_hint():
    rng = np.random.default_rng(3)
    feats = np.array([describe(rider(rng, BLUE), BOX).feature for _ in range(4)])
    assert assign_teams(feats, hints={"red": RED, "blue": BLUE}) == ["blue"] * 4


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


def _ponies(voter, kits, rng, looks=6):
    """Four riders per kit, on ponies of every coat, from full sun to deep shade, the
    pony's head in front of the jersey every other look. Track id → kit."""
    want = {}
    for i in range(8):
        kit = kits[i // 4]
        number = (25, 25, 25) if kit == "white" else (235, 235, 235)
        light = (0.35, 0.5, 0.75, 1.0)[i % 4]
        for f in range(looks):
            crop = mounted(rng, KITS[kit], COATS[i % len(COATS)], light * rng.uniform(0.9, 1.1),
                           number, head_on=f % 2 == 0)
            voter.observe(i, describe(crop, BOX))
        want[i] = kit
    return want


@pytest.mark.parametrize("kits", [("yellow", "navy"), ("red", "white"), ("orange", "light_blue"),
                                  ("red", "blue")])
def test_kits_in_shade_on_ponies_keep_their_team(kits):
    voter = IdentityVoter(hints={k: KITS[k] for k in kits}, min_separation=8.0)
    want = _ponies(voter, kits, np.random.default_rng(12))
    assert voter.identities() == want
    voter = IdentityVoter(min_separation=8.0)                  # no hints: two clean groups
    want = _ponies(voter, kits, np.random.default_rng(13))
    ids = voter.identities()
    assert {ids[i] for i in range(4)} != {ids[i] for i in range(4, 8)}
    assert len({ids[i] for i in range(4)}) == len({ids[i] for i in range(4, 8)}) == 1


def test_rough_hints_name_kits_by_hue():
    """Team names that are colour words give rough hints ("red" for a yellow kit, "blue"
    for navy): the clusters take the names nearer in hue, as a pair."""
    voter = IdentityVoter(hints={"red": (40, 40, 210), "blue": (200, 90, 30)}, min_separation=8.0)
    want = _ponies(voter, ("yellow", "navy"), np.random.default_rng(14))
    assert voter.identities() == {i: "red" if k == "yellow" else "blue" for i, k in want.items()}


def test_describe_without_stripes_and_observation_count():
    rng = np.random.default_rng(15)
    crop = rider(rng, stripes="v")
    full, plain = describe(crop, BOX), describe(crop, BOX, stripes=False)
    assert full.umpire_score > 0.5 and plain.umpire_score == 0.0
    assert np.allclose(full.feature, plain.feature)
    voter = IdentityVoter()
    for _ in range(4):
        voter.observe(3, plain, umpire=False)
    assert voter.observations(3) == 4 and voter.observations(99) == 0


def _behind(rng, share: float) -> np.ndarray:
    """A red rider seen behind a blue one: the lower `share` of his jersey band covered by the
    blue jersey (and helmet) of the rider in front of him, as in a line-up filmed along its ranks."""
    img = rider(rng, RED)
    h = img.shape[0]
    cut = int(0.12 * h + (1 - share) * 0.43 * h)
    img[cut:] = np.clip(np.array(BLUE) + rng.normal(0, 8, img[cut:].shape), 0, 255).astype(np.uint8)
    return img


def test_looks_of_two_kits_at_once_give_way_to_clear_looks():
    """A rider behind one of the other team (a re-rendered wrong_side_plays_early: Red #4 behind
    Blue #4, 28 line-up looks each a little nearer blue) is the team of his few clear looks;
    with no clear look at all, the nearer colour still names him."""
    rng = np.random.default_rng(11)
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE})
    for _ in range(20):
        for tid in range(1, 9):                                      # four riders a team
            voter.observe(tid, describe(rider(rng, RED if tid <= 4 else BLUE), BOX))
    for _ in range(20):
        voter.observe("behind", describe(_behind(rng, 0.55), BOX))
        voter.observe("always behind", describe(_behind(rng, 0.55), BOX))
    assert voter.identity("behind") == voter.identity("always behind") == "blue"
    for _ in range(5):
        voter.observe("behind", describe(rider(rng, RED), BOX))     # the rider in front has gone
    assert voter.identity("behind") == "red"
    assert voter.identity("always behind") == "blue"
    assert [voter.identity(t) for t in range(1, 9)] == ["red"] * 4 + ["blue"] * 4


def test_looks_of_a_riderless_horse_give_a_team_without_moving_the_colours():
    """A horse whose rider the detector never boxed (session 36: sample slow_returner_red2's
    Red #1, his rider boxed as a horse) is looked at where its rider sits: those looks name a
    team as a track's own would, need `min_votes`, never make an umpire, and leave the team
    colours as they were."""
    rng = np.random.default_rng(7)
    voter = IdentityVoter()
    _play(voter, rng)
    red_name = voter.identity(1)
    before = {k: v.copy() for k, v in voter.team_colours().items()}
    reds = [describe(rider(rng, RED), BOX).feature for _ in range(5)]
    assert voter.team_of(reds) == red_name
    assert voter.team_of(reds[:2]) is None                       # fewer than min_votes
    assert voter.team_of([describe(rider(rng, stripes="v"), BOX).feature] * 5) != UMPIRE
    assert voter.team_of([]) is None
    after = voter.team_colours()
    assert all(np.allclose(before[k], after[k]) for k in before)


def test_the_rider_a_horse_box_implies_sits_on_its_back():
    """rider_from_horse: centred on the horse box, 0.33 of its height wide, from 0.21 of its
    height above its top to 0.52 below (the samples' truth); in a rendered frame the box it
    implies for a fully visible horse overlaps the true rider's by IoU 0.5 or more."""
    import json
    from pathlib import Path
    from vision.players import rider_from_horse
    r = rider_from_horse(np.array([[100.0, 200.0, 200.0, 300.0]]))[0]
    assert np.allclose(r, [133.5, 179.0, 166.5, 252.0])
    truth = json.loads((Path(__file__).resolve().parents[1] / "sample_videos" / "throw_in_near_boards"
                        / "truth.json").read_text())
    ious = []
    for o in truth["frames"][30]["objects"]:
        if o["role"] != "player" or min(o["part_visible"].values()) < 0.95:
            continue
        h, t = np.array(o["boxes"]["horse"]), np.array(o["boxes"]["rider"])
        b = rider_from_horse(h)[0]
        inter = max(0, min(b[2], t[2]) - max(b[0], t[0])) * max(0, min(b[3], t[3]) - max(b[1], t[1]))
        ious.append(inter / ((b[2] - b[0]) * (b[3] - b[1]) + (t[2] - t[0]) * (t[3] - t[1]) - inter))
    assert len(ious) >= 4 and min(ious) >= 0.5


def test_a_track_with_no_look_of_its_own_takes_its_riderless_looks_team():
    """vision.pipeline._identities: track 7 (no look of its own) takes the team its horse's
    rider-less looks vote for; a track the voter has looks of keeps the voter's identity."""
    from vision.pipeline import _identities
    rng = np.random.default_rng(8)
    voter = IdentityVoter(hints={"red": RED, "blue": BLUE})
    _play(voter, rng)
    reds = [describe(rider(rng, RED), BOX).feature for _ in range(5)]
    tids = [1, 4, 7]
    xy = np.full((3, 10, 2), 0.0)
    ident = _identities(voter, tids, xy, np.ones(10, bool), {"red": "south", "blue": "north"}, 150.0, True,
                        {7: reds, 4: reds})
    assert ident == {1: "red", 4: "blue", 7: "red"}
    assert 7 not in _identities(voter, tids, xy, np.ones(10, bool), {"red": "south", "blue": "north"}, 150.0, True)
