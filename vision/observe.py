"""Pass one over a clip: detections → mounted units → tracks → appearance votes → field points.

Everything here is per frame; what needs the whole clip (identity by vote, smoothing, the
throw-in, the rules) happens afterwards in vision.pipeline.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.detections import BALL, UMPIRE, Detections, inside_grown
from vision.ball import HIT_SPEED_YDS
from vision.homography import field_to_image, image_to_field
from vision.phase import HAND_MARGIN
from vision.players import pair_units, rider_from_horse
from vision.positions import ground_point_px
from vision.shirt_numbers import READ_MIN, readable
from vision.teams import IdentityVoter, describe
from vision.tracking import UnitTracker


RECENT_HORSE_S = 1.0    # --hidden-horses: a rider's implied horse is not used where a detected horse stood
RECENT_HORSE_YD = 1.5   # this near within this long: the detector missed a horse it sees, and the tracker
                        # bridges that better than the implied box (median 0.7-1 yd off) would
REACQUIRE_S = 4.0       # a lost ball is looked for near the player nearest its last sighting this long
SEARCH_S = 6.0          # ... and at one other player a frame, in turn, this long
SETTLED_READS = 6      # a track's shirt number read this many times surely, no other digit: settled ...
SETTLED_EVERY = 5      # ... and read again only at every 5th reading frame (a cost: ~0.5 ms a rider)
VOTE_MIN_SEAT = 0.4     # pairing score (vision.players.seat_score) a look needs to vote: true pairs
                        # score 0.46 and up (the renderer's boxes, all sample clips), a neighbour's rider ~0.33


@dataclass
class FrameObs:
    index: int
    t: float
    H: np.ndarray                 # image px → field yd used for this frame
    camera_ok: bool
    track_ids: np.ndarray         # (N,) -1 = not yet a confirmed track
    horse_xyxy: np.ndarray        # (N, 4)
    person_xyxy: np.ndarray       # (N, 4) NaN where no rider was paired
    det_umpire: np.ndarray        # (N,) the detector called the person an umpire
    ground_px: np.ndarray         # (N, 2)
    field_yd: np.ndarray          # (N, 2)
    ball_px: np.ndarray | None    # (2,) centre of the best ball detection
    ball_yd: np.ndarray | None
    inferred: np.ndarray | None = None   # (N,) the horse box is implied by its rider's (horse hidden)


@dataclass
class Observer:
    """Feeds frames one by one; keeps the per-frame observations and the identity votes."""

    detector: object
    voter: IdentityVoter
    tracker: UnitTracker
    camera: object | None          # a CameraMotionTracker, or None for a fixed H
    H0: np.ndarray
    detector_knows_umpires: bool = True
    # How a look votes "umpire": "detector" (its umpire class only), "both" (the detector's
    # umpire class, or else the striped-shirt score: a detector weak on umpires is helped).
    # Without an umpire class (COCO) the stripe score alone decides.
    umpire_cues: str = "both"
    ball: object | None = None     # a vision.ball.BallFollower: looks for the ball the detector missed
    motion_ball: object | None = None  # a vision.ball_motion.MotionBallFinder: the thrown ball from motion
    hidden_horses: bool = False    # riders of hidden horses are units (vision.players.pair_units)
    look_every: int = 3            # after a track's first looks, one look in this many frames (at 25 frames/s;
                                   # vision.pipeline scales it to the footage: vision.frame_rate)
    # An umpire whose rider box the detector misses in a frame (his horse found, a small person
    # at the edge of its threshold) is where he last sat on that horse, for this many frames (at
    # 25 frames/s; vision.pipeline scales it): the ball stage and the thrown-ball finder look
    # around him (own_goal_blue1's release: the rider seen on 3 of the 10 frames around it).
    person_memory: int = 25        # video frames (1 s at 25 frames/s)
    numbers: object | None = None  # a vision.shirt_numbers.NumberReader: reads riders' shirt numbers
    read_every: int = 3            # ... in one frame of this many (vision.pipeline scales it to the footage);
                                   # a track whose number is settled (SETTLED_READS sure reads, none against)
                                   # in one frame of SETTLED_EVERY times as many
    frames: list[FrameObs] = field(default_factory=list)
    # (frame position, unit index in that frame, class probabilities (5,)): kept by unit, not by
    # track id, as the track ids of a frame may change after it (vision.swaps).
    number_reads: list[tuple] = field(default_factory=list)
    _number_tally: dict = field(default_factory=dict)   # track id → {digit: sure reads}, at read time
    _horses_seen: list[tuple] = field(default_factory=list)   # (time s, field yd (N, 2)) of detected horses
    _ball_last: tuple | None = None     # (time s, field yd, at an umpire, in his hands) of the last ball seen
    _ball_played: bool = False          # a ball has been seen away from the umpires
    looks: list[tuple] = field(default_factory=list)   # (frame position, track id, Appearance, umpire said)
    # (frame position, unit index, colour feature) of a horse no rider was paired with, seen where
    # its rider would sit (vision.players.rider_from_horse): for a track no rider ever spoke for
    rider_less_looks: list[tuple] = field(default_factory=list)
    _riders: dict = field(default_factory=dict)   # track id → (frame index, rider box, horse box, umpire said)

    def observe(self, index: int, t: float, frame: np.ndarray, det: Detections | None = None,
                step=None) -> FrameObs:
        """One frame. `det`: its detections (else the detector runs here); `step`: the camera
        tracker's update for it when the caller already made it (vision.pipeline, checking a
        camera cut), else it is made here."""
        if det is None:
            det = self.detector(frame, index=index) if getattr(self.detector, "wants_index", False) \
                else self.detector(frame)
        units = pair_units(det, hidden_horses=self.hidden_horses)
        H, ok = self.H0, True
        if self.camera is not None:
            if step is None:
                step = self.camera.update(frame, exclude_boxes=det.xyxy)
            H, ok = step.H, step.ok
        ground = ground_point_px(units.horse_xyxy)
        field_yd = image_to_field(H, ground) if len(ground) else np.zeros((0, 2))
        if self.hidden_horses:
            units, ground, field_yd = self._drop_recently_seen(units, ground, field_yd, t)
        # The camera's motion since the last frame, pixels to pixels (None when it is fixed, or
        # when the tracker works in yards and has no use for it).
        motion = None
        if self.camera is not None and self.frames and self.tracker.space == "image":
            motion = np.linalg.inv(H) @ self.frames[-1].H
        ids = self.tracker.update(units, field_yd, ground, motion, (frame.shape[1], frame.shape[0]))
        # Only a person sitting squarely on the horse speaks for the unit: in a line-up a
        # neighbour's rider can be the best fit for a horse whose own rider was missed.
        seated = units.seat >= VOTE_MIN_SEAT if units.seat is not None else np.ones(len(units), bool)
        for k in np.flatnonzero((ids >= 0) & ~np.isnan(units.person_xyxy[:, 0]) & seated):
            tid = int(ids[k])
            # Identity is a vote over many looks: once a track has a few, look every 3rd frame (at 25/s)
            # (staggered by track id so that frames cost alike). The stripe score is skipped
            # only when the detector's umpire class alone decides (umpire_cues "detector").
            if self.voter.observations(tid) >= 9 and (len(self.frames) + tid) % self.look_every:
                continue
            both = self.umpire_cues == "both"
            look = describe(frame, units.person_xyxy[k], stripes=both or not self.detector_knows_umpires)
            said = bool(units.is_umpire[k]) if self.detector_knows_umpires else None
            if both and said is False:
                said = None                   # "a rider" from the detector: the stripes decide
            self.voter.observe(tid, look, umpire=said)
            self.looks.append((len(self.frames), tid, look, said))
        # A horse whose rider the detector did not box (taken for a horse's box, or missed) in a
        # frame: what is seen where he would sit is kept apart, by unit (its track id may change:
        # vision.swaps), for a track with no look of its own (vision.pipeline, a team by colour).
        lone = (ids >= 0) & np.isnan(units.person_xyxy[:, 0])
        if units.inferred is not None:
            lone &= ~units.inferred
        for k in np.flatnonzero(lone):
            if (len(self.frames) + int(ids[k])) % self.look_every:
                continue
            look = describe(frame, rider_from_horse(units.horse_xyxy[k])[0], stripes=False)
            if look.feature is not None:
                self.rider_less_looks.append((len(self.frames), int(k), look.feature))
        if self.numbers is not None and len(self.frames) % self.read_every == 0:
            self._read_numbers(frame, units, ids, seated)
        umpires = self._umpire_boxes(units, ids, index) \
            if self.ball is not None or self.motion_ball is not None else None
        if self.motion_ball is not None:
            # The previous frame's ball from motion (it needs this frame): recorded there, and
            # followed from there by the ball stage.
            # The camera tracker has just made this frame's grey image: one conversion, not two.
            grey = self.camera.last_grey if self.camera is not None else None
            moved = self.motion_ball.push(index, grey if grey is not None else frame,
                                          H if self.camera is not None else None, umpires)
            if moved is not None and self.frames and self.frames[-1].index == moved[0]:
                prev = self.frames[-1]
                prev.ball_px, prev.ball_yd = moved[1], image_to_field(prev.H, moved[1][None])[0]
                if self.ball is not None:
                    self.ball.remember(moved[0], moved[1])
                if self._ball_last is None or self._ball_last[0] <= prev.t:
                    self._saw_ball(prev.t, prev.ball_yd, moved[1], umpires)
        balls = det.of(BALL)
        ball_px = ball_yd = None
        if len(balls):
            best = int(np.argmax(balls.confidence))
            ball_px = balls.bottom_centre[best]
            if self.ball is not None:
                self.ball.remember(index, ball_px)
        elif self.ball is not None:
            seen = self.ball.find(frame, index, umpires, self._ball_lost_near(units, field_yd),
                                  self._ball_hit_steps(H, index, t), self._rider_boxes(units, ids))
            if seen is not None:
                ball_px = seen.xy
        if ball_px is not None:
            ball_yd = image_to_field(H, ball_px[None])[0]
            self._saw_ball(t, ball_yd, ball_px, umpires)
            if self.motion_ball is not None:
                self.motion_ball.mark_seen(index)
        obs = FrameObs(index, t, H, ok, ids, units.horse_xyxy, units.person_xyxy,
                       units.is_umpire, ground, field_yd, ball_px, ball_yd, units.inferred)
        self.frames.append(obs)
        return obs

    def _read_numbers(self, frame: np.ndarray, units, ids: np.ndarray, seated: np.ndarray) -> None:
        """Shirt-number reads of this frame's tracked, seated riders tall enough to read (not
        the umpires: they wear none)."""
        turn = len(self.frames) // self.read_every
        ks = [int(k) for k in np.flatnonzero((ids >= 0) & seated & readable(units.person_xyxy))
              if not self._says_umpire(units, ids, int(k))
              and (not self._number_settled(int(ids[k])) or (turn + int(ids[k])) % SETTLED_EVERY == 0)]
        if not ks:
            return
        for k, p in zip(ks, self.numbers.read(frame, units.person_xyxy[ks])):
            self.number_reads.append((len(self.frames), k, p))
            if p[1:].max() >= READ_MIN:
                tally = self._number_tally.setdefault(int(ids[k]), {})
                digit = int(np.argmax(p[1:])) + 1
                tally[digit] = tally.get(digit, 0) + 1

    def _number_settled(self, tid: int) -> bool:
        """The track's sure reads so far name one digit only, SETTLED_READS times or more."""
        tally = self._number_tally.get(tid)
        return bool(tally) and len(tally) == 1 and max(tally.values()) >= SETTLED_READS

    def _saw_ball(self, t: float, ball_yd: np.ndarray, ball_px: np.ndarray, umpires: np.ndarray | None) -> None:
        """Record the ball's last sighting (where a lost ball is looked for: _ball_lost_near,
        _ball_hit_steps) and whether the ball has been seen away from the umpires (in play)."""
        self._ball_last = (t, ball_yd, _near_umpire(ball_px, umpires), _in_umpire_box(ball_px, umpires))
        self._ball_played |= not self._ball_last[2]

    def forget_after(self, index: int) -> FrameObs | None:
        """Take back the observations of the frames after `index` (a replay found there: they
        show the past; vision.replays) and return the first of them (None: none). Identity votes
        cast from them stay: a replay shows the same riders."""
        keep = [f for f in self.frames if f.index <= index]
        if len(keep) == len(self.frames):
            return None
        first, self.frames = self.frames[len(keep)], keep
        self.looks = [look for look in self.looks if look[0] < len(keep)]
        self.number_reads = [r for r in self.number_reads if r[0] < len(keep)]
        self.rider_less_looks = [r for r in self.rider_less_looks if r[0] < len(keep)]
        self._horses_seen = [(s, xy) for s, xy in self._horses_seen if s < first.t]
        if self._ball_last is not None and self._ball_last[0] >= first.t:
            self._ball_last = None
        return first

    def _drop_recently_seen(self, units, ground: np.ndarray, field_yd: np.ndarray, t: float):
        """Implied units (vision.players, hidden horses) within RECENT_HORSE_YD of a horse the
        detector found in the last RECENT_HORSE_S are dropped: that horse is only missed now."""
        self._horses_seen = [(s, xy) for s, xy in self._horses_seen if t - s <= RECENT_HORSE_S]
        inferred = units.inferred if units.inferred is not None else np.zeros(len(units), bool)
        keep = np.ones(len(units), bool)
        seen = np.concatenate([xy for _s, xy in self._horses_seen]) if self._horses_seen else np.zeros((0, 2))
        if inferred.any() and len(seen):
            k = np.flatnonzero(inferred)
            d = np.hypot(field_yd[k, None, 0] - seen[None, :, 0], field_yd[k, None, 1] - seen[None, :, 1])
            keep[k[np.nanmin(d, axis=1) < RECENT_HORSE_YD]] = False
        self._horses_seen.append((t, field_yd[~inferred]))
        if keep.all():
            return units, ground, field_yd
        return units.subset(keep), ground[keep], field_yd[keep]

    def _ball_lost_near(self, units, field_yd: np.ndarray) -> np.ndarray | None:
        """Where to look for a lost ball ((K, 2) px, the lower middle of horse boxes): the horse
        nearest on the field to the ball's last sighting, within REACQUIRE_S of it, and one other
        horse a frame in turn (nearest first), within SEARCH_S. A loose ball is where the play
        is: the player who hit it or is riding on to it; a ball hit far from everyone is found
        when a player reaches it (own_goal_blue1: lost at Red #1's hit, 1.2 s before Blue #1
        rides on to it). A ball last seen at an umpire is his look's (in his hand before the
        throw-in); once it has been seen away from the umpires (in play) the players are looked
        at in turn after such a sighting too (a white glove taken for the ball)."""
        if self._ball_last is None or not len(field_yd) or not self.frames:
            return None
        at_umpire = self._ball_last[2]
        since = self.frames[-1].t - self._ball_last[0]
        if since > SEARCH_S or (at_umpire and not self._ball_played):
            return None
        order = np.argsort(np.hypot(*(field_yd - self._ball_last[1]).T), kind="stable")
        picks = [int(order[0])] if since <= REACQUIRE_S and not at_umpire else []
        if len(order) > len(picks):
            rest = order[len(picks):]
            picks.append(int(rest[len(self.frames) % len(rest)]))
        box = units.horse_xyxy[picks]
        return np.c_[(box[:, 0] + box[:, 2]) / 2, box[:, 1] + 0.75 * (box[:, 3] - box[:, 1])]

    def _ball_hit_steps(self, H: np.ndarray, index: int, t: float) -> np.ndarray | None:
        """(2, 2) px a frame index: a ball hit at HIT_SPEED_YDS from its last sighting towards
        either goal (along the field's length), for the ball stage's hit search; None when the
        ball was last seen in an umpire's box (in his hand: not lying to be hit) or never. (Not
        "near an umpire" as `_ball_lost_near` has it: on wrong_side_plays_early the ball lay 11
        yards in front of the umpire, 57 px from his box's centre, when Red #4 hit it.)"""
        if self._ball_last is None or self._ball_last[3] or not self.frames:
            return None
        prev = self.frames[-1]
        if index <= prev.index or t <= prev.t:
            return None
        step = HIT_SPEED_YDS * (t - prev.t) / (index - prev.index)
        p = np.asarray(self._ball_last[1], float)
        px = field_to_image(np.linalg.inv(H), np.array([p, p + (step, 0.0), p - (step, 0.0)]))
        if not np.isfinite(px).all():
            return None
        return px[1:] - px[0]

    def _umpire_boxes(self, units, ids: np.ndarray, index: int) -> np.ndarray:
        """Person boxes of this frame's umpires (by the detector's class or the track's vote); an
        umpire's horse found without its rider: the rider box last seen on it (within
        `person_memory` frames), moved as the horse's ground point moved since."""
        out = []
        for k in range(len(ids)):
            tid = int(ids[k])
            person, horse = units.person_xyxy[k], units.horse_xyxy[k]
            if not np.isnan(person[0]):
                umpire = self._says_umpire(units, ids, k)
                if tid >= 0:
                    self._riders[tid] = (index, person.copy(), horse.copy(), umpire)
                if umpire:
                    out.append(person)
                continue
            seen = self._riders.get(tid) if tid >= 0 and not np.isnan(horse[0]) else None
            if seen is None or index - seen[0] > self.person_memory or np.isnan(seen[2][0]):
                continue
            if seen[3] or self.voter.is_umpire(tid):
                now, then = ground_point_px(np.stack([horse, seen[2]]))
                out.append(seen[1] + np.tile(now - then, 2))
        return np.array(out).reshape(-1, 4)

    def _rider_boxes(self, units, ids: np.ndarray) -> np.ndarray:
        """Person boxes of this frame's players (riders neither the detector nor the track's
        vote calls an umpire)."""
        keep = [k for k in range(len(ids))
                if not np.isnan(units.person_xyxy[k, 0]) and not self._says_umpire(units, ids, k)]
        return units.person_xyxy[keep].reshape(-1, 4)

    def _says_umpire(self, units, ids: np.ndarray, k: int) -> bool:
        """Unit k's person is an umpire, by the detector's class or his track's vote."""
        tid = int(ids[k])
        return bool(units.is_umpire[k]) or (tid >= 0 and self.voter.is_umpire(tid))


def _in_umpire_box(ball_px: np.ndarray, umpires: np.ndarray | None, margin: float = HAND_MARGIN) -> bool:
    """The ball is inside an umpire's (person) box grown by `margin` of its height each way:
    in his hand."""
    if umpires is None or not len(umpires):
        return False
    return bool(np.any(inside_grown(np.broadcast_to(ball_px, (len(umpires), 2)), umpires, margin)))


def _near_umpire(ball_px: np.ndarray, umpires: np.ndarray | None) -> bool:
    """The ball is within one box height of an umpire's box centre (in his hand, or just thrown)."""
    if umpires is None or not len(umpires):
        return False
    h = umpires[:, 3] - umpires[:, 1]
    c = np.stack([(umpires[:, 0] + umpires[:, 2]) / 2, (umpires[:, 1] + umpires[:, 3]) / 2], axis=1)
    return bool(np.any(np.hypot(*(c - ball_px).T) < h))


def umpire_class_known(detector) -> bool:
    """True when the detector's boxes say who is an umpire: an umpire class in its class map (the
    shipped model has one; COCO has not) or the rider/umpire classifier behind it."""
    knows = getattr(detector, "knows_umpires", None)
    return bool(knows) if knows is not None else UMPIRE in set(getattr(detector, "map", {}).values())
