"""The trace as data: one frame per tick with the tick's events, the lifecycle moves, and a snapshot of
every record and every lifecycle's state, so that no view ever recomputes a model fact.

``trace_dict`` gives the whole trace as plain JSON-able data with a fixed key order; ``dumps`` writes it
byte-identically on every Python; ``load_trace`` reads JSON back and validates it, raising TraceError with
a message that says what is wrong and where.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from . import lifecycles as lc
from . import schema
from .invariants import ALL_MEANINGS, FINISHED_MEANING, Standing, shown_invariants
from .newsletter import READY_AT
from .records import PROTECTED_STORES
from .report import SECTIONS, VERSIONS, VERSIONS_WITH_TEXT, WORK_IDENTITY, revenue_figure, short
from .schedule import ARTICLE
from .switches import ControllerRules, SwitchError, Switches

if TYPE_CHECKING:
    from .simulation import Run
    from .world import World

FORMAT = "durable-work-trace/2"
RECORD_KINDS = ("admissions", *PROTECTED_STORES, "feed_posts", "feed_keys")

#: Event kinds that echo what the acting attempt already said (a store confirming a write it applied):
#: a table of what happened leaves them out.
ECHO_KINDS = frozenset({"write"})
#: Bookkeeping event kinds (a dispatch, a plan to redo): said in full in the text, too small to earn a
#: label of their own in a picture.
MINOR_KINDS = frozenset({"dispatch", "plan"})


class TraceError(ValueError):
    """A JSON trace that is not a valid trace of this model."""


# --- records as plain data -------------------------------------------------------------------------
# Records are immutable, so each is turned into a dict once per run and shared by every later frame.


def _part(p) -> dict:
    return {
        "step": p.step,
        "result": p.result_id,
        "read_hash": short(p.read_hash),
        "computed_from": list(VERSIONS_WITH_TEXT[(p.step, p.read_hash)]),
        "figure": p.figure,
        "attempt": p.attempt,
        "tick": p.tick,
    }


def _record(kind: str, r) -> dict:
    if kind == "admissions":
        return {
            "attempt": r.attempt,
            "work": r.work,
            "token": r.token,
            "pin": r.pin,
            "pin_hash": short(r.pin_hash),
            "purpose": r.purpose,
            "tick": r.tick,
        }
    if kind == "journal":
        return {
            "step": r.step,
            "input_hash": short(r.input_hash),
            "result": r.part.result_id,
            "part": _part(r.part),
            "attempt": r.attempt,
            "token": r.token,
            "tick": r.tick,
        }
    if kind == "candidates":
        return {
            "digest": r.digest_id,
            "parts": [_part(p) for p in r.parts],
            "figure": r.figure,
            "pin": r.pin,
            "attempt": r.attempt,
            "token": r.token,
            "tick": r.tick,
        }
    if kind == "acceptances":
        return {
            "digest": r.digest_id,
            "version": r.version,
            "contract": r.contract,
            "attempt": r.attempt,
            "token": r.token,
            "tick": r.tick,
        }
    if kind in ("effects", "feed_posts"):
        return r._asdict()  # every field, named as the record names it
    if kind == "feed_keys":
        return {"key": r.key, "params": list(r.params), "post": r.answer.post_number, "tick": r.tick}
    raise KeyError(kind)


def _sources(world: World) -> dict[str, list]:
    return {
        "admissions": world.records.admissions,
        "journal": world.records.journal.records,
        "candidates": world.records.candidates.records,
        "acceptances": world.records.acceptances.records,
        "effects": world.records.effects.records,
        "feed_posts": world.feed.posts,
        "feed_keys": list(world.feed.remembered.values()),
    }


class Frames:
    """Builds one frame per tick for one run. Records are immutable, so each becomes a dict once and is
    shared by every later frame; moves are taken from where the previous frame stopped."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.record_dicts: dict[str, list[dict]] = {k: [] for k in RECORD_KINDS}
        self.record_objects: dict[str, list] = {k: [] for k in RECORD_KINDS}  # what each dict was made of
        self.moves_seen = 0

    def __call__(self) -> dict:
        world = self.world
        records = {}
        for kind, source in _sources(world).items():
            done, made_of = self.record_dicts[kind], self.record_objects[kind]
            # A store only grows at its end; the feed's keys may also shrink (a feed that forgets keys,
            # RULES.md §8.1): then the list is made again from what is there now.
            if len(source) < len(made_of) or any(a is not b for a, b in zip(source, made_of, strict=False)):
                done.clear()
                made_of.clear()
            for r in source[len(done) :]:
                done.append(_record(kind, r))
                made_of.append(r)
            records[kind] = list(done)
        moves = world.lifecycles.moves[self.moves_seen :]
        self.moves_seen = len(world.lifecycles.moves)
        return frame_of(world, records, moves)


def _read(parts: tuple) -> list[dict]:
    return [{"step": step, "versions": list(versions)} for step, versions in parts]


def _digest_acceptance(world: World, digest: str | None) -> dict:
    """What the acceptance log holds now of the digest the newsletter took: the version it was first
    accepted for and when, and whether it is accepted for the report as it is now; and what the run did,
    whether the log still holds it or lost it since (RULES.md §8.4): when it was first accepted, and for
    which version."""
    first = world.records.acceptance_of(digest) if digest is not None else None
    current = first is not None and any(
        a.digest_id == digest and a.version == world.report.name for a in world.records.acceptances.records
    )
    ever = next((a for a in world.ever("acceptances") if a.digest_id == digest), None)
    return {
        "accepted_for": first.version if first else None,
        "accepted_at": first.tick if first else None,
        "current": current,
        "ever_accepted_for": ever.version if ever else None,
        "ever_accepted_at": ever.tick if ever else None,
    }


def frame_of(world: World, records: dict, moves: list) -> dict:
    """The frame of the tick that just ended."""
    tick = world.tick
    start = world.newsletter.start
    breaches = {b.invariant: b.tick for b in world.checker.first.values()}
    return {
        "tick": tick,
        "report": world.report.name,
        "epoch": world.records.epoch.value,
        "events": [
            {
                "actor": e.actor,
                "kind": e.kind,
                "text": e.text,
                "label": e.label,
                "lane": e.lane,
                "call": e.call,
                "records": [list(r) for r in e.records],
                "carries": dict(e.carries),
                "attempt": e.attempt,
                "step": e.step,
                "reason": dict(e.reason),
                "parts": _read(e.parts),
                "also": _read(e.also),
                "about": e.about,
                "redo": [{"step": step, "why": why} for step, why in e.redo],
            }
            for e in world.events
        ],
        "moves": [
            {
                "machine": m.machine,
                "instance": m.instance,
                "source": m.source,
                "event": m.event,
                "target": m.target,
                "addition": m.addition,
            }
            for m in moves
        ],
        "lifecycles": {name: dict(states) for name, states in world.lifecycles.states.items()},
        "attempts": [
            {
                "attempt": a.number,
                "token": a.token,
                "pin": a.pin.name if a.pin else None,
                "purpose": a.purpose,
                "state": world.lifecycles.state("attempt", a.name),
                "alive": a.alive,
                "silent": a.silent_until is not None and a.silent_until > tick,
                "calls": a.calls,
                "restored": a.restored,
                "missed_heartbeats": a.missed,
            }
            for a in world.attempts
        ],
        "records": records,
        "newsletter": {
            "ready": tick >= READY_AT,
            "started_at": start.tick if start else None,
            "digest": start.digest_id if start else None,
            "quote": start.quote if start else None,
            "rule_applied": start.rule if start else None,
            "report_figure_at_start": start.report_figure if start else None,
            **_digest_acceptance(world, start.digest_id if start else None),
        },
        "report_figure": revenue_figure(world.report.text("s2")),
        # Keys of posts the feed applied that it no longer remembers (beyond the article, RULES.md §8.1).
        "keys_forgotten": len(
            {p.key for p in world.feed.posts if p.key is not None and p.key not in world.feed.remembered}
        ),
        "counts": {
            "model_calls": world.calls,
            "steps_restored": world.restored,
            "stale_writes_rejected": world.stale_rejected,
            "stale_writes_applied": len(world.stale_applied),
            "posts_applied": len(world.feed.posts),
        },
        "invariants": {
            i: (Standing.BROKEN if i in breaches and breaches[i] <= tick else Standing.HELD)
            for i in shown_invariants(world.switches)
        },
    }


def trace_dict(run: Run) -> dict:
    """The whole trace of a recorded run as plain data."""
    if not run.frames:
        raise ValueError("this run was not recorded; call run(switches, recording=True)")
    checker = run.world.checker
    # The article's runs keep the article's data: a schedule only when it is not the switches' own, the
    # machines' transitions beyond the article only when a run outside the 864 could take them.
    custom = run.custom_schedule
    literal = run.switches.controller is ControllerRules.LITERAL
    beyond = run.switches.beyond_article() or custom is not None or literal
    return {
        "format": FORMAT,
        "work": WORK_IDENTITY,
        "switches": run.switches.to_dict(advanced=True, assumptions=False),
        **({} if custom is None else {"schedule": custom.to_dict()}),
        "versions": [
            {
                "name": v.name,
                "hash": v.hash,
                "sections": [
                    {"id": s, "hash": short(v.section_hash(s)), "text": v.text(s)} for s in SECTIONS
                ],
            }
            for v in VERSIONS
        ],
        "machines": [m.to_dict(beyond=beyond) for m in lc.MACHINES],
        "invariants": [
            {
                "id": i,
                "meaning": ALL_MEANINGS[i],
                "held": i not in checker.first,
                "breach": checker.first[i].to_dict() if i in checker.first else None,
            }
            for i in shown_invariants(run.switches)
        ],
        "finished_meaning": FINISHED_MEANING,
        "end_tick": run.end_tick,
        "ticks": run.frames,
    }


def dumps(data: Any, indent: int | None = None) -> str:
    """JSON with the key order the model built, ASCII only, the same bytes on every Python."""
    separators = (",", ": ") if indent is not None else (",", ":")
    return json.dumps(data, ensure_ascii=True, indent=indent, separators=separators)


# --- reading a trace back --------------------------------------------------------------------------

LANE = re.compile(r"(report|controller|feed|newsletter|stores|attempt #\d{1,6})")  # stores: §8.4


def validate(data: Any) -> dict:
    """Check that ``data`` is a trace of this model, down to every value a view reads; return it, or raise
    TraceError saying what is wrong and where. Nothing else escapes, whatever ``data`` is."""
    try:
        schema.check(data, schema.TRACE, "trace")
    except schema.SchemaError as error:
        raise TraceError(str(error)) from None
    if data["format"] != FORMAT:
        raise TraceError(f"trace.format: expected {FORMAT!r}, got {data['format']!r}")
    try:
        Switches.from_mapping(data["switches"])
    except SwitchError as error:
        raise TraceError(f"trace.switches: {error}") from None
    if "schedule" in data:  # only a run whose schedule is not its switches' own carries one
        if not isinstance(data["schedule"], dict):
            raise TraceError("trace.schedule: expected an object of schedule values")
        try:
            ARTICLE.with_values(data["schedule"])
        except SwitchError as error:
            raise TraceError(f"trace.schedule: {error}") from None
    _check_machines(data["machines"])
    shown = shown_invariants(Switches.from_mapping(data["switches"]))
    if [i["id"] for i in data["invariants"]] != list(shown):
        raise TraceError(f"trace.invariants: expected one report for each of {', '.join(shown)}")
    ticks = data["ticks"]
    if not ticks:
        raise TraceError("trace.ticks: a trace has at least one tick")
    for n, frame in enumerate(ticks):
        _check_frame(frame, n, data["machines"], shown)
    if data["end_tick"] != len(ticks) - 1:
        raise TraceError(f"trace.end_tick: expected {len(ticks) - 1}, got {data['end_tick']}")
    return data


def _check_machines(machines: list[dict]) -> None:
    if [m["name"] for m in machines] != [m.name for m in lc.MACHINES]:
        raise TraceError(f"trace.machines: expected {', '.join(m.name for m in lc.MACHINES)}")
    for m in machines:
        for t in m["transitions"]:
            if t["source"] not in m["states"] or t["target"] not in m["states"]:
                raise TraceError(f"trace.machines.{m['name']}: a transition names an undeclared state")


def _check_frame(frame: dict, n: int, machines: list[dict], shown: tuple[str, ...]) -> None:
    where = f"trace.ticks[{n}]"
    if frame["tick"] != n:
        raise TraceError(f"{where}.tick: expected {n}, got {frame['tick']}")
    if frame["report"] not in {v.name for v in VERSIONS}:
        raise TraceError(f"{where}.report: expected v1 or v2, got {frame['report']!r}")
    states = {m["name"]: set(m["states"]) for m in machines}
    for machine, instances in frame["lifecycles"].items():
        if machine not in states:
            raise TraceError(f"{where}.lifecycles: unknown machine {machine!r}")
        for instance, state in instances.items():
            if state not in states[machine]:
                raise TraceError(
                    f"{where}.lifecycles.{machine}[{instance!r}]: {state!r} is not a state of "
                    f"the {machine} machine ({', '.join(sorted(states[machine]))})"
                )
    for move in frame["moves"]:
        if move["machine"] not in states:
            raise TraceError(f"{where}.moves: unknown machine {move['machine']!r}")
    for event in frame["events"]:
        if not LANE.fullmatch(event["lane"]):
            raise TraceError(f"{where}.events: {event['lane'][:60]!r} is not a lane of the timeline")
    for inv in shown:
        if frame["invariants"].get(inv) not in tuple(Standing):
            raise TraceError(f"{where}.invariants.{inv}: expected 'held' or 'broken'")


def _whole_number(digits: str) -> int:
    """An integer of a JSON text, refused past 4,300 digits whatever the interpreter allows."""
    if len(digits.lstrip("-")) > 4300:
        raise ValueError(f"an integer of {len(digits)} digits")
    return int(digits)


#: The most characters a trace file may have. The longest run a schedule can make ends before t90 and
#: writes about 0.3 MB; ten times that is room enough, and a stranger's 50 MB file is refused at once.
MAX_TRACE_CHARS = 4_000_000
CLI_KEYS = ("switches", "trace", "outcome")


def load_trace(text: str) -> dict:
    """Parse and validate a JSON trace (the trace object, or the CLI's {switches, trace, outcome}).

    Refused before parsing: more than ``MAX_TRACE_CHARS`` characters. Refused after: a key given twice
    in one object, and a top-level key a trace (or the CLI's wrapper) does not have."""
    if len(text) > MAX_TRACE_CHARS:
        raise TraceError(
            f"not a trace: {len(text):,} characters; a trace of this model has at most {MAX_TRACE_CHARS:,}"
        )
    try:
        data = json.loads(text, parse_int=_whole_number, object_pairs_hook=schema.unique_keys)
    except json.JSONDecodeError as error:
        raise TraceError(f"not JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except RecursionError:
        raise TraceError("not a trace: nested deeper than Python's JSON reader goes") from None
    except ValueError as error:  # e.g. an integer longer than Python converts (4,300 digits)
        raise TraceError(f"not a trace: {error}") from None
    if isinstance(data, dict) and "trace" in data and "format" not in data:
        unknown = [k for k in data if k not in CLI_KEYS]
        if unknown:
            raise TraceError(f"not a trace: unknown key {unknown[0][:60]!r} beside {', '.join(CLI_KEYS)}")
        data = data["trace"]  # the CLI's {switches, trace, outcome}
    if isinstance(data, dict):
        unknown = [k for k in data if k not in schema.TRACE and k != "schedule"]
        if unknown:
            raise TraceError(f"trace: unknown key {unknown[0][:60]!r}")
    return validate(data)
