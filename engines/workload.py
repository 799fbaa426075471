"""The workload both engines run: the worked example with stub model calls and one real post.

A "model call" is a stub that appends a line to the calls log (attempt, section, hash of the text it
read) and returns a result derived from its input. The report's texts are the model's own (v1, v2). A
worker is told, through its job, where to die (``crash_at``: a section, or ``"post"`` after the receiver
answered), where to linger so it can be stopped (``linger_at``), and which key policy to post with.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from model.report import SECTIONS, VERSION_BY_NAME, revenue_figure

CALL_SECONDS = 0.5  # how long the fatal model call runs before its worker dies


@dataclass(frozen=True)
class Job:
    state: str  # a folder for this run's files (report, calls log, engine store)
    attempt: int
    receiver: str  # the receiver's URL
    key_policy: str = "per-operation"  # "per-operation", "per-attempt" or "none"
    crash_at: str | None = None  # "s1".."s4" or "post": the first attempt kills itself there
    linger_at: str | None = None  # the first attempt signals and waits there (to be SIGSTOPped)
    keyed_by_input: bool = False  # the builder's fix: step identity keyed by the input's hash
    durability: str = "sync"  # LangGraph's durability mode
    dbos_url: str = ""
    restate_ingress: str = ""  # Restate: the server's ingress and admin URLs
    restate_admin: str = ""
    listen_port: int = 0  # Restate: where this attempt's deployment listens
    deployment_url: str = ""  # Restate: the address the server calls the deployment at

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Job:
        return cls(**json.loads(text))

    @property
    def folder(self) -> Path:
        return Path(self.state)


def write_report(folder: Path, version: str) -> None:
    sections = dict(VERSION_BY_NAME[version].sections)
    (folder / "report.json").write_text(json.dumps(sections))


def read_report(job: Job) -> dict[str, str]:
    """The report as it is now: engines read their input when the step runs."""
    return json.loads((job.folder / "report.json").read_text())


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def model_call(job: Job, section: str, text: str) -> dict:
    """The stub model call: logged, maybe fatal, result derived from the input."""
    with open(job.folder / "calls.log", "a") as log:
        log.write(json.dumps({"attempt": job.attempt, "section": section, "hash": text_hash(text)}) + "\n")
    if job.attempt == 1 and job.crash_at == section:
        # The crash comes inside the call, which takes time. Killed at the very start of s3, LangGraph
        # sometimes had not yet saved s2 (its task results are written from a background thread).
        time.sleep(CALL_SECONDS)
        os.kill(os.getpid(), signal.SIGKILL)
    if job.attempt == 1 and job.linger_at == section:
        (job.folder / "lingering").write_text(str(os.getpid()))
        # The orchestrator stops this process here with SIGSTOP and later continues it with SIGCONT.
        deadline = time.monotonic() + 60
        while not (job.folder / "go-on").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    return {"section": section, "hash": text_hash(text), "figure": revenue_figure(text)}


def assemble(parts: list[dict]) -> dict:
    digest = hashlib.sha256("".join(p["hash"] for p in parts).encode()).hexdigest()[:8]
    figure = next((p["figure"] for p in parts if p["figure"]), None)
    return {"digest": digest, "figure": figure, "sections": [p["section"] for p in parts]}


def operation_key(job: Job, digest: dict) -> str | None:
    if job.key_policy == "per-operation":
        return f"announce/{digest['digest']}"
    if job.key_policy == "per-attempt":
        return f"announce/{digest['digest']}/attempt-{job.attempt}"
    return None


def post(job: Job, digest: dict) -> dict:
    """Send the announcement to the receiver; the first attempt may die right after it answered."""
    body = json.dumps(
        {"key": operation_key(job, digest), "params": {"digest": digest["digest"]}, "attempt": job.attempt}
    ).encode()
    request = urllib.request.Request(job.receiver, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.loads(response.read())
    if job.attempt == 1 and job.crash_at == "post":
        os.kill(os.getpid(), signal.SIGKILL)
    return answer


def finish(job: Job, digest: dict, answer: dict) -> None:
    (job.folder / f"result-{job.attempt}.json").write_text(json.dumps({"digest": digest, "answer": answer}))


def calls(folder: Path) -> list[dict]:
    path = folder / "calls.log"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


__all__ = [
    "SECTIONS",
    "Job",
    "assemble",
    "calls",
    "finish",
    "model_call",
    "post",
    "read_report",
    "write_report",
]
