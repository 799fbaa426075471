"""Every scenario run for real on LangGraph, DBOS (on a PostgreSQL server started here) and Restate (on
a restate-server started here for each run), compared with the model's prediction for the matching
switches. The recorded results file must be what a fresh run observes, since the app and the static site
show it."""

from __future__ import annotations

import json

import pytest

from engines.scenarios import ENGINES, RESULTS, run_all

pytestmark = pytest.mark.engines


@pytest.fixture(scope="module")
def fresh():
    return run_all(out=None)


def find(data, engine, scenario, variant=None):
    rows = [r for r in data["results"] if r["engine"] == engine and r["scenario"] == scenario]
    return [r for r in rows if variant is None or r["variant"] == variant]


@pytest.mark.parametrize("engine", ENGINES)
def test_every_compared_scenario_equals_the_models_prediction(fresh, engine):
    rows = [r for r in fresh["results"] if r["engine"] == engine and r["compared"]]
    assert {r["scenario"] for r in rows} >= {"crash", "corrected", "effect"}
    for r in rows:
        for field in r["compared"]:
            assert r["observed"][field] == r["model"][field], (r["scenario"], r["variant"], field)
        assert r["matches"]


@pytest.mark.parametrize("engine", ENGINES)
def test_restoring_by_position_brings_back_the_stale_section(fresh, engine):
    (by_position,) = find(fresh, engine, "corrected", "steps by position")
    assert by_position["observed"]["digest_figure"] == "4.1 million"
    assert by_position["observed"]["report_figure"] == "4.7 million"
    assert by_position["switches"]["pins"] == "off"
    (keyed,) = find(fresh, engine, "corrected", "steps keyed by input hash")
    assert keyed["observed"]["digest_figure"] == "4.7 million"
    assert keyed["observed"]["steps_restored"] == 1 and keyed["switches"]["pins"] == "on"


def test_langgraph_durability_exit_redoes_everything(fresh):
    rows = {r["variant"]: r for r in find(fresh, "langgraph", "durability")}
    assert rows['durability="exit"']["observed"]["calls_by_attempt"]["2"] == 4
    assert rows['durability="sync"']["observed"]["calls_by_attempt"]["2"] == 2
    for engine in ("dbos", "restate"):  # one mode: each step recorded as it ends
        (row,) = find(fresh, engine, "durability")
        assert (
            row["observed"]["calls_by_attempt"]["2"] == 2 and row["switches"]["checkpoints"] == "every-step"
        )


@pytest.mark.parametrize("engine", ENGINES)
def test_effect_window_by_key_policy(fresh, engine):
    posts = {r["variant"]: r["observed"]["posts_applied"] for r in find(fresh, engine, "effect")}
    assert posts == {"key none": 2, "key per-operation": 1, "key per-attempt": 2}


@pytest.mark.parametrize("engine", ENGINES)
def test_stale_owner_behaviour_is_what_was_recorded(fresh, engine):
    (observed,) = find(fresh, engine, "stale-owner")
    (recorded,) = find(json.loads(RESULTS.read_text()), engine, "stale-owner")
    assert observed["observed"] == recorded["observed"]
    assert observed["matching_fencing"] == recorded["matching_fencing"]
    assert observed["observed"]["successor_finished"]
    assert observed["observed"]["posts_after_continue"] == 0  # the per-operation key held


def test_the_recorded_results_file_is_current(fresh):
    recorded = json.loads(RESULTS.read_text())

    def strip(data):
        keys = ("engine", "scenario", "variant", "observed", "model", "matches")
        return [{k: r[k] for k in keys} for r in data["results"]]

    assert strip(recorded) == strip(fresh), (
        "re-run `python -m engines run` and commit content/engine-results.json"
    )
    assert recorded["engines"] == fresh["engines"]


def test_three_engines_each_run_the_five_scenarios(fresh):
    assert set(fresh["engines"]) == {"langgraph", "dbos", "restate"}
    for engine in ENGINES:
        scenarios = {r["scenario"] for r in fresh["results"] if r["engine"] == engine}
        assert scenarios == {"crash", "corrected", "durability", "effect", "stale-owner"}
    assert fresh["restate_server"].startswith("restate-server 1.")


def test_restate_cuts_off_the_woken_stale_owner(fresh):
    """The server gave the invocation to the successor: the woken process's step result reaches neither
    Restate's journal nor the receiver, and the SDK tells its handler the connection was lost."""
    (row,) = find(fresh, "restate", "stale-owner")
    observed = row["observed"]
    assert observed["successor_finished"]
    assert observed["stale_store_writes_landed"] == 0  # the journal's entries are the successor's
    assert observed["stale_calls_after_continue"] == 0 and observed["posts_after_continue"] == 0
    assert observed["posts_applied"] == 1
    assert "connection to the restate server was lost" in observed["stale_handler_ended"]
    assert row["matching_fencing"] == "on"
    assert observed["stale_handler_ended"] in row["note"]
