"""Lay out the three lifecycles with Graphviz ``dot`` and keep the drawings as SVG templates.

    python -m app.render.lifecycle_layout     # after the model's tables change; commit app/lifecycles/*.svg

A real layout engine places the states and routes the edges and their labels, so nothing is hand-placed
and nothing collides. A machine with transitions beyond the article (the per-work key's rejection) gets
two drawings: ``<name>.svg``, the article's machine, and ``<name>-beyond.svg``, with the additions; a
trace's machine table says which one it needs. Each template names its states ``state-<state>`` and its edges
``move-<source>--<event>``, so ``app.render.lifecycles`` marks the current states and the move just taken
with CSS classes, and records the hash of the table it was drawn from, so a test notices a stale drawing.
The app and the static site use the same templates; neither needs Graphviz.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

from model.lifecycles import MACHINES, Machine

TEMPLATES = Path(__file__).resolve().parent.parent / "lifecycles"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def table_hash(machine: dict) -> str:
    """A short hash of a machine's declared table (as trace_dict writes it)."""
    table = {k: machine[k] for k in ("name", "initial", "states", "transitions")}
    return hashlib.sha256(json.dumps(table, sort_keys=True).encode()).hexdigest()[:16]


def file_name(machine: Machine, beyond: bool) -> str:
    return f"{machine.name}-beyond.svg" if beyond else f"{machine.name}.svg"


def drawings() -> list[tuple[Machine, bool]]:
    """Every drawing to make: each machine as the article has it, and with its additions if it has any."""
    return [(m, False) for m in MACHINES] + [
        (m, True) for m in MACHINES if any(t.beyond for t in m.transitions)
    ]


def dot_source(machine: Machine, beyond: bool = False) -> str:
    table = machine.to_dict(beyond=beyond)
    states = table["states"]
    transitions = [t for t in machine.transitions if beyond or not t.beyond]
    lines = [
        f'digraph "{machine.name}" {{',
        # A chain reads best left to right; a machine that branches, top to bottom (narrower, for phones).
        f"  graph [rankdir={'LR' if len(transitions) < len(states) else 'TB'}, "
        'nodesep=0.3, ranksep=0.45, pad=0.15, bgcolor="transparent"];',
        '  node [shape=box, style="rounded,filled", fillcolor="#fafafa", color="#999999", '
        'fontname="DejaVu Sans", fontsize=9, margin="0.18,0.05", height=0.3];',
        '  edge [fontname="DejaVu Sans", fontsize=8.5, color="#777777", fontcolor="#333333", arrowsize=0.7];',
    ]
    for state in states:
        lines.append(f'  "{state}" [id="state-{slug(state)}"];')
    for t in transitions:
        # Additions are dashed; what only the per-work key (beyond the article) reaches is dotted.
        label = t.event + (" (per-work key)" if t.beyond else " (added)" if t.addition else "")
        style = ', style="dotted"' if t.beyond else ', style="dashed"' if t.addition else ""
        move = f"move-{slug(t.source)}--{slug(t.event)}"
        lines.append(f'  "{t.source}" -> "{t.target}" [label=" {label} ", id="{move}"{style}];')
    lines.append("}")
    return "\n".join(lines)


def template(machine: Machine, beyond: bool = False) -> str:
    """The machine drawn by dot, as an SVG fragment ready to inline (no XML prolog, no comments)."""
    svg = subprocess.run(
        ["dot", "-Tsvg"], input=dot_source(machine, beyond), capture_output=True, text=True, check=True
    ).stdout
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)
    svg = svg.replace(' xmlns:xlink="http://www.w3.org/1999/xlink"', "")  # the drawing has no links
    svg = re.sub(
        r'<g id="graph0" class="graph"[^>]*>\s*<title>[^<]*</title>',
        lambda m: m.group(0).split("<title>")[0],
        svg,
    )
    svg = re.sub(r'id="([^"]*)"', lambda m: f'id="{m.group(1).replace("&#45;", "-")}"', svg)
    return svg.replace("<svg ", f'<svg data-table="{table_hash(machine.to_dict(beyond=beyond))}" ', 1)


def main() -> None:
    TEMPLATES.mkdir(exist_ok=True)
    for machine, beyond in drawings():
        path = TEMPLATES / file_name(machine, beyond)
        path.write_text(template(machine, beyond), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
