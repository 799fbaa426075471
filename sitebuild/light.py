"""The light explainer: ``app.light`` in the reader's browser on the vendored Pyodide, with no Panel, no
Bokeh and no request outside the site.

What it writes: ``light/wheels/`` (the app's wheel, whose Panel views the light page never imports, and
the pure wheels ``app.light`` needs: param, markdown-it-py, mdurl), ``light/<chapter>.json`` and
``light/tour-<step>.json`` (every chapter and every tour step pre-rendered at every tick by
``app.light.LightPage.parts``, the very function the browser calls later, so the first picture is there
before Python and does not change when Python takes over; a tour step with its card after each answer
is checked; beside each, ``<name>.present.json``, what presenter mode draws otherwise),
``light/snapshot.bin.gz`` (Pyodide's memory with the model and param imported,
restored by the worker in place of a start) and ``light/manifest.json`` (the wheels and chapters, for
``static/light.js``).
"""

from __future__ import annotations

import functools
import gzip
import json
import shutil
from importlib.metadata import version
from pathlib import Path

from app.light import FIXED_PARTS, LightPage
from app.state import PRESETS
from app.tour import steps as tour_steps
from app.url import browser_table
from sitebuild.common import sh
from sitebuild.pyodide import ensure_npm_pyodide
from sitebuild.wheels import fetch_wheel, pyodide_environment

#: The pure packages ``app.light`` imports besides the project's own (checked by a test that imports it
#: with Panel and Bokeh out of reach).
LIGHT_PACKAGES = ("param", "markdown-it-py", "mdurl")


def _each_tick(page: LightPage) -> list[dict]:
    """The page's parts at every tick of its run, stepping it there."""
    every = []
    for tick in range(page.state.end_tick + 1):
        page.act("go", str(tick))
        every.append(page.parts())
    return every


def _frames(link: str) -> dict:
    """A link's run at every tick: the parts that change with the tick, and once those that do not;
    ``start``, the tick the link opens at."""
    page = LightPage(link)
    start = page.state.tick
    every = _each_tick(page)
    ticks = [{k: v for k, v in parts.items() if k not in FIXED_PARTS} for parts in every]
    return {"start": start, "fixed": {k: every[-1][k] for k in FIXED_PARTS}, "ticks": ticks}


def chapter_frames(preset: str, flags: str = "") -> dict:
    """A chapter at every tick (``flags``: the page's, such as ``&present=1``)."""
    return {"preset": preset, **_frames(f"?preset={preset}{flags}")}


def tour_frames(number: int, flags: str = "") -> dict:
    """A tour step at every tick, and its card once each answer (or none) is checked: the step's run is
    fixed, so the verdicts are too, and a reader can take the tour before Python is there."""
    step = tour_steps()[number - 1]
    verdicts = {}
    for chosen in ["", *map(str, range(len(step.answers)))]:
        page = LightPage(f"?tour={number}{flags}")
        if chosen:
            page.act("answer", chosen, "tour")
        page.act("check", "", "tour")
        verdicts[chosen] = page.parts()["tour"]
    # Once answered, the player shows every key moment again (they are hidden while the question waits).
    answered = [parts["player"] for parts in _each_tick(page)]
    tour = {"step": number, "ask": step.ask, "verdicts": verdicts, "answered": answered}
    return {"tour": tour, **_frames(f"?tour={number}{flags}")}


def overlay(plain: dict, other: dict) -> dict:
    """What ``other`` (the same link's pre-render in another layout: presenter mode's) changes of
    ``plain``: the fixed parts, the tour's cards and each tick's parts that differ, and nothing else (the
    diagram, mostly: presenter mode draws it large), so a projector's page fetches a small file more."""
    ticks = zip(plain["ticks"], other["ticks"], strict=True)  # the same run: the same ticks
    changed = {
        "fixed": {k: v for k, v in other["fixed"].items() if plain["fixed"].get(k) != v},
        "ticks": [{k: v for k, v in o.items() if p.get(k) != v} for p, o in ticks],
    }
    if other.get("tour") != plain.get("tour"):
        changed["tour"] = other["tour"]
    return changed


def write_light(site: Path, app_wheel: Path) -> None:
    out = site / "light"
    (out / "wheels").mkdir(parents=True)
    lock = json.loads((ensure_npm_pyodide() / "pyodide-lock.json").read_text())
    python = pyodide_environment(lock)["python_version"]
    wheels = [app_wheel] + [fetch_wheel(f"{name}=={version(name)}", python) for name in LIGHT_PACKAGES]
    for wheel in wheels:
        shutil.copy2(wheel, out / "wheels" / wheel.name)
    links = [(p, functools.partial(chapter_frames, p)) for p in PRESETS]
    links += [(f"tour-{n}", functools.partial(tour_frames, n)) for n in range(1, len(tour_steps()) + 1)]
    for name, frames in links:
        plain = frames()
        (out / f"{name}.json").write_text(json.dumps(plain), encoding="utf-8")
        large = overlay(plain, frames(flags="&present=1"))
        (out / f"{name}.present.json").write_text(json.dumps(large), encoding="utf-8")
    manifest = {"wheels": [w.name for w in wheels], "chapters": list(PRESETS), "browser": browser_table()}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    write_snapshot(site)


def write_snapshot(site: Path) -> None:
    """``light/snapshot.bin.gz``: Pyodide's memory after importing the model and param (as much as fits
    its first memory: sitebuild/snapshot.mjs, in Node), gzipped (a 31 MB image is mostly empty pages:
    about 8 MB). The worker restores it where it can and starts Python the usual way where it cannot."""
    raw = site / "light" / "snapshot.bin"
    sh("node", Path(__file__).with_name("snapshot.mjs"), site, raw)
    with (
        raw.open("rb") as image,
        gzip.GzipFile(raw.with_suffix(".bin.gz"), "wb", compresslevel=9, mtime=0) as out,
    ):
        shutil.copyfileobj(image, out)
    raw.unlink()
