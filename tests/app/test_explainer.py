"""The app builds without a server, and its views show what the model's trace says."""

from __future__ import annotations

import importlib
import re
import runpy

import panel as pn
import pytest

from app import shared
from app.content import titles
from app.explainer import create_app
from app.render.sweep import EVENTS
from app.tabs import TABS
from model import Switches, run
from tests.conftest import ROOT


@pytest.fixture
def app():
    return create_app("").explainer


def test_importing_the_app_does_not_serve_it_and_serving_does(monkeypatch):
    served = []
    monkeypatch.setattr(pn.viewable.Viewable, "servable", lambda self, *a, **k: served.append(self) or self)
    import app.explainer

    importlib.reload(app.explainer)
    assert served == []
    runpy.run_path(
        str(ROOT / "app" / "explainer.py"), run_name="bokeh_app_under_test"
    )  # as panel serve runs it
    assert len(served) == 1 and served[0].explainer.state.tick == 0


def test_badges_turn_at_the_ticks_the_model_reports(app):
    app.apply_url("?fencing=off&change=never")
    breaches = {i["id"]: i["breach"] for i in app.state.trace["invariants"] if i["breach"]}
    assert set(breaches) == {"stale-write", "double-acceptance"}
    for inv, breach in breaches.items():
        app.state.go(breach["tick"] - 1)
        assert f'badge-{inv} held"' in app.badges.html.html
        app.state.go(breach["tick"])
        assert f'badge-{inv} broken"' in app.badges.html.html
        assert f"broken at t{breach['tick']}" in app.badges.html.html


def test_activating_a_badge_explains_it_and_jumps_to_the_breach(app):
    app.apply_url("?post_key=none&tick=2")
    app.badges._act("explain", "duplicate-effect")
    breach = next(i["breach"] for i in app.state.trace["invariants"] if i["id"] == "duplicate-effect")
    assert app.state.tick == breach["tick"]
    assert "No duplicate effect" in app.badges.explanation and f"t{breach['tick']}" in app.badges.explanation
    assert app.badges.explanation in app.badges.html.html
    app.badges._act("explain", "<script>")  # not a badge: ignored
    assert app.state.tick == breach["tick"]


def test_the_outcome_keeps_the_ending_back_until_the_end_or_asked(app):
    app.apply_url("?tick=3")
    assert "At the end" not in app.outcome.pane.html and 'data-action="reveal"' in app.outcome.pane.html
    app.outcome._act("reveal", "end")
    assert "At the end (t14)" in app.outcome.pane.html
    app.state.fencing = "off"  # another run: its ending is held back again
    assert "At the end" not in app.outcome.pane.html
    app.state.go(app.state.end_tick)
    assert "At the end" in app.outcome.pane.html


def test_outcome_view_shows_the_models_figures(app):
    app.apply_url("?tick=14")
    html = app.outcome.pane.html
    outcome = run(Switches()).outcome()
    assert f"{outcome.model_calls} against a minimum of 4" in html
    assert "quoting 4.7 million, as the report said" in html
    assert "(s)" not in html


def test_compare_names_the_first_tick_the_runs_part_and_the_from_scratch_cost(app):
    compare = app.view("compare")
    app.apply_url("?fencing=off")
    assert compare.parts_at == 8
    assert "part at <strong>t8</strong>" in compare.body.object
    compare.jump_to_divergence()
    assert app.state.tick == 8 and app.state.tab == "trace"
    app.apply_url("?change=after-acceptance")
    assert "#4 4 instead of 1" in compare.body.object
    for python_words in ("{'", "None", "True", "False", "[]"):
        assert python_words not in compare.body.object


def test_sweep_filter_and_load(app):
    """The list holds the runs the filter keeps, in words, and a line loads its run."""
    sweep = app.view("sweep")
    sweep.filter.value = "duplicate-effect"
    rows = shared.sweep_rows()
    listed = [
        int(n) for n in re.findall(r'class="run" data-action="load" data-value="(\d+)"', sweep.list.html)
    ]
    assert listed == [
        n for n, r in enumerate(rows) if "duplicate-effect" in r["outcome"]["invariants_broken"]
    ]
    sweep._act("load", str(listed[3]))
    assert "duplicate-effect" in app.state.outcome["invariants_broken"]
    assert app.state.switches().to_dict() == rows[listed[3]]["switches"]
    assert app.state.tab == "trace" and app.state.tick == 0
    for odd in (("load", "864"), ("load", "-1"), ("load", "x"), ("delete", "3")):
        sweep._act(*odd)  # refused quietly: the run on show stays
    assert app.state.switches().to_dict() == rows[listed[3]]["switches"]


def test_keys_drive_the_player(app):
    app._on_key("last", {})
    assert app.state.tick == app.state.end_tick
    app._on_key("back", {})
    assert app.state.tick == app.state.end_tick - 1
    app._on_key("first", {})
    app._on_key("forward", {})
    assert app.state.tick == 1
    app._on_key("toggle", {})
    assert app.state.playing
    app._on_key("hidden", {})
    assert not app.state.playing
    app._on_key("url", {"search": "?pins=off&tick=9"})
    assert app.state.pins == "off" and app.state.tick == 9


def test_the_player_takes_only_what_it_allows(app):
    app.player.act("go", "7")
    assert app.state.tick == 7
    for odd in ("²", "99999999", "-1", ""):
        app.player.act("go", odd)
        assert app.state.tick == 7
    app.player.act("speed", "4×")
    app.player.act("speed", "11×")
    assert app.state.speed == "4×"
    assert '<option value="4×" selected>' in app.player.html.html
    assert "Tick t7 of t14" in app.player.html.html


def test_the_switch_panel_sets_only_allowed_values(app):
    app.switches._act("set", "fencing=off")
    assert app.state.fencing == "off"
    app.switches._act("set", "fencing=maybe")
    app.switches._act("set", "colour=red")
    assert app.state.switches() == Switches(fencing="off")
    assert (
        'aria-pressed="true" title="fencing=off" data-action="set" data-value="fencing=off"'
        in app.switches.html.html
    )
    assert "hidden>" in app.switches.html.html and 'aria-expanded="false"' in app.switches.html.html
    app.switches._act("advanced", "open")
    assert 'aria-expanded="true"' in app.switches.html.html


def test_every_setting_the_model_declares_has_a_control(app):
    from model.switches import SETTINGS, allowed_values

    for setting in SETTINGS:
        for value in allowed_values(setting.id):
            assert f'data-value="{setting.id}={value}"' in app.switches.html.html


def test_the_tab_registry_feeds_the_tabs_and_the_url(app):
    for n, tab in enumerate(TABS):
        app.apply_url(f"?tab={tab.id}")
        assert (
            f'aria-selected="true" tabindex="0" data-action="tab" data-value="{tab.id}"' in app.tab_bar.html
        )
        assert app.tab_bar.html.count('aria-selected="true"') == 1 and tab.title in app.tab_bar.html
        assert isinstance(app.views[tab.id], tab.view) and len(app.tab_panel.objects) == 1
        assert app.state.to_query() == ("" if n == 0 else f"?tab={tab.id}")
    app._on_tab("tab", "compare")
    assert app.state.tab == "compare"
    app._on_tab("tab", "nowhere")
    assert app.state.tab == "compare"


def test_text_view_lists_every_event_up_to_the_tick(app):
    app.apply_url("?tick=8")
    html = app.view("text").pane.object
    assert "stores</td><td>journal refuses it: 41 &lt; 42" in html and "t8" in html and "t9" not in html
    assert not re.search(r"\b[0-9a-f]{8}\b", html), "the reader's view names no hash"


def test_a_notice_shows_the_readers_value_as_text_only(app):
    app.apply_url("?fencing=![x](http://host/beacon.png)&preset=[log in again](https://x.example)")
    html = app.header.html.html
    told = html.replace("![x](http://host/beacon.png)", "").replace("[log in again](https://x.example)", "")
    assert "<img" not in html and "http" not in told  # the only link is the page's own, to the tour
    assert "![x](http://host/beacon.png)" in html


def test_real_engines_view_shows_every_recorded_run(app):
    from app.content import engine_results

    html = app.view("engines").__panel__().object
    assert html.count('<tr><th scope="row">') == len(engine_results()["results"])
    assert "matches" in html


def test_choosing_a_cell_of_the_864_matrix_loads_that_run(app):
    """A square says its run's count of broken invariants, in the column of its events and the row of its
    protections; choosing it loads that run; the filter marks the squares it leaves out."""
    sweep = app.view("sweep")
    rows = shared.sweep_rows()
    cells = re.findall(r'<button type="button" class="cell level-(\d)( out)?" data-action="load" '
                       r'data-value="(\d+)"[^>]*>([^<]*)</button>', sweep.matrix.html)  # fmt: skip
    assert len(cells) == 864 and {int(n) for _, _, n, _ in cells} == set(range(864))
    for level, _, n, digit in cells:
        outcome = rows[int(n)]["outcome"]
        assert int(level) == len(outcome["invariants_broken"])
        assert digit == f"{level}{'' if outcome['finished'] else '·'}"
    assert cells[0][3] == "0"  # the main trace, top left: breaks nothing and finishes
    # A row is one setting of the protections, across twelve settings of the events.
    for start in range(0, 864, 12):
        protections = {
            tuple(v for k, v in rows[int(c[2])]["switches"].items() if k not in EVENTS)
            for c in cells[start : start + 12]
        }
        assert len(protections) == 1
    n = next(i for i, r in enumerate(rows) if r["outcome"]["invariants_broken"] == ["duplicate-effect"])
    sweep._act("load", str(n))
    assert app.state.switches().to_dict() == rows[n]["switches"]
    assert app.state.outcome["invariants_broken"] == ["duplicate-effect"]
    sweep.filter.value = "stale-write"
    squares = re.findall(
        r'class="cell level-\d( out)?" data-action="load" data-value="(\d+)"', sweep.matrix.html
    )
    out = {int(n) for o, n in squares if o}
    assert out == {i for i, r in enumerate(rows) if "stale-write" not in r["outcome"]["invariants_broken"]}


def test_the_glossary_shows_every_term():
    from app.content import glossary_html, sections

    html = glossary_html()
    terms = list(sections("glossary"))
    assert {"work identity", "owner token", "pinned input", "operation key"} <= set(terms)
    assert html.count("<dt>") == len(terms)


def test_breaches_in_the_diagram_use_the_badges_titles():
    from app.render.diagram import breaches_at, diagram_svg
    from model import trace_dict

    trace = trace_dict(run(Switches(post_key="none")))
    title = titles("invariants")["duplicate-effect"]
    ((tick, lane),) = breaches_at(trace)
    assert breaches_at(trace)[(tick, lane)] == [title]
    assert f"breaks: {title}" in diagram_svg(trace, tick) and "breaks:" not in diagram_svg(trace, tick - 1)


def test_odd_values_arriving_by_the_back_button_fall_back_with_a_notice(app):
    app._on_key("url", {"search": "?tick=%C2%B2&fencing=%21%5Bx%5D%28http%3A%2F%2Fh%2Fb.png%29&embed=2"})
    assert app.state.tick == 0 and app.state.switches() == Switches() and not app.state.embed
    assert len(app.state.notices) == 3
    assert "<img" not in app.header.html.html and "![x](http://h/b.png)" in app.header.html.html
    app._on_key("url", {"search": "?tick=" + "9" * 5000})
    assert app.state.tick == 0 and "whole number" in app.state.notices[0]


def test_no_caption_shows_literal_markdown():
    from app.content import caption_html, sections

    for name in sections("captions"):
        html = caption_html(name)
        assert "*" not in html and "`" not in html, name
    assert re.search(r"<em>input\s+read</em>", caption_html("records")) and "<em>new</em>" in caption_html(
        "records"
    )


def test_the_switches_read_as_words_not_as_names():
    """A reader sees "one key per announcement", not per-operation; the name stays in the tooltip and in
    links. Every value of every setting has its words."""
    from app.render.controls import switches_html, value_words
    from model.switches import ALL_SETTINGS, allowed_values

    html = switches_html(Switches().to_dict(advanced=True), advanced_open=True)
    for setting in ALL_SETTINGS:
        for value in allowed_values(setting):
            words = value_words(setting, value)
            assert words and "-" not in words and "_" not in words, (setting, value)
            assert f'title="{setting}={value}"' in html and f"{words}</button>" in html
    visible = re.sub(r"<[^>]+>", " ", html)
    assert "per-operation" not in visible and "(post_key)" not in visible


def _page_text(page) -> str:
    return " ".join(str(pane.object) for pane in page.select(pn.pane.HTML))


@pytest.mark.parametrize("view", ["timeline", "lifecycles", "badges"])
def test_a_figure_shows_the_links_notices_in_a_line_of_its_own(view):
    page = create_app(f"?embed=1&view={view}&group=a\"b'c")
    assert "About this link:" in _page_text(page) and "group must be 1 to 40 letters" in _page_text(page)
    assert "About this link:" not in _page_text(create_app(f"?embed=1&view={view}&group=ok"))


def test_the_handout_prints_the_links_notices_at_the_top():
    page = create_app("?print=1&fencing=of")
    app = page.explainer
    for html in (_page_text(page), app.helpers.html):
        top = html.split("<table", 1)[0]  # before what happened tick by tick
        assert "About this link:" in top and "&#x27;of&#x27;" in top
    app.apply_url("?print=1&fencing=off")
    assert "About this link:" not in app.helpers.html and "About this link:" not in _page_text(page)


def test_a_frame_of_a_group_tells_the_moves_its_reader_made_and_none_it_was_told(app, monkeypatch):
    """Whatever the browser's timing, a tick told by another frame (clamped to a shorter chapter or not)
    is never told back, and the reader's own moves always are."""
    told_back: list[dict] = []
    monkeypatch.setattr(app.helpers, "_send_msg", told_back.append)
    app.apply_url("?group=article&preset=no-fencing")
    told_back.clear()
    end = app.state.end_tick
    for value in ("4", "5", str(end + 30)):  # the last is clamped to the chapter's end
        app.helpers._handle_msg({"action": "go", "value": value, "told": True})
    assert app.state.tick == end and told_back == []
    app.helpers._handle_msg({"action": "back"})
    app.helpers._handle_msg({"action": "go", "value": "2"})
    assert told_back == [{"tick": end - 1}, {"tick": 2}]
    app.apply_url("?preset=no-fencing")  # out of the group: nothing is told
    app.helpers._handle_msg({"action": "go", "value": "3"})
    assert told_back == [{"tick": end - 1}, {"tick": 2}]


@pytest.mark.parametrize("search", ["", "?present=1", "?embed=1", "?view=timeline", "?print=1"])
def test_only_the_layout_with_tabs_builds_a_tab_view_and_redraws_it_at_each_step(search, monkeypatch):
    """A tab's view redraws at every tick: on a page that never shows the tabs (a figure, the presenter, a
    class's phone) it would cost the server a step's work for nothing, once per session."""
    from app.page import PageModel

    drawn = []
    records_html = PageModel.records_html
    monkeypatch.setattr(PageModel, "records_html", lambda self: drawn.append(1) or records_html(self))
    app = create_app(search).explainer
    for tick in (3, 4, 5):
        app.state.go(tick)
    if search:
        assert app.views == {} and app.tab_panel.objects == [] and drawn == []
    else:  # the reader's page opens on the trace tab, its records redrawn at each tick
        assert list(app.views) == ["trace"] and len(drawn) == 4


@pytest.mark.parametrize("search", ["", "?embed=1", "?present=1"])
def test_the_switches_panel_is_drawn_only_where_a_layout_shows_it(search, monkeypatch):
    """The embed and the presenter fold the switches' panel under the diagram; the reader's page has it
    in a tab of its own, so a panel of the app's would be drawn at every switch for nobody."""
    from app.page import PageModel

    drawn = []
    switches_html = PageModel.switches_html
    monkeypatch.setattr(PageModel, "switches_html", lambda self: drawn.append(1) or switches_html(self))
    app = create_app(search).explainer
    app.state.fencing = "off"
    assert len(drawn) == (2 if search else 0)  # drawn once built, then again for the switch


def test_the_keys_helper_hears_of_the_tick_only_in_a_group(app):
    """The browser's helper shares the tick with the frames of a group; outside one, a step sends it
    nothing (each message is a write to every session's browser: a class's phones are hundreds)."""
    heard: list[int] = []
    app.helpers.param.watch(lambda event: heard.append(event.new), ["tick"])
    for tick in (5, 6, 2):
        app.state.go(tick)
    assert heard == []
    app.apply_url("?group=article&tick=4")
    app.state.go(7)
    assert app.helpers.group == "article" and heard[-2:] == [4, 7]
    app.apply_url("?tick=3")  # out of the group: the helper leaves it, and hears no more
    left = len(heard)
    app.state.go(8)
    assert app.helpers.group == "" and len(heard) == left
