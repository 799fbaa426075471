"""What a reader sees when things go wrong around the page: the server restarts under an open page."""

from __future__ import annotations

import html
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import serve, stop, wait_for

pytestmark = pytest.mark.browser


def _start(port: int | None = None):
    process, port, log = serve("app/explainer.py", "panel-serve-restart.log", port=port)
    url = f"http://127.0.0.1:{port}/explainer"
    wait_for(url)
    return process, url, port, log


def test_a_server_restart_is_said_in_words_and_the_reload_keeps_the_link(page):
    process, url, port, log = _start()
    try:
        page.goto(url + "?fencing=off&tick=9")
        expect(page.locator(".tick-now")).to_have_text("t9", timeout=60000)
        stop(process, log)
        notice = page.locator(".notyf__message", has_text="stopped answering")
        expect(notice).to_be_visible(timeout=15000)
        process, url, port, log = _start(port)
        page.get_by_role("button", name="Reload the page").click()
        expect(page.locator(".tick-now")).to_have_text("t9", timeout=60000)
        assert "fencing=off" in page.url
        page.locator("button.forward").click()
        expect(page.locator(".tick-now")).to_have_text("t10")
    finally:
        stop(process, log)


def _document_text(document) -> str:
    """Every text a served document's models carry (what a session was drawn with)."""
    values = (v for m in document.models for v in m.properties_with_values(include_defaults=False).values())
    return html.unescape(" ".join(v for v in values if isinstance(v, str)))  # panes' HTML comes escaped


def test_the_session_benchmark_opens_the_link_it_is_given(explainer_url):
    """benchmarks/session_memory.py --link: the query reaches the app as the session's arguments (glued to
    the session address, it made the client ask a path that is not the app's, and it never connected)."""
    from bokeh.client import pull_session

    import app.explainer  # noqa: F401  (the app's model types, to read the document)
    from benchmarks.session_memory import link_arguments

    assert link_arguments("?preset=pins-off&tick=5") == {"preset": "pins-off", "tick": "5"}

    def open_session() -> str:
        with pull_session(url=explainer_url, arguments=link_arguments("?fencing=of&tick=3")) as session:
            return _document_text(session.document)

    # In a thread of its own: Bokeh's client runs an event loop, and Playwright's may be running here.
    with ThreadPoolExecutor(1) as thread:
        drawn = thread.submit(open_session).result(timeout=120)
    assert "About this link:" in drawn and "'of' is not a value of fencing" in drawn


@pytest.mark.parametrize("size", [40_000, 100_000])
def test_a_link_far_too_long_gets_414_in_words_not_a_closed_connection(explainer_url, size):
    import urllib.error
    import urllib.request

    # (app.serving is not imported here: it lifts the process's integer-digit limit for the server.)
    query = f"?fencing={'o' * size}"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(explainer_url + query, timeout=30)
    assert refused.value.code == 414
    said = refused.value.read().decode()
    assert "too long" in said and f"({len('/explainer' + query):,} characters;" in said
    with urllib.request.urlopen(f"{explainer_url}?fencing=off", timeout=60) as page:
        assert page.status == 200


def test_with_several_processes_no_page_asks_anything_outside_the_server(browser):
    """``--num-procs 2``: a page's request and its websocket may reach different processes, and the one
    that answers the websocket made the document without the page's resource settings: 3 of 8 page loads
    fetched Panel's styles from its CDN. Every page load now asks only the server."""
    process, port, log = serve("app/explainer.py", "panel-serve-two-procs.log", more=("--num-procs", "2"))
    url = f"http://127.0.0.1:{port}/explainer"
    try:
        wait_for(url)
        outside: list[str] = []
        here = f"http://127.0.0.1:{port}/"

        def route(r) -> None:
            if r.request.url.startswith(here):
                r.continue_()
            else:
                outside.append(r.request.url)
                r.abort()

        for _ in range(10):
            page = browser.new_page()
            page.route("**/*", route)
            page.goto(url + "?tick=3")
            expect(page.locator(".tick-now")).to_have_text("t3", timeout=60000)
            page.close()
        assert outside == []
    finally:
        stop(process, log)
