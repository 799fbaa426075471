"""The light explainer: ``app.light`` in the reader's browser on the vendored Pyodide, with no Panel, no
Bokeh and no request outside the site.

What it writes: ``light/wheels/`` (the app's wheel, whose Panel views the light page never imports, and
the pure wheels ``app.light`` needs: param, markdown-it-py, mdurl), ``light/<chapter>.json`` (every
chapter pre-rendered at every tick by ``app.light.LightPage.parts``, the very function the browser calls
later, so the first picture is there before Python and does not change when Python takes over), and
``light/manifest.json`` (the wheels and chapters, for ``static/light.js``).
"""

from __future__ import annotations

import json
import shutil
from importlib.metadata import version
from pathlib import Path

from app.light import FIXED_PARTS, LightPage
from app.state import PRESETS
from app.url import browser_table
from sitebuild.pyodide import ensure_npm_pyodide
from sitebuild.wheels import fetch_wheel, pyodide_environment

#: The pure packages ``app.light`` imports besides the project's own (checked by a test that imports it
#: with Panel and Bokeh out of reach).
LIGHT_PACKAGES = ("param", "markdown-it-py", "mdurl")


def chapter_frames(preset: str) -> dict:
    """A chapter at every tick: the parts that change with the tick, and once those that do not."""
    page = LightPage(f"?preset={preset}")
    ticks = []
    for tick in range(page.state.end_tick + 1):
        page.act("go", str(tick))
        parts = page.parts()
        ticks.append({k: v for k, v in parts.items() if k not in FIXED_PARTS})
    return {"preset": preset, "fixed": {k: parts[k] for k in FIXED_PARTS}, "ticks": ticks}


def write_light(site: Path, app_wheel: Path) -> None:
    out = site / "light"
    (out / "wheels").mkdir(parents=True)
    lock = json.loads((ensure_npm_pyodide() / "pyodide-lock.json").read_text())
    python = pyodide_environment(lock)["python_version"]
    wheels = [app_wheel] + [fetch_wheel(f"{name}=={version(name)}", python) for name in LIGHT_PACKAGES]
    for wheel in wheels:
        shutil.copy2(wheel, out / "wheels" / wheel.name)
    for preset in PRESETS:
        (out / f"{preset}.json").write_text(json.dumps(chapter_frames(preset)), encoding="utf-8")
    manifest = {"wheels": [w.name for w in wheels], "chapters": list(PRESETS), "browser": browser_table()}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
