"""The classroom path in a real browser: the tour by keyboard, presenter mode on two projector sizes (with
screenshots in the test artifacts), and the handout printed to PDF and read back with pdftotext."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from playwright.sync_api import expect

from app.render.diagram import said
from app.state import PRESETS
from app.tour import right_answers, steps
from model import Switches, run, trace_dict
from model.invariants import INVARIANT_IDS
from tests.browser.conftest import FIND_DIAGRAM
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

# The focused element, through every shadow root on the way down.
DEEP_FOCUS = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el ? (el.getAttribute('aria-label') || el.innerText || el.value || el.tagName).trim() : '';
}"""


def test_the_tour_by_keyboard_asks_then_shows_then_moves_on(explainer):
    step = steps()[1]
    explainer.open("?tour=2")
    page = explainer.page
    expect(page.get_by_role("heading", name=re.compile("Tour, step 2 of"))).to_be_visible()
    explainer.wait_tick(step.ask - 1)  # asked before the tick it is about
    state_trace = trace_dict(run(Switches(fencing="off", change="never")))
    (right,) = right_answers(step, state_trace)
    page.get_by_role("radio", name=step.answers[right].text).focus()
    page.keyboard.press("Space")
    expect(page.get_by_role("radio", name=step.answers[right].text)).to_be_checked()
    page.get_by_role("button", name="Check my answer and show the tick").focus()
    page.keyboard.press("Enter")
    explainer.wait_tick(step.ask)
    expect(page.locator(".tour-verdict")).to_contain_text("Right.")
    page.get_by_role("button", name="Next step ▶").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"tour=3"))
    expect(page.get_by_role("heading", name=re.compile("Tour, step 3 of"))).to_be_visible()
    page.get_by_role("button", name="Leave the tour (keep these switches)").click()
    page.wait_for_url(lambda url: "tour=" not in url)
    expect(page.locator(".tour")).to_have_count(0)


@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
def test_presenter_mode_fits_one_screen_and_every_control_takes_the_keyboard(
    browser, explainer_url, width, height
):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(explainer_url + "?present=1&post_key=none&tick=14")
        page.locator(".tick-now").wait_for(timeout=60000)
        page.wait_for_timeout(1500)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"presenter-{width}x{height}.png")
        # On a 1920x1080 projector the badges sit beside the whole drawing, on one screen. On 1280x720 the
        # words are 18 px (issue 35): the badges' line comes over the drawing, whose whole run is one
        # screen wide and is scrolled to (test_views_readable measures its tick labels).
        wide = width >= 1500
        badges = "ul.badges:visible" if wide else "ul.badge-strip:visible"
        boxes = {what: page.locator(what).first.bounding_box() for what in (badges, ".tick-now")}
        page.evaluate(FIND_DIAGRAM)  # finds the diagram's SVG through the shadow roots
        drawing = page.evaluate(
            "(() => { const r = window.__diagram.getBoundingClientRect();"
            " return {x: r.x, y: r.y, width: r.width, height: r.height}; })()"
        )
        if wide:
            boxes["diagram"] = drawing
            # The side column keeps clear of the player's line: the speed's menu ended against "Invariants".
            speed = page.locator(".speed select").first.bounding_box()
            assert speed["x"] + speed["width"] + 8 <= boxes[badges]["x"], (speed, boxes[badges])
        else:
            assert drawing["y"] < height and drawing["x"] + drawing["width"] <= width, drawing
        for what, box in boxes.items():
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (what, box)
            assert box["x"] + box["width"] <= width, (what, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert float(page.evaluate("getComputedStyle(document.documentElement).fontSize")[:-2]) >= 17
        if width >= 1920:  # the back of the room: every word of the diagram at 24 px or more
            smallest = page.evaluate(
                """() => { const svg = window.__diagram;
                  const scale = svg.getBoundingClientRect().width / svg.width.baseVal.value;
                  return Math.min(...[...svg.querySelectorAll("text")].map(
                    (t) => parseFloat(getComputedStyle(t).fontSize) * scale)); }"""
            )
            assert smallest >= 24, smallest
        reached = set()
        for _ in range(70):  # the key moments under the scrubber are stops too
            page.keyboard.press("Tab")
            reached.add(page.evaluate(DEEP_FOCUS))
        for control in ("The main trace", "▶ Play", "▶ Forward", "1×"):
            assert any(control in r for r in reached), f"{control}: {sorted(reached)}"
        assert "Show the switches" in reached, f"{sorted(reached)}"
    finally:
        context.close()


def _pdf_text(page, url: str, name: str) -> tuple[int, str]:
    page.goto(url)
    page.locator(".tick-now, .handout-page").first.wait_for(timeout=60000)
    page.wait_for_timeout(500)
    page.emulate_media(media="print")
    path = ARTIFACTS / name
    ARTIFACTS.mkdir(exist_ok=True)
    page.pdf(path=str(path), format="A4", print_background=True)
    info = subprocess.run(["pdfinfo", path], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    text = subprocess.run(
        ["pdftotext", "-layout", path, "-"], capture_output=True, text=True, check=True
    ).stdout
    return pages, " ".join(text.split())


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="./dev test installs poppler-utils")
@pytest.mark.parametrize("query", ["?print=1", "?tab=compare&tick=6"], ids=["print-1", "any-view"])
def test_the_handout_is_two_a4_pages_with_the_run_in_words(page, explainer_url, query):
    pages, text = _pdf_text(page, explainer_url + query, f"handout-{query.strip('?').replace('&', '-')}.pdf")
    assert pages <= 2, pages
    outcome = run(Switches()).outcome()
    trace = trace_dict(run(Switches()))
    assert "Switches: silent paused · fencing on" in text
    for lines in said(trace, trace["end_tick"]):  # every event, in the diagram's words
        for _who, what in lines:
            assert what in text, what
    for invariant in INVARIANT_IDS:
        assert invariant not in outcome.invariants_broken
    assert text.count("held") >= len(INVARIANT_IDS) and "broken at t" not in text
    assert f"{outcome.model_calls} against a minimum of 4" in text


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="./dev test installs poppler-utils")
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_chapter_prints_on_two_pages_at_most(page, explainer_url, preset):
    pages, text = _pdf_text(page, f"{explainer_url}?preset={preset}&print=1", f"handout-{preset}.pdf")
    assert pages <= 2, (preset, pages)
    broken = run(Switches.from_mapping(PRESETS[preset])).outcome().invariants_broken
    assert text.count("broken at t") == len(broken), text


def test_a_projector_says_what_a_switch_changed_and_nothing_a_waiting_question_would_tell(
    page, explainer_url
):
    """Presenter mode's lead (it had none): after a switch, what changed and where the runs part; in the
    tour, while the question waits, only which switch (t8, where they part, is the answer of step 3)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(explainer_url + "?present=1&tick=7")
    lead = page.locator(".lead")
    expect(page.locator(".tick-now").first).to_have_text("t7", timeout=60000)
    assert lead.count() == 0 or not lead.first.is_visible()  # nothing to say before a switch
    page.locator('.diagram-wide [data-key="row-stores"]').click()
    expect(lead.first).to_contain_text("You changed fencing from on to off")
    expect(lead.first).to_contain_text("The runs part at t8")
    page.goto(explainer_url + "?present=1&tour=3")
    expect(page.locator(".tour-step")).to_be_visible(timeout=60000)
    page.locator('.diagram-wide [data-key="row-stores"]').click()
    expect(lead.first).to_contain_text("You changed fencing from on to off")
    assert "part at" not in lead.first.inner_text()
