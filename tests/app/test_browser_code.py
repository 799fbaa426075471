"""The browser code lives in .js files: each parses as a module, and each component loads its own."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from panel.custom import JSComponent

from app.views.action_html import IMPORT_BESIDE as IMPORT
from app.views.action_html import SHARED, ActionHTML
from app.views.screen import Screen
from app.views.shortcuts import Helpers, Presenter
from tests.conftest import ROOT

SCRIPTS = sorted([*(ROOT / "app" / "views" / "js").glob("*.js"), *(ROOT / "static").glob("*.js")])
MODULES = {p for p in SCRIPTS if "export " in p.read_text(encoding="utf-8")}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_each_script_parses(script):
    node = shutil.which("node")
    assert node, "node is needed to check the browser code"
    kind = ["--experimental-default-type=module"] if script in MODULES else []
    done = subprocess.run([node, *kind, "--check", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("component", [ActionHTML, Screen, Helpers, Presenter], ids=lambda c: c.__name__)
def test_each_component_loads_its_own_file(component: type[JSComponent]):
    """Its own file, with the files it imports from beside it composed in front, each once and before what
    imports it (Panel loads a component's code as one module, which cannot import a file beside it)."""
    own = {ActionHTML: "action_html.js", Screen: "screen.js", Helpers: "helpers.js"}.get(component)
    if own:
        path = SHARED.parent / own
        code = path.read_text(encoding="utf-8")
        module = component._esm
        assert not re.search(r"^import ", module, flags=re.M)
        assert module.endswith(IMPORT.sub("", code))

        def check(name: str) -> int:
            """Where the file's code starts in the module: once, after every file it imports."""
            text = IMPORT.sub("", (SHARED.parent / name).read_text(encoding="utf-8"))
            assert module.count(text) == 1, name
            at = module.index(text)
            for imported in IMPORT.findall((SHARED.parent / name).read_text(encoding="utf-8")):
                assert check(imported) < at, (imported, name)
            return at

        check(own)
        assert module.count("export function follow(") == 1  # frame.js, which every one of them imports
    else:
        path = Path(component._esm)
        assert path.is_file()
    assert path.parent == ROOT / "app" / "views" / "js"
    assert "export function render" in component._render_esm(compiled=False)
    assert component.__name__ in path.read_text(encoding="utf-8").splitlines()[0]


def test_the_explainer_s_modules_go_to_the_browser_as_they_are():
    """Marked as a bundle named by their text, so the browser imports them without compiling them (and a
    changed module gets a new name); not under --autoreload, which resends an edited module."""
    from bokeh.document import Document
    from panel.config import config

    action = ActionHTML(lambda action, value: None, html="<p>hi</p>")
    model = action.get_root(Document())
    assert model.bundle == hashlib.sha256(model.esm.encode("utf-8")).hexdigest()
    assert model.esm == ActionHTML._esm
    with config.set(autoreload=True):
        assert ActionHTML(lambda action, value: None).get_root(Document()).bundle is None


def test_the_page_keeps_one_copy_of_what_both_pages_do_in_the_browser():
    """Following the current tick, telling the host the height, following a group: frame.js alone has
    them; the light page imports it, the served app's components carry it composed in front."""
    assert 'from "./frame.js";' in (ROOT / "static" / "light.js").read_text(encoding="utf-8")
    for script in SCRIPTS:
        if script in (SHARED, ROOT / "static" / "embed.js"):  # embed.js is the host's end of the message
            continue
        code = script.read_text(encoding="utf-8")
        for copy in (
            'querySelectorAll(".follow-now")',
            "BroadcastChannel(`durable-work-explainer",  # a group's (python.js's election has its own)
            "durable-work-explainer:height",
        ):
            assert copy not in code, (script.name, copy)


def test_no_python_file_holds_a_component_s_code():
    for source in (ROOT / "app").rglob("*.py"):
        assert '_esm = """' not in source.read_text(encoding="utf-8"), source


def test_the_browser_code_declares_no_link_pattern_or_key_of_its_own():
    """The tick's and the group's patterns, the figures and the keys come from app.url.browser_table
    (the light page's manifest, the shortcuts' param): a second copy in a script could drift."""
    from app.url import FIGURES, GROUP_NAME, KEYS, MAX_TICK_DIGITS

    players_keys = [f'{k}: "{a}"' for k, a in KEYS.items()] + [f'"{k}": "{a}"' for k, a in KEYS.items()]
    copies = [
        f"{{1,{MAX_TICK_DIGITS}}}",
        GROUP_NAME.pattern,
        *players_keys,
        "[" + ", ".join(f'"{f}"' for f in FIGURES) + "]",
    ]
    for script in SCRIPTS:
        code = script.read_text(encoding="utf-8")
        for copy in copies:
            assert copy not in code, (script.name, copy)


def _node() -> str:
    node = shutil.which("node")
    assert node, "node is needed to check the browser code"
    return node


def test_the_browser_s_rules_pass_their_own_tests():
    """app/views/js/moves.js (a newer move wins, the pre-render's player and tour buttons, what waits for
    Python) under Node's test runner: tests/js/."""
    done = subprocess.run([_node(), "--test", str(ROOT / "tests" / "js")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_pre_render_s_player_moves_the_tick_as_python_s_does():
    """The light page steps its pre-render before Python is there; Python's player takes over from the
    tick it reached. Every action, from every tick, with ticks in and out of the run, must agree."""
    import json

    from app.state import ReaderState
    from app.url import browser_table

    state = ReaderState()
    last = state.end_tick
    cases = [(a, v, t) for a in ("first", "back", "forward", "last", "go", "toggle", "speed")
             for v in ("", "0", "3", str(last), "500", "-1", "2x") for t in range(last + 1)]  # fmt: skip
    script = (
        f'import {{ playerTick }} from "{(SHARED.parent / "moves.js").as_uri()}";\n'
        f"const tick = new RegExp({json.dumps(browser_table()['tick'])});\n"
        f"const cases = {json.dumps(cases)};\n"
        f"const moved = cases.map(([a, v, t]) => playerTick(a, v, t, {last}, (x) => tick.test(x)));\n"
        "console.log(JSON.stringify(moved));"
    )
    done = subprocess.run([_node(), "--input-type=module", "-e", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    browser = json.loads(done.stdout)
    for (action, value, tick), moved in zip(cases, browser, strict=True):
        state.tick = tick
        if moved is None:  # the pre-render leaves it to Python: a move Python makes is play, or nothing
            state.player_action(action, value)
            assert action in ("toggle", "speed") or state.tick == tick, (action, value, tick)
        else:
            assert state.player_action(action, value), (action, value, tick)
            assert state.tick == moved, (action, value, tick)


#: Links a reader, an article or an adversary may open the light page with: plain chapters and tour
#: steps, a chapter named by its switches, ticks in and out of the run, and names twice or unknown.
FIRST_LINKS = (
    "", "?tick=8", "?preset=superseded&tick=12", "?preset=main&tick=08", "?preset=main&tick=999999",
    "?preset=main&tick=-1", "?preset=main&tick=1e3", "?preset=nope", "?preset=main&preset=all-off",
    "?change=after-acceptance&tick=12", "?change=after-acceptance&fencing=off", "?fencing=off",
    "?preset=main&fencing=off", "?fencing=on", "?fencing=on&tick=3", "?tour=2", "?tour=0", "?tour=10",
    "?tour=2&tick=3", "?tour=02", "?tour=2&tour=3", "?present=1&preset=superseded&tick=4",
    "?embed=1&view=badges&tick=5", "?group=g1&preset=stale-owner", "?preset=records-lost&tick=12",
    "?preset=main&s1_reads=own-section", "?tick=8&tick=9", "?tour=9", "?tour=9&present=1",
)  # fmt: skip


def test_a_link_s_first_picture_is_the_one_python_draws_for_it():
    """Before Python, the light page paints a link from a pre-render it chooses by the link's words
    (moves.js's firstPicture); Python, taking over, draws the link itself. Where the browser chooses a
    pre-render, it must be the run and tick Python draws for that link, or the picture changes under the
    reader when Python is ready."""
    import json

    from app.light import LightPage
    from app.state import PRESETS
    from app.url import browser_table

    script = (
        f'import {{ firstPicture }} from "{(SHARED.parent / "moves.js").as_uri()}";\n'
        f"const table = {json.dumps(browser_table())};\n"
        f"const links = {json.dumps(FIRST_LINKS)};\n"
        f"const chapters = {json.dumps(list(PRESETS))};\n"
        "const first = links.map((l) => firstPicture(new URLSearchParams(l), table, chapters));\n"
        "console.log(JSON.stringify(first));"
    )
    done = subprocess.run([_node(), "--input-type=module", "-e", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    chosen = json.loads(done.stdout)

    def drawn(link: str) -> tuple:
        state = LightPage(link).state
        return (state.values(), state.schedule_overrides(), state.tour, state.tick)

    shown = 0
    for link, first in zip(FIRST_LINKS, chosen, strict=True):
        if first is None:
            continue  # left to Python: no first picture to disagree with
        shown += 1
        prerendered = LightPage(first["link"])
        if first["tick"] is not None:
            prerendered.act("go", str(first["tick"]))  # as the page steps its pre-render (clamped)
        state = prerendered.state
        assert drawn(link) == (state.values(), state.schedule_overrides(), state.tour, state.tick), link
    assert shown >= len(FIRST_LINKS) // 2, chosen  # most of these are pre-rendered
    for link in ("?tour=2", "?tour=9", "?tour=9&present=1", "?preset=records-lost&tick=12"):
        assert chosen[FIRST_LINKS.index(link)] is not None, link  # the first and the last step too
