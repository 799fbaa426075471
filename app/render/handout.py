"""The handout: one run on at most two A4 pages, for printing (``?print=1``) and for a class to keep.

The same content as ``python3 -m model trace --markdown``: the switches (and a schedule that is not the
article's), what happens tick by tick, each invariant held or broken in words, and the outcome.
"""

from __future__ import annotations

from html import escape

from app.content import heading
from app.render.controls import notice_html
from app.render.outcome import badges_html, outcome_html
from app.render.text import events_table_html


def handout_html(
    trace: dict, outcome: dict, switches: dict[str, str], schedule_words: str | None, notices: list[str] = ()
) -> str:
    """The run on at most two A4 pages; a link's notices first, so a mistyped value is not printed as if
    it had been run."""
    end = trace["end_tick"]
    chosen = " · ".join(f"{escape(k.replace('_', ' '))} <b>{escape(v)}</b>" for k, v in switches.items())
    schedule = f"<p>Schedule: {escape(schedule_words)}.</p>" if schedule_words else ""
    return (
        f'<article class="handout-page"><h1>{escape(heading("title"))}</h1>{notice_html(list(notices))}'
        f"<p>Switches: {chosen}</p>{schedule}"
        f"{events_table_html(trace, end)}"
        f'<div class="handout-end"><div><h2>{escape(heading("invariants"))}</h2>'
        f"{badges_html(trace, end, outcome)}</div>"
        f"<div><h2>{escape(heading('outcome'))}</h2>{outcome_html(outcome, trace, end)}</div></div>"
        "</article>"
    )
