"""How ``python -m engines run`` writes its record, and how the Restate server says it is missing (no engine
is run here: the scenarios are replaced by rows made up for the test)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from engines import restate_server, scenarios


def _rows(engine: str, tag: str) -> list[dict]:
    return [{"engine": engine, "scenario": "crash", "variant": tag}]


@pytest.fixture
def fake_engines(monkeypatch):
    monkeypatch.setattr(scenarios, "run_engine", lambda engine, workdir: _rows(engine, "new"))
    monkeypatch.setattr(scenarios, "version", lambda package: f"{package}-9")
    monkeypatch.setattr(scenarios, "_restate_server", lambda: "restate-server 9")


def test_one_engine_rerun_keeps_the_others_rows(tmp_path, fake_engines):
    out = tmp_path / "results.json"
    scenarios.run_all(("langgraph", "dbos", "restate"), out)
    first = json.loads(out.read_text())
    assert [r["engine"] for r in first["results"]] == ["langgraph", "dbos", "restate"]
    # Mark the recorded rows, then rerun DBOS alone: only its row is new, in the engines' order.
    first["results"] = [{**r, "variant": "old"} for r in first["results"]]
    out.write_text(json.dumps(first))
    seconds: dict = {}
    data = scenarios.run_all(("dbos",), out, seconds)
    assert [(r["engine"], r["variant"]) for r in data["results"]] == [
        ("langgraph", "old"),
        ("dbos", "new"),
        ("restate", "old"),
    ]
    assert set(data["engines"]) == {"langgraph", "dbos", "restate"}
    assert data["restate_server"] == "restate-server 9" and data["postgresql"]
    assert set(seconds) == {"dbos"}
    assert json.loads(out.read_text()) == data


def test_an_engine_never_recorded_is_left_out(tmp_path, fake_engines):
    data = scenarios.run_all(("langgraph",), tmp_path / "new.json")
    assert list(data["engines"]) == ["langgraph"]
    assert data["postgresql"] is None and data["restate_server"] is None


def test_a_missing_restate_server_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(restate_server, "BINARY", tmp_path / "nowhere" / "restate-server")
    with pytest.raises(
        restate_server.RestateError, match=r"\./dev test installs it.*npm install --prefix \.tools"
    ):
        restate_server.RestateServer()


@pytest.mark.parametrize(
    "where, words",
    [
        ("nowhere/results.json", "the folder .*nowhere does not exist"),
        (".", "not a regular file"),
        ("/dev/full", "not a regular file"),
        ("garbage.json", "not a record of python -m engines run"),
        ("list.json", "not a record of python -m engines run"),
    ],
)
def test_an_out_the_record_cannot_go_to_is_refused_before_any_engine_runs(
    tmp_path, monkeypatch, capsys, where, words
):
    """Issue 48: a folder that does not exist lost the finished run to a traceback, and a special file was
    read whole first (``--out /dev/full`` grew the process to 23.5 GB)."""
    from engines.__main__ import main

    ran = []
    monkeypatch.setattr(scenarios, "run_engine", lambda engine, workdir: ran.append(engine) or [])
    (tmp_path / "garbage.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[]")
    out = where if where.startswith("/") else str(tmp_path / where)
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--engine", "langgraph", "--out", out])
    assert stopped.value.code == 2 and ran == []
    assert re.search(f"--out .*: {words}", capsys.readouterr().err)


def test_an_out_that_can_hold_the_record_is_written(tmp_path, fake_engines, monkeypatch, capsys):
    from engines.__main__ import main

    row = {"engine": "langgraph", "scenario": "crash", "variant": "v", "matches": True, "observed": "ok"}
    monkeypatch.setattr(scenarios, "run_engine", lambda engine, workdir: [row])
    assert main(["run", "--engine", "langgraph", "--out", str(tmp_path / "new.json")]) == 0
    assert json.loads((tmp_path / "new.json").read_text())["engines"]["langgraph"]["version"].endswith("-9")


@pytest.mark.parametrize("binary", ["missing", "not executable", "garbage", "cut short"])
def test_a_restate_server_that_cannot_run_is_said_in_one_line(tmp_path, monkeypatch, capsys, binary):
    """Issue 48, item 9: a missing, non-executable or garbage binary gave a multi-line traceback, and a
    truncated one pointed to an empty log."""
    from engines.__main__ import main

    fake = tmp_path / "restate-server"
    if binary != "missing":
        # Any program cut short will do (this Python's): the test needs no Restate installed in .tools.
        real = Path(sys.executable).resolve()
        fake.write_bytes(real.read_bytes()[:4096] if binary == "cut short" else b"not a program\n")
        fake.chmod(0o644 if binary == "not executable" else 0o755)
    monkeypatch.setattr(restate_server, "BINARY", fake)
    assert main(["run", "--engine", "restate", "--out", str(tmp_path / "out.json")]) == 1
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("python -m engines: restate-server"), said
    assert "npm install --prefix .tools" in said[0] and "Traceback" not in said[0]
    assert not (tmp_path / "out.json").exists()
