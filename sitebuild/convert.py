"""The converted app: ``panel convert --to pyodide-worker``, with every wheel packed into the site."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from sitebuild.common import BuildError, page_title, sh

PANEL_LOAD = 'await self.pyodide.loadPackage("micropip");'
PANEL_INSTALL = re.compile(r"await micropip\.install\(\[[^\]]*\]\);")
CDN_PYODIDE = re.compile(
    r'import \{ loadPyodide \} from "(https://cdn\.jsdelivr\.net/pyodide/v[^"]+/full/)pyodide\.mjs";'
)
PANEL_START = "self.pyodide = await loadPyodide();"
HEAD = "<head>"


#: What the worker never reads from the wheels it installs: the page loads Panel's and Bokeh's JavaScript
#: and their bundled libraries from their CDNs (panel convert writes those links), so the copies inside
#: the wheels are dead weight. Panel's CSS, images and model definitions stay.
UNUSED_IN_THE_WORKER = {
    "panel": ("panel/dist/bundled/", "panel/tests/", "panel/dist/panel.js.map"),
    "bokeh": ("bokeh/server/static/",),
}


def without_unused(wheel: Path, out: Path) -> Path:
    """A copy of ``wheel`` in ``out`` without what the worker never reads, its RECORD rewritten to list
    exactly the files left, with their real hashes (a wheel that says what it holds)."""
    name = wheel.name.split("-")[0]
    dropped = UNUSED_IN_THE_WORKER.get(name, ())
    if not dropped:
        return wheel
    target = out / wheel.name
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as copy:
        record_name = next(n for n in source.namelist() if n.endswith(".dist-info/RECORD"))
        lines = []
        for info in source.infolist():
            if info.filename == record_name or info.filename.startswith(dropped):
                continue
            data = source.read(info)
            copy.writestr(info, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            lines.append(f"{info.filename},sha256={digest},{len(data)}")
        copy.writestr(record_name, "\n".join([*lines, f"{record_name},,"]) + "\n")
    return target


def pack_packages(site: Path, wheels: list[Path], lock_names: list[str]) -> None:
    """Put every wheel in the converted app's resources archive (Panel and Bokeh without what the worker
    never reads) and make its worker load them, without asking an index: Pyodide's own packages by name
    from its pinned CDN, ours from the archive."""
    archive = site / "app" / "explainer.resources.zip"
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(archive, "a") as packed:
        present = set(packed.namelist())
        for wheel in wheels:
            if f"packed_wheels/{wheel.name}" not in present:
                packed.write(without_unused(wheel, Path(tmp)), f"packed_wheels/{wheel.name}")
    worker = site / "app" / "explainer.js"
    script = worker.read_text(encoding="utf-8")
    if script.count(PANEL_LOAD) != 1 or len(PANEL_INSTALL.findall(script)) != 1:
        raise BuildError("panel convert wrote a worker whose loading lines this build does not recognise")
    # A package Pyodide cannot fetch is said on the page (the worker's error message), not only logged.
    said = "{errorCallback: (words) => self.postMessage({type: 'error', msg: words})}"
    load = f"await self.pyodide.loadPackage({json.dumps(['micropip', *lock_names])}, {said});"
    install = ", ".join(repr(f"emfs:packed_wheels/{w.name}") for w in wheels)
    script = script.replace(PANEL_LOAD, load)
    script = PANEL_INSTALL.sub(lambda m: f"await micropip.install([{install}], deps=False);", script)
    worker.write_text(script, encoding="utf-8")


def load_core_from_site(site: Path) -> None:
    """The converted app's worker loads Pyodide's core from the site's vendored copy (site/pyodide/), and
    only Pyodide's own packages (numpy, pandas, …) from its pinned CDN; its page loads
    static/full-app.js first, which says what is loading and, when something cannot be fetched, says so
    with a link to the light explainer."""
    worker = site / "app" / "explainer.js"
    script = worker.read_text(encoding="utf-8")
    found = CDN_PYODIDE.search(script)
    if not found or script.count(PANEL_START) != 1:
        raise BuildError("panel convert wrote a worker whose Pyodide import this build does not recognise")
    script = script.replace(found.group(0), 'import { loadPyodide } from "../pyodide/pyodide.mjs";')
    config = (
        '{indexURL: new URL("../pyodide/", import.meta.url).href, '
        f"packageBaseUrl: {json.dumps(found.group(1))}}}"
    )
    worker.write_text(script.replace(PANEL_START, f"self.pyodide = await loadPyodide({config});"), "utf-8")
    page = site / "app" / "explainer.html"
    html = page.read_text(encoding="utf-8")
    if html.count(HEAD) != 1:
        raise BuildError("panel convert wrote a page whose head this build does not recognise")
    page.write_text(html.replace(HEAD, HEAD + '\n<script src="../static/full-app.js"></script>'), "utf-8")


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
