"""The explainer: ``panel serve app/explainer.py`` serves it at /explainer.

Layout: presets and reset on top; the switches in two labelled groups on the left; on the right the player,
then tabs (the trace with its timeline, lifecycles and records; compare; all 864; a text view; the
glossary), with the invariant badges and the outcome beside them. ``?embed=1`` gives a compact layout.
Views only draw what the model's trace says.
"""

from __future__ import annotations

import sys
from functools import cache
from html import escape
from pathlib import Path

if __package__ in (None, ""):  # run as a script by `panel serve app/explainer.py`: find model/ and app/
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import panel as pn  # noqa: E402
from panel.io.document import unlocked  # noqa: E402

from app import render  # noqa: E402
from app.content import engine_results, heading, markdown_html, sections, text, title_and_body, titles  # noqa: E402
from app.shortcuts import Shortcuts  # noqa: E402
from app.state import (  # noqa: E402
    ADVANCED_SWITCHES,
    EVENT_SWITCHES,
    PRESETS,
    PROTECTION_SWITCHES,
    SPEEDS,
    TABS,
    Explainer,
)
from app.sweep_matrix import SweepMatrix, matches  # noqa: E402
from app.timeline import Timeline  # noqa: E402
from model import analyses  # noqa: E402
from model.invariants import INVARIANT_IDS  # noqa: E402
from model.switches import ALL_SETTINGS, allowed_values  # noqa: E402

CSS = [Path(__file__).with_name(name).read_text(encoding="utf-8") for name in ("explainer.css", "diagrams.css")]
pn.extension(raw_css=CSS, design="native")

TAB_TITLES = {
    "trace": "Trace", "compare": "Compare", "sweep": "All 864", "engines": "Real engines",
    "text": "Text view", "glossary": "Glossary",
}


md_html = markdown_html


@cache
def sweep_rows() -> tuple:
    """All 864 outcomes, computed once per process (every session shares them)."""
    return tuple(analyses.sweep())


@cache
def one_change_rows() -> tuple:
    return tuple(analyses.one_change_at_a_time())


class ExplainerApp:
    """One reader's page: the state, the widgets bound to it, and the views that redraw from it."""

    def __init__(self, state: Explainer | None = None):
        self.state = state or Explainer()
        self.timeline = Timeline()
        self.titles = titles("invariants")
        self._last_query = None
        self._applying_url = False
        self._callback = None
        self._build()
        self.state.param.watch(self._on_trace, ["trace"])
        self.state.param.watch(self._on_tick, ["tick"])
        self.state.param.watch(self._on_playing, ["playing", "speed"])
        self.state.param.watch(self._on_tab, ["tab"])
        self.state.param.watch(self._push_url, [*ALL_SETTINGS, "tick", "tab", "embed", "playing"])
        self._on_trace()

    # --- building ----------------------------------------------------------------------------------

    def _switch_control(self, setting: str):
        p = self.state.param[setting]
        widget = pn.widgets.RadioButtonGroup.from_param(p, label=p.label, color="primary", variant="outline", sizing_mode="stretch_width")
        widget.css_classes = [f"switch-{setting}"]
        caption = pn.pane.HTML(
            f'<div class="switch-label" id="label-{setting}"><strong>{escape(p.label)}</strong> '
            f'<span class="switch-id">({setting})</span></div><div class="switch-doc">{md_html(p.doc)}</div>',
            sizing_mode="stretch_width", margin=(6, 5, 0, 5),
        )
        return pn.Column(caption, widget, sizing_mode="stretch_width", css_classes=["switch"])

    def _build(self) -> None:
        s = self.state
        presets = []
        for name in PRESETS:
            title, _ = title_and_body(text("presets", name))
            button = pn.widgets.Button(label=title, color="light", css_classes=[f"preset-{name}"])
            button.on_click(lambda event, name=name: self._choose_preset(name))
            presets.append(button)
        reset = pn.widgets.Button(label="Reset", color="light", css_classes=["preset-reset"])
        reset.on_click(lambda event: self._choose_preset("main"))
        self.preset_note = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["preset-note"])
        self.header = pn.Column(
            pn.pane.HTML(
                f'<h1>{escape(heading("title"))}</h1>'
                f'<div class="intro">{md_html(text("captions", "intro"))}</div>', sizing_mode="stretch_width",
            ),
            pn.FlexBox(*presets, reset, flex_wrap="wrap", css_classes=["presets"], sizing_mode="stretch_width"),
            self.preset_note,
            sizing_mode="stretch_width",
        )
        self.controls = pn.Column(
            pn.pane.HTML(f"<h2>{escape(heading('events'))}</h2>"),
            *[self._switch_control(k) for k in EVENT_SWITCHES],
            pn.pane.HTML(f"<h2>{escape(heading('protections'))}</h2>"),
            *[self._switch_control(k) for k in PROTECTION_SWITCHES],
            pn.Card(*[self._switch_control(k) for k in ADVANCED_SWITCHES], title=heading("advanced"), collapsed=True, sizing_mode="stretch_width"),
            width=330, styles={"flex": "0 0 330px"}, css_classes=["controls"],
        )

        # The player.
        def button(label, css, action):
            b = pn.widgets.Button(label=label, color="default", css_classes=[css])
            b.on_click(lambda event: action())
            return b

        self.play_button = button("▶ Play", "play", s.toggle_play)
        self.player = pn.FlexBox(
            button("⏮ First", "first", lambda: s.step(-10**6)),
            button("◀ Back", "back", lambda: s.step(-1)),
            self.play_button,
            button("Forward ▶", "forward", lambda: s.step(1)),
            button("Last ⏭", "last", lambda: s.step(10**6)),
            flex_wrap="wrap", css_classes=["player"], sizing_mode="stretch_width",
        )
        self.slider = pn.widgets.IntSlider(label="Tick", start=0, end=14, value=0, sizing_mode="stretch_width", css_classes=["scrub"])
        self.slider.param.watch(lambda e: s.go(e.new), "value_throttled")
        self.slider.param.watch(lambda e: s.go(e.new), "value")
        self.tick_text = pn.pane.HTML("", css_classes=["tick-text"], margin=(10, 10))
        self.speed = pn.widgets.RadioButtonGroup.from_param(s.param.speed, label="Speed", color="default", css_classes=["speed"])
        self.shortcuts = Shortcuts(self._on_action)
        self.notice = pn.pane.Alert("", alert_type="warning", visible=False, sizing_mode="stretch_width", css_classes=["notice"])

        # The trace view.
        self.now_text = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["now"])
        self.timeline_pane = pn.pane.Bokeh(self.timeline.figure, sizing_mode="stretch_width", css_classes=["timeline"])
        self.lifecycles = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["lifecycles"])
        self.records = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["records-view"])
        trace_view = pn.Column(
            pn.pane.HTML(f'<p class="caption">{escape(text("captions", "timeline"))}</p>', sizing_mode="stretch_width"),
            self.now_text,
            self.timeline_pane,
            pn.pane.HTML(f'<h2>{escape(heading("lifecycles"))}</h2><p class="caption">{escape(text("captions", "lifecycles"))}</p>', sizing_mode="stretch_width"),
            self.lifecycles,
            pn.pane.HTML(f'<h2>{escape(heading("records"))}</h2><p class="caption">{escape(text("captions", "records"))}</p>', sizing_mode="stretch_width"),
            self.records,
            sizing_mode="stretch_width",
        )

        # Badges and outcome.
        self.badges = {}
        for inv in [*INVARIANT_IDS, "finished"]:
            b = pn.widgets.Button(label=inv, color="light", sizing_mode="stretch_width", css_classes=["badge", f"badge-{inv}"])
            b.on_click(lambda event, inv=inv: self._explain(inv))
            self.badges[inv] = b
        self.explanation = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["explanation"])
        self.outcome = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["outcome-view"])
        self.side = pn.Column(
            pn.pane.HTML(f"<h2>{escape(heading('invariants'))}</h2>"),
            *self.badges.values(),
            self.explanation,
            pn.pane.HTML(f'<h2>{escape(heading("outcome"))}</h2><p class="caption">{escape(text("captions", "outcome"))}</p>'),
            self.outcome,
            width=340, styles={"flex": "0 0 340px"}, css_classes=["side"],
        )

        # Compare.
        self.compare = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["compare-view"])
        self.compare_jump = pn.widgets.Button(label="Go to the first difference", color="default", css_classes=["compare-jump"])
        self.compare_jump.on_click(lambda event: self._jump_to_divergence())
        compare_view = pn.Column(
            pn.pane.HTML(f'<p class="caption">{escape(text("captions", "compare"))}</p>', sizing_mode="stretch_width"),
            self.compare, self.compare_jump,
            pn.pane.HTML(self._one_change_html(), sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )

        # All 864.
        filters = {"every combination": "all", "breaks nothing": "none", "breaks something": "any", "does not finish": "unfinished"}
        filters.update({f"breaks {i}": i for i in INVARIANT_IDS})
        self.sweep_filter = pn.widgets.Select(label="Show the combinations that…", options=filters, value="all", css_classes=["sweep-filter"])
        self.sweep_list = pn.widgets.Select(label="Combinations (choose one, then load it)", options={}, size=12, sizing_mode="stretch_width", css_classes=["sweep-list"])
        self.sweep_load = pn.widgets.Button(label="Load into the player", color="primary", css_classes=["sweep-load"])
        self.sweep_load.on_click(lambda event: self._load_combination())
        self.sweep_filter.param.watch(lambda e: self._refresh_sweep(), "value")
        self.matrix = SweepMatrix(sweep_rows(), self._load_row)
        sweep_view = pn.Column(
            pn.pane.HTML(f'<p class="caption">{escape(text("captions", "sweep"))}</p>' + self._sweep_counts_html(), sizing_mode="stretch_width"),
            self.sweep_filter,
            pn.pane.HTML(f'<p class="caption">{escape(text("captions", "matrix"))}</p>', sizing_mode="stretch_width"),
            pn.pane.Bokeh(self.matrix.figure, sizing_mode="stretch_width", css_classes=["sweep-matrix"]),
            self.sweep_list, self.sweep_load,
            sizing_mode="stretch_width",
        )
        self._refresh_sweep()

        results = engine_results()
        engines_view = pn.pane.HTML(
            f'<p class="caption">{md_html(text("captions", "engines"))}</p>'
            + (render.engines_html(results) if results else "<p>No engine results are recorded.</p>"),
            sizing_mode="stretch_width", css_classes=["engines-view"],
        )
        self.text_view = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["text-view"])
        glossary = pn.pane.HTML(
            "".join(f'<dt>{escape(k)}</dt><dd>{md_html(v)}</dd>' for k, v in sections("glossary").items()),
            sizing_mode="stretch_width", css_classes=["glossary"],
        )
        glossary.object = f"<dl>{glossary.object}</dl>"
        self.tabs = pn.Tabs(
            (TAB_TITLES["trace"], trace_view),
            (TAB_TITLES["compare"], compare_view),
            (TAB_TITLES["sweep"], sweep_view),
            (TAB_TITLES["engines"], engines_view),
            (TAB_TITLES["text"], pn.Column(pn.pane.HTML(f'<p class="caption">{escape(text("captions", "text"))}</p>'), self.text_view, sizing_mode="stretch_width")),
            (TAB_TITLES["glossary"], glossary),
            sizing_mode="stretch_width", dynamic=True,
            # On a narrow screen the tab names wrap instead of widening the page.
            stylesheets=[".bk-headers-wrapper { flex-wrap: wrap !important; }"],
        )
        self.tabs.param.watch(lambda e: setattr(self.state, "tab", TABS[e.new]), "active")

    def layout(self):
        s = self.state
        playbar = pn.FlexBox(
            self.tick_text, self.slider, self.speed, flex_wrap="wrap", align_items="center",
            sizing_mode="stretch_width", css_classes=["playbar"],
        )
        if s.embed:
            controls = pn.Card(self.controls, title="Switches", collapsed=True, sizing_mode="stretch_width")
            return pn.Column(
                self.shortcuts, self.notice, self.player, playbar, self.now_text, self.timeline_pane,
                pn.FlexBox(pn.Column(*self.badges.values(), self.explanation, width=340), pn.Column(self.outcome, sizing_mode="stretch_width")),
                controls, sizing_mode="stretch_width", css_classes=["explainer", "embed"],
            )
        main = pn.Column(
            self.notice, self.player, playbar, self.tabs,
            styles={"flex": "1 1 560px", "min-width": "300px"}, css_classes=["main"],
        )
        return pn.Column(
            self.shortcuts, self.header,
            pn.FlexBox(self.controls, main, self.side, flex_wrap="wrap", align_items="flex-start", sizing_mode="stretch_width", css_classes=["columns"]),
            sizing_mode="stretch_width", css_classes=["explainer"],
        )

    # --- redraws -----------------------------------------------------------------------------------

    def _on_trace(self, *events) -> None:
        # The timeline and the matrix are raw Bokeh models: a widget callback may run without the
        # document lock, so their changes go through Panel's unlocked() (a no-op outside a server).
        with unlocked():
            self._redraw_trace()

    def _redraw_trace(self) -> None:
        trace = self.state.trace
        self.timeline.set_trace(trace)
        self.slider.end = max(trace["end_tick"], 1)
        self.explanation.object = ""
        self._compare_to = analyses.first_divergence(trace, self._protected_trace())
        self.compare.object = self._compare_html()
        self.compare_jump.visible = self._compare_to is not None
        name = self.state.preset_name()
        self.preset_note.object = (
            f'<div class="preset-text">{md_html(text("presets", name))}</div>' if name else ""
        )
        self._redraw_tick()

    def _on_tick(self, *events) -> None:
        with unlocked():
            self._redraw_tick()

    def _redraw_tick(self) -> None:
        s = self.state
        trace, tick, frame = s.trace, s.tick, s.frame
        self.slider.value = tick
        self.tick_text.object = f'<span class="tick-now" aria-live="polite">t{tick}</span> <span class="tick-end">/ t{trace["end_tick"]}</span>'
        self.timeline.set_tick(tick)
        lines = "".join(f"<li><strong>{escape(e['lane'])}</strong> {escape(e['text'])}</li>" for e in frame["events"] if e["kind"] != "write")
        self.now_text.object = f'<div aria-live="polite"><h3>At t{tick}</h3><ul>{lines or "<li>nothing happens</li>"}</ul></div>'
        self.lifecycles.object = '<div class="machines">' + "".join(render.lifecycle_svg(m, frame) for m in trace["machines"]) + "</div>"
        self.records.object = render.records_html(frame, self._highlight(tick))
        self.outcome.object = render.outcome_html(s.outcome, trace, tick)
        self.text_view.object = render.events_table_html(trace, tick)
        for inv in trace["invariants"]:
            state = frame["invariants"][inv["id"]]
            title = self.titles.get(inv["id"], inv["id"])
            when = f" at t{inv['breach']['tick']}" if state == "broken" else ""
            badge = self.badges[inv["id"]]
            badge.label = f"{render.STATE_MARK[state]} {title}: {state}{when}"
            badge.color = "danger" if state == "broken" else "success"
        finished = render.finished_text(s.outcome, trace, tick)
        self.badges["finished"].label = f"{render.STATE_MARK[finished]} {self.titles['finished']}: {finished}"
        self.badges["finished"].color = {"yes": "success", "no": "danger"}.get(finished, "light")

    def _highlight(self, tick: int):
        """The record behind the first invariant broken at this very tick, to mark it in the tables."""
        for inv in self.state.trace["invariants"]:
            b = inv["breach"]
            if b and b["tick"] == tick and b["records"]:
                return tuple(b["records"][0])
        return None

    def _on_playing(self, *events) -> None:
        s = self.state
        self.play_button.label = "⏸ Pause" if s.playing else "▶ Play"
        if self._callback is None and s.playing:
            self._callback = pn.state.add_periodic_callback(s.advance, period=SPEEDS[s.speed], start=False)
        if self._callback is not None:
            self._callback.period = SPEEDS[s.speed]
            if s.playing and not self._callback.running:
                self._callback.start()
            elif not s.playing and self._callback.running:
                self._callback.stop()

    def _on_tab(self, *events) -> None:
        self.tabs.active = TABS.index(self.state.tab)

    def _push_url(self, *events) -> None:
        if self.state.playing or self._applying_url:
            return  # one history entry per pause, not one per tick; none for a URL being applied
        query = self.state.to_query()
        location = pn.state.location
        if location is not None and query != self._last_query:
            self._last_query = query
            location.search = query

    def apply_url(self, search: str) -> None:
        self._applying_url = True
        try:
            notices = self.state.apply_query(search)
        finally:
            self._applying_url = False
        self._last_query = self.state.to_query()
        self.notice.object = "<br>".join(escape(n) for n in notices)
        self.notice.visible = bool(notices)

    # --- reactions ---------------------------------------------------------------------------------

    def _on_action(self, action: str, msg: dict) -> None:
        s = self.state
        if action == "toggle":
            s.toggle_play()
        elif action == "back":
            s.step(-1)
        elif action == "forward":
            s.step(1)
        elif action == "first":
            s.step(-10**6)
        elif action == "last":
            s.step(10**6)
        elif action == "hidden":
            s.playing = False
        elif action == "url" and isinstance(msg.get("search"), str):
            self.apply_url(msg["search"])

    def _choose_preset(self, name: str) -> None:
        self.state.apply_preset(name)
        self.notice.visible = False

    def _explain(self, inv: str) -> None:
        trace, tick = self.state.trace, self.state.tick
        title, body = title_and_body(text("invariants", inv))
        if inv == "finished":
            state = render.finished_text(self.state.outcome, trace, tick)
            detail = f"At the end of this run: {'finished' if self.state.outcome['finished'] else 'not finished'}."
            self.state.go(trace["end_tick"])
        else:
            report = next(i for i in trace["invariants"] if i["id"] == inv)
            b = report["breach"]
            if b:
                state = "broken"
                detail = f"Broken at t{b['tick']} by {b['actor']}: {b['detail']}."
                self.state.go(b["tick"])
            else:
                state = "held"
                detail = "Held for the whole run."
        self.explanation.object = (
            f'<div class="explain" role="status"><h3>{escape(title)} — {state}</h3>{md_html(body)}'
            f"<p><strong>{escape(detail)}</strong></p></div>"
        )

    # --- compare -----------------------------------------------------------------------------------

    def _protected(self):
        s = self.state.switches()
        return analyses.ALL_PROTECTIONS.replace(silent=s.silent, change=s.change, poster=s.poster)

    def _protected_trace(self) -> dict:
        return _trace_for(self._protected())

    def _compare_html(self) -> str:
        mine = self.state.outcome
        theirs = _outcome_for(self._protected())
        diff = self.state.switches().differences(self._protected())
        changed = ", ".join(f"{k} {a} (protected: {b})" for k, (a, b) in diff.items()) or "nothing: this run has every protection on"
        rows = "".join(
            f'<tr class="{"differs" if mine[k] != theirs[k] else ""}"><th scope="row">{escape(k)}</th>'
            f"<td>{escape(str(mine[k]))}</td><td>{escape(str(theirs[k]))}</td>"
            f"<td>{'differs' if mine[k] != theirs[k] else ''}</td></tr>"
            for k in mine
        )
        part = (
            f"The two traces part at <strong>t{self._compare_to}</strong>."
            if self._compare_to is not None else "The two traces are the same, tick for tick."
        )
        return (
            f"<p>Your run changes: {escape(changed)}. {part}</p>"
            '<table class="compare"><caption>Your run beside the same events with every protection on</caption>'
            '<thead><tr><th scope="col">outcome</th><th scope="col">your run</th><th scope="col">all protections on</th>'
            f'<th scope="col"><span class="sr-only">difference</span></th></tr></thead><tbody>{rows}</tbody></table>'
        )

    def _jump_to_divergence(self) -> None:
        if self._compare_to is not None:
            self.state.tab = "trace"
            self.state.go(self._compare_to)

    def _one_change_html(self) -> str:
        heads = "".join(f'<th scope="col">{escape(i)}</th>' for i in INVARIANT_IDS)
        rows = "".join(
            f'<tr><th scope="row">{escape(r.name)}</th><td>{r.finished}/{r.runs}</td>'
            + "".join(f'<td>{r.breaks[i]}</td>' for i in INVARIANT_IDS)
            + f"<td>{r.calls_min} / {r.calls_mean} / {r.calls_max}</td></tr>"
            for r in one_change_rows()
        )
        return (
            '<table class="one-change"><caption>One change at a time, over the 12 event combinations: runs that '
            "finish, runs breaking each invariant, model calls min / mean / max</caption>"
            f'<thead><tr><th scope="col">change</th><th scope="col">finished</th>{heads}<th scope="col">calls</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>"
        )

    # --- all 864 -----------------------------------------------------------------------------------

    def _sweep_counts_html(self) -> str:
        summary = analyses.sweep_summary(list(sweep_rows()))
        items = "".join(f"<li>{escape(i)}: broken in {n}</li>" for i, n in summary["breaks"].items())
        return (
            f'<p>{summary["runs"]} combinations: {summary["no_invariant_broken"]} break nothing, '
            f'{summary["finished"]} finish.</p><ul class="sweep-counts">{items}</ul>'
        )

    def _refresh_sweep(self) -> None:
        wanted = self.sweep_filter.value
        options = {}
        with unlocked():
            self.matrix.set_filter(wanted)
        for n, row in enumerate(sweep_rows()):
            broken = row["outcome"]["invariants_broken"]
            if matches(row["outcome"], wanted):
                values = " · ".join(f"{k} {v}" for k, v in row["switches"].items())
                breaks = ", ".join(broken) or "nothing broken"
                options[f"{n + 1:>3}. {values} — {breaks}"] = n
        self.sweep_list.options = options
        self.sweep_list.value = next(iter(options.values()), None)

    def _load_combination(self) -> None:
        if self.sweep_list.value is not None:
            self._load_row(self.sweep_list.value)

    def _load_row(self, n: int) -> None:
        switches = sweep_rows()[n]["switches"]
        with_defaults = {"unversioned": allowed_values("unversioned")[0], **switches}
        self.state.param.update(**with_defaults, tab="trace", playing=False)
        self.state.go(0)


@cache
def _trace_for(switches) -> dict:
    from model import run, trace_dict

    return trace_dict(run(switches))


@cache
def _outcome_for(switches) -> dict:
    from model import run

    return run(switches, recording=False).outcome()


def create_app(search: str | None = None) -> pn.viewable.Viewable:
    """A fresh page for one reader; ``search`` is the URL query (read from the browser when served)."""
    app = ExplainerApp()
    if search is None and pn.state.location is not None:
        search = pn.state.location.search
    app.apply_url(search or "")
    page = app.layout()
    page.explainer = app  # for tests and the benchmark
    return page


if pn.state.served and __name__ != "app.explainer":  # served as a script, not imported as a module
    create_app().servable(title=heading("page-title"))
