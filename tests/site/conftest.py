"""The static site, built once per test session into a temporary folder, and served from localhost."""

from __future__ import annotations

import functools
import gzip
import http.server
import threading
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    import sitebuild

    return sitebuild.build(tmp_path_factory.mktemp("site") / "site")


def serve_folder(
    folder,
    served: list | None = None,
    hold=None,
    refuse: tuple[str, ...] = (),
    sent: list | None = None,
) -> tuple[http.server.ThreadingHTTPServer, int]:
    """A static server for ``folder`` on a free loopback port, in a thread; shut it down when done. Each
    request is added to ``served`` as (path, bytes of the file) if given; while ``hold`` (an Event) is
    not set, Pyodide's core (``pyodide.asm.wasm``) waits: Python cannot start; a path ending in one of
    ``refuse`` is not found. With ``sent`` (a list), text and WebAssembly are sent gzipped to a browser
    that accepts it, as common static hosts do, and each request is added to it as (path, bytes sent)."""
    handler = type(
        "Handler", (QuietHandler,), {"served": served, "hold": hold, "refuse": refuse, "sent": sent}
    )
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


@pytest.fixture(scope="session")
def site_url(site):
    server, port = serve_folder(site)
    yield f"http://127.0.0.1:{port}"
    server.shutdown()


@functools.lru_cache(maxsize=64)
def _gzip(path: Path, modified: int) -> bytes:
    """The file gzipped at the level hosts use (6), once a version of it."""
    return gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
    }

    served: list | None = None
    hold: threading.Event | None = None

    refuse: tuple[str, ...] = ()
    sent: list | None = None
    #: What a host compresses: text and WebAssembly; an archive (.gz, .zip, .whl) is compressed already.
    COMPRESSED = (".html", ".js", ".mjs", ".css", ".json", ".wasm", ".svg", ".txt", ".py")

    def do_GET(self):
        if self.refuse and self.path.split("?")[0].endswith(tuple(self.refuse)):  # a list may change
            self.send_error(404)
            return
        if self.hold is not None and self.path.split("?")[0].endswith("pyodide.asm.wasm"):
            self.hold.wait(timeout=120)
        path = Path(self.translate_path(self.path))
        try:
            if self.sent is None or not self._gzipped(path):
                super().do_GET()
                if self.sent is not None:
                    self.sent.append((self.path, path.stat().st_size if path.is_file() else 0))
        except ConnectionError:  # the browser went away mid-answer (a page closed): nothing to say
            return
        if self.served is not None:
            self.served.append((self.path, path.stat().st_size if path.is_file() else 0))

    def _gzipped(self, path: Path) -> bool:
        """Send ``path`` gzipped if it is text or WebAssembly and the browser accepts gzip; whether sent."""
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in self.COMPRESSED):
            return False
        body = _gzip(path, path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.sent.append((self.path, len(body)))
        return True

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
