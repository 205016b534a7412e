"""Finding the calibrated camera's view again after a cut.

A broadcast cuts away from its main camera (a replay, a close-up) and back. The calibration,
and the camera tracker that keeps it up to date (vision.camera_motion), hold for one shot: on
the far side of a cutaway the main camera may point elsewhere than when it was last seen. But
a camera that only turns and zooms about a fixed point (a stand or tripod camera) relates any
two of its views by an image-to-image homography, whatever the depth of what it sees (grass,
boards, trees), so a frame that shares enough of the picture with a view whose image → field
homography is known (a key view, kept while the shot was followed) has its own homography
too: the key's times the image-to-image one.

Key views are kept as half-size grey copies (their SIFT features found when first needed: most
shots never end in a cut), players' boxes masked out (they move). A frame is matched against
each: nearest neighbours by KD-trees over the frame's features and Lowe's ratio test (~12 ms a
key view), the image-to-image homography fitted by RANSAC (OpenCV's USAC: under 1 ms where
plain RANSAC ran its 2000 iterations in 17), the best key view kept. A match is only believed
when

- at least MIN_INLIERS features agree with it, and at least MIN_INLIER_SHARE of the matches,
  spread over at least MIN_SPREAD of the picture (not a graphic that every shot shows),
- the image-to-image homography is one a turning, zooming camera can make (its zoom within
  MAX_ZOOM of 1, nearly no shear: a turn of the camera keeps square pixels square to first order),
- and, where the first key's homography decomposes into such a camera (vision.camera_motion
  .ptz_from_homography), that camera, left on its stand and only turned and zoomed, can see
  the field as the new homography says (within MAX_PLACE_PX).

Another camera (another place) fails the last check even where it sees the same painted lines;
a close-up of players or a replay graphic has too few matches.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.camera_motion import PTZCamera, fit_ptz, ptz_from_homography
from vision.homography import image_to_field

SCALE = 0.5                 # features are found on a half-size copy (SIFT on 640x360: ~50 ms)
N_FEATURES = 1500
CONTRAST = 0.005            # SIFT's contrast threshold (OpenCV's 0.04 finds 10-80 features on rendered grass,
                            # too few to match; 0.01 150-800, a line-up view with its players masked 150;
                            # 0.005 about 1100, and three times the inliers on it)
RATIO = 0.75                # Lowe's ratio test
RANSAC_PX = 3.0             # full-size pixels
MIN_INLIERS = 20
MIN_INLIER_SHARE = 0.3
MAX_ZOOM = 3.0              # the two views' scales differ at most this much
MAX_SHEAR = 0.15            # |cos| of the angle the image's axes make after the mapping (0: square)
MAX_PLACE_PX = 12.0         # the camera found, put on the key views' stand, turned and zoomed, sees the picture
                            # within this many pixels (views located from the same stand: 0-6 px; the renderer's
                            # views from stands 5-18 yd away: 73-405 px)
MIN_SPREAD = 0.1            # the agreeing features cover at least this share of the picture (a broadcast's score
                            # or clock graphic, the same in every shot, is a small corner: it cannot pass for a view)
BOX_PAD_PX = 6.0            # players' boxes grown by this before masking


@dataclass(frozen=True)
class Located:
    H: np.ndarray           # image px → field yd for the frame located
    key: int                # which key view it was matched to (order added)
    inliers: int
    matches: int


class ViewLibrary:
    """Views of one camera with their image → field homographies; `locate` finds a new frame's."""

    def __init__(self, image_size: tuple[int, int], max_views: int = 60):
        self.image_size = (int(image_size[0]), int(image_size[1]))
        self.max_views = int(max_views)
        self._sift = cv2.SIFT_create(nfeatures=N_FEATURES, contrastThreshold=CONTRAST)
        self._views: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []    # (points px, descriptors, H)
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []   # (half-size grey, H, boxes)
        self._centre: np.ndarray | None = None       # the camera's place, from the first key that tells it

    def __len__(self) -> int:
        return len(self._views) + len(self._pending)

    def small(self, frame: np.ndarray) -> np.ndarray:
        """The half-size grey copy features are found on."""
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        if grey.shape[1::-1] != self.image_size:
            raise ValueError(f"frame size {grey.shape[1]}x{grey.shape[0]} is not the library's "
                             f"{self.image_size[0]}x{self.image_size[1]}")
        return cv2.resize(grey, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)

    def _features(self, small: np.ndarray, boxes) -> tuple[np.ndarray, np.ndarray | None]:
        mask = np.full(small.shape, 255, np.uint8)
        for x0, y0, x1, y1 in np.asarray(boxes if boxes is not None else np.zeros((0, 4)), float).reshape(-1, 4):
            if np.all(np.isfinite((x0, y0, x1, y1))):
                a = np.floor((np.array([x0, y0]) - BOX_PAD_PX) * SCALE).astype(int)
                b = np.ceil((np.array([x1, y1]) + BOX_PAD_PX) * SCALE).astype(int)
                mask[max(0, a[1]):max(0, b[1]), max(0, a[0]):max(0, b[0])] = 0
        kp, desc = self._sift.detectAndCompute(small, mask)
        pts = np.array([k.pt for k in kp], np.float32).reshape(-1, 2) / SCALE
        return pts, desc

    def add(self, frame: np.ndarray, H: np.ndarray, boxes=None) -> bool:
        """Keep `frame` (BGR or grey) as a key view whose image → field homography is `H`
        (`boxes`, moving things, masked); False when the library is full. Only its half-size grey
        copy is kept: its features are found when a frame is first located (most shots never end
        in a cut; a view with too few features to match is dropped then)."""
        if len(self) >= self.max_views:
            return False
        self._pending.append((self.small(frame), np.asarray(H, float),
                              None if boxes is None else np.array(boxes, float).reshape(-1, 4)))
        return True

    def _prepare(self) -> None:
        for small, H, boxes in self._pending:
            pts, desc = self._features(small, boxes)
            if desc is None or len(pts) < MIN_INLIERS:
                continue
            self._views.append((pts, desc, H))
            if self._centre is None:
                cam = ptz_from_homography(np.linalg.inv(H), self.image_size)
                if cam is not None:
                    self._centre = cam.C
        self._pending = []

    def locate(self, frame: np.ndarray, boxes=None) -> Located | None:
        """`frame`'s image → field homography from the key view it matches best; None when it
        matches none well enough (another camera, a close-up, a view never seen)."""
        self._prepare()
        if not self._views:
            return None
        pts, desc = self._features(self.small(frame), boxes)
        if desc is None or len(pts) < MIN_INLIERS:
            return None
        best: Located | None = None
        index = cv2.flann_Index(desc, {"algorithm": 1, "trees": 4})      # KD-trees over this frame's features, once
        for k, (kpts, kdesc, kH) in enumerate(self._views):
            near, dist = index.knnSearch(kdesc, 2, params={"checks": 32})   # each key feature's two nearest here
            good = np.flatnonzero(dist[:, 0] < RATIO ** 2 * dist[:, 1])      # (squared distances) Lowe's ratio test
            if len(good) < MIN_INLIERS or (best is not None and len(good) <= best.inliers):
                continue
            src = pts[near[good, 0]]
            dst = kpts[good]
            M, inl = cv2.findHomography(src, dst, cv2.USAC_DEFAULT, RANSAC_PX, maxIters=2000, confidence=0.999)
            n_in = int(inl.sum()) if inl is not None else 0
            if M is None or n_in < MIN_INLIERS or n_in < MIN_INLIER_SHARE * len(good) or not self._turn_like(M) \
                    or self._spread(src[inl.ravel().astype(bool)]) < MIN_SPREAD:
                continue
            if best is None or n_in > best.inliers:
                best = Located(kH @ M, k, n_in, len(good))
        if best is None or not self._same_place(best.H):
            return None
        return best

    def _spread(self, pts: np.ndarray) -> float:
        """The share of the picture the points' convex hull covers."""
        if len(pts) < 3:
            return 0.0
        return float(cv2.contourArea(cv2.convexHull(pts.astype(np.float32)))) / (self.image_size[0] * self.image_size[1])

    def _turn_like(self, M: np.ndarray) -> bool:
        """Could a camera turning and zooming about its centre map one view onto the other so?
        Judged on the mapping's local linear part at the image centre."""
        w, h = self.image_size
        c = np.array([w / 2, h / 2, 1.0])
        q = M @ c
        if abs(q[2]) < 1e-12:
            return False
        J = (M[:2, :2] * q[2] - np.outer(q[:2], M[2, :2])) / q[2] ** 2        # d(mapped)/d(point) there
        sv = np.linalg.svd(J, compute_uv=False)
        if not (np.all(np.isfinite(sv)) and sv[1] > 0):
            return False
        zoom = float(np.sqrt(sv[0] * sv[1]))
        cos = abs(float(J[:, 0] @ J[:, 1])) / (np.linalg.norm(J[:, 0]) * np.linalg.norm(J[:, 1]))
        return 1.0 / MAX_ZOOM <= zoom <= MAX_ZOOM and sv[0] / sv[1] <= 1.0 + 2 * MAX_SHEAR and cos <= MAX_SHEAR

    def _same_place(self, H: np.ndarray) -> bool:
        """Can the key views' camera, on its stand, turned and zoomed, see the field as `H` says?
        (Fitted with the stand fixed: the stand's place along a long lens's line of sight is
        poorly told by one view, where it stands across it is not.)"""
        if self._centre is None:
            return True
        w, h = self.image_size
        if (H @ np.array([w / 2, 0.9 * h, 1.0]))[2] < 0:
            H = -H                        # the same homography, signed so that the ground in view is in front
        cam = ptz_from_homography(np.linalg.inv(H), self.image_size)
        if cam is None:
            return False
        px = np.array([(u * w, v * h) for v in np.linspace(0.45, 0.95, 4) for u in np.linspace(0.05, 0.95, 5)])
        yd = image_to_field(H, px, front_only=True)
        ok = np.isfinite(yd).all(axis=1)
        if np.count_nonzero(ok) < 6:
            return False
        _cam, residual = fit_ptz(PTZCamera(cam.R, cam.f, self._centre, cam.cx, cam.cy), yd[ok], px[ok], iters=10)
        return float(residual.max()) <= MAX_PLACE_PX


# ------------------------------------------------------------------------------------
# Across a cut: key views from a followed shot, and the first frame after it that matches one
# ------------------------------------------------------------------------------------
MAX_CUTAWAY_S = 60.0        # analyze and a lead-in give up on another shot this long (the scan searches on)
SEARCH_SOON_S, SEARCH_LATER_S, SOON_S = 0.2, 0.5, 2.0   # after a cut a frame is matched every 0.2 s for 2 s, then
                                                       # every 0.5 s (a try costs ~0.15-0.3 s: 5-12 key views)


def next_search_t(cut_t: float, t: float) -> float:
    """When, after a try at `t` (a cut at `cut_t`), to try the next frame."""
    return t + (SEARCH_SOON_S if t - cut_t < SOON_S else SEARCH_LATER_S) - 1e-6


KEY_MOVED_YD = 3.0          # a followed frame becomes a key view when its picture has moved this far from every key's
MAX_KEYS = 60               # key views kept (matching a frame against each costs ~12 ms)
KEY_GRID = np.array([(u, v) for v in (0.55, 0.9) for u in (0.1, 0.5, 0.9)])     # image shares, lower picture


@dataclass(frozen=True)
class FoundAgain:
    index: int              # the frame
    t: float                # its time, s
    H: np.ndarray           # its image → field homography
    inliers: int
    looked: int             # frames tried since the cut
    replay: object = None   # a replay of the camera's footage seen before it (vision.replays.Repeat), if any


def picture_on_field(H: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """Where points of the lower picture (KEY_GRID) lie on the field through `H` (yards; NaN
    beyond the horizon)."""
    return image_to_field(H, KEY_GRID * np.asarray(image_size, float), front_only=True)


def is_new_view(yd: np.ndarray, seen: list[np.ndarray], moved_yd: float = KEY_MOVED_YD) -> bool:
    """Has the picture (picture_on_field) moved `moved_yd` or more from every one in `seen`?"""
    with np.errstate(invalid="ignore"):
        return all(not (np.nanmax(np.hypot(*(yd - w).T)) <= moved_yd) for w in seen)


class KeyViews:
    """The key views of a shot being followed: `offer` every frame the camera is followed to; a
    frame becomes a key view when its picture has moved `moved_yd` from every key's (the first
    always), and `close_shot` adds the last one offered (the camera's latest view before a cut).
    At most `max_views`: the first ones are kept (the line-up's view among them)."""

    def __init__(self, image_size: tuple[int, int], moved_yd: float = KEY_MOVED_YD, max_views: int = MAX_KEYS):
        self.library = ViewLibrary(image_size, max_views=max_views)
        self.moved_yd = float(moved_yd)
        self._seen: list[np.ndarray] = []
        self._last: tuple | None = None            # the last frame offered and not kept

    def offer(self, frame: np.ndarray, H: np.ndarray, boxes=None) -> bool:
        """Keep `frame` (image → field `H`; `boxes` to mask) if its view is new; True if kept."""
        yd = picture_on_field(H, self.library.image_size)
        if is_new_view(yd, self._seen, self.moved_yd) and self.library.add(frame, H, boxes):
            self._seen.append(yd)
            self._last = None
            return True
        self._last = (frame, H, boxes, yd)
        return False

    def offer_seen(self, seen, frame: np.ndarray) -> bool:
        """`offer` a frame the pipeline observed (vision.observe.FrameObs), its horses and riders
        masked, if the camera was followed to it."""
        if not seen.camera_ok:
            return False
        return self.offer(frame, seen.H, np.concatenate([seen.horse_xyxy.reshape(-1, 4), seen.person_xyxy.reshape(-1, 4)]))

    def close_shot(self) -> None:
        """Keep the last frame offered (unless it was kept, or shows a key's view within a yard)."""
        if self._last is not None:
            frame, H, boxes, yd = self._last
            if is_new_view(yd, self._seen, 1.0) and self.library.add(frame, H, boxes):
                self._seen.append(yd)
            self._last = None


def find_view_again(video, library: ViewLibrary, start: int, every: int, end_s: float | None = None,
                    progress=None, replays=None) -> FoundAgain | None:
    """The first frame from `start` on (every `every`-th, before `end_s`; tried at the pace of
    next_search_t) whose view `library` locates: where the calibrated camera is seen again after
    a cut. None when no frame is. With `replays` (a vision.replays.ReplayWatch of the footage
    followed so far), a replay of that footage is passed over as another shot is.
    `progress(index)` is told each frame tried."""
    from vision.video_io import open_video
    if not len(library):
        return None
    looked, cut_t, next_t, replay = 0, None, -np.inf, None
    with open_video(video) as reader:
        for index, t, frame in reader.frames(start=start, every=max(1, every)):
            if end_s is not None and t >= end_s - 1e-6:
                break
            looked += 1
            if progress:
                progress(index)
            cut_t = t if cut_t is None else cut_t
            if t < next_t:
                continue
            next_t = next_search_t(cut_t, t)
            if replays is None:
                found = library.locate(frame)
            else:
                found, seen_as, rep = replays.found_again(frame, int(index), float(t), cut_t, replay is not None,
                                                          library.locate)
                replay = replay or rep
                next_t = replays.next_look(t) if seen_as == "suspect" else next_t
            if found is not None:
                if replays is not None:
                    replays.resumed(int(index), float(t))
                return FoundAgain(int(index), float(t), found.H, found.inliers, looked, replay)
    return None
