"""A throwaway PostgreSQL server for DBOS: initdb in a temporary folder, on a free loopback port.

As root it runs the server as the ``postgres`` user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from engines import janitor


class PostgresError(RuntimeError):
    pass


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or (
        [shutil.which(name)] if shutil.which(name) else []
    )
    if not found:
        raise PostgresError(f"PostgreSQL's {name} was not found; install Debian's postgresql package")
    return found[-1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="engines-pg-"))
        janitor.remove_later(self.folder)
        self.data = self.folder / "data"
        self.port = _free_port()
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self._as, *command], capture_output=True, text=True)
        if done.returncode != 0:
            raise PostgresError(f"{' '.join(command)} failed: {done.stderr[-1500:]}")

    def __enter__(self) -> Postgres:
        if self._as:
            shutil.chown(self.folder, "postgres")
        self._run(_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")
        janitor.stop_later(self.data, *self._as)  # pg_ctl's server leaves this process's group
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            _bin("pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start"
        )
        return self

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def __exit__(self, *exc) -> None:
        try:
            self._run(_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            janitor.done_with(self.data)
            janitor.done_with(self.folder)
