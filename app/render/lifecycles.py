"""The three lifecycles, as Graphviz laid them out from the model's tables, with every instance's state."""

from __future__ import annotations

import re
from functools import cache
from html import escape

from app.render.lifecycle_layout import TEMPLATES, file_name, slug
from app.render.names import artifact_names, hash_names
from model.lifecycles import MACHINE_BY_NAME


def _instance_label(machine: str, instance: str, names: dict[str, str]) -> str:
    """An instance as a reader knows it: "digest 1 (#2)", "post of digest 1", "#2" (``names`` holds the
    run's hashes and its artifacts by name)."""
    if machine == "artifact":
        return names.get(instance, instance)
    if machine == "effect":
        return f"post of {names.get(instance, instance)}"
    return instance


@cache
def _template(name: str, beyond: bool) -> str:
    return (TEMPLATES / file_name(MACHINE_BY_NAME[name], beyond)).read_text(encoding="utf-8")


def _beyond(machine: dict, trace: dict | None = None) -> bool:
    """Whether to draw the transitions beyond the article's: the trace lists them and (given the trace)
    the run takes one. The wider drawing must shrink its type to fit a column, so a run that only could
    take one (every run outside the 864 could) gets the article's drawing."""
    article = MACHINE_BY_NAME[machine["name"]].to_dict(beyond=False)["transitions"]
    if len(machine["transitions"]) <= len(article):
        return False
    known = {(t["source"], t["event"]) for t in article}
    return trace is None or any(
        m["machine"] == machine["name"] and m["source"] and (m["source"], m["event"]) not in known
        for frame in trace["ticks"]
        for m in frame["moves"]
    )


def _description(machine: dict, frame: dict, names: dict[str, str]) -> str:
    """Every instance's state and the move it just took, in words (the picture's text alternative)."""
    name, parts = machine["name"], []
    for instance, state in frame["lifecycles"].get(name, {}).items():
        just = [m for m in frame["moves"] if m["machine"] == name and m["instance"] == instance]
        moved = "; ".join(f"just moved {m['source'] or 'in'} → {m['target']} ({m['event']})" for m in just)
        parts.append(f"{_instance_label(name, instance, names)}: {state}" + (f" ({moved})" if moved else ""))
    return "; ".join(parts) or "nothing in this machine yet"


def _mark(svg: str, element_id: str, css: str) -> str:
    """Add ``css`` to the class of the element with ``element_id`` (a state or a move of the template)."""
    return re.sub(rf'(<g id="{re.escape(element_id)}" class=")([^"]*)"', rf'\1\2 {css}"', svg, count=1)


def _mover(svg: str, element_id: str) -> str:
    """A dot that travels the move's edge once, in about 300 ms (SMIL; the CSS hides it for readers who
    ask for reduced motion)."""
    group = re.search(rf'<g id="{re.escape(element_id)}" class="[^"]*">(.*?)</g>', svg, re.S)
    path = group and re.search(r'<path [^>]*d="([^"]+)"', group.group(1))
    if not path:
        return svg
    motion = f'<animateMotion dur="0.3s" fill="freeze" path="{path.group(1)}"/>'
    dot = f'<circle class="mover" r="4">{motion}</circle>'
    return svg[: group.end()] + dot + svg[group.end() :]


def lifecycle_svg(
    machine: dict,
    frame: dict,
    animate: bool = False,
    names: dict[str, str] | None = None,
    trace: dict | None = None,
    reserve: list[dict] | None = None,
) -> str:
    """One machine as Graphviz laid it out (app/lifecycles), with this frame's states and moves marked by
    CSS classes, titled with its question, and the instances in each state listed beneath as chips that
    wrap (never cut off); ``names`` are the run's hashes by name (``app.render.names.hash_names``); the
    whole ``trace``, if given, says whether the run needs the drawing beyond the article (``_beyond``);
    ``reserve``, the run's frames, keeps the room the longest list of chips needs."""
    names = names or {}
    name = machine["name"]
    wide = _beyond(machine, trace)
    svg = _template(name, wide)
    by_state = _by_state(name, frame, names)
    for state in by_state:
        svg = _mark(svg, f"state-{slug(state)}", "occupied")
    for move in (m for m in frame["moves"] if m["machine"] == name):
        svg = _mark(svg, f"state-{slug(move['target'])}", "arrived")
        if move["source"]:
            edge = f"move-{slug(move['source'])}--{slug(move['event'])}"
            svg = _mark(svg, edge, "just")
            if animate:
                svg = _mover(svg, edge)
    label = f'role="img" aria-labelledby="lc-{name}-title lc-{name}-desc" class="lifecycle-graph"'
    svg = svg.replace("<svg ", f"<svg {label} ", 1)
    head = (
        f'<title id="lc-{name}-title">{escape(name.capitalize())} lifecycle: '
        f"{escape(machine['question'])}</title>"
        f'<desc id="lc-{name}-desc">{escape(_description(machine, frame, names))}</desc>'
    )
    svg = re.sub(r"(<svg [^>]*>)", lambda m: m.group(1) + head, svg, count=1)
    chips = _chips_html(by_state, [_by_state(name, f, names) for f in reserve or () if f is not frame])
    return (
        f'<figure class="lifecycle lifecycle-{name}{" wide" if wide else ""}">'
        f"<figcaption><strong>{escape(name.capitalize())}</strong>: "
        f"{escape(machine['question'])}</figcaption>"
        f'<div class="scroll" tabindex="0" role="region" aria-label="The {name} lifecycle">{svg}</div>'
        '<p class="scroll-hint" aria-hidden="true">← swipe sideways for the whole drawing →</p>'
        f"{chips}</figure>"
    )


def _by_state(name: str, frame: dict, names: dict[str, str]) -> dict[str, list[str]]:
    """The machine's instances at ``frame``, by the state each is in."""
    by_state: dict[str, list[str]] = {}
    for instance, state in frame["lifecycles"].get(name, {}).items():
        by_state.setdefault(state, []).append(_instance_label(name, instance, names))
    return by_state


def _chips_html(by_state: dict[str, list[str]], others: list[dict[str, list[str]]]) -> str:
    """The instances listed as chips under the drawing. With the run's ``others`` (every other tick's),
    all in one grid cell, the others invisible: the cell is as tall as the most the run ever lists, at
    whatever width the figure has, so stepping never resizes the figure."""
    chips = f'<ul class="chips" aria-hidden="true">{_chips(by_state)}</ul>'
    if not others:
        return chips
    hidden = "".join(f'<ul class="chips chips-reserved" aria-hidden="true">{_chips(o)}</ul>' for o in others)
    return f'<div class="chips-stack">{chips}{hidden}</div>'


def _chips(by_state: dict[str, list[str]]) -> str:
    return "".join(
        f'<li><span class="chip-state">{escape(state)}</span> '
        + "".join(f'<span class="chip">{escape(label)}</span>' for label in labels)
        + "</li>"
        for state, labels in by_state.items()
    )


def lifecycles_html(trace: dict, tick: int, animate: bool = False) -> str:
    """The three machines at ``tick``, side by side where the width allows."""
    frame, names = trace["ticks"][tick], hash_names(trace)
    names |= artifact_names(trace, names)
    drawn = "".join(lifecycle_svg(m, frame, animate, names, trace, trace["ticks"]) for m in trace["machines"])
    return f'<div class="machines">{drawn}</div>'
