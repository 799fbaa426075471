"""What the app's tests share: a class mode with a database of its own."""

from __future__ import annotations

import pytest

from classroom import hub as hubs
from classroom import limits as rates


@pytest.fixture
def fresh_classes(tmp_path, monkeypatch):
    """Class mode over a new SQLite file, the process's hub (and its connection) and limits made anew."""
    monkeypatch.setenv("CLASS_DB", str(tmp_path / "classes.sqlite3"))
    monkeypatch.setattr(hubs, "_HUB", [])
    monkeypatch.setattr(rates, "_LIMITS", [])  # each test's clients start with full buckets
    yield
    for made in hubs._HUB:
        made.stop()
        if made._store is not None:
            made._store.close()
