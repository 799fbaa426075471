"""The timeline's cells, one per (lane, tick), drawn by the Bokeh plot in the app and as SVG on the
static pages: both take their cells from ``cells_of`` and ``breaches_of``, so they cannot disagree."""

from __future__ import annotations

from html import escape

from app.content import titles
from app.palette import PALETTE
from model.records import PROTECTED_STORES
from model.trace import ECHO_KINDS, MINOR_KINDS

# Which marker stands for a cell, by the most telling kind of event in it (shape, not colour alone).
# (event kind, Bokeh marker, palette colour, the symbol the static SVG uses), most telling first.
MARKERS = [
    ("stale-write-applied", "triangle", "bad", "▲"),
    ("write-rejected", "x", "bad", "✖"),
    ("died", "x", "dead", "✖"),
    ("fenced", "square_x", "bad", "⊠"),
    ("accepted", "star", "ok", "★"),
    ("refused", "square_x", "warn", "⊠"),
    ("post-applied", "inverted_triangle", "accent", "▼"),
    ("post-repeat", "circle_dot", "accent", "◉"),
    ("post-rejected", "circle_x", "warn", "⊗"),
    ("confirmed", "circle_cross", "ok", "⊕"),
    ("newsletter-start", "hex", "dependant", "⬢"),
    ("newsletter-wait", "dash", "dependant", "–"),
    ("unknown", "diamond", "warn", "◆"),
    ("admission", "plus", "quiet", "✚"),
    ("restore", "square", "ok", "■"),
    ("call-started", "circle_y", "accent", "◌"),
    ("went-silent", "circle_y", "accent", "◌"),
    ("stalled", "diamond_dot", "quiet", "◈"),
    ("model-call", "circle", "accent", "●"),
    ("call-finished", "circle", "accent", "●"),
    ("assemble", "square_pin", "quiet", "◧"),
    ("intent", "triangle_pin", "quiet", "△"),
    ("report-corrected", "hex_dot", "warn", "⬡"),
]
#: What each marker means, in words, for the legend under the timeline.
MEANING = {
    "stale-write-applied": "stale write applied",
    "write-rejected": "write refused by a store",
    "died": "worker died",
    "fenced": "worker fenced",
    "accepted": "digest accepted",
    "refused": "digest refused",
    "post-applied": "post applied by the feed",
    "post-repeat": "feed's stored answer",
    "post-rejected": "post rejected by the feed",
    "confirmed": "announcement confirmed",
    "newsletter-start": "newsletter starts",
    "newsletter-wait": "newsletter waits",
    "unknown": "worker presumed lost (UNKNOWN)",
    "admission": "attempt admitted",
    "restore": "step restored",
    "call-started": "model call begun, then silence",
    "went-silent": "silent before a step",
    "stalled": "successor stalls",
    "model-call": "model call",
    "call-finished": "model call",
    "assemble": "candidate assembled",
    "intent": "intent to post recorded",
    "report-corrected": "report corrected",
}
PRIORITY = {kind: n for n, (kind, *_) in enumerate(MARKERS)}
STYLE = {kind: (marker, PALETTE[colour], symbol) for kind, marker, colour, symbol in MARKERS}
PLAIN = ("circle", PALETTE["muted"], "●")
CELL_COLUMNS = ("tick", "lane", "marker", "colour", "symbol", "label", "above", "detail")
ARROW_COLUMNS = ("tick", "source", "target", "x")  # x: the tick, nudged apart when one tick has several
RECORDS_LANE = "records"  # the protected stores, drawn as one lane: where writes land or are refused
FIXED_LANES = ("report", "controller", "feed", "newsletter")


def lanes_of(trace: dict) -> list[str]:
    """The rows: the report, the controller, each attempt in number order, the records (the protected
    stores), the feed, the newsletter."""
    seen = {e["lane"] for f in trace["ticks"] for e in f["events"]}
    attempts = sorted(
        (lane for lane in seen if lane.startswith("attempt")), key=lambda s: int(s.split("#")[1])
    )
    return ["report", "controller", *attempts, RECORDS_LANE, "feed", "newsletter"]


def place(event: dict) -> str:
    """The lane an event is drawn in: where it happened. A store's answer is at the records, the feed's
    at the feed (the trace's ``lane`` says whose step it answered, where its arrow starts)."""
    if event["actor"] in PROTECTED_STORES:
        return RECORDS_LANE
    if event["actor"] == "feed":
        return "feed"
    return event["lane"]


def arrows_of(trace: dict) -> dict[str, list]:
    """A message per tick and pair of lanes: a write from the attempt to the records, a post to the feed.
    Several at one tick are drawn side by side (``x``, in ticks), so one never runs through another."""
    columns: dict[str, list] = {k: [] for k in ARROW_COLUMNS}
    for frame in trace["ticks"]:
        pairs = list(dict.fromkeys((e["lane"], place(e)) for e in frame["events"] if place(e) != e["lane"]))
        for k, (source, target) in enumerate(pairs):
            columns["tick"].append(frame["tick"])
            columns["source"].append(source)
            columns["target"].append(target)
            columns["x"].append(frame["tick"] + 0.12 * (k - (len(pairs) - 1) / 2))
    return columns


def who(event: dict) -> str:
    """Who did it: the actor (a store answering a write is the store), in words for a list."""
    return event["actor"]


def cells_of(trace: dict) -> dict[str, list]:
    """Columns for the cells of every tick (filtered by tick later)."""
    columns: dict[str, list] = {k: [] for k in CELL_COLUMNS}
    for frame in trace["ticks"]:
        by_lane: dict[str, list] = {}
        for event in frame["events"]:
            by_lane.setdefault(place(event), []).append(event)
        for lane, events in by_lane.items():
            ranked = sorted(events, key=lambda e: PRIORITY.get(e["kind"], 99))
            marker, colour, symbol = STYLE.get(ranked[0]["kind"], PLAIN)
            # One short label per cell: the most telling event's, and how many more the cell holds (the
            # "At tN" list and the hover say them all). Labels sit above the lane on even ticks and below it
            # on odd ones, so neighbouring ticks never share a line and cannot overlap.
            quiet = MINOR_KINDS | ECHO_KINDS  # bookkeeping, and a store echoing the writer's own words
            labels = list(dict.fromkeys(e["label"] for e in ranked if e["kind"] not in quiet))
            label = labels[0] + (f" +{len(labels) - 1}" if len(labels) > 1 else "") if labels else ""
            columns["tick"].append(frame["tick"])
            columns["lane"].append(lane)
            columns["marker"].append(marker)
            columns["colour"].append(colour)
            columns["symbol"].append(symbol)
            columns["label"].append(label)
            columns["above"].append(frame["tick"] % 2 == 0)
            columns["detail"].append("<br>".join(escape(f"{who(e)}: {e['text']}") for e in events))
    return columns


def breaches_of(trace: dict) -> dict[str, list]:
    """One mark per lane and tick where invariants broke, labelled with the badges' titles."""
    names = titles("invariants")
    columns: dict[str, list] = {"tick": [], "lane": [], "label": [], "detail": []}  # and "line", at the end
    seen: dict[tuple[int, str], int] = {}
    for inv in trace["invariants"]:
        b = inv["breach"]
        if not b:
            continue
        title = names.get(inv["id"], inv["id"])
        detail = escape(f"{title} broke at t{b['tick']}: {b['detail']}")
        where = (b["tick"], b["actor"])
        if where in seen:  # two breaches at one lane and tick share one mark
            n = seen[where]
            columns["label"][n] += f"; {title}"
            columns["detail"][n] += f"<br>{detail}"
            continue
        seen[where] = len(columns["tick"])
        columns["tick"].append(b["tick"])
        columns["lane"].append(b["actor"])
        columns["label"].append(f"✖ {title}")
        columns["detail"].append(detail)
    columns["line"] = _stack(columns)
    return columns


def _stack(columns: dict[str, list]) -> list[int]:
    """A line for each breach label under its lane: the first that no earlier label of that lane (about
    7 px a character, centred on its tick, a tick being 62 px apart) already takes up."""
    taken: dict[tuple[str, int], list[tuple[float, float]]] = {}
    lines = []
    for tick, lane, label in zip(columns["tick"], columns["lane"], columns["label"], strict=True):
        half = 3.5 * len(label)
        span = (62 * tick - half, 62 * tick + half)
        line = 0
        while any(a < span[1] and span[0] < b for a, b in taken.get((lane, line), [])):
            line += 1
        taken.setdefault((lane, line), []).append(span)
        lines.append(line)
    return lines


def legend_html() -> str:
    """The marker shapes and what they mean (one entry per shape; a shape may stand for two things)."""
    words: dict[tuple[str, str], list[str]] = {}
    for kind, _, colour, symbol in MARKERS:
        words.setdefault((symbol, PALETTE[colour]), [])
        if MEANING[kind] not in words[(symbol, PALETTE[colour])]:
            words[(symbol, PALETTE[colour])].append(MEANING[kind])
    items = "".join(
        f'<li><span class="mark" style="color: {colour}" aria-hidden="true">{symbol}</span> '
        f"{escape('; '.join(w))}</li>"
        for (symbol, colour), w in words.items()
    )
    return f'<ul class="legend" aria-label="What the timeline\'s marks mean">{items}</ul>'


def upto(columns: dict[str, list], tick: int) -> dict[str, list]:
    """The rows of ``columns`` whose tick is at most ``tick``."""
    keep = [i for i, t in enumerate(columns["tick"]) if t <= tick]
    return {k: [v[i] for i in keep] for k, v in columns.items()}


def timeline_svg(trace: dict, tick: int) -> str:
    """The swimlane timeline up to ``tick`` as SVG (the static page's stand-in for the Bokeh plot)."""
    lanes = lanes_of(trace)
    end = trace["end_tick"]
    left, top, col, row = 92, 24, 62, 80  # a row: labels above, the lane, labels below, two breach lines
    width, height = left + col * (end + 3), top + row * len(lanes) + 30  # a right margin for centred labels
    y = {lane: top + row * n + 18 for n, lane in enumerate(lanes)}
    out = [
        f'<svg class="timeline-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'role="img" '
        f'aria-label="Timeline of ticks t0 to t{tick}: one row per actor; the text view below lists the '
        'same events" '
        'xmlns="http://www.w3.org/2000/svg">',
        f'<rect class="now" x="{left + col * tick - col / 2}" y="{top - 6}" width="{col}" '
        f'height="{row * len(lanes)}"/>',
    ]
    for lane in lanes:
        out.append(
            f'<text class="lane" x="{left - 14}" y="{y[lane] + 4}" text-anchor="end">{escape(lane)}</text>'
        )
        out.append(
            f'<line class="lane-line" x1="{left - 8}" x2="{width - 8}" y1="{y[lane]}" y2="{y[lane]}"/>'
        )
    for t in range(end + 1):
        out.append(
            f'<text class="tick" x="{left + col * t}" y="{height - 8}" text-anchor="middle">t{t}</text>'
        )
    out.append(
        '<defs><marker id="timeline-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrow-head"/>'
        "</marker></defs>"
    )
    arrows = upto(arrows_of(trace), tick)
    for at, source, target in zip(arrows["x"], arrows["source"], arrows["target"], strict=True):
        step = 9 if y[target] > y[source] else -9  # start and end clear of the marks
        x = left + col * at
        out.append(
            f'<line class="message" x1="{x}" x2="{x}" y1="{y[source] + step}" y2="{y[target] - step}" '
            'marker-end="url(#timeline-arrow)"/>'
        )
    cells = upto(cells_of(trace), tick)
    for n, t in enumerate(cells["tick"]):
        x, yy = left + col * t, y[cells["lane"][n]]
        out.append(
            f'<g class="cell" data-tick="{t}" data-lane="{escape(cells["lane"][n])}">'
            f"<title>{cells['detail'][n].replace('<br>', '; ')}</title>"
        )
        out.append(
            f'<text class="mark" x="{x}" y="{yy + 5}" text-anchor="middle" '
            f'fill="{cells["colour"][n]}">{cells["symbol"][n]}</text>'
        )
        label_y = yy - 13 if cells["above"][n] else yy + 21
        label = escape(cells["label"][n])
        out.append(f'<text class="label" x="{x}" y="{label_y}" text-anchor="middle">{label}</text></g>')
    breaches = upto(breaches_of(trace), tick)
    for n, t in enumerate(breaches["tick"]):
        if breaches["lane"][n] in y:
            below = y[breaches["lane"][n]] + 36 + 13 * breaches["line"][n]
            out.append(
                f'<text class="breach" x="{left + col * t}" y="{below}" '
                f'text-anchor="middle">{escape(breaches["label"][n])}</text>'
            )
    out.append("</svg>")
    return "".join(out)
