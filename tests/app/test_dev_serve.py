"""`./dev serve` runs the very command the README documents: the setup's headers on the first response,
and the system allocator the memory figures assume; a session prints no warning."""

from __future__ import annotations

import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.browser.conftest import free_port, wait_for
from tests.conftest import ARTIFACTS, ROOT

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
