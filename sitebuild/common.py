"""What every part of the build shares: where things are, how a step runs, how a failure is said."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from app.content import heading

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".tools"
SOURCE_DATE_EPOCH = "1767225600"  # 2026-01-01


class BuildError(RuntimeError):
    pass


def page_title() -> str:
    return heading("page-title")


def say(message: str) -> None:
    print(f"[build] {message}", flush=True)


def sh(*command: str | Path, cwd: Path | None = None) -> None:
    """Run one step of the build; its output is shown only if it fails.

    ``PYTHONPATH`` is left out: with the repository on it, ``python -m build`` would find this project's
    ``build.py`` instead of pypa/build (``-P`` keeps only the working directory off the path)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {
        "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH
    }
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(
            f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
