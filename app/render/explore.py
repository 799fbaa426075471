"""The explorer's results as HTML, for the Explore tab and the static explore page (no Panel here)."""

from __future__ import annotations

from html import escape

from app.content import titles
from model.explore import ALL_FOUR_ON, PROTECTIONS, UNFINISHED
from model.invariants import INVARIANT_IDS

UNFINISHED_TITLE = "Finishes"


def result_html(what: str, name: str, row: dict) -> str:
    """One line of the result: held or broken, in words and with a mark (not colour alone)."""
    n, k = row["runs"], row["broken"][what]
    if not k:
        verb = "finishes" if what == UNFINISHED else "held"
        return (
            f'<p class="explore-held"><span aria-hidden="true">✓ </span><b>{escape(name)}</b>: {verb}'
            f" under all {n} schedules.</p>"
        )
    case = row["smallest"][what]
    verb = "does not finish" if what == UNFINISHED else "broken"
    faults = f"{case['faults']} fault{'s' * (case['faults'] != 1)}"
    return (
        f'<p class="explore-broken"><span aria-hidden="true">✗ </span><b>{escape(name)}</b>: {verb} under {k}'
        f" of {n} schedules. Smallest case: {case['ticks']} ticks, {faults}, at t{case['breach_tick']}:"
        f" {escape(case['breach'])}.<br><small>{escape(case['schedule_words'])}.</small>"
        f"<br><code>{escape(case['command'])}</code></p>"
    )


def headline_html(data: dict | None) -> str:
    """The whole space's answer for the article's four protections, if the precomputed file is here."""
    if data is None:
        return ""
    h = data["headline"]
    on = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ALL_FOUR_ON.items())
    names = titles("invariants")
    if h["holds"]:
        answer = "no invariant breaks under any of them."
    else:
        parts = []
        for mode, counts in h["by_checkpoints"].items():
            broken = ", ".join(f"{names[i].lower()} in {n}" for i, n in counts.items() if n and i in names)
            parts.append(f"with {mode} checkpoints, " + (f"broken: {broken}" if broken else "nothing breaks"))
        answer = escape("; ".join(parts)) + "."
    return (
        f'<p class="explore-headline"><b>The whole space:</b> {data["schedules"]} schedules × '
        f"{data['settings']} protection settings = {data['runs']} runs. With {escape(on)} "
        f"({h['runs']} runs): {answer}</p>"
    )


def case_query(case: dict, **more: str) -> str:
    """The page query that replays a case at the tick it breaks (and ``more``, e.g. ``tab="trace"``)."""
    query = case["query"]
    extra = "&".join(f"{k}={v}" for k, v in {**more, "tick": case["breach_tick"]}.items())
    return f"{query}{'&' if len(query) > 1 else ''}{extra}"


def names() -> dict[str, str]:
    """What each column is called: the invariants' titles, then whether the run finishes."""
    every = titles("invariants")
    return {**{i: every[i] for i in INVARIANT_IDS}, UNFINISHED: UNFINISHED_TITLE}


def table_html(data: dict, live: str) -> str:
    """Every protection setting: how many schedules break each invariant, with a link to each smallest
    case in the live explainer (marks and words, not colour alone)."""
    columns = names()
    head = "".join(f'<th scope="col">{escape(k.replace("_", " "))}</th>' for k in PROTECTIONS) + "".join(
        f'<th scope="col">{escape(n)}</th>' for n in columns.values()
    )
    rows = []
    for row in data["rows"]:
        cells = "".join(f"<td>{escape(row['protections'][k])}</td>" for k in PROTECTIONS)
        for what in columns:
            k = row["broken"][what]
            if not k:
                cells += '<td class="held">✓ 0</td>'
                continue
            case = row["smallest"][what]
            link = live + case_query(case)
            cells += f'<td class="broken">✗ {k} <a href="{escape(link)}">smallest</a></td>'
        rows.append(f"<tr>{cells}</tr>")
    return (
        f'<div class="scroll" tabindex="0" role="region" aria-label="Every protection setting">'
        f'<table class="explore-table"><caption>Schedules (of {data["schedules"]}) that break each invariant,'
        f" per protection setting</caption><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
        "</table></div>"
    )
