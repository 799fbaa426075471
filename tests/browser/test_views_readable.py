"""Every view readable (issue 35), in a real browser: the Compare table fits its column at a laptop's and
a phone's width, scrolling inside its own box rather than past the page's edge; every control a finger
meets on a phone is at least 24 px tall."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.state import PRESETS
from model import Switches, run
from tests.browser.conftest import EVERY_ROOT, SMALL_TARGETS
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1280, 390])
def test_the_compare_table_stays_within_the_page(explainer, width):
    page = explainer.page
    page.set_viewport_size({"width": width, "height": 800})
    explainer.open("?preset=all-off&tab=compare")
    table = page.locator("table.compare")
    expect(table).to_be_visible(timeout=20000)
    box = page.locator(".compare-view .scroll").first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    expect(page.locator(".compare-view")).to_contain_text("newsletter rule from only a digest accepted")
    ARTIFACTS.mkdir(exist_ok=True)
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"compare-all-off-{width}.png"), full_page=True)


def test_every_control_on_a_phone_is_at_least_24_px_tall(explainer):
    page = explainer.page
    page.set_viewport_size({"width": 390, "height": 800})
    explainer.open("?preset=main&tick=8")
    page.locator(".moment-mark").first.wait_for()
    assert page.evaluate(SMALL_TARGETS) == []
    explainer.open("?tab=sweep")  # the 864's squares and lines too
    page.locator("table.matrix").wait_for(timeout=30000)
    assert page.evaluate(SMALL_TARGETS) == []


#: The 864 view's matrix and list, found through Panel's shadow roots: the smallest font of a label, the
#: pairs of labels whose words overlap, and every label or line whose words are wider than its box.
READ_THE_864 = (
    f"""() => {{ {EVERY_ROOT}"""
    + """
  const [table] = deepAll("table.matrix"), [list] = deepAll("ol.sweep-list");
  const labels = [...table.querySelectorAll("th")].filter((th) => th.textContent.trim());
  const words = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return [...range.getClientRects()];
  };
  const boxes = labels.map((th) => words(th).filter((b) => b.width > 0));
  const overlaps = [];
  for (let i = 0; i < boxes.length; i += 1) for (let j = i + 1; j < boxes.length; j += 1)
    for (const a of boxes[i]) for (const b of boxes[j])
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
        overlaps.push(`${labels[i].textContent.trim()} / ${labels[j].textContent.trim()}`);
  const cut = [...labels, ...list.querySelectorAll("button.run")]
    .filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent.trim().slice(0, 40));
  return {
    smallest: Math.min(...labels.map((th) => parseFloat(getComputedStyle(th).fontSize))),
    squares: table.querySelectorAll("button.cell").length,
    lines: list.querySelectorAll("button.run").length,
    overlaps: overlaps.slice(0, 5), cut: cut.slice(0, 5),
    listWords: list.querySelector("button.run").textContent,
  };
}"""
)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_864_reads_in_words_and_a_square_opens_its_run(explainer, width):
    page = explainer.page
    page.set_viewport_size({"width": width, "height": 900})
    explainer.open("?tab=sweep")
    page.locator("table.matrix").wait_for(timeout=30000)
    read = page.evaluate(READ_THE_864)
    assert read["squares"] == 864 and read["lines"] == 864
    assert read["smallest"] >= 12, read
    assert read["overlaps"] == [] and read["cut"] == [], read
    assert "Checkpoints: after every step" in read["listWords"] and "every-step" not in read["listWords"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("table.matrix").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"sweep-matrix-{width}.png"))
    if width == 390:
        return
    # The keyboard: Tab reaches the first square, the arrows move, Enter loads the run under focus.
    first = page.locator("table.matrix button.cell").first
    first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    focused = page.locator("table.matrix button.cell:focus")
    label = focused.get_attribute("aria-label")
    assert "per-try key" in label and "survives" in label, label  # a row down, a column right
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"(?=.*post_key=per-attempt)(?=.*poster=survives)"), timeout=20000)
    expect(page.locator("table.matrix")).to_be_hidden()  # the player's tab is open
    # A click on a square of another row opens that run.
    explainer.open("?tab=sweep")
    page.locator("table.matrix").wait_for(timeout=30000)
    page.locator("table.matrix button.cell").nth(12 * 3).click()  # the first row with any accepted digest
    expect(page).to_have_url(re.compile(r"newsletter=any-accepted"), timeout=20000)


#: The words of the elements matching a selector, wherever Panel's shadow roots hold them.
DEEP_TEXT = (
    f"""(selector) => {{ {EVERY_ROOT}"""
    + r"""
  const deep = (node) => {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 && node.nodeType !== 11) return "";
    if (node.nodeType === 1 && ["STYLE", "SCRIPT"].includes(node.tagName)) return "";
    let words = node.shadowRoot ? deep(node.shadowRoot) : "";
    for (const child of node.childNodes) words += deep(child);
    return `${words} `;
  };
  return deepAll(selector).map(deep).join("\n");
}"""
)


def _code_like_ids() -> set[str]:
    """The values' names that read as code (every-step, digest-contract/1), from content/values.md."""
    from app.content import pairs, sections

    names = {name for section in sections("values") for name in pairs("values", section)}
    return {name for name in names if re.search(r"[-/_0-9]", name)}


@pytest.mark.parametrize(
    "query",
    ["?tab=sweep", "?tab=explore", "?tab=compare&preset=all-off&tick=14", "?preset=superseded&tick=16"],
)
def test_the_views_say_values_in_words_and_no_digests(explainer, query):
    """The outcome, the 864, Explore and Compare name values as the switch panel does, never by the names
    a link uses, and show no digest (those belong to the records, which the reader opens and which label
    them)."""
    page = explainer.page
    explainer.open(query)
    page.locator(".tick-now").first.wait_for(timeout=30000)
    page.wait_for_timeout(1500)
    words = page.evaluate(DEEP_TEXT, ".tab-panel, .outcome-view")
    assert len(words) > 200, words
    found = set(re.findall(r"[\w/-]+", words))
    assert found & _code_like_ids() == set()
    assert re.findall(r"\b[0-9a-f]{8,}\b", words) == []


#: Every lifecycle drawing's smallest word as rendered (its font size times the drawing's scale), and
#: whether the page itself is wider than the screen.
LIFECYCLE_WORDS = (
    f"""() => {{ {EVERY_ROOT}"""
    + """
  const smallest = deepAll("svg.lifecycle-graph").map((svg) => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll("text")].map((t) => parseFloat(t.getAttribute("font-size")));
    return Math.min(...sizes) * scale;
  });
  return { smallest, pageWidth: document.documentElement.scrollWidth };
}"""
)


def test_the_lifecycles_keep_words_of_11_px_on_a_phone(explainer):
    """At 390 px the drawings keep their own size and scroll sideways in their box (which says so),
    rather than shrinking their words to 6 px; the page itself does not scroll sideways."""
    page = explainer.page
    page.set_viewport_size({"width": 390, "height": 844})
    explainer.open("?preset=main&tick=8")
    page.locator("svg.lifecycle-graph").first.wait_for(state="attached", timeout=30000)
    words = page.evaluate(LIFECYCLE_WORDS)
    assert len(words["smallest"]) == 3 and min(words["smallest"]) >= 11, words
    assert words["pageWidth"] <= 390, words
    expect(page.locator("figure.lifecycle-attempt .scroll-hint")).to_be_visible()
    page.locator("figure.lifecycle-attempt").scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lifecycles-390.png"))
    page.set_viewport_size({"width": 1280, "height": 800})  # a wide screen: the drawing fits, no hint
    expect(page.locator("figure.lifecycle-attempt .scroll-hint")).to_be_hidden()


@pytest.mark.parametrize("preset", ["controller-restart", "records-lost"])
def test_a_chapter_outside_the_article_draws_its_lifecycles_with_words_of_11_px(explainer, preset):
    """Such a run could take the transitions beyond the article but does not: it gets the article's
    drawings, whose words keep 9 px or more in the column, not the wider one's, shrunk to 6 px."""
    page = explainer.page
    page.set_viewport_size({"width": 1280, "height": 800})
    explainer.open(f"?preset={preset}&tick=8")
    page.locator("svg.lifecycle-graph").first.wait_for(state="attached", timeout=30000)
    words = page.evaluate(LIFECYCLE_WORDS)
    assert len(words["smallest"]) == 3 and min(words["smallest"]) >= 9, words


#: The diagram's sideways strip: how far it is scrolled, in its past columns, and where its current column
#: is against the strip's edges.
#: What of the drawings the screen shows would need a sideways scroll: a scrolling box wider inside than
#: out, and any word of a drawing cut by the screen's edges.
SIDEWAYS = (
    f"""() => {{ {EVERY_ROOT}"""
    + """
  const shown = deepAll('svg.diagram[role="img"]').filter((svg) => {
    const box = svg.getBoundingClientRect();
    return svg.checkVisibility() && box.width > 0 && box.height > 0;
  });
  const scrolls = deepAll(".diagram-scroll").filter((box) => box.checkVisibility()
    && box.scrollWidth > box.clientWidth + 1).map((box) => box.className);
  const cut = shown.flatMap((svg) => [...svg.querySelectorAll("text")]).filter((t) => {
    const b = t.getBoundingClientRect();
    return b.width > 0 && (b.left < -0.5 || b.right > innerWidth + 0.5);
  }).map((t) => t.textContent);
  return { drawings: shown.length, scrolls, cut };
}"""
)


@pytest.mark.parametrize(
    "width,preset,ticks",
    # A phone gets every tick in a strip and the tick in full; a tablet the wide drawing, scaled to its width
    # (records-lost's twenty ticks are the widest run).
    [(390, "forgotten-key", (8, 14)), (640, "records-lost", (12, 19))],
    ids=["phone", "tablet"],
)
def test_nothing_of_the_run_is_scrolled_out_of_sight_sideways(explainer, width, preset, ticks):
    """The whole run at every width (issue 59): no drawing scrolls sideways, and every word of what the
    screen shows, every tick's label among them, is whole within the screen."""
    page = explainer.page
    page.set_viewport_size({"width": width, "height": 844})
    for tick in ticks:
        explainer.open(f"?preset={preset}&tick={tick}")
        explainer.wait_tick(tick)
        seen = page.evaluate(SIDEWAYS)
        assert seen["drawings"] >= 1 and seen["scrolls"] == [] and seen["cut"] == [], (width, tick, seen)


#: The key moments' marks under the scrubber, left to right: each one's left and right edge.
MOMENT_MARKS = (
    f"""() => {{ {EVERY_ROOT}"""
    + """
  return deepAll("button.moment-mark").map((b) => b.getBoundingClientRect())
    .filter((r) => r.width > 0).map((r) => [r.left, r.right]).sort((a, b) => a[0] - b[0]);
}"""
)


def test_the_key_moments_of_a_long_chapter_do_not_overlap_under_the_scrubber(explainer):
    """In the 20-tick chapter the ticks are closer than a mark's 18 px: moments a tick apart (t11, t12,
    t13) stand side by side, the current one's frame inside its own step, not over its neighbours. A
    glyph a little wider than a step (★ is 13 px, a step 12 px) may touch the next: under 2 px of its box,
    which is the glyph's side bearing; at 18 px each, marks a tick apart overlapped by 6 px."""
    page = explainer.page
    page.set_viewport_size({"width": 1280, "height": 800})
    explainer.open("?preset=records-lost&tick=12")
    explainer.wait_tick(12)
    marks = page.evaluate(MOMENT_MARKS)
    assert len(marks) >= 8, marks
    for (_, right), (left, _) in zip(marks, marks[1:], strict=False):
        assert right <= left + 2, marks


#: The smallest words of the page as drawn (font size times any zoom, or an SVG's scale), through Panel's
#: shadow roots, leaving out what no one sees (hidden, or visually hidden for screen readers).
SMALLEST_WORDS = (
    f"""() => {{ {EVERY_ROOT}"""
    + """
  const found = [];
  const zoomOf = (el) => {
    let zoom = 1;
    for (let e = el; e; e = e.parentElement || e.getRootNode().host) {
      zoom *= parseFloat(getComputedStyle(e).zoom) || 1;
    }
    return zoom;
  };
  const sizeOf = (el) => {
    const svg = el.closest("svg");
    if (svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width) {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return parseFloat(getComputedStyle(el).fontSize) * scale;
    }
    return parseFloat(getComputedStyle(el).fontSize) * zoomOf(el);
  };
  for (const root of everyRoot()) {
    const texts = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      const el = node.parentElement;
      if (!/[A-Za-z0-9]/.test(node.data) || !el) continue;
      if (el.closest("style, script, title, desc, .sr-only")) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if (![...range.getClientRects()].some((box) => box.width > 1 && box.height > 1)) continue;
      if (getComputedStyle(el).visibility === "hidden") continue;
      found.push([Math.round(sizeOf(el) * 10) / 10, node.data.trim().slice(0, 40)]);
    }
  }
  return found.sort((a, b) => a[0] - b[0]).slice(0, 5);
}"""
)

#: The diagram's tick labels: each one's box, and the box of the strip that shows them.
TICK_LABELS = (
    f"""() => {{ {EVERY_ROOT}"""
    + """
  const [svg] = deepAll("svg.diagram:not(.diagram-names)");
  const strip = svg.closest(".diagram-scroll").getBoundingClientRect();
  const labels = [...svg.querySelectorAll("text.tick")].map((t) => {
    const box = t.getBoundingClientRect();
    return { text: t.textContent, left: box.left, right: box.right, top: box.top, bottom: box.bottom };
  });
  return { labels, strip: { left: strip.left, right: strip.right }, width: innerWidth, height: innerHeight };
}"""
)


@pytest.mark.parametrize("width,height,floor,beside_card", [(1920, 1080, 24, 21), (1280, 720, 18, 13)])
def test_presenter_mode_reads_from_the_back_of_the_room(explainer, width, height, floor, beside_card):
    """Every word of presenter mode at least 24 px on a 1920x1080 projector and 18 px on 1280x720 at t8 and
    t14, the switches' values under the rows' names too; beside the tour's card, where the whole diagram
    is drawn smaller rather than cut (the README says so), 21 px and 13 px. At t14 every tick's label,
    t0 to t14, is on screen at once."""
    page = explainer.page
    page.set_viewport_size({"width": width, "height": height})
    queries = {"?preset=main&present=1&tick=8": floor, "?preset=main&present=1&tick=14": floor}
    for query, least in (queries | {"?present=1&tour=2": beside_card}).items():
        explainer.open(query)
        page.locator(".tick-now").first.wait_for(timeout=30000)
        page.wait_for_timeout(800)
        smallest = page.evaluate(SMALLEST_WORDS)
        assert smallest[0][0] >= least, (query, smallest)
        page.screenshot(path=str(ARTIFACTS / f"presenter-{width}x{height}-{query[1:].replace('&', '-')}.png"))
    explainer.open("?preset=main&present=1&tick=14")
    page.locator("svg.diagram text.tick").first.wait_for(timeout=30000)
    page.wait_for_timeout(500)
    assert page.evaluate("scrollY") == 0  # on the first screen, not scrolled to
    seen = page.evaluate(TICK_LABELS)
    end = run(Switches.from_mapping(PRESETS["main"])).end_tick
    assert [label["text"] for label in seen["labels"]] == [f"t{t}" for t in range(end + 1)]
    for label in seen["labels"]:
        assert seen["strip"]["left"] - 1 <= label["left"] and label["right"] <= seen["strip"]["right"] + 1, (
            label
        )
        assert (  # to within the half pixel a scrolled page rounds to
            0 <= label["left"]
            and label["right"] <= width
            and -0.5 <= label["top"]
            and label["bottom"] <= height + 0.5
        ), label


def test_presenter_mode_shows_every_chapter_s_whole_diagram_on_one_1280x720_screen(explainer):
    """At each chapter's tallest tick as presenter mode draws it, every row and the tick axis are on the
    first screen of a 1280x720 projector, and nothing sits over them (issue 44: at 30 ticks the axis was
    up to 164 px under the screen)."""
    from app.render.diagram import layout_of

    page = explainer.page
    page.set_viewport_size({"width": 1280, "height": 720})
    for name in PRESETS:
        trace = run_trace(name)
        tallest = max(range(trace["end_tick"] + 1), key=lambda t: layout_of(trace, t, large=True).bottom)
        explainer.open(f"?preset={name}&present=1&tick={tallest}")
        page.locator("svg.diagram text.now-tick").first.wait_for(timeout=30000)
        page.wait_for_timeout(300)
        seen = page.evaluate(WHOLE_DIAGRAM)
        assert seen["now"] == f"t{tallest}" and seen["scrolled"] == 0, (name, seen)
        assert seen["rows"] <= 720 and seen["axis"] <= 720, (name, tallest, seen)
        assert seen["top"] >= seen["badges"], (name, seen)  # under the badges, not over them
        if name == "superseded":  # the tallest of all
            page.screenshot(path=str(ARTIFACTS / f"presenter-1280x720-{name}-t{tallest}.png"))


def run_trace(name: str) -> dict:
    from model import trace_dict

    return trace_dict(run(Switches.from_mapping(PRESETS[name])))


#: The bottom edges of presenter mode's rows and tick axis, the top of its diagram and the badges' bottom.
WHOLE_DIAGRAM = (
    f"""() => {{ {EVERY_ROOT}"""
    + """
  const edge = (selector, side) => Math.max(...deepAll(selector).map((e) => e.getBoundingClientRect()[side]));
  return {
    rows: edge("svg.diagram-names", "bottom"), axis: edge("svg.diagram text.tick", "bottom"),
    top: Math.min(...deepAll("svg.diagram-names").map((e) => e.getBoundingClientRect().top)),
    badges: edge(".badge-strip li", "bottom"), scrolled: scrollY,
    now: deepAll("svg.diagram text.now-tick")[0].textContent,
  };
}"""
)


#: The bottom edge of each thing a presenter's room must see on the first screen of the tour.
TOUR_SCREEN = (
    f"""() => {{ {EVERY_ROOT}"""
    + """
  const bottom = (selector) => Math.max(...deepAll(selector).map((e) => e.getBoundingClientRect().bottom));
  return {
    question: bottom(".tour-answers legend"), answers: bottom("label.tour-answer"),
    check: bottom("button.tour-check"), rows: bottom("svg.diagram-names"),
    axis: bottom("svg.diagram text.tick"),
    answerCount: deepAll("label.tour-answer").length,
    badges: deepAll(".badge-strip li").filter((li) => li.getBoundingClientRect().height > 0)
      .map((li) => li.getBoundingClientRect().bottom),
  };
}"""
)


@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
def test_a_presenters_tour_asks_beside_the_whole_diagram_on_one_screen(explainer, width, height):
    """In the tour, presenter mode shows the question, every answer and the button that checks it beside
    the whole diagram, every row and the tick axis, and the badges, on the first screen (issue 44: at
    1280x720 the question was at y=948, under the diagram)."""
    page = explainer.page
    page.set_viewport_size({"width": width, "height": height})
    for step in range(1, 10):
        explainer.open(f"?present=1&tour={step}")
        page.locator(".tour-answers legend").first.wait_for(timeout=30000)
        page.wait_for_timeout(800)
        seen = page.evaluate(TOUR_SCREEN)
        assert seen["answerCount"] >= 2, seen
        assert len(seen["badges"]) >= 6 and max(seen["badges"]) <= height, (step, seen)  # the badges too
        assert max(seen["question"], seen["answers"], seen["check"], seen["rows"], seen["axis"]) <= height, (
            step,
            seen,
        )
    page.screenshot(path=str(ARTIFACTS / f"presenter-tour-{width}x{height}.png"))
