"""The built site: wheel, lock file, converted app, pre-rendered pages, and parity with CPython."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from html import escape
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.content import sections, text
from app.render.explore import case_query
from app.state import PRESETS
from model import Switches, dumps, run, trace_dict
from model.analyses import fingerprint, sweep
from model.explore import explore_setting, source_digest
from model.schedule import Schedule
from tests.browser.conftest import SMALL_TARGETS, assert_four_frames_fit, tell_the_group_quickly
from tests.conftest import ARTIFACTS, ROOT
from tests.site.conftest import NODE_SCRIPT

# The site vendors Pyodide and builds the model for it: out of the fast lane.
pytestmark = pytest.mark.pyodide

ALLOWED_CDN = (
    "https://cdn.jsdelivr.net/pyodide/v314.0.7/",
    "https://cdn.holoviz.org/panel/1.10.0/",
    "https://cdn.bokeh.org/bokeh/release/bokeh-",
)


def test_the_model_wheel_is_pure_and_listed_in_the_lock_file(site):
    (wheel,) = (site / "pyodide").glob("durable_work_model-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "model/simulation.py" in names and not any(n.startswith(("app/", "tests/")) for n in names)
    lock = json.loads((site / "pyodide" / "pyodide-lock.json").read_text())
    entry = lock["packages"]["durable-work-model"]
    assert entry["file_name"] == wheel.name and entry["imports"] == ["model"]
    assert entry["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    npm_lock = json.loads((ROOT / ".tools/node_modules/pyodide/pyodide-lock.json").read_text())
    assert lock["info"] == npm_lock["info"] and lock["info"]["python"].startswith("3.14")
    assert set(lock["packages"]) == set(npm_lock["packages"]) | {"durable-work-model"}


def test_wheels_are_reproducible(site, tmp_path):
    from sitebuild.wheels import build_model_wheel

    again = build_model_wheel(tmp_path)
    (first,) = (site / "pyodide").glob("durable_work_model-*.whl")
    assert again.read_bytes() == first.read_bytes()


def test_the_model_wheel_builds_with_the_repository_on_pythonpath(tmp_path, monkeypatch):
    """pypa/build runs as ``python -m build``: the repository's ``build.py`` on the path once stood in for
    it ("unrecognized arguments: --wheel")."""
    from sitebuild.wheels import build_model_wheel

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    assert build_model_wheel(tmp_path).name.startswith("durable_work_model-")


def test_node_pyodide_gives_byte_identical_outcomes_and_main_trace(site):
    node = shutil.which("node")
    assert node, "node is needed for the Pyodide parity test"
    done = subprocess.run([node, NODE_SCRIPT, site / "pyodide"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    assert got["python"].startswith("3.14")
    assert got["sweep"] == dumps(sweep())
    assert got["main_trace"] == dumps(trace_dict(run(Switches())))
    # The explorer, and the replay of a case it finds, are the same bytes in the browser's Python.
    row = explore_setting(
        {"fencing": "off", "checkpoints": "every-step", "pins": "on", "newsletter": "current-accepted"}
        | {"post_key": "per-operation"}
    )
    assert got["explore_row"] == dumps(row)
    case = Schedule().with_values(row["smallest"]["double-acceptance"]["schedule"])
    assert got["case_trace"] == dumps(trace_dict(run(Switches(fencing="off"), schedule=case)))
    # The one fingerprint the self-check page compares: Pyodide's, CPython's, and the built site's agree.
    built = json.loads((site / "selfcheck.json").read_text())
    assert got["fingerprint"] == fingerprint() == {k: built[k] for k in fingerprint()}


SVG_NAMESPACE = "http://www.w3.org/2000/svg"  # a name, never fetched


def _urls(text: str) -> set[str]:
    return set(re.findall(r"https?://[^\s\"'`)<>]+", text)) - {SVG_NAMESPACE}


def test_the_converted_app_asks_only_for_pinned_cdns_and_its_own_files(site):
    app = site / "app"
    page, worker = (app / "explainer.html").read_text(), (app / "explainer.js").read_text()
    urls = _urls(page) | _urls(worker)
    assert urls, "the converted app should name its CDN URLs"
    assert {u for u in urls if not u.startswith(ALLOWED_CDN)} == set()
    assert "v314.0.7" in worker and "emfs:packed_wheels/panel-1.10.0-py3-none-any.whl" in worker
    # Our own wheels travel packed with the app, not fetched from anywhere.
    assert "emfs:packed_wheels/durable_work_model-" in worker
    assert "emfs:packed_wheels/durable_work_explainer_app-" in worker
    packed = zipfile.ZipFile(app / "explainer.resources.zip").namelist()
    assert any(n.endswith(".whl") and "explainer_app" in n for n in packed)
    local = set(re.findall(r"""(?:src|href)=["']([^"':]+)["']""", page))
    for path in local:
        assert (app / path).exists() or path.startswith("#"), path


def test_every_url_the_worker_can_request_is_pyodides_pinned_cdn_or_the_site(site):
    """Resolve the packed wheels' dependency tree against Pyodide's lock file: every requirement is met by
    a packed wheel or by a package of Pyodide's distribution, which the worker loads from the pinned CDN,
    so micropip never asks a package index."""
    from sitebuild.wheels import resolve_packages

    app = site / "app"
    worker = (app / "explainer.js").read_text()
    loads = json.loads(re.search(r"loadPackage\((\[[^\]]*\]), \{errorCallback", worker).group(1))
    (install,) = re.findall(r"micropip\.install\(\[([^\]]*)\], deps=False\)", worker)
    packed_names = re.findall(r"'emfs:packed_wheels/([^']+)'", install)
    archive = zipfile.ZipFile(app / "explainer.resources.zip")
    assert {f"packed_wheels/{n}" for n in packed_names} == {
        n for n in archive.namelist() if n.endswith(".whl")
    }
    lock = json.loads((site / "pyodide" / "pyodide-lock.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        wheels = [Path(tmp) / n for n in packed_names]
        for wheel in wheels:
            wheel.write_bytes(archive.read(f"packed_wheels/{wheel.name}"))

        def nothing_to_fetch(requirement, python):
            raise AssertionError(f"{requirement} is met by neither a packed wheel nor Pyodide's lock")

        resolved, from_lock = resolve_packages(wheels, lock, fetch=nothing_to_fetch)
    assert sorted(w.name for w in resolved) == sorted(packed_names)
    assert set(from_lock) <= set(loads)
    # What loadPackage fetches: each named package and its dependencies in the lock, from the pinned CDN.
    needed, todo = set(), ["micropip", *loads]
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo.extend(lock["packages"][name]["depends"])
    # The core from the site's own copy; the packages from the pinned CDN.
    assert 'import { loadPyodide } from "../pyodide/pyodide.mjs";' in worker
    cdn = re.search(r'packageBaseUrl: "([^"]+)"', worker).group(1)
    urls = {cdn + lock["packages"][n]["file_name"] for n in needed} | _urls(worker)
    assert {u for u in urls if not u.startswith("https://cdn.jsdelivr.net/pyodide/v314.0.7/full/")} == set()
    assert "pypi" not in worker and "pythonhosted" not in worker and "cdn.holoviz.org" not in worker


def test_the_app_wheel_carries_the_words(site):
    packed = zipfile.ZipFile(site / "app" / "explainer.resources.zip")
    (name,) = [n for n in packed.namelist() if "explainer_app" in n]
    import io

    inner = zipfile.ZipFile(io.BytesIO(packed.read(name))).namelist()
    assert {
        "app/content/glossary.md",
        "app/content/engine-results.json",
        "app/explainer.css",
        "app/diagrams.css",
        "app/explainer.py",
        "app/data/explore.json",
    } <= set(inner)


def test_the_explore_page_shows_the_whole_space_before_python(site):
    data = json.loads((site / "explore.json").read_text())
    assert data["model"] == source_digest()  # computed by this very model
    html = (site / "explore.html").read_text()
    assert f"{data['runs']:,} runs" in html and "rules as first written" in html
    assert html.count("<tr>") == data["settings"] + 1  # a head row, then one per protection setting
    for row in data["rows"]:
        for case in row["smallest"].values():
            assert escape(f"index.html{case['query']}") in html  # replayed on the light page


@pytest.mark.browser
def test_a_replay_link_of_the_explore_page_opens_on_the_light_page_offline(offline_page, site_url):
    page = offline_page
    page.goto(f"{site_url}/explore.html")
    schedule_ids = (
        "silent_at",
        "silent_for",
        "threshold",
        "correction_at",
        "poster_death",
        "successor_stall",
    )
    replays = ", ".join(f'main a[href^="index.html?"][href*="{k}="]' for k in schedule_ids)
    page.locator(replays).first.click()  # a case on a schedule of its own
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(page.locator("#part-header .schedule-note")).to_contain_text("Not the article's schedule")
    assert page.outside_requests == []


def test_the_site_pages_name_only_local_or_pinned_urls(site):
    for name in ("index.html", "embed.html", "selfcheck.html", "engines.html", "explore.html"):
        html = (site / name).read_text()
        assert _urls(html) == set(), name
        for path in re.findall(r"""(?:src|href)=["']([^"':#?]+)""", html):
            assert (site / path).exists(), f"{name} links to missing {path}"


def light_tick(page) -> str:
    return page.locator("#light").get_attribute("data-tick")


@pytest.mark.browser
def test_the_light_embed_shows_the_chapter_asked_for_at_once_and_steps_offline(offline_page, site_url):
    """embed.html?preset=superseded&tick=12: the newsletter waiting (that chapter, not the main trace)
    from the pre-render, Forward moves the tick before Python is there, Python takes over without
    changing the picture, and nothing is asked of any other origin."""
    page = offline_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{site_url}/embed.html?preset=superseded&tick=12")
    expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=3000)
    figure = page.locator("#part-figure")
    expect(figure).to_contain_text("newsletter")
    expect(figure.locator(".tick-caption")).to_contain_text("t12.")
    assert "waits" in figure.inner_text() and light_tick(page) == "12"
    page.locator("button.forward").click()
    expect(page.locator("#light")).to_have_attribute("data-tick", "13", timeout=3000)
    drawn = figure.inner_html()
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    assert figure.inner_html() == drawn  # Python's picture is the pre-render's
    page.locator("button.forward").click()
    expect(page.locator("#light")).to_have_attribute("data-tick", "14")
    assert page.outside_requests == [] and errors == []


@pytest.mark.browser
def test_the_light_page_changes_the_story_with_pythons_rules(offline_page, site_url):
    """A link with a switch waits for Python (it has no pre-render); a click on the stores' row (a switch)
    and a chapter button are done by app.light, as the served app does them."""
    page = offline_page
    page.goto(f"{site_url}/index.html?fencing=off&tick=8")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(page.locator("#light")).to_have_attribute("data-tick", "8")
    assert "fencing=off" in page.url
    figure = page.locator("#part-figure")
    expect(figure).to_contain_text("journal saves s4")
    figure.locator('.diagram-wide [role="button"][data-action="set"]', has_text="stores").click()
    expect(figure).to_contain_text("41 < 42")  # fencing is on again: #1's write is refused
    expect(page).not_to_have_url(re.compile("fencing=off"))  # the link says so once Python has painted
    assert "tick=8" in page.url
    page.locator("#part-header select.chapter-menu").select_option("all-off")
    expect(page).to_have_url(re.compile("fencing=off"))
    assert page.outside_requests == []


@pytest.mark.browser
def test_selfcheck_page_reports_parity_offline(offline_page, site_url):
    page = offline_page
    page.goto(f"{site_url}/selfcheck.html")
    page.wait_for_selector("body[data-parity]", timeout=120000)
    assert page.locator("body").get_attribute("data-parity") == "same"
    expect(page.locator("#sweep-same")).to_have_text("✔ same")
    expect(page.locator("#trace-same")).to_have_text("✔ same")
    assert page.outside_requests == []


def test_build_rejects_an_unknown_flag():
    done = subprocess.run([sys.executable, "build.py", "--colour"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "unrecognized arguments: --colour" in done.stderr


def test_the_engines_page_shows_the_recorded_results(site):
    from app.content import engine_results

    html = (site / "engines.html").read_text()
    results = engine_results()
    assert html.count('<tr><th scope="row">') == len(results["results"])
    assert len(results["engines"]) == 3
    for engine in results["engines"].values():
        assert engine["version"] in html
        assert html.count(f'<tr><th scope="row">{engine["name"]}</th>') >= 5  # a row in every scenario
    assert "4.1 million" in html and "closest: fencing" in html
    assert "Post key: one key per announcement" in html  # the switches in the panel's words


def test_the_pwa_option_adds_panels_service_worker(tmp_path):
    import sitebuild

    site = sitebuild.build(tmp_path / "site", pwa=True)
    names = {p.name for p in (site / "app").iterdir()}
    assert "serviceWorker.js" in names and any(
        n.endswith(".webmanifest") or n == "site.webmanifest" for n in names
    ), names


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1280])
def test_the_front_page_tells_the_story_offline_and_never_scrolls_sideways(offline_page, site_url, width):
    page = offline_page
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site_url}/index.html?tick=8")
    expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=3000)
    expect(page.locator("#part-figure")).to_contain_text("41 < 42")
    expect(page.locator("#light .more-pages a")).to_have_count(4)
    # The introduction and the tour's link come first, under the title; on a phone the title alone, whose
    # first screen is the run's (the player, then every tick in a strip).
    intro, player = (page.locator(p).bounding_box() for p in ("#light .intro.lede", "#part-player"))
    assert (intro is None) == (width <= 600) and (intro is None or intro["y"] < player["y"])
    expect(page.locator("#part-header a.tour-link")).to_be_visible()
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    # The current tick's column is in view (the drawing on show: every tick's strip on a phone).
    now = page.locator("#part-figure .now-column").locator("visible=true").first.bounding_box()
    assert now["x"] >= 0 and now["x"] + now["width"] <= width + 1, now
    # A button pressed with the keyboard keeps the focus through the repaint.
    page.locator("button.forward").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#light")).to_have_attribute("data-tick", "9")
    expect(page.locator("button.forward")).to_be_focused()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"site-index-{width}.png"), full_page=True)
    assert page.outside_requests == []


@pytest.mark.browser
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_chapter_of_the_light_page_draws_offline(offline_page, site_url, preset):
    page = offline_page
    page.goto(f"{site_url}/embed.html?preset={preset}&tick=5")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(page.locator("#part-lead .lead")).to_contain_text(heading_of(preset))
    expect(page.locator("#part-header select.chapter-menu")).to_have_value(preset)
    expect(page.locator("#part-figure .tick-caption")).to_contain_text("t5.")
    assert page.outside_requests == []


@pytest.mark.browser
def test_a_chapter_outside_the_article_shows_what_was_forgotten_at_its_key_tick(offline_page, site_url):
    """The feed that forgets keys (RULES.md §8.1), on the light page: its button is on the second row, the
    tick it forgets says so, and the resend's tick breaks the badge and says why, before and with Python."""
    page = offline_page
    page.goto(f"{site_url}/index.html?preset=forgotten-key&tick=13")
    menu = page.locator("#part-header select.chapter-menu")
    expect(menu.locator("optgroup")).to_have_attribute("label", "Outside the article")
    expect(menu).to_have_value("forgotten-key")
    expect(page.locator("#part-figure .tick-caption")).to_contain_text("The feed forgets key A")
    page.locator("button.forward").click()
    expect(page.locator("#part-figure .tick-caption")).to_contain_text("the feed has forgotten it")
    expect(page.locator("#part-player")).to_contain_text("No duplicate effect")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(page.locator("#part-figure .tick-caption")).to_contain_text("the feed has forgotten it")
    assert page.outside_requests == []


@pytest.mark.browser
def test_the_undeclared_input_chapter_breaks_only_the_sixth_check_on_the_light_page(offline_page, site_url):
    """The overview that reads section 2 outside its key (RULES.md §8.2), on the light page: the restore's
    tick says what the key did not name, and the acceptance's tick breaks the sixth badge alone, before
    and with Python."""
    page = offline_page
    page.goto(f"{site_url}/index.html?preset=undeclared-input&tick=5")
    expect(page.locator("#part-header select.chapter-menu")).to_have_value("undeclared-input")
    expect(page.locator("#part-figure .tick-caption")).to_contain_text("the summary also read s2 from v1")
    page.goto(f"{site_url}/index.html?preset=undeclared-input&tick=10")
    caption = page.locator("#part-figure .tick-caption")
    expect(caption).to_contain_text("a build of v2 from scratch would differ")
    expect(page.locator("#part-player")).to_contain_text("Same as a fresh build: broken at t10")
    expect(page.locator("#part-player")).to_contain_text("Nothing superseded accepted: held")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(caption).to_contain_text("a build of v2 from scratch would differ")
    assert page.outside_requests == []


#: Two chapters outside the article on the light page (RULES.md §8.3, §8.4): what the first key tick's
#: caption says, and what the breaking tick's caption and badge say.
OUTSIDE_KEY_TICKS = {
    # The controller restarts with its epoch in memory: it publishes the first epoch again, and #1's
    # write at t8 lands with fencing on.
    "controller-restart": (
        (4, "publishes epoch 41 again"),
        (8, "Fencing is on, yet #1's write with token 41 lands", "No stale write: broken at t8"),
    ),
    # Records are lost at t12: what went, then the second digest's acceptance.
    "records-lost": (
        (12, "5 journal records, 1 acceptance, 1 effect record"),
        (19, "A second digest", "One acceptance per input: broken at t19"),
    ),
}


@pytest.mark.browser
@pytest.mark.parametrize("preset", OUTSIDE_KEY_TICKS)
def test_a_chapter_outside_the_article_says_its_key_ticks_on_the_light_page(offline_page, site_url, preset):
    """The chapter's button is pressed on the folded row, its first key tick's caption says what happened,
    and its breaking tick says so in the caption and the badge."""
    page = offline_page
    (first, said), (breaking, why, badge) = OUTSIDE_KEY_TICKS[preset]
    page.goto(f"{site_url}/index.html?preset={preset}&tick={first}")
    expect(page.locator("#part-header select.chapter-menu")).to_have_value(preset)
    caption = page.locator("#part-figure .tick-caption")
    expect(caption).to_contain_text(said)
    page.goto(f"{site_url}/index.html?preset={preset}&tick={breaking}")
    expect(caption).to_contain_text(why)
    expect(page.locator("#part-player")).to_contain_text(badge)
    assert page.outside_requests == []


def heading_of(preset: str) -> str:
    """The chapter's title, as content/presets.md writes it in bold."""
    return re.match(r"\*\*(.+?)\*\*", text("presets", preset)).group(1)


@pytest.mark.browser
def test_four_figure_embeds_of_the_static_site_fit_and_move_together_offline(site, offline_page, site_url):
    """The served app's host page, on the static site: four 700 px frames (the embed and the three
    figures) fit their content within 10 px without scrolling, and ?group= moves them together, before
    Python over the group's channel and then through the shared worker, which tells every frame each
    step (none tells the others: tests/site/test_one_python.py has the frames without a shared worker)."""
    shutil.copy2(ROOT / "tests" / "browser" / "pages" / "figures.html", site / "figures-host.html")
    page = offline_page
    page.set_viewport_size({"width": 1000, "height": 800})
    page.goto(
        f"{site_url}/figures-host.html?target=/embed.html&sizer=/static/embed.js&group=article&preset=superseded"
    )
    frames = [f for f in page.frames if f.parent_frame is not None]
    for frame in frames:
        expect(frame.locator("#light")).not_to_have_class(re.compile("pending"), timeout=5000)
    page.wait_for_timeout(500)  # the last height messages
    assert_four_frames_fit(page, "site-figures-in-host.png")
    diagram = next(f for f in frames if "view=timeline" in f.url)
    diagram.locator("button.forward").click()
    diagram.locator("button.forward").click()
    for frame in frames:
        expect(frame.locator("#light")).to_have_attribute("data-tick", "2", timeout=5000)
    for frame in frames:
        expect(frame.locator("#light")).to_have_attribute("data-python", "ready", timeout=120000)
    # With one Python for the group, a step is its page's, and the worker tells every frame of it; the
    # frame where it was made tells the channel too (for a frame still without Python), at most once a
    # step, and no frame tells back a tick it was told.
    tell_the_group_quickly(page, "article", [])
    for _ in range(3):
        diagram.locator("button.forward").click()
    for frame in frames:
        expect(frame.locator("#light")).to_have_attribute("data-tick", "5", timeout=5000)
    page.wait_for_timeout(1500)
    told = [echo["tick"] for echo in page.evaluate("() => window.echoes")]
    assert set(told) <= {3, 4, 5} and len(told) == len(set(told)), told  # none told twice, none back
    for frame in frames:
        expect(frame.locator("#light")).to_have_attribute("data-tick", "5")
    assert page.outside_requests == []


@pytest.mark.browser
def test_the_full_app_offline_says_what_failed_and_links_to_the_light_page(site_url, page):
    """Panel's and Bokeh's CDNs out of reach: the full explainer says so in words at once (never a bare
    spinner) and links to the light page with the same query; its Pyodide core comes from the site."""
    asked: list[str] = []

    def route(r):
        asked.append(r.request.url)
        r.continue_() if r.request.url.startswith(site_url) else r.abort()

    page.context.route("**/*", route)
    page.goto(f"{site_url}/app/explainer.html?preset=superseded&tick=12")
    note = page.locator("#full-app-note")
    expect(note).to_contain_text("could not be reached", timeout=10000)
    expect(note.get_by_role("link", name="Open the light explainer")).to_have_attribute(
        "href", f"{site_url}/index.html?preset=superseded&tick=12"
    )
    expect(page.locator("#loader-msg")).not_to_have_text("", timeout=10000)
    for _ in range(40):  # the worker asks for the core within seconds; from the site, not a CDN
        core = [u for u in asked if u.endswith("pyodide.asm.wasm")]
        if core:
            break
        page.wait_for_timeout(250)
    assert core and all(u.startswith(site_url) for u in core), core


STRIPPED_APP_RENDERS = """
import sys
import bokeh, panel
assert panel.__file__.startswith(sys.argv[1]) and bokeh.__file__.startswith(sys.argv[1])
from bokeh.document import Document
from bokeh.embed.util import standalone_docs_json_and_render_items
from bokeh.resources import Resources
from panel.io.resources import Resources as PanelResources
from app.explainer import create_app
doc = Document()
create_app("?preset=superseded&tick=12").server_doc(doc)
docs_json, items = standalone_docs_json_and_render_items(doc.roots)
assert docs_json and items
print(len(Resources(mode="cdn").js_files), len(PanelResources(mode="cdn").js_files))
"""


def test_the_packed_panel_and_bokeh_without_their_javascript_still_draw_the_app(site, tmp_path):
    """The worker's Panel and Bokeh come without the JavaScript the page loads from the CDNs: installed
    from the packed wheels alone, they still build the explainer's document, and every RECORD line is
    the file it names, with its hash."""
    archive = zipfile.ZipFile(site / "app" / "explainer.resources.zip")
    packed = {n.split("/")[-1].split("-")[0]: n for n in archive.namelist() if n.endswith(".whl")}
    size = sum(archive.getinfo(n).file_size for n in archive.namelist())
    assert size < 12e6, f"the resources archive is {size / 1e6:.1f} MB"
    for name in ("panel", "bokeh"):
        with zipfile.ZipFile(io.BytesIO(archive.read(packed[name]))) as wheel:
            names = set(wheel.namelist())
            assert not any(n.startswith(("panel/dist/bundled/", "bokeh/server/static/")) for n in names)
            record = next(n for n in names if n.endswith(".dist-info/RECORD"))
            for line in wheel.read(record).decode().splitlines():
                path, digest, _ = line.rsplit(",", 2)
                if digest:
                    data = wheel.read(path)
                    expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                    assert digest == f"sha256={expected.decode()}", path
            assert {line.rsplit(",", 2)[0] for line in wheel.read(record).decode().splitlines()} == names
            wheel.extractall(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", STRIPPED_APP_RENDERS, str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": f"{tmp_path}:{ROOT}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.browser
@pytest.mark.parametrize(
    "query", ["index.html?tick=8", "embed.html?preset=no-key&tick=14", "embed.html?view=lifecycles&tick=8"]
)
def test_axe_finds_nothing_serious_on_the_light_pages(offline_page, site_url, query):
    axe = ROOT / ".tools" / "node_modules" / "axe-core" / "axe.min.js"
    if not axe.exists():
        pytest.fail(f"{axe} is missing; ./dev test installs npm's axe-core")
    page = offline_page
    page.goto(f"{site_url}/{query}")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    page.evaluate(axe.read_text())
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length}))"
    )
    assert [v for v in found if v["impact"] in ("serious", "critical")] == [], found
    assert not any(v["id"] == "landmark-one-main" for v in found)


@pytest.mark.browser
def test_the_guided_tour_runs_on_the_light_page_offline(offline_page, site_url):
    from app.state import ReaderState
    from app.tour import right_answers, steps

    step, state = steps()[1], ReaderState()
    state.go_to_step(2)
    (right,) = right_answers(step, state.trace)
    page = offline_page
    page.goto(f"{site_url}/index.html?tour=2")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    tour = page.locator("#part-tour")
    expect(tour).to_contain_text("Tour, step 2")
    tour.locator("input[type=radio]").nth(1 - right).check()
    tour.get_by_role("button", name="Check my answer and show the tick").click()
    expect(tour.locator(".tour-verdict")).to_contain_text("Not quite.")
    expect(page.locator("#light")).to_have_attribute("data-tick", str(step.ask))
    tour.get_by_role("button", name="Next step ▶").click()
    expect(tour).to_contain_text("Tour, step 3")
    assert "tour=3" in page.url and page.outside_requests == []


@pytest.mark.browser
def test_the_explore_page_searches_wider_ranges_in_the_browser_offline(offline_page, site_url):
    """Fencing off, silences up to 10 ticks: the page says how many schedules first, then gives the
    model's row (counts and replay links), all in the reader's browser; axe finds nothing serious."""
    from model.explore import explore_setting, space_with

    protections = {"fencing": "off", "checkpoints": "every-step", "pins": "on"}
    protections |= {"newsletter": "current-accepted", "post_key": "per-operation"}
    row = explore_setting(protections, space=space_with({"silent_for": "1 to 10 ticks, or never"}))
    page = offline_page
    page.goto(f"{site_url}/explore.html")
    page.get_by_label("Fencing").select_option("off")
    page.get_by_label("Silences last").select_option("1 to 10 ticks, or never")
    # Every figure the progress bar is given while the search works, in order.
    page.evaluate(
        """() => { window.progressSeen = [];
        new MutationObserver((changes) => { for (const c of changes) window.progressSeen.push(
          c.target.getAttribute("aria-valuetext")); }).observe(document.getElementById("wider-result"),
          {subtree: true, attributes: true, attributeFilter: ["aria-valuetext"]}); }"""
    )
    page.get_by_role("button", name="Search these ranges").click()
    result = page.locator("#wider-result")
    expect(result).to_contain_text("Searching: Your protections (fencing off", timeout=90000)
    expect(result).to_contain_text(f"against {row['runs']} schedules:", timeout=120000)
    seen = page.evaluate("window.progressSeen")
    done = [int(s.split(" of ")[0].replace(",", "")) for s in seen]
    assert len(done) >= 10 and done == sorted(set(done)), seen  # moved on, many times, never back
    assert seen[-1] == f"{row['runs']:,} of {row['runs']:,} schedules searched"
    for what, broken in row["broken"].items():
        if broken:
            expect(result).to_contain_text(f"under {broken} of {row['runs']} schedules")
            case = row["smallest"][what]
            assert result.locator(f'a[href="index.html{case_query(case)}"]').count() == 1
    page.screenshot(path=str(ARTIFACTS / "site-explore-wider-1280.png"), full_page=False)
    page.set_viewport_size({"width": 390, "height": 844})
    result.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "site-explore-wider-390.png"), full_page=False)
    page.evaluate((ROOT / ".tools" / "node_modules" / "axe-core" / "axe.min.js").read_text())
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length}))"
    )
    assert [v for v in found if v["impact"] in ("serious", "critical")] == [], found
    assert page.outside_requests == []


@pytest.mark.browser
@pytest.mark.parametrize(
    "query", ["index.html?tick=-1", "embed.html?tick=1e9&embed=1", "index.html?preset=main&tick=500"]
)
def test_a_bad_tick_in_a_plain_link_gets_the_served_apps_notice(offline_page, site_url, query):
    """The pre-render shows the nearest tick at once; Python then reads the link as it was given and
    says what it corrected, in the served app's words, at the same tick."""
    from app.state import ReaderState

    state = ReaderState()
    notices = state.apply_query("?" + query.split("?", 1)[1])
    assert notices  # the served app says something about each of these links
    page = offline_page
    page.goto(f"{site_url}/{query}")
    light = page.locator("#light")
    expect(light).to_have_attribute("data-python", "ready", timeout=90000)
    header = page.locator("#part-header")
    expect(header).to_contain_text("About this link:")
    for notice in notices:
        assert notice in header.inner_text()
    assert light.get_attribute("data-tick") == str(state.tick)


def tell_the_group(page, group: str, ticks: list) -> None:
    """Post ticks to a group from this page, as any page of the site could."""
    page.evaluate(
        """([group, ticks]) => {
             const channel = new BroadcastChannel(`durable-work-explainer:${group}`);
             for (const tick of ticks) channel.postMessage({ tick });
             channel.close();
           }""",
        [group, ticks],
    )


@pytest.mark.browser
def test_a_flood_of_group_messages_before_python_queues_at_most_the_latest_tick(offline_page, site_url):
    page = offline_page
    page.goto(f"{site_url}/embed.html?fencing=off&group=flood")  # a switch: no pre-render, all waits
    light = page.locator("#light")
    sender = page.context.new_page()
    sender.goto(f"{site_url}/engines.html")
    tell_the_group(sender, "flood", [1e21] * 3000 + [-1, 2.5, "7"] + [n % 9 for n in range(3000)] + [6])
    expect(light).to_have_attribute("data-queued", "1", timeout=10000)
    assert light.get_attribute("data-python") != "ready"  # the queue was seen before Python took it
    expect(light).to_have_attribute("data-python", "ready", timeout=90000)
    expect(light).to_have_attribute("data-tick", "6")
    assert light.get_attribute("data-queued") == "0"
    page.locator("button.forward").click()  # the reader's step is not behind thousands of others
    expect(light).to_have_attribute("data-tick", "7", timeout=5000)
    sender.close()


@pytest.mark.browser
def test_a_row_name_clicked_twice_at_one_spot_on_the_light_page_flips_one_switch_and_back(
    offline_page, site_url
):
    """embed.html at 700 px, main t8: the stores' row clicked twice at the same spot turns fencing off and
    on again (the run before stays under the diagram, so nothing above the rows moves), and the page says
    once that a row's name is a switch."""
    page = offline_page
    page.set_viewport_size({"width": 700, "height": 900})
    page.goto(f"{site_url}/embed.html?preset=main&tick=8")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(page.locator("#part-legend .legend-note")).to_contain_text("is a switch")
    row = page.locator("#part-figure g.row-switch[data-key='row-stores']")
    row.scroll_into_view_if_needed()
    box = row.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    expect(page).to_have_url(re.compile("fencing=off"), timeout=20000)
    expect(page.locator("#part-lead .lead")).to_contain_text("The runs part at t8")
    page.wait_for_timeout(1600)
    page.mouse.click(x, y)
    expect(page).not_to_have_url(re.compile("fencing=off"), timeout=20000)
    assert not re.search(r"post_key|newsletter|checkpoints|silent|change=", page.url), page.url
    assert page.outside_requests == []


@pytest.mark.browser
def test_a_closed_fold_shows_the_run_on_show_when_it_opens(offline_page, site_url):
    """A part in a closed fold (here the records) is painted when the fold opens, so a switch paints what
    is on show first: opened, it is the run on show, however the reader switched while it was closed
    (there and back again too)."""
    page = offline_page
    page.goto(f"{site_url}/index.html?preset=main&tick=8")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    fold = page.locator("details.fold:has(#part-records)")
    journal = page.locator("#part-records").get_by_text(re.compile(r"^Journal \(\d+\)$"))
    row = page.locator("#part-figure g.row-switch[data-key='row-stores']")

    def flip(fencing: str) -> None:
        painted = page.evaluate("document.getElementById('light').dataset.painted")
        row.click()
        page.wait_for_function(f"document.getElementById('light').dataset.painted !== '{painted}'")
        assert ("fencing=off" in page.url) == (fencing == "off"), page.url

    fold.locator("summary").click()
    expect(journal).to_have_text("Journal (5)")  # fencing on: #1's write at t8 refused
    fold.locator("summary").click()
    flip("off")
    flip("on")  # back while the fold was closed: the fencing-off records never show
    fold.locator("summary").click()
    expect(journal).to_have_text("Journal (5)")
    fold.locator("summary").click()
    flip("off")
    assert fold.get_attribute("open") is None
    fold.locator("summary").click()
    expect(journal).to_have_text("Journal (6)")  # fencing off: the stale write is journaled


@pytest.mark.browser
def test_every_control_of_the_light_page_on_a_phone_is_at_least_24_px_tall(offline_page, site_url):
    page = offline_page
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(f"{site_url}/index.html?preset=main&tick=8")
    expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=3000)
    assert page.evaluate(SMALL_TARGETS) == []


def press(page, button: str) -> None:
    """A player's button; "first" and "last" are the scrubber's ends (Home and End on the keyboard)."""
    if button in ("first", "last"):
        scrub = page.locator("input[type=range][data-action=go]").first
        scrub.fill("0" if button == "first" else scrub.get_attribute("max"))
    else:
        page.locator(f"button.{button}").first.click()


@pytest.mark.browser
def test_the_light_embed_keeps_its_height_from_the_first_tick_to_the_last(offline_page, site_url):
    """An article's frame should not grow as its reader steps: the embed keeps room for the run's longest
    caption and tallest tick, its badges in a grid, and its ending folded to one line (issue 35). Each
    chapter is measured from the pre-render and again once Python draws it."""
    page = offline_page
    page.set_viewport_size({"width": 700, "height": 900})
    height = "Math.ceil(document.querySelector('#light').getBoundingClientRect().height)"
    for chapter in ("main", "all-off"):
        page.goto(f"{site_url}/embed.html?preset={chapter}")
        expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=3000)
        seen = {}
        for button in ("first", "forward", "last", "first"):
            press(page, button)
            page.wait_for_timeout(300)
            seen[f"{button} t{light_tick(page)}"] = page.evaluate(height)
        assert max(seen.values()) - min(seen.values()) <= 2, (chapter, seen)
        assert page.locator("details.outcome-end").count() == 0  # at t0 the ending is not told
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    press(page, "last")
    expect(page.locator("details.outcome-end")).to_be_visible()
    last = page.evaluate(height)
    press(page, "first")
    page.wait_for_timeout(500)
    assert abs(page.evaluate(height) - last) <= 2


def readme_heights() -> list[tuple[str, int, int]]:
    """The README's table of frame heights at 700 px: (query, lowest, highest)."""
    rows = re.findall(
        r"^\| `embed\.html\?([^`]+)` \| (\d+)(?: to (\d+))? px \|$", (ROOT / "README.md").read_text(), re.M
    )
    return [(query, int(low), int(high or low)) for query, low, high in rows]


#: An article with one figure of the site, 700 px wide, sized by the site's embed.js; ``told`` counts the
#: heights the frame has told (embed.js has set the frame's height by then).
ONE_FIGURE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>One figure</title>
<style>body { margin: 0 } iframe { width: 700px; border: 0; display: block; height: 150px }</style></head>
<body><iframe id="figure" title="The explainer"></iframe><script src="static/embed.js"></script>
<script>window.told = 0;
addEventListener("message", (e) => {
  if (e.data?.type === "durable-work-explainer:height") window.told += 1;
});
document.getElementById("figure").src = "embed.html" + location.search;</script></body></html>"""


@pytest.mark.browser
def test_every_frame_is_as_tall_as_the_readme_says_at_every_tick(offline_page, site, site_url):
    """Each row of the README's table of heights, as an author's iframe gets it (sized by embed.js in a page
    700 px wide), over every tick of the frame's run from the pre-render, as an article's reader first sees
    it: within 2 px of what the table says (the table once gave the content's height, 16 px short of the
    frame's)."""
    rows = readme_heights()
    assert len(rows) >= 7, rows
    (site / "one-figure.html").write_text(ONE_FIGURE, encoding="utf-8")
    page = offline_page
    page.set_viewport_size({"width": 700, "height": 900})
    tall = "Math.round(document.getElementById('figure').getBoundingClientRect().height)"
    for query, low, high in rows:
        page.goto(f"{site_url}/one-figure.html?{query}")
        frame = page.frame_locator("#figure")
        expect(frame.locator("#light")).not_to_have_class(re.compile("pending"), timeout=5000)
        end = int(frame.locator("input[type=range][data-action=go]").first.get_attribute("max"))
        seen = []
        page.wait_for_function("window.told > 0")  # the frame has told its height once
        for tick in range(end + 1):
            if tick:
                frame.locator("button.forward").first.click()
                expect(frame.locator("#light")).to_have_attribute("data-tick", str(tick))
            # What the frame tells when its content's height changes (frame.js): the frame is that tall
            # once embed.js has heard it.
            told = frame.locator("#light").evaluate("(r) => Math.ceil(r.getBoundingClientRect().height) + 16")
            page.wait_for_function(f"{tall} === {told}")
            seen.append(told)
        assert low - 2 <= min(seen) and max(seen) <= high + 2, (query, low, high, seen)


@pytest.mark.browser
@pytest.mark.parametrize("view", ["", "&view=timeline"])
def test_no_chapter_no_tick_and_no_switch_changes_a_frame_s_height(offline_page, site_url, view):
    """An article's frame is one height whatever its reader does in it (issue 44: a switch made the frame
    85 px taller, or 768 px once): at 700 px, every chapter at its first and last tick, and every row switch
    of the diagram clicked around its values once Python has taken over, within 2 px. A run whose tallest
    tick needs more than the frame's room is drawn smaller (checked by the zoom it gets). The chapter of an
    undeclared input is left out: its sixth invariant is a seventh badge, a row more of them."""
    from app.state import PRESETS

    page = offline_page
    page.set_viewport_size({"width": 700, "height": 900})
    height = "Math.ceil(document.querySelector('#light').getBoundingClientRect().height)"
    seen: dict[str, int] = {}
    for preset in (p for p in PRESETS if p != "undeclared-input"):
        for tick in ("0", "99"):
            page.goto(f"{site_url}/embed.html?preset={preset}&tick={tick}{view}")
            expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=5000)
            seen[f"{preset} t{page.locator('#light').get_attribute('data-tick')}"] = page.evaluate(height)
    page.goto(f"{site_url}/embed.html?preset=main&tick=8{view}")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    rows = page.locator("svg.diagram-names g.row-switch")
    zooms = set()
    for i in range(rows.count()):
        for turn in range(3):  # a row cycles two or three values: around and back, or nearly
            painted = page.evaluate("document.getElementById('light').dataset.painted")
            key = rows.nth(i).get_attribute("data-key")
            rows.nth(i).click()
            page.wait_for_function(f"document.getElementById('light').dataset.painted !== '{painted}'")
            seen[f"{key} click {turn + 1}"] = page.evaluate(height)
            zooms.add(page.evaluate("getComputedStyle(document.querySelector('.diagram-rows')).zoom"))
    assert max(seen.values()) - min(seen.values()) <= 2, seen
    assert len(zooms) > 1, zooms  # some run is taller than the room and is drawn smaller, not taller


@pytest.mark.browser
@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
def test_present_1_on_the_light_page_fits_a_projector(offline_page, site_url, width, height):
    """``?present=1`` is the light page's presenter layout too (it was ignored): large type, and the whole
    diagram, every row and the tick axis, on one screen of a projector."""
    page = offline_page
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{site_url}/index.html?present=1&preset=main&tick=8")
    expect(page.locator("#light")).to_have_class(re.compile(r"\bpresent\b"))
    expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=5000)
    assert float(page.evaluate("getComputedStyle(document.documentElement).fontSize")[:-2]) >= 18
    # The tour's link, under the diagram, keeps presenter mode, from the pre-render on (it left it).
    expect(page.locator("#part-header a.tour-link")).to_have_attribute("href", "?present=1&tour=1")
    axis = page.locator("#part-figure .diagram-wide svg.diagram text.tick").last.bounding_box()
    names = page.locator("#part-figure svg.diagram-names").bounding_box()
    assert names["y"] >= 0 and names["y"] + names["height"] <= height, names
    assert axis["y"] + axis["height"] <= height, axis
    assert "present=1" in page.url
    # The diagram drawn large, as the served presenter draws it (the light page's words were 14 px
    # where the served app's are 18): a word's box at least 20 px tall, the type 18 px.
    words = page.evaluate(
        "[...document.querySelectorAll('#part-figure .diagram-wide svg.diagram text')]"
        ".map((t) => t.getBoundingClientRect().height).sort((a, b) => a - b)"
    )
    assert words[len(words) // 2] >= 20, words
    # Drawn so from the pre-render: nothing changes when Python takes over.
    first = page.inner_html("#part-figure")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    page.wait_for_timeout(500)
    assert page.inner_html("#part-figure") == first
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"light-present-{width}x{height}.png"))
    # Every chapter's tallest tick as presenter mode draws it: every row and the axis on the first screen
    # (issue 44: the superseded chapter's t13 ran 164 px under a 1280x720 screen).
    from app.render.diagram import layout_of

    for name in PRESETS:
        trace = trace_dict(run(Switches.from_mapping(PRESETS[name])))
        tallest = max(range(trace["end_tick"] + 1), key=lambda t: layout_of(trace, t, large=True).bottom)
        page.goto(f"{site_url}/index.html?present=1&preset={name}&tick={tallest}")
        expect(page.locator("#part-figure .diagram-wide svg.diagram text.now-tick")).to_have_text(
            f"t{tallest}", timeout=5000
        )
        bottoms = page.evaluate(
            "['svg.diagram text.tick', 'svg.diagram-names'].map((s) => Math.max(...[...document"
            ".querySelectorAll(`#part-figure ${s}`)].map((e) => e.getBoundingClientRect().bottom)))"
        )
        assert max(bottoms) <= height and page.evaluate("scrollY") == 0, (name, tallest, bottoms)


@pytest.mark.browser
@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
def test_present_1_in_the_tour_asks_beside_the_whole_diagram(offline_page, site_url, width, height):
    """The light page's presenter layout in the tour, as the served app's: every step's question, its
    answers and the button that checks them beside the whole diagram (every row and the axis) and the
    badges, on the first screen of a projector (the card stood above the diagram, which began at y=550)."""
    page = offline_page
    page.set_viewport_size({"width": width, "height": height})
    for step in range(1, 10):
        page.goto(f"{site_url}/index.html?present=1&tour={step}")
        expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=5000)
        bottoms = {
            what: page.evaluate(
                f"Math.max(...[...document.querySelectorAll('{selector}')]"
                ".filter((e) => e.getClientRects().length).map((e) => e.getBoundingClientRect().bottom))"
            )
            for what, selector in {
                "question": ".tour-answers legend", "answers": "label.tour-answer",
                "check": "button.tour-check",
                "rows": "#part-figure svg.diagram-names", "axis": "#part-figure svg.diagram text.tick",
                "badges": ".badge-strip li",
            }.items()
        }  # fmt: skip
        assert all(0 < bottom <= height for bottom in bottoms.values()), (step, bottoms)
    page.screenshot(path=str(ARTIFACTS / f"light-present-tour-{width}x{height}.png"))


#: A browser that has SharedWorker and refuses it, as Chromium does in a frame of another site's article
#: where third-party storage is blocked: the worker fails at once and never answers.
REFUSED_SHARED_WORKER = """
window.SharedWorker = class {
  constructor() {
    this.port = { postMessage() {}, start() {}, close() {} };
    setTimeout(() => this.onerror && this.onerror(new Event("error")), 0);
  }
};
"""


@pytest.mark.browser
def test_a_frame_refused_a_shared_worker_runs_python_itself(offline_page, site_url):
    """Where a shared worker is refused (issue 48: 50 of 50 frames in another site's article said "Python
    could not start"; a switch then did nothing), the page runs Python in a worker of its own, for its
    article's other frames too (python.js's Relay), and replays what it had sent: a switch clicked before
    Python was ready is done once it is."""
    page = offline_page
    page.add_init_script(REFUSED_SHARED_WORKER)
    page.goto(f"{site_url}/embed.html?preset=main&tick=8")
    expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=5000)
    page.locator("g.row-switch[data-key='row-stores']").click()  # fencing off, before Python is ready
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(page.locator("#light")).to_have_attribute("data-worker", "relayed")
    assert page.evaluate("durableWorkRelay.leader === durableWorkRelay.me")  # alone, it leads
    expect(page.locator("#part-lead .lead")).to_contain_text("fencing from on to off", timeout=30000)
    assert "could not start" not in (page.locator("#light-status").text_content() or "")


#: The site's shared worker, whose answers stop reaching the page once ``window.workerGone`` is set: what
#: a page sees of a worker killed, or of the tab hosting it crashed out of memory (no event says so).
GONE_SHARED_WORKER = """
const RealSharedWorker = window.SharedWorker;
window.SharedWorker = class {
  constructor(url, options) {
    const worker = new RealSharedWorker(url, options);
    const port = worker.port;
    this.worker = worker;
    this.port = {
      postMessage: (message) => port.postMessage(message),
      start: () => port.start(), close: () => port.close(),
      set onmessage(handler) { port.onmessage = (event) => { if (!window.workerGone) handler(event); }; },
    };
  }
  set onerror(handler) { this.worker.onerror = handler; }
};
"""


@pytest.mark.browser
def test_a_worker_that_stops_answering_is_noticed_and_python_starts_again_where_the_reader_was(
    offline_page, site_url
):
    """A worker that dies froze every frame without a word (issue 48: Play stopped, the switches did
    nothing, data-python stayed "ready"). A page that asks nothing pings its worker; 20 s without an
    answer, it says Python stopped and starts a worker of its own at the reader's link, while the
    chapters' player goes on from the pre-render; then the switches work again."""
    page = offline_page
    page.add_init_script(GONE_SHARED_WORKER)
    page.goto(f"{site_url}/embed.html?preset=main&tick=3")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    page.locator("g.row-switch[data-key='row-journal']").click()  # a switch Python made: kept after
    expect(page.locator("#part-lead .lead")).to_contain_text("checkpoints", timeout=20000)
    page.evaluate("window.workerGone = true")  # nothing clicked from here: the ping notices
    expect(page.locator("#light")).to_have_attribute("data-python", "restarting", timeout=40000)
    expect(page.locator("#light-status")).to_contain_text("starting it again")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(page.locator("#light")).to_have_attribute("data-worker", "own")
    assert "checkpoints=end-only" in page.evaluate("location.search")  # where the reader was
    page.locator("g.row-switch[data-key='row-stores']").click()
    expect(page.locator("#part-lead .lead")).to_contain_text("fencing from on to off", timeout=20000)
    expect(page.locator("#light")).to_have_attribute("data-tick", "3")


@pytest.mark.browser
def test_frames_of_a_group_whose_worker_stopped_start_again_and_stay_one_run(offline_page, site_url):
    """Two frames of one group on a shared worker that stops answering: each starts Python of its own,
    and a switch in one still reaches the other (by the group's channel, as without a shared worker)."""
    first = offline_page
    first.add_init_script(GONE_SHARED_WORKER)
    first.goto(f"{site_url}/embed.html?preset=main&tick=8&group=again")
    expect(first.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    other = first.context.new_page()
    other.route("**/*", lambda r: r.continue_() if r.request.url.startswith(site_url) else r.abort())
    other.add_init_script(GONE_SHARED_WORKER)
    other.goto(f"{site_url}/embed.html?preset=main&tick=8&group=again&view=badges")
    expect(other.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    for page in (first, other):
        page.evaluate("window.workerGone = true")
    for page in (first, other):
        expect(page.locator("#light")).to_have_attribute("data-worker", "own", timeout=60000)
        expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    first.locator("g.row-switch[data-key='row-stores']").click()
    expect(first.locator("#part-lead .lead")).to_contain_text("fencing from on to off", timeout=20000)
    other.wait_for_function("() => location.search.includes('fencing=off')", timeout=20000)
    expect(other.locator("#part-badges")).to_contain_text("No stale write: broken")
    other.close()


@pytest.mark.browser
def test_a_link_with_a_chapter_s_switch_values_paints_its_pre_render_at_once(offline_page, site_url):
    """``?change=after-acceptance&tick=12`` is the superseded chapter as Python writes its link: the
    page paints that chapter's pre-render at once rather than waiting for Python to draw the link."""
    page = offline_page
    page.goto(f"{site_url}/index.html?change=after-acceptance&tick=12")
    expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=3000)
    expect(page.locator("#light")).to_have_attribute("data-tick", "12")
    expect(page.locator("#part-lead .lead")).to_contain_text(heading_of("superseded"))
    assert "to draw this link" not in (page.locator("#light-status").text_content() or "")
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(page.locator("#light")).to_have_attribute("data-tick", "12")
    assert page.outside_requests == []


def test_the_snapshot_s_free_memory_is_zeroed_without_growing_it(site):
    """sitebuild/free_memory.mjs, which the snapshot build calls: a block malloc holds free loses its old
    bytes (else the gzipped snapshot carries them), the wasm memory keeps its size, and malloc is left able
    to grow as before."""
    done = subprocess.run(
        [shutil.which("node"), ROOT / "tests" / "site" / "free_memory.mjs", site / "pyodide"]
        + [ROOT / "sitebuild" / "free_memory.mjs"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    assert got == {"zeroed": got["zeroed"], "left": 0, "grew": False, "limitKept": True, "pythonWorks": True}
    assert got["zeroed"] >= 1 << 14


@pytest.mark.browser
@pytest.mark.parametrize("query", ["?join=ABCDE", "?class=new&present=1"])
def test_a_class_link_on_the_static_site_is_answered_at_once_in_a_student_s_words(
    offline_page, site_url, query
):
    """A join link opened on this site (it cannot keep a class) says at once, before Python and whatever
    it later says, what to ask the teacher for; the front page says in one line where class mode lives."""
    page = offline_page
    page.goto(f"{site_url}/index.html{query}", wait_until="commit")
    note = " ".join(sections("classroom")["needs the server"].split())
    expect(page.locator("#light-status")).to_have_text(note, timeout=3000)
    assert page.locator("#light").get_attribute("data-python") != "ready"  # before Python
    expect(page.locator("#light")).to_have_attribute("data-python", "ready", timeout=90000)
    expect(page.locator("#light-status")).to_have_text(note)  # still said once Python is there
    assert "./dev serve" not in note and "Class mode" in (page.locator(".class-home").text_content() or "")


@pytest.mark.browser
@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_the_light_page_shows_the_whole_run_at_every_tick_of_every_chapter(
    offline_page, site_url, width, height
):
    """The light page as the served one (issue 59), from the pre-render a reader first sees: on a phone the
    player and the strip of every tick on the first screen, the tick in full starting on it; at 1280x800
    every tick's column and the axis on the first screen; nothing wider than the screen."""
    page = offline_page
    page.set_viewport_size({"width": width, "height": height})
    shown = "(s) => [...document.querySelectorAll(s)].filter((e) => e.getClientRects().length)"
    for name in PRESETS:
        page.goto(f"{site_url}/index.html?preset={name}")
        expect(page.locator("#light")).not_to_have_class(re.compile("pending"), timeout=5000)
        end = int(page.locator("input[type=range][data-action=go]").first.get_attribute("max"))
        for tick in range(end + 1):
            if tick:
                page.locator("button.forward").first.click()
                expect(page.locator("#light")).to_have_attribute("data-tick", str(tick))
            page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            where = (name, tick)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, where
            corners = "(e) => [e.getBoundingClientRect().right, e.getBoundingClientRect().bottom]"
            ticks = page.evaluate(f"({shown})('#part-figure svg.diagram text.tick').map({corners})")
            assert ticks and max(r for r, _ in ticks) <= width, (where, ticks)
            if width < 640:
                strip = page.locator("#part-figure svg.diagram-overview").bounding_box()
                player = page.locator("#part-player").bounding_box()
                detail = page.locator("#part-figure svg.diagram-detail").bounding_box()
                assert player["y"] + player["height"] <= height and strip["y"] + strip["height"] <= height, (
                    where
                )
                assert detail["y"] < height, where
            else:
                assert len(ticks) == end + 1 and max(b for _, b in ticks) <= height, (where, ticks)
