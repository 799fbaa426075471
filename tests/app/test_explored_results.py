"""The explorer's whole-space results: the committed file serves while it is this model's, and a stale
one is explored anew rather than shown."""

from __future__ import annotations

import pytest

from app import shared
from model import dumps
from model.explore import source_digest


def _no_exploring():
    raise AssertionError("explored, though the committed results are this model's")


def test_the_working_copy_is_the_committed_results_without_exploring(tmp_path, monkeypatch):
    """Committed results stamped with this model's code are copied, compact, and nothing is explored.
    (Whether the committed file is this model's is a matter of results: tests/model/test_explore.py.)"""
    current = {"model": source_digest(), "rows": [{"protections": {"fencing": "on"}}]}
    (tmp_path / "committed.json").write_text(shared.committed_text(current), encoding="ascii")
    monkeypatch.setattr(shared, "COMMITTED", tmp_path / "committed.json")
    monkeypatch.setattr(shared, "_explore_everything", _no_exploring)
    copy = shared.write_explored(tmp_path / "explore.json")
    assert copy.read_text(encoding="ascii") == dumps(current)  # compact: the site serves it


def test_results_of_another_model_are_explored_anew_and_never_shown(tmp_path, monkeypatch):
    stale = {"model": "another model", "rows": []}
    (tmp_path / "committed.json").write_text(shared.committed_text(stale), encoding="ascii")
    (tmp_path / "explore.json").write_text(dumps(stale), encoding="ascii")
    fresh = {"model": source_digest(), "rows": [{"protections": {}}]}
    monkeypatch.setattr(shared, "COMMITTED", tmp_path / "committed.json")
    monkeypatch.setattr(shared, "EXPLORED", tmp_path / "explore.json")
    monkeypatch.setattr(shared, "_explored", [])
    assert shared.explored() is None
    monkeypatch.setattr(shared, "_explore_everything", lambda: fresh)
    assert shared.write_explored() == tmp_path / "explore.json"
    assert shared.explored() == fresh
    shared.main(["--refresh"])
    assert shared.COMMITTED.read_text(encoding="ascii") == shared.committed_text(fresh)
    # Nothing outside the temporary folder was written (the real working copy is the next build's).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["committed.json", "explore.json"]


def test_a_wrong_flag_names_the_allowed_one(capsys):
    with pytest.raises(SystemExit) as exit_:
        shared.main(["--refersh"])
    assert exit_.value.code == 2
    assert "--refresh" in capsys.readouterr().err
