"""Build the static site into ``site/``: the explainer running entirely in the browser.

    python build.py [--out site] [--pwa] [--skip-app]

What it writes:

- ``pyodide/``: the Pyodide core vendored from the npm ``pyodide`` package (the version Panel's converter
  pins), the model as a pure ``py3-none-any`` wheel built with pypa/build, and a ``pyodide-lock.json`` that
  lists it, made with pyodide-build's ``pyodide lockfile add-wheels``;
- ``app/``: ``panel convert --to pyodide-worker`` of the explainer, with the project's own wheels packed
  in as local requirements (Pyodide, Panel and Bokeh themselves come from their pinned CDNs at view time);
- ``index.html``: the main trace rendered by the model at build time (timeline, lifecycles, badges, outcome,
  the text table) so the worked example shows at once and without JavaScript; the live app takes its place
  when it is ready;
- ``embed.html``: the compact layout for an iframe in the article, resizing itself by postMessage;
- ``engines.html``: the recorded real-engine results (LangGraph, DBOS) beside the model's predictions;
- ``selfcheck.html``: "the model in your browser": the vendored Pyodide runs all 864 combinations and
  compares their digest with the one CPython computed here; fully offline.

Everything is built offline from the checkout; ``./dev build`` installs what is needed first.
"""

from __future__ import annotations

import argparse
import email.parser
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from html import escape
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version
from panel import __version__ as panel_version
from panel.io.convert import BOKEH_VERSION
from panel.io.convert import PYODIDE_VERSION as PANEL_PYODIDE

from app.content import caption_html, engine_results, heading, markdown_html, text
from app.palette import css_variables
from app.render.engines import engines_html
from app.render.explore import headline_html, table_html
from app.render.lifecycles import lifecycle_svg
from app.render.outcome import badges_html, outcome_html
from app.render.text import events_table_html
from app.render.timeline import legend_html, timeline_svg
from app.shared import EXPLORED, write_explored
from model import Switches, run, trace_dict
from model.analyses import fingerprint, sweep, sweep_summary

ROOT = Path(__file__).resolve().parent
TOOLS = ROOT / ".tools"
NPM_PYODIDE = TOOLS / "node_modules" / "pyodide"
PYODIDE_VERSION = "314.0.7"
PYODIDE_CORE = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide.js")
# Wheels built here carry this timestamp, so the same sources give the same bytes.
SOURCE_DATE_EPOCH = "1767225600"  # 2026-01-01


class BuildError(RuntimeError):
    pass


def page_title() -> str:

    return heading("page-title")


def say(message: str) -> None:
    print(f"[build] {message}", flush=True)


def sh(*command: str | Path, cwd: Path | None = None) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(
            f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )


def panel_pyodide_version() -> str:

    return PANEL_PYODIDE.lstrip("v")


def ensure_npm_pyodide() -> Path:
    """The npm pyodide package, at the version Panel's converter uses; installed into .tools/ if missing."""
    wanted = panel_pyodide_version()
    if wanted != PYODIDE_VERSION:
        raise BuildError(f"Panel converts for Pyodide {wanted}, but this build vendors {PYODIDE_VERSION}")
    package = NPM_PYODIDE / "package.json"
    if not package.exists() or json.loads(package.read_text())["version"] != PYODIDE_VERSION:
        say(f"installing the npm pyodide@{PYODIDE_VERSION} package into .tools/")
        TOOLS.mkdir(exist_ok=True)
        sh("npm", "install", "--prefix", TOOLS, "--no-audit", "--no-fund", f"pyodide@{PYODIDE_VERSION}")
    return NPM_PYODIDE


# --- wheels ----------------------------------------------------------------------------------------


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
        shutil.copytree(ROOT / "app", project / "app", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ROOT / "content", project / "app" / "content")
        (project / "pyproject.toml").write_text(APP_PYPROJECT.format(version=version))
        sh(sys.executable, "-P", "-m", "build", "--wheel", "--no-isolation", "--outdir", out, project)
    (wheel,) = out.glob("durable_work_explainer_app-*-py3-none-any.whl")
    return wheel


def project_version() -> str:
    match = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    return match.group(1)


# --- Pyodide core and lock file --------------------------------------------------------------------


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


PANEL_LOAD = 'await self.pyodide.loadPackage("micropip");'
PANEL_INSTALL = re.compile(r"await micropip\.install\(\[[^\]]*\]\);")


def pack_packages(site: Path, wheels: list[Path], lock_names: list[str]) -> None:
    """Put every wheel in the converted app's resources archive and make its worker load them, without
    asking an index: Pyodide's own packages by name from its pinned CDN, ours from the archive."""
    archive = site / "app" / "explainer.resources.zip"
    with zipfile.ZipFile(archive, "a") as packed:
        present = set(packed.namelist())
        for wheel in wheels:
            if f"packed_wheels/{wheel.name}" not in present:
                packed.write(wheel, f"packed_wheels/{wheel.name}")
    worker = site / "app" / "explainer.js"
    script = worker.read_text(encoding="utf-8")
    if script.count(PANEL_LOAD) != 1 or len(PANEL_INSTALL.findall(script)) != 1:
        raise BuildError("panel convert wrote a worker whose loading lines this build does not recognise")
    load = f"await self.pyodide.loadPackage({json.dumps(['micropip', *lock_names])});"
    install = ", ".join(repr(f"emfs:packed_wheels/{w.name}") for w in wheels)
    script = script.replace(PANEL_LOAD, load)
    script = PANEL_INSTALL.sub(lambda m: f"await micropip.install([{install}], deps=False);", script)
    worker.write_text(script, encoding="utf-8")


# --- the converted app -----------------------------------------------------------------------------

ENTRY = '''"""The explainer, as Panel's converter runs it in the browser."""
import sys

from app.explainer import create_app

# Panel parses an all-digit query value into an int when it builds pn.state.location; a browser bounds
# the URL, so lifting Python's 4,300-digit limit cannot cost much (see app/serving.py).
sys.set_int_max_str_digits(0)

create_app().servable(title="{title}")
'''


def convert_app(site: Path, wheels: list[Path], pwa: bool) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "explainer.py").write_text(ENTRY.format(title=page_title()))
        for wheel in wheels:
            shutil.copy2(wheel, work / wheel.name)
        (work / "requirements.txt").write_text("".join(f"./{w.name}\n" for w in wheels))
        command = [
            sys.executable,
            "-m",
            "panel",
            "convert",
            work / "explainer.py",
            "--to",
            "pyodide-worker",
            "--out",
            site / "app",
            "--requirements",
            work / "requirements.txt",
            "--title",
            page_title(),
            "--skip-embed",
        ]
        if pwa:
            command.append("--pwa")
        sh(*command, cwd=work)
    page = site / "app" / "explainer.html"
    if not page.exists():
        raise BuildError("panel convert wrote no app/explainer.html")
    return page


# --- pages -----------------------------------------------------------------------------------------


def main_trace_parts() -> dict[str, str]:
    """The main trace, rendered by the model and the app's pure renderers (no Panel)."""

    result = run(Switches())
    trace, outcome = trace_dict(result), result.outcome().to_dict()
    end = trace["end_tick"]
    frame = trace["ticks"][end]
    return {
        "intro": markdown_html(text("captions", "intro")),
        "preset": markdown_html(text("presets", "main")),
        "timeline_caption": caption_html("timeline"),
        "timeline": timeline_svg(trace, end),
        "legend": legend_html(),
        "lifecycles_caption": caption_html("lifecycles"),
        "lifecycles": "".join(lifecycle_svg(m, frame) for m in trace["machines"]),
        "badges": badges_html(trace, end, outcome),
        "outcome": outcome_html(outcome, trace, end),
        "text": events_table_html(trace, end, f"The main trace, t0 to t{end}"),
        "loading": escape(text("captions", "loading")),
        **{
            f"h_{k}": escape(heading(k))
            for k in ("title", "timeline", "invariants", "outcome", "lifecycles", "text")
        },
        "end": str(end),
    }


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="static/palette.css">
<link rel="stylesheet" href="static/site.css">
<link rel="stylesheet" href="static/diagrams.css">
</head>
<body class="{body_class}">
{body}
</body>
</html>
"""


def page(title: str, body: str, body_class: str = "") -> str:
    return PAGE.format(title=escape(title), body=body, body_class=body_class)


def index_body(parts: dict[str, str], compact: bool) -> str:
    live = "app/explainer.html"
    status = (
        f'<div id="status" class="status" role="status" aria-live="polite"><span class="spinner" '
        'aria-hidden="true"></span>'
        f' {parts["loading"]} <a href="{live}">Open the live explainer on its own</a>.</div>'
    )
    text_table = "" if compact else f"<h2>{parts['h_text']}</h2>{parts['text']}"
    prerender = f"""
<section id="prerender" aria-label="The main trace, pre-rendered">
  <div class="preset">{parts["preset"]}</div>
  <h2>{parts["h_timeline"]} <span class="tick-note">(complete, t0 to t{parts["end"]})</span></h2>
  {parts["timeline_caption"]}
  <div class="scroll" tabindex="0" role="region" aria-label="Timeline">{parts["timeline"]}</div>
  {parts["legend"]}
  <div class="columns">
    <div class="col">
      <h2>{parts["h_invariants"]}</h2>{parts["badges"]}
      <h2>{parts["h_outcome"]}</h2>{parts["outcome"]}
    </div>
    <div class="col wide">
      <h2>{parts["h_lifecycles"]} at t{parts["end"]}</h2>
      {parts["lifecycles_caption"]}
      <div class="machines">{parts["lifecycles"]}</div>
    </div>
  </div>
  {text_table}
</section>"""
    header = (
        ""
        if compact
        else f'<header><h1>{parts["h_title"]}</h1><div class="intro">{parts["intro"]}</div>'
        '<nav><a href="selfcheck.html">The model in your browser</a> · <a href="engines.html">Real '
        'engines</a> · <a href="explore.html">Beyond the one schedule</a> · '
        '<a href="app/explainer.html?tour=1">Take the guided tour</a></nav></header>'
    )
    return (
        f'{header}<main>{status}<div id="live-slot"></div>{prerender}</main>'
        f'<script src="static/loader.js" data-live="{live}" data-embed="{"1" if compact else ""}" '
        "defer></script>"
    )


def selfcheck_body(expected: dict) -> str:

    intro = text("captions", "selfcheck").format(
        pyodide=PYODIDE_VERSION, runs=expected["runs"], python=expected["python"]
    )
    return f"""
<header><h1>{escape(heading("selfcheck"))}</h1>
<div class="intro">{markdown_html(intro)}</div>
<nav><a href="index.html">Back to the explainer</a></nav></header>
<main>
<div id="selfcheck-status" class="status" role="status" aria-live="polite">
<span class="spinner" aria-hidden="true"></span> Loading Python…</div>
<table class="selfcheck"><caption>Digests (sha256 of the JSON, the same bytes or not)</caption>
<thead><tr><th scope="col">what</th><th scope="col">CPython, at build time</th>
<th scope="col">Pyodide, in this browser</th><th scope="col">same?</th></tr></thead>
<tbody>
<tr><th scope="row">outcomes of all {expected["runs"]}</th>
<td><code>{expected["sweep_digest"][:16]}</code></td>
<td id="sweep-digest">…</td><td id="sweep-same">…</td></tr>
<tr><th scope="row">full main trace</th>
<td><code>{expected["main_trace_digest"][:16]}</code></td>
<td id="trace-digest">…</td><td id="trace-same">…</td></tr>
</tbody></table>
<h2>{escape(heading("sweep-found"))}</h2>
<div id="summary"></div>
</main>
<script type="application/json" id="expected">{json.dumps(expected)}</script>
<script type="module" src="static/selfcheck.js"></script>
"""


def engines_body() -> str:

    results = engine_results()
    table = engines_html(results) if results else "<p>No engine results are recorded.</p>"
    return (
        f"<header><h1>{escape(heading('engines'))}</h1>"
        f'<div class="intro">{markdown_html(text("captions", "engines"))}</div>'
        '<nav><a href="index.html">Back to the explainer</a></nav></header>'
        f"<main>{table}</main>"
    )


def explore_body(data: dict) -> str:
    """The explorer's results, pre-rendered: they show before (and without) Python in the browser."""
    return (
        f"<header><h1>{escape(heading('explore'))}</h1>"
        f'<div class="intro">{caption_html("explore")}{headline_html(data)}</div>'
        '<nav><a href="index.html">Back to the explainer</a> · <a href="explore.json">The results as JSON'
        "</a></nav></header>"
        f"<main>{markdown_html(text('explore', 'findings'))}{table_html(data, 'app/explainer.html')}</main>"
    )


def selfcheck_expected() -> dict:

    return {**fingerprint(), "summary": sweep_summary(sweep()), "python": platform.python_version()}


def write_pages(site: Path) -> None:

    parts = main_trace_parts()
    (site / "index.html").write_text(page(page_title(), index_body(parts, compact=False)), encoding="utf-8")
    (site / "embed.html").write_text(
        page(page_title(), index_body(parts, compact=True), "embed"), encoding="utf-8"
    )
    expected = selfcheck_expected()
    (site / "selfcheck.html").write_text(
        page(heading("selfcheck"), selfcheck_body(expected)), encoding="utf-8"
    )
    (site / "engines.html").write_text(page(heading("engines"), engines_body()), encoding="utf-8")
    explored = json.loads(write_explored().read_text(encoding="utf-8"))
    (site / "explore.html").write_text(page(heading("explore"), explore_body(explored)), encoding="utf-8")
    shutil.copy2(EXPLORED, site / "explore.json")
    (site / "selfcheck.json").write_text(json.dumps(expected, indent=1) + "\n", encoding="utf-8")
    shutil.copytree(ROOT / "static", site / "static")
    shutil.copy2(
        ROOT / "app" / "diagrams.css", site / "static" / "diagrams.css"
    )  # the app's own picture styles

    (site / "static" / "palette.css").write_text(css_variables(), encoding="utf-8")


def build(out: Path, pwa: bool = False, skip_app: bool = False) -> Path:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        wheels = Path(tmp)
        say("building the model wheel (pypa/build)")
        model_wheel = build_model_wheel(wheels)
        say("exploring every schedule, for the Explore tab (reused while the model is unchanged)")
        write_explored()
        say("building the app wheel")
        app_wheel = build_app_wheel(wheels, project_version())
        say("vendoring the Pyodide core and writing pyodide-lock.json")
        vendor_pyodide(out, model_wheel)
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
    say("writing index.html, embed.html and selfcheck.html")
    write_pages(out)
    say(f"done: {out}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the explainer's static site.")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "site", help="where to write the site (default: site/)"
    )
    parser.add_argument(
        "--pwa", action="store_true", help="add Panel's service worker, for use offline after one visit"
    )
    parser.add_argument(
        "--skip-app", action="store_true", help="leave out the converted app (faster; pages only)"
    )
    args = parser.parse_args(argv)
    try:
        build(args.out.resolve(), pwa=args.pwa, skip_app=args.skip_app)
    except BuildError as error:
        print(f"build failed: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
