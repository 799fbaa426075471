"""No client can fill the server's log (app/serving.py): whatever a websocket sends, a line of the log is
a few hundred characters at most, a traceback's lines too, and a page that leaves mid-message is no
warning."""

from __future__ import annotations

import io
import logging

import pytest

from app import serving


@pytest.fixture
def logged():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logging.getLogger().addHandler(handler)
    yield stream
    logging.getLogger().removeHandler(handler)


def test_a_huge_message_is_logged_as_one_short_line(logged):
    assert logging.getLogRecordFactory() is serving.short_record
    logging.getLogger("bokeh.server.views.ws").error(
        "Unhandled exception receiving a message: %r", "x" * 10**6
    )
    lines = logged.getvalue().splitlines()
    assert len(lines) == 1 and len(lines[0]) < serving.LOG_LINE + 40 and "1,000,0" in lines[0]


def test_a_traceback_keeps_its_lines_each_short(logged):
    try:
        raise ValueError("y" * 5000)
    except ValueError:
        logging.getLogger("bokeh.server.views.ws").exception("Handler or its work threw an exception")
    lines = logged.getvalue().splitlines()
    assert lines[0] == "Handler or its work threw an exception" and "Traceback" in lines[1]
    assert max(map(len, lines)) < serving.LOG_LINE + 40 and lines[-1].startswith("ValueError: yyy")


def test_a_page_that_leaves_mid_message_is_no_warning(logged):
    logging.getLogger("bokeh.server.views.ws").warning("Failed sending message as connection was closed")
    logging.getLogger("bokeh.server.views.ws").warning("Something else")
    assert logged.getvalue().splitlines() == ["Something else"]
