"""A class at once: readers opening the served explainer, or a class in class mode. Figures printed, nothing
asserted.

    .venv/bin/python benchmarks/class_bench.py [--readers 30] [--num-procs 1] [--port N] [--server-only]
    .venv/bin/python benchmarks/class_bench.py --class [--phones 300] [--students 100] [--repeat 5]
                                               [--postgres]

**Readers** (the default). ``--server-only`` measures the server alone (part 1 and the memory), without a
browser; ``--port`` fixes the port the server listens on (by default a free one, printed first).

Serves the app with `panel serve` (as ./dev serve does) and measures two things:

1. The server alone: N readers connect at the same moment through Bokeh's own client (each creates a
   session, runs the app and pulls its whole document over the websocket, as a browser does before it
   draws) -- how long until every reader has its page, and how many failed.
2. N real pages at the same moment in headless Chromium (one browser, a context per reader), each
   stepping once after it shows: how long until each is interactive. On this machine the browser draws all
   N pages on the same two cores as the server, which a class's thirty laptops would not.

And the server's memory (resident set, all its processes): idle before, at the peak, and after every
reader has gone and the server has discarded their sessions.

**A class** (``--class``, issue 46's figures). The teacher's presenter page in Chromium makes a class;
``--phones`` phones join at once over real websockets (``Phone``: each loads the join link and speaks
Bokeh's protocol as the page does, without drawing). Then:

1. the teacher steps a tick, ``--repeat`` times: how long until every phone shows it (aim 2 s);
2. ``--repeat`` rounds in which ``--students`` of the phones answer within 5 s, each tapping twice: how long
   after the last answer the teacher's page shows every answer counted (aim 1 s at the 95th percentile),
   and how many acknowledged answers are missing from the counts (lost) or counted past what was sent
   (doubled), both aimed at 0;
3. with ``--postgres``: a throwaway PostgreSQL and two server processes, the phones split between them;
   the teacher's counts must be the answers sent, as on one process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.browser.conftest import free_port, serve, wait_for  # noqa: E402
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


# --- class mode (issue 46): a teacher in Chromium, the phones over real websockets ----------------------

TOKEN = re.compile(r'"token":"([^"]+)"')  # the session's token, in the page the server sends first
TICK_SHOWN = re.compile(r'<span class="tick-now">t(\d+)</span>')  # in the player's html
LETTERS = "ABCD"


def _html(model) -> str:
    """The HTML a pulled model draws (ActionHTML), or nothing."""
    return getattr(getattr(model, "data", None), "html", None) or ""


BEAT = int(re.search(r"BEAT_MS = (\d+)", (ROOT / "app/views/js/class_client.js").read_text()).group(1)) / 1000


class Phone:
    """A student's phone without a browser: it loads the join link over HTTP, opens the page's websocket
    and speaks Bokeh's protocol as the page's BokehJS would (the document pulled, then patched), and says
    what ``class_client.js`` and the answer buttons say, as the same messages. Hundreds of them fit in
    one process, which a class of Chromium pages would not on two cores."""

    def __init__(self, url: str):
        from bokeh.document import Document
        from bokeh.protocol import Protocol

        import app.explainer  # noqa: F401  (the page's model types, to read its document)
        import app.views.classroom  # noqa: F401  (and a class page's)

        self.url, self.doc, self.protocol = url, Document(), Protocol()
        self.ticks: dict[int, float] = {}  # tick -> when this phone first showed it
        self.acknowledged: dict[str, float] = {}  # 'question:round:choice' -> when it was acknowledged
        self.patches = 0  # the document's patches the server sent (a message each)

    async def open(self, student: str) -> None:
        from bokeh.client.websocket import WebSocketClientConnectionWrapper
        from bokeh.events import DocumentReady
        from bokeh.protocol.receiver import Receiver
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        # Each phone is its own browser: every request at once, none waiting in a client-side queue.
        client = AsyncHTTPClient(max_clients=10_000)
        page = await client.fetch(self.url, connect_timeout=600, request_timeout=600)
        token = TOKEN.search(page.body.decode()).group(1)
        origin = self.url.split("/explainer")[0]
        socket = await websocket_connect(
            HTTPRequest(
                f"{origin.replace('http', 'ws', 1)}/explainer/ws",
                headers={"Origin": origin},
                connect_timeout=600,
                request_timeout=600,
            ),
            subprotocols=["bokeh", token],
            max_message_size=64 * 2**20,
        )
        self.connection, self.receiver = WebSocketClientConnectionWrapper(socket), Receiver(self.protocol)
        assert (await self._next()).msgtype == "ACK"
        await self.protocol.create("PULL-DOC-REQ").send(self.connection)
        (await self._next()).push_to_document(self.doc)
        self.doc.models.flush_synced()  # every model pulled is the server's: sent back by reference only
        self.client = self._model("ClassClient")
        self.player = next(m for m in self.doc.models if 'class="player-row"' in _html(m))
        self.card = self._model("ActionHTML", "class")
        self._seen()
        asyncio.ensure_future(self._listen())
        await self._tell(DocumentReady())  # as BokehJS does once the page is drawn: Panel's "loaded"
        await self._send(self.client, {"hello": student, "pending": None})  # as class_client.js does
        self.beating = asyncio.ensure_future(self._beat())

    def choices(self) -> int:
        """How many answers the phone offers now (its answer buttons)."""
        return len(re.findall(r'data-key="class-answer-\d+"', self.card.data.html))

    async def answer(self, choice: int) -> None:
        await self._send(self.card, {"action": "answer", "value": str(choice)})  # a tap on an answer

    def close(self) -> None:
        self.beating.cancel()
        self.connection.close()

    async def _beat(self) -> None:
        """class_client.js's heartbeat (its BEAT_MS), in a phase of its own as a real phone's."""
        await asyncio.sleep(random.uniform(0, BEAT))
        while True:
            await self._send(self.client, {"ping": True})
            await asyncio.sleep(BEAT)

    async def _next(self):
        while True:
            fragment = await self.connection.read_message()
            if fragment is None:
                raise ConnectionError(f"{self.url}: the server closed the websocket")
            message = await self.receiver.consume(fragment)
            if message is not None:
                return message

    async def _listen(self) -> None:
        while True:
            try:
                message = await self._next()
            except ConnectionError:
                return
            if message.msgtype == "PATCH-DOC":
                self.patches += 1
                message.apply_to_document(self.doc, self)
                self._seen()

    def _seen(self) -> None:
        now = time.perf_counter()
        shown = TICK_SHOWN.search(self.player.data.html)  # the tick the phone's player says it shows
        self.ticks.setdefault(int(shown.group(1)), now)
        if self.client.data.acknowledged:
            self.acknowledged.setdefault(self.client.data.acknowledged, now)

    def _model(self, kind: str, css: str | None = None):
        for model in self.doc.models:
            data = getattr(model, "data", None)
            if type(data).__name__.startswith(kind) and (css is None or css in model.css_classes):
                return model
        raise LookupError(f"no {kind} in {self.url}")

    async def _send(self, model, data: dict) -> None:
        from panel.models.esm import DataEvent

        await self._tell(DataEvent(model=model, data=data))

    async def _tell(self, event) -> None:
        """A browser event (a component's message, the document being ready) to the server, as BokehJS
        sends it."""
        from bokeh.document.events import MessageSentEvent

        sent = MessageSentEvent(self.doc, "bokeh_event", event)
        await self.protocol.create("PATCH-DOC", [sent]).send(self.connection)


class Loop:
    """An asyncio loop in its own thread, for the phones, while Playwright drives the teacher here."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def run(self, coroutine, timeout: float = 600):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)


def teacher_tick(teacher) -> int:
    return int(re.search(r"\d+", teacher.locator(".tick-now").inner_text()).group())


def wait_text(locator, text: str, timeout: float = 60) -> float:
    """Poll ``locator`` until it contains ``text``; the moment it did."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if text in locator.inner_text():
            return time.perf_counter()
        time.sleep(0.02)
    raise TimeoutError(f"{text!r} not shown within {timeout} s")


def class_figures(urls: list[str], phones_n: int, students: int, repeat: int, browser, seed: int = 1) -> dict:
    """A class over real websockets: the teacher in ``browser`` (Chromium) on ``urls[0]``, ``phones_n`` phones
    split between ``urls``. Returns the figures (seconds, counts), which main() prints and tests check."""
    rng = random.Random(seed)
    loop = Loop()
    figures: dict = {"follow": [], "messages": [], "counted": [], "shown": []}
    figures |= {"acknowledged": 0, "lost": 0, "doubled": 0}
    teacher = browser.new_page(viewport={"width": 1280, "height": 720})
    teacher.set_default_timeout(120000)
    teacher.goto(f"{urls[0]}?class=new&present=1&tour=2")
    teacher.locator(".class-joined").wait_for()
    code = re.search(r"join=([A-Z0-9]{5})", teacher.locator(".class-join").text_content()).group(1)
    phones = [Phone(f"{urls[n % len(urls)]}?join={code}") for n in range(phones_n)]
    start = time.perf_counter()

    async def join_all() -> None:
        await asyncio.gather(*(phone.open(f"bench-{seed}-{n:06d}") for n, phone in enumerate(phones)))

    loop.run(join_all())
    joined = wait_text(teacher.locator(".class-joined"), f"{phones_n} joined", timeout=300)
    figures["joined"] = joined - start
    # Pacing: the teacher steps (back, then on again); when does the last phone show the new tick?
    for n in range(repeat):
        before = teacher_tick(teacher)
        target = before - 1 if n % 2 == 0 else before + 1
        for phone in phones:
            phone.ticks.clear()  # only what a phone shows from now on counts
        patched = [phone.patches for phone in phones]
        clicked = time.perf_counter()
        teacher.locator("button.back" if n % 2 == 0 else "button.forward").click()
        deadline = clicked + 30
        while time.perf_counter() < deadline and not all(target in phone.ticks for phone in phones):
            time.sleep(0.02)
        behind = sum(target not in phone.ticks for phone in phones)
        if behind:
            raise RuntimeError(f"{behind} of {phones_n} phones did not show the teacher's t{target} in 30 s")
        figures["follow"].append(max(phone.ticks[target] for phone in phones) - clicked)
        time.sleep(0.5)  # anything else the step sends a phone comes with it or just after
        figures["messages"] += [p.patches - n for p, n in zip(phones, patched, strict=True)]
    # Rounds: ``students`` of the phones answer within 5 s, each tapping twice (a double tap).
    for n in range(repeat):
        button = "Ask the room" if n == 0 else f"Ask again: round {n + 1}"
        teacher.get_by_role("button", name=button).click()
        wait_text(teacher.locator(".class-status"), f"Round {n + 1} is open")
        question, sent, last = 2, {}, [0.0]

        async def answer(phone: Phone, after: float, asked: str, sent=sent, last=last):
            shown_by = time.perf_counter() + 60
            while phone.client.data.asked != asked or not phone.choices():  # not on this phone yet
                if time.perf_counter() > shown_by:
                    raise TimeoutError(f"round {asked} not shown on a phone within 60 s")
                await asyncio.sleep(0.02)
            choice = rng.randrange(phone.choices())
            await asyncio.sleep(after)
            await phone.answer(choice)
            sent[phone] = choice
            last[0] = time.perf_counter()
            await asyncio.sleep(rng.uniform(0, 0.3))
            await phone.answer(choice)  # the same tap again: never counted twice

        async def round_of_answers(asked: str) -> None:
            await asyncio.gather(*(answer(phones[k], rng.uniform(0, 5), asked) for k in range(students)))

        loop.run(round_of_answers(f"{question}:{n + 1}"))
        complete = wait_text(teacher.locator(".class-status"), f"{students} answered", timeout=60)
        figures["counted"].append(complete - last[0])
        rows = teacher.locator("table.class-counts tr")
        shown = {}
        for r in range(1, rows.count()):
            cells = rows.nth(r).locator("th, td").all_inner_texts()
            shown[cells[0].strip()[0]] = int(cells[n + 1].strip() or 0)
        expected = {letter: 0 for letter in shown}
        for choice in sent.values():
            expected[LETTERS[choice]] += 1
        figures["shown"].append((shown, expected))
        acknowledged = {letter: 0 for letter in shown}
        for phone, choice in sent.items():
            if f"{question}:{n + 1}:{choice}" in phone.acknowledged:
                acknowledged[LETTERS[choice]] += 1
        figures["acknowledged"] += sum(acknowledged.values())
        figures["lost"] += sum(max(0, acknowledged[x] - shown[x]) for x in shown)  # told in, not counted
        figures["doubled"] += sum(max(0, shown[x] - expected[x]) for x in shown)  # counted past sent
        teacher.get_by_role("button", name="Reveal answer").click()
        wait_text(teacher.locator(".class-status"), "revealed")
    for phone in phones:
        loop.loop.call_soon_threadsafe(phone.close)
    teacher.close()
    loop.loop.call_soon_threadsafe(loop.loop.stop)
    return figures


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def class_mode(args) -> None:
    """Serve the explainer (SQLite; with ``--postgres``, two processes on one PostgreSQL) and run a class."""
    with tempfile.TemporaryDirectory() as folder:
        postgres = None
        if args.postgres:
            from engines.postgres import Postgres

            postgres = Postgres().__enter__()
            database = postgres.url("postgres")
        else:
            database = str(Path(folder) / "classes.sqlite3")
        servers = [serve("app/explainer.py", f"class-bench-{n}.log", env={"CLASS_DB": database})
                   for n in range(2 if args.postgres else 1)]  # fmt: skip
        try:
            urls = [f"http://127.0.0.1:{port}/explainer" for _, port, _ in servers]
            for url in urls:
                wait_for(url)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                figures = class_figures(urls, args.phones, args.students, args.repeat, browser)
                browser.close()
        finally:
            for process, _, log in servers:
                process.terminate()  # a server busy with hundreds of sessions may take its time
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
                log.close()
            if postgres is not None:
                postgres.__exit__(None, None, None)
    where = "two server processes on one PostgreSQL" if args.postgres else "one server process, SQLite (WAL)"
    print(f"class mode over real websockets: {where}; the teacher in Chromium, {args.phones} phones")
    print(f"{args.phones} phones joined at once: every one in after {figures['joined']:.1f} s")
    follow = figures["follow"]
    print(f"the teacher steps: every phone shows the new tick after {statistics.median(follow):.2f} s "
          f"(median of {len(follow)}), {max(follow):.2f} s (slowest; aim 2 s)")  # fmt: skip
    messages = figures["messages"]
    print(f"each step sent a phone {statistics.median(messages):.0f} messages (median), at most "
          f"{max(messages)}: one for each part of the page it redrew")  # fmt: skip
    counted = figures["counted"]
    print(f"{args.students} answer within 5 s, each tapping twice: the teacher's counts complete "
          f"{statistics.median(counted):.2f} s after the last answer (median of {len(counted)}), "
          f"{p95(counted):.2f} s (p95; aim 1 s)")  # fmt: skip
    print(f"acknowledged {figures['acknowledged']} of {args.students * args.repeat}; lost "
          f"{figures['lost']}, doubled {figures['doubled']} (aim 0)")  # fmt: skip
    same = all(shown == expected for shown, expected in figures["shown"])
    print(f"the teacher's counts {'are' if same else 'are NOT'} the answers sent, round by round "
          f"(last round: {figures['shown'][-1][0]})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=30, choices=range(1, 201), metavar="1..200")
    parser.add_argument("--num-procs", type=int, default=1, choices=range(1, 9), metavar="1..8")
    parser.add_argument("--port", type=int, default=0, choices=range(0, 65536), metavar="1..65535")
    parser.add_argument("--server-only", action="store_true", help="no browser: the server alone")
    parser.add_argument("--class", dest="class_mode", action="store_true", help="a class in class mode")
    parser.add_argument("--phones", type=int, default=300, choices=range(1, 1001), metavar="1..1000")
    parser.add_argument("--students", type=int, default=100, choices=range(1, 1001), metavar="1..1000")
    parser.add_argument("--repeat", type=int, default=5, choices=range(1, 51), metavar="1..50")
    parser.add_argument("--postgres", action="store_true", help="with --class: two processes, PostgreSQL")
    args = parser.parse_args()
    if args.class_mode:
        if args.students > args.phones:
            parser.error(f"--students ({args.students}) must be at most --phones ({args.phones})")
        class_mode(args)
        return
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
