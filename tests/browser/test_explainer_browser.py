"""The served explainer in headless Chromium: what a reader can do, checked against the model."""

from __future__ import annotations

import re
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import expect

from app.content import titles
from app.state import PRESETS
from model import Switches, run
from model.explore import schedule_list, space_with
from model.switches import ALL_SETTINGS, Role, allowed_values, ids_of
from tests.browser.conftest import (
    assert_four_frames_fit,
    assert_frames_hold_still,
    settled_height,
    tell_the_group_quickly,
)
from tests.conftest import ARTIFACTS, ROOT

pytestmark = pytest.mark.browser


def broken_line(outcome: dict) -> str:
    """The outcome's line of invariants broken: the badges' names, as a reader meets them."""
    names = titles("invariants")
    return ", ".join(names[i] for i in outcome["invariants_broken"]) or "none"


def test_page_loads_with_no_console_errors(explainer, console_errors):
    explainer.open()
    expect(explainer.page.locator(".tick-now")).to_have_text("t0")
    explainer.page.wait_for_timeout(1000)
    assert console_errors == []


@pytest.mark.parametrize("setting", [s for s in ALL_SETTINGS if s not in ids_of(Role.ADVANCED)])
def test_each_toggle_changes_the_outcome_as_the_model_says(explainer, setting):
    explainer.open()
    for value in allowed_values(setting)[1:]:
        explainer.switch(setting, value)
        expected = run(Switches(**{setting: value})).outcome().to_dict()
        explainer.reveal()
        outcome = explainer.page.locator(".outcome-view")
        expect(outcome).to_contain_text(f"{expected['model_calls']} against a minimum of 4")
        expect(outcome.get_by_role("row", name=re.compile("invariants broken"))).to_contain_text(
            broken_line(expected)
        )
        explainer.switch(setting, allowed_values(setting)[0])
        explainer.reveal()
        expect(outcome.get_by_role("row", name=re.compile("invariants broken"))).to_contain_text("none")


def test_stepping_and_scrubbing_show_the_right_tick(explainer):
    explainer.open()
    for _ in range(3):
        explainer.press("forward")
    explainer.wait_tick(3)
    explainer.press("back")
    explainer.wait_tick(2)
    explainer.press("last")
    explainer.wait_tick(14)
    explainer.press("first")
    explainer.wait_tick(0)
    # Scrub: click the slider three quarters of the way along.
    track = explainer.page.locator(".scrub input[type=range]")
    expect(track).to_have_attribute("aria-valuetext", "Tick t0 of t14")
    box = track.bounding_box()
    explainer.page.mouse.click(box["x"] + box["width"] * 0.75, box["y"] + box["height"] / 2)
    explainer.page.wait_for_timeout(800)
    shown = int(explainer.tick()[1:])
    assert 9 <= shown <= 12
    expect(explainer.page.locator(".now")).to_contain_text(f"At t{shown}")
    expect(track).to_have_attribute("aria-valuetext", f"Tick t{shown} of t14")


BADGE_RUNS = [
    ({"fencing": "off", "silent": "paused", "change": "never"}, ["stale-write", "double-acceptance"]),
    ({"post_key": "none", "poster": "dies"}, ["duplicate-effect"]),
    ({"pins": "off"}, ["superseded-accepted", "dependant-misled"]),
]


@pytest.mark.parametrize("switches,invariants", BADGE_RUNS, ids=["fencing-off", "no-key", "pins-off"])
def test_badges_turn_at_the_right_tick(explainer, switches, invariants):
    trace_run = run(Switches(**switches))
    from model import trace_dict

    breaches = {i["id"]: i["breach"]["tick"] for i in trace_dict(trace_run)["invariants"] if i["breach"]}
    assert set(breaches) == set(invariants)
    query = "?" + "&".join(f"{k}={v}" for k, v in switches.items())
    for invariant in invariants:
        tick = breaches[invariant]
        explainer.open(f"{query}&tick={tick - 1}")
        expect(explainer.page.locator(f".badge-{invariant}")).to_contain_text("held")
        explainer.press("forward")
        expect(explainer.page.locator(f".badge-{invariant}")).to_contain_text(f"broken at t{tick}")


def test_url_round_trip_and_back_button(explainer):
    page = explainer.page
    explainer.open()
    explainer.switch("fencing", "off")
    page.wait_for_url(re.compile(r"fencing=off"))
    explainer.press("forward")
    page.wait_for_url(re.compile(r"tick=1"))
    page.reload()
    page.locator(".tick-now").wait_for()
    explainer.wait_tick(1)
    explainer.reveal()
    expect(page.locator(".outcome-view")).to_contain_text(titles("invariants")["stale-write"])
    page.go_back()  # to the URL before the step: fencing off at t0
    explainer.wait_tick(0)
    page.go_back()  # to the main trace
    explainer.reveal()
    expect(
        page.locator(".outcome-view").get_by_role("row", name=re.compile("invariants broken"))
    ).to_contain_text("none")


def test_a_bad_url_value_falls_back_with_a_visible_notice(explainer):
    explainer.open("?fencing=sometimes&tick=3")
    expect(explainer.page.locator(".notice")).to_contain_text(
        "'sometimes' is not a value of fencing (allowed: on, off)"
    )
    explainer.wait_tick(3)


def test_keyboard_only_control(explainer):
    page = explainer.page
    explainer.open()
    page.keyboard.press("End")
    explainer.wait_tick(14)
    page.keyboard.press("Home")
    explainer.wait_tick(0)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    explainer.wait_tick(2)
    page.keyboard.press("ArrowLeft")
    explainer.wait_tick(1)
    page.keyboard.press(" ")
    expect(page.locator("button.play")).to_contain_text("Pause")
    page.keyboard.press(" ")
    expect(page.locator("button.play")).to_contain_text("Play")
    # Tab reaches the presets, and Enter chooses one.
    focused = ""
    for _ in range(60):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => { let e = document.activeElement; while (e && e.shadowRoot && e.shadowRoot.activeElement)"
            " e = e.shadowRoot.activeElement; return e ? e.tagName + ':' + e.textContent.trim() : ''; }"
        )
        if focused.startswith("SELECT:"):
            break
    assert focused.startswith("SELECT:") and "Version checks off" in focused
    # A native menu: the arrow keys choose (Chromium's closed <select> changes on ArrowDown).
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(page.locator("select.chapter-menu")).to_have_value("pins-off")
    explainer.reveal()
    expect(page.locator(".outcome-view")).to_contain_text(
        titles("invariants")["superseded-accepted"], timeout=15000
    )


def test_playing_advances_by_itself_and_stops_at_the_end(explainer):
    explainer.open("?tick=12")
    explainer.page.locator(".speed select").select_option("4×")
    explainer.press("play")
    explainer.wait_tick(14)
    expect(explainer.page.locator("button.play")).to_contain_text("Play")


def test_embed_layout_is_compact(explainer):
    explainer.open("?embed=1")
    expect(explainer.page.locator(".explainer.embed")).to_have_count(1)
    expect(explainer.page.get_by_role("tab", name="Glossary")).to_have_count(0)
    explainer.press("last")
    explainer.wait_tick(14)


def heading_of(preset: str) -> str:
    """A chapter's title, as content/presets.md writes it in bold."""
    from app.content import text, title_and_body

    return title_and_body(text("presets", preset))[0]


@pytest.mark.parametrize("preset", PRESETS)
def test_each_preset_ends_as_the_model_says_and_is_screenshot(explainer, preset):
    from app.url import OUTSIDE_ARTICLE
    from model import trace_dict

    explainer.open()
    page = explainer.page
    explainer.chapter(preset)
    if preset in OUTSIDE_ARTICLE:  # in the menu's group of the chapters outside the article
        group = page.locator("select.chapter-menu optgroup")
        expect(group.locator(f'option[value="{preset}"]')).to_have_count(1)
    expect(page.locator(".lead")).to_contain_text(heading_of(preset))
    explainer.press("last")
    result = run(Switches(**PRESETS[preset]))
    explainer.wait_tick(result.end_tick)
    expected = result.outcome()
    expect(page.locator(".outcome-view")).to_contain_text(f"{expected.model_calls} against a minimum of 4")
    for inv in trace_dict(result)["invariants"]:
        expect(page.locator(f".badge-{inv['id']}")).to_contain_text("broken" if inv["breach"] else "held")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"preset-{preset}.png"), full_page=True)
    # And at the chapter's key tick: where its first invariant breaks, else where the woken #1 is fenced.
    trace = trace_dict(result)
    breaks = [i["breach"]["tick"] for i in trace["invariants"] if i["breach"]]
    fenced = [f["tick"] for f in trace["ticks"] for e in f["events"] if e["kind"] == "fenced"]
    key = min(breaks) if breaks else fenced[0]
    explainer.open(f"?preset={preset}&tick={key}")
    explainer.wait_tick(key)
    page.screenshot(path=str(ARTIFACTS / f"preset-{preset}-t{key}.png"), full_page=True)


def test_inside_an_iframe_the_app_tells_its_parent_ready_height_and_url(page, explainer_url):
    page.goto(explainer_url.replace("/explainer", "/pages/host.html"))  # a page of the app's own origin
    page.wait_for_function("() => got.some(m => m.type === 'durable-work-explainer:ready')", timeout=60000)
    page.wait_for_function(
        "() => got.some(m => m.type === 'durable-work-explainer:height' && m.height > 300)"
    )
    page.frame_locator("#explainer").locator("button.forward").click()
    page.wait_for_function(
        "() => got.some(m => m.type === 'durable-work-explainer:url' && m.search.includes('tick=1'))",
        timeout=20000,
    )


def test_four_figure_embeds_fit_their_frames_at_once_and_move_together(page, explainer_url):
    """An article with the README's snippet four times at 700 px (the whole embed, the diagram, the
    lifecycles, the badges), sized by the served app's /assets/embed.js, none scrolled into view: each
    frame is its content's height within 10 px, none scrolls nor changes height for 15 s, and with
    ?group= a step in one figure moves the other three, and ticks told in quick succession move them all
    without an echo."""
    page.set_viewport_size({"width": 1000, "height": 800})
    page.goto(explainer_url.replace("/explainer", "/pages/figures.html?group=article"))
    page.wait_for_function(
        "() => got.filter(m => m.type === 'durable-work-explainer:ready').length === 4",
        timeout=90000,
    )
    page.wait_for_timeout(1500)  # the last height messages after the first drawing
    assert_four_frames_fit(page, "embed-figures-in-host.png")
    assert_frames_hold_still(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    frames = [f for f in page.frames if f.parent_frame is not None]
    diagram = next(f for f in frames if "view=timeline" in f.url)
    for n in (1, 2, 3):  # a reader's clicks, each once the one before has been drawn
        diagram.locator("button.forward").click()
        expect(diagram.locator(".tick-now")).to_have_text([f"t{n}"], timeout=20000)
    for frame in frames:  # one player each, all at t3
        expect(frame.locator(".tick-now")).to_have_text(["t3"], timeout=20000)
    # Ticks told faster than Python answers: each frame follows all of them and tells none back (an echo
    # of an intermediate tick would pull the others back to it).
    tell_the_group_quickly(page, "article", [4, 5, 6])
    for frame in frames:
        expect(frame.locator(".tick-now")).to_have_text(["t6"], timeout=20000)
    page.wait_for_timeout(1500)
    assert page.evaluate("() => window.echoes") == []
    for frame in frames:
        expect(frame.locator(".tick-now")).to_have_text(["t6"])


def test_only_its_own_origin_and_named_hosts_may_frame_the_served_app(page, explainer_url):
    with urllib.request.urlopen(explainer_url, timeout=30) as response:
        assert response.headers["Content-Security-Policy"] == "frame-ancestors 'self'"
    # The same host page from another origin (localhost, not 127.0.0.1): the browser refuses the frame.
    page.goto(explainer_url.replace("/explainer", "/pages/host.html").replace("127.0.0.1", "localhost"))
    page.wait_for_timeout(3000)
    assert page.evaluate("() => window.got.length") == 0
    framed = [f for f in page.frames if f.parent_frame is not None]
    assert framed and not framed[0].url.startswith("http://127.0.0.1")


def test_the_frame_ancestors_setting_takes_origins_only():
    from app.serving import frame_ancestors

    assert frame_ancestors("https://article.example http://127.0.0.1:8000") == (
        "frame-ancestors 'self' https://article.example http://127.0.0.1:8000"
    )
    for bad in ("*", "https://x.example; script-src *", "javascript:alert(1)"):
        with pytest.raises(SystemExit, match="takes origins like"):
            frame_ancestors(bad)


def test_the_views_are_a_tablist_for_the_keyboard(explainer):
    page = explainer.page
    explainer.open("?tick=3")
    trace_tab = page.get_by_role("tab", name="Lifecycles and records")
    expect(trace_tab).to_have_attribute("aria-selected", "true")
    trace_tab.focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="Switches")).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowRight")
    compare_tab = page.get_by_role("tab", name="Compare")
    expect(compare_tab).to_have_attribute("aria-selected", "true")
    expect(compare_tab).to_be_focused()
    expect(page.locator(".compare-view")).to_contain_text("every protection on")
    page.keyboard.press("End")
    expect(page.get_by_role("tab", name="Glossary")).to_have_attribute("aria-selected", "true")
    expect(page.locator(".glossary")).to_contain_text("owner token")
    explainer.wait_tick(3)  # arrow keys on a tab move between tabs, never the tick
    page.wait_for_url(re.compile(r"tab=glossary"))


@pytest.fixture
def local_only(page, explainer_url):
    """Every request that leaves the app's own server is aborted and listed."""
    origin = explainer_url.rsplit("/", 1)[0]
    outside: list[str] = []

    def route(r):
        if r.request.url.startswith(origin) or r.request.url.startswith("ws://127.0.0.1"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return outside


def test_the_served_app_needs_no_network_in_any_view(explainer, local_only, console_errors):
    explainer.open()
    for tab in [
        "Compare",
        "All 864",
        "Explore",
        "Real engines",
        "Text view",
        "Glossary",
        "Switches",
        "Lifecycles and records",
    ]:
        explainer.page.get_by_role("tab", name=tab).click()
        expect(explainer.page.get_by_role("tab", name=tab)).to_have_attribute("aria-selected", "true")
        explainer.page.wait_for_timeout(800)
    assert local_only == [] and console_errors == []


def test_a_hostile_link_shows_its_values_as_text_and_fetches_nothing(explainer, local_only):
    beacon = "![x](http://198.51.100.7/beacon.png)"
    explainer.open(
        "?" + urllib.parse.urlencode({"fencing": beacon, "preset": "[log in again](https://x.example)"})
    )
    notice = explainer.page.locator(".notice")
    expect(notice).to_contain_text(beacon)
    expect(notice.locator("a, img")).to_have_count(0)
    explainer.page.wait_for_timeout(1000)
    assert local_only == []
    for odd in ("²", "①", "9" * 5000):
        explainer.open("?tick=" + urllib.parse.quote(odd))
        explainer.wait_tick(0)
        expect(explainer.page.locator(".notice")).to_contain_text("tick must be a whole number")


def test_explore_loads_the_smallest_case_into_the_player_by_keyboard(explainer):
    explainer.open("?tab=explore&fencing=off")
    load = explainer.page.get_by_role("button", name="Load the smallest case (one acceptance per input)")
    expect(load).to_be_visible(timeout=30000)
    load.focus()
    explainer.page.keyboard.press("Enter")
    expect(explainer.page.get_by_role("tab", name="Lifecycles and records")).to_have_attribute(
        "aria-selected", "true"
    )
    expect(explainer.page.locator(".badges")).to_contain_text("One acceptance per input: broken")
    explainer.page.wait_for_url(re.compile(r"fencing=off&.*threshold=1"))


def test_explore_searches_wider_ranges_on_demand_and_says_how_many_first(explainer):
    wider = len(schedule_list(space_with({"silent_for": "1 to 10 ticks, or never"})))
    explainer.open("?tab=explore&fencing=off")
    page = explainer.page
    page.get_by_label("Silences last").select_option("1 to 10 ticks, or never")
    search = page.get_by_role("button", name="Search these ranges")
    search.focus()
    page.keyboard.press("Enter")
    results = page.locator(".explore-wider")
    expect(results).to_contain_text(f"against {wider} schedules", timeout=60000)
    expect(results.get_by_role("button").first).to_be_visible(timeout=60000)
    expect(search).to_be_enabled()
    results.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explore-wider-1280.png"), full_page=False)
    page.set_viewport_size({"width": 390, "height": 844})
    results.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "explore-wider-390.png"), full_page=False)


AXE = ROOT / ".tools" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.mark.parametrize("tab", ["trace", "compare", "sweep", "explore", "text", "glossary"])
def test_axe_finds_nothing_serious_in_any_view(explainer, tab):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing; ./dev test installs npm's axe-core")
    explainer.open(f"?tab={tab}&fencing=off&tick=8")
    explainer.page.wait_for_timeout(1000)
    explainer.page.evaluate(AXE.read_text())
    found = explainer.page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length}))"
    )
    serious = [v for v in found if v["impact"] in ("serious", "critical")]
    assert serious == [], serious
    assert not any(v["id"] == "landmark-one-main" for v in found)


@pytest.mark.parametrize("query", ["?tour=2", "?tour=9&present=1", "?present=1&tick=8", "?print=1"])
def test_axe_finds_nothing_serious_in_the_classroom_layouts(explainer, query):
    explainer.page.goto(explainer.base_url + query)
    explainer.page.locator(".tick-now, .handout-page").first.wait_for(timeout=60000)
    explainer.page.wait_for_timeout(1000)
    explainer.page.evaluate(AXE.read_text())
    found = explainer.page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length}))"
    )
    assert [v for v in found if v["impact"] in ("serious", "critical")] == [], found
    assert not any(v["id"] == "landmark-one-main" for v in found)


def test_a_phone_gets_one_column_with_the_badges_by_the_player(browser, explainer_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(explainer_url + "?fencing=off&change=never&tick=7")
        page.locator(".tick-now").wait_for(timeout=60000)
        strip = page.locator(".badge-strip")
        expect(strip).to_be_visible()
        expect(strip).not_to_contain_text("No stale write: broken")
        page.locator("button.forward").tap()
        expect(strip).to_contain_text("No stale write: broken at t8")  # seen right under the button pressed
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "phone-390.png"), full_page=True)
    finally:
        context.close()


def test_the_embed_fits_its_host_and_resizes_it(page, explainer_url):
    host = explainer_url.replace("/explainer", "/pages/host.html")
    page.set_viewport_size({"width": 760, "height": 1000})
    page.goto(host + "?width=700&src=" + urllib.parse.quote("/explainer?embed=1&preset=superseded"))
    frame = page.frame_locator("#explainer")
    expect(frame.locator(".lead")).to_contain_text("Accepted, then superseded")
    expect(frame.locator("h1")).to_have_count(1)
    page.wait_for_function("() => got.some(m => m.type === 'durable-work-explainer:height')", timeout=60000)
    page.wait_for_timeout(1500)
    closed = page.evaluate("() => got.filter(m => m.type === 'durable-work-explainer:height').at(-1).height")
    # About 1,100 px at 700 px wide, switches folded away: room for the run's longest caption and tallest
    # tick, so the frame keeps its height from the first tick to the last (issue 35).
    assert 500 < closed <= 1150, closed
    told = "() => got.filter(m => m.type === 'durable-work-explainer:height').at(-1).height"
    end = run(Switches.from_mapping(PRESETS["superseded"])).end_tick
    frame.locator("input[type=range][data-action=go]").fill(str(end))  # the scrubber's end
    expect(frame.locator(".tick-now")).to_have_text(f"t{end}")
    expect(frame.locator("details.outcome-end")).to_be_visible()  # the ending, folded: one line
    page.wait_for_timeout(1500)
    assert abs(page.evaluate(told) - closed) <= 2, (closed, page.evaluate(told))
    frame.locator("input[type=range][data-action=go]").fill("0")
    expect(frame.locator(".tick-now")).to_have_text("t0")
    frame.get_by_text("Switches", exact=True).click()
    page.wait_for_function(
        f"() => got.filter(m => m.type === 'durable-work-explainer:height').at(-1).height > {closed + 300}"
    )
    frame.get_by_text("Switches", exact=True).click()  # and folded again, the host's frame shrinks back
    page.wait_for_function(
        f"() => got.filter(m => m.type === 'durable-work-explainer:height').at(-1).height <= {closed + 5}"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "embed-in-host.png"), full_page=True)


@pytest.mark.parametrize(
    "view,shows",
    [("timeline", ".tick-caption"), ("lifecycles", "svg.lifecycle-graph"), ("badges", ".badges-view")],
)
def test_a_figure_embed_shows_one_picture_with_the_player(explainer, view, shows):
    page = explainer.page
    explainer.open(f"?embed=1&view={view}&preset=superseded&tick=13")
    explainer.wait_tick(13)
    expect(page.locator(shows).first).to_be_visible()
    expect(page.get_by_role("tab")).to_have_count(0)
    if view == "lifecycles":
        expect(page.locator("svg.lifecycle-graph")).to_have_count(3)
    explainer.press("forward")
    explainer.wait_tick(14)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"figure-{view}.png"), full_page=True)


def test_clicking_a_row_of_the_diagram_changes_the_story(explainer):
    """As RaftScope lets a reader crash a node: the stores' row turns fencing off, by mouse and by key."""
    page = explainer.page
    explainer.open("?tick=8")
    page.locator('.diagram-wide g.row-switch[data-value="fencing=off"]').click()
    expect(page.locator('.diagram-wide g.row-switch[data-value="fencing=on"]')).to_have_count(1)
    page.wait_for_url(re.compile(r"fencing=off"))
    assert explainer.tick() == "t8"  # the same moment, another story
    page.locator('.diagram-wide g.row-switch[data-value="fencing=on"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator('.diagram-wide g.row-switch[data-value="fencing=off"]')).to_have_count(1)


def test_the_served_embed_is_one_height_as_the_readme_says(page, explainer_url):
    """``?embed=1`` at 700 px: every chapter at its first and last tick, and a switch, within 2 px, and
    the README's figure within 3 px (issue 44: 933 px for the main chapter, 994 for the superseded one).
    An undeclared input's run has a seventh badge, a row more, as the README says."""
    said = re.search(r"at 700 px wide, an iframe sized by\s+`embed.js` is (\d+) px tall for every\s+chapter",
                     (ROOT / "README.md").read_text())  # fmt: skip
    assert said, "the README gives the served embed's height"
    # What a frame tells its host page (and embed.js gives the iframe): its content and this margin.
    margin = re.search(
        r"getBoundingClientRect\(\)\.height\) \+ (\d+);", (ROOT / "app/views/js/frame.js").read_text()
    )
    page.set_viewport_size({"width": 700, "height": 900})
    from app.state import ReaderState

    seen = {}
    for preset in (p for p in PRESETS if p != "undeclared-input"):
        state = ReaderState()
        state.apply_preset(preset)
        for tick in (0, state.end_tick):
            page.goto(f"{explainer_url}?embed=1&preset={preset}&tick={tick}")
            page.locator(".tick-now").first.wait_for()
            seen[f"{preset} t{tick}"] = settled_height(page)
    page.locator("g.row-switch[data-key='row-stores']").first.click()
    expect(page.locator(".lead").first).to_contain_text("fencing")
    seen["a switch"] = settled_height(page)
    assert max(seen.values()) - min(seen.values()) <= 2, seen
    assert abs(min(seen.values()) + int(margin.group(1)) - int(said.group(1))) <= 3, (said.group(1), seen)
