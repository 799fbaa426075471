"""Class mode in real browsers, as a room uses it: a teacher on a projector (1280x720) and students' phones
(390x844), on SQLite and on PostgreSQL. Peer Instruction's whole sequence (join, ask, vote alone, the
spread, discuss, ask again, reveal), checked after every teacher move on every phone; then the server
killed with SIGKILL and started again, the pages timed back and every acknowledged answer there once; a
hall of protocol phones killed mid-burst; two server processes sharing a class through PostgreSQL's
notifications alone. Screenshots of each stage go to test-artifacts/."""

from __future__ import annotations

import asyncio
import re
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import serve, stop, wait_for
from tests.conftest import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}
PENDING = "durable-work-class-pending"  # classroom/phone.js: an answer tapped and not yet acknowledged


class ClassServer:
    """The explainer served with its classes in one database (a SQLite file, or a PostgreSQL URL), which
    it keeps across a kill and a restart on the same port."""

    def __init__(self, database: str, name: str, env: dict | None = None):
        self.database, self.name, self.port, self.env = database, name, None, env or {}
        self.process = self.log = None

    def start(self) -> float:
        """Start the server; when it began to listen (time.monotonic)."""
        env = {"CLASS_DB": self.database, **self.env}
        self.process, self.port, self.log = serve(
            "app/explainer.py", f"class-{self.name}.log", port=self.port, env=env
        )
        wait_for(f"{self.base}/join", seconds=120, every=0.05)
        return time.monotonic()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)
        self.log.close()

    def stop(self) -> None:
        stop(self.process, self.log)

    def log_text(self) -> str:
        return (ARTIFACTS / f"class-{self.name}.log").read_text(errors="replace")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def class_server(request, tmp_path_factory):
    if request.param == "sqlite":
        server = ClassServer(str(tmp_path_factory.mktemp("class") / "classes.sqlite3"), "sqlite")
        server.start()
        yield server
        server.stop()
        return
    from engines.postgres import Postgres

    with Postgres() as postgres:
        server = ClassServer(postgres.url("postgres"), "postgresql")
        server.start()
        yield server
        server.stop()


@pytest.fixture(scope="module")
def chromium(playwright):
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def teacher_opens(chromium, server, tour: int = 2):
    teacher = chromium.new_context(viewport=PROJECTOR, accept_downloads=True).new_page()
    teacher.set_default_timeout(30000)
    teacher.goto(f"{server.base}/explainer?class=new&present=1&tour={tour}")
    teacher.get_by_role("button", name="Start a class").click()
    expect(teacher).to_have_url(re.compile(r"class=[A-Z0-9]{5}&teach=[\w-]+"))
    code = re.search(r"class=([A-Z0-9]{5})", teacher.url).group(1)
    expect(teacher.locator(".class-code").first).to_have_text(code)
    return teacher, code


def student_joins(chromium, server, code, viewport=PHONE):
    phone = chromium.new_context(viewport=viewport, is_mobile=True, has_touch=True).new_page()
    phone.set_default_timeout(30000)
    phone.goto(f"{server.base}/join/{code}")
    expect(phone.locator("#phone-question")).to_contain_text("Your teacher leads")
    return phone


def shown(teacher) -> tuple[str, int]:
    """The teacher's run (its switches, as the rows' switch values say them) and tick."""
    tick = int(teacher.locator(".tick-now").first.inner_text().strip().lstrip("t"))
    values = teacher.locator(".diagram-wide svg.diagram-names .row-value").all_text_contents()
    return " ".join(values), tick


def follows(phone, teacher, held: int | None = None) -> None:
    """The phone shows the teacher's run and tick (at most ``held`` while a question waits), within the
    generous bound a loaded machine needs; what the phone draws its rows from is the same run. The caller
    has first waited for the teacher's own page to show the move (reading it mid-move would compare the
    phone with a state already left)."""
    tick = shown(teacher)[1]
    expect(phone.locator("#phone")).to_have_attribute(
        "data-tick", str(tick if held is None else min(tick, held))
    )
    expect(phone.locator("#phone")).to_have_attribute("data-run", teacher_run(teacher))


def flips_stores(teacher) -> None:
    """The teacher clicks the stores' row (fencing), and the class is written the new run."""
    card = teacher.locator("section.class-card")
    before = teacher_run(teacher)
    teacher.locator('.diagram-wide [data-key="row-stores"]').click()
    expect(card).not_to_have_attribute("data-run", before)


def teacher_run(teacher) -> str:
    """The run the teacher's card says the phones follow (Playwright's selectors reach into shadow roots)."""
    return teacher.locator("section.class-card").get_attribute("data-run")


def answer(phone, letter: str) -> None:
    phone.locator(f'input[data-key="class-answer-{"ABCD".index(letter)}"]').check()
    expect(phone.locator(".class-sent")).to_contain_text(f"Your answer {letter} is in")


def snap(page, name: str) -> None:
    """A screenshot once the page has settled: two frames, in which the drawing is fitted to the screen."""
    page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def test_peer_instruction_from_join_to_reveal(chromium, class_server):
    teacher, code = teacher_opens(chromium, class_server)
    kind = class_server.name
    # The join screen: a QR code a third of the screen high and more, the code large, the link unbroken.
    teacher.get_by_role("button", name="Show how to join").click()
    qr = teacher.locator(".class-join.large .class-qr svg").bounding_box()
    assert qr["height"] >= PROJECTOR["height"] / 3, qr
    link = teacher.locator(".class-join.large .class-link")
    assert link.inner_text().strip() == f"{class_server.base}/join/{code}"
    assert link.bounding_box()["height"] < 1.8 * float(
        link.evaluate("e => parseFloat(getComputedStyle(e.firstChild).fontSize)")
    )
    phones = [student_joins(chromium, class_server, code) for _ in range(3)]
    expect(teacher.locator(".class-join.large .class-joined")).to_have_text("3 joined")
    snap(teacher, f"class-projector-0-join-{kind}")
    teacher.get_by_role("button", name="Back to the lesson").click()
    held = 7  # step 2 asks about t8 at t7
    # Ask: round 1. Every phone shows the question's tick, and nothing later whatever it taps.
    teacher.get_by_role("button", name="Ask the room").click()
    expect(teacher.locator(".tick-now").first).to_have_text(f"t{held}")
    for phone in phones:
        expect(phone.locator("#phone-question")).to_contain_text("round 1")
        follows(phone, teacher, held)
    teacher.keyboard.press("ArrowRight")  # the projector cannot go past it either while the room answers
    expect(teacher.locator(".tick-now").first).to_have_text(f"t{held}")
    assert not phones[0].locator("#phone-player").is_visible()  # following: no way to step ahead
    answer(phones[0], "A")
    answer(phones[1], "A")
    answer(phones[2], "B")
    expect(teacher.locator(".class-status")).to_contain_text("3 of 3 have answered")
    assert teacher.locator("table.class-counts .class-bar").count() == 0  # the room votes alone: no bars yet
    snap(teacher, f"class-projector-1-asked-{kind}")
    snap(phones[0], f"class-phone-1-asked-{kind}")
    # Close: the spread, without the answer; the phones are asked to discuss.
    teacher.get_by_role("button", name="Close answers").click()
    expect(teacher.locator("table.class-counts .class-bar")).to_have_count(2)
    assert "right" not in teacher.locator("table.class-counts").inner_text()
    for phone in phones:
        expect(phone.locator(".class-sent")).to_contain_text("Talk it over with your neighbour")
        follows(phone, teacher, held)
    snap(teacher, f"class-projector-2-spread-{kind}")
    snap(phones[0], f"class-phone-2-discuss-{kind}")
    # The teacher flips a switch during the step: every phone follows it at once.
    flips_stores(teacher)
    for phone in phones:
        follows(phone, teacher, held)
    flips_stores(teacher)
    # Ask again: round 2, everyone back at the question's tick; all move to B.
    teacher.get_by_role("button", name="Ask again: round 2").click()
    expect(teacher.locator(".tick-now").first).to_have_text(f"t{held}")
    for phone in phones:
        expect(phone.locator("#phone-question")).to_contain_text("round 2")
        follows(phone, teacher, held)
        answer(phone, "B")
    teacher.get_by_role("button", name="Close answers").click()
    # Reveal: the asked tick for everyone, the verdict and why on every phone, the shift on the projector.
    teacher.get_by_role("button", name="Reveal answer").click()
    expect(teacher.locator(".tick-now").first).to_have_text("t8")
    for phone, chose in zip(phones, "BBB", strict=True):
        expect(phone.locator(".tour-verdict")).to_contain_text("Right." if chose == "B" else "Not quite.")
        follows(phone, teacher)
    expect(teacher.locator(".class-shift")).to_contain_text("2 moved to the right answer (2 from A)")
    expect(teacher.locator("table.class-counts")).to_contain_text("✓ right")
    snap(teacher, f"class-projector-3-revealed-{kind}")
    snap(phones[0], f"class-phone-3-revealed-{kind}")
    # Pause: every phone blank but for the words; back again.
    teacher.get_by_role("button", name="Pause the phones").click()
    for phone in phones:
        expect(phone.locator("#phone-paused")).to_have_text("Eyes on the screen at the front.")
        assert not phone.locator("#phone-figure").is_visible()
    teacher.get_by_role("button", name="Bring the phones back").click()
    expect(phones[0].locator("#phone-paused")).to_be_hidden()
    # The record: the question's words, the letters, the right answer, the counts per round; no one.
    with teacher.expect_download() as download:
        teacher.get_by_role("link", name="Download the answers (CSV)").click()
    exported = open(download.value.path(), encoding="utf-8").read()
    assert exported.splitlines()[0] == "step,question,round,answer,answer text,right,count"
    assert (
        "At t8 the woken #1" in exported
        and ",1,A," in exported
        and ",2,B," in exported
        and ",yes," in exported
    )
    assert "phone" not in exported.lower() and code not in exported
    assert "Warning" not in class_server.log_text() and "ERROR" not in class_server.log_text()


def test_the_projector_never_hides_the_diagram_behind_the_class_card(chromium, class_server):
    """At 1280x720 and 1920x1080 the card stands beside the diagram, every tick's column is in view,
    and the verdict is on the first screen once revealed."""
    teacher, code = teacher_opens(chromium, class_server, tour=4)
    for size in (PROJECTOR, {"width": 1920, "height": 1080}):
        teacher.set_viewport_size(size)
        teacher.wait_for_timeout(500)
        card = teacher.locator("section.class-card").bounding_box()
        strip = teacher.locator(".diagram-wide .diagram-scroll").bounding_box()
        assert strip["x"] + strip["width"] <= card["x"] + 1, (strip, card)
        names = teacher.locator(".diagram-wide svg.diagram text.tick")
        assert names.count() == 18  # t0 to t17
        for box in (names.nth(n).bounding_box() for n in range(names.count())):
            assert (
                0 <= box["x"]
                and box["x"] + box["width"] <= card["x"] + 1
                and box["y"] + box["height"] <= size["height"]
            )
    teacher.set_viewport_size(PROJECTOR)
    teacher.get_by_role("button", name="Ask the room").click()
    teacher.get_by_role("button", name="Reveal answer").click()
    # The question, its answers (the right one marked) and why the others are not it, on one screen.
    expect(teacher.locator(".class-card .class-right")).to_be_visible()
    for part in (".class-question", "table.class-counts", ".class-why"):
        box = teacher.locator(f".class-card {part}").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= PROJECTOR["height"], (part, box)


def test_a_server_killed_mid_round_keeps_every_acknowledged_answer_and_the_pages_come_back(
    chromium, class_server
):
    teacher, code = teacher_opens(chromium, class_server)
    phones = [student_joins(chromium, class_server, code) for _ in range(3)]
    teacher.get_by_role("button", name="Ask the room").click()
    answer(phones[0], "A")
    answer(phones[1], "B")
    assert phones[0].evaluate(f"sessionStorage.getItem('{PENDING}')") is None  # acknowledged: not kept
    origin = teacher.evaluate("performance.timeOrigin")
    class_server.kill()
    expect(phones[0].locator("#phone-status")).to_contain_text("reconnecting to the class", timeout=8000)
    phones[2].locator('input[data-key="class-answer-0"]').check()  # tapped while the server is away
    phones[1].locator('input[data-key="class-answer-0"]').check()  # changed while it is away
    listening = class_server.start()  # the same port, the same database
    back = {}
    for n, (phone, letter) in enumerate(zip(phones, "AAA", strict=True)):
        expect(phone.locator(".class-sent")).to_contain_text(f"Your answer {letter} is in", timeout=60000)
        back[f"phone {n}"] = time.monotonic() - listening
    teacher.wait_for_function(f"performance.timeOrigin != {origin}", timeout=60000)
    expect(teacher.locator(".class-status")).to_contain_text("3 of 3 have answered", timeout=60000)
    back["teacher"] = time.monotonic() - listening
    (ARTIFACTS / f"class-restart-{class_server.name}.txt").write_text(
        "seconds from the server listening again to each page live: "
        + ", ".join(f"{k} {v:.2f}" for k, v in back.items())
        + "\n"
    )
    teacher.get_by_role("button", name="Close answers").click()
    expect(teacher.locator("table.class-counts .class-bar")).to_have_count(2)
    rows = teacher.locator("table.class-counts tr")
    counted = [rows.nth(n).locator("td .class-count").all_inner_texts() for n in range(1, rows.count())]
    assert counted == [["3"], ["0"]]  # A three times (two tapped while away), B no longer


def test_a_tap_lost_on_its_way_is_sent_again_when_the_connection_comes_back(chromium, class_server):
    teacher, code = teacher_opens(chromium, class_server)
    phone = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    sockets, dropping = [], {"now": False}

    def through(socket) -> None:
        server = socket.connect_to_server()
        sockets.append(socket)
        socket.on_message(lambda message: None if dropping["now"] else server.send(message))

    phone.route_web_socket(re.compile(r".*/class/socket/.*"), through)
    phone.goto(f"{class_server.base}/join/{code}")
    teacher.get_by_role("button", name="Ask the room").click()
    expect(phone.locator("#phone-question")).to_contain_text("round 1")
    dropping["now"] = True  # from here on nothing the page sends arrives: a Wi-Fi that drops out
    phone.locator('input[data-key="class-answer-0"]').check()
    phone.wait_for_timeout(500)
    assert phone.evaluate(f"JSON.parse(sessionStorage.getItem('{PENDING}'))") == {
        "asked": "2:1",
        "choice": "0",
    }
    expect(teacher.locator(".class-status")).to_contain_text("0 of 1 have answered")
    dropping["now"] = False
    sockets[0].close()  # the connection goes; the page connects again and sends the kept tap
    expect(phone.locator(".class-sent")).to_contain_text("Your answer A is in")
    expect(teacher.locator(".class-status")).to_contain_text("1 of 1 have answered")
    assert phone.evaluate(f"sessionStorage.getItem('{PENDING}')") is None


def test_a_student_s_old_link_and_an_unknown_code_are_answered_in_a_student_s_words(chromium, class_server):
    phone = chromium.new_context(viewport=PHONE).new_page()
    phone.goto(f"{class_server.base}/explainer?join=ZZZZ9")  # the link class mode wrote before
    expect(phone).to_have_url(re.compile(r"/join/ZZZZ9$"))
    expect(phone.locator("#phone-status")).to_contain_text("There is no class 'ZZZZ9'")
    phone.goto(f"{class_server.base}/join")
    phone.get_by_label("The class's code, from the board").fill("zz zz9")
    phone.get_by_role("button", name="Join the class").click()
    expect(phone).to_have_url(re.compile(r"/join/ZZZZ9$"))


def test_a_hall_killed_mid_burst_keeps_every_acknowledged_answer_once(class_server):
    """300 protocol phones answer at once; the server is killed while their answers arrive and started
    again: every phone comes back by itself, sends its tap again, and every answer it was told is in is
    counted once."""
    from benchmarks.hall import every, join_hall
    from classroom.store import ClassStore

    store = ClassStore(class_server.database)
    code, secret = store.create()

    async def hall():
        phones, failed = await join_hall(class_server.base, code, 300, prefix="burst")
        assert failed == []
        store.open_round(code, secret, 2)
        await every(phones, lambda ph: ph.question and ph.question[2] == "open")  # the safety net's read
        await asyncio.gather(*(ph.answer(2, 1, str(k % 2)) for k, ph in enumerate(phones)))
        await asyncio.sleep(0.05)
        told = sum(bool(ph.acknowledged) for ph in phones)
        class_server.kill()
        class_server.start()
        await every(phones, lambda ph: (2, 1) in ph.acknowledged, timeout=120)
        await asyncio.gather(*(ph.close() for ph in phones))
        return phones, told

    # In a thread of its own: Playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as thread:
        phones, told_before_kill = thread.submit(asyncio.run, hall()).result()
    counts = store.counts(code, 2)[1]
    assert sum(counts.values()) == 300 and counts == {"0": 150, "1": 150}
    for k, phone in enumerate(phones):
        assert store.my_answer(code, phone.student, 2, 1) == str(k % 2) == phone.acknowledged[(2, 1)]
    (ARTIFACTS / f"class-burst-{class_server.name}.txt").write_text(
        f"acknowledged before the kill: {told_before_kill} of 300; after: 300; reconnects: "
        f"{sum(p.reconnects for p in phones)}\n"
    )
    store.close()


@pytest.fixture(scope="module")
def two_servers():
    """Two server processes (two machines behind one name) on one PostgreSQL, each on a port of its own,
    with no safety net: a class moves between them through the database's notifications alone."""
    from engines.postgres import Postgres

    with Postgres() as postgres:
        servers = [
            ClassServer(postgres.url("postgres"), f"postgresql-{n}", env={"CLASS_CHECK_EVERY": "3600"})
            for n in (1, 2)
        ]
        for server in servers:
            server.start()
        yield servers
        for server in servers:
            server.stop()


def test_students_split_between_two_processes_are_one_class_told_by_notifications(chromium, two_servers):
    first, second = two_servers
    teacher, code = teacher_opens(chromium, first)
    phones = [student_joins(chromium, first, code), student_joins(chromium, second, code)]
    expect(teacher.locator(".class-joined").first).to_have_text("2 joined")
    tick = shown(teacher)[1]
    teacher.keyboard.press("ArrowLeft")
    expect(teacher.locator(".tick-now").first).to_have_text(f"t{tick - 1}")
    for phone in phones:
        follows(phone, teacher)
    teacher.get_by_role("button", name="Ask the room").click()
    answer(phones[0], "A")
    answer(phones[1], "B")
    expect(teacher.locator(".class-status")).to_contain_text("2 of 2 have answered")
    teacher.get_by_role("button", name="Reveal answer").click()
    for phone in phones:
        expect(phone.locator(".tour-verdict")).to_contain_text("The model's answer")
    snap(phones[1], "class-phone-second-process")


def _postgres_processes(postgres) -> list[int]:
    """The server's processes: the postmaster (its pid file's first line) and its children."""
    import subprocess

    main = int((postgres.data / "postmaster.pid").read_text().split()[0])
    children = subprocess.run(["pgrep", "-P", str(main)], capture_output=True, text=True).stdout.split()
    return [main, *map(int, children)]


def test_a_stalled_then_restarted_database_is_said_in_words_and_the_class_goes_on(chromium):
    """PostgreSQL stopped (SIGSTOP, as a machine that stalls): a reader's page is served as ever; a phone
    joining is told the class cannot be reached, and gets in once the database answers. Then the database
    restarts: the server's connections are replaced by themselves and the class goes on."""
    import os
    import urllib.request

    from engines.postgres import Postgres, _bin

    with Postgres() as postgres:
        server = ClassServer(postgres.url("postgres"), "postgresql-stall")
        server.start()
        try:
            teacher, code = teacher_opens(chromium, server)
            first = student_joins(chromium, server, code)
            stalled = _postgres_processes(postgres)
            for pid in stalled:
                os.kill(pid, signal.SIGSTOP)
            try:
                began = time.monotonic()
                with urllib.request.urlopen(f"{server.base}/explainer?tick=3", timeout=30) as reader:
                    assert reader.status == 200
                (ARTIFACTS / "class-stall.txt").write_text(
                    f"a reader's page with the database stopped: {time.monotonic() - began:.2f} s\n"
                )
                late = chromium.new_context(viewport=PHONE).new_page()
                late.goto(f"{server.base}/join/{code}")
                expect(late.locator("#phone-status")).to_contain_text(
                    "cannot be reached just now", timeout=20000
                )
            finally:
                for pid in stalled:
                    os.kill(pid, signal.SIGCONT)
            expect(late.locator("#phone-question")).to_contain_text("Your teacher leads", timeout=30000)
            log = str(postgres.folder / "log")  # the server's output there: else it holds the call's pipes
            postgres._run(_bin("pg_ctl"), "-D", str(postgres.data), "-l", log, "-m", "fast", "-w", "restart")
            teacher.get_by_role("button", name="Ask the room").click()
            for phone, letter in ((first, "A"), (late, "B")):
                expect(phone.locator("#phone-question")).to_contain_text("round 1", timeout=30000)
                phone.locator(f'input[data-key="class-answer-{"AB".index(letter)}"]').check()
                expect(phone.locator(".class-sent")).to_contain_text(
                    f"Your answer {letter} is in", timeout=30000
                )
            expect(teacher.locator(".class-status")).to_contain_text("2 of 2 have answered", timeout=30000)
        finally:
            server.stop()
        said = server.log_text()
        assert said.count("\n") < 200 and max(map(len, said.splitlines())) < 400  # no flood in the log
