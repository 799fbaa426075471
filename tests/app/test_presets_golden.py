"""Every preset is a golden trace: the chapter a reader opens is pinned tick by tick."""

from __future__ import annotations

import pytest

from app.state import PRESETS
from model import Switches, run
from model.cli import format_trace


@pytest.mark.parametrize("name", PRESETS)
def test_preset_trace_is_golden(name, golden):
    golden(f"preset-{name}.txt", format_trace(run(Switches(**PRESETS[name]["switches"]))) + "\n")


def test_the_main_preset_is_the_main_trace():
    assert PRESETS["main"]["switches"] == {}
