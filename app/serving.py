"""Run by ``panel serve --setup app/serving.py`` before the server starts: what the server sends besides
the page.

Every response carries ``Content-Security-Policy: frame-ancestors 'self' …``, so only this server's own
pages and the hosts named in the environment variable ``EXPLAINER_FRAME_ANCESTORS`` (space-separated
origins, e.g. the article's ``https://example.org``) may put the explainer in a frame. A page elsewhere
that frames it gets nothing.
"""

from __future__ import annotations

import os
import re

from tornado.web import RequestHandler

ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:\d{1,5})?")


def frame_ancestors(setting: str | None) -> str:
    """The CSP directive for ``setting``; a value that is not a list of origins is refused, not guessed."""
    origins = (setting or "").split()
    bad = [o for o in origins if not ORIGIN.fullmatch(o)]
    if bad:
        example = "https://example.org"
        raise SystemExit(f"EXPLAINER_FRAME_ANCESTORS takes origins like {example}; got {bad[0][:60]!r}")
    return " ".join(["frame-ancestors", "'self'", *origins])


POLICY = frame_ancestors(os.environ.get("EXPLAINER_FRAME_ANCESTORS"))
_set_default_headers = RequestHandler.set_default_headers


def _with_policy(self: RequestHandler) -> None:
    _set_default_headers(self)
    self.set_header("Content-Security-Policy", POLICY)


RequestHandler.set_default_headers = _with_policy
