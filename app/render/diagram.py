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

import functools
import json
import math
import textwrap
from dataclasses import dataclass, field
from html import escape

from app.content import caption_html, pairs, sections, titles
from app.render.controls import KEYS_LINE, value_words
from app.render.names import key_names
from app.render.records import STORE_TITLES
from model.records import PROTECTED_STORES
from model.switches import allowed_values, article_values
from model.trace import MINOR_KINDS

STORES = "stores"  # the protected stores share one row: they hold one epoch
JOURNAL = "journal"  # a row of what the journal holds, not of what it does (its answers are the stores')
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
        (
            "call-started",
            "went-silent",
            "heartbeat-missed",
            "unknown",
            "died",
            "stalled",
            "key-forgotten",
            "controller-restarted",
            "records-lost",
        ),  # a restart is a silence of the controller's own (beyond the article)
        "silent",
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
PAST, LINE, PAD, TOP, CHAR, BOLD, SMALL, MARK_WIDTH = 26, 15, 1, 12, 6.8, 8.0, 6.3, 17
# Presenter mode (``large``) writes a row's name and what it holds on one line (its switch's value under
# them) and sets the lines closer, so a projector's screen holds the run; a row of one line is still 16
# units, 24 px at 1280: a target as large as a finger's (WCAG 2.5.8).
LARGE_LINE, LARGE_PAD = 14, 2
# Its past ticks a little narrower, so a whole run beside the badges stays one screen wide at 1920.
LARGE_PAST = 24
WRAP = 32  # characters a line of the current column holds


@dataclass(frozen=True)
class Item:
    """One line in the current column: a mark, its words, and the message it is an end of (if any)."""

    lane: str
    mark: str
    words: str
    message: int | None = None  # the index of the message this line sends or answers

    @functools.cached_property  # a run's lines are laid out at every tick (run_of keeps its items)
    def lines(self) -> list[str]:
        """The words, wrapped so the current column fits a phone's width beside the rows' names."""
        return list(_wrapped(self.words))


@functools.lru_cache(maxsize=4096)
def _wrapped(words: str) -> tuple[str, ...]:
    """``words`` in lines of at most WRAP characters: once a process, since every run says much the same
    (a switch's new run wrapped its every line anew: a sixth of what a switch cost the server)."""
    return tuple(textwrap.wrap(words, WRAP) or [""])


def lanes_of(trace: dict) -> list[str]:
    """The rows: the report, the controller, each attempt, the journal's records, the stores, the feed, the
    newsletter."""
    return ["report", "controller", *attempt_lanes(trace), JOURNAL, STORES, "feed", "newsletter"]


def attempt_lanes(trace: dict) -> dict[str, int]:
    """Each attempt's row, by the number of the attempt whose it is, in their order."""
    drawn = {e["attempt"]: e["lane"] for f in trace["ticks"] for e in f["events"] if e["attempt"] is not None}
    return {drawn[n]: n for n in sorted(drawn)}


def receiver(event: dict) -> str:
    """The row that answered a message, or the event's own row when it is no message."""
    if event["actor"] in PROTECTED_STORES:
        return STORES
    if event["actor"] == "feed":
        return "feed"
    return "controller" if event["kind"] in ("accepted", "refused") else event["lane"]


def _fields(event: dict, keys: dict[str, str]) -> dict[str, str]:
    """What a line about ``event`` may say: what it carried, in words, and who did it."""
    carried, parts = event["carries"], event["parts"]
    pin, record = carried.get("pin", "none"), carried.get("record", "")
    own = bool(parts) and parts[0]["step"] == record  # a journal write of one section says its version itself
    return (
        dict.fromkeys(("token", "epoch", "record", "reads", "by"), "")
        | carried
        | {
            "record": _from(parts) if own else record,
            # What a store saved, where its row can hold two saves in one tick (an intent and its answer,
            # sections): named briefly; elsewhere the store's name says it ("candidate store saves it").
            "record_name": record if event["actor"] in ("journal", "effects") else "it",
            "parts": f"· {_from(parts)}" if parts and not own else "",
            "part": _from(parts),
            "also": " ".join(read["step"] for read in event["also"]),
            "also_from": _from(event["also"]),
            "pinned": "no pin" if pin == "none" else f"pin {pin}",
            "recorded": "with no version" if pin == "none" else f"for {pin}",
            "label": event["label"],
            "who": who(event),
            "store": STORE_TITLES.get(event["actor"], event["actor"]).lower(),
            "step": event["step"] or "",
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
    said = sections("diagram")
    # Beyond the article (RULES.md §8.2): a call that read past its section, or a result restored that did.
    if "in_key" in event["carries"]:
        kind = f"{kind} {'declared' if event['carries']['in_key'] == 'yes' else 'undeclared'}"
    elif kind == "restore" and event["also"]:
        kind = "restore also"
    kind, reason = by_reason(said, kind, event)
    template = said.get(kind, "{label}")
    return " ".join(template.format(**_fields(event, keys) | reason).split())


def by_reason(said: dict[str, str], section: str, event: dict) -> tuple[str, dict[str, str]]:
    """Where what happened decides the words (past the article: how the controller restarted, a token
    given out twice, a key the feed forgot), the section named ``section`` and the event's reason code, if
    the file has one, with the reason's values to fill it; else ``section`` as it is."""
    reason = event.get("reason") or {}
    coded = f"{section} {reason.get('code')}"
    return (coded, dict(reason)) if reason and coded in said else (section, {})


def who(event: dict) -> str:
    """Whose step an event was, as the page names it: an attempt by its number ("#2"), else its row."""
    return event["lane"] if event["attempt"] is None else attempt_name(event["attempt"])


def attempt_name(number: int) -> str:
    return f"#{number}"


def _from(parts: list[dict]) -> str:
    """Parts as "s2 from v1, s3 from v1" (a text two versions share: "s1 from v1/v2")."""
    return ", ".join(f"{p['step']} from {'/'.join(p['versions'])}" if p["versions"] else p["step"]
                     for p in parts)  # fmt: skip


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
        if to == event["lane"] or kind not in SEND:  # a kind the model never sends (a trace from elsewhere)
            items.append(Item(to, mark, words(kind, event, keys)))
            continue
        n = len(messages)
        messages.append((event["lane"], to))
        items.append(Item(event["lane"], "", words(SEND[kind], event, keys), n))
        items.append(Item(to, mark, words(kind, event, keys), n))
    return items, messages


def lost_at(trace: dict) -> int | None:
    """The tick the run's records were lost at (beyond the article, RULES.md §8.4), if they were."""
    return next((f["tick"] for f in trace["ticks"] for e in f["events"] if e["kind"] == "records-lost"), None)


def journal_items(frame: dict, lost_at: int | None = None) -> list[Item]:
    """The journal's row at this tick: each step's latest record as the tick leaves it ("s2 · v1 · 41": the
    step, the versions whose input it was computed from, the token that wrote it; the model knows the
    versions even where a record carries no input hash, and the row's name says when they carry none), two
    to a line. Where a successor plans, one to a line, each saying whether it was reused and why not: the
    decision the journal exists for, drawn where the records are."""
    said = sections("diagram")
    written = frame["records"]["journal"]
    if not written:  # never written yet, or (beyond the article, §8.4) lost at ``lost_at``
        if lost_at is not None and lost_at <= frame["tick"]:
            return [Item(JOURNAL, "silent", said["journal lost"].format(tick=lost_at))]
        return [Item(JOURNAL, "", said["journal empty"])]
    latest = {r["step"]: n for n, r in enumerate(written)}
    # A step done again replaces the older record in what a successor would find (the name counts all).
    records = sorted((r for n, r in enumerate(written) if latest[r["step"]] == n), key=lambda r: r["step"])
    # What the successor planning now decided of each step: restored (and how), or redone (and why).
    restored = {e["step"]: e["carries"].get("by", "") for e in frame["events"] if e["kind"] == "restore"}
    redone = {r["step"]: r["why"] for e in frame["events"] if e["kind"] == "plan" for r in e["redo"]}
    planner = next((e["attempt"] for e in frame["events"] if e["kind"] in ("plan", "restore")), None)
    pin = next((a["pin"] for a in frame["attempts"] if a["attempt"] == planner), None) or ""
    lines = []
    for record in records:
        versions = record["part"]["computed_from"] if record.get("part") else []
        # Versions the record itself does not carry (no input hash: pins off) are the model's knowledge,
        # shown in brackets: a real journal could not say them.
        known = "/".join(versions) or "?"
        known = known if record.get("input_hash") else f"({known})"
        line = said["journal record"].format(step=record["step"], versions=known, token=record["token"])
        if planner is not None:
            line += " " + _reuse_words(said, restored.get(record["step"]), redone.get(record["step"]), pin)
        lines.append(line)
    if planner is None:  # two to a line where they fit: the row stays short where it only holds
        packed: list[str] = []
        for line in lines:
            if packed and ";" not in packed[-1] and len(packed[-1]) + 2 + len(line) <= WRAP:
                packed[-1] += "; " + line
            else:
                packed.append(line)
        lines = packed
    return [Item(JOURNAL, "saved", line) for line in lines]


def _reuse_words(said: dict[str, str], restored_by: str | None, redone_why: str | None, pin: str) -> str:
    """Why a planning successor reuses a step's record or redoes it, as the model decided. Only the
    section's own braces are filled: the record's words (from the trace) are never formatted a second
    time, whatever they hold."""
    if restored_by is not None:
        return said["journal restored by name" if restored_by == "step name" else "journal restored"].format(
            pin=pin
        )
    return said["journal changed" if redone_why == "other-version" else "journal redone"].format(pin=pin)


def lane_name(lane: str, frame: dict, attempts: dict[str, int]) -> tuple[str, str]:
    """A row's name, and what it holds at this tick (the report's version, a token, the epoch);
    ``attempts`` gives the attempts' rows (``attempt_lanes``)."""
    if lane == "report":
        return "report", frame["report"]
    if lane == STORES:
        return "stores", f"epoch {frame['epoch']}"
    if lane == JOURNAL:
        records = frame["records"]["journal"]
        hashed = all(r.get("input_hash") for r in records)
        holds = sections("diagram")["journal holds" if hashed else "journal holds unhashed"]
        return JOURNAL, holds.format(n=len(records), s="" if len(records) == 1 else "s") if records else ""
    if number := attempts.get(lane):
        return attempt_name(number), _token_of(number, frame)
    if lane == "feed":  # a feed that forgets keys (beyond the article) says how many it no longer has
        gone = frame["keys_forgotten"]
        said = sections("diagram")["feed forgot"].format(n=gone, s="" if gone == 1 else "s")
        return "feed", said if gone else ""
    return lane, ""


def _token_of(number: int, frame: dict) -> str:
    """The owner token of attempt ``number``, once it has been admitted."""
    tokens = {a["attempt"]: a["token"] for a in frame["attempts"]}
    return f"token {tokens[number]}" if number in tokens else ""


def past_marks(trace: dict, tick: int) -> dict[tuple[int, str], tuple[str, list[str]]]:
    """For each (tick, row) before ``tick``: the most telling mark, and every line the diagram wrote there
    when that tick was the current one (its own words: no hash, keys by their letters)."""
    cells: dict[tuple[int, str], list[Item]] = {}
    for frame, (items, _) in zip(trace["ticks"][:tick], run_of(trace).events, strict=False):
        for item in items:
            cells.setdefault((frame["tick"], item.lane), []).append(item)
    return {
        where: (
            min((i.mark for i in items if i.mark), key=RANK.__getitem__, default="work"),
            [i.words for i in items],
        )
        for where, items in cells.items()
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
    attempts: dict[str, int]  # the attempts' rows, by number
    line: float = LINE  # the distance between two lines of a row
    pad: float = PAD  # a row's room beyond its lines
    past: float = PAST  # a past or future tick's column

    def x(self, t: int, tick: int) -> float:
        """The left edge of tick ``t``'s column when ``tick`` is the current one."""
        return self.name_width + self.past * t + (self.wide - self.past if t > tick else 0)


@dataclass(frozen=True)
class Run:
    """What a run's drawing needs at every tick, worked out once a run (``run_of``): its rows, keys,
    attempts and breaches, each tick's lines and messages, and the widths every tick shares."""

    trace: dict  # the run these facts are of
    lanes: list[str]
    keys: dict[str, str]
    attempts: dict[str, int]
    broken: dict[tuple[int, str], list[str]]
    events: list[tuple[list[Item], list]]  # each tick's event lines (``items_of``) and messages
    journal: list[list[Item]]  # each tick's journal lines (``journal_items``)
    most_messages: int
    names: int  # the longest row name or holding of any tick
    names_inline: int  # the longest row name and holding on one line (presenter mode's), of any tick
    holds: dict[str, bool]  # whether each row says what it holds at some tick (``_holds``)
    widest: dict[bool, int] = field(default_factory=dict)  # ``longest`` by ``large``, once asked
    captions: dict[int, str] = field(default_factory=dict)  # ``caption``, once asked

    def caption(self, tick: int) -> str:
        """The tick's sentence (``tick_caption``): a figure keeps room for every tick's."""
        if tick not in self.captions:
            self.captions[tick] = tick_caption(self.trace, tick)
        return self.captions[tick]

    def items(self, tick: int, large: bool = False) -> tuple[list[Item], list]:
        """The lines of tick's column: its events', then the journal's records."""
        items, messages = self.events[tick]
        return items + self.journal[tick], messages

    def longest(self, large: bool) -> int:
        """The longest line of any tick's column as drawn (``large``: presenter mode's)."""
        if large not in self.widest:
            ticks = range(len(self.events))
            lines = (len(line) for t in ticks for i in self.items(t, large)[0] for line in i.lines)
            self.widest[large] = max([10, *lines])
        return self.widest[large]


#: The last runs worked out, by identity (a run's dict is never changed once made): a redraw lays out
#: every tick of the run, and a switch draws two runs. Each entry holds its run's dict (``Run.trace``), so
#: while it is here no other dict can have that id.
_RUNS: dict[int, Run] = {}


def run_of(trace: dict) -> Run:
    """The run's tick-independent facts, worked out once however many ticks and parts are drawn."""
    run = _RUNS.get(id(trace))
    if run is not None:
        return run
    keys, attempts, broken, lost = key_names(trace), attempt_lanes(trace), breaches_at(trace), lost_at(trace)
    lanes = lanes_of(trace)
    events = [items_of(frame, keys, broken) for frame in trace["ticks"]]
    journal = [journal_items(frame, lost) for frame in trace["ticks"]]
    run = Run(
        trace=trace,
        lanes=lanes,
        keys=keys,
        attempts=attempts,
        broken=broken,
        events=events,
        journal=journal,
        most_messages=max(len(messages) for _, messages in events),
        names=max(len(w) for f in trace["ticks"] for lane in lanes for w in lane_name(lane, f, attempts)),
        names_inline=max(  # presenter mode's: the name and what the row holds (its switch's value follows)
            len(" ".join(w for w in lane_name(lane, f, attempts) if w))
            for f in trace["ticks"]
            for lane in lanes
        ),
        holds=_holds(trace, lanes, attempts),
    )
    if len(_RUNS) >= 16:
        _RUNS.pop(next(iter(_RUNS)))
    _RUNS[id(trace)] = run
    return run


def layout_of(trace: dict, tick: int, beside: dict | None = None, large: bool = False) -> Layout:
    """Each row as tall as this tick's lines need (two at least: its name and what it holds; three for a
    row that is a switch, which says its value); the columns as wide as the run ever needs, so stepping
    never moves a tick sideways. An attempt's row is there from its admission on. With ``beside`` (the
    run a reader is comparing with), each row is as tall as either run needs at this tick, so flipping a
    switch back and forth does not move the rows under the pointer. ``large`` (presenter mode, one screen
    of a projector) writes a row's name and what it holds on one line (its switch's value under them)
    and sets lines closer."""
    run = run_of(trace)
    lanes, attempts = run.lanes, run.attempts
    lines = _least_lines(run, large)

    def grow(items: list[Item]) -> None:  # each row at least as tall as these lines need
        for lane in lanes:
            lines[lane] = max(lines[lane], sum(len(i.lines) for i in items if i.lane == lane))

    now = run.items(tick, large)
    grow(now[0])
    if beside is not None and tick < len(beside["ticks"]):
        grow(run_of(beside).items(tick, large)[0])
    admitted = {a["attempt"] for a in trace["ticks"][tick]["attempts"]}
    lanes = [lane for lane in lanes if lane not in attempts or attempts[lane] in admitted]
    line, pad, past = (LARGE_LINE, LARGE_PAD, LARGE_PAST) if large else (LINE, PAD, PAST)
    height = {lane: pad + line * lines[lane] for lane in lanes}
    top, y = {}, TOP
    for lane in lanes:
        top[lane] = y
        y += height[lane]
    gutter = 10 + 9 * run.most_messages
    wide = gutter + MARK_WIDTH + CHAR * run.longest(large) + 4  # CHAR is generous: the words end short of it
    if large:  # a row's name and what it holds on one line, its switch's value under them
        name_width = math.ceil(max(BOLD * run.names_inline, SMALL * max(map(len, row_switch_lines())))) + 18
    else:
        name_width = math.ceil(max(BOLD * run.names, SMALL * max(map(len, row_switch_lines())))) + 18
    width = name_width + past * trace["end_tick"] + wide + 6
    keys, broken = run.keys, run.broken
    return Layout(
        lanes, top, height, name_width, wide, gutter, width, y, keys, broken, *now, attempts, line, pad, past
    )


def _holds(trace: dict, lanes: list[str], attempts: dict[str, int]) -> dict[str, bool]:
    """Whether each row says what it holds at some tick: the feed, the newsletter and the controller hold
    nothing, unless the feed says at some tick what it forgot (beyond the article)."""
    empty = ("feed", "newsletter", "controller")
    return {lane: lane not in empty or any(lane_name(lane, f, attempts)[1] for f in trace["ticks"])
            for lane in lanes}  # fmt: skip


def _least_lines(run: Run, large: bool) -> dict[str, int]:
    """The lines each row has at least: its name and what it holds, and a row switch's value as a third
    line under what the row holds (the report's version, a token, the epoch, the journal's count), or as
    the second where it holds nothing; presenter mode (``large``) has its name and what it holds on one
    line, and a switch's value on a second."""
    if large:
        return {lane: 2 if lane in ROW_SWITCH else 1 for lane in run.lanes}
    return {lane: 3 if lane in ROW_SWITCH and run.holds[lane] else 2 for lane in run.lanes}


SYMBOL = {mark: (symbol, css) for mark, symbol, css in MARKS}


def diagram_svg(
    trace: dict,
    tick: int,
    caption: str = "",
    large: bool = False,
    *,
    beside: dict | None = None,
    parts_at: int | None = None,
    toggles: bool = True,
    ids: str = "diagram",
    row_switches: bool = True,
) -> str:
    """The diagram at ``tick``: the past compact, the current tick written out, the future empty.

    Two drawings of one layout side by side: the rows' names, which stay put, and the ticks, in a strip
    that scrolls sideways when the screen is narrower than the run (keeping the current tick in view).
    ``large`` draws it bigger (presenter mode: the stylesheet scales it with the screen). When a reader
    compares two runs, ``beside`` is the other run (the rows are as tall as either needs), ``parts_at``
    the tick where they part (a dashed line), and the other run's own drawing has no ``toggles`` and its
    own ``ids``. ``row_switches``: the rows' names are switches (a class's phone only follows)."""
    at = layout_of(trace, tick, beside, large)
    frame = trace["ticks"][tick]
    label = f"Space-time diagram at t{tick}. {caption}".strip()
    height, body = at.bottom + 17, at.width - at.name_width
    switches = (trace.get("switches") or {}) if toggles and row_switches else None
    names = [_svg(0, at.name_width, height, "diagram diagram-names", 'role="group" aria-label="Rows"'),
             *_rows(at, frame, switches, large)]  # fmt: skip
    ticks = [
        _svg(at.name_width, body, height, "diagram", f'role="img" aria-label="{escape(label)}"'),
        f'<defs><marker id="{ids}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="arrow-head"/></marker></defs>',
        *_bands(at),
        f'<rect class="now-column" x="{at.x(tick, tick):.1f}" y="{TOP - 6}" width="{at.wide:.1f}" '
        f'height="{at.bottom - TOP + 6:.1f}"/>',
        *_axis(at, trace["end_tick"], tick, parts_at),
        *_past(at, trace, tick),
        *(_ghost(at, trace, beside, tick) if beside is not None and toggles else []),
        *_current(at, tick, ids),
    ]
    return (
        f'<div class="diagram-rows diagram-wide{" large" if large else ""}">{"".join(names)}</svg>'
        f'<div class="diagram-scroll follow-now" data-column="{at.past}" tabindex="0" role="region" '
        'aria-label="Ticks t0 to '
        f't{trace["end_tick"]}{"" if toggles else ", the run before your change"}">{"".join(ticks)}</svg>'
        "</div></div>"
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


#: A row's name is a switch, as a node is in RaftScope: clicking it (or Enter on it) flips the setting a
#: reader would guess from the row (content/diagram.md says why each, and why the controller has none).
ROW_SWITCH = {"report": "change", "controller": "pins", "attempt #1": "silent", JOURNAL: "checkpoints",
              STORES: "fencing", "feed": "post_key", "newsletter": "newsletter"}  # fmt: skip


def row_switch_words(setting: str) -> dict[str, str]:
    """A row switch's values as its row says them (short: the names' column is narrow on a phone)."""
    return pairs("diagram", f"row {setting}")


def row_switch_lines() -> list[str]:
    """Every third line a row switch can show, so the names' column is as wide whatever the values."""
    return [f"⇄ {w}" for setting in ROW_SWITCH.values() for w in row_switch_words(setting).values()]


def _rows(
    at: Layout, frame: dict, switches: dict[str, str] | None, large: bool = False, key: str = "row"
) -> list[str]:
    """The rows' names, with what each holds at this tick; a name that is a switch (unless ``switches``
    is None: a drawing of another run) says which, and its value, on a third line (on the second when
    ``large``: presenter mode writes the name and what the row holds on one)."""
    out = _bands(at)
    for lane in at.lanes:
        name, holds = lane_name(lane, frame, at.attempts)
        setting = ROW_SWITCH.get(lane) if switches is not None else None
        value = ""
        if setting:
            current = switches.get(setting, allowed_values(setting)[0])
            value = f"⇄ {row_switch_words(setting).get(current, current)}"
        x = at.name_width - 10
        # One text of several lines, so what it says reads as "stores epoch 42" (its button's name starts so).
        # The switch's value takes the second line where the row holds nothing (the feed, the newsletter);
        # presenter mode's first line is the name and what the row holds, the two ending at x.
        shown = (
            (("lane", name, 0), ("holds", holds, 0), ("row-value", value, 1))
            if large
            else (("lane", name, 0), ("holds", holds, 1), ("row-value", value, 2 if holds else 1))
        )
        placed: set[int] = set()
        spans = []
        for css, words, line in shown:
            if not words:
                continue
            where = "" if line in placed else f' x="{x:.1f}" y="{_line_y(at, lane, line):.1f}"'
            placed.add(line)
            spans.append(f'<tspan class="{css}"{where}>{escape(words)}</tspan>')
        lines = " ".join(spans)
        texts = f'<text class="row-name" text-anchor="end">{lines}</text>'
        if setting:  # the whole name cell takes the click, not only the letters
            hit = (f'<rect class="hit" x="0" y="{at.top[lane]:.1f}" width="{at.name_width:.1f}" '
                   f'height="{at.height[lane]:.1f}" fill="transparent" pointer-events="all"/>')  # fmt: skip
            # Its name starts with the words it shows (⇄ aside), as a button's name should.
            shown_name = " ".join(w for w in (name, holds, value[2:]) if w)
            texts = _toggle(lane, switches, hit + texts, shown_name, key)
        out.append(texts)
    return out


def row_switch_next(setting: str, switches: dict[str, str]) -> str:
    """The value a click on a row's name sets: the article's next (one beyond the article is the switches'
    panel's: the click goes back to the article's first)."""
    values = article_values(setting)
    current = switches.get(setting, values[0])
    return values[(values.index(current) + 1) % len(values)] if current in values else values[0]


def _toggle(lane: str, switches: dict[str, str], drawn: str, shown: str, key: str = "row") -> str:
    """A row's name as a button for its switch: its name says what the row shows (``shown``), then the
    switch and its value in words, and what a click sets. ``key`` names the drawing it is in (the narrow
    screen's has its own, so the page finds the one on show)."""
    setting = ROW_SWITCH[lane]
    current = switches.get(setting, article_values(setting)[0])
    following = row_switch_next(setting, switches)
    title = titles("switches").get(setting, setting)
    now, then = (value_words(setting, v) for v in (current, following))
    said = f"{shown}: {title} is {now}; click to switch to {then}"
    return (
        f'<g class="row-switch" role="button" tabindex="0" data-action="set" data-key="{key}-{lane}" '
        f'data-value="{setting}={following}" aria-label="{escape(said)}"><title>{escape(said)}</title>'
        f"{drawn}</g>"
    )


def _axis(at: Layout, end: int, tick: int, parts_at: int | None = None) -> list[str]:
    """The ticks' names under the columns; where two runs part, a dashed line down that column and its
    name marked ("t8 ≠"), so the place is not told by colour alone."""
    out = []
    for t in range(end + 1):
        x = at.x(t, tick) + (at.past / 2 if t != tick else 12)
        css = "tick now-tick" if t == tick else ("tick later" if t > tick else "tick")
        anchor = "start" if t == tick else "middle"
        name = f"t{t}"
        if t == parts_at:
            css += " parts"
            name += " ≠" if t == tick else "≠"
            left = at.x(t, tick) - 4  # clear of the current column's border when the runs part now
            out.append(
                f'<line class="parts-line" x1="{left:.1f}" x2="{left:.1f}" y1="{TOP - 8}" '
                f'y2="{at.bottom:.1f}"/>'
            )
        out.append(
            f'<text class="{css}" x="{x:.1f}" y="{at.bottom + 13:.1f}" text-anchor="{anchor}">{name}</text>'
        )
    return out


def _line_y(at: Layout, lane: str, line: int) -> float:
    """The baseline of a row's ``line``-th line of text."""
    return at.top[lane] + at.pad / 2 + at.line * line + 12


def _past(at: Layout, trace: dict, tick: int) -> list[str]:
    """The ticks before ``tick``: a mark per cell (its events in its tooltip) and a thin line per message."""
    out = []
    for frame in trace["ticks"][:tick]:
        x = at.x(frame["tick"], tick) + at.past / 2
        pairs = {(e["lane"], receiver(e)) for e in frame["events"] if receiver(e) != e["lane"]}
        for source, target in sorted(pairs):
            if source not in at.top or target not in at.top:
                continue
            y1, y2 = sorted((_line_y(at, source, 0) - 4, _line_y(at, target, 0) - 4))
            out.append(
                f'<line class="past-message" x1="{x + 9:.1f}" x2="{x + 9:.1f}" y1="{y1:.1f}" y2="{y2:.1f}"/>'
            )
    for (t, lane), (mark, lines) in past_marks(trace, tick).items():
        if lane not in at.top:
            continue
        symbol, css = SYMBOL[mark]
        x, y = at.x(t, tick) + at.past / 2, _line_y(at, lane, 0)
        said = f"t{t}, {lane_name(lane, trace['ticks'][t], at.attempts)[0]}: {'; '.join(lines)}"
        # A cell where several things happened says how many beside its mark (the tooltip lists them).
        more = f'<tspan class="count" dx="1" dy="-5">{len(lines)}</tspan>' if len(lines) > 1 else ""
        out.append(
            f'<text class="mark {css}" x="{x:.1f}" y="{y:.1f}" text-anchor="middle">'
            f"<title>{escape(said)}</title>{symbol}{more}</text>"
        )
    return out


def _ghost(at: Layout, trace: dict, before: dict, tick: int) -> list[str]:
    """The run before the reader's switch, as a faint layer: each cell up to ``tick`` where the two runs
    differ is outlined with a dashed line, and a past one shows, under the mark of now, the faint mark
    the run before had there (its words in the tooltip: "before: ..."), so was and now are read in one
    place rather than in two drawings."""
    # Each cell's mark and words up to and with the tick, as the past columns draw them.
    now, was = past_marks(trace, tick + 1), past_marks(before, min(tick, before["end_tick"]) + 1)
    out = []
    for t, lane in sorted(
        set(now) | set(was), key=lambda cell: (cell[0], at.lanes.index(cell[1]) if cell[1] in at.lanes else 0)
    ):
        if (
            lane not in at.top
            or t > tick
            or now.get((t, lane), ("", []))[1] == was.get((t, lane), ("", []))[1]
        ):
            continue
        x, width = at.x(t, tick), (at.wide if t == tick else at.past)
        said = "; ".join(was.get((t, lane), ("", []))[1]) or "nothing"
        out.append(
            f'<rect class="changed-cell" x="{x + 1:.1f}" y="{at.top[lane] + 1:.1f}" width="{width - 2:.1f}" '
            f'height="{at.height[lane] - 2:.1f}"><title>{escape(f"t{t}, before your change: {said}")}'
            "</title></rect>"
        )
        if t < tick and (t, lane) in was:
            symbol, css = SYMBOL[was[(t, lane)][0]]
            out.append(
                f'<text class="mark ghost {css}" x="{x + at.past / 2:.1f}" y="{_line_y(at, lane, 1):.1f}" '
                f'text-anchor="middle" aria-hidden="true">{symbol}</text>'
            )
    return out


def _current(at: Layout, tick: int, ids: str = "diagram") -> list[str]:
    """The current tick written out: each row's lines, and each message as an arrow between them, along
    which a dot travels from the sender to the receiver as the tick is drawn (not under reduced motion:
    the stylesheet hides it)."""
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
        route = f"M{text_x:.1f},{y1:.1f} H{x:.1f} V{y2:.1f} H{text_x:.1f}"
        out.append(f'<path class="message" d="{route}" marker-end="url(#{ids}-arrow)"/>')
        out.append(
            f'<circle class="travel" r="3.5" cx="0" cy="0" aria-hidden="true"><animateMotion dur="0.8s" '
            f'fill="freeze" path="{route}"/><animate attributeName="opacity" from="1" to="0" begin="0.8s" '
            'dur="0.4s" fill="freeze"/></circle>'
        )
    return out


def legend_html(brief: bool = False) -> str:
    """The eight marks and what each stands for (a shape and words: never a colour alone), and how to
    read the row switches and the journal's row (``brief``: only that row names are switches and what the
    small numbers count, for a compact layout)."""
    words = sections("diagram")
    items = "".join(
        f'<li><span class="mark {css}" aria-hidden="true">{symbol}</span> {escape(words["mark " + m])}</li>'
        for m, symbol, css in MARKS
    )
    said = " ".join(words["mark switch brief" if brief else "mark switch"].split())
    switches = f'<p class="legend-note">{escape(said)}</p>'
    return f'<ul class="legend" aria-label="What the diagram\'s marks mean">{items}</ul>{switches}'


def how_to_read_html() -> str:
    """The diagram's key in words, its marks and the player's keys: one click under the diagram."""
    return (
        '<details class="how-to-read" data-key="how-to-read"><summary>How to read the diagram</summary>'
        f"{caption_html('timeline')}{legend_html()}{KEYS_LINE}</details>"
    )


#: Which event a tick's caption is about, most telling first (content/ticks.md has one sentence each).
CAPTION_ORDER = (
    "stale-write-applied", "write-rejected", "refused", "accepted", "post-repeat", "post-applied",
    "post-rejected", "controller-restarted", "records-lost", "died", "key-forgotten", "confirmed", "done",
    "newsletter-start", "restore by name", "admission", "unknown", "restore", "report-corrected", "woke",
    "call-started", "went-silent", "stalled", "heartbeat-missed", "fenced", "assemble", "intent",
    "model-call", "stopped", "newsletter-wait",
)  # fmt: skip


def tick_caption(trace: dict, tick: int) -> str:
    """Why this tick matters: an invariant broken now, else its most telling event; then, in a short
    sentence each, any other key moment of the tick the first sentence does not name (a death in the tick
    a post is applied, a correction in the tick a successor is admitted)."""
    frame = trace["ticks"][tick]
    events = sorted((e for e in frame["events"] if e["kind"] in CAPTION_ORDER), key=_telling)
    broken = [i["id"] for i in trace["invariants"] if i["breach"] and i["breach"]["tick"] == tick]
    if not events:
        return sections("ticks")["quiet"]
    top, keys = events[0], key_names(trace)
    if broken:  # the sentence is about the event that broke it (an acceptance, not a stale write beside it)
        top = next((e for e in events if e["kind"] in COVERS.get(f"breach {broken[0]}", ())), top)
    fields = _fields(top, keys)
    for event in frame["events"]:  # what the top event did not carry, from its sender's other events
        if event["lane"] == top["lane"]:
            fields |= {k: v for k, v in _fields(event, keys).items() if v and not fields.get(k)}
    fields |= {"report": frame["report"]} | ({} if fields["epoch"] else {"epoch": str(frame["epoch"])})
    context = _context(frame)
    fields |= context
    section = f"breach {broken[0]}" if broken else _section(top, frame, trace)
    newsletter = frame["newsletter"]
    accepted_at = newsletter["ever_accepted_at"]
    if section == "breach dependant-misled" and accepted_at is not None and accepted_at < tick:
        section += " accepted"  # accepted before it started, and still not a build of the report as it is now
        if newsletter["accepted_at"] is None:
            section += " lost"  # beyond the article (§8.4): the log has lost that acceptance since
    section, reason = by_reason(sections("ticks"), section, top)
    said = [sections("ticks")[section].format(**fields | reason)]
    named = {top["kind"], *COVERS.get(section, ())}
    for event in frame["events"]:
        kind = event["kind"]
        if kind in MOMENT_KINDS and kind not in named:
            named.add(kind)
            said.append(sections("ticks")[f"also {kind}"].format(**_fields(event, keys) | context))
    return " ".join(" ".join(said).split())


#: The key moments a tick's first sentence already names, by its section (besides the top event's own).
COVERS = {
    "write-rejected": ("fenced",),
    "breach stale-write": ("stale-write-applied",),
    "breach stale-write token-reissued": ("stale-write-applied",),
    "breach superseded-accepted": ("accepted",),
    "breach double-acceptance": ("accepted",),
    "breach dependant-misled": ("newsletter-start",),
    "post-applied died": ("died",),
    "post-applied confirmed": ("confirmed",),
    "admission unknown": ("unknown",),
    "admission unknown unfenced": ("unknown",),
    "admission finish": ("unknown",),
    "admission finish unpinned": ("unknown",),
    "admission finish unsent": ("unknown",),
    "admission finish unsent unpinned": ("unknown",),
    "admission finish answered": ("unknown",),
}


def _context(frame: dict) -> dict[str, str]:
    """What a caption may say beyond its event: who was suspected, what a successor restored, and what
    the digest the newsletter took was accepted for."""
    suspect = next((attempt_name(e["about"]) for e in frame["events"] if e["kind"] == "unknown"), "")
    restored = [_from(e["parts"]) for e in frame["events"] if e["kind"] == "restore"]
    newsletter = frame["newsletter"]
    accepted_at, ever_at = newsletter["accepted_at"], newsletter["ever_accepted_at"]
    return {
        "suspect": suspect,
        "restored": ", ".join(restored) or "nothing",
        "accepted_for": newsletter["accepted_for"] or "",
        "accepted_at": "" if accepted_at is None else str(accepted_at),
        # What the run did, where the acceptance log has lost it since (beyond the article, §8.4).
        "ever_accepted_at": "" if ever_at is None else str(ever_at),
        "quote": newsletter["quote"] or "",
        "report_figure": frame["report_figure"] or "",
    }


def _telling(event: dict) -> tuple[int, int]:
    """How telling an event is for the caption (lower first): a restore by step name alone outranks the
    admission that came before it, and of two such restores the one of a part from an older version (the
    stale one) comes first."""
    by_name = event["kind"] == "restore" and event["carries"].get("by") == "step name"
    stale = by_name and any(p["versions"] for p in event["parts"])  # a part whose version matters
    # Beyond the article: a result restored by a key that does not name all it read is as telling.
    unsound = event["kind"] == "restore" and bool(event["also"])
    return CAPTION_ORDER.index("restore by name" if by_name or unsound else event["kind"]), 0 if stale else 1


def _section(event: dict, frame: dict, trace: dict) -> str:
    kinds = {e["kind"] for e in frame["events"]}
    if event["kind"] == "restore":
        if event["carries"].get("by") == "step name":
            return "restore step name"
        # Beyond the article: restored by a key that does not name everything the result read; harmless
        # only while the text it also read is still the report's.
        if not event["also"]:
            return "restore input hash"
        # Harmless while the text it also read is the report's as it is now.
        current = all(frame["report"] in read["versions"] for read in event["also"])
        return "restore input hash also" + (" current" if current else "")
    if event["kind"] == "admission":
        if event["about"] == 1:
            return "admission first"
        if event["carries"].get("purpose") == "finish-effect" and "unknown" in kinds:
            # What the model says the successor finishes: a post whose intent awaits its answer, one never
            # sent, or one already answered; and whether it carries the accepted digest's pin.
            effect = event["carries"]["effect"]
            if effect == "answered":
                return "admission finish answered"
            unsent = " unsent" if effect == "none" else ""
            return f"admission finish{unsent}" + (" unpinned" if event["carries"]["pin"] == "none" else "")
        fenced = trace["switches"].get("fencing") == "on"
        if "unknown" in kinds:
            return "admission unknown" if fenced else "admission unknown unfenced"
        return "admission" if fenced else "admission unfenced"
    if event["kind"] == "records-lost" and (event.get("reason") or {}).get("code") == "journal":
        return "records-lost" + (" journal accepted" if frame["records"]["acceptances"] else "")
    if event["kind"] == "post-applied":
        answered = any(e["kind"] == "confirmed" and e["lane"] == event["lane"] for e in frame["events"])
        died = any(e["kind"] == "died" and e["lane"] == event["lane"] for e in frame["events"])
        return "post-applied confirmed" if answered else "post-applied died" if died else "post-applied"
    if event["kind"] == "woke":
        replaced = any(a["attempt"] > event["attempt"] for a in frame["attempts"])
        return "woke" if replaced else "woke alone"
    if event["kind"] == "newsletter-start" and frame["newsletter"]["digest"]:
        current = frame["newsletter"]["current"]
        if current and frame["newsletter"]["quote"] != frame["report_figure"]:
            return "newsletter-start misquoted"  # beyond the article (§8.2): accepted, and still wrong
        return "newsletter-start" if current else "newsletter-start other"
    if event["kind"] == "model-call" and "in_key" in event["carries"]:  # beyond the article: §8.2
        return "model-call declared" if event["carries"]["in_key"] == "yes" else "model-call undeclared"
    if event["kind"] == "model-call":
        journaled = any(e["actor"] == "journal" and e["lane"] == event["lane"] for e in frame["events"])
        if journaled:
            return "model-call"
        unjournaled = trace["switches"].get("checkpoints") == "none"
        return "model-call unjournaled" if unjournaled else "model-call kept"
    return event["kind"]


#: The room the tallest tick of the last runs drawn needs, by what makes a run (its switches and
#: schedule: the model is deterministic) and its length: laying out every tick is most of a redraw's cost.
_TALLEST: dict[tuple, float] = {}


def _tallest(trace: dict, large: bool) -> float:
    """The room the run's tallest tick needs, so the figure keeps its height from tick to tick."""
    made = json.dumps([trace.get("switches"), trace.get("schedule")], sort_keys=True)
    key = (made, len(trace["ticks"]), large)
    if key not in _TALLEST:
        if len(_TALLEST) >= 64:
            _TALLEST.pop(next(iter(_TALLEST)))
        _TALLEST[key] = max(layout_of(trace, t, large=large).bottom for t in range(len(trace["ticks"]))) + 17
    return _TALLEST[key]


def prepare(trace: dict, large: bool = False) -> None:
    """Work out what drawing ``trace`` at any tick needs (its facts, every tick's sentence, the room of its
    tallest tick), so that showing it later only draws: a page does this for a run a click may ask for."""
    run = run_of(trace)
    for tick in range(len(trace["ticks"])):
        run.caption(tick)
    _tallest(trace, large)


def diagram_html(
    trace: dict,
    tick: int,
    legend: bool = True,
    large: bool = False,
    *,
    before: dict | None = None,
    parts_at: int | None = None,
    brief_legend: bool = False,
    reserve: bool = False,
    toggles: bool = True,
    later_hidden: bool = False,
) -> str:
    """The figure: the tick's caption (read out when it changes), the wide drawing (scaled to its width)
    and a narrow screen's (every tick, then the tick in full: ``app.render.narrow``), the stylesheet
    showing the one that fits; after a switch, each with the run ``before`` it as a faint layer (which
    also sets the rows' heights) and ``parts_at`` the tick where they part; and the legend
    (``brief_legend`` for a compact layout). ``reserve`` keeps the room the run's longest caption and
    tallest tick need, so stepping moves nothing under the caption. ``toggles``: the rows' names are
    switches (not on a class's phone, which follows the teacher). ``later_hidden``: a question waits, so
    the room kept for the later ticks' sentences holds no word of them."""
    from app.render.narrow import narrow_html  # it draws with this module's parts

    caption = run_of(trace).caption(tick)
    key = legend_html(brief_legend) if legend else ""
    drawing = diagram_svg(trace, tick, caption, large, beside=before, parts_at=parts_at, row_switches=toggles)
    switches = (trace.get("switches") or {}) if toggles else None
    drawing += narrow_html(trace, tick, switches, before, parts_at)
    said = f'<p class="tick-caption" aria-live="polite"><strong>t{tick}.</strong> {escape(caption)}</p>'
    if reserve:
        said, drawing = _reserved(trace, tick, said, drawing, large, later_hidden, before)
    # The body: on a narrow screen its parts are set in another order (every tick, the sentence, the
    # tick in full: diagrams.css), which the figure, the container whose width decides, cannot do itself.
    figure = f'<figure class="diagram-figure{" large" if large else ""}">'
    return f'{figure}<div class="diagram-body">{said}{drawing}</div>{key}</figure>'


def _reserved(
    trace: dict,
    tick: int,
    said: str,
    drawing: str,
    large: bool,
    later_hidden: bool,
    before: dict | None = None,
) -> tuple:
    """The caption and the drawing each in a room as large as the run ever needs: every caption of the run
    in one grid cell, the others invisible (``later_hidden``: the later ones each letter an x: the same
    room, nothing to read); the drawing's room in the variables the stylesheet sizes it by. After a
    switch, the run ``before`` it keeps its longest caption's room too, so flipping the switch back and
    forth moves nothing under the caption (on a phone the tick in full is drawn under it)."""
    from app.render.narrow import overview_height, tallest_narrow

    run = run_of(trace)

    def kept(of, t: int) -> str:
        return _masked(of.caption(t)) if later_hidden and t > tick else escape(of.caption(t))

    reserved = [f"<strong>t{t}.</strong> {kept(run, t)}" for t in range(len(trace["ticks"])) if t != tick]
    if before is not None:  # its own words: another run's sentences wrap as its own did when shown
        other = run_of(before)
        reserved += [f"<strong>t{t}.</strong> {kept(other, t)}" for t in range(len(before["ticks"]))]
    others = "".join(f'<p class="caption-reserved" aria-hidden="true">{words}</p>' for words in reserved)
    tallest, narrow = _tallest(trace, large), tallest_narrow(trace)
    natural = layout_of(trace, 0, large=large).width
    # --tallest: an article's frame keeps one room for every run and draws a taller run smaller;
    # --natural: the wide drawing's width, which it is scaled down from to fit (diagrams.css);
    # --narrow, --detail: a narrow screen's room (every tick, then the tick in full), and the latter's.
    room = f"--tallest: {tallest:.0f}; --natural: {natural:.0f}; --narrow: {narrow:.0f}; "
    room += f"--detail: {narrow - overview_height(trace):.0f}"
    return (
        f'<div class="caption-stack">{said}{others}</div>',
        f'<div class="diagram-room" style="{room}">{drawing}</div>',
    )


def _masked(words: str) -> str:
    """``words`` with every letter and digit an x: as long, wrapping alike, saying nothing."""
    return "".join("x" if c.isalnum() else c for c in words)


#: The events that make a tick a key moment, in the order a tick's moments are named.
MOMENT_KINDS = ("stale-write-applied", "controller-restarted", "records-lost", "call-started", "went-silent",
                "stalled", "report-corrected", "unknown", "fenced", "accepted", "died", "key-forgotten",
                "newsletter-start", "confirmed")  # fmt: skip


def key_moments(trace: dict, parts_at: int | None = None) -> list[tuple[int, str, str]]:
    """The run's key moments as (tick, mark, words): a worker going silent, UNKNOWN, fenced, a stale
    write, an acceptance, a death, the dependant starting, the confirmation, any invariant broken, and
    (``parts_at``) where the run parts from the one before a switch. One per tick, its events named
    together ("#1 fenced, breaks: No stale write")."""
    said, broken, keys = sections("diagram"), breaches_at(trace), key_names(trace)
    moments, seen = [], set()
    for frame in trace["ticks"]:
        t = frame["tick"]
        named: dict[str, str] = {}  # what the tick's moments are called, and each one's mark
        for e in sorted(
            (e for e in frame["events"] if e["kind"] in MOMENT_KINDS),
            key=lambda e: MOMENT_KINDS.index(e["kind"]),
        ):
            named.setdefault(said[f"moment {e['kind']}"].format(**_fields(e, keys)), MARK_OF_KIND[e["kind"]])
        # The first of each moment, once (a breach every time): the mark is that of what is named.
        named = {name: mark for name, mark in named.items() if name not in seen}
        seen.update(named)
        for (at, _), titles_broken in broken.items():
            named.update({f"breaks: {title}": "broken" for title in titles_broken if at == t})
        if t == parts_at:
            named = {said["moment parts"]: "control", **named}
        if named:
            moments.append((t, min(named.values(), key=RANK.__getitem__), ", ".join(named)))
    return moments


def said(trace: dict, upto: int) -> list[list[tuple[str, str]]]:
    """Each tick's events to ``upto``, as (row's name, the diagram's words): what a list beside the
    picture, the text view or a verdict of the tour reads out, with no hash in sight."""
    run = run_of(trace)
    out = []
    for frame, (items, _) in zip(trace["ticks"][: upto + 1], run.events, strict=False):
        out.append([(lane_name(item.lane, frame, run.attempts)[0], item.words) for item in items])
    return out


def tick_lines(trace: dict, tick: int) -> list[str]:
    """The tick's events as the diagram writes them, each after its row's name ("#1: writes s3 with token
    41")."""
    return [f"{who}: {what}" for who, what in said(trace, tick)[tick]]
