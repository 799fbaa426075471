"""The static pages: the main trace pre-rendered by the model and the app's pure renderers, the embed,
the self-check, the engines and the explorer's results; the site's assets."""

from __future__ import annotations

import json
import platform
import shutil
from html import escape
from pathlib import Path

from app.content import caption_html, engine_results, heading, markdown_html, text
from app.light import LightPage
from app.palette import css_variables
from app.render.diagram import diagram_html
from app.render.engines import engines_html
from app.render.explore import headline_html, table_html
from app.render.lifecycles import lifecycles_html
from app.render.outcome import badges_html, outcome_html
from app.render.text import events_table_html
from app.shared import EXPLORED, write_explored
from model import Switches, run, trace_dict
from model.analyses import fingerprint, sweep, sweep_summary
from sitebuild.common import ROOT, page_title
from sitebuild.pyodide import PYODIDE_VERSION


def main_trace_parts() -> dict[str, str]:
    """The main trace, rendered by the model and the app's pure renderers (no Panel)."""

    result = run(Switches())
    trace, outcome = trace_dict(result), result.outcome().to_dict()
    end = trace["end_tick"]
    return {
        "intro": markdown_html(text("captions", "intro")),
        "preset": markdown_html(text("presets", "main")),
        "timeline_caption": caption_html("timeline"),
        "timeline": diagram_html(trace, end),
        "lifecycles_caption": caption_html("lifecycles"),
        "lifecycles": lifecycles_html(trace, end),
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
  {parts["timeline"]}
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


def light_body(compact: bool) -> str:
    """The light explainer (``app.light`` on the vendored Pyodide, painted by static/light.js), filled
    with the main chapter at t0 for a reader without JavaScript; with it, the parts stay hidden (a few
    seconds at most) until the chapter the link asks for is painted."""
    parts = LightPage("").parts()
    slot = lambda name: f'<div id="part-{name}" class="part">{parts[name]}</div>'  # noqa: E731
    full = (
        '<p class="full-app"><a href="app/explainer.html">The full explainer</a>: every view, the 864 '
        "runs, Compare and Explore (it loads Panel in your browser, about 30 MB).</p>"
    )
    return f"""
<script>document.documentElement.classList.add("js");
setTimeout(() => document.getElementById("light").classList.remove("pending"), 3000);</script>
<link rel="stylesheet" href="static/explainer.css">
<main id="light" class="light pending{" embed" if compact else ""}" data-tick="0">
<div id="light-status" class="status" role="status" aria-live="polite" hidden></div>
{slot("header")}{slot("player")}{slot("figure")}{slot("outcome")}
<details class="fold"><summary>{escape(heading("lifecycles"))}</summary>{slot("lifecycles")}</details>
<details class="fold"><summary>Switches</summary>{slot("switches")}</details>
{full}
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
        f"<main>{markdown_html(text('explore', 'findings'))}{table_html(data, 'app/explainer.html')}</main>"
    )


def selfcheck_expected() -> dict:

    return {**fingerprint(), "summary": sweep_summary(sweep()), "python": platform.python_version()}


def write_pages(site: Path) -> None:

    parts = main_trace_parts()
    (site / "index.html").write_text(page(page_title(), index_body(parts, compact=False)), encoding="utf-8")
    (site / "embed.html").write_text(page(page_title(), light_body(compact=True), "embed"), encoding="utf-8")
    (site / "light.html").write_text(page(page_title(), light_body(compact=False)), encoding="utf-8")
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
    for css in ("diagrams.css", "explainer.css"):  # the app's own styles, for the pictures and controls
        shutil.copy2(ROOT / "app" / css, site / "static" / css)

    (site / "static" / "palette.css").write_text(css_variables(), encoding="utf-8")
