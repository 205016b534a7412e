"""`polo-lineup game FILE`: direction of play and goal attribution over a game."""
from __future__ import annotations

import argparse
import json
import sys

from rules.direction import replay_game


def run(args: argparse.Namespace) -> int:
    try:
        with (sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")) as fh:
            doc = json.load(fh)
        if not isinstance(doc, dict) or not isinstance(doc.get("events"), list):
            raise ValueError("expected {\"coin_toss\": {...}, \"events\": [...]}")
        records = replay_game(doc.get("coin_toss"), doc["events"])
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        print(f"polo-lineup game: invalid input: {exc}", file=sys.stderr)
        return 2
    json.dump({"events": records}, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("game", help="which goal each team defends, and whom each goal counts for",
                       description="Replay a game's throw-ins, goals and period ends (JSON: coin_toss, events) "
                                   "and print the expected direction at each throw-in and each goal's credit.")
    p.add_argument("file", help="game JSON file, or - for standard input")
    p.set_defaults(func=run)
