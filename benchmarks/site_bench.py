"""The static site's weight and speed: figures printed, nothing asserted.

    .venv/bin/python benchmarks/site_bench.py [--site site] [--repeat N]

Bytes of the site's own assets (everything but the vendored Pyodide core), the time until the
pre-rendered trace is visible from localhost, and the time the self-check page takes to finish; for the
light explainer (embed.html?preset=superseded&tick=12, every outside request refused): the time to its
first picture, to interactive (a Forward press moves the tick), to Python's taking over, the time a
switch takes to redraw once Python is there, and the bytes it downloaded; for a host page of four figure
frames of one group (tests/browser/pages/figures.html), on the site's own origin and in an article on
another site side by side: the bytes the server sent for the whole page (Pyodide's core counted each
time it is fetched) and each frame's first picture and takeover; for the
tour (index.html?tour=1): the time to its first question and answers. Builds the site first if it is
missing.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def sizes(site: Path) -> None:
    own = [p for p in site.rglob("*") if p.is_file() and "pyodide" not in p.relative_to(site).parts]
    core = [p for p in (site / "pyodide").iterdir() if p.is_file()]
    total = sum(p.stat().st_size for p in own)
    print(f"site's own assets        {total / 1000:.0f} kB in {len(own)} files (pages, pre-renders, app)")
    for p in sorted(own, key=lambda p: -p.stat().st_size)[:6]:
        print(f"  {p.relative_to(site)!s:<38} {p.stat().st_size / 1000:7.1f} kB")
    print(f"vendored Pyodide + wheel {sum(p.stat().st_size for p in core) / 1e6:.1f} MB (for the self-check)")


def timings(site: Path, repeat: int) -> None:
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS
    from tests.site.conftest import serve_folder

    # What the server sent, the shared worker's requests too: each file's size, and the bytes on the wire
    # (text and WebAssembly gzipped, as common static hosts send them).
    served: list[tuple[str, int]] = []
    sent: list[tuple[str, int]] = []
    server, port = serve_folder(site, served=served, sent=sent)
    base = f"http://127.0.0.1:{port}"
    # The same site without the memory snapshot: the worker starts Python and imports the model itself.
    fresh_served: list[tuple[str, int]] = []
    fresh_sent: list[tuple[str, int]] = []
    fresh_server, fresh_port = serve_folder(
        site, served=fresh_served, refuse=("snapshot.bin.gz",), sent=fresh_sent
    )
    fresh_base = f"http://127.0.0.1:{fresh_port}"
    visible, paint, selfcheck, tour = [], [], [], []
    fresh: dict[str, list[float]] = {"python": [], "mb": [], "sent": []}
    four: list[dict] = []
    across: list[dict] = []  # the same four frames in an article on another site
    light: dict[str, list[float]] = collections.defaultdict(list)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(repeat):
            page = browser.new_page()
            # The live app's CDNs are out of reach here; refuse them at once so they cost nothing.
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort())
            start = time.perf_counter()
            page.goto(f"{base}/index.html", wait_until="commit")
            page.wait_for_function("() => document.querySelector('#light:not(.pending)')")
            visible.append(time.perf_counter() - start)
            paint.append(
                page.evaluate(
                    "() => (performance.getEntriesByName('first-contentful-paint')[0] || {startTime: "
                    "NaN}).startTime / 1000"
                )
            )
            page.close()
            for name, value in light_page(browser, base, served, sent).items():
                light[name].append(value)
            for name, value in light_page(browser, fresh_base, fresh_served, fresh_sent).items():
                if name in fresh:
                    fresh[name].append(value)
            four.append(four_frames(browser, site))
            across.append(four_frames(browser, site, another_site=True))
            tour.append(first_question(browser, base))
            page = browser.new_page()
            start = time.perf_counter()
            page.goto(f"{base}/selfcheck.html")
            page.wait_for_selector("body[data-parity]", timeout=120000)
            selfcheck.append(time.perf_counter() - start)
            page.close()
        browser.close()
    server.shutdown()
    fresh_server.shutdown()
    print(
        f"front page's first picture median {statistics.median(visible):.2f} s, first paint "
        f"{statistics.median(paint):.2f} s  (aim <= 1 s)"
    )
    print(f"self-check page finished    median {statistics.median(selfcheck):.2f} s  (the floor: Pyodide)")
    m = {k: statistics.median(v) for k, v in light.items()}
    print("light explainer, embed.html?preset=superseded&tick=12, offline:")
    print(f"  first picture             median {m['picture']:.2f} s  (aim <= 0.5 s)")
    print(f"  interactive (Forward)     median {m['interactive']:.2f} s  (aim <= 3 s)")
    print(f"  Python has taken over     median {m['python']:.2f} s  (aim <= 3 s; from the build's snapshot)")
    print(
        f"  a switch redrawn          median {m['switch']:.0f} ms  (aim <= 50 ms): the first after Python "
        f"took over; in the worker {m['switch worker']:.0f}, the repaint {m['switch repaint']:.0f}, then "
        f"the browser's layout {m['switch layout']:.0f}"
    )
    print(f"  later switches            median {m['switches']:.0f} ms  (aim <= 50 ms)")
    print(
        f"  first switch, 1.5 s later  median {m['read']:.0f} ms  (aim <= 50 ms): a reader who reads first "
        f"(the rows' runs made meanwhile); in the worker {m['read worker']:.0f}, the repaint "
        f"{m['read repaint']:.0f}"
    )
    print(f"  a tick step               median {m['step']:.0f} ms  (aim <= 16 ms)")
    print(
        f"  downloaded                median {m['sent']:.1f} MB gzipped as hosts send it (aim <= 12 MB), "
        f"{m['mb']:.1f} MB raw"
    )
    print(
        f"  without the snapshot:     Python has taken over median {statistics.median(fresh['python']):.2f}"
        " s,"
        f" downloaded {statistics.median(fresh['sent']):.1f} MB gzipped,"
        f" {statistics.median(fresh['mb']):.1f} MB raw"
    )
    print(
        "tour, index.html?tour=1: first question and answers "
        f"median {statistics.median(tour):.2f} s  (aim <= 1 s)"
    )
    for title, runs in (("on the site's own origin", four), ("in an article on another site", across)):
        print(f"four figure frames of one group {title} (700 px), offline:")
        print(
            f"  sent for the whole page   median {statistics.median(f['sent'] for f in runs):.1f} MB gzipped "
            f"(aim <= 14 MB), {statistics.median(f['mb'] for f in runs):.1f} MB raw, "
            f"Pyodide's core fetched {max(f['cores'] for f in runs)} time(s), worker: {runs[0]['worker']}"
        )
        for view in runs[0]["frames"]:
            picture = statistics.median(f["frames"][view][0] for f in runs)
            python = statistics.median(f["frames"][view][1] for f in runs)
            print(f"  {view:<24} first picture {picture:.2f} s, Python has taken over {python:.2f} s")
    alive = [
        statistics.median(max(t[1] for t in f["frames"].values()) for f in runs) for runs in (four, across)
    ]
    print(
        f"all four alive: own origin {alive[0]:.2f} s, another site {alive[1]:.2f} s "
        f"({alive[1] / alive[0]:.2f}x; aim <= 1.5x)"
    )


def light_page(browser, base: str, served: list, sent: list) -> dict[str, float]:
    """One visit to the light embed: times from the start of navigation, and the bytes the server sent
    for it (the page's and its worker's: a page's own response events miss a shared worker's)."""
    before, sent_before = len(served), len(sent)
    url = f"{base}/embed.html?preset=superseded&tick=12"
    page, start = visit(
        browser,
        url,
        "() => { const r = document.getElementById('light'); return r && "
        "!r.classList.contains('pending') && r.dataset.tick === '12'; }",
        init=TIMED,
    )
    picture = time.perf_counter() - start
    page.locator("button.forward").click()
    page.wait_for_function("() => document.getElementById('light').dataset.tick === '13'")
    interactive = time.perf_counter() - start
    page.wait_for_function(
        "() => document.getElementById('light').dataset.python === 'ready'", timeout=120000
    )
    python = time.perf_counter() - start
    first = click(page, "stores")  # the reader's first switch: Python's code is still cold
    switches = [click(page, row) for row in ("journal", "feed", "stores", "newsletter", "report")]
    steps = [click(page, "forward") for _ in range(5)]
    page.close()
    mb, mb_sent = sum(n for _, n in served[before:]) / 1e6, sum(n for _, n in sent[sent_before:]) / 1e6
    # A reader who reads before switching: the page again, its first switch 1.5 s after Python took over
    # (while the worker made the runs a row's click asks for).
    page, _ = visit(browser, url, "() => document.getElementById('light')?.dataset.python === 'ready'", TIMED)
    page.wait_for_timeout(1500)
    read = click(page, "stores")
    page.close()
    return {"picture": picture, "interactive": interactive, "python": python, "switch": first["total"],
            **{f"switch {k}": v for k, v in first.items()},
            "switches": statistics.median(s["total"] for s in switches),
            "step": statistics.median(s["total"] for s in steps),
            "read": read["total"], **{f"read {k}": v for k, v in read.items()},
            "mb": mb, "sent": mb_sent}  # fmt: skip


#: Where a click's time goes, from inside the page: when a call left for the worker and when its answer
#: came (app.light's answer, recorded by wrapping the message port), then the repaint (light.js marks
#: ``data-painted``) and the browser's layout and paint of it (the next animation frame).
TIMED = """(() => {
  window.__asked = [];
  const post = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (message, ...rest) {
    if (message && message.call === "act") window.__asked.push(performance.now());
    return post.call(this, message, ...rest);
  };
  const handler = Object.getOwnPropertyDescriptor(MessagePort.prototype, "onmessage");
  Object.defineProperty(MessagePort.prototype, "onmessage", {
    set(on) { handler.set.call(this, (event) => { window.__asked.push(performance.now()); on(event); }); },
    get() { return handler.get.call(this); },
  });
})();"""


def click(page, what: str) -> dict[str, float]:
    """Click a row of the diagram by its name (a switch) or the player's Forward, once Python is there:
    milliseconds in the worker (Python and the message both ways), in the page's repaint, in the
    browser's layout until the next frame, and from the click to the repaint (``total``)."""
    return page.evaluate("""(what) => new Promise((done) => {
      const root = document.getElementById("light"), before = root.dataset.painted;
      const target = what === "forward" ? root.querySelector("button.forward")
        : [...root.querySelectorAll('#part-figure [role="button"][data-action="set"]')]
          .find((g) => g.textContent.trim().startsWith(what));
      window.__asked = [];
      const clicked = performance.now();
      target.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      const wait = () => {
        if (root.dataset.painted === before) return requestAnimationFrame(wait);
        const painted = Number(root.dataset.painted), [asked, answered] = window.__asked;
        requestAnimationFrame(() => setTimeout(() => done({ worker: answered - asked,
          repaint: painted - answered, layout: performance.now() - painted, total: painted - clicked })));
      };
      wait();
    })""", what)  # fmt: skip


def four_frames(browser, site: Path, another_site: bool = False) -> dict:
    """The mock article of four frames of one group: the bytes the server sent (Pyodide's core counted
    each time), and each frame's first picture and takeover from the start of navigation. With
    ``another_site`` the article is served from another origin (localhost, the frames from 127.0.0.1), where
    Chromium refuses the frames a shared worker and one frame runs Python for the others."""
    import shutil
    import tempfile

    from playwright.sync_api import Error as PlaywrightError

    from tests.site.conftest import serve_folder

    article = Path(tempfile.mkdtemp()) if another_site else site
    shutil.copy2(ROOT / "tests" / "browser" / "pages" / "figures.html", article / "figures-host.html")
    served: list[tuple[str, int]] = []
    sent: list[tuple[str, int]] = []
    server, port = serve_folder(site, served=served, sent=sent)
    base = f"http://127.0.0.1:{port}"
    host, host_port = serve_folder(article) if another_site else (None, port)
    origin = f"http://localhost:{host_port}" if another_site else base
    explainer = base if another_site else ""
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith((base, origin)) else r.abort())
    start = time.perf_counter()
    page.goto(
        f"{origin}/figures-host.html?target={explainer}/embed.html&sizer={explainer}/static/embed.js"
        "&group=bench",
        wait_until="domcontentloaded",
    )
    names = page.evaluate("() => [...document.querySelectorAll('iframe.figure')].map((f) => f.dataset.query)")
    frames: dict[str, list[float]] = {name: [] for name in names}
    worker = ""
    while any(len(v) < 2 for v in frames.values()):
        for name, frame in zip(names, page.frames[1:], strict=False):
            try:
                picture, ready, worker = frame.evaluate(
                    "() => { const r = document.getElementById('light'); return r ? [!r.classList.contains("
                    "'pending'), r.dataset.python === 'ready', r.dataset.worker || ''] : [false, false, ''] }"
                )
            except PlaywrightError:  # the frame is still on about:blank, being navigated to its page
                continue
            got = frames[name]
            if picture and len(got) == 0:
                got.append(time.perf_counter() - start)
            if ready and len(got) == 1:
                got.append(time.perf_counter() - start)
        if time.perf_counter() - start > 180:
            raise SystemExit("the four frames did not take over within 180 s")
        time.sleep(0.05)
    page.close()
    server.shutdown()
    if host is not None:
        host.shutdown()
        shutil.rmtree(article)
    cores = sum(1 for path, _ in served if path.endswith("pyodide.asm.wasm"))
    return {"mb": sum(n for _, n in served) / 1e6, "sent": sum(n for _, n in sent) / 1e6, "cores": cores,
            "frames": frames, "worker": worker}  # fmt: skip


def first_question(browser, base: str) -> float:
    """Seconds from the start of navigation to the tour's first question and its answers on screen."""
    page, start = visit(
        browser,
        f"{base}/index.html?tour=1",
        "() => document.querySelector('#light:not(.pending) #part-tour legend') && "
        "document.querySelectorAll('#part-tour input[type=radio]').length > 1",
    )
    seconds = time.perf_counter() - start
    page.close()
    return seconds


def visit(browser, url: str, ready: str, init: str = "") -> tuple:
    """A new page at ``url`` with every request outside its site refused (``init``: a script run before
    the page's own), once ``ready`` (a function's JavaScript) holds: the page, and when its navigation
    started (time.perf_counter)."""
    site = url.split("/", 3)[:3]
    page = browser.new_page()
    if init:
        page.add_init_script(init)
    page.route("**/*", lambda r: r.continue_() if r.request.url.split("/", 3)[:3] == site else r.abort())
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.wait_for_function(ready)
    return page, start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if not (args.site / "index.html").exists():
        import sitebuild

        sitebuild.build(args.site.resolve())
    sizes(args.site)
    timings(args.site, args.repeat)


if __name__ == "__main__":
    main()
