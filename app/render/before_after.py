"""What a switch changed, in words: the lead sentence from the model's comparison
(``model.analyses.compare_runs``) and its buttons. The run before is drawn in the one diagram, as a
faint layer (``app.render.diagram``). Every word is in ``content/comparison.md``.
"""

from __future__ import annotations

from html import escape

from app.content import sections, titles
from app.render.controls import value_words
from model.switches import SETTING_BY_ID, Role, Switches


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


def change_sentence(comparison: dict) -> str:
    """What the reader changed, and nothing of what it did: while a question waits for its answer, where
    the runs part and what breaks would give it away."""
    before_values = {c["switch"]: c["before"] for c in comparison["switched"]}
    after_values = {c["switch"]: c["after"] for c in comparison["switched"]}
    changes = change_list(before_values, after_values, comparison["schedule_changed"])
    return _words("lead", changes=changes or _words("schedule"))


def lead_text(comparison: dict) -> str:
    """What changed and what it did, in Markdown, short enough for the lead's place: the switches, where
    the runs part, the newsletter's start where it differs, each invariant whose breach moved (and one only
    a run judges, said of that run alone), the end and the counts that differ. What happens at the tick
    where they part is the tick's own sentence, once the reader steps there. Where nothing the run does
    differs, it says so, and whether only a credential or a reason is told otherwise."""
    said = [change_sentence(comparison)]
    first = comparison["first"]
    if first is None:
        told = comparison["explained"]
        said.append(_words("same told", first=told[0]) if told else _words("same"))
        # A protection with nothing to act on; a change of the story's events or of an assumption that never
        # comes into play.
        roles = {SETTING_BY_ID[c["switch"]].role for c in comparison["switched"]}
        idle = roles == {Role.PROTECTION} and not comparison["schedule_changed"]
        return " ".join([*said, _words("idle protection" if idle else "idle other")])
    said.append(_words("parts", first=first))
    if comparison["newsletter"]:
        said.append(newsletter_words(**comparison["newsletter"]))
    invariants = titles("invariants")
    for moved in comparison["invariants"]:
        kind = "broken now" if moved["before"] is None else "held now" if moved["after"] is None else "moved"
        said.append(_words(kind, title=invariants.get(moved["id"], moved["id"]), **moved))
    for once in comparison["judged_once"]:
        when = "now" if once["run"] == "after" else "no longer"
        verdict = "held" if once["tick"] is None else "broken"
        title = invariants.get(once["id"], once["id"])
        said.append(_words(f"judged {when} {verdict}", title=title, tick=once["tick"]))
    ends = comparison["ends"]
    if ends["before"] != ends["after"]:
        said.append(_words("ends", **ends))
    if comparison["counts"]:
        counts = "; ".join(
            f"{_words(f'count {k}')} {v['before']} → {v['after']}" for k, v in comparison["counts"].items()
        )
        said.append(_words("counts", counts=counts))
    return " ".join(said)


def newsletter_words(before: dict | None, after: dict | None) -> str:
    """The newsletter's start where two runs differ in it (``compare_runs``' ``newsletter``)."""
    fields = {
        f"{run}_{k}": v
        for run, start in (("before", before), ("after", after))
        for k, v in (start or {}).items()
    }
    if before is None:
        return _words("newsletter starts", **fields)
    if after is None:
        return _words("newsletter never starts", **fields)
    # A digest's name does not cover what a step read past its section (RULES.md §8.2), so the quote is
    # compared too, and the words claim no more than what differs.
    digest, quote = before["digest"] == after["digest"], before["quote"] == after["quote"]
    if digest and quote:
        return _words("newsletter same digest", **fields)  # only when it starts differs
    if before["tick"] == after["tick"]:
        said = (
            "still other quote"
            if digest
            else "still other digest same quote"
            if quote
            else "still other digest"
        )
    else:
        said = "other quote" if digest else "other digest"
    return _words(f"newsletter {said}", **fields)


def change_buttons(comparison: dict, tick: int) -> str:
    """The lead's buttons after a switch: to the tick where the runs part (disabled while it is on show:
    the lead's words stay the same as the reader steps, so nothing under it moves), and one that hides
    the run before."""
    first = comparison["first"]
    here = " disabled" if tick == first else ""
    step = (
        f'<button type="button" data-action="go" data-value="{first}" data-key="compare-step"{here}>'
        f"{escape(_words('step', first=first))}</button> "
        if first is not None
        else ""
    )
    hide = (
        '<button type="button" data-action="compare" data-value="off" data-key="compare-hide">'
        f"{escape(_words('hide'))}</button>"
    )
    return f'<span class="lead-buttons">{step}{hide}</span>'
