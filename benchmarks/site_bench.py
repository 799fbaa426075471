"""The static site's weight and speed: figures printed, nothing asserted.

    .venv/bin/python benchmarks/site_bench.py [--site site] [--repeat N]

Bytes of the site's own assets (everything but the vendored Pyodide core), the time until the
pre-rendered trace is visible from localhost, and the time the self-check page takes to finish; for the
light explainer (embed.html?preset=superseded&tick=12, every outside request refused): the time to its
first picture, to interactive (a Forward press moves the tick), to Python's taking over, the time a
switch takes to redraw once Python is there, and the bytes it downloaded. Builds the site first if it is
missing.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import sys
import threading
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
    from tests.site.conftest import QuietHandler

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    visible, paint, selfcheck = [], [], []
    light: dict[str, list[float]] = {"picture": [], "interactive": [], "python": [], "switch": [], "mb": []}
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
            for name, value in light_page(browser, base).items():
                light[name].append(value)
            page = browser.new_page()
            start = time.perf_counter()
            page.goto(f"{base}/selfcheck.html")
            page.wait_for_selector("body[data-parity]", timeout=120000)
            selfcheck.append(time.perf_counter() - start)
            page.close()
        browser.close()
    server.shutdown()
    print(
        f"front page's first picture median {statistics.median(visible):.2f} s, first paint "
        f"{statistics.median(paint):.2f} s  (aim <= 1 s)"
    )
    print(f"self-check page finished    median {statistics.median(selfcheck):.2f} s  (the floor: Pyodide)")
    m = {k: statistics.median(v) for k, v in light.items()}
    print("light explainer, embed.html?preset=superseded&tick=12, offline:")
    print(f"  first picture             median {m['picture']:.2f} s  (aim <= 0.5 s)")
    print(f"  interactive (Forward)     median {m['interactive']:.2f} s  (aim <= 3 s)")
    print(f"  Python has taken over     median {m['python']:.2f} s")
    print(f"  a switch redrawn          median {m['switch'] * 1000:.0f} ms  (aim <= 100 ms)")
    print(f"  downloaded                median {m['mb']:.1f} MB  (aim <= 15 MB)")


def light_page(browser, base: str) -> dict[str, float]:
    """One visit to the light embed: times from the start of navigation, and the bytes fetched."""
    page = browser.new_page()
    fetched: list[int] = []
    page.on("response", lambda r: fetched.append(int(r.headers.get("content-length") or 0)))
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort())
    start = time.perf_counter()
    page.goto(f"{base}/embed.html?preset=superseded&tick=12", wait_until="commit")
    page.wait_for_function(
        "() => { const r = document.getElementById('light'); return r && "
        "!r.classList.contains('pending') && r.dataset.tick === '12'; }"
    )
    picture = time.perf_counter() - start
    page.locator("button.forward").click()
    page.wait_for_function("() => document.getElementById('light').dataset.tick === '13'")
    interactive = time.perf_counter() - start
    page.wait_for_function(
        "() => document.getElementById('light').dataset.python === 'ready'", timeout=120000
    )
    python = time.perf_counter() - start
    # Timed inside the page, from the click to the end of the repaint (no round trip to Playwright).
    switch = page.evaluate("""() => new Promise((done) => {
      const root = document.getElementById("light"), before = root.dataset.painted;
      const row = [...root.querySelectorAll('#part-figure [role="button"][data-action="set"]')]
        .find((g) => g.textContent.includes("stores"));
      const clicked = performance.now();
      row.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      const wait = () => root.dataset.painted !== before
        ? done((Number(root.dataset.painted) - clicked) / 1000) : requestAnimationFrame(wait);
      wait();
    })""")
    page.close()
    return {"picture": picture, "interactive": interactive, "python": python, "switch": switch,
            "mb": sum(fetched) / 1e6}  # fmt: skip


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
