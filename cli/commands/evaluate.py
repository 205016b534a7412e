"""`polo-lineup evaluate REPORT TRUTH`: score an analysis against a rendered clip's truth."""
from __future__ import annotations

import argparse
import json

from cli.errors import UserError


def run(args: argparse.Namespace) -> int:
    from reports.evaluate import evaluate_report
    try:
        with open(args.report, encoding="utf-8") as fh:
            report = json.load(fh)
        with open(args.truth, encoding="utf-8") as fh:
            truth = json.load(fh)
        result = evaluate_report(report, truth, min_run=args.min_run)
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"cannot read input: {exc}") from None
    except (KeyError, TypeError) as exc:
        raise UserError(f"not a report/truth pair this version understands (missing {exc})") from None
    print(json.dumps(result, indent=1))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate", help="score report.json against a rendered clip's truth.json",
                       description="Violation event precision/recall, per-frame verdict agreement, position error "
                                   "(median, p95), id switches and throw-in frame error.")
    p.add_argument("report", help="report.json written by analyze")
    p.add_argument("truth", help="truth.json written by the renderer")
    p.add_argument("--min-run", type=int, default=None, help="event min run for the truth (default: the report's)")
    p.set_defaults(func=run)
