"""Nothing a run of ``python -m engines`` starts outlives it, however the run ends.

The run starts a janitor first: a small process in a process group of its own, reading a pipe from the
run. Every process the run starts (the Restate server, each attempt's worker) joins the janitor's group,
and every folder the run makes is named to it, with the PostgreSQL server in it if there is one. When the
pipe closes (the run ended, was interrupted, or was killed with SIGKILL and could clean nothing), the
janitor kills what is left in its group, stops a PostgreSQL server still running and removes the named
folders the run did not clean or keep itself. A signal sent to the run's process group (Ctrl-C,
``timeout``) does not reach the group: the run cleans up on its own, and the janitor after it.

    python -m engines.janitor      (started by ``start``; reads its orders on standard input)
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

_janitor: subprocess.Popen | None = None


def start() -> None:
    """Start the janitor of this run (once)."""
    global _janitor
    if _janitor is None:
        _janitor = subprocess.Popen(
            [sys.executable, "-m", "engines.janitor"], stdin=subprocess.PIPE, text=True, process_group=0
        )


def group() -> int | None:
    """The process group every process of the run joins (``Popen(process_group=...)``), or None when no
    janitor runs (a test calling the scenarios itself)."""
    return _janitor.pid if _janitor is not None else None


def _tell(order: str, path: Path, *more: str) -> None:
    if _janitor is not None and _janitor.stdin is not None:
        _janitor.stdin.write("\t".join([order, str(path), *more]) + "\n")
        _janitor.stdin.flush()


def remove_later(folder: Path) -> None:
    """``folder`` is removed when the run ends unless the run removes or keeps it first."""
    _tell("folder", folder)


def stop_later(data: Path, *run_as: str) -> None:
    """The PostgreSQL server of ``data`` is stopped when the run ends (``run_as``: runuser's words)."""
    _tell("postgres", data, *run_as)


def done_with(path: Path) -> None:
    """The run cleaned ``path`` itself, or keeps it on purpose (a failed run's log): leave it."""
    _tell("done", path)


def _others_in_group(pgid: int) -> list[int]:
    """The processes of group ``pgid`` but this one (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if os.getpgid(int(entry.name)) == pgid:
                    found.append(int(entry.name))
            except OSError:  # gone meanwhile
                pass
    return found


def _clean(orders: list[list[str]]) -> None:
    for pid in _others_in_group(os.getpgrp()):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    done = {path for order, path, *_ in orders if order == "done"}
    left = [(order, path, more) for order, path, *more in orders if path not in done]
    for order, path, run_as in left:  # the servers first: their files are in the folders
        if order == "postgres" and Path(path).is_dir():
            pg_ctl = next(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), None)
            command = [*run_as, str(pg_ctl or "pg_ctl"), "-D", path, "-m", "immediate", "-w", "stop"]
            subprocess.run(command, capture_output=True, timeout=60, check=False)
    for order, path, _ in left:
        if order == "folder":
            shutil.rmtree(path, ignore_errors=True)


def main() -> None:
    # Signals meant for the run are not the janitor's: it ends when the run's pipe closes.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    orders = [line.rstrip("\n").split("\t") for line in sys.stdin]
    _clean([order for order in orders if len(order) >= 2])


if __name__ == "__main__":
    main()
