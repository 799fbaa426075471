"""The wheels: the model's and the app's, built here, and every pure-Python package the app needs,
fetched from the package index once and cached in ``.tools/wheels``."""

from __future__ import annotations

import email.parser
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from sitebuild.common import ROOT, TOOLS, BuildError, sh


def build_model_wheel(out: Path) -> Path:
    sh(sys.executable, "-P", "-m", "build", "--wheel", "--no-isolation", "--outdir", out, ROOT)
    (wheel,) = out.glob("durable_work_model-*-py3-none-any.whl")
    return wheel


APP_PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "durable-work-explainer-app"
version = "{version}"
description = "The explainer's Panel app and its words, packaged for Pyodide."
requires-python = ">=3.11"
# No declared dependencies: in the browser, Panel's converter installs panel and bokeh itself and the
# model wheel is installed beside this one.
dependencies = []

[tool.hatch.build.targets.wheel]
packages = ["app"]
"""


def build_app_wheel(out: Path, version: str) -> Path:
    """app/ with content/ inside it (app/content/*.md), so the words travel with the code."""
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        # The committed explorer results travel once, as the working copy app/data/explore.json.
        skip = shutil.ignore_patterns("__pycache__", "explore-results.json")
        shutil.copytree(ROOT / "app", project / "app", ignore=skip)
        shutil.copytree(ROOT / "content", project / "app" / "content")
        (project / "pyproject.toml").write_text(APP_PYPROJECT.format(version=version))
        sh(sys.executable, "-P", "-m", "build", "--wheel", "--no-isolation", "--outdir", out, project)
    (wheel,) = out.glob("durable_work_explainer_app-*-py3-none-any.whl")
    return wheel


def project_version() -> str:
    match = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    return match.group(1)


# --- the app's Python packages, all from the site ----------------------------------------------------
# At view time the worker must ask only Pyodide's pinned CDN (the core, and the packages Pyodide's own
# distribution builds: numpy, pandas, pillow, …). Every other package the app needs, Panel and Bokeh
# included, is a pure-Python wheel downloaded here from the package index and packed into the site.

WHEEL_CACHE = TOOLS / "wheels"


def pyodide_environment(lock: dict) -> dict[str, str]:
    """The environment markers of Pyodide's Python, for evaluating Requires-Dist lines."""
    full = lock["info"]["python"]
    return {
        "python_version": ".".join(full.split(".")[:2]),
        "python_full_version": full,
        "sys_platform": "emscripten",
        "platform_system": "Emscripten",
        "platform_machine": "wasm32",
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "extra": "",
    }


def wheel_requirements(wheel: Path) -> list[Requirement]:
    """The Requires-Dist lines of a wheel's METADATA."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(archive.read(name).decode("utf-8"))
    return [Requirement(line) for line in metadata.get_all("Requires-Dist") or []]


def wheel_name_version(wheel: Path) -> tuple[str, Version]:
    name, version, _, _ = parse_wheel_filename(wheel.name)
    return canonicalize_name(name), version


def fetch_wheel(requirement: str, python_version: str) -> Path:
    """A pure-Python wheel for ``requirement`` that installs on ``python_version`` (e.g. "3.14"), from the
    package index, cached in .tools/wheels."""
    req = Requirement(requirement)
    WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
    for cached in sorted(WHEEL_CACHE.glob("*.whl")):
        name, version = wheel_name_version(cached)
        if name == canonicalize_name(req.name) and req.specifier.contains(version, prereleases=True):
            return cached
    with tempfile.TemporaryDirectory() as tmp:
        sh(
            sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
            "--platform", "any", "--implementation", "py", "--abi", "none",
            "--python-version", python_version, "--dest", tmp, requirement,
        )  # fmt: skip
        (wheel,) = Path(tmp).glob("*.whl")
        return Path(shutil.copy2(wheel, WHEEL_CACHE / wheel.name))


def resolve_packages(start: list[Path], lock: dict, fetch=fetch_wheel) -> tuple[list[Path], list[str]]:
    """Every wheel the app needs: ``start`` and what they require (fetched), and the names it takes from
    Pyodide's lock.

    A requirement is met by a wheel already chosen, else by a package of Pyodide's distribution (whose own
    dependencies Pyodide's loadPackage resolves from the lock), else by a wheel from the index. Extras
    asked for (``markdown-it-py[linkify]``) bring in their own requirements."""
    env = pyodide_environment(lock)
    wheels = {wheel_name_version(w)[0]: w for w in start}
    from_lock: set[str] = set()
    queue: list[tuple[Path, frozenset[str]]] = [(w, frozenset()) for w in start]
    seen: set[tuple[str, frozenset[str]]] = set()
    while queue:
        wheel, extras = queue.pop()
        if (wheel.name, extras) in seen:
            continue
        seen.add((wheel.name, extras))
        for req in wheel_requirements(wheel):
            if req.marker is not None and not any(
                req.marker.evaluate({**env, "extra": e}) for e in {"", *extras}
            ):
                continue
            name = canonicalize_name(req.name)
            if name in lock["packages"] and name not in wheels:
                if not req.specifier.contains(lock["packages"][name]["version"], prereleases=True):
                    raise BuildError(f"Pyodide ships {name} {lock['packages'][name]['version']}, not {req}")
                from_lock.add(name)
                continue
            if name not in wheels:
                wheels[name] = fetch(f"{req.name}{req.specifier}", env["python_version"])
            if wheel_name_version(wheels[name])[1] not in req.specifier:
                raise BuildError(f"{wheels[name].name} does not satisfy {req}")
            queue.append((wheels[name], frozenset(req.extras)))
    return [wheels[n] for n in sorted(wheels)], sorted(from_lock)
