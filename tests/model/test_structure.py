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
    """An attempt hands requests to the world it is given; it imports no controller, no world, no tick
    protocol, no checker."""
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
    assert list(CHECKS) != [] and set(CHECKS) == set(INVARIANT_IDS) | {"rebuild-differs"}


def test_the_world_asks_its_schedule_and_never_reads_its_values():
    """Every schedule choice goes through one of Schedule's questions (silences, corrects_at, …), so an
    explorer can answer them in one place. The explorers (``explore``, and ``graph``, which indexes
    schedules by their values) and the command line, which list and print schedules, may read the
    values; the simulation may not."""
    from model.schedule import FIELDS

    fields = {f.id for f in FIELDS}
    readers = []
    for path in sorted(MODEL.glob("*.py")):
        if path.name in ("schedule.py", "explore.py", "graph.py", "cli.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in fields:
                inner = node.value
                if (
                    isinstance(inner, ast.Attribute)
                    and inner.attr == "schedule"
                    or (isinstance(inner, ast.Name) and inner.id == "schedule")
                ):
                    readers.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert readers == []


def test_a_paused_collector_comes_back_as_it_was_even_after_an_error():
    import gc

    from model.simulation import collector_paused

    assert gc.isenabled()
    try:
        with collector_paused():
            assert not gc.isenabled()
            raise RuntimeError("a run failed")
    except RuntimeError:
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()
