"""The shape of a trace as ``trace_dict`` writes it and the views read it, and a checker for it.

A schema is plain data: a type (``str``, ``int``, ``bool``; ``int`` never accepts ``True``), ``Maybe(x)``
for "x or null", ``[x]`` for a list of x, ``Pair(a, b)`` for a two-item list, ``Map(x)`` for an object
whose every value is x, and ``{key: x}`` for an object that has at least these keys. ``check`` raises
SchemaError naming the first place that does not fit; it never raises anything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class SchemaError(ValueError):
    """A value that does not have the shape its schema says; the message names where."""


class RepeatedKey(ValueError):
    """A JSON object that names one key twice (``json.loads`` would silently keep the last value)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """An ``object_pairs_hook`` for ``json.loads`` that refuses an object naming a key twice."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        repeated = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise RepeatedKey(f"the key {repeated[:60]!r} appears twice in one object")
    return data


@dataclass(frozen=True)
class Maybe:
    item: Any


@dataclass(frozen=True)
class Pair:
    first: Any
    second: Any


@dataclass(frozen=True)
class Map:
    value: Any


_WORDS = {str: "a string", int: "a whole number", bool: "true or false"}


def check(value: Any, schema: Any, where: str) -> None:
    """Raise SchemaError if ``value`` does not fit ``schema``; ``where`` names it in the message."""
    if isinstance(schema, Maybe):
        if value is not None:
            check(value, schema.item, where)
    elif isinstance(schema, type):
        fits = isinstance(value, schema) and not (schema is int and isinstance(value, bool))
        if not fits:
            raise SchemaError(f"{where}: expected {_WORDS[schema]}, got {_kind(value)}")
    elif isinstance(schema, list):
        _need(value, list, where)
        for n, item in enumerate(value):
            check(item, schema[0], f"{where}[{n}]")
    elif isinstance(schema, Pair):
        _need(value, list, where)
        if len(value) != 2:
            raise SchemaError(f"{where}: expected a list of two, got {len(value)} items")
        check(value[0], schema.first, f"{where}[0]")
        check(value[1], schema.second, f"{where}[1]")
    elif isinstance(schema, Map):
        _need(value, dict, where)
        for key, item in value.items():
            check(item, schema.value, f"{where}.{key}")
    elif isinstance(schema, dict):
        _need(value, dict, where)
        missing = [k for k in schema if k not in value]
        if missing:
            raise SchemaError(f"{where}: missing {', '.join(missing)}")
        for key, item in schema.items():
            check(value[key], item, f"{where}.{key}")
    else:
        raise TypeError(f"not a schema: {schema!r}")  # a mistake in this module, not in the data


def _need(value: Any, kind: type, where: str) -> None:
    if not isinstance(value, kind):
        expected = "a list" if kind is list else "an object"
        raise SchemaError(f"{where}: expected {expected}, got {_kind(value)}")


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


# --- the trace ---------------------------------------------------------------------------------------

TICK, COUNT = int, int
WHERE = Pair(str, int)  # (store, index) of a record
PART = {
    "step": str,
    "result": str,
    "read_hash": Maybe(str),
    "computed_from": [str],
    "figure": Maybe(str),
    "attempt": int,
    "tick": TICK,
}
WRITER = {"attempt": int, "token": int, "tick": TICK}
RECORDS = {
    "admissions": [{**WRITER, "work": str, "pin": Maybe(str), "pin_hash": Maybe(str), "purpose": str}],
    "journal": [{**WRITER, "step": str, "input_hash": Maybe(str), "result": str, "part": PART}],
    "candidates": [{**WRITER, "digest": str, "parts": [PART], "figure": Maybe(str), "pin": Maybe(str)}],
    "acceptances": [{**WRITER, "digest": str, "version": Maybe(str), "contract": str}],
    "effects": [{**WRITER, "announcement": str, "kind": str, "key": Maybe(str)}],
    "feed_posts": [{"number": int, "announcement": str, "key": Maybe(str), "attempt": int, "tick": TICK}],
    "feed_keys": [{"key": str, "params": [str], "post": Maybe(int), "tick": TICK}],
}
READ = {"step": str, "versions": [str]}  # a section, and the versions whose text it read
EVENT = {
    "actor": str,
    "kind": str,
    "text": str,
    "label": str,
    "lane": str,
    "call": Maybe(int),
    "records": [WHERE],
    "carries": Map(str),
    "attempt": Maybe(int),
    "step": Maybe(str),
    "reason": Map(str),
    "parts": [READ],
    "also": [READ],
    "about": Maybe(int),
    "redo": [{"step": str, "why": str}],
}
MOVE = {
    "machine": str,
    "instance": str,
    "source": Maybe(str),
    "event": str,
    "target": str,
    "addition": bool,
}
ATTEMPT = {
    "attempt": int,
    "token": int,
    "pin": Maybe(str),
    "purpose": str,
    "state": Maybe(str),
    "alive": bool,
    "silent": bool,
    "calls": COUNT,
    "restored": COUNT,
    "missed_heartbeats": COUNT,
}
NEWSLETTER = {
    "ready": bool,
    "started_at": Maybe(TICK),
    "digest": Maybe(str),
    "quote": Maybe(str),
    "rule_applied": Maybe(str),
    "report_figure_at_start": Maybe(str),
    "accepted_for": Maybe(str),
    "accepted_at": Maybe(TICK),
    "current": bool,
    "ever_accepted_for": Maybe(str),
    "ever_accepted_at": Maybe(TICK),
}
COUNTS = {
    "model_calls": COUNT,
    "steps_restored": COUNT,
    "stale_writes_rejected": COUNT,
    "stale_writes_applied": COUNT,
    "posts_applied": COUNT,
}
FRAME = {
    "tick": TICK,
    "report": str,
    "epoch": int,
    "events": [EVENT],
    "moves": [MOVE],
    "lifecycles": Map(Map(str)),
    "attempts": [ATTEMPT],
    "records": RECORDS,
    "newsletter": NEWSLETTER,
    "report_figure": str,
    "keys_forgotten": COUNT,
    "counts": COUNTS,
    "invariants": Map(str),
}
MACHINE = {
    "name": str,
    "question": str,
    "initial": str,
    "states": [str],
    "transitions": [{"source": str, "event": str, "target": str, "note": str, "addition": bool}],
}
BREACH = {"id": str, "tick": TICK, "actor": str, "records": [WHERE], "detail": str}
TRACE = {
    "format": str,
    "work": str,
    "switches": Map(str),
    "versions": [{"name": str, "hash": str, "sections": [{"id": str, "hash": str, "text": str}]}],
    "machines": [MACHINE],
    "invariants": [{"id": str, "meaning": str, "held": bool, "breach": Maybe(BREACH)}],
    "finished_meaning": str,
    "end_tick": TICK,
    "ticks": [FRAME],
}
