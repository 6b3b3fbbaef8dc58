"""The page the dashboard gives the browser (a file only the person can read) takes the real Chromium to the
dashboard with a session: the launch code reaches the browser without standing on its command line."""

from __future__ import annotations

from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.integration.dashboard.test_server import fake_browser, started_browser
from tests.support.dashboard import Dashboard


def test_chromium_opens_the_launch_page_and_gets_a_session(browser, git_repo, tmp_path):
    """Chromium given the launch page's file:// address lands on the dashboard signed in; the page's code is spent."""
    recorder, record = fake_browser(tmp_path)
    with Dashboard(git_repo, session=False, browser=recorder) as dash:
        _, argv = started_browser(record)
        browser.get(argv[0])
        WebDriverWait(browser, 30).until(lambda d: "Project" in d.find_element(By.ID, "project").text)
        assert browser.current_url.startswith(f"http://127.0.0.1:{dash.port}/")
        assert browser.execute_script("return sessionStorage.getItem('autopilot-dashboard-session')")
        code = Path(argv[0].removeprefix("file://")).read_text().split("#code=")[1].split('"')[0]
        status, _, _ = dash.request("POST", "/api/session", {"code": code}, auth=False,
                                    headers={"Origin": f"http://127.0.0.1:{dash.port}"})  # fmt: skip
        assert status == 401  # spent by the browser
