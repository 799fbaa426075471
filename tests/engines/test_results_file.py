"""How ``python -m engines run`` writes its record, and how the Restate server says it is missing (no engine
is run here: the scenarios are replaced by rows made up for the test)."""

from __future__ import annotations

import json

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
