"""The ball stage: a one-class YOLO model on an enlarged window of the full-resolution frame.

The main detector sees a 1280x720 frame at half size, where a polo ball is 1-2.5 px: too
small to learn. This stage cuts a window of WINDOW/scale frame pixels (213 px at the default
scale 1.5) around where the ball should be, enlarges it by `scale` (a 3-5 px ball becomes
4.5-7.5 px) and runs a model trained on such windows (`synth-dataset --focus ball --classes
ball --scale 1.5 --crop 320x320`; models/README.md). Where to look, in this order:

1. where the last sighting (at most TRACK_FRAMES frames ago) predicts the ball to be now;
2. the upper body of each umpire (at most MAX_UMPIRES): before the throw-in the ball is in
   his hand, and the throw-in starts there;
3. a ball lying loose (still, or seen again after a gap, so its speed is unknown) and then
   missed for HIT_FROM..TRACK_FRAMES frames may have been hit: where a ball hit at
   HIT_SPEED_YDS towards either goal would be now (the caller gives that step, px a frame; it
   knows the field). A hit ball is 35-70 px a frame at the samples' zoom, out of the window
   around its resting place within two or three frames; on wrong_side_plays_early the model
   missed it for two frames after the hit and the follower, looking where it had lain, lost
   the hit that makes the illegal play. Once such a ball is lost (for at most LOST_HIT_S), it
   may still lie there unseen (white on the painted line, behind legs) until it is hit: a
   window LOST_HIT_STEPS hit steps from where it lay, a goal's way, catches the hit ball on
   its way out (re-rendered wrong_side_plays_early, seed 2900: the ball lay unseen on the
   centre line for 10 frames and its flight, in full view, was never looked at);
4. once the ball has been lost (not seen for TRACK_FRAMES frames), the places the caller gives:
   the pipeline's Observer gives the horse nearest the last sighting on the field, for
   REACQUIRE_S (a loose ball is where the play is; on own_goal_blue1 the ball stage lost the
   ball dribbled by Blue #1 after 95 of 250 frames, and with this look followed it to the end),
   and one other horse a frame in turn, for SEARCH_S (a ball hit far from everyone is found
   when a player reaches it: vision.observe).

A ball followed on the ground (slower than GROUND_PX a frame, or lost) and not last seen at an
umpire is not taken from a player's rider box: a ground ball does not leap into a rider's upper
body in a frame, and a white glove or mallet head there is what the model takes for it at a hit
(own_goal_blue1, frame 106). A ball just thrown from the umpire's hand may pass in front of one.

When none is known (no umpire yet, ball never seen) nothing is run, so a clip costs at most
one to three small inferences per frame. The ball's point is its box centre.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.ball_net import BallNet
from vision.detect import ROOT, ModelError, exported_imgsz, resolve_model, runtime_of
from vision.detections import inside_grown
from vision.frame_rate import REFERENCE_FPS, per_reference, scaled_frames

os.environ.setdefault("YOLO_OFFLINE", "1")

DEFAULT_BALL_MODEL = ROOT / "models" / "polo-ball.pt"
WINDOW = 320             # model input side, px (the training crops' size)
SCALE = 1.5              # frame px → model px (the training crops' --scale)
TRACK_FRAMES = 4         # follow a sighting this many frames
MAX_UMPIRES = 2
CONF = 0.3               # the throw-in logic (vision.phase) also rejects stray sightings that make no trajectory
UPPER_BODY = 0.35        # where in an umpire's (person) box the window is centred, from the top
STILL_PX = 1.0           # a followed sighting moving less than this (px a frame) is still
HIT_SPEED_YDS = 30.0     # the hit search's guess of a hit ball's speed: a window 213 px wide at the
                         # samples' ~48 px a yard covers 2.5-57 yd/s two frames after, 16-44 four after
GROUND_PX = 10.0         # a followed ball slower than this (px a frame) is on the ground: not in a rider's box
HIT_FROM = 2             # frames after the last sighting the hit search starts (one frame after, the
                         # window at the resting place still holds a ball up to ~55 yd/s)
LOST_HIT_S = 2.0         # a loose ball lost from view is looked for where a hit would send it this long...
LOST_HIT_STEPS = 3       # ...in windows this many hit steps from where it lay (one a goal)


@dataclass
class BallSighting:
    xy: np.ndarray       # (2,) frame px, box centre
    box: np.ndarray      # (4,) frame px
    confidence: float


def window_around(frame_shape: tuple[int, ...], centre: np.ndarray, side: int) -> tuple[int, int, int]:
    """(x0, y0, side) of a square frame window of `side` px around `centre`, kept inside the frame."""
    h, w = frame_shape[:2]
    side = min(int(side), w, h)
    x0 = int(np.clip(round(float(centre[0]) - side / 2), 0, w - side))
    y0 = int(np.clip(round(float(centre[1]) - side / 2), 0, h - side))
    return x0, y0, side


class BallFinder:
    """The ball model, loaded once (stateless: one per process can serve every clip).
    `look(frame, centre)` runs it on the window around `centre`; a BallFollower decides where."""

    def __init__(self, model: str | Path | None = None, runtime: str = "auto", conf: float = CONF,
                 scale: float = SCALE):
        path = resolve_model(model, runtime, default=DEFAULT_BALL_MODEL)
        try:
            from ultralytics import YOLO
            self.model = YOLO(str(path), task="detect")
            names = dict(self.model.names)
        except Exception as exc:  # noqa: BLE001 - any loader failure is the user's file
            raise ModelError(f"cannot load ball model {path}: {exc}") from None
        if "ball" not in names.values():
            raise ModelError(f"ball model {path} has no class named 'ball' (its classes: {sorted(names.values())})")
        self.ball_class = next(k for k, v in names.items() if v == "ball")
        self.path, self.runtime = path, runtime_of(path)
        if self.runtime == "torch":
            trained = getattr(self.model, "overrides", {}).get("imgsz")
            self.imgsz = int(trained) if isinstance(trained, int) else WINDOW
        else:
            fixed = exported_imgsz(path)
            if fixed is None:
                raise ModelError(f"{path}: no input size in its metadata (export it with polo-lineup export-detector)")
            self.imgsz = int(max(fixed))
        self.conf, self.scale = float(conf), float(scale)     # runs on the CPU
        try:
            self.net = BallNet(self.runtime, self.imgsz, path, getattr(self.model, "model", None))
        except Exception as exc:  # noqa: BLE001 - any loader failure is the user's file
            raise ModelError(f"cannot load ball model {path}: {exc}") from None

    @property
    def window_side(self) -> int:
        """The side of the frame window one look covers, px."""
        return int(round(self.imgsz / self.scale))

    def look(self, frame: np.ndarray, centre: np.ndarray) -> BallSighting | None:
        """Run the model once on the window around `centre`; the most confident ball, if any."""
        x0, y0, side = window_around(frame.shape, centre, self.window_side)
        crop = frame[y0:y0 + side, x0:x0 + side]
        big = cv2.resize(crop, (self.imgsz, self.imgsz), interpolation=cv2.INTER_CUBIC)
        found = self.net.best(big, self.ball_class, self.conf)     # the best box, as Ultralytics' predictor's
        if found is None:
            return None
        box = found[0] * (side / self.imgsz) + np.array([x0, y0, x0, y0])
        return BallSighting(np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]), box, found[1])


class BallFollower:
    """One clip's ball search: call `find` on consecutive frames (and `remember` for a ball
    the main detector found); it follows the ball from one sighting to the next. TRACK_FRAMES,
    HIT_FROM and STILL_PX are for 25 frames/s; `fps` (the analysed frames') scales them."""

    def __init__(self, finder: BallFinder, fps: float = REFERENCE_FPS):
        self.finder = finder
        self.track_frames = scaled_frames(TRACK_FRAMES, fps)
        self.hit_from = scaled_frames(HIT_FROM, fps)
        self.still_px = STILL_PX / per_reference(fps)
        self.ground_px = GROUND_PX / per_reference(fps)
        self.lost_hit_frames = scaled_frames(LOST_HIT_S * REFERENCE_FPS, fps)
        self._last: tuple[int, np.ndarray, np.ndarray] | None = None   # (frame index, xy, px per frame)
        self.looks = 0

    def find(self, frame: np.ndarray, index: int, umpire_boxes: np.ndarray,
             lost_near: np.ndarray | None = None, hit_steps: np.ndarray | None = None,
             rider_boxes: np.ndarray | None = None) -> BallSighting | None:
        """The ball in frame `index`: near its predicted position, else (when the prediction is
        more than a quarter window from the last sighting: a velocity made by a false sighting
        sends it astray) near the last sighting, else near an umpire, else
        (a loose ball lying still, missed for HIT_FROM..TRACK_FRAMES frames) where it would be
        if hit: its last sighting plus the frames since times each of `hit_steps` ((S, 2) px a
        frame, the caller's: a hit ball's step towards each goal; None when the ball was last
        at an umpire), else (when it was lost more than TRACK_FRAMES ago) at `lost_near` (px),
        where the caller thinks it went: the player nearest its last sighting. A still sighting does not stop
        the look at the umpires whose windows do not hold it: a white fleck taken for the ball
        (at one umpire's glove, or on the boards) would otherwise be followed through the
        line-up while another umpire throws in; a ball found there wins, the still one stands
        when none is."""
        umpires = [np.array([(b[0] + b[2]) / 2, b[1] + UPPER_BODY * (b[3] - b[1])])
                   for b in np.asarray(umpire_boxes, float).reshape(-1, 4)[:MAX_UMPIRES]]
        predicted = None
        if self._last is not None and 0 < index - self._last[0] <= self.track_frames:
            predicted = self._last[1] + self._last[2] * (index - self._last[0])
        still = predicted is not None and float(np.hypot(*self._last[2])) < self.still_px
        if still:       # the umpires whose window the still sighting is not in
            half = self.finder.window_side / 2
            umpires = [u for u in umpires if np.max(np.abs(predicted - u)) > half]
        places = ([predicted] if predicted is not None else [])
        if predicted is not None and not still and np.max(np.abs(predicted - self._last[1])) > self.finder.window_side / 4:
            places.append(self._last[1])           # a velocity from a false sighting sends the window astray
        places += umpires
        first_hit = len(places)
        if still and hit_steps is not None and self.hit_from <= index - self._last[0]:
            places += [self._last[1] + np.asarray(step, float) * (index - self._last[0])
                       for step in np.asarray(hit_steps, float).reshape(-1, 2)]
        elif hit_steps is not None and self._lost_loose(index):
            places += [self._last[1] + np.asarray(step, float) * LOST_HIT_STEPS
                       for step in np.asarray(hit_steps, float).reshape(-1, 2)]
        if lost_near is not None and self.lost(index):
            places += list(np.asarray(lost_near, float).reshape(-1, 2))
        fallback = None
        riders = self._riders_to_doubt(index, umpire_boxes, rider_boxes)
        for k, centre in enumerate(places):
            if k >= first_hit and fallback is not None:
                break                              # the still ball is where it lay: not hit
            self.looks += 1
            seen = self.finder.look(frame, centre)
            if seen is None or (riders is not None and _inside_any(seen.xy, riders)):
                continue
            if k == 0 and still and umpires:
                fallback = seen                    # look at those umpires too
                continue
            self.remember(index, seen.xy)
            return seen
        if fallback is not None:
            self.remember(index, fallback.xy)
        return fallback

    def _riders_to_doubt(self, index: int, umpire_boxes, rider_boxes) -> np.ndarray | None:
        """The players' person boxes a sighting may not lie in: the ball was last seen on the
        ground (slow, or lost) away from the umpires, and a ground ball does not leap into a
        rider's upper body in a frame; a white glove or mallet head there is what the ball model
        takes for it (own_goal_blue1, frame 106: Blue #1's swing, 50 px above the ball he hits)."""
        if rider_boxes is None or self._last is None:
            return None
        riders = np.asarray(rider_boxes, float).reshape(-1, 4)
        riders = riders[~np.isnan(riders[:, 0])]
        if not len(riders):
            return None
        slow = self.lost(index) or float(np.hypot(*self._last[2])) < self.ground_px
        ump = np.asarray(umpire_boxes, float).reshape(-1, 4)
        if not slow or (len(ump) and _inside_any(self._last[1], ump, grow=0.5)):
            return None
        return riders

    def _lost_loose(self, index: int) -> bool:
        """The ball, last seen loose (still, or after a gap: its speed unknown), has been lost for
        at most LOST_HIT_S: wherever it lies unseen (white on the painted line, behind legs), a
        hit sends it out past the window LOST_HIT_STEPS hit steps away, a goal's way."""
        return (self.lost(index) and index - self._last[0] <= self.lost_hit_frames
                and float(np.hypot(*self._last[2])) < self.still_px)

    def lost(self, index: int) -> bool:
        """The ball was seen, but not in the last TRACK_FRAMES frames before `index`."""
        return self._last is not None and index - self._last[0] > self.track_frames

    def remember(self, index: int, xy: np.ndarray) -> None:
        """Record a sighting at frame `index` to follow the ball from it."""
        xy = np.asarray(xy, float)
        vel = np.zeros(2)
        if self._last is not None and 0 < index - self._last[0] <= self.track_frames:
            vel = (xy - self._last[1]) / (index - self._last[0])
        self._last = (index, xy, vel)


def _inside_any(xy: np.ndarray, boxes: np.ndarray, grow: float = 0.0) -> bool:
    """The point lies in one of the (N, 4) boxes, each grown by `grow` of its height each way."""
    return bool(np.any(inside_grown(np.broadcast_to(np.asarray(xy, float), (len(boxes), 2)), boxes, grow)))


def load_ball_finder(ball_model: str | Path | None, runtime: str = "auto") -> BallFinder | None:
    """The ball stage for a `--ball-model` value: "auto" (or None) → the shipped model when it
    is there, "none" → no ball stage, a path → that file (ModelError when it cannot be loaded)."""
    if ball_model is None or str(ball_model) == "auto":
        return BallFinder(None, runtime) if DEFAULT_BALL_MODEL.exists() else None
    if str(ball_model) == "none":
        return None
    return BallFinder(ball_model, runtime if runtime_of(Path(ball_model)) == "torch" else "auto")
