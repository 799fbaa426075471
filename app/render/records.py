"""Every durable record at a tick, as tables; the rows written at this tick and the one that broke an
invariant are marked in words as well as colour."""

from __future__ import annotations

from html import escape

STORE_TITLES = {
    "admissions": "Attempt records (admissions)",
    "journal": "Journal",
    "candidates": "Candidate store",
    "acceptances": "Acceptance log",
    "effects": "Effect records",
    "feed_posts": "Feed: posts",
    "feed_keys": "Feed: remembered keys",
}


def _cell(value) -> str:
    if value is None:
        return '<td class="none">—</td>'
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, list):
        return f"<td>{escape(', '.join(map(str, value)))}</td>"
    return f"<td>{escape(str(value))}</td>"


# The columns each record table shows, in order: (heading, how to get it from the record's dict).
COLUMNS = {
    "admissions": [
        ("attempt", "attempt"),
        ("token", "token"),
        ("pin", "pin"),
        ("pin hash", "pin_hash"),
        ("purpose", "purpose"),
        ("tick", "tick"),
    ],
    "journal": [
        ("step", "step"),
        ("input hash", "input_hash"),
        ("result", "result"),
        ("computed from", ("part", "computed_from")),
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


def records_html(frame: dict, highlight: tuple | None = None) -> str:
    """Every store at this tick; rows written at this tick are marked new; ``highlight`` is a
    (store, index) pair that broke an invariant."""
    tick = frame["tick"]
    parts = [
        f'<p class="epoch">Owner epoch <strong>{frame["epoch"]}</strong> · report <strong>'
        f"{frame['report']}</strong> (section 2 says {escape(frame['report_figure'])})</p>"
    ]
    attempts = frame["attempts"]
    if attempts:
        parts.append(
            '<div class="scroll" tabindex="0" role="region" aria-label="Attempts now">'
            '<table class="records"><caption>Attempts now</caption><thead><tr>'
        )
        heads = ["attempt", "token", "pin", "state", "alive", "calls", "restored", "missed heartbeats"]
        parts.append("".join(f'<th scope="col">{h}</th>' for h in heads) + "</tr></thead><tbody>")
        for a in attempts:
            parts.append(
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
                    )
                )
                + "</tr>"
            )
        parts.append("</tbody></table></div>")
    for store, columns in COLUMNS.items():
        rows = frame["records"][store]
        parts.append(
            f'<div class="scroll" tabindex="0" role="region" aria-label="{STORE_TITLES[store]}">'
            f'<table class="records"><caption>{STORE_TITLES[store]} '
            f"({len(rows)})</caption>"
        )
        if not rows:
            parts.append('<tbody><tr><td class="none">empty</td></tr></tbody></table></div>')
            continue
        parts.append(
            "<thead><tr>"
            + "".join(f'<th scope="col">{h}</th>' for h, _ in columns)
            + '<th scope="col"><span class="sr-only">marks</span></th></tr></thead><tbody>'
        )
        for index, record in enumerate(rows):
            marks = []
            if record.get("tick") == tick:
                marks.append('<span class="tag new">new</span>')
            if highlight == (store, index):
                marks.append('<span class="tag broke">broke an invariant</span>')
            cls = " ".join(
                c
                for c, on in (("new", record.get("tick") == tick), ("broke", highlight == (store, index)))
                if on
            )
            parts.append(
                f'<tr class="{cls}">'
                + "".join(_cell(_get(record, path)) for _, path in columns)
                + f"<td>{''.join(marks)}</td></tr>"
            )
        parts.append("</tbody></table></div>")
    return "".join(parts)
