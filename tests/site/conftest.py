"""The static site, built once per test session into a temporary folder, and served from localhost."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    import build

    return build.build(tmp_path_factory.mktemp("site") / "site")


@pytest.fixture(scope="session")
def site_url(site):
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
    }

    def log_message(self, *args):
        pass


@pytest.fixture
def offline_page(page, site_url):
    """A page that may fetch only from the local site: every other request is aborted and listed."""
    outside: list[str] = []

    def route(r):
        if r.request.url.startswith(site_url):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.outside_requests = outside
    return page


NODE_SCRIPT = ROOT / "tests" / "site" / "pyodide_model.mjs"
