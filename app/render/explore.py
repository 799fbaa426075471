"""The explorer's results as HTML, for the Explore tab and the static explore page (no Panel here)."""

from __future__ import annotations

from html import escape

from app.content import markdown_html, text, titles
from app.render.controls import value_words
from model.explore import PROTECTIONS, UNFINISHED, WIDER
from model.invariants import INVARIANT_IDS
from model.switches import MAIN_TRACE, SETTING_BY_ID

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


#: The checkpoint modes in a reader's words ("with checkpoints after every step").
CHECKPOINT_WORDS = {"every-step": "after every step", "end-only": "only at the end", "none": "never"}
FOUR_ON_WORDS = (
    "fencing on, version pins on, one operation key per announcement, and a newsletter that takes only a"
    " digest accepted for the current report"
)


def _modes_words(headline: dict) -> str:
    """Per checkpoint mode, what breaks and how many runs end unfinished, in words."""
    names = titles("invariants")
    parts = []
    for mode, counts in headline["by_checkpoints"].items():
        broken = [f"“{names[i]}” breaks in {n:,}" for i, n in counts.items() if n and i in names]
        unfinished = counts[UNFINISHED]
        if unfinished:
            broken.append(f"{unfinished:,} {'run ends' if unfinished == 1 else 'runs end'} unfinished")
        parts.append(
            f"checkpoints {CHECKPOINT_WORDS.get(mode, mode)}: {', '.join(broken) or 'nothing goes wrong'}"
        )
    return "; ".join(parts)


def headline_html(data: dict | None) -> str:
    """The whole space's answer for the article's four protections, in words, if the precomputed file is
    here; and, beside it, the same settings under the controller's rules as first written."""
    if data is None:
        return ""
    h = data["headline"]
    if h["holds"] and not h["unfinished"]:
        answer = "no invariant breaks, and every run finishes."
    else:
        answer = escape(_modes_words(h)) + "."
    text = (
        f'<p class="explore-headline"><b>The whole space:</b> {data["schedules"]:,} schedules against '
        f"{data['settings']} protection settings, {data['runs']:,} runs. With {FOUR_ON_WORDS}, in each of "
        f"the {h['settings']} checkpoint modes ({data['schedules']:,} runs each): {answer} A run that ends"
        " unfinished breaks no rule, but the work it was given is never done: no digest of the final report"
        " is accepted and announced.</p>"
    )
    literal = data.get("literal_rules")
    if literal:
        text += (
            '<p class="explore-literal"><b>Under the controller\'s rules as first written</b> (the advanced'
            f" setting “controller rules: literal”): {escape(_modes_words(literal))}. The scenario notes"
            " below say what the two completed rules change.</p>"
        )
    return text


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


#: The wider search's menus (the app's Explore tab and the static explore page say the same).
RANGE_LABELS = {
    "silent_for": "Silences last",
    "correction_at": "Report corrected",
    "silent_attempt": "Attempt that goes silent",
}


def against_html(protections: dict[str, str], schedules: int) -> str:
    """'Your protections (fencing on, ...) against N schedules', escaped."""
    names = titles("switches")
    chosen = ", ".join(f"{names[k].lower()} {value_words(k, v)}" for k, v in protections.items())
    return f"Your protections ({escape(chosen)}) against {schedules} schedules"


def progress_words(done: int, total: int) -> str:
    """How far a search has come, in words: "3,595 of 11,232 schedules searched"."""
    return f"{done:,} of {total:,} schedules searched"


def progress_html(done: int, total: int) -> str:
    """How far a search has come: a bar, its figures beside it (the bar's value for a screen reader, so
    they are not read out each time they change). static/explore.js moves the bar this draws, with the
    words ``progress_words`` gives it."""
    words = progress_words(done, total)
    return (
        f'<p class="wider-progress"><progress max="{total}" value="{done}" aria-label="Schedules searched"'
        f' aria-valuetext="{words}"></progress> <span aria-hidden="true">{words}</span></p>'
    )


def wider_form_html() -> str:
    """The static explore page's search of wider ranges: the reader's protections (the main trace's to
    begin with) and the ranges, searched by the model in the reader's browser."""
    menus = []
    for setting_id in PROTECTIONS:
        options = "".join(
            f'<option value="{escape(m.value)}"{" selected" * (m is getattr(MAIN_TRACE, setting_id))}>'
            f"{escape(value_words(setting_id, m.value))}</option>"
            for m in SETTING_BY_ID[setting_id].values
        )
        menus.append(_menu(f"protection-{setting_id}", titles("switches")[setting_id], options))
    for field_id, choices in WIDER.items():
        options = "".join(f'<option value="{escape(c)}">{escape(c)}</option>' for c in choices)
        menus.append(_menu(f"range-{field_id}", RANGE_LABELS[field_id], options))
    return (
        '<section class="explore-search" aria-labelledby="wider-heading">'
        '<h2 id="wider-heading">Search wider ranges</h2>'
        f"{markdown_html(text('explore', 'wider'))}"
        f'<form id="wider-form"><div class="explore-menus">{"".join(menus)}</div>'
        '<button type="submit">Search these ranges</button></form>'
        '<div id="wider-result" class="explore-wider" role="status" aria-live="polite"></div></section>'
    )


def _menu(name: str, label: str, options: str) -> str:
    return f'<label for="{name}">{escape(label)}<select id="{name}" name="{name}">{options}</select></label>'


def wider_result_html(protections: dict[str, str], row: dict, live: str) -> str:
    """A wider search's answer: held or broken per invariant, each smallest case with its replay link."""
    lines = []
    for what, name in names().items():
        lines.append(result_html(what, name, row))
        if row["broken"][what]:
            link = escape(live + case_query(row["smallest"][what]))
            lines.append(f'<p><a href="{link}">Replay the smallest case ({escape(name.lower())})</a></p>')
    return f"<p>{against_html(protections, row['runs'])}:</p>{''.join(lines)}"
