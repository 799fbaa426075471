"""The static pages: the main trace pre-rendered by the model and the app's pure renderers, the embed,
the self-check, the engines and the explorer's results; the site's assets."""

from __future__ import annotations

import json
import platform
import shutil
from html import escape
from pathlib import Path

from app.content import caption_html, engine_results, heading, markdown_html, sections, text
from app.light import LightPage
from app.palette import css_variables
from app.render.engines import engines_html
from app.render.explore import headline_html, table_html, wider_form_html
from app.shared import EXPLORED, write_explored
from app.views.action_html import SHARED
from model.analyses import fingerprint, sweep, sweep_summary
from sitebuild.common import ROOT, page_title
from sitebuild.pyodide import PYODIDE_VERSION

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


#: Which figure (``?view=``) shows a part; the player is in every figure. Without ``view`` the page
#: shows every part but the full badges (the player's line of badges says the same).
SHOWN_IN = {
    "header": "",
    "tour": "",
    "player": "timeline lifecycles badges",
    "lead": "",
    "figure": "timeline",
    "badges": "badges",
    "outcome": "",
}


def light_body(compact: bool) -> str:
    """The light explainer (``app.light`` on the vendored Pyodide, painted by static/light.js), filled
    with the main chapter at t0 for a reader without JavaScript; with it, the parts stay hidden (a few
    seconds at most) until the chapter the link asks for is painted. One lesson per screen: the title,
    what the page is in one sentence (not in the embed, ``compact``), the chapters, the player, the lead,
    the diagram and the badges; everything else folded under it."""
    parts = LightPage("").parts()

    def slot(name: str) -> str:
        return f'<div id="part-{name}" class="part" data-in="{SHOWN_IN[name]}">{parts[name]}</div>'

    def fold(title: str, name: str, shown_in: str = "") -> str:
        return (
            f'<details class="fold" data-in="{shown_in}"><summary>{escape(title)}</summary>'
            f'<div id="part-{name}" class="part">{parts[name]}</div></details>'
        )

    intro = "" if compact else f'<div class="intro lede">{markdown_html(text("captions", "intro"))}</div>'
    class_note = " ".join(sections("classroom")["needs the server"].split())
    class_home = markdown_html(text("classroom", "where class mode lives"))
    more = (
        ""
        if compact
        else '<nav class="more-pages">More: <a href="app/explainer.html">the full explainer</a> (every view, '
        "the 864 runs, Compare and Explore; it loads Panel in your browser, about 30 MB) · "
        '<a href="selfcheck.html">the model in your browser</a> · <a href="engines.html">real engines</a> · '
        '<a href="explore.html">beyond the one schedule</a></nav>'
        f'<div class="more-pages class-home">{class_home}</div>'
    )
    return f"""
<script>document.documentElement.classList.add("js");
setTimeout(() => document.getElementById("light").classList.remove("pending"), 3000);</script>
<link rel="stylesheet" href="static/explainer.css">
<main id="light" class="light pending{" embed" if compact else ""}" data-tick="0"
 data-class-note="{escape(class_note)}">
<div id="light-status" class="status" role="status" aria-live="polite" data-in="timeline lifecycles badges"
 hidden></div>
<script>/* A class's join link on this site is answered at once, in a student's words (static/light.js keeps
it): before anything else loads. */
if (/[?&](join|class)=/.test(location.search)) {{
  const said = document.getElementById("light-status");
  const note = document.getElementById("light").dataset.classNote;
  Object.assign(said, {{ textContent: note, title: note, className: "status stalled class-note" }});
  said.hidden = false;
}}</script>
{slot("header")}{intro}{slot("tour")}{slot("player")}{slot("lead")}{slot("figure")}{slot("badges")}
{slot("outcome")}
<div id="part-legend" class="part" data-in="">{parts["legend"]}</div>
{fold(heading("lifecycles"), "lifecycles", "lifecycles")}
{fold(heading("records"), "records")}
{fold("Switches", "switches")}
<details class="fold embed-code" data-in=""><summary>{escape(heading("embed-code"))}</summary>
<div class="intro">{markdown_html(text("captions", "embed-code"))}</div>
<textarea readonly rows="4" aria-label="{escape(heading("embed-code"))}"></textarea>
<p><button type="button" class="copy-embed">Copy embed code</button></p></details>
{more}
</main>
<script type="module" src="static/light.js"></script>
"""


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
        f"<main>{markdown_html(text('explore', 'findings'))}{wider_form_html()}"
        f"{table_html(data, 'index.html')}</main>"
        '<script type="module" src="static/explore.js"></script>'
    )


def selfcheck_expected() -> dict:

    rows = sweep()
    return {**fingerprint(rows), "summary": sweep_summary(rows), "python": platform.python_version()}


def write_pages(site: Path) -> None:

    (site / "index.html").write_text(page(page_title(), light_body(compact=False)), encoding="utf-8")
    (site / "embed.html").write_text(page(page_title(), light_body(compact=True), "embed"), encoding="utf-8")
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
    shutil.copy2(SHARED, site / "static" / SHARED.name)  # what the light page shares with the served app
    shutil.copy2(SHARED.parent / "moves.js", site / "static" / "moves.js")  # the light page's rules of moves
    shutil.copy2(SHARED.parent / "core_data.js", site / "static" / "core_data.js")  # the snapshot made whole
    for css in ("diagrams.css", "explainer.css"):  # the app's own styles, for the pictures and controls
        shutil.copy2(ROOT / "app" / css, site / "static" / css)

    (site / "static" / "palette.css").write_text(css_variables(), encoding="utf-8")
