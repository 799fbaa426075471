"""The app builds without a server, and its views show what the model's trace says."""

from __future__ import annotations

import pytest

from app.explainer import create_app
from model import Switches, run


@pytest.fixture
def explainer_page():
    return create_app("")


def test_importing_the_app_does_not_serve_it(explainer_page):
    import panel as pn

    assert not pn.state.served
    assert explainer_page.explainer.state.tick == 0


def test_badges_turn_at_the_ticks_the_model_reports(explainer_page):
    app = explainer_page.explainer
    app.apply_url("?fencing=off&change=never")
    breaches = {i["id"]: i["breach"] for i in app.state.trace["invariants"] if i["breach"]}
    assert set(breaches) == {"stale-write", "double-acceptance"}
    for inv, breach in breaches.items():
        app.state.go(breach["tick"] - 1)
        assert "held" in app.badges[inv].label
        app.state.go(breach["tick"])
        assert f"broken at t{breach['tick']}" in app.badges[inv].label
        assert app.badges[inv].color == "danger"


def test_activating_a_badge_explains_it_and_jumps_to_the_breach(explainer_page):
    app = explainer_page.explainer
    app.apply_url("?post_key=none&tick=2")
    app._explain("duplicate-effect")
    breach = next(i["breach"] for i in app.state.trace["invariants"] if i["id"] == "duplicate-effect")
    assert app.state.tick == breach["tick"]
    assert "No duplicate effect" in app.explanation.object and f"t{breach['tick']}" in app.explanation.object


def test_outcome_view_shows_the_models_figures(explainer_page):
    app = explainer_page.explainer
    app.apply_url("?tick=14")
    html = app.outcome.object
    outcome = run(Switches()).outcome()
    assert f"{outcome['model_calls']} against a minimum of 4" in html
    assert "quoting 4.7 million" in html


def test_compare_names_the_first_tick_the_traces_part(explainer_page):
    app = explainer_page.explainer
    app.apply_url("?fencing=off")
    assert app._compare_to == 8
    assert "part at <strong>t8</strong>" in app.compare.object
    app._jump_to_divergence()
    assert app.state.tick == 8 and app.state.tab == "trace"


def test_sweep_filter_and_load(explainer_page):
    app = explainer_page.explainer
    app.sweep_filter.value = "duplicate-effect"
    assert app.sweep_list.options
    chosen = app.sweep_list.value
    app._load_combination()
    assert "duplicate-effect" in app.state.outcome["invariants_broken"]
    from app.explainer import sweep_rows

    assert app.state.switches().to_dict() == sweep_rows()[chosen]["switches"]


def test_keyboard_actions_drive_the_player(explainer_page):
    app = explainer_page.explainer
    app._on_action("last", {})
    assert app.state.tick == app.state.end_tick
    app._on_action("back", {})
    assert app.state.tick == app.state.end_tick - 1
    app._on_action("first", {})
    app._on_action("forward", {})
    assert app.state.tick == 1
    app._on_action("toggle", {})
    assert app.state.playing
    app._on_action("hidden", {})
    assert not app.state.playing
    app._on_action("url", {"search": "?pins=off&tick=9"})
    assert app.state.pins == "off" and app.state.tick == 9


def test_text_view_lists_every_event_up_to_the_tick(explainer_page):
    app = explainer_page.explainer
    app.apply_url("?tick=8")
    html = app.text_view.object
    assert "rejects #1" in html and "t8" in html and "t9" not in html


def test_real_engines_view_shows_every_recorded_run(explainer_page):
    from app.content import engine_results

    app = explainer_page.explainer
    view = next(obj for obj in app.tabs.objects if "engines-view" in obj.css_classes)
    results = engine_results()
    assert view.object.count("<tr><th scope=\"row\">") == len(results["results"])
    assert "matches" in view.object


def test_choosing_a_cell_of_the_864_matrix_loads_that_run(explainer_page):
    from app.explainer import sweep_rows

    app = explainer_page.explainer
    n = next(i for i, r in enumerate(sweep_rows()) if r["outcome"]["invariants_broken"] == ["duplicate-effect"])
    cell = app.matrix.source.data["index"].index(n)
    app.matrix.source.selected.indices = [cell]
    assert app.state.switches().to_dict() == sweep_rows()[n]["switches"]
    assert app.state.outcome["invariants_broken"] == ["duplicate-effect"]
    counts = app.matrix.source.data["count"]
    assert len(counts) == 864 and counts[0] == "0"  # the main trace breaks nothing and finishes
    app.sweep_filter.value = "stale-write"
    faded = [a for a, r in zip(app.matrix.source.data["alpha"], sweep_rows(), strict=True) if "stale-write" not in r["outcome"]["invariants_broken"]]
    assert faded and set(faded) == {0.15}
