"""The Pyodide core, vendored from the npm ``pyodide`` package, and its lock file with the model wheel."""

from __future__ import annotations

import contextlib
import fcntl
import json
import shutil
import sys
from pathlib import Path

from panel.io.convert import PYODIDE_VERSION as PANEL_PYODIDE

from sitebuild.common import TOOLS, BuildError, say, sh

NPM_PYODIDE = TOOLS / "node_modules" / "pyodide"
PYODIDE_VERSION = "314.0.7"
PYODIDE_CORE = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide.js")


def panel_pyodide_version() -> str:

    return PANEL_PYODIDE.lstrip("v")


def ensure_npm_pyodide() -> Path:
    """The npm pyodide package, at the version Panel's converter uses; installed into .tools/ if missing."""
    wanted = panel_pyodide_version()
    if wanted != PYODIDE_VERSION:
        raise BuildError(f"Panel converts for Pyodide {wanted}, but this build vendors {PYODIDE_VERSION}")
    package = NPM_PYODIDE / "package.json"

    def installed() -> bool:
        return package.exists() and json.loads(package.read_text())["version"] == PYODIDE_VERSION

    if not installed():
        TOOLS.mkdir(exist_ok=True)
        with tools_lock():
            if not installed():  # another build may have installed it while this one waited
                say(f"installing the npm pyodide@{PYODIDE_VERSION} package into .tools/")
                sh("npm", "install", "--prefix", TOOLS, "--no-audit", "--no-fund", f"pyodide@{wanted}")
    return NPM_PYODIDE


@contextlib.contextmanager
def tools_lock():
    """One npm install into .tools/ at a time, whoever runs it (./dev takes the same lock with flock):
    two checkouts sharing .tools installing at once failed with ENOTEMPTY and left packages missing."""
    with open(TOOLS / ".npm.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def vendor_pyodide(site: Path, model_wheel: Path) -> Path:
    npm = ensure_npm_pyodide()
    target = site / "pyodide"
    target.mkdir(parents=True)
    for name in PYODIDE_CORE:
        shutil.copy2(npm / name, target / name)
    shutil.copy2(model_wheel, target / model_wheel.name)
    pyodide_cli = Path(sys.executable).with_name("pyodide")
    sh(
        pyodide_cli,
        "lockfile",
        "add-wheels",
        "--input",
        npm / "pyodide-lock.json",
        "--output",
        target / "pyodide-lock.json",
        "--base-path",
        target,
        target / model_wheel.name,
    )
    lock = json.loads((target / "pyodide-lock.json").read_text())
    entry = lock["packages"].get("durable-work-model")
    if entry is None or entry["file_name"] != model_wheel.name:
        raise BuildError("pyodide-lock.json does not list the model wheel as expected")
    return target
