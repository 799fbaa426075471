"""The page model (app.page.PageModel): every rule of the page, checked without a browser. Both pages wrap
it (the served app's views and the light page), so a rule broken here is broken on both, and caught here."""

from __future__ import annotations

import pytest

from app.explainer import create_app
from app.light import PARTS, LightPage
from app.page import PageModel
from app.state import PRESETS, SPEEDS, ReaderState

ENDING = "At the end (t"
OFFER = 'data-action="reveal"'


def page_at(query: str = "", tick: int = 0, playing: bool = False) -> PageModel:
    page = PageModel()
    page.state.apply_query(query)
    page.state.go(tick)
    page.state.playing = playing
    return page


END = ReaderState().end_tick
MID = END // 2
# (tick, playing) the player can be in: the first tick, the middle, the last, and playing in the middle
# and one before the end.
PLAYER_STATES = [(0, False), (MID, False), (END, False), (MID, True), (END - 1, True)]


def expected(action: str, value: str, tick: int, playing: bool) -> tuple[int, bool]:
    """The player's rules in words: a move pauses and stays within the run; play at the end starts again
    from t0; a tick of playback stops at the end; a tick that is not one, or anything else, changes
    nothing."""
    moves = {"first": 0, "back": max(0, tick - 1), "forward": min(END, tick + 1), "last": END}
    if action in moves:
        return moves[action], False
    if action == "toggle":
        return (0, True) if not playing and tick >= END else (tick, not playing)
    if action == "go" and value.isdigit() and len(value) <= 6:  # a tick of any run, or nothing at all
        return min(END, int(value)), False
    if action == "advance":
        return min(END, tick + 1), playing and tick + 1 < END
    return tick, playing


@pytest.mark.parametrize("tick,playing", PLAYER_STATES)
@pytest.mark.parametrize(
    "action,value",
    [
        ("first", ""),
        ("back", ""),
        ("forward", ""),
        ("last", ""),
        ("toggle", ""),
        ("go", "3"),
        ("go", "999999"),
        ("advance", ""),
        ("go", "-1"),
        ("go", "1e9"),
        ("go", "1234567"),
        ("speed", "9×"),
        ("rewind", ""),
    ],
)
def test_each_player_action_in_each_player_state(tick, playing, action, value):
    page = page_at(tick=tick, playing=playing)
    page.act(action, value, "player")
    assert (page.state.tick, page.state.playing) == expected(action, value, tick, playing)
    assert page.state.speed == "1×"


@pytest.mark.parametrize("speed", list(SPEEDS))
def test_a_speed_the_player_offers_is_taken(speed):
    page = page_at()
    page.act("speed", speed, "player")
    assert page.state.speed == speed


def test_the_tours_back_is_the_tours_and_the_players_back_the_players():
    page = page_at("?tour=3")
    tick = page.state.tick
    page.act("back", "", "player")
    assert (page.state.tour, page.state.tick) == (3, max(0, tick - 1))
    page.act("back", "", "tour")
    assert page.state.tour == 2


@pytest.mark.parametrize("part", ["header", "switches", "figure", ""])
def test_a_chapter_and_a_switch_mean_the_same_from_any_part(part):
    page = page_at("?preset=main", tick=5)
    page.act("preset", "pins-off", part)
    assert page.state.preset_name() == "pins-off" and page.state.tick == 0
    page.act("set", "fencing=off", part)
    assert page.state.fencing == "off"
    page.act("preset", "no-such-chapter", part)
    page.act("set", "fencing=sideways", part)
    assert page.state.fencing == "off" and page.state.preset_name() is None


def test_the_advanced_settings_open_and_close():
    page = page_at()
    page.act("advanced", "open")
    assert page.advanced_open and "advanced" in page.switches_html()
    page.act("advanced", "closed")
    assert not page.advanced_open


def test_the_schedule_can_be_put_back_and_its_editor_opened():
    page = page_at("?silent_at=s2&threshold=1")
    assert page.state.schedule_changes()
    page.act("edit-schedule")
    assert page.state.tab == "explore"
    page.act("article-schedule")
    assert not page.state.schedule_changes()


@pytest.mark.parametrize("chapter", list(PRESETS))
def test_the_ending_shows_only_at_the_last_tick_or_when_asked(chapter):
    page = page_at(f"?preset={chapter}")
    end = page.state.end_tick
    for tick in range(end):
        page.state.go(tick)
        assert not page.ending_shown and OFFER in page.outcome_html() and ENDING not in page.outcome_html()
    page.state.go(end)
    assert page.ending_shown and ENDING in page.outcome_html() and OFFER not in page.outcome_html()
    page.state.go(0)
    page.act("reveal", "end", "outcome")
    assert ENDING in page.outcome_html()
    page.state.go(1)
    assert ENDING in page.outcome_html(), "a reveal lasts while the run is the same"
    page.act("set", "fencing=off" if page.state.fencing == "on" else "fencing=on")
    assert ENDING not in page.outcome_html(), "another run: its ending is hidden again"


def test_the_light_page_and_the_served_app_show_the_same_outcome_at_every_tick():
    served = create_app("?preset=superseded&embed=1").explainer
    light = LightPage("?preset=superseded")
    for tick in range(light.state.end_tick + 1):
        served.state.go(tick)
        light.act("go", str(tick), "player")
        assert light.parts()["outcome"] == served.outcome.pane.html
    light.act("go", "0", "player")
    light.act("reveal", "end", "outcome")
    served.outcome.pane.html  # noqa: B018  (drawn)
    served.page.act("go", "0", "player")
    served.outcome._act("reveal", "end")
    assert light.parts()["outcome"] == served.outcome.pane.html and ENDING in served.outcome.pane.html


def test_a_badge_explains_itself_goes_to_its_breach_and_is_forgotten_with_the_run():
    page = page_at("?fencing=off")
    breach = next(i["breach"] for i in page.state.trace["invariants"] if i["id"] == "stale-write")
    page.act("explain", "stale-write", "badges")
    assert page.state.tick == breach["tick"] and f"Broken at t{breach['tick']}" in page.explanation
    assert page.explanation in page.badges_html(interactive=True)
    assert page.explanation not in page.badges_html(), "the light page's badges explain nothing"
    page.act("explain", "no-such-badge", "badges")
    assert f"Broken at t{breach['tick']}" in page.explanation
    page.act("set", "fencing=on")
    assert page.explanation == ""


def test_finished_explains_the_end_of_the_run():
    page = page_at()
    page.act("explain", "finished", "badges")
    assert page.state.tick == page.state.end_tick and "At the end of this run: finished." in page.explanation


def test_the_header_parts_each_layout_shows():
    page = page_at("?preset=main")
    full, compact = page.header_html(), page.header_html(compact=True, chapters=False)
    assert 'class="intro"' in full and 'class="intro"' not in compact
    assert 'data-action="preset"' in full and 'data-action="preset"' not in compact
    assert 'data-action="preset"' in page.header_html(compact=True, chapters=True)
    page.state.apply_query("?silent_at=s2")
    assert 'data-action="edit-schedule"' in page.header_html()
    assert 'data-action="edit-schedule"' not in page.header_html(editable=False)


def test_presenter_mode_s_line_of_chapters_under_the_diagram_is_the_menu_and_the_tour_alone():
    """The line under presenter mode's diagram: the chapters and the link into the tour, which stays in
    presenter mode; the title, the link's notices and the schedule's note stay in the header above."""
    page = page_at("?preset=main&present=1&silent_at=s2&speed=fast")
    assert page.state.notices and page.state.schedule_changes()
    line = page.header_html(compact=True, outside=False, menu_only=True)
    assert 'data-action="preset"' in line and 'href="?present=1&amp;tour=1"' in line
    assert "<h1" not in line and "notice" not in line and "schedule-note" not in line
    above = page.header_html(compact=True, chapters=False)
    assert "<h1" in above and "notice" in above and 'data-action="preset"' not in above
    assert 'href="?tour=1"' in page_at("?preset=main").header_html()  # a reader's page: the reader's tour


def test_the_player_parts_each_layout_shows():
    page = page_at(tick=3)
    figure, full = page.player_html(figure=True), page.player_html()
    assert 'data-action="speed"' not in figure and "badge-strip" not in figure
    assert 'data-action="speed"' in full and "badge-strip" in full
    assert page.player_html(keys=True) != page.player_html(keys=False)
    assert page.player_html(badges_always=True, keys=True) == page.player_html(badges_always=True, keys=False)


def test_the_light_page_has_every_part_and_the_served_app_draws_the_same_ones():
    light = LightPage("?preset=pins-off&tick=5")
    parts = light.parts()
    assert set(PARTS) <= set(parts)
    served = create_app("?preset=pins-off&tick=5").explainer
    assert parts["figure"] == light.page.diagram_html() and "t5" in parts["figure"]
    assert parts["switches"] == served.switches.html.html
    assert parts["badges"] == served.page.badges_html()  # the same badges, not buttons (they explain nothing)
    assert parts["outcome"] == served.page.outcome_html() and parts["player"] == served.page.player_html(
        badges_always=True
    )


def test_play_waits_at_a_key_moment_for_a_reader_and_not_for_a_presenter_who_narrates():
    """Play stays on a key moment (t8, #1 fenced) longer than on an ordinary tick for a reader; a presenter's
    playback keeps one pace (the presenter says what happens), as does a reader who turned the pause off."""
    from app.state import MOMENT_PAUSE

    moment = next(t for t, *_ in page_at("?tick=0").moments() if t > 0)
    ordinary = next(t for t in range(1, END) if t not in {m for m, *_ in page_at().moments()})
    reader, presenter, no_pause = (
        page_at(tick=moment),
        page_at("?present=1", moment),
        page_at("?pause=0", moment),
    )
    pace = SPEEDS[reader.state.speed]
    assert reader.period() == pace + MOMENT_PAUSE and page_at(tick=ordinary).period() == pace
    assert presenter.period() == pace and no_pause.period() == pace
