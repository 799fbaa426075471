"""One small browser component for every group of controls: it shows HTML drawn by a renderer in
``app.render`` and sends back what the reader asked for.

A control says what it asks for with ``data-action`` and ``data-value``: a button when activated, an
``<input>`` when its value changes. One component for a whole group (all the switches, the player, the
badges) instead of one Panel widget per button keeps the page light: Panel gives every component its own
shadow root and model, and their number is what a page load costs.

When the HTML is redrawn, focus stays on the control with the same ``data-key`` (a Play button that
becomes Pause keeps focus), and a range input being dragged is not redrawn under the pointer.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path

import param
from panel.config import config
from panel.custom import JSComponent

JS = Path(__file__).with_name("js")  # the components' browser code, where a linter sees it
SHARED = JS / "frame.js"  # what every page does in the browser; static/light.js imports it too
IMPORT_BESIDE = re.compile(r'^import \{[^}]*\} from "\./([\w-]+\.js)";\n', re.M)  # a file beside it


def composed(name: str) -> str:
    """A component's module: the files it imports from beside it (frame.js, part.js), each once and before
    what imports it, then its own code without those imports. Panel loads a component's code as one
    module, which cannot import a file beside it; the light page's script can, so the shared code is one
    file for both."""
    texts: dict[str, str] = {}  # each file's code without its imports, in the order the module needs

    def add(file: str) -> None:
        own = (JS / file).read_text(encoding="utf-8")
        for imported in IMPORT_BESIDE.findall(own):
            if imported not in texts:
                add(imported)
        texts[file] = IMPORT_BESIDE.sub("", own)

    add(name)
    return "\n".join(texts.values())


class PlainModule(JSComponent):
    """A component whose browser code is plain JavaScript, given to the browser as it is.

    Panel runs every component's module through a TypeScript and JSX compiler in the browser unless it
    is marked as a bundle. The explainer's modules are plain JavaScript, so they are marked as one, named
    by their text: the reader's page loads about 40 ms sooner (`benchmarks/app_bench.py`). Not under
    ``--autoreload``, where Panel sends an edited module under the name the browser already has."""

    __abstract = True

    def _get_properties(self, doc):
        props = super()._get_properties(doc)
        if props.get("bundle") is None and props.get("esm") and not config.autoreload:
            props["bundle"] = hashlib.sha256(props["esm"].encode("utf-8")).hexdigest()
        return props


class ActionHTML(PlainModule):
    html = param.String(default="", doc="The markup to show, from one of app.render's renderers.")

    _esm = composed("action_html.js")

    def __init__(self, on_action: Callable[[str, str], None], **params):
        super().__init__(**params)
        self._on_action = on_action

    def _handle_msg(self, msg) -> None:
        # Whatever the browser sends is checked by the receiver against what it allows; odd input is dropped.
        if isinstance(msg, dict) and isinstance(msg.get("action"), str) and isinstance(msg.get("value"), str):
            self._on_action(msg["action"], msg["value"][:200])
