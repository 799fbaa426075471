"""``python3 -m model``: the worked example from the command line.

    trace   one run, tick by tick, and its outcome (``--json`` for {switches, trace, outcome})
    sweep   the outcomes of all 864 combinations (``--json`` or ``--csv``)
    compare the one-change-at-a-time table (``--json``)
    explore every protection setting against every schedule of a finite space: how many break each
            invariant, and the smallest run that does (``--json`` for everything; ``--exhaustive``
            reruns every schedule from t0 instead of walking the graph, for the same bytes;
            ``--range silent_for=1-20,never`` widens or narrows a schedule field's values)
    bench   how long the model takes (figures printed, nothing asserted)

``trace`` also takes the schedule's values (``--silent-at``, ``--correction-at``, ...): the switches give
the article's schedule and each schedule flag named replaces its value.

An unknown flag or value exits with status 2 and a message naming the allowed values (quoting at most
the first 60 characters of what was given). Flags are never abbreviated, so a flag added later cannot
change what an old command line means. A reader that closes the pipe early (``| head``) ends the run
quietly with status 0, as Unix tools do; any other write error (a closed standard output among them) is
reported with status 1.

``explore --scheduler`` takes a Dask address (``tcp://host:port``; also ``tls``, ``ws``, ``wss``); any
other text exits with status 2. A scheduler that cannot be reached exits with status 1, one with no
workers yet is waited for (the command says so), a worker that dies exits with status 1, Ctrl-C
exits with status 130 and SIGTERM with 143, each with one line on standard error and no traceback.
``--workers`` is capped at the settings to explore and at four a core (the command says so); the
workers end with the command, even when it is killed with SIGKILL. On a terminal, ``explore`` first
says how many runs it is about to make, then rewrites one line as each setting is done (the time so far,
and about how long is left); piped or redirected, standard error is left to errors.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import signal
import sys
import time

from . import analyses
from .bench import main as bench_main
from .invariants import INVARIANT_IDS
from .outcome import MINIMUM_CALLS, OUTCOME_KEYS, Outcome, finished_words
from .schedule import FIELDS as SCHEDULE_FIELDS
from .schedule import Schedule, ScheduleError
from .schedule import parse as parse_schedule_value
from .simulation import run
from .switches import ALL_SETTINGS, SWITCH_IDS, SwitchError, Switches, allowed_values, quoted
from .trace import ECHO_KINDS, dumps, trace_dict

MAX_REPEAT = 1000


class BriefParser(argparse.ArgumentParser):
    """A mistake on the command line is one line that says it and one that points to ``--help``, not
    the whole usage before it (the usage of ``explore`` alone is sixteen lines)."""

    def error(self, message: str):
        flags = [f for a in self._actions for f in a.option_strings if f not in ("-h", "--help")]
        if message.startswith("unrecognized arguments") and flags:
            message += f" (the flags are {', '.join(flags)})"
        self.exit(2, f"{self.prog}: error: {message}\nsee '{self.prog} --help' for every flag and value\n")


def _one_of(setting: str):
    values = allowed_values(setting)

    def check(value: str) -> str:
        if value not in values:
            raise argparse.ArgumentTypeError(f"must be one of {', '.join(values)}; got {quoted(value)}")
        return value

    return check


def _repeat(value: str) -> int:
    if not (value.isascii() and value.isdigit() and len(value) <= 4 and 1 <= int(value) <= MAX_REPEAT):
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 1 to {MAX_REPEAT}; got {quoted(value)}"
        )
    return int(value)


def _schedule_value(field_id: str):
    def check(value: str) -> object:
        try:
            return parse_schedule_value(field_id, value)
        except ScheduleError as error:
            raise argparse.ArgumentTypeError(str(error).split(" must be ", 1)[-1]) from None

    return check


def _workers(value: str) -> int:
    if not (value.isascii() and value.isdigit() and len(value) <= 3 and 1 <= int(value) <= 256):
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 256; got {quoted(value)}")
    return int(value)


def _protections(value: str) -> dict[str, str]:
    from .explore import parse_protections

    try:
        return parse_protections(value)
    except SwitchError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


SCHEDULER = re.compile(
    r"(tcp|tls|ws|wss)://[A-Za-z0-9.-]+:\d{1,5}|(tcp|tls|ws|wss)://\[[0-9A-Fa-f:]+\]:\d{1,5}"
)


def _range(value: str) -> tuple[str, tuple]:
    from .explore import parse_range

    try:
        return parse_range(value)
    except ScheduleError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


class _Ranges(argparse.Action):
    """``--range``, once per schedule field: gathered into ``{field: values}``."""

    def __call__(self, parser, namespace, value, option_string=None):
        field_id, values = value
        ranges = getattr(namespace, self.dest)
        if field_id in ranges:
            raise argparse.ArgumentError(self, f"{field_id} is given more than once; give each range once")
        setattr(namespace, self.dest, {**ranges, field_id: values})


def _scheduler(value: str) -> str:
    """A Dask scheduler's address, checked before anything connects (Dask's own errors are tracebacks)."""
    match = SCHEDULER.fullmatch(value)
    if not match or not 0 < int(value.rsplit(":", 1)[1]) < 65536:
        raise argparse.ArgumentTypeError(
            f"a Dask scheduler address is tcp://HOST:PORT (or tls://, ws://, wss://), port 1 to 65535;"
            f" got {quoted(value)}"
        )
    return value


def _add_schedule_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "schedule", "when things go wrong; each flag replaces the value the switches give"
    )
    for f in SCHEDULE_FIELDS:
        group.add_argument(
            "--" + f.id.replace("_", "-"),
            dest=f.id,
            type=_schedule_value(f.id),
            default=argparse.SUPPRESS,  # absent unless named ("never" parses to None, a real value)
            metavar="{" + f.allowed().replace(", or ", ",").replace(", ", ",") + "}"
            if f.low is None
            else "N",
            help=f"{f.help}: {f.allowed()}",
        )


def _add_switch_flags(parser: argparse.ArgumentParser, ids) -> None:
    defaults = Switches()
    for setting in ids:
        values = allowed_values(setting)
        parser.add_argument(
            "--" + setting.replace("_", "-"),
            dest=setting,
            type=_one_of(setting),
            default=getattr(defaults, setting).value,
            metavar="{" + ",".join(values) + "}",
            help=f"{_what_it_does(setting)} (default: {getattr(defaults, setting).value})",
        )


def _what_it_does(setting: str) -> str:
    """A setting's help: the first paragraph of its Enum's docstring, which says what it does and, for a
    setting beyond the article, where the article stands."""
    doc = type(getattr(Switches(), setting)).__doc__ or ""
    return " ".join(doc.split("\n\n")[0].split()).replace("%", "%%")


def _parser() -> argparse.ArgumentParser:
    parser = BriefParser(prog="python3 -m model", description=__doc__.split("\n")[0], allow_abbrev=False)
    commands = parser.add_subparsers(dest="command", metavar="{trace,sweep,compare,explore,bench}")
    commands.required = True
    trace = commands.add_parser("trace", help="one run, tick by tick", allow_abbrev=False)
    _add_switch_flags(trace, ALL_SETTINGS)
    _add_schedule_flags(trace)
    form = trace.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print {switches, trace, outcome} as JSON")
    form.add_argument(
        "--markdown", action="store_true", help="a worksheet: switches, trace, invariants, outcome"
    )
    sweep = commands.add_parser("sweep", help="the outcomes of all 864 combinations", allow_abbrev=False)
    _add_switch_flags(sweep, ["unversioned"])
    form = sweep.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="a list of {switches, outcome}")
    form.add_argument("--csv", action="store_true", help="one row per combination")
    compare = commands.add_parser(
        "compare", help="one change at a time, over the 12 event combinations", allow_abbrev=False
    )
    compare.add_argument("--json", action="store_true")
    explore = commands.add_parser(
        "explore", help="every protection setting against every schedule of a space", allow_abbrev=False
    )
    explore.add_argument(
        "--protections",
        type=_protections,
        default={},
        metavar="ID=VALUE,...",
        help="hold these protections (e.g. fencing=on,pins=off); the others take every value",
    )
    explore.add_argument("--json", action="store_true", help="everything, with every counterexample")
    explore.add_argument(
        "--exhaustive",
        action="store_true",
        help="run every schedule from t0 instead of walking the graph of shared states (same result, slower)",
    )
    explore.add_argument(
        "--range",
        type=_range,
        action=_Ranges,
        default={},
        dest="ranges",
        metavar="ID=VALUE,...",
        help="the values one schedule field takes instead of the default space's, e.g."
        " silent_for=1-10,never (repeat it for other fields)",
    )
    where = explore.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_workers, default=None, help="processes (default: every core)")
    where.add_argument(
        "--scheduler",
        type=_scheduler,
        default=None,
        metavar="ADDRESS",
        help="run on a Dask cluster (tcp://host:8786)",
    )
    bench = commands.add_parser("bench", help="time the model", allow_abbrev=False)
    bench.add_argument(
        "--repeat", type=_repeat, default=5, help=f"best of this many, 1 to {MAX_REPEAT} (default: 5)"
    )
    return parser


def format_trace(run_) -> str:
    """The readable tick-by-tick table and the outcome. "(current)" means: of a digest built entirely
    from the final report version."""
    lines = ["tick  actor        what happens", "----  -----------  " + "-" * 60]
    for frame in run_.frames:
        first = True
        for event in frame["events"]:
            if event["kind"] in ECHO_KINDS:
                continue
            tick = f"t{frame['tick']}" if first else ""
            lines.append(f"{tick:<5} {event['actor']:<12} {event['text']}")
            first = False
    lines.append("")
    lines.extend(format_outcome(run_.outcome()))
    return "\n".join(lines)


def _at(tick: int | None, otherwise: str) -> str:
    return otherwise if tick is None else f"t{tick}"


def format_markdown(run_) -> str:
    """The run as a Markdown worksheet for a class: the switches, what happened tick by tick, each
    invariant held or broken (and where), and the outcome."""
    trace = trace_dict(run_)
    switches = " · ".join(
        f"{k} **{v}**" for k, v in run_.switches.to_dict(advanced=True, assumptions=False).items()
    )
    lines = ["# Durable work: one run", "", f"Switches: {switches}", ""]
    if run_.custom_schedule is not None:
        lines += [f"Schedule: {run_.custom_schedule.words()}.", ""]
    lines += ["## What happens", "", "| tick | who | what happens |", "| --- | --- | --- |"]
    for frame in trace["ticks"]:
        for n, event in enumerate(e for e in frame["events"] if e["kind"] not in ECHO_KINDS):
            tick = f"t{frame['tick']}" if n == 0 else ""
            lines.append(f"| {tick} | {event['actor']} | {event['text'].replace('|', '/')} |")
    lines += ["", "## Invariants", ""]
    for inv in trace["invariants"]:
        b = inv["breach"]
        said = f"**broken** at t{b['tick']} by {b['actor']}: {b['detail']}" if b else "held"
        lines.append(f"- {inv['id']} ({inv['meaning']}): {said}")
    lines += ["", "## Outcome", "", "```", *format_outcome(run_.outcome()), "```"]
    return "\n".join(lines)


def format_outcome(o: Outcome) -> list[str]:
    by_attempt = ", ".join(f"#{k} {v}" for k, v in o.calls_by_attempt.items())
    news = f"started t{o.newsletter_started_at}, quoting {o.newsletter_quote}"
    return [
        f"model calls         {o.model_calls} against a minimum of {MINIMUM_CALLS} ({by_attempt})",
        f"steps restored      {o.steps_restored}",
        f"stale writes        {o.stale_writes_rejected} rejected, {o.stale_writes_applied} applied",
        f"posts               {o.posts_applied} applied for {o.announcements} announcement(s),"
        f" {o.duplicate_posts} duplicate(s)",
        "accepted (current)  " + _at(o.first_accepted_current_at, "never"),
        "newsletter          " + (news if o.newsletter_started_at is not None else "never started"),
        "confirmed (current) " + _at(o.announcement_confirmed_at, "never"),
        "invariants broken   " + (", ".join(o.invariants_broken) or "none"),
        f"finished            {finished_words(o.to_dict())}",
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


class Terminated(Exception):
    """SIGTERM arrived: unwind (closing the worker pool on the way) and exit with 128 + 15."""


def _terminate(signum, frame) -> None:
    raise Terminated


def _end_at_once(signum, frame) -> None:
    print("python3 -m model: terminated", file=sys.stderr, flush=True)
    os._exit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if sys.stdout is None:  # started with standard output closed (``>&-``)
        if sys.stderr is not None:
            print("python3 -m model: cannot write the output: standard output is closed", file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, _terminate)  # a kill (no -9) stops as cleanly as Ctrl-C does
    try:
        _run(args)
        sys.stdout.flush()
    except Terminated:
        print("python3 -m model: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("python3 -m model: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader has gone (``| head -c1``): stop quietly. Point stdout at /dev/null so that Python's
        # own flush at exit does not complain about the closed pipe once more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        print(f"python3 -m model: cannot write the output: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0


def _run(args: argparse.Namespace) -> None:
    if args.command == "trace":
        switches = Switches.from_mapping({k: getattr(args, k) for k in ALL_SETTINGS})
        given = {f.id: getattr(args, f.id) for f in SCHEDULE_FIELDS if hasattr(args, f.id)}
        schedule = Schedule.of(switches).replace(**given)
        result = run(switches, schedule=schedule)
        if args.json:
            print(
                dumps(
                    {
                        "switches": switches.to_dict(),
                        "trace": trace_dict(result),
                        "outcome": result.outcome().to_dict(),
                    }
                )
            )
        elif args.markdown:
            print(format_markdown(result))
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
            print(
                f"{summary['runs']} combinations; {summary['finished']} finish; "
                f"{summary['no_invariant_broken']} break no invariant"
            )
            for i, n in summary["breaks"].items():
                print(f"  {i:<20} broken in {n}")
    elif args.command == "compare":
        rows = analyses.one_change_at_a_time()
        if args.json:
            print(
                dumps({"rows": [r.to_dict() for r in rows], "unversioned": analyses.unversioned_comparison()})
            )
        else:
            print(format_compare(rows))
            print()
            for u in analyses.unversioned_comparison():
                print(
                    f"pins off, strict rule, {u['unversioned']:<11}: of {u['runs']} runs the newsletter "
                    "used a"
                    f" wrong digest in {u['newsletter_used_wrong']}, never started in"
                    f" {u['newsletter_never_started']}; a wrong digest was accepted in "
                    f"{u['wrong_digest_accepted']}"
                )
    elif args.command == "explore":
        _explore(args)
    elif args.command == "bench":
        bench_main(args.repeat)


def _explore(args: argparse.Namespace) -> None:
    from .explore import (
        SPACE,
        dask_mapper,
        explore,
        local_mapper,
        protection_settings,
        schedule_list,
        worker_count,
    )

    waiting = f"python3 -m model explore: waiting for a worker to join the Dask scheduler at {args.scheduler}"
    settings = len(protection_settings(args.protections))
    try:
        if args.scheduler:
            mapper, close = dask_mapper(args.scheduler, on_wait=lambda: print(waiting, file=sys.stderr))
        else:
            workers, notice = worker_count(args.workers, tasks=settings)
            if notice:
                print(f"python3 -m model explore: {notice}", file=sys.stderr)
            mapper, close = local_mapper(workers)
            if workers > 1:
                # Raised in the main thread, Terminated could land inside the pool's own code (waiting on
                # a result, holding its queue's lock) and leave the shutdown waiting for good (issue 48):
                # with a pool, a SIGTERM ends the process at once, and the workers end with it (each
                # watches a pipe only this process holds), having ignored the signal themselves.
                signal.signal(signal.SIGTERM, _end_at_once)
    except ImportError as error:
        raise SystemExit(
            "python3 -m model explore: --scheduler needs dask.distributed (pip install distributed)"
        ) from error
    except OSError as error:
        raise SystemExit(
            f"python3 -m model explore: cannot reach the Dask scheduler {quoted(args.scheduler)}: {error}"
        ) from error
    space = SPACE | args.ranges
    progress = None
    if sys.stderr.isatty():  # a person waiting: what the run costs, then how far it has come
        schedules = len(schedule_list(space))
        print(
            f"python3 -m model explore: {schedules:,} schedules x {settings:,} protection settings"
            f" = {schedules * settings:,} runs",
            file=sys.stderr,
        )
        progress = _progress_line(time.monotonic())
    try:
        result = explore(args.protections, space, mapper, args.exhaustive, progress)
    except Exception as error:
        if type(error).__name__ != "KilledWorker":
            raise
        raise SystemExit(f"python3 -m model explore: a Dask worker died while exploring: {error}") from None
    finally:
        close()
    print(dumps(result) if args.json else format_explore(result))


def _progress_line(began: float):
    """A line on standard error, rewritten as each setting's row arrives: how many are done, the time so
    far and, from the pace so far, about how long is left; ended with a newline at the last."""

    def told(done: int, total: int) -> None:
        spent = time.monotonic() - began
        left = spent / done * (total - done)
        end = "\n" if done == total else ""
        print(
            f"\r  {done:,} of {total:,} settings explored in {_clock(spent)}"
            + (f", about {_clock(left)} to go" if done < total else "")
            + "\x1b[K",  # what a longer line before left on the screen
            end=end,
            file=sys.stderr,
            flush=True,
        )

    return told


def _clock(seconds: float) -> str:
    """Seconds as m:ss (h:mm:ss from an hour)."""
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def _by_mode(headline: dict) -> list[tuple[str, str, int]]:
    """Per checkpoint mode of a headline: the invariants it breaks, in words, and its unfinished runs."""
    from .explore import UNFINISHED

    rows = []
    for mode, counts in headline["by_checkpoints"].items():
        named = ", ".join(f"{k} in {n}" for k, n in counts.items() if n and k != UNFINISHED)
        rows.append((mode, named or "nothing breaks", counts[UNFINISHED]))
    return rows


def format_explore(result: dict) -> str:
    """The explorer's table (one row per protection setting), the headline, and the smallest cases."""
    from .explore import PROTECTIONS, UNFINISHED, smallest_overall

    names = {"duplicate-effect": "dup", "stale-write": "stale", "superseded-accepted": "super",
             "dependant-misled": "misled", "double-acceptance": "double", "rebuild-differs": "fresh",
             UNFINISHED: "unfin"}  # fmt: skip
    counted = result["rows"][0]["broken"] if result["rows"] else {}  # the sixth only where it is judged
    short = {k: v for k, v in names.items() if k in counted}
    width = 2 + max(len(v) for row in result["rows"] for v in row["protections"].values())
    lines = [
        f"{result['schedules']} schedules x {result['settings']} protection settings = {result['runs']} runs",
        "each column: schedules (of " + str(result["schedules"]) + ") that break it",
        "",
        "".join(f"{k:<{width}}" for k in PROTECTIONS) + "".join(f"{v:>7}" for v in short.values()),
    ]
    for row in result["rows"]:
        lines.append(
            "".join(f"{row['protections'][k]:<{width}}" for k in PROTECTIONS)
            + "".join(f"{row['broken'][k] or '.':>7}" for k in short)
        )
    h = result["headline"]
    on = ", ".join(f"{k} {v}" for k, v in h["protections"].items())
    lines += ["", f"Headline: with {on} ({h['settings']} settings, {h['runs']} runs):"]
    if not h["settings"]:
        lines.append("  not among the settings explored (--protections holds another value).")
    elif h["holds"]:
        lines.append("  no invariant breaks under any schedule explored.")
    else:
        broken = ", ".join(f"{k} in {n} runs" for k, n in h["broken"].items() if n)
        lines.append(f"  invariants DO break: {broken}.")
        lines += [f"    checkpoints {mode}: {named}" for mode, named, _ in _by_mode(h)]
    if h["settings"]:
        lines.append(f"  {h['unfinished']} of its runs end without finishing (not an invariant; see below).")
    if "literal_rules" in result:
        lines += [
            "",
            "The same settings under the controller's rules as first written (--controller literal):",
        ]
        lines += [
            f"    checkpoints {mode}: {named}; {unfinished} end without finishing"
            for mode, named, unfinished in _by_mode(result["literal_rules"])
        ]
    lines += ["", "Smallest case of each, over every setting (replay it with the command):"]
    for what, case in smallest_overall(result["rows"]).items():
        lines += [
            f"  {what}: {case['ticks']} ticks, {case['faults']} fault{'s' * (case['faults'] != 1)},"
            f" at t{case['breach_tick']}:"
            f" {case['breach']}",
            f"    {case['schedule_words']}",
            f"    {case['command']}",
        ]
    return "\n".join(lines)
