"""The model's structure: actors that do not call each other, and imports that run one way.

Only imports that run count (those under ``if TYPE_CHECKING:`` are type hints, never executed)."""

from __future__ import annotations

import ast
import subprocess
import sys

from model.invariants import CHECKS, INVARIANT_IDS
from tests.conftest import ROOT

MODEL = ROOT / "model"


def runtime_imports(name: str) -> set[str]:
    """The model modules ``model/<name>.py`` imports when it runs."""
    tree = ast.parse((MODEL / f"{name}.py").read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom) and child.level == 1:
                if child.module:
                    found.add(child.module)
                else:
                    found.update(alias.name for alias in child.names)
            visit(child)

    visit(tree)
    return found - {"__init__"}


GRAPH = {
    p.stem: runtime_imports(p.stem) for p in MODEL.glob("*.py") if p.stem not in ("__init__", "__main__")
}


def reach(name: str) -> set[str]:
    seen, todo = set(), [name]
    while todo:
        for module in GRAPH[todo.pop()]:
            if module not in seen:
                seen.add(module)
                todo.append(module)
    return seen


def test_the_model_s_imports_have_no_circle():
    for name in GRAPH:
        assert name not in reach(name), f"model.{name} imports itself through {sorted(reach(name))}"


def test_an_attempt_asks_and_does_not_call():
    """An attempt yields requests; it knows no controller, no world, no tick protocol, no checker."""
    assert reach("attempt").isdisjoint({"controller", "world", "simulation", "invariants", "newsletter"})
    assert "attempt" not in reach("records") | reach("requests")


def test_importing_an_attempt_loads_no_controller():
    code = (
        "import sys, model.attempt; print(' '.join(sorted(m for m in sys.modules if m.startswith('model'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    assert "model.attempt" in loaded and not loaded & {"model.controller", "model.simulation", "model.world"}


def test_one_check_per_invariant():
    assert list(CHECKS) != [] and set(CHECKS) == set(INVARIANT_IDS)
