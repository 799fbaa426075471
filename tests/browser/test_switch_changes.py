"""What a switch changes, in a real browser (issue 29): the run before stays in view and names where the
runs part, a row's name clicked twice at one spot flips one switch and back, the journal's row shows why
a step is reused, the scrubber carries the key moments, and a message's dot travels between two ticks."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

STORES = "g.row-switch[data-key='row-stores']"
#: Every hover and focus text of the tick's picture and the player (through Panel's shadow roots): titles,
#: SVG titles, aria-labels. (The records' tables show digests by their hash, where a reader asks for them.)
HOVER_TEXTS = """() => {
  const found = [];
  const walk = (root) => {
    const inside = ".diagram-figure [title], .diagram-figure [aria-label], .diagram-figure title, "
      + ".playbar [title], .playbar [aria-label], .playbar title";
    for (const el of root.querySelectorAll(inside)) {
      found.push(el.tagName.toLowerCase() === "title" ? el.textContent : (el.getAttribute("title") || "")
        + " " + (el.getAttribute("aria-label") || ""));
    }
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return found;
}"""


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_fencing_off_at_t3_keeps_the_old_run_and_names_t8(explainer):
    page = explainer.open("?preset=main&tick=3").page
    page.locator(STORES).click()
    lead = page.locator(".lead")
    expect(lead).to_contain_text("You changed fencing from on to off", timeout=20000)
    expect(lead).to_contain_text("The runs part at t8")
    assert "fencing=off" in page.url
    lead.locator("[data-key='compare-step']").click()
    explainer.wait_tick(8)
    now = page.locator(".diagram-figure svg.diagram[role=img]").first
    expect(now).to_contain_text("journal applies it, although 41")  # this run: the stale write lands
    # The run before, in the same drawing: the cell that differs, outlined, with what it was.
    was = now.locator("rect.changed-cell title", has_text="journal refuses it: 41 < 42")
    expect(was).to_have_count(1)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        page.wait_for_timeout(1500)  # a resize redraws, and the travelling dots fade out after 1.2 s
        shot(page, f"before-after-main-t8-fencing-off-{width}.png")
    lead.locator("[data-key='compare-hide']").click()
    expect(page.locator("rect.changed-cell")).to_have_count(0)


def test_pins_off_at_t10_is_drawn_over_the_pinned_run(explainer):
    page = explainer.open("?preset=main&tick=10").page
    page.locator("g.row-switch[data-key='row-controller']").click()
    lead = page.locator(".lead")
    expect(lead).to_contain_text("The runs part at t5", timeout=20000)
    expect(lead).to_contain_text("Nothing superseded accepted")
    expect(page.locator("svg.diagram .mark.ghost").first).to_be_attached()
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        page.wait_for_timeout(1500)
        shot(page, f"before-after-pins-off-t10-{width}.png")


def test_a_row_name_clicked_twice_at_one_spot_flips_one_switch_and_back(explainer):
    page = explainer.open("?preset=main&tick=8").page
    page.locator(STORES).scroll_into_view_if_needed()
    box = page.locator(STORES).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    expect(page).to_have_url(re.compile("fencing=off"), timeout=20000)
    page.wait_for_timeout(1600)  # the page redraws (and holds the row still) before the second click
    page.mouse.click(x, y)
    expect(page).not_to_have_url(re.compile("fencing=off"), timeout=20000)
    assert not re.search(r"post_key|newsletter|checkpoints|silent|change=", page.url), page.url


def test_the_journal_row_shows_s1_reused_and_s2_redone_and_pins_off_reuses_s2_by_name(explainer):
    page = explainer.open("?preset=main&tick=5").page
    drawing = page.locator(".diagram-figure svg.diagram[role=img]").first
    expect(drawing).to_contain_text("s1 · v1/v2 · 41 ✓ same in v2")
    expect(drawing).to_contain_text("s2 · v1 · 41 ✗ not v2: redo")
    explainer.open("?preset=pins-off&tick=5")
    drawing = page.locator(".diagram-figure svg.diagram[role=img]").first
    expect(drawing).to_contain_text("s2 · (v1) · 41 ✓ by name only")
    expect(page.locator("svg.diagram-names").first).to_contain_text("2 unpinned")


def test_no_hover_or_focus_text_shows_a_hash(explainer):
    page = explainer.open("?preset=pins-off&tick=13").page
    page.locator(".moment-mark").first.wait_for()
    texts = page.evaluate(HOVER_TEXTS)
    assert texts and not [t for t in texts if re.search(r"\b[0-9a-f]{8}\b", t)]


def test_the_scrubber_carries_the_key_moments_and_a_mark_jumps_there(explainer):
    page = explainer.open("?preset=main&tick=0").page
    marks = page.locator(".moment-mark")
    expect(marks).to_have_count(9)
    page.locator(".moment-mark[data-value='8']").click()
    explainer.wait_tick(8)
    assert (
        page.locator(".moment-mark[data-value='8']").get_attribute("aria-label") == "Key moment t8: #1 fenced"
    )


#: Presses Forward and, for two seconds, notes every place the current tick's first travelling dot is
#: drawn at (through Panel's shadow roots).
DOT_PLACES = """() => new Promise((resolve) => {
  const all = (selector) => {
    const found = [];
    const walk = (root) => {
      found.push(...root.querySelectorAll(selector));
      for (const el of root.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(document);
    return found;
  };
  const places = new Set(), start = performance.now();
  all("button.forward")[0].click();
  const look = () => {
    const dot = all(".diagram-figure svg.diagram[role=img] circle.travel")[0];
    if (dot) {
      const box = dot.getBoundingClientRect();
      places.add(`${Math.round(box.x)},${Math.round(box.y)}`);
    }
    if (performance.now() - start < 2000) requestAnimationFrame(look);
    else resolve([...places]);
  };
  look();
})"""


def test_a_message_s_dot_travels_from_sender_to_receiver(explainer):
    page = explainer.open("?preset=main&tick=7").page
    page.locator("circle.travel").first.wait_for(state="attached")
    places = page.evaluate(DOT_PLACES)
    explainer.wait_tick(8)
    assert len(places) >= 3, places  # t7's dot at rest, then t8's on its way


def test_under_reduced_motion_nothing_travels(page, explainer_url):
    from tests.browser.conftest import ExplainerPage

    page.emulate_media(reduced_motion="reduce")
    ExplainerPage(page, explainer_url).open("?preset=main&tick=8")
    expect(page.locator("circle.travel").first).to_be_hidden()


def open_outside_chapter(explainer, preset: str, tick: int):
    """The served app at a chapter outside the article, the one its chapters' menu shows; the page."""
    explainer.open(f"?preset={preset}&tick={tick}")
    page = explainer.page
    expect(page.locator("select.chapter-menu")).to_have_value(preset)
    return page


def test_a_chapter_outside_the_article_says_what_the_feed_forgot(explainer):
    """The served app's chapter of the feed that forgets keys, at the tick it forgets and the tick the
    resend is posted again."""
    page = open_outside_chapter(explainer, "forgotten-key", 13)
    expect(page.locator(".tick-caption").first).to_contain_text("The feed forgets key A")
    explainer.press("forward")
    explainer.wait_tick(14)
    expect(page.locator(".tick-caption").first).to_contain_text("the feed has forgotten it")
    expect(page.locator(".badge-duplicate-effect").first).to_contain_text("broken")


def test_a_chapter_outside_the_article_shows_the_undeclared_input_and_the_sixth_check(explainer):
    """The served app's chapter of the overview that reads section 2 outside its key (RULES.md §8.2): the
    restore says what its key did not name, the acceptance breaks only the sixth badge, and the
    newsletter's tick says the accepted digest is wrong."""
    page = open_outside_chapter(explainer, "undeclared-input", 5)
    expect(page.locator(".tick-caption").first).to_contain_text("the summary also read s2 from v1")
    expect(page.locator(".diagram-figure").first).to_contain_text("it read s2 from v1")  # the line wraps
    explainer.open("?preset=undeclared-input&tick=10")
    expect(page.locator(".tick-caption").first).to_contain_text("a build of v2 from scratch would differ")
    expect(page.locator(".badge-rebuild-differs").first).to_contain_text("broken")
    for five in (
        "duplicate-effect",
        "stale-write",
        "superseded-accepted",
        "dependant-misled",
        "double-acceptance",
    ):
        expect(page.locator(f".badge-{five}").first).to_contain_text("held")
    explainer.open("?preset=undeclared-input&tick=12")
    expect(page.locator(".tick-caption").first).to_contain_text("Every record calls this digest dependable")


def test_a_chapter_outside_the_article_shows_a_controller_restart_giving_a_token_out_twice(explainer):
    """The served app's chapter of the controller that restarts with its epoch in memory (RULES.md §8.3):
    the restart's tick says so in the controller's row, and the tick #1 wakes breaks No stale write with
    fencing on; durable, the same tick fences #1."""
    page = open_outside_chapter(explainer, "controller-restart", 4)
    expect(page.locator(".tick-caption").first).to_contain_text("publishes epoch 41 again")
    expect(page.locator(".diagram-figure").first).to_contain_text("restarts from nothing")
    explainer.open("?preset=controller-restart&tick=8")
    expect(page.locator(".tick-caption").first).to_contain_text(
        "Fencing is on, yet #1's write with token 41 lands"
    )
    expect(page.locator(".badge-stale-write").first).to_contain_text("broken")
    explainer.open("?controller_restart=at-t4-durable&tick=8")
    expect(page.locator(".tick-caption").first).to_contain_text("it is refused")
    expect(page.locator(".badge-stale-write").first).to_contain_text("held")


def test_a_chapter_outside_the_article_shows_records_lost_and_a_second_digest(explainer):
    """The served app's chapter of lost records (RULES.md §8.4): the stores' row says what was lost at t12,
    and the second digest's acceptance at t19 breaks One acceptance per input."""
    page = open_outside_chapter(explainer, "records-lost", 12)
    expect(page.locator(".tick-caption").first).to_contain_text("the acceptance log and the effect records")
    expect(page.locator(".diagram-figure").first).to_contain_text("5 journal records")
    explainer.open("?preset=records-lost&tick=19")
    expect(page.locator(".tick-caption").first).to_contain_text("A second digest")
    expect(page.locator(".badge-double-acceptance").first).to_contain_text("broken")
