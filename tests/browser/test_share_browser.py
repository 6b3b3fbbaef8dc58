"""A teammate's packet in the dashboard of the machine that pulled it: labelled with who shared it, and from where."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.dashboard import Dashboard
from tests.support.share import team


def test_a_pulled_packet_is_shown_with_its_origin_in_packets_and_search(browser, tmp_path, screens):
    """On Bob's dashboard Ada's packet is listed and found by search, each saying it was shared by Ada."""
    _, a, b = team(tmp_path)
    a.ok("share", "push", a.packet("Make the zanzibar parser accept an empty header."))
    b.ok("share", "pull")
    with Dashboard(b.repo, env=b.env(), session=False) as dash:
        browser.get(dash.url)
        wait = WebDriverWait(browser, 30)
        wait.until(lambda d: "Project" in d.find_element(By.ID, "project").text)
        browser.find_element(By.ID, "tab-handover").click()
        wait.until(ec.text_to_be_present_in_element((By.ID, "packets"), "shared by Ada <a@example.com>"))
        row = browser.find_element(By.CSS_SELECTOR, "#packets tbody tr").text
        browser.save_screenshot(str(screens / "share-packets.png"))
        browser.find_element(By.ID, "tab-passive").click()
        browser.find_element(By.ID, "search-q").send_keys("zanzibar parser" + Keys.ENTER)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#search-result .search-result .shared"))
        shown = browser.find_element(By.ID, "search-result").text
        browser.save_screenshot(str(screens / "share-search.png"))
    assert "source not on this machine" in row and "zanzibar parser" in row
    assert "shared by Ada <a@example.com>" in shown and "unavailable" in shown
