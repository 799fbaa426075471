"""python -m engines run [--engine langgraph|dbos|all] [--out FILE]"""

from __future__ import annotations

import sys
from pathlib import Path

from engines.scenarios import ENGINES, RESULTS, run_all
from model.cli import BriefParser


def main(argv=None) -> int:
    parser = BriefParser(prog="python -m engines")
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("run", help="run every scenario on the engines and write the results file")
    go.add_argument("--engine", choices=[*ENGINES, "all"], default="all")
    go.add_argument("--out", type=Path, default=RESULTS, help=f"default: {RESULTS}")
    args = parser.parse_args(argv)
    engines = ENGINES if args.engine == "all" else (args.engine,)
    data = run_all(engines, args.out)
    for r in data["results"]:
        verdict = "matches the model" if r["matches"] else "differs from the model"
        print(f"{r['engine']:<10} {r['scenario']:<12} {r['variant']:<28} {verdict}: {r['observed']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
