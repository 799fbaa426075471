"""A throwaway Restate server for one scenario run, and the fixed address its deployment is called at.

``RestateServer`` starts npm's ``restate-server`` binary (installed into ``.tools/`` by ``./dev test``) on
free loopback ports with a fresh base directory, so every run starts from an empty journal and no
idempotency key is left over from another run. Its start-up log shows an update check failing
("octocrab ... client error (Connect)"): the server asks GitHub for a newer release, which is out of
reach here; nothing depends on it.

``Forwarder`` is the deployment's address as the server knows it. Each attempt is a new process on a
new port; the forwarder hands every new connection to the attempt that is live now, as a load balancer
in front of a restarted worker does. The server's HTTP/2 pings (every second here) tell it within
about two seconds that a stopped process stopped answering, and it retries the invocation on a new
connection, which reaches the successor.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from engines import janitor

ROOT = Path(__file__).resolve().parent.parent
SERVER_PACKAGE = "@restatedev/restate-server@1.7.12"
BINARY = (
    ROOT / ".tools" / "node_modules" / "@restatedev" / "restate-server-linux-x64" / "bin" / "restate-server"
)

# Short intervals so that a scenario takes seconds: the retry policy reaches a new process within half a
# second, and a stream silent for ten seconds (far longer than any step here) counts as stuck.
CONFIG = """\
default-num-partitions = 1
disable-telemetry = true
bind-address = "127.0.0.1:{fabric}"
[admin]
bind-address = "127.0.0.1:{admin}"
disable-web-ui = true
[ingress]
bind-address = "127.0.0.1:{ingress}"
[default-retry-policy]
initial-interval = "100ms"
max-interval = "500ms"
[worker.invoker]
inactivity-timeout = "10s"
abort-timeout = "10s"
http2-keep-alive-interval = "1s"
http2-keep-alive-timeout = "1s"
http2-keep-alive-jitter = 0.0
"""


class RestateError(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


INSTALL = f"./dev test installs it, or run: npm install --prefix .tools {SERVER_PACKAGE}"


def binary() -> Path:
    if not BINARY.exists():
        raise RestateError(f"restate-server was not found at {BINARY}; {INSTALL}")
    if not BINARY.is_file() or not os.access(BINARY, os.X_OK):
        raise RestateError(f"restate-server at {BINARY} is not an executable file; {INSTALL}")
    return BINARY


def server_version() -> str:
    """The server's version, as it says it ('restate-server 1.7.12' gives '1.7.12')."""
    try:
        done = subprocess.run([str(binary()), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RestateError(f"restate-server at {BINARY} could not be run ({error}); {INSTALL}") from None
    if done.returncode != 0 or not done.stdout.split():
        raise RestateError(f"restate-server at {BINARY} did not say its version; {INSTALL}")
    return done.stdout.split()[-1]


def query(admin: str, sql: str) -> list[dict]:
    """Rows of the server's introspection tables (``sys_journal``, ``sys_invocation``), by SQL."""
    request = urllib.request.Request(
        f"{admin}/query",
        data=json.dumps({"query": sql}).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())["rows"]


class RestateServer:
    def __init__(self) -> None:
        self.binary = binary()  # before anything is made: a missing server says how to install it
        self.folder = Path(tempfile.mkdtemp(prefix="engines-restate-"))
        janitor.remove_later(self.folder)
        self.ports = {name: free_port() for name in ("fabric", "admin", "ingress")}
        self.ingress = f"http://127.0.0.1:{self.ports['ingress']}"
        self.admin = f"http://127.0.0.1:{self.ports['admin']}"
        self.log_path = self.folder / "server.log"

    def __enter__(self) -> RestateServer:
        config = self.folder / "restate.toml"
        config.write_text(CONFIG.format(**self.ports))
        command = [str(self.binary), "--config-file", str(config), "--base-dir", str(self.folder / "base")]
        temp = self.folder / "tmp"
        temp.mkdir()
        with open(self.log_path, "w") as log:
            try:
                self.process = subprocess.Popen(
                    [*command, "--listen-mode", "tcp", "--no-logo"],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    # Its own temp files (an invoker's folder) in its folder, removed with it.
                    env={**os.environ, "RESTATE_LOG_DISABLE_ANSI_CODES": "true", "TMPDIR": str(temp)},
                    process_group=janitor.group(),
                )
            except OSError as error:  # not a program this machine runs (a file cut short, garbage)
                shutil.rmtree(self.folder, ignore_errors=True)
                janitor.done_with(self.folder)
                said = f"restate-server at {self.binary} could not be run ({error}); {INSTALL}"
                raise RestateError(said) from None
        deadline = time.monotonic() + 60
        while True:
            try:
                for url in (f"{self.admin}/health", f"{self.ingress}/restate/health"):
                    urllib.request.urlopen(url, timeout=1).read()
                return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self._stop()
                    janitor.done_with(self.folder)  # kept: the message names its log
                    said = self.log_path.read_text(errors="replace").strip().splitlines()
                    last = f"its log ends: {said[-1][:300]}" if said else "its log is empty"
                    raise RestateError(
                        f"restate-server did not start (exit status {self.process.returncode}; {last}); "
                        f"the log: {self.log_path}; if this stays, reinstall it: {INSTALL}"
                    ) from None
                time.sleep(0.05)

    def _stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __exit__(self, kind, *_) -> None:
        self._stop()
        janitor.done_with(self.folder)  # removed now, or kept for whoever reads the failure
        if kind is None or issubclass(kind, KeyboardInterrupt):  # done, or stopped by the reader
            shutil.rmtree(self.folder, ignore_errors=True)
        else:  # keep the journal and the log for whoever reads the failure
            print(f"restate-server's log is kept at {self.log_path}", file=sys.stderr)


class Forwarder:
    """A TCP forwarder on a fixed loopback port to whichever port ``target`` names when a connection
    opens (the live attempt); connections already open stay with the process they reached."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.target = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                incoming, _ = self.listener.accept()
            except OSError:  # closed
                return
            try:
                outgoing = socket.create_connection(("127.0.0.1", self.target), timeout=2)
                outgoing.settimeout(None)
            except OSError:  # nobody there yet: the server retries
                incoming.close()
                continue
            for a, b in ((incoming, outgoing), (outgoing, incoming)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            source.close()  # each socket is the source of one of the two pipes, which closes it

    def close(self) -> None:
        self.listener.close()

    def __enter__(self) -> Forwarder:
        return self

    def __exit__(self, *_) -> None:
        self.close()
