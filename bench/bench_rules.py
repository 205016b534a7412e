"""Rule-checking throughput: frames per second for 9-object frames (8 players, 1 umpire), one process.

Three figures: `check_batch` on exact positions already in arrays, the same on measured
positions (each with a 2x2 covariance, findings held by a 1-sigma margin along their own
direction, as the video pipeline feeds them), and the whole document path (`check_document`:
validation + arrays + checks) as `check-positions` runs.
Medians over repeats. Goal: at least 50,000 frames/s for the checks.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rules import Thresholds, check_batch, check_document, parse_document  # noqa: E402


def make_document(n_frames: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    frames = []
    for i in range(n_frames):
        jitter = rng.normal(0, 0.6, size=(8, 2))
        players = []
        for k in range(8):
            team = "red" if k % 2 == 0 else "blue"
            x = (148.5 if team == "red" else 151.5) + jitter[k, 0]
            y = 67 + 2.5 * (k // 2) + jitter[k, 1]
            players.append({"id": f"{team}-{k // 2 + 1}", "team": team, "x": float(x), "y": float(y)})
        phase = "lineup" if i % 50 < 40 else ("throw_in" if i % 50 == 40 else "play")
        frames.append({"phase": phase, "players": players, "umpires": [{"id": "U1", "x": 150.0, "y": 60.0}],
                       "ball": {"x": 150.0, "y": 60.0 + (i % 50)}})
    return {"defending": {"red": "south", "blue": "north"}, "fps": 25, "frames": frames}


def rate(fn, n_frames: int, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return n_frames / statistics.median(times)


def main() -> None:
    n = 20_000
    doc = make_document(n)
    batch = parse_document(doc)
    verdict = check_batch(batch)
    flagged = verdict["summary"]["frames_with_violations"]
    checks = rate(lambda: check_batch(batch), n)
    measured = parse_document(doc)
    side_on = np.diag([0.1 ** 2, 0.5 ** 2])          # a sideline camera: 0.1 yd across, 0.5 yd in depth
    measured.player_cov = np.broadcast_to(side_on, measured.players.shape[:2] + (2, 2)).copy()
    measured.umpire_cov = np.broadcast_to(side_on, measured.umpires.shape[:2] + (2, 2)).copy()
    with_margins = Thresholds(margin_sigmas=1.0, speed_margin_sigmas=2.0)
    checks_measured = rate(lambda: check_batch(measured, with_margins), n)
    whole = rate(lambda: check_document(doc), n, repeats=3)
    print(f"rule checks (check_batch, 9 objects/frame, {n} frames, {flagged} with violations): {checks:,.0f} frames/s")
    print(f"the same, measured positions (covariances, 1-sigma margins):   {checks_measured:,.0f} frames/s")
    print(f"whole document (validate + arrays + checks):                 {whole:,.0f} frames/s")
    print(f"goal >= 50,000 frames/s for the checks: {'met' if checks >= 50_000 else 'NOT met'}")


if __name__ == "__main__":
    main()
