"""Where a served session's memory goes once the session has ended. Figures printed, nothing asserted.

    .venv/bin/python benchmarks/session_memory.py [--sessions 200] [--link "?preset=main"] [--no-tracemalloc]
                                                  [--keep-views] [--wait 40]

Runs the server exactly as ``./dev serve`` does (``panel serve app/explainer.py --setup app/serving.py``
under ``PYTHONMALLOC=malloc``) but in a process that, when asked (SIGUSR1), writes what it holds: live
objects counted by type, and (with tracemalloc on) the source lines whose allocations are still alive.
It opens one session to warm the shared pieces, lets it be discarded, takes a first picture; opens
``--sessions`` sessions one after another for the same link, lets every one be discarded, takes a second
picture; and prints the difference: resident memory per session, the types whose live count grew, and the
lines that hold the growth.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import signal
import subprocess
import sys
import time
import types
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import free_port, wait_for  # noqa: E402

PICTURE = Path(os.environ.get("SESSION_MEMORY_PICTURE", "/tmp/session-memory.json"))
DISCARD_WAIT = 40  # Bokeh discards a closed session after its unused-session lifetime (15 s + checks)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def take_picture(*_ignored) -> None:
    """In the server: count live objects by type and keep tracemalloc's view of the live heap."""
    import tracemalloc

    gc.collect()
    counts = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
    lines: dict[str, int] = {}
    if tracemalloc.is_tracing():
        snapshot = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)]
        )
        for stat in snapshot.statistics("traceback")[:4000]:
            frames = [f"{Path(f.filename).name}:{f.lineno}" for f in stat.traceback[:4]]
            lines[" < ".join(frames)] = lines.get(" < ".join(frames), 0) + stat.size
    pictures = json.loads(PICTURE.read_text()) if PICTURE.exists() else []
    pictures.append({"types": counts, "lines": lines, "holders": holders()})
    PICTURE.write_text(json.dumps(pictures))


def backref_chain(target: object, skip: tuple = (), max_depth: int = 14, budget: int = 3000) -> list[str]:
    """The shortest chain of referrers from a module, a class or a thread's frame to ``target``: what
    keeps it alive (objgraph's find_backref_chain, written out so the probe needs nothing installed)."""
    queue, parent = [target], {id(target): None}
    depth = {id(target): 0}
    ignore = {id(queue), id(parent), id(depth), *map(id, skip)}
    while queue:
        obj = queue.pop(0)
        if isinstance(obj, (types.ModuleType, type)) and obj is not target:
            chain = []
            while obj is not None:
                chain.append(describe(obj))
                obj = parent[id(obj)]
            return chain
        budget -= 1
        if depth[id(obj)] >= max_depth or budget < 0:
            continue
        for ref in gc.get_referrers(obj):
            if id(ref) in ignore or id(ref) in parent or isinstance(ref, types.FrameType):
                continue
            parent[id(ref)], depth[id(ref)] = obj, depth[id(obj)] + 1
            queue.append(ref)
    return ["no chain found"]


def describe(obj: object) -> str:
    if isinstance(obj, types.ModuleType):
        return f"module {obj.__name__}"
    if isinstance(obj, type):
        return f"class {obj.__module__}.{obj.__qualname__}"
    if isinstance(obj, dict):
        return f"dict{list(obj)[:4]}"
    return type(obj).__qualname__


def holders() -> list[str]:
    """How many of each session's own objects are alive, and what keeps the oldest of them."""
    from bokeh.document import Document

    from app.state import ReaderState

    alive = {
        kind.__name__: [o for o in gc.get_objects() if isinstance(o, kind)]
        for kind in (Document, ReaderState)
    }
    lines = [f"{len(v)} {k} objects alive" for k, v in alive.items()]
    from panel.viewable import Viewable

    holding = [o for o in gc.get_objects() if isinstance(o, Viewable) and getattr(o, "_documents", None)]
    kinds = collections.Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in holding)
    lines.append("components holding a document: " + ", ".join(f"{k} x{n}" for k, n in kinds.most_common(6)))
    for viewable in holding[:2]:
        chain = backref_chain(viewable, (holding, alive, *alive.values()), budget=300)
        lines.append(f"  what keeps a {type(viewable).__qualname__} alive: " + " -> ".join(reversed(chain)))
    for kind, objects in alive.items():
        for o in objects[:3]:
            referrers = [r for r in gc.get_referrers(o) if r is not alive[kind]]
            lines.append(f"a {kind} is referred to by: " + ", ".join(describe(r) for r in referrers[:8]))
            for r in referrers[:8]:
                if isinstance(r, dict):
                    owners = [describe(x) for x in gc.get_referrers(r) if x is not referrers][:4]
                    lines.append(f"    {describe(r)} belongs to: {', '.join(owners)}")
    return lines


def serve(port: int) -> None:
    """The probed server: ``panel serve`` in this process, with the picture on SIGUSR1."""
    signal.signal(signal.SIGUSR1, take_picture)
    if os.environ.get("SESSION_MEMORY_KEEP_VIEWS"):  # --keep-views: as before app.serving.forget_views
        import app.serving

        app.serving.forget_views = lambda document: 0
    from panel.command import main as panel_main

    sys.argv = ["panel", "serve", "app/explainer.py", "--setup", "app/serving.py", "--port", str(port),
                "--address", "127.0.0.1", "--allow-websocket-origin", f"127.0.0.1:{port}"]  # fmt: skip
    panel_main()


def picture(server: subprocess.Popen) -> dict:
    before = len(json.loads(PICTURE.read_text())) if PICTURE.exists() else 0
    server.send_signal(signal.SIGUSR1)
    for _ in range(600):
        time.sleep(0.5)
        if PICTURE.exists():
            try:
                pictures = json.loads(PICTURE.read_text())
            except json.JSONDecodeError:
                continue  # still being written
            if len(pictures) > before:
                return pictures[-1]
    raise SystemExit("the server took no picture in 5 minutes")


def link_arguments(link: str) -> dict[str, str]:
    """A link's query as the session's arguments: Bokeh's client takes them apart from the address (a
    query glued to the session address makes it ask a path that is not the app's)."""
    return dict(urllib.parse.parse_qsl(link.removeprefix("?"), keep_blank_values=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200, choices=range(1, 5001), metavar="1..5000")
    parser.add_argument("--link", default="", help="the query every session opens, e.g. ?preset=main")
    parser.add_argument("--no-tracemalloc", action="store_true", help="count types only (faster)")
    parser.add_argument("--wait", type=int, default=DISCARD_WAIT, choices=range(20, 601), metavar="20..600",
                        help="seconds to let the server discard the ended sessions (default 40)")  # fmt: skip
    parser.add_argument("--keep-views", action="store_true", help="leave Panel's view registry as it is")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve)
    if args.link and not args.link.startswith("?"):
        parser.error("--link is a query and starts with '?', e.g. ?preset=main")
    from bokeh.client import pull_session

    import app.explainer  # noqa: F401  (registers the app's model types, to read the documents)

    PICTURE.unlink(missing_ok=True)
    port = free_port()
    env = {**os.environ, "PYTHONMALLOC": "malloc"}
    if args.keep_views:
        env["SESSION_MEMORY_KEEP_VIEWS"] = "1"
    if not args.no_tracemalloc:
        env["PYTHONTRACEMALLOC"] = "4"
    command = [sys.executable, __file__, "--serve", str(port)]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/explainer"
    try:
        wait_for(url, seconds=300)

        def open_session() -> None:
            with pull_session(url=url, arguments=link_arguments(args.link)) as session:
                assert session.document.roots

        open_session()
        time.sleep(DISCARD_WAIT)
        rss_before = rss_mb(server.pid)
        first = picture(server)
        start = time.perf_counter()
        for _ in range(args.sessions):
            open_session()
        took = time.perf_counter() - start
        time.sleep(args.wait)
        rss_after = rss_mb(server.pid)
        second = picture(server)
    finally:
        server.terminate()
        server.wait(timeout=30)
    n = args.sessions
    print(f"sessions                 {n} for {args.link or 'the default link'}, opened in {took:.0f} s")
    print(f"resident memory          {rss_before:.0f} -> {rss_after:.0f} MB, "
          f"{1024 * (rss_after - rss_before) / n:.0f} KB a session"
          f"{' (tracemalloc on: it adds its own)' if not args.no_tracemalloc else ''}")  # fmt: skip
    grown = collections.Counter(second["types"])
    grown.subtract(first["types"])
    print("live objects that grew   (type: count, per session)")
    for name, count in grown.most_common(15):
        if count > 0:
            print(f"  {name:40} {count:8}  {count / n:6.1f}")
    print("\n".join(second["holders"]))
    if first["lines"]:
        held = collections.Counter(second["lines"])
        held.subtract(first["lines"])
        total = sum(v for v in held.values() if v > 0)
        per_session = f"{total / n / 1024:.0f} KB a session"
        print(f"allocations still alive  {total / 2**20:.1f} MB more, {per_session}; by place:")
        for place, size in held.most_common(15):
            print(f"  {size / 2**10:9.0f} KB  {place}")


if __name__ == "__main__":
    main()
