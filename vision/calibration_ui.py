"""Make a calibration.json for your own footage (docs/calibrate.md, docs/formats.md).

    frame = grab_frame("clip.mp4", 0)                       # BGR image of frame 0
    result = build_calibration([("centre_spot", (780.5, 292.0), None),
                                (None, (128.0, 648.0), (149.04, 34.71)), ...],
                               image_size=(1280, 720), frame=0)
    save_calibration("calibration.json", result["doc"])
    print(result["summary"]["text"])

`CalibrationPage` serves a small offline web page (stdlib `http.server`, 127.0.0.1 only)
where the user clicks points on the frame, names each one (a field landmark or yards x,y),
checks the fit and saves the file. The CLI wrapper is `cli/commands/calibrate.py`.
"""
from __future__ import annotations

import base64
import html
import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterable

import cv2
import numpy as np

from reports.atomic import write_text
from vision.errors import CalibrationError, VideoError
from vision.homography import (DEFAULT_LENGTH, DEFAULT_WIDTH, calibrate, calibration_text, field_landmarks,
                               field_to_image, image_to_field, parse_calibration)
from vision.video_io import open_video

Point = tuple[str | None, tuple[float, float], tuple[float, float] | None]

MAX_BODY_BYTES = 1 << 20        # a POST larger than this is refused (413)


# ------------------------------------------------------------------------------------
# Frame and document
# ------------------------------------------------------------------------------------
def grab_frame(video: str | Path, index: int) -> np.ndarray:
    """The BGR frame number `index` (0-based) of `video`, decoded in order.

    `VideoError` (one line) for a missing, empty or corrupt file, or an index past the
    end; `ValueError` for a negative index. The container's frame count, when it gives
    one, is trusted to refuse a too-large index without decoding the whole video.
    """
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
        raise ValueError(f"frame must be a non-negative integer, got {index!r}")
    with open_video(video, allow_truncated=True) as reader:
        n = reader.n_frames
        if n > 0 and index >= n:
            raise VideoError(f"{video}: frame {index} is past the end "
                             f"(the video has {n} frames, 0..{n - 1})")
        count = 0
        for i, _, frame in reader:
            if i == index:
                return frame
            count = i + 1
    raise VideoError(f"{video}: frame {index} is past the end (only {count} frames "
                     f"could be decoded, 0..{count - 1})")


def _field_doc(field: dict | None) -> dict:
    fld = dict(field or {})
    return {"length_yd": fld.get("length_yd", DEFAULT_LENGTH),
            "width_yd": fld.get("width_yd", DEFAULT_WIDTH)}


def _num(value: Any, nd: int) -> float | None:
    """`value` rounded to `nd` decimals, or None when not finite (JSON has no NaN)."""
    v = float(value)
    return round(v, nd) if np.isfinite(v) else None


def _round(values: Any, nd: int = 3) -> list[float | None]:
    return [_num(v, nd) for v in values]


def build_calibration(points: Iterable[Point], image_size: tuple[int, int], frame: int,
                      field: dict | None = None) -> dict:
    """Validate and fit `points` and return ``{"doc": ..., "summary": ...}``.

    `points` are ``(name or None, (u, v) pixels, (x, y) yards or None)``; a point without
    yards must name a field landmark (`field_landmarks`). ``doc`` is the calibration.json
    document (docs/formats.md): names kept as given, each landmark's yards filled in,
    `image_size` (width, height) and the `frame` index recorded. ``summary`` holds the
    reprojection errors: ``rms_px``, ``max_px``, ``rms_yd``, ``max_yd``, ``n_points``,
    ``n_used``, per-point ``points`` (``err_px``, ``err_yd``, ``reproj_px``), ``warnings``
    and a one-line ``text``. Any invalid set raises `CalibrationError` with the loader's
    one-line message.
    """
    doc_points = []
    for name, px, yd in points:
        p: dict[str, Any] = {}
        if name:
            p["name"] = name
        p["px"] = list(px) if isinstance(px, (list, tuple, np.ndarray)) else px
        if yd is not None:
            p["yd"] = list(yd) if isinstance(yd, (list, tuple, np.ndarray)) else yd
        doc_points.append(p)
    doc = {"image_size": [int(image_size[0]), int(image_size[1])], "field": _field_doc(field),
           "frame": int(frame), "points": doc_points}
    fit = calibrate(doc)                          # CalibrationError with the loader's message
    cal = parse_calibration(doc)                  # every point, duplicates included
    for p, px, yd in zip(doc_points, cal.px, cal.yd):
        p["px"], p["yd"] = [float(v) for v in px], [float(v) for v in yd]
    reproj = field_to_image(fit.H_inv, cal.yd)
    err_px = np.hypot(*(reproj - cal.px).T)
    err_yd = np.hypot(*(image_to_field(fit.H, cal.px) - cal.yd).T)
    summary = {
        "rms_px": _num(fit.rms_px, 3), "max_px": _num(fit.max_px, 3),
        "rms_yd": _num(fit.rms_yd, 4), "max_yd": _num(fit.max_yd, 4),
        "n_points": len(cal.px), "n_used": int(fit.inliers.sum()),
        "points": [{"err_px": _num(ep, 2), "err_yd": _num(ey, 3),
                    "reproj_px": _round(r, 1)} for ep, ey, r in zip(err_px, err_yd, reproj)],
        "warnings": list(fit.warnings), "text": fit.summary(),
    }
    return {"doc": doc, "summary": summary}


def save_calibration(path: str | Path, doc: dict) -> None:
    """Write `doc` to `path` atomically (temporary file, then rename); `OSError` on failure."""
    write_text(path, calibration_text(doc))


# ------------------------------------------------------------------------------------
# JSON from the page
# ------------------------------------------------------------------------------------
def points_from_json(body: Any) -> list[Point]:
    """Turn ``{"points": [{"px": [u, v], "name": ...} | {"px": [u, v], "yd": [x, y]}]}``
    into `build_calibration` points. Values pass through unchecked (the loader checks them);
    `ValueError` if the body is not an object with a ``points`` list of objects.
    """
    if not isinstance(body, dict) or not isinstance(body.get("points"), list):
        raise ValueError("expected a JSON object with a 'points' list")
    out: list[Point] = []
    for i, p in enumerate(body["points"]):
        if not isinstance(p, dict):
            raise ValueError(f"point {i} must be an object with 'px' and 'name' or 'yd'")
        out.append((p.get("name") or None, p.get("px"), p.get("yd")))
    return out


# ------------------------------------------------------------------------------------
# The page
# ------------------------------------------------------------------------------------
_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>polo-lineup calibrate</title>
<style>
body{font:14px sans-serif;margin:8px}#wrap{overflow:auto;max-height:75vh;border:1px solid #888}
canvas{cursor:crosshair;display:block}table{border-collapse:collapse}td{padding:1px 4px}
input.n{width:5em}#msg{margin:6px 0;white-space:pre-wrap}.bad{color:#b00}.good{color:#060}
</style></head><body>
<div>__TITLE__ &middot; click a point on the field, then say where it is: a landmark or yards x,y
(x along the length, 0 = south end line; y across, 0 = west sideline). Zoom
<select id="zoom"><option>0.5</option><option selected>1</option><option>2</option><option>3</option></select>
<button id="check">Check</button> <button id="save">Save</button></div>
<div id="msg"></div>
<div id="wrap"><canvas id="cv"></canvas></div>
<table id="list"></table>
<img id="frame" alt="frame" hidden src="data:image/jpeg;base64,__IMAGE__">
<script>
"use strict";
const MARKS = __MARKS__;
const img = document.getElementById("frame"), cv = document.getElementById("cv"),
      ctx = cv.getContext("2d"), msg = document.getElementById("msg"),
      list = document.getElementById("list"), zoom = document.getElementById("zoom");
let pts = [], fit = null;
function say(text, cls) { msg.textContent = text; msg.className = cls || ""; }
function draw() {
  const z = +zoom.value;
  cv.width = img.naturalWidth * z; cv.height = img.naturalHeight * z;
  ctx.drawImage(img, 0, 0, cv.width, cv.height);
  ctx.font = "bold 14px sans-serif"; ctx.lineWidth = 2;
  const at = v => (v + 0.5) * z;           // pixel centres are at whole numbers (OpenCV)
  pts.forEach((p, i) => {
    const x = at(p.px[0]), y = at(p.px[1]);
    if (fit && fit.points && fit.points[i] && fit.points[i].reproj_px[0] !== null) {
      const r = fit.points[i].reproj_px;    // yellow: from the click to where the fit puts it
      ctx.strokeStyle = "#ff0"; ctx.beginPath(); ctx.moveTo(x, y);
      ctx.lineTo(at(r[0]), at(r[1])); ctx.stroke();
    }
    ctx.strokeStyle = "#f0f"; ctx.beginPath(); ctx.arc(x, y, 6, 0, 7); ctx.stroke();
    ctx.fillStyle = "#f0f"; ctx.fillText(String(i + 1), x + 8, y - 8);
  });
}
function row(p, i) {
  const tr = document.createElement("tr"), sel = document.createElement("select");
  const opt = (v, t) => { const o = document.createElement("option"); o.value = v; o.textContent = t; return o; };
  sel.appendChild(opt("", "yards x,y:"));
  for (const [n, xy] of Object.entries(MARKS)) sel.appendChild(opt(n, n + " (" + xy.join(", ") + ")"));
  sel.value = p.name || "";
  const xs = ["x", "y"].map((k, j) => {
    const e = document.createElement("input"); e.className = "n"; e.type = "number"; e.step = "any";
    e.placeholder = k + " yd"; e.value = p.yd ? p.yd[j] : ""; e.disabled = !!p.name;
    e.oninput = () => { p.yd = xs.map(v => v.value === "" ? null : +v.value); fit = null; };
    return e;
  });
  sel.onchange = () => { p.name = sel.value || null; xs.forEach(e => e.disabled = !!p.name); fit = null; draw(); };
  const del = document.createElement("button"); del.textContent = "remove";
  del.onclick = () => { pts.splice(i, 1); fit = null; render(); };
  const cells = [String(i + 1), "px " + p.px.map(v => v.toFixed(1)).join(", "), sel, xs[0], xs[1], del];
  if (fit && fit.points && fit.points[i]) cells.push("off by " + fit.points[i].err_px + " px, " + fit.points[i].err_yd + " yd");
  for (const c of cells) { const td = document.createElement("td"); td.append(c); tr.appendChild(td); }
  return tr;
}
function render() { list.replaceChildren(...pts.map(row)); draw(); }
function payload() {
  return {points: pts.map(p => p.name ? {px: p.px, name: p.name} : {px: p.px, yd: p.yd})};
}
async function post(path) {
  try {
    const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                 body: JSON.stringify(payload())});
    return await r.json();
  } catch (e) { return {ok: false, error: "no answer from the calibrate server (stopped?)"}; }
}
cv.onclick = e => {
  const z = +zoom.value;
  const px = [e.offsetX, e.offsetY].map(v => Math.round(((v + 0.5) / z - 0.5) * 10) / 10);
  pts.push({px: px, name: null, yd: null});
  fit = null; render();
};
zoom.onchange = draw;
document.getElementById("check").onclick = async () => {
  const r = await post("/check");
  fit = r.ok ? r : null; render();
  if (r.ok) say(r.text + (r.warnings.length ? "\\n" + r.warnings.join("\\n") : ""), "good");
  else say(r.error, "bad");
};
document.getElementById("save").onclick = async () => {
  const r = await post("/save");
  if (r.ok) say("Saved " + r.path + " (" + r.text + "). You can close this page.", "good");
  else say(r.error, "bad");
};
img.onload = draw; if (img.complete) draw();
</script></body></html>
"""


def render_page(frame: np.ndarray, title: str = "", field: dict | None = None) -> str:
    """The self-contained HTML page: `frame` as a base64 JPEG, the landmark list, the JS."""
    ok, jpg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise ValueError("cannot encode the frame as JPEG")
    fld = _field_doc(field)
    marks = {n: [round(x, 2), round(y, 2)] for n, (x, y) in
             sorted(field_landmarks(fld["length_yd"], fld["width_yd"]).items())}
    return (_PAGE.replace("__TITLE__", html.escape(title))
            .replace("__MARKS__", json.dumps(marks).replace("</", "<\\/"))
            .replace("__IMAGE__", base64.b64encode(jpg.tobytes()).decode("ascii")))


class CalibrationPage:
    """A local web page for marking calibration points on one frame.

    Binds to `host`:`port` at construction (port 0 picks a free one; see `url`).
    `serve_until_saved()` answers requests until a valid ``POST /save`` has written `out`
    (atomically) and returns its path. Requests are handled on daemon threads, so a
    browser's idle pre-connection cannot block the server.

    * ``GET /``: the page (`render_page`).
    * ``POST /check`` ``{"points": [...]}`` → ``{"ok": true, "rms_px": ..., ...}`` (the
      `build_calibration` summary) or ``{"ok": false, "error": "one line"}``; HTTP 400
      for a body that is not such JSON.
    * ``POST /save``: the same check, then writes `out`; ``{"ok": true, "path": ...}``.
    """

    def __init__(self, frame: np.ndarray, frame_index: int, out: str | Path, *,
                 host: str = "127.0.0.1", port: int = 0, field: dict | None = None,
                 title: str = ""):
        self.frame_index = int(frame_index)
        self.image_size = (int(frame.shape[1]), int(frame.shape[0]))
        self.out = Path(out)
        self.field = field
        self.page = render_page(frame, title or f"frame {self.frame_index}", field).encode()
        self.saved: Path | None = None          # `out`, once written
        self.summary: dict | None = None        # the saved fit's `build_calibration` summary
        self._saved_event = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer((host, port), _handler_class(self))
        self._httpd.daemon_threads = True

    @property
    def port(self) -> int:
        """The port actually bound (useful with port 0)."""
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://HOST:PORT/``."""
        return f"http://{self._httpd.server_address[0]}:{self.port}/"

    # -- request logic (called by the handler) ---------------------------------------
    def check(self, body: Any) -> dict:
        """Answer for ``/check``; `ValueError` for a malformed body (HTTP 400)."""
        points = points_from_json(body)
        try:
            result = build_calibration(points, self.image_size, self.frame_index, self.field)
        except CalibrationError as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True, **result["summary"]}

    def save(self, body: Any) -> dict:
        """Answer for ``/save``: check, write `out` atomically, signal `serve_until_saved`."""
        points = points_from_json(body)
        with self._lock:
            if self.saved is not None:
                return {"ok": False, "error": f"already saved to {self.saved}"}
            try:
                result = build_calibration(points, self.image_size, self.frame_index,
                                           self.field)
            except CalibrationError as exc:
                return {"ok": False, "error": str(exc)}
            try:
                save_calibration(self.out, result["doc"])
            except OSError as exc:
                return {"ok": False, "error": f"cannot write {self.out}: "
                                              f"{exc.strerror or exc}"}
            self.saved, self.summary = self.out, result["summary"]
        return {"ok": True, "path": str(self.out), **result["summary"]}

    # -- lifetime --------------------------------------------------------------------
    def serve_until_saved(self, timeout: float | None = None) -> Path | None:
        """Serve until the file is saved (its path) or `timeout` seconds pass (None).

        Ctrl-C (KeyboardInterrupt) stops the server and propagates; the server socket is
        closed in every case.
        """
        thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                  name="calibrate-http", daemon=True)
        thread.start()
        try:
            waited = 0.0
            while not self._saved_event.wait(0.2):   # short waits: Ctrl-C stays responsive
                waited += 0.2
                if timeout is not None and waited >= timeout:
                    break
        finally:
            self._httpd.shutdown()
            self._httpd.server_close()
            thread.join(timeout=5)
        return self.saved

    def close(self) -> None:
        """Release the socket without serving (when `serve_until_saved` was never called)."""
        self._httpd.server_close()


def _handler_class(page: CalibrationPage) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 30                      # seconds a connection may sit idle

        def log_message(self, format: str, *args: Any) -> None:   # keep the terminal quiet
            pass

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, obj: dict) -> None:
            self._send(status, json.dumps(obj, allow_nan=False).encode(),
                       "application/json; charset=utf-8")

        def do_GET(self) -> None:
            if self.path.split("?", 1)[0] in ("/", "/index.html"):
                self._send(HTTPStatus.OK, page.page, "text/html; charset=utf-8")
            else:
                self._json(HTTPStatus.NOT_FOUND, {"ok": False, "error": "not found"})

        def do_POST(self) -> None:
            action = {"/check": page.check, "/save": page.save}.get(self.path)
            if action is None:
                self._json(HTTPStatus.NOT_FOUND, {"ok": False, "error": "not found"})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY_BYTES:
                self._json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE if length > 0 else
                           HTTPStatus.BAD_REQUEST, {"ok": False, "error": "bad request size"})
                return
            try:
                body = json.loads(self.rfile.read(length).decode("utf-8"))
                answer = action(body)
            except (ValueError, UnicodeDecodeError) as exc:   # JSONDecodeError is a ValueError
                self._json(HTTPStatus.BAD_REQUEST, {"ok": False, "error": f"malformed request: {exc}"})
                return
            self._json(HTTPStatus.OK, answer)
            if self.path == "/save" and answer.get("ok"):
                page._saved_event.set()       # after the answer went out

    return Handler
