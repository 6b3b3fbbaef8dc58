"""Headless Chromium (Debian's chromium and chromium-driver) driven by Selenium; nothing is downloaded at run time."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from tests.integration.conftest import openai_env, planned, server  # noqa: F401  (the runs the pages show)

CHROMIUM = os.environ.get("AUTOPILOT_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("AUTOPILOT_CHROMEDRIVER", "/usr/bin/chromedriver")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium per module, with the system browser and driver (fails, never skips, without them).

    It starts before any test has a home of its own, so it gets one: its profile, config and cache (crash
    reports, dconf) stay in the test's tmp dir, never in a home.
    """
    for binary in (CHROMIUM, CHROMEDRIVER):
        assert shutil.which(binary), f"{binary} is missing: apt-get install chromium chromium-driver (.ci/run does)"
    home = tmp_path_factory.mktemp("chromium-home")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    opts.add_argument("--window-size=1400,1100")
    opts.add_argument(f"--user-data-dir={home / 'profile'}")
    env = {**os.environ, "HOME": str(home)}
    env.update(XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"))
    driver = webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER, env=env))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture
def screens(tmp_path):
    """Where screenshots go: $AUTOPILOT_SCREENSHOTS when set (to look at them), else the test's tmp dir."""
    folder = Path(os.environ.get("AUTOPILOT_SCREENSHOTS") or tmp_path / "screens")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
