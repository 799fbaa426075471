"""One Python per browser: the static site's frames share one interpreter (a SharedWorker), a ?group= is
one run, the tour paints before Python, and frames keep their height (issue 30)."""

from __future__ import annotations

import contextlib
import re
import shutil
import threading

import pytest
from playwright.sync_api import expect

from app.tour import right_answers, steps
from tests.browser.conftest import assert_frames_hold_still, tell_the_group_quickly
from tests.conftest import ROOT
from tests.site.conftest import serve_folder

pytestmark = [pytest.mark.pyodide, pytest.mark.browser]

ROOT_OF = "document.getElementById('light')"


def only_from(page, base: str):
    """Every request outside ``base`` is refused (and listed in page.outside_requests)."""
    page.outside_requests = []

    def route(r):
        if r.request.url.startswith(base):
            r.continue_()
        else:
            page.outside_requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)


@contextlib.contextmanager
def core_held_back(page, site):
    """The site served with Pyodide's core held back until the test sets ``hold`` (Python cannot start
    before), every request outside it refused: yields (the site's address, hold)."""
    hold = threading.Event()
    server, port = serve_folder(site, hold=hold)
    base = f"http://127.0.0.1:{port}"
    only_from(page, base)
    try:
        yield base, hold
    finally:
        hold.set()
        server.shutdown()


def open_host(page, site, served=None, group="one", refuse=()):
    """The mock article of four frames (the compact embed, the diagram, the lifecycles, the badges) of
    one group at 700 px, sized by the site's embed.js; returns the frames and the server."""
    shutil.copy2(ROOT / "tests" / "browser" / "pages" / "figures.html", site / "figures-host.html")
    server, port = serve_folder(site, served=served, refuse=refuse)
    base = f"http://127.0.0.1:{port}"
    only_from(page, base)
    page.set_viewport_size({"width": 1000, "height": 800})
    page.goto(f"{base}/figures-host.html?target=/embed.html&sizer=/static/embed.js&group={group}")
    frames = [f for f in page.frames if f.parent_frame is not None]
    for frame in frames:
        expect(frame.locator("#light")).not_to_have_class(re.compile("pending"), timeout=10000)
    return frames, server


def figure(frames, view: str):
    return next(f for f in frames if f"view={view}" in f.url)


def fencing_off_then_t8(frames) -> None:
    """In the diagram's frame: fencing off by its row's name, then the scrubber to t8."""
    diagram = figure(frames, "timeline")
    diagram.locator('#part-figure .diagram-wide [role="button"].row-switch', has_text="stores").click()
    expect(diagram.locator("#light")).to_have_attribute("data-python", "ready")
    expect(diagram.locator("#part-figure")).to_contain_text("fencing off", timeout=20000)
    diagram.locator("#light input[type=range]").evaluate(
        "(r) => { r.value = '8'; r.dispatchEvent(new Event('change', { bubbles: true })); }"
    )


def test_four_figures_of_one_group_are_one_python_and_one_run_and_never_jump(site, page):
    """The host page downloads Pyodide's core once and every frame talks to one worker; for 15 s after
    the first picture, while Python takes over, no frame changes height; fencing turned off in the
    diagram's frame breaks the stale-write badge in the badges' frame, which says what changed it."""
    served: list[tuple[str, int]] = []
    frames, server = open_host(page, site, served)
    try:
        assert_frames_hold_still(page)
        for frame in frames:
            expect(frame.locator("#light")).to_have_attribute("data-python", "ready", timeout=120000)
            expect(frame.locator("#light")).to_have_attribute("data-worker", "shared")
            expect(frame.locator("#light")).to_have_attribute("data-start", "snapshot")
        cores = [path for path, _ in served if path.endswith("pyodide.asm.wasm")]
        assert len(cores) == 1, cores
        fencing_off_then_t8(frames)
        badges = figure(frames, "badges")
        expect(badges.locator("#light")).to_have_attribute("data-tick", "8", timeout=20000)
        expect(badges.locator(".badge-stale-write")).to_contain_text("broken at t8")
        expect(badges.locator("#light-status")).to_contain_text("changed fencing from on to off")
        assert "fencing=off" in badges.url and "view=badges" in badges.url  # its own layout kept
        assert page.outside_requests == []
    finally:
        server.shutdown()


def test_where_there_is_no_shared_worker_nor_snapshot_a_group_is_still_one_run(site, page):
    """A browser without SharedWorker, and no memory snapshot to restore: each frame starts its own
    Python the usual way, and a switch in one is done in the others too (over the group's channel)."""
    page.add_init_script("delete window.SharedWorker;")
    frames, server = open_host(page, site, group="apart", refuse=("snapshot.bin.gz",))
    try:
        for frame in frames:
            expect(frame.locator("#light")).to_have_attribute("data-worker", "own")
            expect(frame.locator("#light")).to_have_attribute("data-python", "ready", timeout=180000)
            expect(frame.locator("#light")).to_have_attribute("data-start", "fresh")
        fencing_off_then_t8(frames)
        badges = figure(frames, "badges")
        expect(badges.locator(".badge-stale-write")).to_contain_text("broken at t8", timeout=20000)
        expect(badges.locator("#light-status")).to_contain_text("changed fencing from on to off")
        # Ticks told faster than each Python answers: every frame follows all of them, none tells back.
        tell_the_group_quickly(page, "apart", [3, 4, 5])
        for frame in frames:
            expect(frame.locator("#light")).to_have_attribute("data-tick", "5", timeout=20000)
        page.wait_for_timeout(1500)
        assert page.evaluate("() => window.echoes") == []
    finally:
        server.shutdown()


def test_the_tour_asks_and_judges_before_python_and_python_takes_over_where_the_reader_is(site, page):
    """index.html?tour=1 (the front page's link) with Pyodide's core held back: the question and its
    answers are there, Forward moves the diagram, an answer is judged from the pre-render and Next opens
    step 2; when Python arrives it shows the same step, answer and tick."""
    with core_held_back(page, site) as (base, hold):
        page.goto(f"{base}/index.html?tour=1")
        light, tour = page.locator("#light"), page.locator("#part-tour")
        expect(tour.locator("legend")).to_have_text(steps()[0].question)
        expect(tour.locator("input[type=radio]")).to_have_count(len(steps()[0].answers))
        start = int(light.get_attribute("data-tick"))
        page.locator("button.forward").click()
        expect(light).to_have_attribute("data-tick", str(start + 1))
        expect(page.locator("#part-figure .now-column").first).to_be_attached()

        tour.get_by_role("button", name="Next step ▶").click()
        step = steps()[1]
        expect(tour).to_contain_text("Tour, step 2")
        from app.state import ReaderState

        state = ReaderState()
        state.go_to_step(2)
        (right,) = right_answers(step, state.trace)
        tour.locator("input[type=radio]").nth(right).check()
        tour.get_by_role("button", name="Check my answer and show the tick").click()
        expect(tour.locator(".tour-verdict")).to_contain_text("Right.")
        expect(light).to_have_attribute("data-tick", str(step.ask))
        assert light.get_attribute("data-python") is None  # all of it before Python

        hold.set()
        expect(light).to_have_attribute("data-python", "ready", timeout=120000)
        expect(tour.locator(".tour-verdict")).to_contain_text("Right.")
        expect(tour.locator("input[type=radio]").nth(right)).to_be_checked()
        expect(light).to_have_attribute("data-tick", str(step.ask))
        assert "tour=2" in page.url and page.outside_requests == []


def test_the_embed_code_is_one_frame_and_the_script_that_sizes_it(site, page):
    server, port = serve_folder(site)
    base = f"http://127.0.0.1:{port}"
    only_from(page, base)
    try:
        page.goto(f"{base}/index.html?preset=superseded&tick=4")
        page.locator(".embed-code summary").click()
        # light.js writes the code once it has painted (a module that awaits its manifest may run after
        # the page's load event).
        expect(page.locator(".embed-code textarea")).to_have_value(re.compile("<iframe"))
        code = page.locator(".embed-code textarea").input_value()
        frame, script = code.splitlines()
        assert frame.startswith(f'<iframe src="{base}/embed.html?') and "tick=4" in frame
        assert script == f'<script src="{base}/static/embed.js" async></script>'
        page.locator("button.forward").click()
        expect(page.locator(".embed-code textarea")).to_have_value(re.compile("tick=5"))
        # The code works: a page made of it alone sizes its frame to the content.
        (site / "pasted.html").write_text(f"<!doctype html><title>pasted</title><body>{code}</body>")
        page.goto(f"{base}/pasted.html")
        inner = page.frames[1]
        expect(inner.locator("#light")).not_to_have_class(re.compile("pending"))
        page.wait_for_function(
            "() => Math.abs(document.querySelector('iframe').clientHeight - (document.querySelector('iframe')"
            ".contentDocument.getElementById('light').getBoundingClientRect().height + 16)) <= 10"
        )
    finally:
        server.shutdown()


def test_a_failed_download_is_tried_again_by_the_next_page(page, site):
    """A wheel that cannot be fetched fails the page that started Python, with the reason; the next page
    of the site, once the server answers again, starts Python afresh (issue 48: the shared worker kept
    its failed start, so every later page failed the same way until every tab was closed)."""
    refused = [".whl"]
    server, port = serve_folder(site, refuse=refused)
    base = f"http://127.0.0.1:{port}"
    try:
        only_from(page, base)
        page.goto(f"{base}/index.html")
        expect(page.locator("#light")).to_have_attribute("data-python", "failed", timeout=90000)
        expect(page.locator("#light-status")).to_contain_text("could not be fetched (404)")
        refused.clear()
        later = page.context.new_page()  # the first page stays open: its shared worker lives on
        only_from(later, base)
        later.goto(f"{base}/index.html?preset=main&tick=8")
        expect(later.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
        expect(later.locator("#light")).to_have_attribute("data-worker", "shared")
        later.close()
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    "answer", [{"status": 404, "body": "not here"}, {"status": 200, "body": '{"wheels": '}]
)
def test_a_missing_or_broken_manifest_is_said_not_a_dead_page(page, site_url, answer):
    """Without the build's manifest the light page cannot work: it says so in its status (issue 48: it
    threw at load, showed t0 and left every button dead without a word)."""
    page.route("**/light/manifest.json", lambda route: route.fulfill(**answer))
    page.goto(f"{site_url}/index.html?preset=main&tick=8")
    expect(page.locator("#light")).to_have_attribute("data-python", "failed")
    expect(page.locator("#light-status")).to_contain_text("light/manifest.json, could not be read")
    expect(page.locator("#light-status")).to_be_visible()


def test_a_switch_in_one_frame_reaches_a_frame_that_loaded_later(page, site_url):
    """Issue 48, item 7: frames of one group whose links carry a tick but no chapter. A frame that
    painted its pre-render after the group's last move of the tick took the push of a switch for late
    news of a move, and kept showing the run before the switch."""
    only_from(page, site_url)
    page.goto(f"{site_url}/embed.html?tick=8&group=late")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    later = page.context.new_page()
    only_from(later, site_url)
    later.goto(f"{site_url}/embed.html?tick=8&group=late&view=badges")
    expect(later.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(later.locator("#part-badges")).not_to_contain_text("broken")
    page.locator('#part-figure .diagram-wide [role="button"].row-switch', has_text="stores").click()
    expect(page.locator("#part-figure")).to_contain_text("fencing off")
    expect(later.locator("#part-badges")).to_contain_text("No stale write: broken")
    expect(later.locator("#light")).to_have_attribute("data-tick", "8")
    later.close()


def test_four_frames_with_a_tick_but_no_chapter_all_take_a_switch(site, page):
    """Issue 48, item 7, as an article meets it: four frames of one group at t8 (links with a tick and no
    chapter), three of them below the fold, fencing turned off in the first once Python is there."""
    shutil.copy2(ROOT / "tests" / "browser" / "pages" / "figures.html", site / "figures-host.html")
    server, port = serve_folder(site)
    base = f"http://127.0.0.1:{port}"
    try:
        only_from(page, base)
        page.set_viewport_size({"width": 1000, "height": 800})
        page.goto(f"{base}/figures-host.html?target=/embed.html&sizer=/static/embed.js&group=art&tick=8")
        frames = [f for f in page.frames if f.parent_frame is not None]
        for frame in frames:
            expect(frame.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
        full = next(f for f in frames if "view=" not in f.url)
        full.locator('#part-figure .diagram-wide [role="button"].row-switch', has_text="stores").click()
        for frame in frames:
            expect(frame.locator("#light")).to_have_attribute("data-tick", "8")
            assert_search_has(frame, "fencing=off")
    finally:
        server.shutdown()


def assert_search_has(frame, words: str) -> None:
    """The frame's own link (light.js writes Python's query into it) names ``words`` within 15 s."""
    frame.wait_for_function(f"() => location.search.includes({words!r})", timeout=15000)


def test_a_hostile_page_of_the_origin_cannot_break_a_group(page, site_url):
    """Issue 48, item 9: a page of the same origin could destroy the shared interpreter, close a group's
    page, name no wheels as the first caller, or tell the group a move made at 1e308 (every later move
    then late news: the frames disagreed). Each is refused or taken as a move made now, and the group's
    two frames go on as one."""
    frames = []
    for view in ("", "&view=badges"):
        frame = page if not frames else page.context.new_page()
        only_from(frame, site_url)
        frame.goto(f"{site_url}/embed.html?preset=main&tick=3&group=held{view}")
        expect(frame.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
        frames.append(frame)
    first, other = frames
    hostile = page.context.new_page()
    only_from(hostile, site_url)
    hostile.goto(f"{site_url}/light/manifest.json")  # any page of the origin
    answers = hostile.evaluate("""() => new Promise((done) => {
      const options = { type: "module", name: "durable-work-explainer" };
      const worker = new SharedWorker("../static/light-worker.js", options);
      const answers = [];
      worker.port.onmessage = (event) => {
        if (event.data.id) answers.push(event.data.error || "answered");
        if (answers.length === 2) done(answers);
      };
      worker.port.postMessage({ call: "wheels", args: [] });
      worker.port.postMessage({ id: 1, call: "destroy", args: [] });
      worker.port.postMessage({ id: 2, call: "close", args: ["group:held"] });
      new BroadcastChannel("durable-work-explainer:held").postMessage({ tick: 9, at: 1e308 });
    })""")
    assert all(a.startswith("a page may call start, act") for a in answers), answers
    hostile.close()
    for frame in frames:  # a tick told with a time no clock gives is a move made now
        expect(frame.locator("#light")).to_have_attribute("data-tick", "9")
    first.locator("button.forward").first.click()
    for frame in frames:
        expect(frame.locator("#light")).to_have_attribute("data-tick", "10")
    first.locator('#part-figure .diagram-wide [role="button"].row-switch', has_text="stores").click()
    expect(other.locator("#part-badges")).to_contain_text("No stale write: broken")
    other.close()


def test_a_frame_opened_later_does_not_pull_its_group_to_its_link_s_tick(page, site_url):
    """Issue 48, item 9: a page opened later with ``group=g&tick=2`` moved a reader's group from t4 to
    t2: its link's first picture was told to the group as a move of its reader."""
    only_from(page, site_url)
    page.goto(f"{site_url}/embed.html?preset=main&tick=3&group=pulled")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    page.locator("button.forward").first.click()
    expect(page.locator("#light")).to_have_attribute("data-tick", "4")
    later = page.context.new_page()
    only_from(later, site_url)
    later.goto(f"{site_url}/embed.html?preset=main&tick=2&group=pulled&view=badges")
    expect(later.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(later.locator("#light")).to_have_attribute("data-tick", "4")  # the group's, not its link's
    page.wait_for_timeout(1000)
    expect(page.locator("#light")).to_have_attribute("data-tick", "4")
    later.locator("button.forward").first.click()  # a move of its reader is the group's
    expect(page.locator("#light")).to_have_attribute("data-tick", "5")
    later.close()


@pytest.mark.parametrize("broken", ["python_stdlib.zip", "wheel cut short"])
def test_python_that_cannot_start_says_why_in_a_line(page, site, tmp_path, broken):
    """Issue 48, item 9: a 404 for python_stdlib.zip said "could not start in this browser ([object
    Object])", and a wheel cut short put a ten-line traceback in the status."""
    served = tmp_path / "site"
    shutil.copytree(site, served)
    for snapshot in served.glob("light/snapshot.bin.gz"):
        snapshot.unlink()  # Python started the usual way: what it needs is fetched then
    if broken == "wheel cut short":
        wheel = next(served.glob("light/wheels/durable_work_explainer_app-*.whl"))
        wheel.write_bytes(wheel.read_bytes()[:3000])
    server, port = serve_folder(served, refuse=(broken,) if broken.endswith(".zip") else ())
    base = f"http://127.0.0.1:{port}"
    try:
        only_from(page, base)
        page.goto(f"{base}/embed.html?preset=main&tick=3&group=broken-{len(broken)}")
        expect(page.locator("#light")).to_have_attribute("data-python", "failed", timeout=90000)
        said = page.locator("#light-status").text_content()
        assert "object Object" not in said and "Traceback" not in said and "\\n" not in said, said
        assert said.startswith("Python could not start in this browser ("), said
        assert len(said) < 400, said
        named = {"python_stdlib.zip": "python_stdlib.zip could not be fetched (404)"}.get(
            broken, "durable_work_explainer_app-0.1.0-py3-none-any.whl could not be unpacked"
        )
        assert named in said, said
    finally:
        server.shutdown()


def test_a_host_of_another_origin_naming_the_same_group_is_another_group(page, site_url, tmp_path):
    """Issue 48, item 9: a page of another origin that framed the figures under an article's group name
    joined that group and drove it. Frames are one group within their host page's origin."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "other.html").write_text(
        f'<!doctype html><title>Another site</title><iframe id="f" style="width:700px;height:600px" '
        f'src="{site_url}/embed.html?preset=main&tick=3&group=shared&view=badges"></iframe>'
    )
    server, port = serve_folder(host)
    try:
        page.goto(f"{site_url}/embed.html?preset=main&tick=3&group=shared")  # the article's own page
        expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
        other = page.context.new_page()
        other.goto(f"http://localhost:{port}/other.html")
        framed = other.frame_locator("#f")
        expect(framed.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
        page.locator("button.forward").first.click()
        expect(page.locator("#light")).to_have_attribute("data-tick", "4")
        framed.locator("button.forward").first.click()
        framed.locator("button.forward").first.click()
        expect(framed.locator("#light")).to_have_attribute("data-tick", "5")
        other.wait_for_timeout(1000)
        expect(page.locator("#light")).to_have_attribute("data-tick", "4")  # neither drove the other
        expect(framed.locator("#light")).to_have_attribute("data-tick", "5")
        other.close()
    finally:
        server.shutdown()


def test_a_step_made_while_python_loads_is_done_once(site, page):
    """A link Python alone can draw (a switch), and a step key pressed before Python is there: the step
    waits for Python and is done once when it arrives (queued moves handed over twice went one tick too
    far; a switch or a tick done twice ends the same, so only a step shows it)."""
    with core_held_back(page, site) as (base, hold):
        page.goto(f"{base}/index.html?fencing=off&tick=3")
        light = page.locator("#light")
        expect(page.locator("#light-status")).to_contain_text("Loading Python")
        page.keyboard.press("ArrowRight")
        expect(light).to_have_attribute("data-queued", "1")
        hold.set()
        expect(light).to_have_attribute("data-python", "ready", timeout=120000)
        expect(light).to_have_attribute("data-tick", "4")
        page.wait_for_timeout(500)
        assert light.get_attribute("data-tick") == "4" and "tick=4" in page.url, page.url
        assert light.get_attribute("data-queued") == "0"


def test_a_snapshot_cut_short_starts_python_the_usual_way(page, site, tmp_path):
    """A snapshot the host cut short (a partial upload, a stale cache) cannot be restored: Python starts
    the usual way, without a word to the reader, rather than not at all."""
    served = tmp_path / "site"
    shutil.copytree(site, served)
    snapshot = served / "light" / "snapshot.bin.gz"
    snapshot.write_bytes(snapshot.read_bytes()[: snapshot.stat().st_size // 2])
    server, port = serve_folder(served)
    base = f"http://127.0.0.1:{port}"
    try:
        only_from(page, base)
        page.goto(f"{base}/embed.html?preset=main&tick=3&group=cut-short")
        light = page.locator("#light")
        expect(light).to_have_attribute("data-python", "ready", timeout=120000)
        expect(light).to_have_attribute("data-start", "fresh")
        assert "could not" not in (page.locator("#light-status").text_content() or "")
    finally:
        server.shutdown()


#: Chromium lets a frame of another site use storage (a shared worker, Web Locks) only with site isolation
#: off, here; with it on, as by default, it refuses them: the two cases an article's host meets.
STORAGE = {
    "allowed": ["--disable-site-isolation-trials", "--disable-features=IsolateOrigins,site-per-process"],
    "blocked": [],
}


@pytest.mark.parametrize("storage", list(STORAGE))
def test_four_frames_in_another_site_s_article_share_one_python(site, playwright, tmp_path, storage):
    """The article on one site (localhost), its four figures from the explainer's (127.0.0.1): one download
    of Pyodide's core and of the snapshot, one Python, a switch in one figure redrawing the others. Where
    the browser refuses the frames a shared worker, one frame runs Python for the others; closed, another
    takes over without a reload."""
    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    served: list[tuple[str, int]] = []
    server, port = serve_folder(site, served=served)
    (tmp_path / "article.html").write_text(
        (ROOT / "tests" / "browser" / "pages" / "figures.html").read_text()
    )
    host, host_port = serve_folder(tmp_path)
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + STORAGE[storage])
    try:
        page = browser.new_page(viewport={"width": 1000, "height": 800})
        explainer = f"http://127.0.0.1:{port}"
        page.goto(
            f"http://localhost:{host_port}/article.html?target={explainer}/embed.html"
            f"&sizer={explainer}/static/embed.js&group=article"
        )
        frames = [f for f in page.frames if f.parent_frame is not None]
        for frame in frames:
            expect(frame.locator("#light")).to_have_attribute("data-python", "ready", timeout=120000)
        how = {frame.locator("#light").get_attribute("data-worker") for frame in frames}
        assert how == {"shared" if storage == "allowed" else "relayed"}, how
        cores = [path for path, _ in served if path.endswith("pyodide.asm.wasm")]
        snapshots = [path for path, _ in served if path.endswith("snapshot.bin.gz")]
        assert (len(cores), len(snapshots)) == (1, 1), (cores, snapshots)
        fencing_off_then_t8(frames)
        badges = figure(frames, "badges")
        expect(badges.locator(".badge-stale-write")).to_contain_text("broken at t8", timeout=30000)
        page.screenshot(
            path=str(ROOT / "test-artifacts" / f"cross-site-article-{storage}.png"), full_page=True
        )
        if storage == "blocked":  # the frame running Python goes; the others go on, no reload
            leads = [f.evaluate("() => durableWorkRelay.leader === durableWorkRelay.me") for f in frames]
            assert leads.count(True) == 1, leads
            origins = [f.evaluate("performance.timeOrigin") for f in frames]
            page.evaluate(f"document.querySelectorAll('iframe.figure')[{leads.index(True)}].remove()")
            rest = [(f, o) for f, o, lead in zip(frames, origins, leads, strict=True) if not lead]
            for frame, _ in rest:
                expect(frame.locator("#light")).to_have_attribute("data-python", "ready", timeout=120000)
            assert [f.evaluate("performance.timeOrigin") for f, _ in rest] == [o for _, o in rest]
            frame = rest[0][0]
            frame.locator('#part-figure .diagram-wide [role="button"].row-switch', has_text="journal").click()
            frame.wait_for_function("location.search.includes('checkpoints=end-only')", timeout=30000)
    finally:
        browser.close()
        server.shutdown()
        host.shutdown()
