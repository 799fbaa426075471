"""Nothing ``python -m engines run`` starts outlives it (issue 48, item 6): after ``kill -9`` of the run
15 s in, restate-server stayed under PID 1 with its ports open, and after a plain ``kill`` a worker
stayed until its own 300 s timeout; the ``engines-*`` temp folders were left every time."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.engines


def processes_naming(words: str) -> list[str]:
    """The command lines of the running processes that name ``words`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if words in line:
                found.append(f"{entry.name}: {line[:160]}")
    return found


def wait_until(check, seconds: float, step: float = 0.1):
    deadline = time.monotonic() + seconds
    while not (found := check()) and time.monotonic() < deadline:
        time.sleep(step)
    return found


@pytest.mark.parametrize(
    "engine, stop",
    [
        ("restate", signal.SIGKILL),
        ("restate", signal.SIGTERM),
        ("restate", signal.SIGINT),
        ("dbos", signal.SIGKILL),
    ],
)
def test_no_process_and_no_folder_outlives_the_run(tmp_path, engine, stop):
    """Restate's server and DBOS's PostgreSQL server (which pg_ctl starts outside the run's processes)
    each with an attempt's worker running, then the run stopped."""
    # The run's temp folder, where the postgres user can reach it (pytest's own is private to root).
    temp = Path(tempfile.mkdtemp(prefix="leftovers-"))
    temp.chmod(0o755)
    run = subprocess.Popen(
        [sys.executable, "-m", "engines", "run", "--engine", engine, "--out", str(tmp_path / "out.json")],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(temp)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # signalled as a terminal or ``timeout`` would: the whole group
    )
    try:
        # The server and an attempt's worker (Restate's ignores SIGTERM for 300 s) both running.
        server = {"restate": "restate-server", "dbos": "postgres"}[engine]
        assert wait_until(lambda: processes_naming(f"{engine}_worker") and processes_naming(str(temp)), 120)
        assert [p for p in processes_naming(str(temp)) if server in p]
        if stop == signal.SIGKILL:
            run.kill()  # the run itself, alone: it can clean nothing
        else:
            os.killpg(run.pid, stop)
        _, said = run.communicate(timeout=60)
        left = wait_until(lambda: not processes_naming(str(temp)) and not any(temp.iterdir()), 30)
        assert left, (processes_naming(str(temp)), sorted(p.name for p in temp.iterdir()))
        if stop != signal.SIGKILL:
            assert run.returncode == 128 + stop
            assert said.strip() in ("python -m engines: terminated", "python -m engines: interrupted"), said
    finally:
        if run.poll() is None:
            run.kill()
        shutil.rmtree(temp, ignore_errors=True)
