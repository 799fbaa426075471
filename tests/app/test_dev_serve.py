"""`./dev serve` runs the very command the README documents: the setup's headers on the first response,
and the system allocator the memory figures assume; a session prints no warning."""

from __future__ import annotations

import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.browser.conftest import free_port, serve, wait_for
from tests.conftest import ARTIFACTS, ROOT, alive, children_of

pytestmark = pytest.mark.server


def test_dev_serve_sends_the_frame_policy_and_runs_with_the_system_allocator():
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    env = {**os.environ, "PORT": str(port), "DEV_SERVE_NO_EXPLORE": "1"}
    with open(ARTIFACTS / "dev-serve.log", "w") as log:
        process = subprocess.Popen(
            ["./dev", "serve", "--address", "127.0.0.1"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}/explainer"
            wait_for(url, seconds=180)
            with urllib.request.urlopen(url, timeout=30) as response:
                policy = response.headers["Content-Security-Policy"]
            assert policy == "frame-ancestors 'self'"
            # `./dev` execs the server, so the process started is the server itself.
            environ = Path(f"/proc/{process.pid}/environ").read_bytes().split(b"\0")
            assert b"PYTHONMALLOC=malloc" in environ
            cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
            assert b"--setup" in cmdline and b"app/serving.py" in cmdline
        finally:
            process.terminate()
            process.wait(timeout=20)
    # A session's document was built for the GET above: Bokeh's validation (W-1005 and its kin) and any
    # other warning would be in the server's log.
    said = (ARTIFACTS / "dev-serve.log").read_text()
    assert "/explainer" in said and not [line for line in said.splitlines() if "W-" in line or "WARN" in line]


def test_a_server_of_several_processes_ends_with_its_parent():
    """``--num-procs 2`` (README: several server processes on one class): a SIGTERM to the server's
    parent process, as a supervisor or a plain ``kill`` sends it, used to leave both children serving the
    port, orphaned. They end with their parent now."""
    import signal
    import time

    env = {"CLASS_DB": str(ARTIFACTS / "num-procs.sqlite3")}
    process, port, log = serve("app/explainer.py", "num-procs.log", env=env, more=("--num-procs", "2"))
    children: set[int] = set()
    try:
        wait_for(f"http://127.0.0.1:{port}/explainer", seconds=180)
        children = children_of(process.pid)
        assert len(children) == 2, children
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
        deadline = time.monotonic() + 20
        while alive(children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not alive(children), children
    finally:
        for pid in alive({process.pid, *children}):
            os.kill(pid, signal.SIGKILL)
        log.close()
