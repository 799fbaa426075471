"""What a reader sees when things go wrong around the page: the server restarts under an open page."""

from __future__ import annotations

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
