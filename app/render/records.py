"""Every durable record at a tick, as tables; the rows written at this tick and the one that broke an
invariant are marked in words as well as colour. Hashes read as names ("digest 1", "key A", "s2 of v1",
from ``app.render.names``); the hash itself is the cell's tooltip."""

from __future__ import annotations

from html import escape

from app.content import pairs
from app.render.names import hash_names

STORE_TITLES = {
    "admissions": "Attempt records (admissions)",
    "journal": "Journal",
    "candidates": "Candidate store",
    "acceptances": "Acceptance log",
    "effects": "Effect records",
    "feed_posts": "Feed: posts",
    "feed_keys": "Feed: remembered keys",
}


def _cell(value, names: dict[str, str] | None = None) -> str:
    names = names or {}
    if value is None:
        return '<td class="none">—</td>'
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    values = value if isinstance(value, list) else [value]
    # A hash is named by its letters ("A", "s2 from v1"); no hover text gives the hash itself back.
    named = [names.get(v, str(v)) if isinstance(v, str) else str(v) for v in values]
    return f"<td>{escape(', '.join(named))}</td>"


# The columns each record table shows, in order: (heading, how to get it from the record's dict).
COLUMNS = {
    "admissions": [
        ("attempt", "attempt"),
        ("token", "token"),
        ("pin", "pin"),
        ("purpose", "purpose"),
        ("tick", "tick"),
    ],
    "journal": [
        ("step", "step"),
        ("input read", "input_hash"),
        ("token", "token"),
        ("tick", "tick"),
    ],
    "candidates": [
        ("digest", "digest"),
        ("pin", "pin"),
        ("quotes", "figure"),
        ("by", "attempt"),
        ("token", "token"),
        ("tick", "tick"),
    ],
    "acceptances": [
        ("digest", "digest"),
        ("for version", "version"),
        ("contract", "contract"),
        ("by", "attempt"),
        ("token", "token"),
        ("tick", "tick"),
    ],
    "effects": [
        ("announcement", "announcement"),
        ("record", "kind"),
        ("key", "key"),
        ("by", "attempt"),
        ("token", "token"),
        ("tick", "tick"),
    ],
    "feed_posts": [
        ("post", "number"),
        ("announces", "announcement"),
        ("key", "key"),
        ("from", "attempt"),
        ("tick", "tick"),
    ],
    "feed_keys": [("key", "key"), ("params", "params"), ("post", "post"), ("tick", "tick")],
}


def _get(record: dict, path):
    if isinstance(path, tuple):
        for key in path:
            record = record[key]
        return record
    return record[path]


def _said(field: str | tuple, value):
    """A record's value in the reader's words where content/values.md has them (an admission's purpose,
    an acceptance's contract); any other value as it is."""
    if field not in ("purpose", "contract") or not isinstance(value, str):
        return value
    return pairs("values", field).get(value, value)


def breach_record(trace: dict, tick: int) -> tuple | None:
    """The record behind the first invariant broken at this very tick, to mark it in the tables."""
    for inv in trace["invariants"]:
        b = inv["breach"]
        if b and b["tick"] == tick and b["records"]:
            return tuple(b["records"][0])
    return None


def records_html(trace: dict, tick: int) -> str:
    """Every store at ``tick``; rows written at this tick are marked new, and the record behind an
    invariant broken at this tick is marked so."""
    frame, names, highlight = trace["ticks"][tick], hash_names(trace), breach_record(trace, tick)
    parts = [
        f'<p class="epoch">Owner epoch <strong>{frame["epoch"]}</strong> · report <strong>'
        f"{frame['report']}</strong> (section 2 says {escape(frame['report_figure'])})</p>"
    ]
    if frame["attempts"]:
        parts.append(_attempts_table(frame["attempts"]))
    for store, columns in COLUMNS.items():
        parts.append(_store_table(store, columns, frame["records"][store], frame["tick"], highlight, names))
    return "".join(parts)


ATTEMPT_COLUMNS = ("attempt", "token", "pin", "state", "alive", "calls", "restored", "missed heartbeats")


def _attempts_table(attempts: list[dict]) -> str:
    head = "".join(f'<th scope="col">{h}</th>' for h in ATTEMPT_COLUMNS)
    rows = "".join(
        "<tr>"
        + "".join(
            _cell(v)
            for v in (
                f"#{a['attempt']}",
                a["token"],
                a["pin"],
                a["state"],
                a["alive"],
                a["calls"],
                a["restored"],
                a["missed_heartbeats"],
            )  # fmt: skip
        )
        + "</tr>"
        for a in attempts
    )
    return (
        '<div class="scroll" tabindex="0" role="region" aria-label="Attempts now">'
        f'<table class="records"><caption>Attempts now</caption><thead><tr>{head}</tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
    )


def _store_table(
    store: str, columns, rows: list[dict], tick: int, highlight: tuple | None, names: dict[str, str]
) -> str:
    """One store's records; a row written at this tick is marked new, the one that broke an invariant
    is marked so (in words, not colour alone)."""
    opening = (
        f'<div class="scroll" tabindex="0" role="region" aria-label="{STORE_TITLES[store]}">'
        f'<table class="records"><caption>{STORE_TITLES[store]} ({len(rows)})</caption>'
    )
    if not rows:
        return opening + '<tbody><tr><td class="none">empty</td></tr></tbody></table></div>'
    head = "".join(f'<th scope="col">{h}</th>' for h, _ in columns)
    body = []
    for index, record in enumerate(rows):
        new, broke = record.get("tick") == tick, highlight == (store, index)
        marks = ('<span class="tag new">new</span>' if new else "") + (
            '<span class="tag broke">broke an invariant</span>' if broke else ""
        )
        cls = " ".join(c for c, on in (("new", new), ("broke", broke)) if on)
        cells = "".join(_cell(_said(path, _get(record, path)), names) for _, path in columns)
        body.append(f'<tr class="{cls}">{cells}<td>{marks}</td></tr>')
    return (
        f'{opening}<thead><tr>{head}<th scope="col"><span class="sr-only">marks</span></th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
