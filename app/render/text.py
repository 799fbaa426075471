"""The trace as a table of what happened, for reading in order and for screen readers."""

from __future__ import annotations

from html import escape

from app.render.diagram import said


def events_table_html(trace: dict, tick: int, caption: str = "") -> str:
    """The trace as a table, up to ``tick``, for reading in order (and for screen readers), in the
    diagram's words: a message is its sender's line, then the answer at its receiver."""
    rows = []
    for t_now, lines in enumerate(said(trace, tick)):
        for n, (who, what) in enumerate(lines):
            # Every row names its tick for a screen reader; the eye sees it once per tick.
            t = f"t{t_now}" if n == 0 else f'<span class="sr-only">t{t_now}</span>'
            cls = ' class="now"' if t_now == tick else ""
            cells = f"<td>{escape(who)}</td><td>{escape(what)}</td>"
            rows.append(f'<tr{cls}><th scope="row">{t}</th>{cells}</tr>')
    return (
        '<div class="scroll" tabindex="0" role="region" aria-label="What happened"><table class="events">'
        f"<caption>{escape(caption or f'What happened, t0 to t{tick}')}</caption>"
        '<thead><tr><th scope="col">tick</th><th scope="col">who</th><th scope="col">what '
        "happens</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
