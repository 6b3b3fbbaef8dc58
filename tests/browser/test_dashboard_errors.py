"""An API error in a real browser: the panel that asked shows the error and its hint, never a blank."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.dashboard import Dashboard


def test_a_500_from_search_shows_its_error_and_hint_in_passive_memory(browser, git_repo, isolated_homes, screens):
    """With the evidence index unusable (a file where its folder goes) /api/search answers 500: Passive memory says
    what failed, why and what to do, and so does the status line."""
    index = isolated_homes / "autopilot" / "handoff" / "index"
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_text("not a folder")
    with Dashboard(git_repo, session=False) as dash:
        browser.get(dash.url)
        wait = WebDriverWait(browser, 30)
        wait.until(lambda d: "Project" in d.find_element(By.ID, "project").text)
        browser.find_element(By.ID, "tab-passive").click()
        browser.find_element(By.ID, "search-q").send_keys("parse_header" + Keys.ENTER)
        alert = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#search-result [role=alert]"))
        text = alert.text
        assert text.startswith("The search for “parse_header” could not be loaded: internal error: FileExistsError")
        assert "crash.log" in text and "codex-bridge doctor" in text  # the hint
        assert browser.find_element(By.ID, "status").text == text
        browser.save_screenshot(str(screens / "5c-passive-memory-error.png"))


def test_every_panel_shows_its_own_error_when_the_session_is_gone(browser, git_repo, screens):
    """When every API call is refused (the session ended: 401), each panel that asked says so in its place."""
    with Dashboard(git_repo, session=False) as dash:
        browser.get(dash.url)
        wait = WebDriverWait(browser, 30)
        wait.until(lambda d: "Project" in d.find_element(By.ID, "project").text)
        browser.execute_script("sessionStorage.setItem('autopilot-dashboard-session', 'forged'); refresh()")
        for where in ("#runs tbody", "#packets tbody", "#active", "#archive", "#rules tbody"):
            cell = wait.until(lambda d, w=where: d.find_element(By.CSS_SELECTOR, f"{w} [role=alert]"))
            assert "could not be loaded" in cell.get_attribute("textContent")
        browser.find_element(By.ID, "tab-durable").click()
        browser.save_screenshot(str(screens / "8b-durable-error.png"))
