"""The space-time diagram: one row per actor, one column per tick, messages as arrows between rows.

One renderer, pure SVG, for the served app, the static pages, every embed and the handout. Past ticks are
compact columns of marks (eight kinds, each a shape and a word in the legend, never a colour alone); the
current tick is a wide column where every event is written out, and each message (a write, a request for
acceptance, a post) is an arrow from the sender's row to the row that answered, labelled at the sender
with what the receiver checks (the owner token, the pin and the parts whose version matters, the
operation key) and answered in words at the receiver ("refuses #1, token 41 < epoch 42"). The row names
carry what the rows hold now: the report's version, each attempt's owner token, the stores' epoch.

Every word comes from the trace (the model's events and what they carried) and ``content/diagram.md``.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from html import escape

from app.content import sections, titles
from app.render.controls import value_words
from app.render.names import key_names
from app.render.records import STORE_TITLES
from model.records import PROTECTED_STORES
from model.switches import allowed_values
from model.trace import MINOR_KINDS

STORES = "stores"  # the protected stores share one row: they hold one epoch
#: The eight marks: (id, symbol, css class). A past cell shows the mark of its most telling event.
MARKS = (
    ("broken", "▲", "bad"),
    ("refused", "✖", "bad"),
    ("accepted", "★", "ok"),
    ("posted", "▼", "accent"),
    ("silent", "◌", "warn"),
    ("saved", "■", "ok"),
    ("control", "◆", "quiet"),
    ("work", "●", "accent"),
)
MARK_OF_KIND = {
    "stale-write-applied": "broken",
    **dict.fromkeys(("write-rejected", "fenced", "refused", "post-rejected", "stopped"), "refused"),
    **dict.fromkeys(("accepted", "confirmed", "done"), "accepted"),
    **dict.fromkeys(("post-applied", "post-repeat"), "posted"),
    **dict.fromkeys(
        ("call-started", "went-silent", "heartbeat-missed", "unknown", "died", "stalled"), "silent"
    ),
    "write": "saved",
    **dict.fromkeys(
        ("epoch", "admission", "dispatch", "report-corrected", "newsletter-start", "newsletter-wait"),
        "control",
    ),
}
RANK = {mark: n for n, (mark, *_) in enumerate(MARKS)}
SEND = {
    **dict.fromkeys(("write", "write-rejected", "stale-write-applied"), "send write"),
    **dict.fromkeys(("accepted", "refused"), "send acceptance"),
    **dict.fromkeys(("post-applied", "post-repeat", "post-rejected"), "send post"),
}
# Geometry, in px: a past tick's column, a line of text, a row's padding, the top margin, generous widths
# of a character (plain, bold) and of a mark before its words.
PAST, LINE, PAD, TOP, CHAR, BOLD, MARK_WIDTH = 26, 15, 1, 12, 6.8, 8.0, 17
WRAP = 32  # characters a line of the current column holds


@dataclass(frozen=True)
class Item:
    """One line in the current column: a mark, its words, and the message it is an end of (if any)."""

    lane: str
    mark: str
    words: str
    message: int | None = None  # the index of the message this line sends or answers

    @property
    def lines(self) -> list[str]:
        """The words, wrapped so the current column fits a phone's width beside the rows' names."""
        return textwrap.wrap(self.words, WRAP) or [""]


def lanes_of(trace: dict) -> list[str]:
    """The rows: the report, the controller, each attempt, the stores, the feed, the newsletter."""
    seen = {e["lane"] for f in trace["ticks"] for e in f["events"]}
    attempts = sorted((s for s in seen if s.startswith("attempt")), key=lambda s: int(s.split("#")[1]))
    return ["report", "controller", *attempts, STORES, "feed", "newsletter"]


def receiver(event: dict) -> str:
    """The row that answered a message, or the event's own row when it is no message."""
    if event["actor"] in PROTECTED_STORES:
        return STORES
    if event["actor"] == "feed":
        return "feed"
    return "controller" if event["kind"] in ("accepted", "refused") else event["lane"]


def _fields(event: dict, keys: dict[str, str]) -> dict[str, str]:
    """What a line about ``event`` may say: what it carried, in words, and who did it."""
    carried = event["carries"]
    parts, pin = carried.get("parts", ""), carried.get("pin", "none")
    record = carried.get("record", "")
    own = parts and parts.split()[0] == record  # a journal write of one section says its version itself
    return (
        dict.fromkeys(("token", "epoch", "record", "reads", "by"), "")
        | carried
        | {
            "record": _from(parts) if own else record,
            "parts": f"· {_from(parts)}" if parts and not own else "",
            "part": _from(parts),
            "pinned": "no pin" if pin == "none" else f"pin {pin}",
            "recorded": "with no version" if pin == "none" else f"for {pin}",
            "label": event["label"],
            "who": event["lane"].removeprefix("attempt "),
            "store": STORE_TITLES.get(event["actor"], event["actor"]).lower(),
            "step": event["label"].rstrip("…"),
            "reason": reason_words(event),
            "key": keys.get(carried.get("key", "none"), "no key"),
        }
    )


def reason_words(event: dict) -> str:
    """A refusal's reason in the page's words, from the code and values the model gave the event."""
    reason = event.get("reason") or {}
    template = sections("diagram").get(f"reason {reason.get('code')}", "")
    return template.format(**reason)


def words(kind: str, event: dict, keys: dict[str, str]) -> str:
    """An event's line, from content/diagram.md and what the event carried."""
    template = sections("diagram").get(kind, "{label}")
    return " ".join(template.format(**_fields(event, keys)).split())


def _from(parts: str) -> str:
    """ "s2 v1, s3 v1" as "s2 from v1, s3 from v1"."""
    return ", ".join(" from ".join(p.split(" ")) for p in parts.split(", ")) if parts else ""


def items_of(
    frame: dict, keys: dict[str, str], broken: dict[tuple[int, str], list[str]]
) -> tuple[list[Item], list[tuple[str, str]]]:
    """The current column's lines, and its messages as (sender row, receiver row) by index; an invariant
    broken at this tick is a line of its own at the row that broke it."""
    items = [Item(lane, "broken", f"breaks: {title}") for (t, lane), ts in broken.items()
             if t == frame["tick"] for title in ts]  # fmt: skip
    messages: list[tuple[str, str]] = []
    for event in frame["events"]:
        kind, to = event["kind"], receiver(event)
        if kind in MINOR_KINDS or (kind == "write" and event["actor"] == "acceptances"):
            continue  # bookkeeping; an acceptance's record is said by the verdict itself
        mark = MARK_OF_KIND.get(kind, "work")
        if to == event["lane"]:
            items.append(Item(to, mark, words(kind, event, keys)))
            continue
        n = len(messages)
        messages.append((event["lane"], to))
        items.append(Item(event["lane"], "", words(SEND[kind], event, keys), n))
        items.append(Item(to, mark, words(kind, event, keys), n))
    return items, messages


def lane_name(lane: str, frame: dict) -> tuple[str, str]:
    """A row's name, and what it holds at this tick (the report's version, a token, the epoch)."""
    if lane == "report":
        return "report", frame["report"]
    if lane == STORES:
        return "stores", f"epoch {frame['epoch']}"
    if lane.startswith("attempt"):
        return lane.removeprefix("attempt "), _token_of(lane, frame)
    return lane, ""


def _token_of(lane: str, frame: dict) -> str:
    """The owner token of the attempt whose row ``lane`` is, once it has been admitted."""
    tokens = {f"attempt #{a['attempt']}": a["token"] for a in frame["attempts"]}
    return f"token {tokens[lane]}" if lane in tokens else ""


def past_marks(trace: dict, tick: int) -> dict[tuple[int, str], tuple[str, str]]:
    """For each (tick, row) before ``tick``: the most telling mark and every event there, in words."""
    cells: dict[tuple[int, str], list[dict]] = {}
    for frame in trace["ticks"][:tick]:
        for event in frame["events"]:
            if event["kind"] not in MINOR_KINDS:
                cells.setdefault((frame["tick"], receiver(event)), []).append(event)
    return {
        where: (
            min((MARK_OF_KIND.get(e["kind"], "work") for e in events), key=RANK.__getitem__),
            "; ".join(f"{e['actor']} {e['text']}" for e in events),
        )
        for where, events in cells.items()
    }


def breaches_at(trace: dict) -> dict[tuple[int, str], list[str]]:
    """The invariants broken at each (tick, row), by title."""
    names = titles("invariants")
    found: dict[tuple[int, str], list[str]] = {}
    for inv in trace["invariants"]:
        if b := inv["breach"]:
            found.setdefault((b["tick"], b["actor"]), []).append(names.get(inv["id"], inv["id"]))
    return found


@dataclass(frozen=True)
class Layout:
    """Where everything goes at one tick, and what the run's drawing needs more than once: its keys'
    names, its breaches, and the current tick's lines and messages."""

    lanes: list[str]
    top: dict[str, float]  # each row's top edge
    height: dict[str, float]
    name_width: float
    wide: float  # the current tick's column
    gutter: float  # the arrows' strip at the left of the current column
    width: float
    bottom: float
    keys: dict[str, str]
    broken: dict[tuple[int, str], list[str]]
    items: list[Item]  # the current tick's lines
    messages: list[tuple[str, str]]  # and its messages

    def x(self, t: int, tick: int) -> float:
        """The left edge of tick ``t``'s column when ``tick`` is the current one."""
        return self.name_width + PAST * t + (self.wide - PAST if t > tick else 0)


def layout_of(trace: dict, tick: int) -> Layout:
    """Each row as tall as this tick's lines need (two at least: its name and what it holds); the columns
    as wide as the run ever needs, so stepping never moves a tick sideways. An attempt's row is there from
    its admission on."""
    lanes, keys = lanes_of(trace), key_names(trace)
    lines = dict.fromkeys(lanes, 2)
    longest, most_messages, names = 10, 0, 0
    breaches = breaches_at(trace)
    for frame in trace["ticks"]:
        items, messages = items_of(frame, keys, breaches)
        if frame["tick"] == tick:
            now = (items, messages)
        for lane in lanes:
            if frame["tick"] == tick:
                lines[lane] = max(2, sum(len(i.lines) for i in items if i.lane == lane))
            names = max(names, *map(len, lane_name(lane, frame)))
        longest = max([longest, *(len(line) for i in items for line in i.lines)])
        most_messages = max(most_messages, len(messages))
    admitted = {f"attempt #{a['attempt']}" for a in trace["ticks"][tick]["attempts"]}
    lanes = [lane for lane in lanes if not lane.startswith("attempt") or lane in admitted]
    top, y = {}, TOP
    for lane in lanes:
        top[lane] = y
        y += PAD + LINE * lines[lane]
    height = {lane: PAD + LINE * lines[lane] for lane in lanes}
    gutter = 12 + 9 * most_messages
    wide = gutter + MARK_WIDTH + CHAR * longest + 10
    name_width = BOLD * names + 18
    width = name_width + PAST * trace["end_tick"] + wide + 6
    return Layout(lanes, top, height, name_width, wide, gutter, width, y, keys, breaches, *now)


SYMBOL = {mark: (symbol, css) for mark, symbol, css in MARKS}


def diagram_svg(trace: dict, tick: int, caption: str = "", large: bool = False) -> str:
    """The diagram at ``tick``: the past compact, the current tick written out, the future empty.

    Two drawings of one layout side by side: the rows' names, which stay put, and the ticks, in a strip
    that scrolls sideways when the screen is narrower than the run (keeping the current tick in view).
    ``large`` draws it bigger (presenter mode: the stylesheet scales it with the screen)."""
    at = layout_of(trace, tick)
    frame = trace["ticks"][tick]
    label = f"Space-time diagram at t{tick}. {caption}".strip()
    height, body = at.bottom + 17, at.width - at.name_width
    names = [_svg(0, at.name_width, height, "diagram diagram-names", 'role="group" aria-label="Rows"'),
             *_rows(at, frame, trace.get("switches") or {})]  # fmt: skip
    ticks = [
        _svg(at.name_width, body, height, "diagram", f'role="img" aria-label="{escape(label)}"'),
        '<defs><marker id="diagram-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="arrow-head"/></marker></defs>',
        *_bands(at),
        f'<rect class="now-column" x="{at.x(tick, tick):.1f}" y="{TOP - 6}" width="{at.wide:.1f}" '
        f'height="{at.bottom - TOP + 6:.1f}"/>',
        *_axis(at, trace["end_tick"], tick),
        *_past(at, trace, tick),
        *_current(at, tick),
    ]
    return (
        f'<div class="diagram-rows{" large" if large else ""}">{"".join(names)}</svg>'
        f'<div class="diagram-scroll follow-now" tabindex="0" role="region" aria-label="Ticks t0 to '
        f't{trace["end_tick"]}">{"".join(ticks)}</svg></div></div>'
    )


def _svg(x: float, width: float, height: float, css: str, attributes: str) -> str:
    return (
        f'<svg class="{css}" viewBox="{x:.0f} 0 {width:.0f} {height:.0f}" width="{width:.0f}" '
        f'height="{height:.0f}" {attributes} xmlns="http://www.w3.org/2000/svg">'
    )


def _bands(at: Layout) -> list[str]:
    """Every other row shaded, so a row can be followed across the ticks."""
    return [
        f'<rect class="band" x="0" y="{at.top[lane]:.1f}" width="{at.width:.0f}" '
        f'height="{at.height[lane]:.1f}"/>'
        for n, lane in enumerate(at.lanes)
        if n % 2
    ]


#: A row's name is a switch, as a node is in RaftScope: clicking it (or Enter on it) changes the story.
ROW_SWITCH = {"report": "change", "controller": "pins", "attempt #1": "silent", STORES: "fencing",
              "feed": "post_key", "newsletter": "newsletter"}  # fmt: skip


def _rows(at: Layout, frame: dict, switches: dict[str, str]) -> list[str]:
    """The rows' names, with what each holds at this tick; a name that is a switch says which."""
    out = _bands(at)
    for lane in at.lanes:
        name, holds = lane_name(lane, frame)
        x = at.name_width - 10
        # One text of two lines, so what it says reads as "stores epoch 42" (its button's name starts so).
        lines = " ".join(
            f'<tspan class="{css}" x="{x:.1f}" y="{_line_y(at, lane, line):.1f}">{escape(words)}</tspan>'
            for css, words, line in (("lane", name, 0), ("holds", holds, 1))
            if words
        )
        texts = f'<text class="row-name" text-anchor="end">{lines}</text>'
        if lane in ROW_SWITCH:  # the whole name cell takes the click, not only the letters
            hit = (f'<rect class="hit" x="0" y="{at.top[lane]:.1f}" width="{at.name_width:.1f}" '
                   f'height="{at.height[lane]:.1f}" fill="transparent" pointer-events="all"/>')  # fmt: skip
            texts = _toggle(lane, switches, hit + texts, f"{name} {holds}".strip())
        out.append(texts)
    return out


def _toggle(lane: str, switches: dict[str, str], drawn: str, shown: str) -> str:
    """A row's name as a button for its switch: its name says what it shows (``shown``) and then, in
    words, the switch and the value a click sets."""
    setting = ROW_SWITCH[lane]
    values = allowed_values(setting)
    current = switches.get(setting, values[0])
    following = values[(values.index(current) + 1) % len(values)] if current in values else values[0]
    title = titles("switches").get(setting, setting)
    now = value_words(setting, current) if current in values else current
    said = f"{shown}: {title} is {now}; click for {value_words(setting, following)}"
    return (
        f'<g class="row-switch" role="button" tabindex="0" data-action="set" '
        f'data-value="{setting}={following}" aria-label="{escape(said)}"><title>{escape(said)}</title>'
        f"{drawn}</g>"
    )


def _axis(at: Layout, end: int, tick: int) -> list[str]:
    out = []
    for t in range(end + 1):
        x = at.x(t, tick) + (PAST / 2 if t != tick else 12)
        css = "tick now-tick" if t == tick else ("tick later" if t > tick else "tick")
        anchor = "start" if t == tick else "middle"
        out.append(
            f'<text class="{css}" x="{x:.1f}" y="{at.bottom + 13:.1f}" text-anchor="{anchor}">t{t}</text>'
        )
    return out


def _line_y(at: Layout, lane: str, line: int) -> float:
    """The baseline of a row's ``line``-th line of text."""
    return at.top[lane] + PAD / 2 + LINE * line + 12


def _past(at: Layout, trace: dict, tick: int) -> list[str]:
    """The ticks before ``tick``: a mark per cell (its events in its tooltip) and a thin line per message."""
    out = []
    for frame in trace["ticks"][:tick]:
        x = at.x(frame["tick"], tick) + PAST / 2
        pairs = {(e["lane"], receiver(e)) for e in frame["events"] if receiver(e) != e["lane"]}
        for source, target in sorted(pairs):
            if source not in at.top or target not in at.top:
                continue
            y1, y2 = sorted((_line_y(at, source, 0) - 4, _line_y(at, target, 0) - 4))
            out.append(
                f'<line class="past-message" x1="{x + 9:.1f}" x2="{x + 9:.1f}" y1="{y1:.1f}" y2="{y2:.1f}"/>'
            )
    for (t, lane), (mark, said) in past_marks(trace, tick).items():
        if lane not in at.top:
            continue
        if (t, lane) in at.broken:
            mark = "broken"
        symbol, css = SYMBOL[mark]
        x = at.x(t, tick) + PAST / 2
        out.append(
            f'<text class="mark {css}" x="{x:.1f}" y="{_line_y(at, lane, 0):.1f}" text-anchor="middle">'
            f"<title>t{t}: {escape(said)}</title>{symbol}</text>"
        )
    return out


def _current(at: Layout, tick: int) -> list[str]:
    """The current tick written out: each row's lines, and each message as an arrow between them."""
    left = at.x(tick, tick)
    out, line_of, ends = [], dict.fromkeys(at.lanes, 0), {}
    for item in at.items:
        if item.lane not in at.top:
            continue  # a row this tick does not show (a trace from elsewhere may name anything)
        y = _line_y(at, item.lane, line_of[item.lane])
        if item.message is not None:
            ends.setdefault(item.message, []).append(y - 4)
        for k, line in enumerate(item.lines):
            x = (
                left + at.gutter + (MARK_WIDTH if k and item.mark else 0)
            )  # a wrapped line starts under the words
            mark = (
                '<tspan class="mark {1}">{0}</tspan> '.format(*SYMBOL[item.mark])
                if item.mark and not k
                else ""
            )
            y = _line_y(at, item.lane, line_of[item.lane])
            line_of[item.lane] += 1
            out.append(f'<text class="item" x="{x:.1f}" y="{y:.1f}">{mark}{escape(line)}</text>')
    for n, ys in ends.items():
        if len(ys) != 2:
            continue  # one end is on a row this tick does not show
        y1, y2 = ys
        # From the sender's words, along the gutter, into the receiver's words: the arrow ends where the
        # answer is written.
        x, text_x = left + 8 + 9 * n, left + at.gutter - 3
        out.append(
            f'<path class="message" d="M{text_x:.1f},{y1:.1f} H{x:.1f} V{y2:.1f} H{text_x:.1f}" '
            'marker-end="url(#diagram-arrow)"/>'
        )
    return out


def legend_html() -> str:
    """The eight marks and what each stands for (a shape and words: never a colour alone)."""
    words = sections("diagram")
    items = "".join(
        f'<li><span class="mark {css}" aria-hidden="true">{symbol}</span> {escape(words["mark " + m])}</li>'
        for m, symbol, css in MARKS
    )
    return f'<ul class="legend" aria-label="What the diagram\'s marks mean">{items}</ul>'


#: Which event a tick's caption is about, most telling first (content/ticks.md has one sentence each).
CAPTION_ORDER = (
    "stale-write-applied", "write-rejected", "refused", "accepted", "post-repeat", "post-applied",
    "post-rejected", "died", "confirmed", "done", "newsletter-start", "restore by name", "admission",
    "unknown", "restore", "report-corrected", "woke", "call-started", "went-silent", "stalled",
    "heartbeat-missed", "fenced", "assemble", "intent", "model-call", "stopped", "newsletter-wait",
)  # fmt: skip


def tick_caption(trace: dict, tick: int) -> str:
    """One sentence on why this tick matters: an invariant broken now, else its most telling event."""
    frame = trace["ticks"][tick]
    events = sorted((e for e in frame["events"] if e["kind"] in CAPTION_ORDER), key=_telling)
    broken = [i["id"] for i in trace["invariants"] if i["breach"] and i["breach"]["tick"] == tick]
    if not events:
        return sections("ticks")["quiet"]
    top, keys = events[0], key_names(trace)
    fields = _fields(top, keys)
    for event in frame["events"]:  # what the top event did not carry, from its sender's other events
        if event["lane"] == top["lane"]:
            fields |= {k: v for k, v in _fields(event, keys).items() if v and not fields.get(k)}
    fields |= {"report": frame["report"]} | ({} if fields["epoch"] else {"epoch": str(frame["epoch"])})
    section = f"breach {broken[0]}" if broken else _section(top, frame, trace)
    return " ".join(sections("ticks")[section].format(**fields).split())


def _telling(event: dict) -> int:
    """How telling an event is for the caption (lower first): a restore by step name alone outranks the
    admission that came before it."""
    by_name = event["kind"] == "restore" and event["carries"].get("by") == "step name"
    return CAPTION_ORDER.index("restore by name" if by_name else event["kind"])


def _section(event: dict, frame: dict, trace: dict) -> str:
    if event["kind"] == "restore":
        return "restore step name" if event["carries"].get("by") == "step name" else "restore input hash"
    if event["kind"] == "admission":
        if event["label"] == "admit #1":
            return "admission first"
        return "admission" if trace["switches"].get("fencing") == "on" else "admission unfenced"
    if event["kind"] == "post-applied":
        answered = any(e["kind"] == "confirmed" and e["lane"] == event["lane"] for e in frame["events"])
        return "post-applied confirmed" if answered else "post-applied"
    if event["kind"] == "model-call":
        journaled = any(e["actor"] == "journal" and e["lane"] == event["lane"] for e in frame["events"])
        if journaled:
            return "model-call"
        unjournaled = trace["switches"].get("checkpoints") == "none"
        return "model-call unjournaled" if unjournaled else "model-call kept"
    return event["kind"]


def diagram_html(trace: dict, tick: int, legend: bool = True, large: bool = False) -> str:
    """The figure: the tick's caption (read out when it changes), the diagram in a strip that scrolls
    sideways on a narrow screen and keeps the current tick in view, and the legend."""
    caption = tick_caption(trace, tick)
    key = legend_html() if legend else ""
    return (
        f'<figure class="diagram-figure{" large" if large else ""}">'
        f'<p class="tick-caption" aria-live="polite"><strong>t{tick}.</strong> {escape(caption)}</p>'
        f"{diagram_svg(trace, tick, caption, large)}{key}</figure>"
    )


def said(trace: dict, upto: int) -> list[list[tuple[str, str]]]:
    """Each tick's events to ``upto``, as (row's name, the diagram's words): what a list beside the
    picture, the text view or a verdict of the tour reads out, with no hash in sight."""
    keys, broken = key_names(trace), breaches_at(trace)
    out = []
    for frame in trace["ticks"][: upto + 1]:
        items, _ = items_of(frame, keys, broken)
        out.append([(lane_name(item.lane, frame)[0], item.words) for item in items])
    return out


def tick_lines(trace: dict, tick: int) -> list[str]:
    """The tick's events as the diagram writes them, each after its row's name ("#1: writes s3 with token
    41")."""
    return [f"{who}: {what}" for who, what in said(trace, tick)[tick]]
