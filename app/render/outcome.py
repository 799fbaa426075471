"""The invariant badges and the outcome, as HTML. The live app and the static pages show the same
markup: badges are buttons when ``interactive`` (activating one explains it), list items otherwise."""

from __future__ import annotations

from html import escape

from app.content import titles
from model.outcome import MINIMUM_CALLS, finished_words

STATE_MARK = {"held": "✔", "broken": "✖", "pending": "…"}


def finished_text(outcome: dict, trace: dict, tick: int) -> str:
    """Whether the run finished, as known at ``tick``: only the last tick knows."""
    if tick < trace["end_tick"]:
        return "not yet known"
    return finished_words(outcome)


def badge_items(trace: dict, tick: int, outcome: dict) -> list[dict]:
    """One badge per invariant and one for `finished`: id, title, state word, mark and the breach tick."""
    names = titles("invariants")
    frame = trace["ticks"][tick]
    items = []
    for inv in trace["invariants"]:
        state = frame["invariants"][inv["id"]]
        when = f" at t{inv['breach']['tick']}" if state == "broken" else ""
        item = {"id": inv["id"], "title": names[inv["id"]], "state": state, "words": f"{state}{when}"}
        items.append({**item, "mark": STATE_MARK[state]})
    finished = finished_text(outcome, trace, tick)
    tone = "pending" if tick < trace["end_tick"] else "held" if outcome["finished"] else "broken"
    item = {"id": "finished", "title": names["finished"], "state": tone, "words": finished}
    items.append({**item, "mark": STATE_MARK[tone]})
    return items


def badges_html(trace: dict, tick: int, outcome: dict, interactive: bool = False) -> str:
    parts = []
    for item in badge_items(trace, tick, outcome):
        inner = (
            f'<span class="mark" aria-hidden="true">{item["mark"]}</span> '
            f"{escape(item['title'])}: <strong>{escape(item['words'])}</strong>"
        )
        if interactive:
            inner = (
                f'<button type="button" class="badge-button" data-action="explain" data-value="{item["id"]}" '
                f'data-key="badge-{item["id"]}">{inner}</button>'
            )
        parts.append(f'<li class="badge badge-{item["id"]} {item["state"]}">{inner}</li>')
    return f'<ul class="badges">{"".join(parts)}</ul>'


def badge_strip_html(trace: dict, tick: int, outcome: dict, always: bool = False) -> str:
    """The badges in one short line, for a narrow screen where the full badges are far from the player
    (``always``: on every screen, for a layout with no badges column)."""
    items = "".join(
        f'<li class="{item["state"]}"><span aria-hidden="true">{item["mark"]}</span> '
        f"{escape(item['title'])}: {escape(item['words'])}</li>"
        for item in badge_items(trace, tick, outcome)
    )
    css = "badge-strip always" if always else "badge-strip"
    return f'<ul class="{css}" aria-label="Invariants at t{tick}">{items}</ul>'


def _at(tick: int | None) -> str:
    return "never" if tick is None else f"t{tick}"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def outcome_rows(outcome: dict, trace: dict) -> list[tuple[str, str]]:
    """The outcome at the end of the run, in words."""
    calls = ", ".join(f"#{k} {v}" for k, v in outcome["calls_by_attempt"].items())
    news = trace["ticks"][-1]["newsletter"]
    if outcome["newsletter_started_at"] is None:
        newsletter = "never started"
    elif news["quote"] == news["report_figure_at_start"]:
        started = _at(outcome["newsletter_started_at"])
        newsletter = f"started {started}, quoting {outcome['newsletter_quote']}, as the report said"
    else:
        newsletter = (
            f"started {_at(outcome['newsletter_started_at'])}, quoting {outcome['newsletter_quote']}"
            f" while the report said {news['report_figure_at_start']}"
        )
    posts = _count(outcome["posts_applied"], "post", "posts")
    return [
        ("model calls", f"{outcome['model_calls']} against a minimum of {MINIMUM_CALLS} ({calls})"),
        ("steps restored", str(outcome["steps_restored"])),
        (
            "stale writes",
            f"{outcome['stale_writes_rejected']} rejected, {outcome['stale_writes_applied']} applied",
        ),
        (
            "posts",
            f"{posts} for {_count(outcome['announcements'], 'announcement', 'announcements')}; "
            f"{_count(outcome['duplicate_posts'], 'duplicate', 'duplicates')}",
        ),
        ("accepted for the final report", _at(outcome["first_accepted_current_at"])),
        ("newsletter", newsletter),
        ("announcement for the final report confirmed", _at(outcome["announcement_confirmed_at"])),
        (
            "invariants broken",
            ", ".join(titles("invariants")[i] for i in outcome["invariants_broken"]) or "none",
        ),
        ("finished", finished_words(outcome)),
    ]


def so_far_html(trace: dict, tick: int) -> str:
    counts = trace["ticks"][tick]["counts"]
    return (
        f'<p class="so-far">So far, at t{tick}: '
        f"{_count(counts['model_calls'], 'model call', 'model calls')}, "
        f"{counts['steps_restored']} restored, {counts['stale_writes_rejected']} stale "
        f"{'write' if counts['stale_writes_rejected'] == 1 else 'writes'} rejected and "
        f"{counts['stale_writes_applied']} applied, {_count(counts['posts_applied'], 'post', 'posts')}.</p>"
    )


def outcome_html(
    outcome: dict, trace: dict, tick: int, reveal: bool = True, offer: bool = False, folded: bool = False
) -> str:
    """What the run has cost so far and, when ``reveal``, how it ends. ``offer`` puts a Reveal button in
    place of the ending, so a class can predict before it steps (the live app does; static pages reveal).
    ``folded`` (an embed, whose frame keeps its height) puts the ending in a fold the reader opens, one
    line tall like the button it replaces."""
    body = "".join(
        f'<tr><th scope="row">{escape(k)}</th><td>{escape(v)}</td></tr>'
        for k, v in outcome_rows(outcome, trace)
    )
    if reveal and folded:
        end = (
            f'<details class="outcome-end"><summary>At the end (t{trace["end_tick"]}): how the run ends'
            f'</summary><table class="outcome"><tbody>{body}</tbody></table></details>'
        )
    elif reveal:
        end = (
            f'<table class="outcome"><caption>At the end (t{trace["end_tick"]})</caption>'
            f"<tbody>{body}</tbody></table>"
        )
    elif offer:
        end = (
            '<p class="reveal"><button type="button" data-action="reveal" data-value="end" data-key="reveal">'
            f"Reveal how the run ends (t{trace['end_tick']})</button> or step to the last tick.</p>"
        )
    else:
        end = ""
    return so_far_html(trace, tick) + end
