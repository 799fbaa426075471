"""Build the static site into ``site/``: the explainer running entirely in the browser.

    python build.py [--out site] [--pwa] [--skip-app]      (or: python -m sitebuild …)

One module a job: ``wheels`` (the model's and the app's wheels, and the packages the app needs),
``pyodide`` (the vendored core and its lock file), ``convert`` (the converted app), ``pages`` (the static
pages and assets); ``cli`` reads the command line.

What it writes:

- ``pyodide/``: the Pyodide core vendored from the npm ``pyodide`` package (the version Panel's converter
  pins), the model as a pure ``py3-none-any`` wheel built with pypa/build, and a ``pyodide-lock.json`` that
  lists it, made with pyodide-build's ``pyodide lockfile add-wheels``;
- ``app/``: ``panel convert --to pyodide-worker`` of the explainer, with the project's own wheels packed
  in as local requirements (Pyodide, Panel and Bokeh themselves come from their pinned CDNs at view time);
- ``index.html``: the main trace rendered by the model at build time (timeline, lifecycles, badges, outcome,
  the text table) so the worked example shows at once and without JavaScript; the live app takes its place
  when it is ready;
- ``light/``, ``light.html`` and ``embed.html``: the light explainer (``app.light`` on the vendored Pyodide,
  no Panel, nothing from outside the site), every chapter pre-rendered at every tick; ``embed.html`` is
  its compact layout for an iframe in the article, resizing itself by postMessage;
- ``engines.html``: the recorded real-engine results (LangGraph, DBOS, Restate) beside the model's
  predictions;
- ``selfcheck.html``: "the model in your browser": the vendored Pyodide runs all 864 combinations and
  compares their digest with the one CPython computed here; fully offline.

Everything is built offline from the checkout; ``./dev build`` installs what is needed first.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from panel import __version__ as panel_version
from panel.io.convert import BOKEH_VERSION

from app.shared import write_explored
from sitebuild.common import BuildError, say
from sitebuild.convert import convert_app, load_core_from_site, pack_packages
from sitebuild.light import write_light
from sitebuild.pages import write_pages
from sitebuild.pyodide import ensure_npm_pyodide, vendor_pyodide
from sitebuild.wheels import (
    build_app_wheel,
    build_model_wheel,
    fetch_wheel,
    project_version,
    pyodide_environment,
    resolve_packages,
)

__all__ = ["BuildError", "BuildLock", "build"]


def build(out: Path, pwa: bool = False, skip_app: bool = False) -> Path:
    """Build the site beside ``out`` and put it in place only when it is whole: a build that fails or is
    interrupted leaves ``out`` as it was. One build at a time per folder (``BuildLock``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with BuildLock(out):
        for stale in out.parent.glob(f".{out.name}.building-*"):  # left by a build that was killed
            shutil.rmtree(stale, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
        try:
            _write_site(staging, pwa, skip_app)
            _readable_by_all(staging)
            _swap_in(staging, out)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    say(f"done: {out}")
    return out


def _readable_by_all(site: Path) -> None:
    """Every folder and file of the site readable by anyone: a web server runs as a user of its own, and
    the staging folder is private (``mkdtemp``), as a strict umask makes every file."""
    for path in [site, *site.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | (0o555 if path.is_dir() else 0o444))


def _swap_in(staging: Path, out: Path) -> None:
    """Two renames in one folder: the old site is gone from ``out`` only for the instant between them."""
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)


class BuildLock:
    """``.NAME.lock`` beside the site while a build writes it, saying which process holds it. A second
    build is refused with that process named; a lock whose process has ended is taken over."""

    def __init__(self, out: Path):
        self.path = out.with_name(f".{out.name}.lock")
        self.out = out

    def __enter__(self) -> BuildLock:
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = self._holder()
                if holder is not None:
                    raise BuildError(
                        f"another build (process {holder}) is writing {self.out}; wait for it to end,"
                        f" or delete {self.path} if that process is not a build"
                    ) from None
                self.path.unlink(missing_ok=True)  # its build ended without removing it
                continue
            with os.fdopen(fd, "w") as lock:
                lock.write(f"{os.getpid()}\n")
            return self
        raise BuildError(f"could not take the build lock {self.path}")

    def _holder(self) -> int | None:
        """The process named in the lock if it is still running. An empty or garbled lock names none: 0
        or a negative number would make ``os.kill`` ask about a process group, which always answers."""
        try:
            pid = int(self.path.read_text().strip() or "0")
            if pid <= 0:
                return None
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        return pid

    def __exit__(self, *exc) -> None:
        self.path.unlink(missing_ok=True)


def _write_site(out: Path, pwa: bool, skip_app: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wheels = Path(tmp)
        say("building the model wheel (pypa/build)")
        model_wheel = build_model_wheel(wheels)
        say("the explorer's results for the Explore tab (committed; explored anew if the model changed)")
        write_explored()
        say("building the app wheel")
        app_wheel = build_app_wheel(wheels, project_version())
        say("vendoring the Pyodide core and writing pyodide-lock.json")
        vendor_pyodide(out, model_wheel)
        say("pre-rendering every chapter and packing the light explainer's wheels")
        write_light(out, app_wheel)
        if not skip_app:
            say("converting the app (panel convert --to pyodide-worker)")
            convert_app(out, [model_wheel, app_wheel], pwa)
            say("packing every pure-Python package the app needs (from the package index, cached)")
            lock = json.loads((ensure_npm_pyodide() / "pyodide-lock.json").read_text())
            python = pyodide_environment(lock)["python_version"]
            start = [
                fetch_wheel(f"panel=={panel_version}", python),
                fetch_wheel(f"bokeh=={BOKEH_VERSION}", python),
            ]
            packages, from_lock = resolve_packages([*start, model_wheel, app_wheel], lock)
            pack_packages(out, packages, from_lock)
            load_core_from_site(out)
    say("writing index.html, embed.html and selfcheck.html")
    write_pages(out)
