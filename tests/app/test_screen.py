"""The reader's first screen is one component: it shows each part its view draws, and sends each part's
clicks to that part."""

from __future__ import annotations

from types import SimpleNamespace

import panel as pn
import pytest
from bokeh.document import Document

from app.explainer import create_app
from app.views.action_html import ActionHTML
from app.views.screen import PARTS, Screen


def reader_screen(page) -> Screen:
    return next(o for o in page.objects if isinstance(o, Screen))


def test_the_reader_s_page_is_one_component_with_its_parts_and_its_tabs():
    page = create_app("")
    app, screen = page.explainer, reader_screen(page)
    assert screen.header == app.header.html.html and screen.player == app.player.html.html
    assert screen.badges == app.badges.html.html and screen.outcome == app.outcome.pane.html
    assert screen.tabs == app.tab_bar.html and "diagram" in screen.diagram
    assert screen.tour is app.tour_slot and screen.below is app.tab_panel
    assert screen.classes["badges"] == "badges-view" and screen.classes["outcome"] == "outcome-view"
    # The parts are drawn only inside the screen: none of them is a component of the page's document.
    doc = Document()
    doc.add_root(page.get_root(doc))
    names = [type(m).__name__ for m in doc.models]
    assert not any(name.startswith("ActionHTML") for name in names), names
    assert sum(name.startswith("Screen") for name in names) == 1


def test_a_step_redraws_the_parts_that_change_in_the_screen():
    page = create_app("")
    app, screen = page.explainer, reader_screen(page)
    before = screen.param.values()
    app.state.go(8)
    assert screen.player != before["player"] and "t8" in screen.player
    assert screen.diagram == page.explainer.page.lead_html() + page.explainer.page.diagram_html()
    assert screen.badges == app.badges.html.html and screen.header == before["header"]


def test_a_click_in_a_part_goes_to_that_part_and_nowhere_else():
    page = create_app("")
    app, screen = page.explainer, reader_screen(page)
    screen._handle_msg({"part": "player", "action": "go", "value": "5"})
    assert app.state.tick == 5
    odd_ones = ({"part": "nowhere", "action": "go", "value": "9"}, {"part": ["player"], "action": "go"}, "go")
    for odd in (*odd_ones, {"action": "go", "value": "9"}):
        screen._handle_msg(odd)
    assert app.state.tick == 5
    # The tab bar's own receiver opens a tab; the player's does not know the action.
    screen._handle_msg({"part": "player", "action": "tab", "value": "glossary"})
    assert app.state.tab == "trace"
    screen._handle_msg({"part": "tabs", "action": "tab", "value": "glossary"})
    assert app.state.tab == "glossary" and 'aria-selected="true"' in screen.tabs


def test_a_screen_needs_every_part_it_lays_out():
    parts = {name: ActionHTML(lambda action, value: None) for name in PARTS[:-1]}
    with pytest.raises(ValueError, match="header, player, diagram, badges, outcome, tabs"):
        Screen(parts, tour=pn.Column(), below=pn.Column())


def test_the_open_tab_s_view_is_built_once_the_browser_has_the_page():
    """The tab's view is under the first screen: a served page builds it when the browser says the page is
    loaded, so the first document is the first screen's (and its tab bar says which tab is open)."""
    from panel.io.state import set_curdoc

    doc = Document()
    doc._session_context = lambda: SimpleNamespace(id="a reader", server_context=None)  # a served page's
    with set_curdoc(doc):
        app = create_app("?tab=glossary").explainer
        assert app.views == {} and app.tab_panel.objects == []
        assert 'id="tab-glossary" class="tab tab-glossary" aria-selected="true"' in app.tab_bar.html
        pn.state._on_load(doc)  # as Panel does when the browser's document is ready
        assert list(app.views) == ["glossary"] and len(app.tab_panel.objects) == 1
