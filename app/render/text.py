"""The trace as a table of what happened, for reading in order and for screen readers."""

from __future__ import annotations

from html import escape

from model.trace import ECHO_KINDS


def events_table_html(trace: dict, tick: int, caption: str = "") -> str:
    """The trace as a table, up to ``tick``, for reading in order (and for screen readers)."""
    rows = []
    for frame in trace["ticks"][: tick + 1]:
        for n, event in enumerate(e for e in frame["events"] if e["kind"] not in ECHO_KINDS):
            # Every row names its tick for a screen reader; the eye sees it once per tick.
            t = f"t{frame['tick']}" if n == 0 else f'<span class="sr-only">t{frame["tick"]}</span>'
            cls = ' class="now"' if frame["tick"] == tick else ""
            rows.append(
                f'<tr{cls}><th scope="row">{t}</th><td>{escape(event["actor"])}</td>'
                f"<td>{escape(event['text'])}</td></tr>"
            )
    return (
        '<div class="scroll" tabindex="0" role="region" aria-label="What happened"><table class="events">'
        f"<caption>{escape(caption or f'What happened, t0 to t{tick}')}</caption>"
        '<thead><tr><th scope="col">tick</th><th scope="col">who</th><th scope="col">what '
        "happens</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
