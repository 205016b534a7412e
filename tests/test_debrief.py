"""debrief.html and index.html: self-contained pages, checked as HTML and rendered in headless Chromium.

The analysis uses the truth-box stand-in detector (synth.truth_detector), every 2nd frame,
so the page does not depend on the detector model. The browser test skips, saying why,
where Debian's chromium is not installed (`make install` installs it when run as root).
"""
from __future__ import annotations

import html
import base64
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import cv2
import numpy as np
import pytest

from reports.debrief import CODE_COLOURS, debrief_html, write_debrief, write_index
from reports.evaluate import evaluate_report
from synth.truth_detector import TruthDetector
from vision.analyze_job import analyze_to_folder
from vision.pipeline import AnalyzeOptions
from vision.sidecar import load_sidecar
from vision.shirt_numbers import NumberReader

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class Page(HTMLParser):
    """The start tags of a page, as (tag, attributes)."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def find(self, tag: str, **attrs) -> list[dict]:
        return [a for t, a in self.tags if t == tag and all(re.search(v, a.get(k) or "") for k, v in attrs.items())]


def _png(uri: str) -> np.ndarray:
    assert uri.startswith("data:image/png;base64,")
    img = cv2.imdecode(np.frombuffer(base64.b64decode(uri.split(",", 1)[1]), np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.size
    return img


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """advancing_on_umpire analysed into a folder (four FIVE_YARD events), debrief included."""
    out = tmp_path_factory.mktemp("debrief")
    clip = SAMPLES / "advancing_on_umpire" / "clip.mp4"
    side = load_sidecar(clip)
    opts = AnalyzeOptions(defending=side["defending"], calibration=side["calibration"],
                          team_colours=side["team_colours"], annotate=False, stride=2)
    truth = json.loads((clip.parent / "truth.json").read_text())
    det = TruthDetector(truth)
    det.numbers = NumberReader()          # shirt numbers read on the clip's own pixels, in the true boxes
    report, written = analyze_to_folder(clip, out, opts, detector=det)
    return report, written, out, clip


def test_analyze_writes_a_self_contained_debrief(analysed):
    report, written, out, clip = analysed
    assert out / "debrief.html" in written
    assert not [p for p in out.iterdir() if ".partial" in p.name]
    text = (out / "debrief.html").read_text()
    page = Page(text)
    events = report["events"]
    assert len(events) >= 2
    assert len(page.find("tr", **{"class": "^event$"})) == len(events)
    # Every picture is embedded; nothing is fetched from elsewhere.
    assert all(a["src"].startswith("data:image/png;base64,") for a in page.find("img"))
    assert not page.find("script") and not page.find("link") and "http://" not in text and "https://" not in text
    assert _png(page.find("img", id="^timeline$")[0]["src"]).shape[1] >= 800
    assert _png(page.find("img", id="^fieldmap$")[0]["src"]).shape[1] >= 800
    thumbs = page.find("img", **{"class": "thumb"})
    listed = report.get("events_to_check", [])           # the findings to check have their pictures too
    assert len(thumbs) == len(events) + len(listed) and all(_png(a["src"]).shape[1] == 480 for a in thumbs)
    from reports.debrief import check_bgr
    for a in thumbs[len(events):]:                        # framed in amber, not red
        img = _png(a["src"]).astype(int)
        assert np.all(np.abs(img - check_bgr()) <= 40, axis=2).sum() > 50
    # No annotated.mp4 here (annotate=False): the links play the source clip from each event.
    # (The findings to check have their links too, after the events'.)
    seeks = [a["href"] for a in page.find("a", **{"class": "seek"})]
    assert len(seeks) == len(events + listed)
    for href, ev in zip(seeks, events + listed):
        target, t = href.split("#t=")
        assert (out / target).resolve() == clip.resolve()
        assert float(t) == pytest.approx(ev["start_s"], abs=0.006)
    assert "FIVE_YARD" in text and "yd from umpire" in text
    # Each event names its player by the shirt number read on his track, rightly (the truth's ids
    # are "<team>-<number>"), in the report and on the page.
    score = evaluate_report(report, json.loads((clip.parent / "truth.json").read_text()))
    assert score["shirt_numbers"] >= 6 and not score["shirt_numbers_wrong"], score
    for ev in events:
        assert ev.get("player_shirt") and html.escape(f"{ev['player_shirt']} ({ev['player']})") in text, ev


def test_debrief_links_annotated_video_and_copes_without_events_or_video(tmp_path):
    report = {"video": "x.mp4", "fps": 25.0, "frames_analysed": 2,
              "options": {"defending": {"a": "south", "b": "north"}, "stride": 1, "min_run": 3},
              "calibration": {}, "throw_in": {"frame": None, "t": None, "method": "none"},
              "tracks": [], "events": [], "summary": {"processing_s": 0.1},
              "frames": [{"index": i, "t": i / 25, "phase": "lineup", "players": [], "umpires": [], "violations": [],
                          "notes": []} for i in range(2)]}
    (tmp_path / "annotated.mp4").write_bytes(b"")
    path = write_debrief(report, tmp_path / "missing.mp4", tmp_path)
    page = Page(path.read_text())
    assert page.find("tr", **{"class": "none"}) and not page.find("tr", **{"class": "^event$"})
    assert page.find("a", href="^annotated.mp4$")
    _png(page.find("img", id="timeline")[0]["src"])
    _png(page.find("img", id="fieldmap")[0]["src"])
    # An event, but no readable video: the row is there with its link, without a picture.
    report["events"] = [{"code": "THROW_IN_NEAR_BOARDS", "player": None, "start_frame": 1, "end_frame": 1, "frames": 1,
                         "start_s": 0.04, "end_s": 0.04, "worst": {"code": "THROW_IN_NEAR_BOARDS", "umpire": "U1",
                                                                   "distance_yd": 14.8, "sideline": "west",
                                                                   "limit_yd": 20.0}}]
    page = Page(debrief_html(report, tmp_path / "missing.mp4", "annotated.mp4"))
    assert len(page.find("tr", **{"class": "^event$"})) == 1 and not page.find("img", **{"class": "thumb"})
    assert page.find("a", href=r"^annotated\.mp4#t=0\.04$")
    # A withheld event is named under the notes, not in the events table.
    report["events_withheld"] = [{"code": "WRONG_SIDE", "player": "a-7", "start_frame": 0, "end_frame": 1,
                                  "withheld": "the rider's looks at the time name the other team",
                                  "looks_own_team": 0, "looks_other_team": 3}]
    html = debrief_html(report, tmp_path / "missing.mp4", "annotated.mp4")
    assert "withheld: WRONG_SIDE" in html and "3 looks against 0" in html
    assert len(Page(html).find("tr", **{"class": "^event$"})) == 1
    # A finding within its uncertainty is listed to check, with its measure and 1 sigma, not as an event;
    # the console says so too.
    assert not Page(html).find("table", id="to-check")
    report["events_to_check"] = [{"code": "CONTACT_BEFORE_THROW_IN", "player": "a-t5", "opponent": "b-t26",
                                  "start_frame": 0, "end_frame": 1, "frames": 2, "start_s": 0.0, "end_s": 0.04,
                                  "worst": {"code": "CONTACT_BEFORE_THROW_IN", "player": "a-t5", "opponent": "b-t26",
                                            "distance_yd": 0.95, "sigma_yd": 1.05, "limit_yd": 1.5}}]
    html = debrief_html(report, tmp_path / "missing.mp4", "annotated.mp4")
    page = Page(html)
    assert len(page.find("tr", **{"class": "^to-check$"})) == 1 and len(page.find("tr", **{"class": "^event$"})) == 1
    assert "0.9 ±1.1 yd from b-t26 (limit 1.5 yd)" in html
    from reports.writers import console_summary
    lines = console_summary({**report, "calibration": {"rms_px": 0.1, "rms_yd": 0.01}}).splitlines()
    assert lines[-1] == "  CONTACT_BEFORE_THROW_IN a-t5 with b-t26 frames 0-1 (0.00-0.04 s) distance_yd=0.95 ±1.05"
    assert lines[-2].startswith("to check (")
    del report["events_to_check"]
    # A camera cut and a scaled calibration are said on the page.
    report["camera_cut"] = {"frame": 1, "t": 0.04}
    report["calibration"] = {"warnings": ["calibration made on 1280x720 frames, scaled to this video's 1920x1080"]}
    html = debrief_html(report, tmp_path / "missing.mp4", "annotated.mp4")
    assert Page(html).find("p", id="camera-cut-warning") and "camera cut at frame 1" in html
    assert "scaled to this video" in html and "1920x1080" in html and not Page(html).find("p", id="coverage-warning")


def test_index_links_the_debriefs_of_done_clips(tmp_path):
    (tmp_path / "a" / "clip").mkdir(parents=True)
    (tmp_path / "a" / "clip" / "debrief.html").write_text("<html></html>")
    rows = [{"clip": "a/clip.mp4", "output": "a/clip", "status": "ok", "throw_in_frame": 62, "throw_in_s": 2.48,
             "events": 1, "events_by_code": {"THROW_IN_NEAR_BOARDS": 1}, "processing_s": 3.1, "error": None,
             "warnings": "red: a median of 1 of 4 players placed"},
            {"clip": "b <1>.mp4", "output": "b <1>", "status": "failed", "throw_in_frame": None, "throw_in_s": None,
             "events": None, "events_by_code": None, "processing_s": 0.5, "error": "b.mp4: truncated & corrupt"}]
    text = write_index(rows, tmp_path, {"inputs": ["clips"]}).read_text()
    page = Page(text)
    assert len(page.find("tr", **{"class": "clip"})) == 2
    assert [a["href"] for a in page.find("a", **{"class": "debrief"})] == ["a/clip/debrief.html"]
    assert "truncated &amp; corrupt" in text and "b &lt;1&gt;.mp4" in text
    assert len(page.find("td", **{"class": "^warning$"})) == 2
    assert '<td class="warning">red: a median of 1 of 4 players placed</td>' in text


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp / 'profile'}", "--window-size=1200,1600",
                           *args], capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian's chromium, installed by "
                                             "`make install` when run as root with apt-get)")
def test_debrief_renders_in_headless_chromium(analysed, tmp_path, test_output):
    report, _, out, _ = analysed
    url = (out / "debrief.html").resolve().as_uri()
    shot = tmp_path / "debrief.png"
    run = _chromium(tmp_path, f"--screenshot={shot}", url)
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]
    img = cv2.imread(str(shot))
    shutil.copy(shot, test_output / "debrief_screenshot.png")
    assert img.shape[:2] == (1600, 1200)
    assert img.std() > 20 and (img.min(axis=2) < 200).mean() > 0.1            # not a blank page
    # The timeline was decoded and drawn: pixels of the FIVE_YARD bar colour.
    r, g, b = (int(CODE_COLOURS["FIVE_YARD"][i:i + 2], 16) for i in (1, 3, 5))
    bar = np.all(np.abs(img.astype(int) - (b, g, r)) <= 6, axis=2)
    assert bar.sum() > 500
    # The page as the browser built it.
    dom = _chromium(tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    page = Page(dom.stdout)
    assert len(page.find("tr", **{"class": "^event$"})) == len(report["events"])
    assert page.find("img", id="^timeline$") and page.find("img", id="^fieldmap$")
    seeks = [a["href"] for a in page.find("a", **{"class": "seek"})]
    listed = report["events"] + report.get("events_to_check", [])         # the findings to check have links too
    assert len(seeks) == len(listed) and all("#t=" in h for h in seeks)
    assert len(page.find("tr", **{"class": "^to-check$"})) == len(report.get("events_to_check", []))


def test_the_field_map_draws_each_position_s_uncertainty_by_direction():
    from reports.debrief import sigma_ellipse
    w, h, angle = sigma_ellipse([0.01, 0.0, 0.25])          # 0.1 yd across (x), 0.5 yd in depth (y)
    assert (round(w, 6), round(h, 6)) == (2.0, 0.4) and abs(abs(angle) - 90) < 1e-6   # 2 sigmas each way, along y
    w, h, angle = sigma_ellipse([0.13, 0.12, 0.13])         # a tilted one: long axis at 45 degrees
    assert w > 3 * h and abs(abs(angle) % 180 - 45) < 1e-6
    assert sigma_ellipse(None) is None and sigma_ellipse([None, None, None]) is None


def test_the_field_map_rings_a_finding_to_check_in_amber():
    from reports.debrief import check_hex, field_map_png
    def player(oid, team, y):
        return {"id": oid, "team": team, "x_yd": 150.0, "y_yd": y, "sigma_yd": 0.4, "cov_yd2": [0.01, 0.0, 0.16]}
    report = {"options": {"defending": {"red": "south", "blue": "north"}}, "throw_in": {"frame": None},
              "frames": [{"index": 0, "t": 0.0, "phase": "lineup", "players": [player("red-t1", "red", 63.0),
                                                                              player("blue-t2", "blue", 70.0)],
                          "umpires": [{"id": "U-t3", "x_yd": 150.0, "y_yd": 58.0, "sigma_yd": 0.2}],
                          "violations": [], "notes": [], "to_check": []}]}
    amber = tuple(int(check_hex()[i:i + 2], 16) for i in (1, 3, 5))

    def amber_pixels(rep):
        rgb = _png("data:image/png;base64," + base64.b64encode(field_map_png(rep)[0]).decode())[..., ::-1]
        return int(np.all(np.abs(rgb.astype(int) - amber) <= 8, axis=2).sum())
    before = amber_pixels(report)
    report["frames"][0]["to_check"] = [{"code": "FIVE_YARD", "player": "red-t1", "umpire": "U-t3", "distance_yd": 5.0}]
    assert before == 0 and amber_pixels(report) > 100


def test_the_debrief_lists_each_teams_shirt_numbers_and_their_tracks(analysed):
    report, _written, out, _clip = analysed
    page = Page((out / "debrief.html").read_text())
    table = page.find("table", id="^players$")
    assert len(table) == 1
    named = report["shirt_numbers"]["named"]
    text = (out / "debrief.html").read_text()
    for pid, n in named.items():
        assert f"<b>#{n}</b>: " in text and pid in text
    report = dict(report, shirt_numbers={"reader": None, "reads": 0, "named": {}, "same_player": []})
    assert 'id="players"' not in debrief_html(report)
