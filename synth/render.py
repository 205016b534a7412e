"""Render a scenario frame by frame: the image and, for each frame, its truth record.

`Renderer(scenario).render(i)` returns (BGR image, frame truth). `render_clip(scenario,
out_dir)` writes clip.mp4, truth.json and calibration.json (see synth/clip.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from synth.camera import Camera
from synth.field_texture import make_field_texture
from synth.horse import HORSE, MALLET, RIDER
from synth.look import Look, make_look
from synth.markings import draw_markings
from synth.mesh import concat
from synth.postfx import PostFX, blur_moving
from synth.raster import ONE, SHIFT, DrawResult, Light, draw_mesh
from synth.scenario import BALL_RADIUS_YD, Scenario
from synth.scene import SceneModel, Unit, lod_for
from synth.surroundings import board_meshes, draw_sky, goal_post_meshes, tree_line

BALL_ID = 250


@dataclass
class ObjectRender:
    """What the renderer knows about one object in one frame (becomes a truth record)."""

    id: str
    role: str
    team: str | None
    number: int | None
    x: float
    y: float
    z: float
    heading_deg: float
    speed: float
    boxes: dict[str, list[float]]
    ground_px: list[float] | None
    visible_fraction: float
    part_visible: dict[str, float]
    # The shirt number's drawn text box (px, x1 y1 x2 y2) and the share of it still showing the
    # rider at the end (nearer units drawn over it hide it); None / 0 where none was drawn.
    number_box: list[float] | None = None
    number_visible: float = 0.0


class Renderer:
    """Renders frames of one scenario; builds the ground texture and scene state once."""

    def __init__(self, scenario: Scenario, texture=None, effects: bool = True) -> None:
        self.s = scenario
        self.look: Look = make_look(scenario.seed, scenario.look)
        self.size = scenario.image_size
        self.texture = texture or make_field_texture(scenario.field_length_yd, scenario.field_width_yd,
                                                     self.look, scenario.seed)
        self.trees = tree_line(scenario.field_length_yd, scenario.field_width_yd, scenario.seed)
        self.boards = board_meshes(scenario.field_length_yd, scenario.field_width_yd, self.look)
        self._board_centres = np.array([m.V.mean(0) for m in self.boards])
        self._board_corners = np.stack([m.V for m in self.boards])            # (n, 8, 3)
        self._board_depth = np.zeros(len(self.boards))
        teams = list(scenario.teams.values())
        by_end = {t.defends: t.jersey_bgr for t in teams}
        self.posts = goal_post_meshes(scenario.field_length_yd, scenario.field_width_yd,
                                      [by_end["south"], by_end["north"]])
        self._post_centres = np.array([m.V.mean(0) for m in self.posts])
        self.model = SceneModel(scenario, self.look)
        tint = np.array([1.0 - self.look.warmth, 1.0, 1.0 + self.look.warmth])
        self.light = Light(self.look.sun_dir, self.look.ambient, self.look.diffuse, tint)
        self.fx = PostFX(self.look, self.size) if effects else None
        self.effects = effects

    def _visible_boards(self, cam: Camera) -> np.ndarray:
        """Indices of board sections that may show in the image (records their depths)."""
        n = len(self.boards)
        pc = cam.to_camera(self._board_corners.reshape(-1, 3)).reshape(n, 8, 3)
        z = pc[..., 2]
        self._board_depth = pc.mean(1)[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = pc[..., :2] / np.maximum(z, 1e-6)[..., None] * cam.focal_px + cam.K[:2, 2]
        w, h = cam.image_size
        front = z.min(1) >= 0.5
        inview = front & (uv[..., 0].max(1) >= 0) & (uv[..., 0].min(1) <= w) & \
            (uv[..., 1].max(1) >= 0) & (uv[..., 1].min(1) <= h)
        return np.flatnonzero(inview)

    def camera(self, index: int) -> Camera:
        return self.s.camera.camera(index / self.s.fps, self.size)

    # ------------------------------------------------------------------------------
    def render(self, index: int) -> tuple[np.ndarray, list[ObjectRender], Camera]:
        """Frame `index`: (BGR image, per-object render records, camera)."""
        cam = self.camera(index)
        w, h = self.size
        frame = self.texture.warp(cam)
        draw_sky(frame, cam, self.look)
        self.trees.draw(frame, cam, self.look)
        draw_markings(frame, cam, self.s.field_length_yd, self.s.field_width_yd, self.s.seed)

        f = cam.focal_px

        def lod_of(x: float, y: float) -> int:
            d = cam.to_camera(np.array([[x, y, 1.0]]))[0, 2]
            return lod_for(2.0 * f / max(d, 1e-3))

        units = self.model.units(index, lod_of)
        ball = self.model.ball(index)
        self._draw_shadows(frame, cam, units, ball)

        idbuf = np.zeros((h, w), np.uint8)
        items: list[tuple[float, str, object]] = []
        if units:
            d = cam.to_camera(np.array([[u.x, u.y, 1.2] for u in units]))[:, 2]
            items += [(float(d[k]), "unit", k) for k in range(len(units))]
        for k in self._visible_boards(cam):
            items.append((self._board_depth[k], "board", self.boards[k]))
        d = cam.to_camera(self._post_centres)[:, 2]
        items += [(float(d[k]), "post", m) for k, m in enumerate(self.posts)]
        if ball is not None:
            items.append((float(cam.to_camera(ball[None])[0, 2]), "ball", ball))
        items.sort(key=lambda it: -it[0])

        items = _merge_static_runs(items)
        results: dict[int, DrawResult | None] = {}
        numbers: dict[int, tuple] = {}        # unit k -> (number's text box, rider share under it when drawn)
        ball_box = None
        ball_area = 0
        for depth, kind, item in items:
            if depth <= 0.5:
                continue
            if kind == "unit":
                k = item
                ids = {HORSE: 3 * k + 1, RIDER: 3 * k + 2, MALLET: 3 * k + 3}
                res = draw_mesh(frame, cam, units[k].mesh, self.light, idbuf, ids)
                results[k] = res
                if res is not None:
                    box = self._draw_number(frame, cam, units[k])
                    if box is not None:
                        numbers[k] = (box, _share(idbuf, box, 3 * k + 2))
            elif kind in ("board", "post"):
                draw_mesh(frame, cam, item, self.light, idbuf, occluder=True)
            else:
                ball_box, ball_area = self._draw_ball(frame, cam, item, idbuf)

        if self.effects:
            self._blur_moving_units(frame, cam, index, units, results, idbuf)
            frame = self.fx.apply(frame, index, self._pan_motion(index, cam))

        self.last_idbuf = idbuf          # part ids per pixel (for tests): unit k -> 3k+1 horse, 3k+2 rider, 3k+3 mallet
        counts = _id_counts(idbuf, [res.roi for res in results.values() if res is not None and res.roi]
                            + ([_box_roi(ball_box, w, h)] if ball_box is not None else []))
        records = [self._unit_record(u, results.get(k), counts, cam) for k, u in enumerate(units)]
        for k, (box, drawn_share) in numbers.items():
            records[k].number_box = [float(v) for v in box]
            records[k].number_visible = round(min(1.0, _share(idbuf, box, 3 * k + 2) / drawn_share), 4) \
                if drawn_share > 0 else 0.0
        if ball is not None:
            records.append(self._ball_record(ball, ball_box, ball_area, counts))
        return frame, records, cam

    # ------------------------------------------------------------------------------
    def _draw_shadows(self, frame: np.ndarray, cam: Camera, units: list[Unit], ball) -> None:
        L = self.light.sun
        strength = self.look.shadow_strength
        if strength < 0.03 or L[2] < 0.05:
            return
        h, w = frame.shape[:2]
        mask = np.zeros((h, w), np.uint8)
        any_drawn = False
        bbox = [np.inf, np.inf, -np.inf, -np.inf]
        meshes = [u.mesh for u in units] + list(self.posts)
        for m in meshes:
            V = m.V
            P = V - (V[:, 2:3] / L[2]) * L            # along the sun's rays onto z = 0
            pc = cam.to_camera(P)
            if pc[:, 2].min() < 0.5:
                continue
            uv = pc[:, :2] / pc[:, 2:3] * cam.focal_px + cam.K[:2, 2]
            if uv[:, 0].max() < 0 or uv[:, 0].min() > w or uv[:, 1].max() < 0 or uv[:, 1].min() > h:
                continue
            q = np.round(uv * ONE).astype(np.int32)
            bbox = [min(bbox[0], uv[:, 0].min()), min(bbox[1], uv[:, 1].min()),
                    max(bbox[2], uv[:, 0].max()), max(bbox[3], uv[:, 1].max())]
            for g in m.shadow_vertex_groups():          # primitives are convex: hull their shadow
                if len(g) >= 3:
                    cv2.fillConvexPoly(mask, cv2.convexHull(q[g]), 255, cv2.LINE_8, SHIFT)
            any_drawn = True
        if ball is not None and ball[2] >= 0:
            g = ball - (ball[2] / L[2]) * L
            uv, z = cam.project(g[None])
            if z[0] > 0.5:
                r = max(1.0, BALL_RADIUS_YD * cam.focal_px / z[0])
                cv2.ellipse(mask, (int(uv[0, 0] * ONE), int(uv[0, 1] * ONE)),
                            (int(r * ONE), int(r * 0.6 * ONE)), 0, 0, 360, 255, -1, cv2.LINE_8, SHIFT)
                bbox = [min(bbox[0], uv[0, 0] - r), min(bbox[1], uv[0, 1] - r),
                        max(bbox[2], uv[0, 0] + r), max(bbox[3], uv[0, 1] + r)]
                any_drawn = True
        if not any_drawn:
            return
        if bbox[0] >= bbox[2]:
            return
        x1, y1 = max(int(bbox[0]) - 4, 0), max(int(bbox[1]) - 4, 0)
        x2, y2 = min(int(bbox[2]) + 5, w), min(int(bbox[3]) + 5, h)
        if x2 <= x1 or y2 <= y1:
            return
        sub = cv2.GaussianBlur(mask[y1:y2, x1:x2], (5, 5), 1.2)
        keep = (255 - sub.astype(np.float32) * strength).astype(np.uint8)
        region = frame[y1:y2, x1:x2]
        cv2.multiply(region, cv2.merge([keep] * 3), dst=region, scale=1 / 255)

    def _draw_number(self, frame: np.ndarray, cam: Camera, u: Unit) -> tuple[int, int, int, int] | None:
        """The player's number on whichever side of his jersey (back or front) faces the camera;
        returns the text's box (px, clipped to the frame), None where none was drawn."""
        if u.obj.number is None:
            return None
        for anchor, normal in u.numbers:
            view = cam.C - anchor
            if float(normal @ view) / float(np.linalg.norm(view)) < 0.45:
                continue
            uv, z = cam.project(anchor[None])
            hpx = 0.17 * cam.focal_px / z[0]
            if hpx < 6:
                return None
            scale = hpx / 22.0
            text = str(u.obj.number)
            th = max(1, int(round(hpx / 6)))
            (tw, tht), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, th)
            org = (int(uv[0, 0] - tw / 2), int(uv[0, 1] + tht / 2))
            colour = self.model.kit[u.obj.id]["number"]
            cv2.putText(frame, text, org, cv2.FONT_HERSHEY_DUPLEX, scale, colour, th, cv2.LINE_AA)
            h, w = frame.shape[:2]
            x1, y1 = max(org[0], 0), max(org[1] - tht, 0)
            x2, y2 = min(org[0] + tw, w), min(org[1] + th, h)
            return (x1, y1, x2, y2) if x2 > x1 and y2 > y1 else None
        return None

    def _draw_ball(self, frame: np.ndarray, cam: Camera, ball: np.ndarray, idbuf: np.ndarray):
        uv, z = cam.project(ball[None])
        if z[0] <= 0.5:
            return None, 0
        r = BALL_RADIUS_YD * cam.focal_px / z[0]
        u, v = uv[0]
        box = np.array([u - r, v - r, u + r, v + r])
        rd = max(r, 0.8)
        centre = (int(round(u * ONE)), int(round(v * ONE)))
        k = self.light.ambient + self.light.diffuse * 0.7
        col = tuple(float(min(255, 240 * k * t)) for t in self.light.tint)
        cv2.circle(frame, centre, int(round(rd * ONE)), col, -1, cv2.LINE_AA, SHIFT)
        cv2.circle(idbuf, centre, int(round(rd * ONE)), BALL_ID, -1, cv2.LINE_8, SHIFT)
        area = max(1, int(round(math.pi * rd * rd)))
        return box, area

    def _pan_motion(self, index: int, cam: Camera) -> tuple[float, float]:
        """Image motion (pixels per frame) of the scene point at the image centre."""
        if index == 0:
            return 0.0, 0.0
        prev = self.camera(index - 1)
        g = cam.image_to_ground(np.array([[cam.K[0, 2], cam.K[1, 2]]]))
        if np.isnan(g).any():
            return 0.0, 0.0
        P = np.array([[g[0, 0], g[0, 1], 0.0]])
        a, _ = cam.project(P)
        b, _ = prev.project(P)
        d = a[0] - b[0]
        return float(d[0]), float(d[1])

    def _blur_moving_units(self, frame, cam, index, units, results, idbuf) -> None:
        if index == 0 or self.look.motion_blur < 0.05:
            return
        prev = self.camera(index - 1)
        shutter = 0.5 * self.look.motion_blur
        for k, u in enumerate(units):
            res = results.get(k)
            if res is None or u.speed < 3.0 or res.roi is None:
                continue
            m = self.model.motion[u.obj.id]
            p_now = np.array([[u.x, u.y, 1.2]])
            i0 = max(index - 1, 0)
            p_prev = np.array([[m.pos[i0, 0], m.pos[i0, 1], 1.2]])
            a, _ = cam.project(p_now)
            b, _ = prev.project(p_prev)
            d = (a[0] - b[0]) * shutter
            mask = (idbuf >= 3 * k + 1) & (idbuf <= 3 * k + 3)
            blur_moving(frame, mask, res.roi, float(d[0]), float(d[1]))

    # ------------------------------------------------------------------------------
    def _unit_record(self, u: Unit, res: DrawResult | None, counts: np.ndarray, cam: Camera) -> ObjectRender:
        w, h = self.size
        boxes: dict[str, list[float]] = {}
        part_vis: dict[str, float] = {}
        vis_px = full_px = 0
        person = "umpire" if u.obj.role == "umpire" else "rider"
        if res is not None:
            for part, name in ((HORSE, "horse"), (RIDER, person)):
                if part not in res.boxes:
                    continue
                box = _clip_box(res.boxes[part], w, h)
                full = res.area.get(part, 0)
                vis = int(counts[res.ids[part]]) if res.ids.get(part) else 0
                if box is not None and vis > 0:
                    boxes[name] = box
                part_vis[name] = round(vis / full, 4) if full else 0.0
                vis_px += vis
                full_px += full
        uv, z = cam.project(np.array([[u.x, u.y, 0.0]]))
        ground = [round(float(uv[0, 0]), 2), round(float(uv[0, 1]), 2)] if z[0] > 0.5 else None
        return ObjectRender(u.obj.id, u.obj.role, u.obj.team, u.obj.number, u.x, u.y, 0.0, u.heading_deg, u.speed,
                            boxes, ground, round(vis_px / full_px, 4) if full_px else 0.0, part_vis)

    def _ball_record(self, ball, box, area, counts) -> ObjectRender:
        w, h = self.size
        vis = int(counts[BALL_ID])
        boxes = {}
        if box is not None and vis > 0:
            cb = _clip_box(box, w, h)
            if cb is not None:
                boxes["ball"] = cb
        frac = min(1.0, vis / area) if area else 0.0
        obj = next(o for o in self.s.objects if o.role == "ball")
        return ObjectRender(obj.id, "ball", None, None, float(ball[0]), float(ball[1]), float(ball[2]), 0.0, 0.0,
                            boxes, None, round(frac, 4), {"ball": round(frac, 4)})


def _box_roi(box, w: int, h: int) -> tuple[int, int, int, int]:
    return (max(int(box[0]) - 2, 0), max(int(box[1]) - 2, 0), min(int(box[2]) + 3, w), min(int(box[3]) + 3, h))


def _id_counts(idbuf: np.ndarray, rois: list) -> np.ndarray:
    """Pixels per id, counted over the union box of what was drawn (ids exist nowhere else)."""
    rois = [r for r in rois if r[2] > r[0] and r[3] > r[1]]
    if not rois:
        return np.zeros(256, np.int64)
    x1, y1 = min(r[0] for r in rois), min(r[1] for r in rois)
    x2, y2 = max(r[2] for r in rois), max(r[3] for r in rois)
    return np.bincount(idbuf[y1:y2, x1:x2].ravel(), minlength=256)


def _share(idbuf: np.ndarray, box, part_id: int) -> float:
    """The share of `box`'s pixels (x1 y1 x2 y2) whose part id is `part_id`."""
    x1, y1, x2, y2 = (int(v) for v in box)
    region = idbuf[y1:y2, x1:x2]
    return float((region == part_id).mean()) if region.size else 0.0


def _merge_static_runs(items: list) -> list:
    """Join consecutive boards/posts (in drawing order) into one mesh: fewer, larger draws."""
    out: list = []
    run: list = []
    for it in items:
        if it[1] in ("board", "post"):
            run.append(it)
            continue
        if run:
            out.append((run[0][0], "board", concat([r[2] for r in run])))
            run = []
        out.append(it)
    if run:
        out.append((run[0][0], "board", concat([r[2] for r in run])))
    return out


def _clip_box(b: np.ndarray, w: int, h: int) -> list[float] | None:
    x1, y1 = max(float(b[0]), 0.0), max(float(b[1]), 0.0)
    x2, y2 = min(float(b[2]), float(w)), min(float(b[3]), float(h))
    if x2 <= x1 or y2 <= y1:
        return None
    return [round(x1, 2), round(y1, 2), round(x2, 2), round(y2, 2)]


