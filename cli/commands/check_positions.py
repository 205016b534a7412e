"""`polo-lineup check-positions FILE`: Rule 20 verdicts from a positions document."""
from __future__ import annotations

import argparse
import json
import sys

import rules


def run(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"polo-lineup check-positions: error: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    try:
        verdict = rules.check_document(rules.load_document(text))
    except rules.InvalidDocument as exc:
        print(f"polo-lineup check-positions: invalid input: {exc}", file=sys.stderr)
        return 2
    json.dump(verdict, sys.stdout, indent=args.indent)
    sys.stdout.write("\n")
    return 1 if rules.has_violation(verdict) else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check-positions", help="check a positions document (JSON) against Rule 20",
                       description="Print Rule 20 verdicts for a positions document. Exit status: 0 no "
                                   "violation, 1 some frame has a violation, 2 invalid input.")
    p.add_argument("file", help="positions JSON file, or - for standard input")
    p.add_argument("--indent", type=int, default=None, help="indent the JSON output")
    p.set_defaults(func=run)
