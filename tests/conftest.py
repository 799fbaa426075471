"""Shared helpers: golden files live in tests/golden and are rewritten with UPDATE_GOLDEN=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"


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
