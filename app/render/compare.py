"""The compare view: a run beside the same events with every protection on, in words."""

from __future__ import annotations

from html import escape

from app.content import markdown_html, text, titles
from app.render.before_after import change_list
from app.render.controls import named_value
from app.render.outcome import outcome_rows


def compare_html(
    mine: dict,
    theirs: dict,
    trace: dict,
    protected_trace: dict,
    changes: dict,
    parts_at: int | None,
    scratch: dict,
) -> str:
    """``changes`` is ``{setting: (yours, protected)}``; ``scratch`` is the model's from-scratch
    counterfactual (``model.analyses.from_scratch``)."""
    # The same words as a switch's change: "fencing from on to off", from the protected run to yours.
    protected = {k: theirs_value for k, (_, theirs_value) in changes.items()}
    changed = change_list(protected, {k: yours for k, (yours, _) in changes.items()}, schedule=False)
    mine_rows, their_rows = outcome_rows(mine, trace), outcome_rows(theirs, protected_trace)
    rows = "".join(
        f'<tr class="{"differs" if a != b else ""}"><th scope="row">{escape(k)}</th><td>{escape(a)}</td>'
        f"<td>{escape(b)}</td><td>{'differs' if a != b else 'same'}</td></tr>"
        for (k, a), (_, b) in zip(mine_rows, their_rows, strict=True)
    )
    part = (
        f"The two runs part at <strong>t{parts_at}</strong>, the first tick at which something "
        "different happens."
        if parts_at is not None
        else "The two runs are the same, tick for tick."
    )
    lead = (
        f"<p>{escape(text('comparison', 'against').format(changes=changed))} {part}</p>"
        if changes
        else markdown_html(text("captions", "compare-same"))
    )
    return (
        f'<div class="compare-lead">{lead}</div>'
        # The table scrolls inside its own box on a narrow screen, its first column staying in view.
        '<div class="scroll" tabindex="0" role="region" aria-label="Your run beside every protection on">'
        '<table class="compare"><caption>Your run beside the same events with every protection on</caption>'
        '<thead><tr><th scope="col">outcome</th><th scope="col">your run</th><th scope="col">every '
        "protection on</th>"
        f'<th scope="col">same or different</th></tr></thead><tbody>{rows}</tbody></table></div>'
        + scratch_html(scratch)
    )


def scratch_html(scratch: dict) -> str:
    """What restoring from the journal saved in this run, computed by the model."""
    saved = scratch["calls_saved"]
    if saved <= 0:
        return "<p>Nothing was restored from the journal in this run, so restoring saved no model calls.</p>"
    restored, rebuilt = scratch["calls_by_attempt"], scratch["from_scratch_by_attempt"]
    attempts = "; ".join(
        f"#{n} {rebuilt[n]} instead of {calls}"
        for n, calls in restored.items()
        if rebuilt.get(n, calls) != calls
    )
    return (
        f'<p class="scratch">Restoring from the journal saved {saved} model '
        f"{'call' if saved == 1 else 'calls'}: the run made {scratch['model_calls']}; had every "
        "successor rebuilt "
        f"everything from scratch it would have made {scratch['from_scratch_calls']} "
        f"({escape(attempts)}).</p>"
    )


def _change_words(changed: dict[str, str]) -> str:
    """A row's one change as the switch panel says it ("Checkpoints: only at the end")."""
    return "; ".join(named_value(k, v) for k, v in changed.items()) or text("comparison", "all on")


def one_change_html(rows) -> str:
    names = titles("invariants")
    heads = "".join(f'<th scope="col">{escape(names[i])}</th>' for i in rows[0].breaks)
    body = "".join(
        f'<tr><th scope="row">{escape(_change_words(r.changed))}</th><td>{r.finished} of {r.runs}</td>'
        + "".join(f"<td>{n}</td>" for n in r.breaks.values())
        + f"<td>{r.calls_min} / {r.calls_mean} / {r.calls_max}</td></tr>"
        for r in rows
    )
    return (
        '<div class="scroll" tabindex="0" role="region" aria-label="One change at a time">'
        '<table class="one-change"><caption>One change at a time, over the 12 event '
        "combinations: "
        "runs that finish, runs breaking each invariant, and model calls (fewest / mean / most)</caption>"
        f'<thead><tr><th scope="col">change</th><th scope="col">finished</th>{heads}<th '
        'scope="col">model calls</th>'
        f"</tr></thead><tbody>{body}</tbody></table></div>"
    )
