"""The classroom notebook runs headless, cell by cell, in an ipykernel, and shows the model's figures."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from model import Switches, run
from tests.conftest import ROOT

NOTEBOOK = ROOT / "content" / "notebook.ipynb"
pytestmark = pytest.mark.slow  # it starts a kernel


@pytest.fixture(scope="module")
def executed():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    return notebook


def _text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts.append(output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def test_every_cell_runs_without_an_error(executed):
    code = [c for c in executed.cells if c.cell_type == "code"]
    assert code and all(c.get("execution_count") for c in code)
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))


def test_the_outcome_cell_shows_the_main_traces_figures(executed):
    (cell,) = [c for c in executed.cells if "outcome" in c.metadata.get("tags", [])]
    text = _text(cell)
    o = run(Switches()).outcome()
    assert f"model calls: {o.model_calls} (minimum 4)" in text
    assert f"steps restored: {o.steps_restored}" in text
    assert f"first accepted for the final report at t{o.first_accepted_current_at}" in text
    assert f"quoting {o.newsletter_quote}" in text


def test_the_last_cell_puts_the_explainer_in_the_notebook(executed):
    last = executed.cells[-1]
    kinds = {k for o in last.get("outputs", []) for k in o.get("data", {})}
    assert any("bokeh" in k or "holoviews" in k or k == "text/html" for k in kinds), kinds
