"""Render speed at 720p in one process (frames per second, median over repeats).

    python bench/bench_render.py [--frames 50] [--repeats 3] [--sample clean_lineup] [--no-sheet]

Times Renderer.render (scene, rasterisation, truth records, camera effects), not encoding.
Prints the median by wall-clock time and by the process's CPU time.
Also writes test-output/render_contact_sheet.png: frames from several sample clips, to look at.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402

from synth.render import Renderer  # noqa: E402
from synth.samples import SAMPLES  # noqa: E402
from synth.scenario import parse_scenario  # noqa: E402


def bench(sample: str, frames: int, repeats: int) -> tuple[list[float], list[float]]:
    """Frames per second by wall-clock time and by this process's CPU time, per repeat."""
    s = parse_scenario(SAMPLES[sample]())
    r = Renderer(s)
    r.render(0)                                   # warm caches
    wall, cpu = [], []
    n = min(frames, s.n_frames)
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        for i in range(n):
            r.render(i)
        wall.append(n / (time.perf_counter() - t))
        cpu.append(n / (time.process_time() - c))
    return wall, cpu


def contact_sheet(path: Path) -> None:
    tiles = []
    for name in ("clean_lineup", "clean_lineup_pan", "jostling_at_centre", "horse_change_blue3",
                 "throw_in_near_boards", "own_goal_blue1"):
        s = parse_scenario(SAMPLES[name]())
        r = Renderer(s)
        i = min(s.n_frames - 1, (s.throw_in_frame or 50) + 25)
        img = r.render(i)[0]
        cv2.putText(img, f"{name} frame {i}", (16, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (255, 255, 255), 2, cv2.LINE_AA)
        tiles.append(cv2.resize(img, (960, 540), interpolation=cv2.INTER_AREA))
    rows = [cv2.hconcat(tiles[i:i + 2]) for i in range(0, len(tiles), 2)]
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), cv2.vconcat(rows))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sample", default="clean_lineup", choices=list(SAMPLES))
    ap.add_argument("--no-sheet", action="store_true")
    args = ap.parse_args()
    wall, cpu = bench(args.sample, args.frames, args.repeats)
    print(f"render 1280x720 ({args.sample}, {args.frames} frames x {args.repeats}): "
          f"median {statistics.median(wall):.1f} fps wall-clock (runs: {', '.join(f'{r:.1f}' for r in wall)}); "
          f"{statistics.median(cpu):.1f} fps per CPU-second of this process (other load on the machine "
          f"lowers the first figure, not the second)")
    if not args.no_sheet:
        out = ROOT / "test-output" / "render_contact_sheet.png"
        contact_sheet(out)
        print(f"contact sheet: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
