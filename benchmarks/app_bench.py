"""How fast the explainer answers: figures printed, nothing asserted.

    .venv/bin/python benchmarks/app_bench.py [--repeat N]

1. Python time for a switch change (one model run and every view redrawn) and for a tick step, measured
   on the app object the server runs for each session.
2. Page-load-to-interactive in headless Chromium: the explainer beside a one-widget Panel app, both served
   by `panel serve` in this run, each loaded once untimed and then the same number of times, in turn.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def python_side(repeat: int) -> None:
    import itertools

    from app.explainer import create_app
    from model.switches import article_values

    page = create_app("")
    app = page.explainer
    switch, back, step = [], [], []
    # Runs not made before (the process keeps the last 32 made): every combination of four switches.
    settings = ("fencing", "checkpoints", "post_key", "change")
    for combination in itertools.islice(
        itertools.cycle(itertools.product(*map(article_values, settings))), repeat * 10
    ):
        start = time.perf_counter()
        app.state.param.update(dict(zip(settings, combination, strict=True)))
        switch.append(time.perf_counter() - start)
    app.state.param.update(
        fencing="on", checkpoints="every-step", post_key="per-operation", change="during-outage"
    )
    values = ["off", "on"]
    for n in range(repeat * 10):  # a switch flipped back and forth: its run was made already
        start = time.perf_counter()
        app.state.fencing = values[n % 2]
        back.append(time.perf_counter() - start)
    app.state.fencing = "on"
    for n in range(repeat * 20):
        start = time.perf_counter()
        app.state.go((n % app.state.end_tick) + (1 if n % 2 else 0))
        step.append(time.perf_counter() - start)
    print(
        f"switch change (model run + views)   median {statistics.median(switch) * 1000:.1f} ms, "
        f"max {max(switch) * 1000:.1f} ms  (aim <= 10 ms)"
    )
    print(
        f"switch flipped back (views)         median {statistics.median(back) * 1000:.1f} ms, "
        f"max {max(back) * 1000:.1f} ms  (aim <= 10 ms)"
    )
    print(
        f"tick step (views)                   median {statistics.median(step) * 1000:.1f} ms, "
        f"max {max(step) * 1000:.1f} ms  (aim <= 4 ms)"
    )


def page_loads(repeat: int) -> None:
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import serve, wait_for
    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    targets = [  # (name, script, path, what is visible once the page is interactive)
        ("explainer", "app/explainer.py", "explainer", ".tick-now"),
        ("one widget", "benchmarks/one_widget.py", "one_widget", ".baseline-ready"),
    ]
    servers = {name: serve(script, f"bench-{path}.log") for name, script, path, _ in targets}
    times: dict[str, list[float]] = {name: [] for name, *_ in targets}
    try:
        for name, _, path, _ in targets:
            wait_for(f"http://127.0.0.1:{servers[name][1]}/{path}")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

            def load(name: str, path: str, selector: str) -> float:
                page = browser.new_page()
                start = time.perf_counter()
                page.goto(f"http://127.0.0.1:{servers[name][1]}/{path}")
                page.locator(selector).first.wait_for(state="visible", timeout=60000)
                took = time.perf_counter() - start
                page.close()
                return took

            # One load of each, not timed: a server's first session pays for what its process does once
            # (templates, caches), which no later reader waits for.
            for name, _, path, selector in targets:
                load(name, path, selector)
            for _ in range(repeat):
                for name, _, path, selector in targets:
                    times[name].append(load(name, path, selector))
            browser.close()
    finally:
        for process, _, log in servers.values():
            process.terminate()
            process.wait(timeout=20)
            log.close()
    explainer, baseline = statistics.median(times["explainer"]), statistics.median(times["one widget"])
    print(f"page load to interactive, explainer  median {explainer:.2f} s over {repeat}")
    print(f"page load to interactive, one widget median {baseline:.2f} s over {repeat}")
    print(f"ratio                                {explainer / baseline:.2f}x  (aim <= 1.2x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    python_side(args.repeat)
    page_loads(args.repeat)


if __name__ == "__main__":
    main()
