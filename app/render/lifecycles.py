"""The three lifecycles, each drawn from the model's declared table, with every instance's state."""

from __future__ import annotations

from html import escape

# Where each state sits in its machine's drawing: (column, row). Presentation only.
LAYOUT = {
    "attempt": {
        "admitted": (0, 1),
        "running": (1, 1),
        "UNKNOWN": (2, 0),
        "fenced": (3, 0),
        "refused": (3, 1),
        "done": (3, 2),
    },
    "artifact": {"candidate": (0, 0), "accepted": (1, 0), "refused": (1, 1)},
    "effect": {"intent recorded": (0, 0), "unconfirmed": (1, 0), "confirmed": (2, 0)},
}
BOX_W, BOX_H, COL, ROW, PAD = 112, 30, 190, 66, 12
TOP = 34  # room above the first row for self-loop labels


def _instance_label(machine: str, instance: str) -> str:
    if machine == "artifact":
        digest, _, by = instance.partition(" by ")
        return f"{digest} ({by})"
    if machine == "effect":
        return f"post of {instance}"
    return instance


def _layout(machine: dict) -> dict[str, tuple[int, int]]:
    layout = dict(LAYOUT.get(machine["name"], {}))
    for i, state in enumerate(s for s in machine["states"] if s not in layout):
        layout[state] = (i, 3)  # a state with no place of its own goes on a row below
    return layout


def _description(machine: dict, frame: dict) -> str:
    """Every instance's state and the move it just took, in words (the picture's text alternative)."""
    name, parts = machine["name"], []
    for instance, state in frame["lifecycles"].get(name, {}).items():
        just = [m for m in frame["moves"] if m["machine"] == name and m["instance"] == instance]
        moved = "; ".join(f"just moved {m['source'] or 'in'} → {m['target']} ({m['event']})" for m in just)
        parts.append(f"{_instance_label(name, instance)}: {state}" + (f" ({moved})" if moved else ""))
    return "; ".join(parts) or "nothing in this machine yet"


def _edge_svg(t: dict, centre, name: str, just: bool) -> str:
    (x1, y1), (x2, y2) = centre(t["source"]), centre(t["target"])
    cls = "edge" + (" just" if just else "") + (" addition" if t["addition"] else "")
    label = escape(t["event"] + (" (added)" if t["addition"] else ""))
    if t["source"] == t["target"]:
        x, y = x1, y1 - BOX_H / 2
        return (
            f'<path class="{cls}" d="M{x - 20},{y} C{x - 30},{y - 26} {x + 30},{y - 26} {x + 20},{y}" '
            f'fill="none" marker-end="url(#arrow-{name})"/>'
            f'<text class="edge-label" x="{x}" y="{y - 22}" text-anchor="middle">{label}</text>'
        )
    # Trim the line to the box edges so arrowheads stay visible.
    dx, dy = x2 - x1, y2 - y1
    scale = max(abs(dx) / (BOX_W / 2 + 4), abs(dy) / (BOX_H / 2 + 4)) or 1
    sx, sy, ex, ey = x1 + dx / scale, y1 + dy / scale, x2 - dx / scale, y2 - dy / scale
    # Long edges carry their label early, short ones in the middle, so crossing labels stay apart.
    along = 0.33 if abs(dx) > COL * 1.5 else 0.5
    mx, my = sx + (ex - sx) * along, sy + (ey - sy) * along - 3
    return (
        f'<line class="{cls}" x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" '
        f'marker-end="url(#arrow-{name})"/>'
        f'<text class="edge-label" x="{mx:.1f}" y="{my:.1f}" text-anchor="middle">{label}</text>'
    )


def _state_svg(state: str, x: float, y: float, here: list[str], arrived: bool) -> str:
    cls = "state" + (" occupied" if here else "") + (" arrived" if arrived else "")
    mark = "● " if here else ""
    chips = (
        f'<text class="chips" x="{x + BOX_W / 2}" y="{y + BOX_H + 13}" '
        f'text-anchor="middle">{escape(", ".join(here))}</text>'
        if here
        else ""
    )
    return (
        f'<g class="{cls}"><rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6"/>'
        f'<text x="{x + BOX_W / 2}" y="{y + 19}" text-anchor="middle">{mark}{escape(state)}</text>{chips}</g>'
    )


def lifecycle_svg(machine: dict, frame: dict) -> str:
    """One machine drawn from its declared table, with every instance's state at this frame."""
    name, layout = machine["name"], _layout(machine)
    moves = [m for m in frame["moves"] if m["machine"] == name]
    by_state: dict[str, list[str]] = {}
    for instance, state in frame["lifecycles"].get(name, {}).items():
        by_state.setdefault(state, []).append(_instance_label(name, instance))
    width = PAD * 2 + max(c for c, _ in layout.values()) * COL + BOX_W
    height = TOP + PAD + max(r for _, r in layout.values()) * ROW + BOX_H + 26

    def centre(state):
        c, r = layout[state]
        return PAD + c * COL + BOX_W / 2, TOP + r * ROW + BOX_H / 2

    moved = {(m["source"], m["event"]) for m in moves if m["source"]}
    edges = "".join(
        _edge_svg(t, centre, name, (t["source"], t["event"]) in moved) for t in machine["transitions"]
    )
    arrived = {m["target"] for m in moves}
    states = "".join(
        _state_svg(state, PAD + c * COL, TOP + r * ROW, by_state.get(state, []), state in arrived)
        for state, (c, r) in layout.items()
    )
    return (
        f'<svg class="lifecycle" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-labelledby="lc-{name}-title lc-{name}-desc" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="lc-{name}-title">{escape(name.capitalize())} lifecycle: '
        f"{escape(machine['question'])}</title>"
        f'<desc id="lc-{name}-desc">{escape(_description(machine, frame))}</desc>'
        f'<defs><marker id="arrow-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" '
        'markerHeight="8" '
        'markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="currentColor"/>'
        f"</marker></defs>{edges}{states}</svg>"
    )
