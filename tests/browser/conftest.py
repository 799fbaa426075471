"""Real-browser fixtures: the explainer served by `panel serve`, driven by Playwright in Debian's Chromium.

The test command (./dev test) installs Chromium when it is missing; Playwright's own browser download
is never used (there is no network for it).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.conftest import ARTIFACTS, ROOT

PAGES = ROOT / "tests" / "browser" / "pages"  # host pages served beside the app, for embedding tests

#: The start of a page script that looks through Panel's shadow roots: ``everyRoot()`` is the document and
#: every shadow root in it, ``deepAll(selector)`` the elements matching a selector in any of them.
EVERY_ROOT = """
  const everyRoot = (root = document) => [root, ...[...root.querySelectorAll("*")]
    .filter((el) => el.shadowRoot).flatMap((el) => everyRoot(el.shadowRoot))];
  const deepAll = (selector) => everyRoot().flatMap((root) => [...root.querySelectorAll(selector)]);
"""

#: Finds the served app's space-time diagram (its ticks' drawing, inside the page's shadow roots) and keeps
#: it as ``window.__diagram``; ``document.body.dataset.diagrams`` says how many were found.
FIND_DIAGRAM = """() => {
  const found = [];
  const walk = (root) => {
    for (const svg of root.querySelectorAll('svg.diagram[role="img"]')) {
      // Both drawings are in the page (the wide one, and a narrow screen's strip and tick in full); the
      // stylesheet shows the one that fits, and only what the screen shows counts.
      const box = svg.getBoundingClientRect();
      if (svg.checkVisibility() && box.width > 0 && box.height > 0) found.push(svg);
    }
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  document.body.dataset.diagrams = String(found.length);
  window.__diagrams = found;
  window.__diagram = found[0];
}"""


#: Per frame of a host page (tests/browser/pages/figures.html): its height, its content's (the page's
#: root plus the 16 px the page adds for its margin), and whether the frame's document scrolls either way.
FRAME_FIT = """() => [...document.querySelectorAll("iframe.figure")].map((frame) => {
  const doc = frame.contentDocument, root = doc.querySelector(".explainer, #light");
  return {
    src: frame.dataset.src, frame: frame.clientHeight,
    content: root ? Math.ceil(root.getBoundingClientRect().height) + 16 : -1,
    scrolls: doc.documentElement.scrollHeight > doc.documentElement.clientHeight + 1
      || doc.documentElement.scrollWidth > doc.documentElement.clientWidth + 1,
  };
})"""


#: Every button, summary and range on the page (through Panel's shadow roots) shorter than 24 px, by its
#: words. The marks under the scrubber are 18 px under a mouse and 24 px under a finger (measured apart).
SMALL_TARGETS = """() => {
  const small = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("button, [role=button], summary, input[type=range]")) {
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.height < 24 && !el.classList.contains("moment-mark")) {
        const words = (el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 30);
        small.push(`${el.tagName} ${words} ${box.height.toFixed(1)}`);
      }
    }
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return small;
}"""


def assert_four_frames_fit(page, screenshot: str) -> None:
    """The host page's four frames are each their content's height within 10 px, scroll neither way,
    and are saved as a screenshot for a reader to look at."""
    fits = page.evaluate(FRAME_FIT)
    assert len(fits) == 4
    for fit in fits:
        assert fit["content"] > 150, fit
        assert abs(fit["frame"] - fit["content"]) <= 10, fit
        assert not fit["scrolls"], fit
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / screenshot), full_page=True)


# The document's height once it has not changed for ten polls of 100 ms in a row: a page that is still
# laying out (fonts, a late part, a redraw after a switch) on a loaded machine is waited for, however long
# it takes within the expect bound, rather than measured after a fixed sleep.
SETTLED_HEIGHT = """() => {
  const height = document.documentElement.scrollHeight;
  const seen = (window.__settledHeight ??= { height: -1, polls: 0 });
  if (height === seen.height) seen.polls += 1;
  else Object.assign(seen, { height, polls: 0 });
  return seen.polls >= 10 ? height : false;
}"""


def settled_height(page, timeout: float = 30_000) -> int:
    """The page's height once it holds still (``SETTLED_HEIGHT``)."""
    page.evaluate("delete window.__settledHeight")
    return page.wait_for_function(SETTLED_HEIGHT, polling=100, timeout=timeout).json_value()


def assert_frames_hold_still(page, seconds: float = 15) -> None:
    """For ``seconds`` with no reader action and nothing scrolled, every frame of the host page keeps its
    height within 2 px and fits its content within 10 px (a frame below the fold as well, which the
    browser may not lay out until it is scrolled to); then scrolled into view one by one, each still fits."""
    first = page.evaluate(FRAME_FIT)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page.wait_for_timeout(500)
        for fit, start in zip(page.evaluate(FRAME_FIT), first, strict=True):
            assert abs(fit["frame"] - start["frame"]) <= 2, (start, fit)
            assert abs(fit["frame"] - fit["content"]) <= 10 and not fit["scrolls"], fit
    for n in range(len(first)):
        page.locator("iframe.figure").nth(n).scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        fit = page.evaluate(FRAME_FIT)[n]
        assert abs(fit["frame"] - fit["content"]) <= 10 and not fit["scrolls"], fit


def tell_the_group_quickly(page, group: str, ticks: list[int]) -> None:
    """The host page announces ``ticks`` on the group's channel one right after another, faster than any
    frame can step, and from then on keeps what the frames announce in ``window.echoes``. A frame follows
    a told tick without telling it back, so after this the echoes stay empty."""
    page.evaluate(
        """([group, ticks]) => {
          window.echoes = [];
          window.teller = new BroadcastChannel(`durable-work-explainer:${group}`);
          window.teller.onmessage = (event) => window.echoes.push(event.data);
          for (const tick of ticks) window.teller.postMessage({ tick });
        }""",
        [group, ticks],
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, seconds: float = 90, every: float = 0.3) -> None:
    """Until ``url`` answers 200 (asked every ``every`` seconds), or RuntimeError after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer within {seconds} s")
        time.sleep(every)


def serve(
    script: str,
    log_name: str,
    port: int | None = None,
    env: dict[str, str] | None = None,
    more: tuple[str, ...] = (),
):
    """``panel serve`` of ``script`` as ./dev serve runs it (``more``: further options, such as
    ``--num-procs``), its output in test-artifacts/``log_name``: (the process, its port, the log)."""
    port = port or free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / log_name, "w")
    command = [sys.executable, "-m", "panel", "serve", script, "--setup", "app/serving.py"]
    command += ["--plugins", "classroom.channel"]  # the phones' page and channel, as ./dev serve
    command += [
        "--port",
        str(port),
        "--address",
        "127.0.0.1",
        "--static-dirs",
        f"pages={PAGES}",
        "assets=static",
    ]
    for host in ("127.0.0.1", "localhost"):
        command += ["--allow-websocket-origin", f"{host}:{port}"]
    command += more
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )
    return process, port, log


def stop(process, log) -> None:
    """Stop a server ``serve`` started, and close its log."""
    process.terminate()
    process.wait(timeout=20)
    log.close()


@pytest.fixture(scope="session")
def explainer_url():
    process, port, log = serve("app/explainer.py", "panel-serve.log")
    url = f"http://127.0.0.1:{port}/explainer"
    try:
        wait_for(url)
        yield url
    finally:
        stop(process, log)


@pytest.fixture
def console_errors(page):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


class ExplainerPage:
    """What a reader sees and does, by role and text, through the shadow DOM Panel uses."""

    def __init__(self, page, base_url: str):
        self.page, self.base_url = page, base_url

    def open(self, query: str = "") -> ExplainerPage:
        self.page.goto(self.base_url + query)
        self.page.locator(".tick-now").wait_for(timeout=60000)
        return self

    def tick(self) -> str:
        return self.page.locator(".tick-now").inner_text()

    def wait_tick(self, tick: int) -> None:
        expect(self.page.locator(".tick-now")).to_have_text(f"t{tick}", timeout=15000)

    def press(self, button: str) -> None:
        """A player's button; "first" and "last" are the scrubber's ends (Home and End on the keyboard)."""
        if button in ("first", "last"):
            scrub = self.page.locator("input[type=range][data-action=go]").first
            scrub.fill("0" if button == "first" else scrub.get_attribute("max"))
        else:
            self.page.locator(f"button.{button}").click()

    def chapter(self, preset: str) -> None:
        """Open a chapter from the chapters' menu, as a reader does."""
        menu = self.page.locator("select.chapter-menu").first
        menu.select_option(preset)
        expect(menu).to_have_value(preset)

    def switch(self, setting: str, value: str) -> None:
        """A setting from the switches' panel, a tab under the diagram (opened first if it is not)."""
        option = self.page.locator(f'.switch-{setting} button[data-value="{setting}={value}"]')
        if not option.is_visible():
            self.page.get_by_role("tab", name="Switches").click()
        option.click()

    def reveal(self) -> None:
        """Ask for the ending before the last tick (the outcome keeps it back so a class can predict)."""
        self.page.locator("button[data-action=reveal]").click()
        expect(self.page.locator("table.outcome")).to_be_visible()

    def outcome(self) -> str:
        return self.page.locator(".outcome-view").inner_text()

    def badge(self, invariant: str) -> str:
        return self.page.locator(f".badge-{invariant}").inner_text()


@pytest.fixture
def explainer(page, explainer_url):
    page.set_default_timeout(20000)
    return ExplainerPage(page, explainer_url)
