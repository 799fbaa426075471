"""Every preset is a golden trace: the chapter a reader opens is pinned tick by tick."""

from __future__ import annotations

import pytest

from app.state import PRESETS, Explainer
from model import Switches, dumps, run
from model.cli import format_trace
from tests.conftest import GOLDEN


@pytest.mark.parametrize("name", PRESETS)
def test_preset_trace_is_golden(name, golden):
    golden(f"preset-{name}.txt", format_trace(run(Switches(**PRESETS[name]))) + "\n")


def test_the_main_preset_is_the_main_trace():
    """The chapter called the main trace shows, tick by tick, the trace SPEC.md section 5 pins."""
    state = Explainer(fencing="off", pins="off", tick=4)
    state.apply_preset("main")
    assert dumps(state.trace, indent=1) + "\n" == (GOLDEN / "main-trace.json").read_text(encoding="utf-8")
    assert format_trace(run(state.switches())) + "\n" == (GOLDEN / "main-trace.txt").read_text(
        encoding="utf-8"
    )
