"""The explainer's words, read from the Markdown files in ``content/``.

Each file is a set of ``## id`` sections. In a checkout the files sit beside ``app/``; in the wheel the
static build makes for Pyodide they are packaged inside ``app/content``.
"""

from __future__ import annotations

import json
import re
from functools import cache
from html import escape
from pathlib import Path

from markdown_it import MarkdownIt

_HERE = Path(__file__).resolve().parent
_PLACES = (_HERE.parent / "content", _HERE / "content")
_SECTION = re.compile(r"^## +(.+?)\s*$", re.M)  # a heading may be several words ("owner token")


def content_dir() -> Path:
    for place in _PLACES:
        if (place / "glossary.md").exists():
            return place
    raise FileNotFoundError(f"no content/ folder found in {', '.join(map(str, _PLACES))}")


@cache
def sections(name: str) -> dict[str, str]:
    """``{id: markdown}`` for content/<name>.md, in file order."""
    text = (content_dir() / f"{name}.md").read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    ids = parts[1::2]
    if twice := sorted({i for i in ids if ids.count(i) > 1}):  # the later would silently win
        raise ValueError(f"content/{name}.md has more than one section {', '.join(map(repr, twice))}")
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts), 2)}


def pairs(name: str, section: str) -> dict[str, str]:
    """The ``id: words`` lines of a section (a switch's values as the reader reads them, a row's short
    forms), as ``{id: words}``."""
    return dict(line.split(": ", 1) for line in text(name, section).splitlines() if ": " in line)


def text(name: str, section: str) -> str:
    try:
        return sections(name)[section]
    except KeyError:
        raise KeyError(f"content/{name}.md has no section '## {section}'") from None


@cache  # the same few hundred words, drawn again at every switch (the switches' own descriptions)
def markdown_html(markdown: str) -> str:
    """Markdown to HTML with the renderer Panel itself uses, so the app and the static build agree."""
    return _MARKDOWN.render(markdown)


_MARKDOWN = MarkdownIt("commonmark")


def glossary_html() -> str:
    """Every term of content/glossary.md, in file order."""
    terms = "".join(
        f"<dt>{escape(k)}</dt><dd>{markdown_html(v)}</dd>" for k, v in sections("glossary").items()
    )
    return f'<dl class="glossary">{terms}</dl>'


def caption_html(name: str, title: str | None = None) -> str:
    """A view's heading (content/headings.md) and its caption (content/captions.md, Markdown rendered)."""
    head = f"<h2>{escape(heading(title))}</h2>" if title else ""
    return f'{head}<div class="caption">{markdown_html(text("captions", name))}</div>'


def titles(name: str) -> dict[str, str]:
    """``{id: title}`` for a file whose sections start with a bold title (switches, invariants, presets)."""
    return {k: title_and_body(v)[0] for k, v in sections(name).items()}


def heading(section: str) -> str:
    """A title or section heading from content/headings.md."""
    return text("headings", section)


def engine_results() -> dict | None:
    """The recorded real-engine results (content/engine-results.json), or None if there are none."""
    path = content_dir() / "engine-results.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def title_and_body(markdown: str) -> tuple[str, str]:
    """Split '**Title.** rest' into ('Title', 'rest')."""
    match = re.match(r"\*\*(.+?)\.?\*\*\s*(.*)", markdown, re.S)
    return (match.group(1), match.group(2)) if match else ("", markdown)
