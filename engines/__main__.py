"""python -m engines run [--engine langgraph|dbos|restate|all] [--out FILE]"""

from __future__ import annotations

import sys
from pathlib import Path

from engines.scenarios import ENGINES, RESULTS, run_all
from model.cli import BriefParser


def main(argv=None) -> int:
    parser = BriefParser(prog="python -m engines")
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("run", help="run every scenario on the engines and write the results file")
    go.add_argument(
        "--engine",
        choices=[*ENGINES, "all"],
        default="all",
        help="one engine: its rows are replaced and the others' kept (default: all)",
    )
    go.add_argument("--out", type=Path, default=RESULTS, help=f"default: {RESULTS}")
    args = parser.parse_args(argv)
    engines = ENGINES if args.engine == "all" else (args.engine,)
    seconds: dict[str, float] = {}
    data = run_all(engines, args.out, seconds)
    for r in (r for r in data["results"] if r["engine"] in engines):
        verdict = "matches the model" if r["matches"] else "differs from the model"
        print(f"{r['engine']:<10} {r['scenario']:<12} {r['variant']:<28} {verdict}: {r['observed']}")
    for engine, took in seconds.items():
        print(f"{engine:<10} its scenarios took {took:.1f} s")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
