"""The light explainer's Python (app.light): the served app's state and renderers without Panel."""

from __future__ import annotations

import json
import subprocess
import sys

from app import state
from app.light import FIXED_PARTS, PARTS, WARM_UP, LightPage, _pages, act, close, prepare, start, warm
from app.state import PRESETS, SCHEDULE_FIELDS
from sitebuild.light import chapter_frames, tour_frames
from tests.conftest import ROOT


def test_it_imports_no_panel_bokeh_or_numpy():
    """What the static site's Pyodide installs is enough: param, markdown-it-py and the project."""
    code = "import sys, app.light; print(sorted({'panel', 'bokeh', 'numpy', 'pandas'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_chapter_and_a_tick_from_the_link_and_the_player():
    page = LightPage("?preset=superseded&tick=12")
    parts = page.parts()
    assert set(PARTS) <= set(parts) and parts["tick"] == 12 and "waits" in parts["figure"]
    page.act("forward")
    assert page.parts()["tick"] == 13 and "tick=13" in page.parts()["query"]
    page.act("toggle")
    assert page.parts()["playing"]
    page.act("advance")
    assert page.parts()["tick"] == 14


def test_a_switch_a_row_of_the_diagram_and_a_chapter_change_the_run():
    page = LightPage("?tick=8")
    assert "41 &lt; 42" in page.parts()["figure"]
    page.act("set", "fencing=off")
    now, _, before = page.parts()["figure"].partition("before your change: ")
    assert "fencing=off" in page.parts()["query"] and "41 &lt; 42" not in now
    assert "41 &lt; 42" in before  # the run before the switch stays, faint, refusing #1's write
    assert "You changed fencing" in page.parts()["lead"]
    page.act("compare", "off")
    assert "changed-cell" not in page.parts()["figure"]
    page.act("set", "fencing=on")
    page.act("preset", "no-key")
    assert page.parts()["query"].startswith("?post_key=none")
    assert "before-after" not in page.parts()["figure"]  # a chapter is another story: nothing compared


def test_what_a_browser_sends_that_means_nothing_changes_nothing():
    page = LightPage("?tick=3")
    before = page.parts()
    nonsense = [("go", "-1"), ("go", "9" * 50), ("set", "fencing=maybe"), ("preset", "x"), ("??", "")]
    for action, value in nonsense:
        page.act(action, value)
    assert page.parts() == before


def test_a_bad_link_is_read_with_a_notice_naming_the_allowed_values():
    parts = json.loads(start("?fencing=maybe&tick=2"))
    assert "maybe" in parts["header"] and "on, off" in parts["header"] and parts["tick"] == 2
    assert json.loads(act(parts["key"], "forward", ""))["tick"] == 3


def test_each_frame_has_its_own_page_and_a_group_is_one():
    """One interpreter serves every frame of the site: a frame's page is its own, a group's is shared."""
    alone = json.loads(start("?tick=8"))
    other = json.loads(start("?tick=8"))
    assert alone["key"] != other["key"]
    act(alone["key"], "set", "fencing=off")
    assert "fencing" not in json.loads(act(other["key"], "go", "8"))["query"]

    first = json.loads(start("?preset=superseded&tick=3", "article"))
    joined = json.loads(start("?preset=main", "article", '[["go", "5", ""]]'))  # its own link is not read
    assert first["key"] == joined["key"] == "group:article"
    assert joined["tick"] == 5 and "change=after-acceptance" in joined["query"]  # superseded's
    changed = json.loads(act("group:article", "set", "fencing=off", "figure"))
    assert "changed fencing from on to off" in changed["changed"]
    assert json.loads(act("group:article", "forward", ""))["changed"] == ""  # a tick is not a change
    close("group:article")
    assert "fencing" not in json.loads(start("?tick=1", "article"))["query"]  # forgotten with its frames


def test_warming_up_makes_the_usual_first_switches_and_keeps_no_page_and_takes_no_key():
    """The worker warms Python up before the pages are told it is ready: the switches run on a page of
    nobody's, so a frame's key and every page a frame has are as they were."""
    before = json.loads(start(""))["key"]
    pages = dict(_pages)
    state._MADE.clear()
    warm()
    assert _pages == pages
    assert int(json.loads(start(""))["key"].removeprefix("frame:")) == int(before.removeprefix("frame:")) + 1
    made = [dict(s.to_dict()) for s, _ in state._MADE]
    switched = {}
    for value in WARM_UP:
        setting, chosen = value.split("=")
        switched[setting] = chosen
        assert any(all(m.get(k) == v for k, v in switched.items()) for m in made), value


def test_while_the_reader_reads_the_runs_a_rows_click_asks_for_are_made_one_a_call(monkeypatch):
    """``prepare`` makes one run a call, a row's next value each, until every row's is made; then a click
    on any row of the diagram draws a run already made, and the model is not run again."""
    import re

    import app.render.diagram as diagram

    state._MADE.clear()
    diagram._RUNS.clear()
    key = json.loads(start("?preset=superseded&tick=12"))["key"]
    shown = len(state._MADE)  # the page's own run (and the one a new page starts from)
    made = 0
    while prepare(key):
        made += 1
        assert len(state._MADE) == shown + made  # one run a call: a click waits for one at most
    assert 0 < made <= len(diagram.ROW_SWITCH) and not prepare(key)  # one may be the chapter next door
    figure = json.loads(act(key, "go", "12", "player"))["figure"]
    clicks = re.findall(r'data-key="row-[^"]*" data-value="([^"]+)"', figure)
    assert len(clicks) == len(diagram.ROW_SWITCH), clicks

    def not_again(*args, **kwargs):
        raise AssertionError("a row's run was made again")

    monkeypatch.setattr(state, "run", not_again)
    for value in clicks:  # each row's click, on a page where the reader is
        other = json.loads(start("?preset=superseded&tick=12"))["key"]
        assert json.loads(act(other, "set", value, "figure"))["changed"], value
        close(other)
    assert not prepare("frame:0")  # a page nobody has: nothing to make
    close(key)
    assert not prepare(key)


def test_what_waited_for_python_is_done_before_its_first_picture():
    done = '[["set", "fencing=off", "figure"], ["go", "8", ""], ["nonsense"], 7, ["go", 3, ""]]'
    parts = json.loads(start("?tick=2", "", done))
    assert parts["tick"] == 8 and "fencing=off" in parts["query"]
    assert json.loads(start("?tick=2", "", "not json"))["tick"] == 2
    assert json.loads(start("?tick=2", "bad group name!", "{}"))["key"].startswith("frame:")


def test_the_pre_render_is_what_the_page_draws_at_every_tick_of_every_chapter():
    for preset in PRESETS:
        frames = chapter_frames(preset)
        # One frame a tick, t0 to the chapter's last: none short, none past the end.
        assert len(frames["ticks"]) == LightPage(f"?preset={preset}").state.end_tick + 1, preset
        for tick, drawn in enumerate(frames["ticks"]):
            parts = LightPage(f"?preset={preset}&tick={tick}").parts()
            assert {**frames["fixed"], **drawn} == parts, (preset, tick)
        assert set(frames["fixed"]) == set(FIXED_PARTS)


def test_the_tour_card_is_the_served_apps_and_its_back_is_not_the_players():
    from app.tour import right_answers, steps

    page = LightPage("?tour=2")
    step = steps()[1]
    assert f"Tour, step 2 of {len(steps())}" in page.parts()["tour"]
    assert "preset-text" not in page.parts()["header"]  # the step says what to watch
    (right,) = right_answers(step, page.state.trace)
    page.act("answer", str(right), "tour")
    page.act("check", "", "tour")
    assert "Right." in page.parts()["tour"] and page.parts()["tick"] == step.ask
    page.act("back", "", "player")
    assert page.state.tour == 2 and page.parts()["tick"] == step.ask - 1
    page.act("back", "", "tour")
    assert page.state.tour == 1 and "Right." not in page.parts()["tour"]  # a new step asks afresh


def test_the_records_name_the_record_that_broke_an_invariant():
    parts = LightPage("?preset=no-key&tick=14").parts()
    assert "broke an invariant" in parts["records"] and "digest 1" in parts["records"]


def test_a_run_off_the_articles_schedule_says_so_with_the_way_back():
    """A link from the explorer's table (the static explore page links here) names a schedule."""
    page = LightPage("?fencing=off&silent_at=s2&threshold=1")
    assert "Not the article's schedule" in page.parts()["header"]
    assert "Edit it (Explore)" not in page.parts()["header"]  # no Explore view on the light page
    page.act("article-schedule")
    assert page.parts()["query"] == "?fencing=off" and "schedule-note" not in page.parts()["header"]


def test_a_tour_steps_pre_render_is_its_page_at_every_tick_and_after_every_answer():
    from app.tour import steps

    for number, step in enumerate(steps(), start=1):
        frames = tour_frames(number)
        page = LightPage(f"?tour={number}")
        assert frames["start"] == page.state.tick and frames["tour"]["ask"] == step.ask
        for tick in (0, frames["start"], len(frames["ticks"]) - 1):
            page.act("go", str(tick))
            assert {**frames["fixed"], **frames["ticks"][tick]} == page.parts(), (number, tick)
        assert set(frames["tour"]["verdicts"]) == {"", *map(str, range(len(step.answers)))}
        for chosen, verdict in frames["tour"]["verdicts"].items():
            judged = LightPage(f"?tour={number}")
            for action, value in [("answer", chosen), ("check", "")] if chosen else [("check", "")]:
                judged.act(action, value, "tour")
            assert judged.parts()["tour"] == verdict and judged.state.tick == step.ask
        # Once answered, the player at each tick is Python's, every key moment shown again.
        for tick in (0, step.ask, len(frames["ticks"]) - 1):
            judged.act("go", str(tick))
            assert frames["tour"]["answered"][tick] == judged.parts()["player"], (number, tick)
    assert "Right." in "".join(tour_frames(2)["tour"]["verdicts"].values())


def test_the_lifecycles_say_what_added_means_wherever_they_are_drawn():
    """The light page's fold and its lifecycles figure draw '(added)' arrows; the caption above says what
    they are."""
    drawn = LightPage("?preset=superseded&tick=16").parts()["lifecycles"]
    caption, _, machines = drawn.partition('<div class="machines">')
    assert "(added)" in machines and '"(added)" is a move this model needs' in caption.replace("&quot;", '"')


def test_the_embed_code_names_a_chapter_s_run_by_its_chapter():
    """A chapter's run is embedded as ``preset=NAME`` (its pre-render paints at once), a run of the
    reader's own by its switches' values; the tick and the layout flags are kept."""
    chapter = LightPage("?preset=superseded&tick=12").parts()
    assert chapter["embed"] == "?preset=superseded&tick=12" and "preset" not in chapter["query"]
    own = LightPage("?fencing=off&tick=3").parts()
    assert own["embed"] == own["query"] == "?fencing=off&tick=3"
    tour = LightPage("?tour=2").parts()
    assert "tour=2" in tour["embed"]


def test_the_tour_shows_no_way_back_to_the_articles_schedule_under_its_question():
    """Step 9 runs on a schedule of its own: its card says so, and a 'Back to the article's schedule'
    button would undo the step under its question. Out of the tour, the note comes back."""
    page = LightPage("?tour=9")
    assert "schedule-note" not in page.parts()["header"]
    page.act("leave", part="tour")
    assert "Not the article's schedule" in page.parts()["header"]


def test_a_move_of_the_player_draws_only_what_a_tick_changes_and_anything_else_draws_all():
    """A step or a play leaves the fixed parts as the page has them (they never change with the tick);
    a switch, a chapter or the tour's card draws every part again."""
    from app.tour import right_answers, steps

    started = json.loads(start("?preset=superseded&tick=3"))
    key = started["key"]
    for action, value in (("forward", ""), ("go", "9"), ("toggle", ""), ("advance", ""), ("speed", "fast")):
        parts = json.loads(act(key, action, value))
        whole = _pages[key].parts()
        assert not set(FIXED_PARTS) & set(parts), action
        assert {k: parts[k] for k in whole if k not in FIXED_PARTS} == {
            k: v for k, v in whole.items() if k not in FIXED_PARTS
        }, action
        assert {k: whole[k] for k in FIXED_PARTS} == {k: started[k] for k in FIXED_PARTS}, action
    for action, value in (("set", "fencing=off"), ("preset", "main"), ("reveal", "")):
        assert set(FIXED_PARTS) <= set(json.loads(act(key, action, value))), action
    close(key)
    key = json.loads(start("?tour=2"))["key"]
    (right,) = right_answers(steps()[1], _pages[key].state.trace)
    act(key, "answer", str(right), "tour")
    assert "Right." in json.loads(act(key, "check", "", "tour"))["tour"]  # the tour's own moves draw its card
    close(key)


def test_a_group_is_told_the_schedule_changed_only_when_it_did():
    """The sentence a frame of a group shows names what the other frame changed, and nothing else: a
    switch flipped says the switch and not the schedule; the article's schedule brought back says the
    schedule and no switch."""
    field = SCHEDULE_FIELDS[0]
    page = json.loads(start(f"?{field.id}={field.choices()[-1]}", "schedule-group"))
    flipped = json.loads(act(page["key"], "set", "fencing=off", "figure"))["changed"]
    assert "fencing from on to off" in flipped and "schedule" not in flipped
    reset = json.loads(act(page["key"], "article-schedule", ""))["changed"]
    assert "the schedule" in reset and "fencing" not in reset
    close(page["key"])
