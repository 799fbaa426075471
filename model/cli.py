"""``python3 -m model``: the worked example from the command line.

    trace   one run, tick by tick, and its outcome (``--json`` for {switches, trace, outcome})
    sweep   the outcomes of all 864 combinations (``--json`` or ``--csv``)
    compare the one-change-at-a-time table (``--json``)
    bench   how long the model takes (figures printed, nothing asserted)

An unknown flag or value exits with status 2 and a message naming the allowed values.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys

from . import analyses
from .invariants import INVARIANT_IDS
from .outcome import MINIMUM_CALLS, OUTCOME_KEYS
from .simulation import run
from .switches import ALL_SETTINGS, SWITCH_IDS, Switches, allowed_values
from .trace import dumps, trace_dict

# Store confirmations repeat what the acting attempt already said; the table leaves them out.
QUIET_KINDS = {"write"}


def _add_switch_flags(parser: argparse.ArgumentParser, ids) -> None:
    defaults = Switches()
    for setting in ids:
        values = allowed_values(setting)
        parser.add_argument(
            "--" + setting.replace("_", "-"),
            dest=setting,
            choices=values,
            default=getattr(defaults, setting).value,
            metavar="{" + ",".join(values) + "}",
            help=f"default: {getattr(defaults, setting).value}",
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python3 -m model", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", metavar="{trace,sweep,compare,bench}")
    commands.required = True
    trace = commands.add_parser("trace", help="one run, tick by tick")
    _add_switch_flags(trace, ALL_SETTINGS)
    trace.add_argument("--json", action="store_true", help="print {switches, trace, outcome} as JSON")
    sweep = commands.add_parser("sweep", help="the outcomes of all 864 combinations")
    _add_switch_flags(sweep, ["unversioned"])
    form = sweep.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="a list of {switches, outcome}")
    form.add_argument("--csv", action="store_true", help="one row per combination")
    compare = commands.add_parser("compare", help="one change at a time, over the 12 event combinations")
    compare.add_argument("--json", action="store_true")
    bench = commands.add_parser("bench", help="time the model")
    bench.add_argument("--repeat", type=int, default=5, help="best of this many (default: 5)")
    return parser


def format_trace(run_) -> str:
    """The readable tick-by-tick table and the outcome."""
    lines = ["tick  actor        what happens", "----  -----------  " + "-" * 60]
    for frame in run_.frames:
        first = True
        for event in frame["events"]:
            if event["kind"] in QUIET_KINDS:
                continue
            tick = f"t{frame['tick']}" if first else ""
            lines.append(f"{tick:<5} {event['actor']:<12} {event['text']}")
            first = False
    lines.append("")
    lines.extend(format_outcome(run_.outcome()))
    return "\n".join(lines)


def format_outcome(o: dict) -> list[str]:
    by_attempt = ", ".join(f"#{k} {v}" for k, v in o["calls_by_attempt"].items())
    never = "never"
    return [
        f"model calls        {o['model_calls']} against a minimum of {MINIMUM_CALLS} ({by_attempt})",
        f"steps restored     {o['steps_restored']}",
        f"stale writes       {o['stale_writes_rejected']} rejected, {o['stale_writes_applied']} applied",
        f"posts              {o['posts_applied']} applied for {o['announcements']} announcement(s),"
        f" {o['duplicate_posts']} duplicate(s)",
        "accepted (current) " + (f"t{o['first_accepted_current_at']}" if o["first_accepted_current_at"] is not None else never),
        "newsletter         "
        + (f"started t{o['newsletter_started_at']}, quoting {o['newsletter_quote']}" if o["newsletter_started_at"] is not None else "never started"),
        "announcement       "
        + (f"confirmed t{o['announcement_confirmed_at']}" if o["announcement_confirmed_at"] is not None else "not confirmed"),
        "invariants broken  " + (", ".join(o["invariants_broken"]) or "none"),
        f"finished           {'yes' if o['finished'] else 'no'}",
    ]


def _csv(rows: list[dict]) -> str:
    out = io.StringIO()
    scalar = [k for k in OUTCOME_KEYS if k not in ("calls_by_attempt", "invariants_broken")]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*SWITCH_IDS, *scalar, *INVARIANT_IDS])
    for row in rows:
        o = row["outcome"]
        writer.writerow(
            [*row["switches"].values(), *("" if o[k] is None else o[k] for k in scalar)]
            + [i in o["invariants_broken"] for i in INVARIANT_IDS]
        )
    return out.getvalue()


def format_compare(rows) -> str:
    head = f"{'':34}{'finished':>9}" + "".join(f"{i:>20}" for i in INVARIANT_IDS) + "   calls min/mean/max"
    lines = [head]
    for r in rows:
        lines.append(
            f"{r.name:34}{r.finished:>6}/{r.runs:<2}"
            + "".join(f"{r.breaks[i]:>20}" for i in INVARIANT_IDS)
            + f"   {r.calls_min}/{r.calls_mean}/{r.calls_max}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "trace":
        switches = Switches.from_mapping({k: getattr(args, k) for k in ALL_SETTINGS})
        result = run(switches)
        if args.json:
            print(dumps({"switches": switches.to_dict(), "trace": trace_dict(result), "outcome": result.outcome()}))
        else:
            print(format_trace(result))
    elif args.command == "sweep":
        rows = analyses.sweep(args.unversioned)
        if args.json:
            print(dumps(rows))
        elif args.csv:
            sys.stdout.write(_csv(rows))
        else:
            summary = analyses.sweep_summary(rows)
            print(f"{summary['runs']} combinations; {summary['finished']} finish; "
                  f"{summary['no_invariant_broken']} break no invariant")
            for i, n in summary["breaks"].items():
                print(f"  {i:<20} broken in {n}")
    elif args.command == "compare":
        rows = analyses.one_change_at_a_time()
        if args.json:
            print(dumps({"rows": [r.to_dict() for r in rows], "unversioned": analyses.unversioned_comparison()}))
        else:
            print(format_compare(rows))
            print()
            for u in analyses.unversioned_comparison():
                print(
                    f"pins off, strict rule, {u['unversioned']:<11}: of {u['runs']} runs the newsletter used a"
                    f" wrong digest in {u['newsletter_used_wrong']}, never started in"
                    f" {u['newsletter_never_started']}; a wrong digest was accepted in {u['wrong_digest_accepted']}"
                )
    elif args.command == "bench":
        from .bench import main as bench_main

        if args.repeat < 1:
            _parser().error("--repeat must be at least 1")
        bench_main(args.repeat)
    return 0
