"""The lifecycle drawings are Graphviz's layout of the model's current tables, and mark what a frame says."""

from __future__ import annotations

import re
import shutil

import pytest

from app.render.lifecycle_layout import TEMPLATES, drawings, file_name, slug, table_hash, template
from app.render.lifecycles import lifecycle_svg
from model import Switches, run, trace_dict

DRAWINGS = drawings()
NAMES = [file_name(m, beyond) for m, beyond in DRAWINGS]


@pytest.mark.parametrize("machine,beyond", DRAWINGS, ids=NAMES)
def test_each_drawing_was_made_from_the_current_table(machine, beyond):
    svg = (TEMPLATES / file_name(machine, beyond)).read_text()
    table = machine.to_dict(beyond=beyond)
    assert f'data-table="{table_hash(table)}"' in svg, "run: python -m app.render.lifecycle_layout"
    for state in table["states"]:
        assert f'id="state-{slug(state)}"' in svg
    for t in table["transitions"]:
        assert f'id="move-{slug(t["source"])}--{slug(t["event"])}"' in svg


def test_a_per_work_run_gets_the_drawing_with_the_rejection():
    trace = trace_dict(run(Switches(change="after-acceptance", post_key="per-work")))
    effect = next(m for m in trace["machines"] if m["name"] == "effect")
    html = lifecycle_svg(effect, trace["ticks"][-1])
    assert re.search(r'<g id="state-rejected" class="node[^"]*occupied', html)
    article = lifecycle_svg(effect | {"transitions": effect["transitions"][:2]}, trace["ticks"][0])
    assert 'id="state-rejected"' not in article


@pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz is not installed (the drawings are committed)"
)
@pytest.mark.parametrize("machine,beyond", DRAWINGS, ids=NAMES)
def test_dot_draws_the_committed_drawing_again(machine, beyond):
    assert template(machine, beyond) == (TEMPLATES / file_name(machine, beyond)).read_text()


def test_a_frame_marks_its_states_and_the_move_just_taken():
    trace = trace_dict(run(Switches()))
    html = lifecycle_svg(trace["machines"][0], trace["ticks"][8])  # t8: the woken #1 is fenced
    assert re.search(r'<g id="state-fenced" class="node[^"]*occupied[^"]*arrived', html)
    assert '<g id="move-unknown--write-rejected" class="edge just"' in html
    assert "Is this worker allowed to act?" in html and '<span class="chip">#1</span>' in html
    assert "#1: fenced (just moved UNKNOWN → fenced (write rejected))" in html


def test_a_step_forward_animates_the_move_just_taken_and_a_jump_does_not():
    from app.state import ReaderState
    from app.views.trace import TraceView

    state = ReaderState(tick=7)
    view = TraceView(state=state)
    (lifecycles,) = [p for p in view._layout.objects if "lifecycles" in p.css_classes]
    state.go(8)  # forward: the woken #1's move to fenced travels its edge
    assert "<animateMotion" in lifecycles.object and 'class="edge just"' in lifecycles.object
    state.go(12)  # a jump
    assert "<animateMotion" not in lifecycles.object
    state.go(11)  # a step back
    assert "<animateMotion" not in lifecycles.object
