"""Shared helpers: golden files live in tests/golden and are rewritten with UPDATE_GOLDEN=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

try:  # the browser tests need Playwright; the model's and the app's tests run without it
    from playwright.sync_api import expect
except ImportError:
    expect = None
else:
    # Panel pages answer over a websocket; on a busy two-core CI machine 5 s is too tight a default.
    expect.set_options(timeout=15_000)

# Hypothesis derandomized and with no example database: the same examples every run, on every machine,
# so a run passes or fails by the code alone and no example stored by an earlier run can fail a clean
# one. HYPOTHESIS_PROFILE=explore searches afresh (and remembers what it finds) while working.
try:
    from hypothesis import settings
except ImportError:
    pass
else:
    settings.register_profile("ci", derandomize=True, database=None)
    settings.register_profile("explore", derandomize=False)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def golden():
    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("UPDATE_GOLDEN") == "1" or not path.exists() and os.environ.get("CI") != "true":
            path.write_text(text, encoding="utf-8")
        assert path.exists(), f"golden file {name} is missing; run with UPDATE_GOLDEN=1 and review it"
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"{name} differs from the golden file (UPDATE_GOLDEN=1 rewrites it)"

    return check


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing; ./dev test installs Debian's chromium package")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` now (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it ended while we looked
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def descendants_of(pid: int) -> set[int]:
    """Every process started under ``pid`` now, at any depth (from /proc)."""
    found, looking = set(), [pid]
    while looking:
        children = children_of(looking.pop())
        looking.extend(children - found)
        found |= children
    return found


def cpu_seconds(pids) -> float:
    """CPU time (user and system) the processes have used so far, from /proc; one that has ended while
    this looked counts nothing."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` that are still processes."""
    found = set()
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        found.add(pid)
    return found


@pytest.fixture
def fresh_classes(tmp_path, monkeypatch):
    """Class mode over a new SQLite file, the process's hub (and its connection) and limits made anew."""
    from classroom import hub as hubs
    from classroom import limits as rates

    monkeypatch.setenv("CLASS_DB", str(tmp_path / "classes.sqlite3"))
    monkeypatch.setattr(hubs, "_HUB", [])
    monkeypatch.setattr(rates, "_LIMITS", [])  # each test's clients start with full buckets
    yield
    for made in hubs._HUB:
        made.stop()
        if made._store is not None:
            made._store.close()
