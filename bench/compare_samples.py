"""Compare two runs of bench/bench_samples.py (their --json files): totals over every clip
of each run, and a table of the clips whose verdicts moved.

Give each run's files in the same order (e.g. the samples and the three re-rendered sets):

    .venv/bin/python bench/compare_samples.py --base old_samples.json old_held900.json \
        --new new_samples.json new_held900.json [--labels samples 900]

A clip is listed when it meets every target in one run and not the other, or its events'
precision / recall or its throw-in frame changed, or its p95 position error moved by more
than --p95-step yd (default 0.1).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_samples import meets  # noqa: E402


def totals(runs: list[dict]) -> dict:
    """Totals of one run over all its sets: clips meeting every target and the means."""
    scores = [(name, s) for run in runs for name, s in run.items()]
    n = len(scores)
    if n == 0:
        raise ValueError("no clips in these files")

    def mean(key: str) -> float:
        return sum(s[key] for _, s in scores) / n

    return {
        "clips": n,
        "meets": sum(meets(name, s) for name, s in scores),
        "p95_mean_yd": mean("position_error_p95_yd"),
        "median_mean_yd": mean("position_error_median_yd"),
        "p95_over_1_5": sum(s["position_error_p95_yd"] > 1.5 for _, s in scores),
        "id_switches": sum(s["id_switches"] for _, s in scores),
        "event_precision_mean": mean("event_precision"),
        "event_recall_mean": mean("event_recall"),
        "placed_mean": mean("position_coverage"),
        "shirt_numbers": sum(s.get("shirt_numbers", 0) for _, s in scores),
        "shirt_numbers_right": sum(s.get("shirt_numbers_right", 0) for _, s in scores),
    }


def moved(base: dict, new: dict, label: str, p95_step: float = 0.1) -> list[dict]:
    """The clips of one set whose verdicts moved between the two runs."""
    rows = []
    for name in sorted(set(base) | set(new)):
        if name not in base or name not in new:
            rows.append({"set": label, "clip": name, "only_in": "base" if name in base else "new"})
            continue
        a, b = base[name], new[name]
        changed = (meets(name, a) != meets(name, b)
                   or (a["event_precision"], a["event_recall"]) != (b["event_precision"], b["event_recall"])
                   or a["throw_in_frame"] != b["throw_in_frame"]
                   or abs(a["position_error_p95_yd"] - b["position_error_p95_yd"]) > p95_step)
        if changed:
            rows.append({"set": label, "clip": name, "meets": (meets(name, a), meets(name, b)),
                         "events": ((a["event_precision"], a["event_recall"]), (b["event_precision"], b["event_recall"])),
                         "p95_yd": (a["position_error_p95_yd"], b["position_error_p95_yd"]),
                         "throw_in": (a["throw_in_frame"], b["throw_in_frame"]),
                         "truth_throw_in": b["truth_throw_in_frame"]})
    return rows


def _yes(ok: bool) -> str:
    return "yes" if ok else "no"


def markdown(base_totals: dict, new_totals: dict, rows: list[dict]) -> str:
    lines = ["| | base | new |", "|---|---|---|"]
    for key in base_totals:
        a, b = base_totals[key], new_totals[key]
        fmt = "{:.3f}" if isinstance(a, float) else "{}"
        lines.append(f"| {key} | {fmt.format(a)} | {fmt.format(b)} |")
    lines += ["", "| set | clip | meets | events P / R | p95, yd | throw-in (truth) |", "|---|---|---|---|---|---|"]
    for r in rows:
        if "only_in" in r:
            lines.append(f"| {r['set']} | {r['clip']} | only in the {r['only_in']} run | | | |")
            continue
        (pa, ra), (pb, rb) = r["events"]
        lines.append(f"| {r['set']} | {r['clip']} | {_yes(r['meets'][0])} → {_yes(r['meets'][1])} | "
                     f"{pa:.2f} / {ra:.2f} → {pb:.2f} / {rb:.2f} | {r['p95_yd'][0]:.2f} → {r['p95_yd'][1]:.2f} | "
                     f"{r['throw_in'][0]} → {r['throw_in'][1]} ({r['truth_throw_in']}) |")
    if not rows:
        lines.append("| | no clip moved | | | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", nargs="+", required=True, help="the base run's bench_samples --json files")
    ap.add_argument("--new", nargs="+", required=True, help="the new run's files, in the same order")
    ap.add_argument("--labels", nargs="+", default=None, help="a name for each pair (default: the base file's name)")
    ap.add_argument("--p95-step", type=float, default=0.1, help="list a clip whose p95 moved by more (yd; default 0.1)")
    args = ap.parse_args(argv)
    if len(args.base) != len(args.new):
        ap.error(f"--base has {len(args.base)} files and --new {len(args.new)}: give them in pairs")
    labels = args.labels or [Path(p).stem for p in args.base]
    if len(labels) != len(args.base):
        ap.error(f"--labels names {len(labels)} sets for {len(args.base)} pairs of files")
    try:
        base = [json.loads(Path(p).read_text()) for p in args.base]
        new = [json.loads(Path(p).read_text()) for p in args.new]
        rows = [r for a, b, label in zip(base, new, labels) for r in moved(a, b, label, args.p95_step)]
        print(markdown(totals(base), totals(new), rows))
    except (OSError, ValueError, KeyError) as e:
        print(f"compare_samples: {e.__class__.__name__}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
