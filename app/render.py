"""HTML and SVG drawn from the model's trace data. Pure functions of the trace; no Panel, no model logic.

The Panel app shows these in HTML panes; the static build writes them into index.html, so the worked
example is on the page before any Python has loaded.
"""

from __future__ import annotations

from html import escape

STORE_TITLES = {
    "admissions": "Attempt records (admissions)",
    "journal": "Journal",
    "candidates": "Candidate store",
    "acceptances": "Acceptance log",
    "effects": "Effect records",
    "feed_posts": "Feed: posts",
    "feed_keys": "Feed: remembered keys",
}
STATE_MARK = {"held": "✔", "broken": "✖", "yes": "✔", "no": "✖", "not yet known": "…"}

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


# --- the timeline's cells: one per (lane, tick), shared by the Bokeh plot and the static SVG ---------

# Which marker stands for a cell, by the most telling kind of event in it (shape, not colour alone).
# (event kind, Bokeh marker, colour, the symbol the static SVG uses), most telling first.
MARKERS = [
    ("stale-write-applied", "triangle", "#b3261e", "▲"),
    ("write-rejected", "x", "#b3261e", "✖"),
    ("died", "x", "#5f3b00", "✖"),
    ("fenced", "square_x", "#b3261e", "⊠"),
    ("accepted", "star", "#1b6e20", "★"),
    ("refused", "square_x", "#8a4b00", "⊠"),
    ("post-applied", "inverted_triangle", "#0b57d0", "▼"),
    ("post-repeat", "circle_dot", "#0b57d0", "◉"),
    ("confirmed", "circle_cross", "#1b6e20", "⊕"),
    ("newsletter-start", "hex", "#6b2fa0", "⬢"),
    ("newsletter-wait", "dash", "#6b2fa0", "–"),
    ("unknown", "diamond", "#8a4b00", "◆"),
    ("admission", "plus", "#333333", "✚"),
    ("restore", "square", "#1b6e20", "■"),
    ("call-started", "circle_y", "#0b57d0", "◌"),
    ("model-call", "circle", "#0b57d0", "●"),
    ("call-finished", "circle", "#0b57d0", "●"),
    ("assemble", "square_pin", "#333333", "◧"),
    ("intent", "triangle_pin", "#333333", "△"),
    ("report-corrected", "hex_dot", "#8a4b00", "⬡"),
]
PRIORITY = {kind: n for n, (kind, *_) in enumerate(MARKERS)}
STYLE = {kind: (marker, colour, symbol) for kind, marker, colour, symbol in MARKERS}
QUIET_LABELS = {"dispatch", "plan"}  # said in the hover text; too small to earn a label


def lanes_of(trace: dict) -> list[str]:
    seen = {e["lane"] for f in trace["ticks"] for e in f["events"]}
    attempts = sorted((lane for lane in seen if lane.startswith("attempt")), key=lambda s: int(s.split("#")[1]))
    order = ["report", "controller", *attempts, "feed", "newsletter"]
    return [lane for lane in order if lane in seen or lane in ("report", "controller", "feed", "newsletter")]


def cells_of(trace: dict) -> dict[str, list]:
    """Columns for the cells of every tick (filtered by tick later)."""
    columns: dict[str, list] = {k: [] for k in ("tick", "lane", "marker", "colour", "symbol", "label", "detail")}
    for frame in trace["ticks"]:
        by_lane: dict[str, list] = {}
        for event in frame["events"]:
            by_lane.setdefault(event["lane"], []).append(event)
        for lane, events in by_lane.items():
            ranked = sorted(events, key=lambda e: PRIORITY.get(e["kind"], 99))
            marker, colour, symbol = STYLE.get(ranked[0]["kind"], ("circle", "#555555", "●"))
            labels = [e["label"] for e in events if e["label"] not in QUIET_LABELS and e["kind"] != "dispatch"]
            columns["tick"].append(frame["tick"])
            columns["lane"].append(lane)
            columns["marker"].append(marker)
            columns["colour"].append(colour)
            columns["symbol"].append(symbol)
            columns["label"].append("\n".join(dict.fromkeys(labels)))
            columns["detail"].append("<br>".join(f"{e['lane']}: {e['text']}" for e in events))
    return columns


def breaches_of(trace: dict) -> dict[str, list]:
    columns: dict[str, list] = {"tick": [], "lane": [], "label": [], "detail": []}
    for inv in trace["invariants"]:
        b = inv["breach"]
        if b:
            columns["tick"].append(b["tick"])
            columns["lane"].append(b["actor"])
            columns["label"].append(f"✖ {inv['id']}")
            columns["detail"].append(f"{inv['id']} broke at t{b['tick']}: {b['detail']}")
    return columns




def timeline_svg(trace: dict, tick: int) -> str:
    """The swimlane timeline up to ``tick`` as SVG (the static page's stand-in for the Bokeh plot)."""
    lanes = lanes_of(trace)
    end = trace["end_tick"]
    left, top, col, row = 92, 12, 62, 56
    width, height = left + col * (end + 2), top + row * len(lanes) + 30
    y = {lane: top + row * n + 18 for n, lane in enumerate(lanes)}
    out = [
        f'<svg class="timeline-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="Timeline of ticks t0 to t{tick}: one row per actor; the text view below lists the same events" '
        'xmlns="http://www.w3.org/2000/svg">',
        f'<rect class="now" x="{left + col * tick - col / 2}" y="{top - 6}" width="{col}" height="{row * len(lanes)}"/>',
    ]
    for lane in lanes:
        out.append(f'<text class="lane" x="{left - 14}" y="{y[lane] + 4}" text-anchor="end">{escape(lane)}</text>')
        out.append(f'<line class="lane-line" x1="{left - 8}" x2="{width - 8}" y1="{y[lane]}" y2="{y[lane]}"/>')
    for t in range(end + 1):
        out.append(f'<text class="tick" x="{left + col * t}" y="{height - 8}" text-anchor="middle">t{t}</text>')
    cells = cells_of(trace)
    for n, t in enumerate(cells["tick"]):
        if t > tick:
            continue
        x, yy = left + col * t, y[cells["lane"][n]]
        out.append(f'<g class="cell"><title>{escape(cells["detail"][n].replace("<br>", "; "))}</title>')
        out.append(f'<text class="mark" x="{x}" y="{yy + 5}" text-anchor="middle" fill="{cells["colour"][n]}">{cells["symbol"][n]}</text>')
        for k, line in enumerate(cells["label"][n].split("\n")[:4]):
            out.append(f'<text class="label" x="{x + 8}" y="{yy + 16 + 10 * k}">{escape(line)}</text>')
        out.append("</g>")
    breaches = breaches_of(trace)
    for n, t in enumerate(breaches["tick"]):
        if t <= tick and breaches["lane"][n] in y:
            out.append(f'<text class="breach" x="{left + col * t - 26}" y="{y[breaches["lane"][n]] - 10}">{escape(breaches["label"][n])}</text>')
    out.append("</svg>")
    return "".join(out)


def _instance_label(machine: str, instance: str) -> str:
    if machine == "artifact":
        digest, _, by = instance.partition(" by ")
        return f"{digest} ({by})"
    if machine == "effect":
        return f"post of {instance}"
    return instance


def lifecycle_svg(machine: dict, frame: dict) -> str:
    """One machine drawn from its declared table, with every instance's state at this frame."""
    name = machine["name"]
    layout = LAYOUT.get(name, {})
    for i, state in enumerate(s for s in machine["states"] if s not in layout):
        layout = {**layout, state: (i, 3)}
    states_now = frame["lifecycles"].get(name, {})
    moved = {(m["source"], m["event"]) for m in frame["moves"] if m["machine"] == name and m["source"]}
    arrived = {m["target"] for m in frame["moves"] if m["machine"] == name}
    by_state: dict[str, list[str]] = {}
    for instance, state in states_now.items():
        by_state.setdefault(state, []).append(_instance_label(name, instance))
    cols = 1 + max(c for c, _ in layout.values())
    rows = 1 + max(r for _, r in layout.values())
    width = PAD * 2 + (cols - 1) * COL + BOX_W
    height = TOP + PAD + (rows - 1) * ROW + BOX_H + 26

    def centre(state):
        c, r = layout[state]
        return PAD + c * COL + BOX_W / 2, TOP + r * ROW + BOX_H / 2

    title_id = f"lc-{name}-title"
    desc_id = f"lc-{name}-desc"
    description = []
    for instance, state in states_now.items():
        just = [m for m in frame["moves"] if m["machine"] == name and m["instance"] == instance]
        moved_text = "; ".join(
            f"just moved {m['source'] or 'in'} → {m['target']} ({m['event']})" for m in just
        )
        description.append(f"{_instance_label(name, instance)}: {state}" + (f" ({moved_text})" if moved_text else ""))
    out = [
        f'<svg class="lifecycle" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-labelledby="{title_id} {desc_id}" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{title_id}">{escape(name.capitalize())} lifecycle: {escape(machine["question"])}</title>',
        f'<desc id="{desc_id}">{escape("; ".join(description) or "nothing in this machine yet")}</desc>',
        f'<defs><marker id="arrow-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="currentColor"/></marker></defs>',
    ]
    for t in machine["transitions"]:
        (x1, y1), (x2, y2) = centre(t["source"]), centre(t["target"])
        just = (t["source"], t["event"]) in moved
        cls = "edge" + (" just" if just else "") + (" addition" if t["addition"] else "")
        label = t["event"] + (" (added)" if t["addition"] else "")
        if t["source"] == t["target"]:
            x, y = x1, y1 - BOX_H / 2
            out.append(
                f'<path class="{cls}" d="M{x - 20},{y} C{x - 30},{y - 26} {x + 30},{y - 26} {x + 20},{y}" '
                f'fill="none" marker-end="url(#arrow-{name})"/>'
            )
            out.append(f'<text class="edge-label" x="{x}" y="{y - 22}" text-anchor="middle">{escape(label)}</text>')
            continue
        # Trim the line to the box edges so arrowheads stay visible.
        dx, dy = x2 - x1, y2 - y1
        scale = max(abs(dx) / (BOX_W / 2 + 4), abs(dy) / (BOX_H / 2 + 4)) or 1
        sx, sy = x1 + dx / scale, y1 + dy / scale
        ex, ey = x2 - dx / scale, y2 - dy / scale
        out.append(
            f'<line class="{cls}" x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" '
            f'marker-end="url(#arrow-{name})"/>'
        )
        # Long edges carry their label early, short ones in the middle, so crossing labels stay apart.
        along = 0.33 if abs(dx) > COL * 1.5 else 0.5
        mx, my = sx + (ex - sx) * along, sy + (ey - sy) * along - 3
        out.append(f'<text class="edge-label" x="{mx:.1f}" y="{my:.1f}" text-anchor="middle">{escape(label)}</text>')
    for state, (c, r) in layout.items():
        x, y = PAD + c * COL, TOP + r * ROW
        here = by_state.get(state, [])
        cls = "state" + (" occupied" if here else "") + (" arrived" if state in arrived else "")
        out.append(f'<g class="{cls}"><rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6"/>')
        mark = "● " if here else ""
        out.append(
            f'<text x="{x + BOX_W / 2}" y="{y + 19}" text-anchor="middle">{mark}{escape(state)}</text>'
        )
        if here:
            out.append(
                f'<text class="chips" x="{x + BOX_W / 2}" y="{y + BOX_H + 13}" text-anchor="middle">'
                f"{escape(', '.join(here))}</text>"
            )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def _cell(value) -> str:
    if value is None:
        return '<td class="none">—</td>'
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, list):
        return f"<td>{escape(', '.join(map(str, value)))}</td>"
    return f"<td>{escape(str(value))}</td>"


# The columns each record table shows, in order: (heading, how to get it from the record's dict).
COLUMNS = {
    "admissions": [("attempt", "attempt"), ("token", "token"), ("pin", "pin"), ("pin hash", "pin_hash"), ("purpose", "purpose"), ("tick", "tick")],
    "journal": [("step", "step"), ("input hash", "input_hash"), ("result", "result"), ("computed from", ("part", "computed_from")), ("token", "token"), ("tick", "tick")],
    "candidates": [("digest", "digest"), ("pin", "pin"), ("quotes", "figure"), ("by", "attempt"), ("token", "token"), ("tick", "tick")],
    "acceptances": [("digest", "digest"), ("for version", "version"), ("contract", "contract"), ("by", "attempt"), ("token", "token"), ("tick", "tick")],
    "effects": [("announcement", "announcement"), ("record", "kind"), ("key", "key"), ("by", "attempt"), ("token", "token"), ("tick", "tick")],
    "feed_posts": [("post", "number"), ("announces", "announcement"), ("key", "key"), ("from", "attempt"), ("tick", "tick")],
    "feed_keys": [("key", "key"), ("params", "params"), ("post", "post"), ("tick", "tick")],
}


def _get(record: dict, path):
    if isinstance(path, tuple):
        for key in path:
            record = record[key]
        return record
    return record[path]


def records_html(frame: dict, highlight: tuple | None = None) -> str:
    """Every store at this tick; rows written at this tick are marked new; ``highlight`` is a
    (store, index) pair that broke an invariant."""
    tick = frame["tick"]
    parts = [
        f'<p class="epoch">Owner epoch <strong>{frame["epoch"]}</strong> · report <strong>'
        f'{frame["report"]}</strong> (section 2 says {escape(frame["report_figure"])})</p>'
    ]
    attempts = frame["attempts"]
    if attempts:
        parts.append('<div class="scroll"><table class="records"><caption>Attempts now</caption><thead><tr>')
        heads = ["attempt", "token", "pin", "state", "alive", "calls", "restored", "missed heartbeats"]
        parts.append("".join(f'<th scope="col">{h}</th>' for h in heads) + "</tr></thead><tbody>")
        for a in attempts:
            parts.append(
                "<tr>"
                + "".join(
                    _cell(v)
                    for v in (f"#{a['attempt']}", a["token"], a["pin"], a["state"], a["alive"], a["calls"], a["restored"], a["missed_heartbeats"])
                )
                + "</tr>"
            )
        parts.append("</tbody></table></div>")
    for store, columns in COLUMNS.items():
        rows = frame["records"][store]
        parts.append(f'<div class="scroll"><table class="records"><caption>{STORE_TITLES[store]} ({len(rows)})</caption>')
        if not rows:
            parts.append('<tbody><tr><td class="none">empty</td></tr></tbody></table></div>')
            continue
        parts.append("<thead><tr>" + "".join(f'<th scope="col">{h}</th>' for h, _ in columns) + '<th scope="col"><span class="sr-only">marks</span></th></tr></thead><tbody>')
        for index, record in enumerate(rows):
            marks = []
            if record.get("tick") == tick:
                marks.append('<span class="tag new">new</span>')
            if highlight == (store, index):
                marks.append('<span class="tag broke">broke an invariant</span>')
            cls = " ".join(c for c, on in (("new", record.get("tick") == tick), ("broke", highlight == (store, index))) if on)
            parts.append(
                f'<tr class="{cls}">' + "".join(_cell(_get(record, path)) for _, path in columns) + f"<td>{''.join(marks)}</td></tr>"
            )
        parts.append("</tbody></table></div>")
    return "".join(parts)


def events_table_html(trace: dict, tick: int, caption: str = "") -> str:
    """The trace as a table, up to ``tick``, for reading in order (and for screen readers)."""
    rows = []
    for frame in trace["ticks"][: tick + 1]:
        for n, event in enumerate(frame["events"]):
            t = f"t{frame['tick']}" if n == 0 else ""
            cls = ' class="now"' if frame["tick"] == tick else ""
            rows.append(
                f"<tr{cls}><th scope=\"row\">{t}</th><td>{escape(event['lane'])}</td><td>{escape(event['text'])}</td></tr>"
            )
    return (
        f'<div class="scroll"><table class="events"><caption>{escape(caption or f"What happened, t0 to t{tick}")}</caption>'
        '<thead><tr><th scope="col">tick</th><th scope="col">who</th><th scope="col">what happens</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def badges_html(trace: dict, tick: int, titles: dict[str, str], outcome: dict) -> str:
    """The invariant badges and `finished` as static HTML (the live app uses buttons instead)."""
    frame = trace["ticks"][tick]
    items = []
    for inv in trace["invariants"]:
        state = frame["invariants"][inv["id"]]
        when = f" at t{inv['breach']['tick']}" if state == "broken" else ""
        items.append(
            f'<li class="badge {state}"><span aria-hidden="true">{STATE_MARK[state]}</span> '
            f"{escape(titles.get(inv['id'], inv['id']))}: <strong>{state}{when}</strong></li>"
        )
    finished = finished_text(outcome, trace, tick)
    items.append(
        f'<li class="badge {"held" if finished == "yes" else "broken"}"><span aria-hidden="true">'
        f'{STATE_MARK[finished]}</span> {escape(titles["finished"])}: <strong>{finished}</strong></li>'
    )
    return f'<ul class="badges">{"".join(items)}</ul>'


def finished_text(outcome: dict, trace: dict, tick: int) -> str:
    if tick < trace["end_tick"]:
        return "not yet known"
    return "yes" if outcome["finished"] else "no"


def outcome_html(outcome: dict, trace: dict, tick: int) -> str:
    frame, last = trace["ticks"][tick], trace["ticks"][-1]
    end_tick = trace["end_tick"]
    counts = frame["counts"]
    calls = ", ".join(f"#{k} {v}" for k, v in outcome["calls_by_attempt"].items())

    def at(value):
        return "never" if value is None else f"t{value}"

    news = (
        f"started {at(outcome['newsletter_started_at'])}, quoting {outcome['newsletter_quote']} while the report said "
        f"{last['newsletter']['report_figure_at_start']}"
        if outcome["newsletter_started_at"] is not None
        else "never started"
    )
    rows = [
        ("model calls", f"{outcome['model_calls']} against a minimum of 4 ({calls})"),
        ("steps restored", outcome["steps_restored"]),
        ("stale writes", f"{outcome['stale_writes_rejected']} rejected, {outcome['stale_writes_applied']} applied"),
        ("posts", f"{outcome['posts_applied']} applied for {outcome['announcements']} announcement(s); {outcome['duplicate_posts']} duplicate(s)"),
        ("accepted for the final report", at(outcome["first_accepted_current_at"])),
        ("newsletter", news),
        ("announcement confirmed", at(outcome["announcement_confirmed_at"])),
        ("invariants broken", ", ".join(outcome["invariants_broken"]) or "none"),
        ("finished", "yes" if outcome["finished"] else "no"),
    ]
    so_far = (
        f'<p class="so-far">So far, at t{frame["tick"]}: {counts["model_calls"]} model call(s), '
        f'{counts["steps_restored"]} restored, {counts["stale_writes_rejected"]} stale write(s) rejected and '
        f'{counts["stale_writes_applied"]} applied, {counts["posts_applied"]} post(s).</p>'
    )
    body = "".join(f'<tr><th scope="row">{escape(k)}</th><td>{escape(str(v))}</td></tr>' for k, v in rows)
    return f'{so_far}<table class="outcome"><caption>At the end (t{end_tick})</caption><tbody>{body}</tbody></table>'



ENGINE_NAMES = {"langgraph": "LangGraph", "dbos": "DBOS"}
FIELD_WORDS = {
    "calls_by_attempt": "model calls by attempt",
    "steps_restored": "steps restored",
    "digest_figure": "the digest quotes",
    "posts_applied": "posts the feed applied",
    "duplicate_posts": "duplicate posts",
}


def _value(field: str, value) -> str:
    if field == "calls_by_attempt":
        return ", ".join(f"#{k} {v}" for k, v in value.items())
    return str(value)


def engines_html(data: dict) -> str:
    """The recorded real-engine results beside the model's predictions (from content/engine-results.json)."""
    versions = ", ".join(f"{ENGINE_NAMES.get(e, e)} {v['version']}" for e, v in data["engines"].items())
    out = [f'<p class="engines-versions">Recorded with {escape(versions)} by <code>{escape(data["generated_by"])}</code>.</p>']
    scenarios: dict[str, list] = {}
    for row in data["results"]:
        scenarios.setdefault(row["scenario"], []).append(row)
    for rows in scenarios.values():
        out.append(f'<table class="engines"><caption>{escape(rows[0]["title"])}</caption><thead><tr>'
                   '<th scope="col">engine</th><th scope="col">how</th><th scope="col">observed</th>'
                   '<th scope="col">the model, for the matching switches</th><th scope="col">verdict</th></tr></thead><tbody>')
        for row in rows:
            switches = ", ".join(f"{k} {v}" for k, v in row["switches"].items() if k in ("silent", "checkpoints", "change", "pins", "post_key", "fencing", "poster"))
            if row["compared"]:
                seen = "; ".join(f"{FIELD_WORDS.get(f, f)}: {_value(f, row['observed'][f])}" for f in row["compared"])
                said = "; ".join(f"{FIELD_WORDS.get(f, f)}: {_value(f, row['model'][f])}" for f in row["compared"])
                verdict = "✔ matches" if row["matches"] else "✖ differs"
            else:
                o = row["observed"]
                seen = (f"stale worker's writes that landed: {o['stale_store_writes_landed']}; it finished: "
                        f"{'yes' if o['stale_worker_finished'] else 'no'}; more calls: {o['stale_calls_after_continue']}; "
                        f"new posts: {o['posts_after_continue']}")
                said = "; ".join(f"{k}: {v['stale_writes_rejected']} stale write(s) rejected, {v['stale_writes_applied']} applied"
                                 for k, v in row["model"].items())
                verdict = f"closest: fencing {row['matching_fencing']}"
            note = f'<div class="note">{escape(row["note"])}</div>' if row["note"] else ""
            out.append(
                f'<tr><th scope="row">{escape(ENGINE_NAMES.get(row["engine"], row["engine"]))}</th><td>{escape(row["variant"])}</td>'
                f"<td>{escape(seen)}{note}</td><td>{escape(said)}<div class=\"note\">{escape(switches)}</div></td>"
                f"<td><strong>{escape(verdict)}</strong></td></tr>"
            )
        out.append("</tbody></table>")
    return "".join(out)
