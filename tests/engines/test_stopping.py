"""The stale-owner scenario stops its first worker at a moment it holds no write open on its store, so the
successor can take over instead of waiting on a lock (no engine needed: a child process stands in)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from engines.scenarios import stop_between_writes, store_writable

# Holds a write transaction open for most of each cycle, as a busy LangGraph checkpointer can.
WRITER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
connection.execute("CREATE TABLE IF NOT EXISTS writes (n INTEGER)")
print("ready", flush=True)
while True:
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("INSERT INTO writes VALUES (1)")
    time.sleep(0.02)
    connection.execute("COMMIT")
    time.sleep(0.001)
"""


def test_a_store_with_a_write_open_is_not_writable(tmp_path):
    store = tmp_path / "store.sqlite"
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("CREATE TABLE t (n INTEGER)")
    assert store_writable(store)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO t VALUES (1)")
    assert not store_writable(store)
    holder.execute("COMMIT")
    assert store_writable(store)
    holder.close()


@pytest.mark.slow
def test_the_worker_is_stopped_between_two_writes(tmp_path):
    store = tmp_path / "store.sqlite"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(store)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "ready"
        for _ in range(5):  # the writer holds the lock ~95 % of the time: a blind SIGSTOP would catch it
            stop_between_writes(writer, store)
            state = open(f"/proc/{writer.pid}/stat").read().rsplit(")", 1)[1].split()[0]
            assert state in "tT"
            assert store_writable(store)
            os.kill(writer.pid, signal.SIGCONT)
            time.sleep(0.01)
    finally:
        os.kill(writer.pid, signal.SIGCONT)
        writer.kill()
        writer.wait()
