"""A class of thirty: readers opening the served explainer at once. Figures printed, nothing asserted.

    .venv/bin/python benchmarks/class_bench.py [--readers 30] [--num-procs 1] [--port N] [--server-only]

``--server-only`` measures the server alone (part 1 and the memory), without a browser; ``--port``
fixes the port the server listens on (by default a free one, printed first).

Serves the app with `panel serve` (as ./dev serve does) and measures two things:

1. The server alone: N readers connect at the same moment through Bokeh's own client (each creates a
   session, runs the app and pulls its whole document over the websocket, as a browser does before it
   draws) -- how long until every reader has its page, and how many failed.
2. N real pages at the same moment in headless Chromium (one browser, a context per reader), each
   stepping once after it shows: how long until each is interactive. On this machine the browser draws all
   N pages on the same two cores as the server, which a class's thirty laptops would not.

And the server's memory (resident set, all its processes): idle before, at the peak, and after every
reader has gone and the server has discarded their sessions.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.browser.conftest import free_port, wait_for  # noqa: E402
from tests.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children, in MB (from /proc)."""
    total = 0
    pids = [pid]
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    pids += [int(c) for c in children]
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total / 1024


def server_only(url: str, readers: int) -> tuple[list[float], int]:
    """Seconds until each reader's document arrived through bokeh.client, and how many failed."""
    from bokeh.client import pull_session

    import app.explainer  # noqa: F401  (registers Panel's and the app's model types, to read the documents)

    times: list[float] = []
    failed = [0]
    start = time.perf_counter()

    def one() -> None:
        try:
            with pull_session(url=url) as session:
                assert session.document.roots
                times.append(time.perf_counter() - start)
        except Exception:
            failed[0] += 1

    threads = [threading.Thread(target=one) for _ in range(readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    return times, failed[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=30, choices=range(1, 201), metavar="1..200")
    parser.add_argument("--num-procs", type=int, default=1, choices=range(1, 9), metavar="1..8")
    parser.add_argument("--port", type=int, default=0, choices=range(0, 65536), metavar="1..65535")
    parser.add_argument("--server-only", action="store_true", help="no browser: the server alone")
    args = parser.parse_args()
    port = args.port or free_port()
    print(f"serving on http://127.0.0.1:{port}/explainer", flush=True)
    command = [sys.executable, "-m", "panel", "serve", "app/explainer.py", "--setup", "app/serving.py",
               "--port", str(port), "--address", "127.0.0.1", "--num-procs", str(args.num_procs),
               "--allow-websocket-origin", f"127.0.0.1:{port}"]  # fmt: skip
    env = {**os.environ, "PYTHONMALLOC": "malloc"}  # as ./dev serve runs it: see app/serving.py
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/explainer"
    if args.server_only:
        try:
            wait_for(url)
            server_only(url, 1)  # one reader first, so the shared pieces are built before the class
            time.sleep(2)
            idle = rss_mb(server.pid)
            pulled, pull_failed = server_only(url, args.readers)
            peak = rss_mb(server.pid)
            time.sleep(40)  # Bokeh discards a closed session after its unused-session lifetime
            after = rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
        print(f"readers                          {args.readers} (server only)")
        median = statistics.median(pulled)
        print(f"server alone: all pages pulled   {max(pulled):.1f} s, median {median:.1f} s,"
              f" {pull_failed} failed  (aim <= 10 s)")  # fmt: skip
        print(f"server memory idle / after pulls / after {idle:.0f} / {peak:.0f} / {after:.0f} MB")
        return
    try:
        wait_for(url)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            warm = browser.new_page()  # one reader first, so the shared pieces are built before the class
            warm.goto(url)
            warm.locator(".tick-now").wait_for(timeout=60000)
            warm.close()
            time.sleep(2)
            idle = rss_mb(server.pid)
            pulled, pull_failed = server_only(url, args.readers)
            contexts = [browser.new_context() for _ in range(args.readers)]
            pages = [c.new_page() for c in contexts]
            peak = [idle]
            stop = threading.Event()

            def sample() -> None:
                while not stop.is_set():
                    peak.append(rss_mb(server.pid))
                    time.sleep(0.2)

            threading.Thread(target=sample, daemon=True).start()
            start = time.perf_counter()
            for page in pages:
                page.goto(url, wait_until="commit")
            ready, failed = [], 0
            for page in pages:
                try:
                    page.locator(".tick-now").wait_for(timeout=120000)
                    ready.append(time.perf_counter() - start)
                except Exception:
                    failed += 1
            for page in pages:  # every reader steps once: the sessions are live, not just drawn
                page.locator("button.forward").click()
            for page in pages:
                page.locator(".tick-now").filter(has_text="t1").wait_for(timeout=60000)
            stop.set()
            for context in contexts:
                context.close()
            browser.close()
        time.sleep(40)  # Bokeh discards a closed session after its unused-session lifetime (15 s + checks)
        after = rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"readers                          {args.readers} (panel serve --num-procs {args.num_procs})")
    print(f"server alone: all pages pulled   {max(pulled):.1f} s, median {statistics.median(pulled):.1f} s, "
          f"{pull_failed} failed  (aim <= 10 s)")  # fmt: skip
    print("in Chromium on the same machine:")
    print(f"all interactive after            {max(ready):.1f} s  (aim <= 10 s)" if ready else "none loaded")
    print(f"median reader interactive after  {statistics.median(ready):.1f} s" if ready else "")
    print(f"failed to load                   {failed}")
    print(f"server memory idle / peak / after {idle:.0f} / {max(peak):.0f} / {after:.0f} MB "
          f"(after is {100 * (after - idle) / idle:+.0f}% of idle; aim within 20%)")  # fmt: skip


if __name__ == "__main__":
    main()
