"""Every view readable (issue 35), in a real browser: the Compare table fits its column at a laptop's and
a phone's width, scrolling inside its own box rather than past the page's edge; every control a finger
meets on a phone is at least 24 px tall."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SMALL_TARGETS
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1280, 390])
def test_the_compare_table_stays_within_the_page(explainer, width):
    page = explainer.page
    page.set_viewport_size({"width": width, "height": 800})
    explainer.open("?preset=all-off&tab=compare")
    table = page.locator("table.compare")
    expect(table).to_be_visible(timeout=20000)
    box = page.locator(".compare-view .scroll").first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    expect(page.locator(".compare-view")).to_contain_text("newsletter rule is the latest finished digest")
    ARTIFACTS.mkdir(exist_ok=True)
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"compare-all-off-{width}.png"), full_page=True)


def test_every_control_on_a_phone_is_at_least_24_px_tall(explainer):
    page = explainer.page
    page.set_viewport_size({"width": 390, "height": 800})
    explainer.open("?preset=main&tick=8")
    page.locator(".moment-mark").first.wait_for()
    assert page.evaluate(SMALL_TARGETS) == []
