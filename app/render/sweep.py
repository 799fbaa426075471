"""All 864 as HTML: a matrix of 72 protection settings by 12 event combinations, and a list of the runs the
filter keeps, both in words and both choosing a run to load.

The matrix is a table, not a picture: its headers are text at the page's size (the event switches over
the columns, three header rows; the protections down the side, one column each, a value spanning the
rows it holds for), each square is a button whose digit is how many invariants the run breaks, and a
dot after it says the run does not finish. The shade only repeats the digit. Arrow keys move between
squares (one tab stop for the whole matrix); the list's lines say all eight switches in the switches'
own words and wrap. Every word comes from content/ (the values, the rows' short forms, the invariants).
"""

from __future__ import annotations

import itertools
from html import escape

from app.content import pairs, titles
from app.render.controls import named_value, value_words
from model.switches import Role, article_values, ids_of

EVENTS = ids_of(Role.EVENT)  # the columns: silent worker, input change, posting worker
PROTECTIONS = ids_of(Role.PROTECTION)  # the rows: fencing, checkpoints, pins, newsletter rule, post key
LEVELS = 6  # shades, by how many invariants a run breaks (0 to 5)


def short_words(setting: str, value: str) -> str:
    """A value in the rows' short forms (content/diagram.md), as the diagram's row switches say it."""
    return pairs("diagram", f"row {setting}").get(value, value_words(setting, value))


def matches(outcome: dict, wanted: str) -> bool:
    """Whether a run's outcome is one the filter keeps (``all``, ``none``, ``any``, ``unfinished`` or an
    invariant's id)."""
    broken = outcome["invariants_broken"]
    return (
        wanted == "all"
        or (wanted == "none" and not broken)
        or (wanted == "any" and bool(broken))
        or (wanted == "unfinished" and not outcome["finished"])
        or wanted in broken
    )


def _broken_words(outcome: dict) -> str:
    names = titles("invariants")
    broken = ", ".join(names[i] for i in outcome["invariants_broken"])
    ending = "" if outcome["finished"] else "; does not finish"
    return (f"breaks {broken}" if broken else "breaks nothing") + ending


def run_words(n: int, row: dict) -> str:
    """A run of the 864 in words: its number, its eight switches as the switch panel says them, and what
    it breaks."""
    said = " · ".join(named_value(k, v) for k, v in row["switches"].items())
    return f"{n + 1}. {said} — {_broken_words(row['outcome'])}"


def _cell(n: int, row: dict, wanted: str, first: bool) -> str:
    outcome = row["outcome"]
    broken = len(outcome["invariants_broken"])
    digit = f"{broken}{'' if outcome['finished'] else '·'}"
    switches = row["switches"]
    where = ", ".join(short_words(k, switches[k]) for k in (*EVENTS, *PROTECTIONS))
    label = f"{digit} — run {n + 1}: {where}: {_broken_words(outcome)}"  # the name starts with what shows
    kept = matches(outcome, wanted)
    return (
        f'<td><button type="button" class="cell level-{broken}{"" if kept else " out"}" data-action="load" '
        f'data-value="{n}" data-key="cell-{n}" tabindex="{0 if first else -1}" '
        f'aria-label="{escape(label + ("" if kept else " (not in the filter)"))}">{digit}</button></td>'
    )


def _event_headers() -> str:
    """Three header rows over the twelve columns, one per event switch: the switch's name in the corner,
    each value spanning the columns it holds for; the last row's words stand on their side."""
    names = titles("switches")
    rows = []
    span = 12
    repeat = 1
    for setting in EVENTS:
        values = article_values(setting)
        span //= len(values)
        words = [escape(short_words(setting, v)) for v in values]
        if span > 1:
            cells = "".join(f'<th scope="colgroup" colspan="{span}">{w}</th>' for w in words) * repeat
        else:  # the last row: a column each, its words on their side
            cells = "".join(f'<th scope="col" class="upright"><span>{w}</span></th>' for w in words) * repeat
        corner = f'<th class="corner" colspan="2">{escape(names[setting])}</th>'
        rows.append(f"<tr>{corner}{cells}</tr>")
        repeat *= len(values)
    return "".join(rows)


def matrix_html(rows, wanted: str = "all") -> str:
    """The 864 as a table of buttons (``rows``: the model's sweep, in its documented order).

    The outer protections (fencing, checkpoints, pins) head a band of nine rows each, in a line across
    the table; the newsletter's rule and the post key are a row header each, so the table fits a column
    of 600 px."""
    by_switches = {
        tuple(r["switches"][k] for k in (*PROTECTIONS, *EVENTS)): (n, r) for n, r in enumerate(rows)
    }
    outer, inner = PROTECTIONS[:-2], PROTECTIONS[-2:]
    per_rule = len(article_values(inner[1]))
    body = []
    first = True
    for band in itertools.product(*map(article_values, outer)):
        words = " · ".join(named_value(k, v) for k, v in zip(outer, band, strict=True))
        body.append(
            f'<tr class="band"><th colspan="{2 + 12}" scope="rowgroup"><span>{escape(words)}</span></th></tr>'
        )
        for number, (rule, key) in enumerate(itertools.product(*map(article_values, inner))):
            rule_head = (
                f'<th scope="rowgroup" rowspan="{per_rule}">{escape(short_words(inner[0], rule))}</th>'
                if number % per_rule == 0
                else ""
            )
            cells = []
            for events in itertools.product(*map(article_values, EVENTS)):
                n, row = by_switches[(*band, rule, key, *events)]
                cells.append(_cell(n, row, wanted, first))
                first = False
            starts = ' class="rule"' if number % per_rule == 0 else ""
            key_head = f'<th scope="row">{escape(short_words(inner[1], key))}</th>'
            body.append(f"<tr{starts}>{rule_head}{key_head}{''.join(cells)}</tr>")
    legend = " ".join(
        f'<span class="cell level-{k}" aria-hidden="true">{k}</span> {k} broken' for k in range(LEVELS)
    )
    return (
        '<div class="scroll sweep-grid" role="region" aria-label="The 864 runs as a matrix">'
        '<table class="matrix" data-roving="grid" data-columns="12">'
        f"<thead>{_event_headers()}</thead><tbody>{''.join(body)}</tbody></table></div>"
        f'<p class="matrix-legend">{legend}; · does not finish</p>'
    )


def list_html(rows, wanted: str = "all") -> str:
    """The runs the filter keeps, a button a line, in words that wrap (one tab stop: arrows move)."""
    kept = [(n, row) for n, row in enumerate(rows) if matches(row["outcome"], wanted)]
    if not kept:
        return '<p class="sweep-none">No combination matches this filter.</p>'
    items = "".join(
        f'<li><button type="button" class="run" data-action="load" data-value="{n}" data-key="run-{n}" '
        f'tabindex="{0 if i == 0 else -1}">{escape(run_words(n, row))}</button></li>'
        for i, (n, row) in enumerate(kept)
    )
    return (
        f'<p class="sweep-kept">{len(kept)} of {len(rows)} combinations; choose one to load it into the '
        f'player.</p><ol class="sweep-list" data-roving="list">{items}</ol>'
    )
