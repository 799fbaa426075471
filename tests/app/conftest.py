"""What the app's tests share: a class mode with a database of its own."""

from __future__ import annotations

import pytest

from app.views import classroom


@pytest.fixture
def fresh_classes(tmp_path, monkeypatch):
    """Class pages (app.views.classroom) over a new SQLite file, their process's connection made anew."""
    monkeypatch.setenv("CLASS_DB", str(tmp_path / "classes.sqlite3"))
    monkeypatch.setattr(classroom, "_STORE", [])
    yield
    for made in classroom._STORE:
        made.close()
