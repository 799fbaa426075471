"""What a switch changed: the run before the reader's change, drawn under the new one at the same tick,
and a few sentences from the model's comparison (``model.analyses.compare_runs``).

The before run is drawn by the one diagram renderer, without row switches, and both drawings mark the
tick where the runs part. Every word is in ``content/comparison.md``.
"""

from __future__ import annotations

from html import escape

from app.content import markdown_html, sections, titles
from app.render.controls import value_words
from app.render.diagram import diagram_svg, tick_caption
from model.switches import Switches


def _words(section: str, **fields) -> str:
    return " ".join(sections("comparison")[section].format(**fields).split())


def change_list(before: dict[str, str], after: dict[str, str], schedule: bool) -> str:
    """The switches that differ between two settings, and the schedule if it changed, in words:
    "fencing from on to off and the schedule"."""
    names = titles("switches")
    # The model says which switches differ; this only words them.
    differ = Switches.from_mapping(before).differences(Switches.from_mapping(after))
    changes = [
        _words("change", title=names.get(k, k).lower(), before=value_words(k, was), after=value_words(k, now))
        for k, (was, now) in differ.items()
    ]
    if schedule:
        changes.append(_words("schedule"))
    if len(changes) > 2:  # a list, not a chain of "and"s: "a, b and c"
        return f"{'; '.join(changes[:-1])} and {changes[-1]}"
    return " and ".join(changes)


def change_words(before: dict[str, str], after: dict[str, str], schedule: bool) -> str:
    """What another frame of the reader's group changed, as a sentence for this frame's status line."""
    return _words("group", changes=change_list(before, after, schedule) or _words("story"))


def lead_text(comparison: dict, after: dict) -> str:
    """What changed and what it did, in Markdown: the switches, where the runs part (and what happens
    there now), each invariant whose breach moved, the end and the counts that differ."""
    before_values = {c["switch"]: c["before"] for c in comparison["switched"]}
    after_values = {c["switch"]: c["after"] for c in comparison["switched"]}
    changes = change_list(before_values, after_values, comparison["schedule_changed"])
    said = [_words("lead", changes=changes or _words("schedule"))]
    first = comparison["first"]
    if first is None:
        return " ".join([*said, _words("same")])
    said.append(_words("parts", first=first, caption=tick_caption(after, min(first, after["end_tick"]))))
    invariants = titles("invariants")
    for moved in comparison["invariants"]:
        kind = "broken now" if moved["before"] is None else "held now" if moved["after"] is None else "moved"
        said.append(_words(kind, title=invariants.get(moved["id"], moved["id"]), **moved))
    ends = comparison["ends"]
    if ends["before"] != ends["after"]:
        said.append(_words("ends", **ends))
    if comparison["counts"]:
        counts = "; ".join(
            f"{_words(f'count {k}')} {v['before']} → {v['after']}" for k, v in comparison["counts"].items()
        )
        said.append(_words("counts", counts=counts))
    return " ".join(said)


def now_text(comparison: dict, tick: int) -> str:
    """Whether the runs differ at the tick on show, in words."""
    first = comparison["first"]
    if first is None:
        return ""
    if tick < first:
        return _words("not yet", tick=tick)
    return _words("differ now" if tick in comparison["differs"] else "same now", tick=tick)


def before_after_html(before: dict, after: dict, tick: int, comparison: dict) -> str:
    """The comparison under the diagram: what changed, whether this tick differs (with a button to the
    first difference when it does not), a button that hides it, and the run before at the same tick."""
    first = comparison["first"]
    step = (
        f'<button type="button" data-action="go" data-value="{first}" data-key="compare-step">'
        f"{escape(_words('step', first=first))}</button> "
        if first is not None and tick not in comparison["differs"]
        else ""
    )
    hide = (
        '<button type="button" data-action="compare" data-value="off" data-key="compare-hide">'
        f"{escape(_words('hide'))}</button>"
    )
    shown = min(tick, before["end_tick"])
    ended = (
        f'<p class="before-ended">{escape(_words("before ended", end=before["end_tick"]))}</p>'
        if tick > before["end_tick"]
        else ""
    )
    caption = tick_caption(before, shown)
    marker = f" {_words('marker', first=first)}" if first is not None else ""
    drawing = diagram_svg(before, shown, caption, beside=after, parts_at=first, toggles=False, ids="before")
    return (
        '<section class="before-after" aria-label="What your change did">'
        f'<div class="change-said" role="status">{markdown_html(lead_text(comparison, after))}</div>'
        f'<p class="change-now"><strong>{escape(now_text(comparison, tick))}</strong>{escape(marker)} '
        f"{step}{hide}</p>"
        '<div class="before-run">'
        f"<h3>{escape(_words('before heading', tick=shown))}</h3>"
        f'<p class="before-caption"><strong>t{shown}.</strong> {escape(caption)}</p>{ended}{drawing}</div>'
        "</section>"
    )
