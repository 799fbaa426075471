"""The five scenarios, run for real on each engine and through the model's matching switches.

Every scenario runs worker processes (``engines.<engine>_worker``) against a fresh state folder and a
fresh receiver. A crash is a real SIGKILL the worker sends itself at the scripted point (after the stub
model call for s3 was logged, or after the receiver answered the post); the stale owner is stopped with
SIGSTOP while it is inside s3 (at a moment it holds no write open) and continued with SIGCONT after its
successor finished. On Restate a worker process is both the deployment the server invokes (reached
through a forwarder that points at the live attempt) and the client that asks the server for the
result; the server starts fresh for each run.

Each result pairs what was observed with what the model predicts for the matching switches, and says
whether they agree on the fields the scenario compares. Where an engine matches no switch setting, the
observation stands as the result.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from importlib.metadata import version
from pathlib import Path

from engines import janitor
from engines.receiver import Receiver, posts
from engines.workload import SECTIONS, Job, calls, write_report
from model import Switches, run, trace_dict
from model.report import revenue_figure

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("langgraph", "dbos", "restate")
PACKAGES = {"langgraph": "langgraph", "dbos": "dbos", "restate": "restate-sdk"}  # whose version is recorded
ENGINE_NAMES = {"langgraph": "LangGraph", "dbos": "DBOS", "restate": "Restate"}
RESULTS = ROOT / "content" / "engine-results.json"  # read by the app and the static site


@dataclass
class Attempted:
    returncode: int
    stderr: str


def launch(ctx: Context, job: Job, timeout: float = 180) -> Attempted:
    """Run one attempt's worker process to its end."""
    done = subprocess.run(
        [sys.executable, "-m", f"engines.{ctx.engine}_worker", ctx.deploy(job).to_json()],
        cwd=ROOT,
        process_group=janitor.group(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Attempted(done.returncode, done.stderr[-4000:])


def start(ctx: Context, job: Job) -> subprocess.Popen:
    """Start one attempt's worker process and return at once (the stale owner is stopped and continued)."""
    return subprocess.Popen(
        [sys.executable, "-m", f"engines.{ctx.engine}_worker", ctx.deploy(job).to_json()],
        cwd=ROOT,
        process_group=janitor.group(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def observe(folder: Path) -> dict:
    log = calls(folder)
    by_attempt: dict[str, int] = {}
    for line in log:
        by_attempt[str(line["attempt"])] = by_attempt.get(str(line["attempt"]), 0) + 1
    resumed = {line["section"] for line in log if line["attempt"] == 2}
    result = folder / "result-2.json"
    digest = json.loads(result.read_text())["digest"] if result.exists() else None
    report = json.loads((folder / "report.json").read_text())
    feed = posts(folder / "feed.sqlite")
    return {
        "calls_by_attempt": by_attempt,
        "model_calls": len(log),
        "steps_restored": len(SECTIONS) - len(resumed),
        "digest_figure": digest["figure"] if digest else None,
        "report_figure": revenue_figure(report["s2"]),
        "posts_applied": len(feed),
        "duplicate_posts": len(feed) - len({p["digest"] for p in feed}),
    }


def predict(switches: Switches) -> dict:
    """What the model says for these switches, in the fields the engines are compared on."""
    result = run(switches)
    trace = trace_dict(result)
    outcome = result.outcome().to_dict()
    last = trace["ticks"][-1]["records"]
    accepted = last["acceptances"][-1]["digest"] if last["acceptances"] else None
    figure = next((c["figure"] for c in last["candidates"] if c["digest"] == accepted), None)
    return {
        "calls_by_attempt": {k: v for k, v in outcome["calls_by_attempt"].items() if v},
        "model_calls": outcome["model_calls"],
        "steps_restored": outcome["steps_restored"],
        "digest_figure": figure,
        "report_figure": trace["ticks"][-1]["report_figure"],
        "posts_applied": outcome["posts_applied"],
        "duplicate_posts": outcome["duplicate_posts"],
        "stale_writes_rejected": outcome["stale_writes_rejected"],
        "stale_writes_applied": outcome["stale_writes_applied"],
    }


@dataclass
class Context:
    engine: str
    workdir: Path
    dbos_url_for: object = None  # callable(name) -> URL, for DBOS
    count: int = 0
    results: list = field(default_factory=list)
    engine_fields: dict = field(default_factory=dict)  # what this run's jobs carry to reach the engine
    run_stack: ExitStack = field(default_factory=ExitStack)  # what lives as long as one run (Restate)

    def fresh(self, name: str) -> tuple[Path, dict]:
        """A new run: its folder with the report at v1, and the fields its jobs need to reach the engine
        (DBOS: a new database; Restate: a new server with an empty journal, and its deployment's address)."""
        self.count += 1
        folder = self.workdir / f"{self.engine}-{self.count:02d}-{name}"
        folder.mkdir(parents=True)
        write_report(folder, "v1")
        self.run_stack.close()
        self.engine_fields = {}
        if self.dbos_url_for:
            self.engine_fields = {"dbos_url": self.dbos_url_for(f"run_{self.count:02d}")}
        if self.engine == "restate":
            from engines.restate_server import Forwarder, RestateServer

            server = self.run_stack.enter_context(RestateServer())
            self.forwarder = self.run_stack.enter_context(Forwarder())
            self.engine_fields = {
                "restate_ingress": server.ingress,
                "restate_admin": server.admin,
                "deployment_url": self.forwarder.url,
            }
        return folder, self.engine_fields

    def deploy(self, job: Job) -> Job:
        """The job as its process runs it: on Restate a port of its own, where the forwarder now points."""
        if self.engine != "restate":
            return job
        from engines.restate_server import free_port

        job = replace(job, listen_port=free_port())
        self.forwarder.target = job.listen_port
        return job


def result(
    ctx: Context,
    scenario: str,
    title: str,
    variant: str,
    switches: Switches,
    observed: dict,
    compared: tuple[str, ...],
    note: str = "",
) -> dict:
    predicted = predict(switches)
    entry = {
        "scenario": scenario,
        "title": title,
        "engine": ctx.engine,
        "variant": variant,
        "switches": switches.to_dict(),
        "compared": list(compared),
        "observed": observed,
        "model": {k: predicted[k] for k in compared},
        "matches": all(observed.get(k) == predicted[k] for k in compared),
        "note": note,
    }
    ctx.results.append(entry)
    return entry


# --- the scenarios ---------------------------------------------------------------------------------


def crash_and_resume(ctx: Context, *, change: bool, keyed: bool, durability: str = "sync") -> dict:
    folder, reach = ctx.fresh("crash")
    with Receiver(folder / "feed.sqlite") as receiver:
        job = Job(
            str(folder),
            1,
            receiver.url,
            crash_at="s3",
            keyed_by_input=keyed,
            durability=durability,
            **reach,
        )
        first = launch(ctx, job)
        if first.returncode != -signal.SIGKILL:
            raise RuntimeError(f"{ctx.engine}: attempt 1 should have been killed at s3: {first.stderr}")
        if change:
            write_report(folder, "v2")
        second = launch(ctx, replace(job, attempt=2))
        if second.returncode != 0:
            raise RuntimeError(f"{ctx.engine}: attempt 2 failed: {second.stderr}")
    return observe(folder)


def scenario_crash(ctx: Context) -> None:
    observed = crash_and_resume(ctx, change=False, keyed=False)
    result(
        ctx,
        "crash",
        "Crash inside s3, resume, nothing changed",
        "steps by position",
        Switches(silent="crashed", checkpoints="every-step", change="never", poster="survives"),
        observed,
        ("calls_by_attempt", "steps_restored", "digest_figure"),
    )


def scenario_corrected(ctx: Context) -> None:
    observed = crash_and_resume(ctx, change=True, keyed=False)
    result(
        ctx,
        "corrected",
        "The same crash, the report corrected before the resume",
        "steps by position",
        Switches(silent="crashed", change="during-outage", pins="off", poster="survives"),
        observed,
        ("calls_by_attempt", "steps_restored", "digest_figure"),
        "Restored by position: section 2 comes back from before the correction.",
    )
    observed = crash_and_resume(ctx, change=True, keyed=True)
    result(
        ctx,
        "corrected",
        "The same crash, the report corrected before the resume",
        "steps keyed by input hash",
        Switches(silent="crashed", change="during-outage", pins="on", poster="survives"),
        observed,
        ("calls_by_attempt", "steps_restored", "digest_figure"),
        "The builder's fix: each step's identity carries the hash of the text it read.",
    )


def scenario_durability(ctx: Context) -> None:
    """LangGraph's two durability modes after the same crash; DBOS and Restate have one mode, recording
    each step as it finishes, which is run here too so that every engine answers the question."""
    modes = (
        (("exit", "end-only"), ("sync", "every-step")) if ctx.engine == "langgraph" else (("", "every-step"),)
    )
    for mode, checkpoints in modes:
        observed = crash_and_resume(ctx, change=False, keyed=False, durability=mode or "sync")
        result(
            ctx,
            "durability",
            "Durability modes after the same crash",
            f'durability="{mode}"' if mode else "each step recorded as it ends (its only mode)",
            Switches(silent="crashed", checkpoints=checkpoints, change="never", poster="survives"),
            observed,
            ("calls_by_attempt", "steps_restored"),
            ""
            if mode
            else f"{ENGINE_NAMES[ctx.engine]} has no durability setting: a step's result is recorded when "
            "the step ends, which is the model's checkpoints after every step.",
        )


def scenario_effect(ctx: Context) -> None:
    for policy in ("none", "per-operation", "per-attempt"):
        folder, reach = ctx.fresh(f"effect-{policy}")
        with Receiver(folder / "feed.sqlite") as receiver:
            job = Job(str(folder), 1, receiver.url, key_policy=policy, crash_at="post", **reach)
            first = launch(ctx, job)
            if first.returncode != -signal.SIGKILL:
                raise RuntimeError(f"{ctx.engine}: attempt 1 should have died after posting: {first.stderr}")
            second = launch(ctx, replace(job, attempt=2))
            if second.returncode != 0:
                raise RuntimeError(f"{ctx.engine}: attempt 2 failed: {second.stderr}")
        result(
            ctx,
            "effect",
            "The effect window: killed after the receiver applied the post",
            f"key {policy}",
            Switches(silent="crashed", change="never", poster="dies", post_key=policy),
            observe(folder),
            ("posts_applied", "duplicate_posts"),
        )


def _store_rows(ctx: Context, folder: Path) -> int:
    """How many records the engine's own store holds for this run (to see whether a stale write landed):
    LangGraph's checkpoints and writes, DBOS's step outputs, the entries of Restate's journals."""
    if ctx.engine == "restate":
        from engines.restate_server import query

        return query(ctx.engine_fields["restate_admin"], "SELECT count(*) AS n FROM sys_journal")[0]["n"]
    if ctx.engine == "langgraph":
        connection = sqlite3.connect(folder / "langgraph.sqlite")
        try:
            return sum(
                connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("checkpoints", "writes")
            )
        finally:
            connection.close()
    import psycopg

    with psycopg.connect(ctx.engine_fields["dbos_url"]) as connection:
        return connection.execute("SELECT count(*) FROM dbos.operation_outputs").fetchone()[0]


def store_writable(store: Path) -> bool:
    """Whether another process could write this SQLite store now: no write transaction is held open."""
    connection = sqlite3.connect(store, timeout=0)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.rollback()
        return True
    except sqlite3.OperationalError:  # "database is locked"
        return False
    finally:
        connection.close()


def _stopped(pid: int) -> bool:
    """Whether the process is stopped by a signal (Linux's /proc; elsewhere assume the kill took)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "tT"
    except OSError:
        return True


def stop_between_writes(process: subprocess.Popen, store: Path | None, patience: float = 30) -> None:
    """SIGSTOP ``process`` at a moment it holds no write open on ``store`` (a SQLite file; None: any moment).

    LangGraph saves a task's result from a background thread, so the worker can be lingering inside s3
    while s2's row is still being written. Stopped in the middle of that transaction it keeps the file
    locked, and its successor gives up on the lock instead of taking over, which is not the scenario
    (it happened once in a fresh-clone run: the successor failed and all seven stale writes landed).
    So: stop, and if the store is locked, let it run a moment and stop it again.

    DBOS is stopped at any moment (``store`` None). Its worker keeps one PostgreSQL session idle in a
    transaction that holds an advisory lock for as long as it runs, so "no transaction open" never
    comes (tried: 30 s of retries, none idle); its successor does not wait on that lock."""
    deadline = time.monotonic() + patience
    while True:
        os.kill(process.pid, signal.SIGSTOP)
        while not _stopped(process.pid):
            if process.poll() is not None:
                raise RuntimeError(f"the worker exited ({process.returncode}) before it could be stopped")
            time.sleep(0.001)
        if store is None or store_writable(store):
            return
        os.kill(process.pid, signal.SIGCONT)
        if time.monotonic() > deadline:
            raise RuntimeError(f"{store.name} stayed locked for {patience:.0f} s: no moment between writes")
        time.sleep(0.02)


def _handler_ended(folder: Path, attempt: int) -> str | None:
    """How the attempt's ``Digest/run`` handler ended, as the Restate worker noted it (the exception's
    message without its class path), or None where no handler was noted (the other engines)."""
    path = folder / "handlers.log"
    lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    ended = [
        line["ended"] for line in lines if line["attempt"] == attempt and line["handler"] == "Digest/run"
    ]
    return ended[-1].partition(": ")[2] or ended[-1] if ended else None


def scenario_stale_owner(ctx: Context) -> None:
    folder, reach = ctx.fresh("stale-owner")
    with Receiver(folder / "feed.sqlite") as receiver:
        job = Job(str(folder), 1, receiver.url, linger_at="s3", **reach)
        first = start(ctx, job)
        deadline = time.monotonic() + 120
        while not (folder / "lingering").exists():
            if time.monotonic() > deadline or first.poll() is not None:
                raise RuntimeError(f"{ctx.engine}: attempt 1 never reached s3")
            time.sleep(0.05)
        stop_between_writes(first, folder / "langgraph.sqlite" if ctx.engine == "langgraph" else None)
        second = launch(ctx, replace(job, attempt=2))
        rows_before = _store_rows(ctx, folder)
        posts_before = len(posts(folder / "feed.sqlite"))
        (folder / "go-on").write_text("")
        os.kill(first.pid, signal.SIGCONT)
        _, stderr = first.communicate(timeout=120)
        rows_after = _store_rows(ctx, folder)
    log = calls(folder)
    feed = posts(folder / "feed.sqlite")
    stale_error = next((line.strip() for line in reversed(stderr.splitlines()) if "Error" in line), None)
    observed = {
        "successor_finished": second.returncode == 0,
        "stale_worker_exit": first.returncode,
        "stale_worker_finished": (folder / "result-1.json").exists(),
        "stale_calls_after_continue": sum(1 for c in log if c["attempt"] == 1) - 3,
        "stale_store_writes_landed": rows_after - rows_before,
        "stale_worker_error": stale_error,
        "posts_applied": len(feed),
        "posts_after_continue": len(feed) - posts_before,
    }
    if ended := _handler_ended(folder, attempt=1):
        observed["stale_handler_ended"] = ended
    refused = observed["stale_store_writes_landed"] == 0
    matching = "on" if refused else "off"
    what = (
        "none of the stale worker's writes landed in the engine's store"
        if refused
        else f"{observed['stale_store_writes_landed']} of the stale worker's writes landed in the engine's "
        "store"
    )
    how = (
        "it finished, taking the results its successor had recorded"
        if observed["stale_worker_finished"] and refused
        else "it finished its own run"
        if observed["stale_worker_finished"]
        else f"it stopped ({observed['stale_worker_error'] or 'exit ' + str(observed['stale_worker_exit'])})"
    )
    told = (
        f" Restate had given its invocation to the successor: the woken handler's step result was not "
        f"journaled, and the SDK ended it saying: {observed['stale_handler_ended']}"
        if "stale_handler_ended" in observed
        else ""
    )
    note = (
        f"Observed: {what}; {how}, making {observed['stale_calls_after_continue']} more model call(s) and "
        f"{observed['posts_after_continue']} new post(s). Closest switch: fencing {matching}"
        + (" (the model's fenced worker stops instead of carrying on)." if refused else ".")
        + told
    )
    entry = result(
        ctx,
        "stale-owner",
        "The stale owner: SIGSTOP, a successor resumes, SIGCONT",
        "steps by position",
        Switches(silent="paused", change="never", poster="survives", fencing=matching),
        observed,
        (),
        note,
    )
    entry["matching_fencing"] = matching
    entry["model"] = {
        f"fencing {f}": {
            k: predict(Switches(silent="paused", change="never", poster="survives", fencing=f))[k]
            for k in ("stale_writes_rejected", "stale_writes_applied")
        }
        for f in ("on", "off")
    }


SCENARIOS = (scenario_crash, scenario_corrected, scenario_durability, scenario_effect, scenario_stale_owner)


def _restate_server() -> str:
    from engines.restate_server import SERVER_PACKAGE, server_version

    package = SERVER_PACKAGE.rsplit("@", 1)[0]
    return f"restate-server {server_version()} (npm {package}), a fresh one for each run"


def run_engine(engine: str, workdir: Path) -> list[dict]:
    if engine == "dbos":
        from engines.postgres import Postgres

        with Postgres() as pg:
            ctx = Context(engine, workdir, dbos_url_for=pg.url)
            for scenario in SCENARIOS:
                scenario(ctx)
            return ctx.results
    ctx = Context(engine, workdir)
    with ctx.run_stack:  # the last run's Restate server stops here
        for scenario in SCENARIOS:
            scenario(ctx)
    return ctx.results


def run_all(engines=ENGINES, out: Path | None = RESULTS, seconds: dict | None = None) -> dict:
    """Run every scenario on ``engines`` and return the record; with ``out``, write it there, keeping the
    rows ``out`` already holds for the engines not run now (so one engine can be rerun alone). Each
    engine's wall time goes into ``seconds`` when given (not into the record, which stays the same from
    run to run)."""
    results = {}
    with tempfile.TemporaryDirectory(prefix="engines-") as tmp:
        janitor.remove_later(Path(tmp))
        for engine in engines:
            began = time.perf_counter()
            results[engine] = run_engine(engine, Path(tmp))
            if seconds is not None:
                seconds[engine] = time.perf_counter() - began
    janitor.done_with(Path(tmp))
    kept = {"engines": {}, "results": []}
    if out is not None and out.is_file():
        kept = json.loads(out.read_text())
    for engine in ENGINES:
        if engine not in results and engine in kept["engines"]:
            results[engine] = [r for r in kept["results"] if r["engine"] == engine]
    ran = [e for e in ENGINES if e in results]
    data = {
        "generated_by": "python -m engines run",
        "engines": {
            e: {"name": ENGINE_NAMES[e], "package": PACKAGES[e], "version": version(PACKAGES[e])}
            if e in engines
            else kept["engines"][e]
            for e in ran
        },
        "postgresql": "PostgreSQL server started in a temporary data directory" if "dbos" in ran else None,
        "restate_server": (_restate_server() if "restate" in engines else kept.get("restate_server"))
        if "restate" in ran
        else None,
        "results": [r for e in ran for r in results[e]],
    }
    if out is not None:
        out.write_text(json.dumps(data, indent=1) + "\n")
    return data
