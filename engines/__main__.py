"""python -m engines run [--engine langgraph|dbos|restate|all] [--out FILE]"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from engines import janitor
from engines.postgres import PostgresError
from engines.restate_server import RestateError
from engines.scenarios import ENGINES, RESULTS, run_all
from model.cli import BriefParser


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: unwind as Ctrl-C does (stopping the servers and removing the folders on the way:
    a run stopped by its reader is no failure to keep the logs of)."""


def _terminate(signum, frame) -> None:
    raise Terminated


def unwritable(out: Path) -> str:
    """Why the record could not be written to ``out``, or ""; asked before any engine runs (a run takes
    minutes, and a record lost to a bad path at the end was lost work). A file there already is read for
    the rows of the engines not run now, so it must be a record."""
    if out.exists() and not out.is_file():
        return "not a regular file; name a JSON file to write the record to"
    if not out.parent.is_dir():
        return f"the folder {out.parent} does not exist"
    if not os.access(out.parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        return "not writable here"
    if out.exists():
        try:
            kept = json.loads(out.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            return f"not a record of python -m engines run ({error}); name another file or remove it"
        if not (isinstance(kept, dict) and isinstance(kept.get("engines"), dict) and "results" in kept):
            return "not a record of python -m engines run; name another file or remove it"
    return ""


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
    if problem := unwritable(args.out):
        parser.error(f"--out {args.out}: {problem}")
    engines = ENGINES if args.engine == "all" else (args.engine,)
    seconds: dict[str, float] = {}
    janitor.start()  # whatever ends this run, nothing it starts outlives it
    signal.signal(signal.SIGTERM, _terminate)  # a kill (no -9) unwinds as Ctrl-C does
    try:
        data = run_all(engines, args.out, seconds)
    except Terminated:
        print("python -m engines: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("python -m engines: interrupted", file=sys.stderr)
        return 130
    except (RestateError, PostgresError) as error:  # a server that cannot run here: said in one line
        print(f"python -m engines: {error}", file=sys.stderr)
        return 1
    for r in (r for r in data["results"] if r["engine"] in engines):
        verdict = "matches the model" if r["matches"] else "differs from the model"
        print(f"{r['engine']:<10} {r['scenario']:<12} {r['variant']:<28} {verdict}: {r['observed']}")
    for engine, took in seconds.items():
        print(f"{engine:<10} its scenarios took {took:.1f} s")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
