"""A lecture hall of phones that speak the class channel's protocol (classroom/channel.py) as the phone's page
does (classroom/phone.js), without drawing: each loads the join page, opens its websocket, names itself,
follows the views it is sent, answers, and connects again (sending its last tap) when the server goes away.
Used by benchmarks/class_bench.py to measure a hall, and by the tests to drive one.

A phone's address: where a hall's phones come from distinct addresses (a campus network), the bench
spreads them over loopback addresses (127.0.0.x), ``PER_ADDRESS`` to one, as the server's limits per
address expect of a room.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field

import websockets

PER_ADDRESS = 200
VIEW_TICK = re.compile(r'"frame":\{"tick":(\d+)')
KIND = re.compile(r'\{"t":"(\w+)"')
QUESTION = re.compile(r'"question":\{"step":(\d+),"round":(\d+),"phase":"(\w+)"')


def address(n: int) -> str:
    """The loopback address of the ``n``-th phone."""
    return f"127.0.0.{1 + n // PER_ADDRESS}"


@dataclass
class Phone:
    """One phone of the hall."""

    base: str  # http://host:port
    code: str
    student: str
    source: str = "127.0.0.1"
    tick: int | None = None  # the tick of the frame last shown
    question: tuple[int, int, str] | None = None  # (step, round, phase) of the question last shown
    seen: dict[int, float] = field(default_factory=dict)  # tick -> when first shown (perf_counter)
    acknowledged: dict[tuple[int, int], str] = field(default_factory=dict)  # (step, round) -> choice
    acked_at: dict[tuple[int, int], float] = field(default_factory=dict)
    pending: dict | None = None  # the last tap not yet acknowledged
    errors: list[str] = field(default_factory=list)
    joined_in: float | None = None
    reconnects: int = 0
    gone: bool = False  # told something final (an unknown class, a full one): no use connecting again
    _socket: object = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task | None = None

    async def page(self) -> int:
        """GET the join page as a browser would (gzipped): its size, or an error."""
        host, port = self.base.removeprefix("http://").rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port), local_addr=(self.source, 0))
        writer.write(
            f"GET /join/{self.code} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept-Encoding: gzip\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        await writer.drain()
        answer = await reader.read()
        writer.close()
        if not answer.startswith(b"HTTP/1.1 200"):
            raise ConnectionError(answer[:60].decode("latin-1"))
        return len(answer)

    async def join(self) -> None:
        """Load the page, connect and name itself; done when the class's view has arrived."""
        start = time.perf_counter()
        await self.page()
        await self.connect()
        await self.until(lambda phone: phone.tick is not None or bool(phone.errors))
        if self.errors:
            raise ConnectionError(self.errors[-1])
        self.joined_in = time.perf_counter() - start

    async def connect(self) -> None:
        url = f"ws://{self.base.removeprefix('http://')}/class/socket/{self.code}"
        self._socket = await websockets.connect(
            url, local_addr=(self.source, 0), max_size=None, compression=None
        )
        await self._socket.send(json.dumps({"hello": self.student, "pending": self.pending}))
        self._task = asyncio.ensure_future(self._listen(self._socket))

    async def _listen(self, socket) -> None:
        try:
            async for raw in socket:
                self._heard(raw)
        except websockets.ConnectionClosed:
            pass
        if self.gone or socket is not self._socket:
            return
        await self._come_back()

    async def _come_back(self) -> None:
        """As the page does: connect again every 400 ms until the server answers, then name itself and
        send the last tap again."""
        while not self.gone:
            await asyncio.sleep(0.4)
            try:
                await self.connect()
                self.reconnects += 1
                return
            except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosed):
                continue

    def _heard(self, raw: str) -> None:
        now = time.perf_counter()
        kind = KIND.match(raw)
        kind = kind.group(1) if kind else ""
        if kind == "view":
            found = VIEW_TICK.search(raw)
            if found:
                self.tick = int(found.group(1))
                self.seen.setdefault(self.tick, now)
            asked = QUESTION.search(raw)
            self.question = (int(asked.group(1)), int(asked.group(2)), asked.group(3)) if asked else None
        elif kind == "you":
            told = json.loads(raw)
            key = (told["step"], told["round"])
            self.acknowledged[key] = told["choice"]
            self.acked_at[key] = now
            if self.pending and self.pending["asked"] == f"{key[0]}:{key[1]}":
                self.pending = None
        elif kind == "error":
            told = json.loads(raw)
            self.errors.append(told["code"])
            self.gone = self.gone or told["code"] in ("unknown", "expired", "one-student", "too-many", "full")
        self._changed.set()

    async def until(self, done, timeout: float = 60.0) -> None:
        """Wait until ``done(self)`` holds (checked whenever the phone hears something)."""
        deadline = time.monotonic() + timeout
        while not done(self):
            self._changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.student}: waited {timeout} s")
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                pass

    async def answer(self, step: int, round_: int, choice: str) -> None:
        """Tap an answer: kept until acknowledged (and sent again after a reconnect)."""
        self.pending = {"asked": f"{step}:{round_}", "choice": choice}
        try:
            await self._socket.send(json.dumps({"answer": {"step": step, "round": round_, "choice": choice}}))
        except websockets.ConnectionClosed:
            pass  # sent again when the phone is back

    async def close(self) -> None:
        self.gone = True
        if self._socket is not None:
            await self._socket.close()
        if self._task is not None:
            self._task.cancel()


async def every(phones: list[Phone], done, timeout: float = 60.0) -> None:
    """Wait until ``done(phone)`` holds for every phone."""
    await asyncio.gather(*(phone.until(done, timeout) for phone in phones))


async def join_hall(base: str | list[str], code: str, n: int, prefix: str = "hall") -> tuple[list, list]:
    """``n`` phones join at once (split over the servers ``base`` names, as a balancer would): the phones
    that got in and the errors of those that did not."""
    bases = [base] if isinstance(base, str) else base
    phones = [Phone(bases[k % len(bases)], code, f"{prefix}-{k:06d}-phone", address(k)) for k in range(n)]
    results = await asyncio.gather(*(p.join() for p in phones), return_exceptions=True)
    joined = [p for p, r in zip(phones, results, strict=True) if not isinstance(r, BaseException)]
    failed = [f"{type(r).__name__}: {r}"[:120] for r in results if isinstance(r, BaseException)]
    return joined, failed


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")
