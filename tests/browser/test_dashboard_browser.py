"""The dashboard in a real browser: open it with its launch code, see a run and its chart, hand over, decide a rule."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from autopilot.scripted.responses_server import reply_json
from tests.support.claude_rows import Transcript
from tests.support.dashboard import Dashboard, record_checkpoint
from tests.support.durable import PASSPHRASE, approved, person, propose
from tests.support.handoff_env import claude_session, work_session
from tests.support.loop import continue_to, state_of

RECEIVER = "01a2ffff-0000-7000-8000-000000000001"
FINDINGS = {
    "decision": "request_changes",
    "summary": "feature.py needs a docstring",
    "issues": [{"severity": "major", "file": "feature.py", "line": 1, "message": "add a docstring"}],
}


@pytest.fixture
def project(planned, openai_env, bridge):
    """A running run with a plan, a review with findings and a verdict (three calls), and a Claude session."""
    (planned / "parser.py").write_text("def parse(s):\n    return s\n")
    (planned / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(FINDINGS, {"input_tokens": 5200, "cached_tokens": 1200, "output_tokens": 900}))
    assert bridge("-C", str(planned), "review")[0] == 0
    openai_env.push(reply_json(continue_to("T2"), {"input_tokens": 2600, "output_tokens": 300}))
    assert bridge("-C", str(planned), "verdict", "--last-message", "feature added")[0] == 0
    claude_session(work_session(Transcript()), planned)
    return planned


@pytest.fixture
def page(browser, project):
    """The dashboard opened in the browser with its launch code (the test trades a new code for its own session)."""
    with Dashboard(project, session=False) as dash:
        browser.get(dash.url)
        wait(browser).until(lambda d: "Project" in d.find_element(By.ID, "project").text)
        dash.token = dash.exchange(dash.new_code())
        yield browser, dash


def wait(driver, seconds: float = 30) -> WebDriverWait:
    return WebDriverWait(driver, seconds)


def text_in(driver, element_id: str, text: str) -> None:
    wait(driver).until(ec.text_to_be_present_in_element((By.ID, element_id), text))


def open_run(driver) -> None:
    wait(driver).until(ec.element_to_be_clickable((By.CSS_SELECTOR, "#runs button.open-run"))).click()
    wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#run-chart svg rect.bar")) == 3)


def test_the_launch_code_leaves_the_address_and_no_cookie_is_set(page):
    """After opening the address the code is gone from the address bar, the browser holds no cookie, and the session
    lives in this tab's sessionStorage (per origin: this port only)."""
    driver, dash = page
    assert driver.current_url == f"http://127.0.0.1:{dash.port}/#autopilot"
    assert driver.get_cookies() == [] and driver.execute_script("return document.cookie") == ""
    assert len(driver.execute_script("return sessionStorage.getItem('autopilot-dashboard-session')")) == 43


def test_a_run_its_findings_and_its_chart(page, screens):
    """The Autopilot view lists the run; opened, it shows the task's criteria, the findings and one bar per call."""
    driver, _ = page
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#runs tbody"), "Add a feature with a test"))
    open_run(driver)
    text_in(driver, "run-task", "T2: Test it (2 of 2)")
    assert driver.find_element(By.ID, "run-criteria").text == "test passes"
    assert "add a docstring" in driver.find_element(By.ID, "run-findings").text
    assert "continue" in driver.find_element(By.ID, "run-verdict").text
    assert driver.find_elements(By.CSS_SELECTOR, "#run-chart svg polyline.line")
    facts = driver.find_element(By.ID, "run-facts").text
    assert "Forecast" in facts and "by iteration 20" in facts
    assert "Codex limits\nnone recorded in the last week" in facts
    driver.save_screenshot(str(screens / "1-autopilot.png"))
    driver.execute_script("document.getElementById('run-chart-figure').scrollIntoView()")
    driver.save_screenshot(str(screens / "1-autopilot-chart.png"))
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
    )
    driver.save_screenshot(str(screens / "1-autopilot-chart-dark.png"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_stop_and_resume_buttons(page, bridge, project):
    """Stop from the page does what /codex-stop does; Resume is offered only for a resumable run."""
    driver, _ = page
    open_run(driver)
    assert driver.find_element(By.ID, "run-resume").get_attribute("disabled") is not None
    driver.find_element(By.ID, "stop-reason").send_keys("lunch")
    driver.find_element(By.ID, "run-stop").click()
    text_in(driver, "status", "Stopped")
    assert (state_of(bridge, project)["status"], state_of(bridge, project)["stop_reason"]) == ("idle", "lunch")


def test_export_inspect_and_import_into_a_chosen_session(page, screens, isolated_homes):
    """Choose a session, preview, export, inspect (evidence links, drift) and import into a session typed in."""
    driver, _ = page
    driver.find_element(By.ID, "tab-handover").click()
    assert driver.find_element(By.ID, "export-go").get_attribute("disabled") is not None  # nothing chosen for you
    text_in(driver, "src-note", "in this worktree")  # listed when the tab first opened
    driver.find_element(By.ID, "src-refresh").click()  # and again when asked
    text_in(driver, "status", "")
    wait(driver).until(lambda d: "Reading" not in d.find_element(By.ID, "status").text)
    radio = wait(driver).until(ec.element_to_be_clickable((By.CSS_SELECTOR, "#sources input[type=radio]")))
    assert not radio.is_selected()
    radio.click()
    text_in(driver, "chosen-session", Transcript().session)
    driver.find_element(By.ID, "export-preview").click()
    text_in(driver, "status", "nothing was written")
    assert not (isolated_homes / "autopilot" / "handoff" / "packets").exists()
    driver.save_screenshot(str(screens / "2-handover-preview.png"))
    driver.find_element(By.ID, "export-go").click()
    text_in(driver, "inspect-body", "verified")
    body = driver.find_element(By.ID, "inspect-body").text
    assert "Make the parser accept empty input." in body and "Drift now" in body
    driver.find_element(By.CSS_SELECTOR, "#inspect-body details summary").click()
    assert driver.find_elements(By.CSS_SELECTOR, "#inspect-body tr#ev-E1")
    driver.save_screenshot(str(screens / "3-handover-inspect.png"))
    Select(driver.find_element(By.ID, "import-to")).select_by_value("codex")
    driver.find_element(By.ID, "import-go").click()
    text_in(driver, "status", "Choose the receiving session first")
    driver.find_element(By.ID, "import-session").send_keys(RECEIVER)
    driver.find_element(By.ID, "import-go").click()
    text_in(driver, "status", f"receiving session {RECEIVER} is not one of codex's saved sessions")
    driver.find_element(By.ID, "import-new").click()  # the person says the session will be new
    driver.find_element(By.ID, "import-go").click()
    text_in(driver, "status", f"Imported into codex session {RECEIVER}")
    assert driver.find_element(By.ID, "import-context").text.startswith("# Handoff packet sha256:")
    assert (isolated_homes / "autopilot" / "handoff" / "imports" / f"codex-{RECEIVER}.jsonl").is_file()
    driver.execute_script("document.getElementById('import-box').scrollIntoView()")
    driver.save_screenshot(str(screens / "4-handover-import.png"))


def test_search_finds_the_exported_evidence(page, screens, project):
    """After an export, a search shows the packet's evidence with its freshness and pointer."""
    driver, dash = page
    status, written = dash.post("/api/export", {"agent": "claude", "session": Transcript().session, "to": "codex"})
    assert status == 200
    driver.find_element(By.ID, "tab-passive").click()
    driver.find_element(By.ID, "search-q").send_keys("parse_header" + Keys.ENTER)
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#search-result .search-result"))
    shown = driver.find_element(By.ID, "search-result").text
    assert "I think the crash is probably in parse_header." in shown and written["packet"][:19] in shown
    driver.save_screenshot(str(screens / "5-passive-memory.png"))


def test_active_memory_shows_a_sessions_checkpoint(page, screens, bridge, project):
    """A session's checkpoint appears with its objective, next action and unresolved work."""
    driver, _ = page
    record_checkpoint(bridge, project, Transcript().session)
    driver.find_element(By.ID, "tab-active").click()
    driver.execute_script("refresh()")
    text_in(driver, "active", "add a regression test for empty input")
    assert "parse('') still raises" in driver.find_element(By.ID, "active").text
    driver.save_screenshot(str(screens / "6-active-memory.png"))


def propose_and_open_approval(driver, rule: str, name: str) -> None:
    """Propose ``rule`` in the Durable memory view, give the person's name and open the approval dialog."""
    driver.find_element(By.ID, "tab-durable").click()
    driver.find_element(By.ID, "propose-text").send_keys(rule)
    driver.find_element(By.CSS_SELECTOR, "#propose-form button[type=submit]").click()
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#rules button.approve"))
    driver.find_element(By.ID, "person").clear()
    driver.find_element(By.ID, "person").send_keys(name)
    driver.find_element(By.CSS_SELECTOR, "#rules button.approve").click()


def test_approve_then_revoke_a_rule(page, screens):
    """The person proposes a rule, approves it with their passphrase, then revokes it with a reason."""
    driver, _ = page
    person()
    propose_and_open_approval(driver, "Never change the public API of parse().", "Ada Lovelace")
    assert driver.find_element(By.ID, "confirm-secret").get_attribute("type") == "password"
    driver.find_element(By.ID, "confirm-secret").send_keys(PASSPHRASE)
    driver.save_screenshot(str(screens / "7-durable-confirm.png"))
    driver.find_element(By.ID, "confirm-ok").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#rules tbody"), "approved by Ada Lovelace"))
    driver.save_screenshot(str(screens / "8-durable-approved.png"))
    driver.find_element(By.CSS_SELECTOR, "#rules button.revoke").click()
    driver.find_element(By.ID, "confirm-secret").send_keys(PASSPHRASE)
    driver.find_element(By.ID, "confirm-reason").send_keys("superseded by the v2 API")
    driver.find_element(By.ID, "confirm-ok").click()
    wait(driver).until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "#rules tbody"), "revoked by Ada Lovelace"))
    assert "superseded by the v2 API" in driver.find_element(By.CSS_SELECTOR, "#rules tbody").text
    driver.save_screenshot(str(screens / "9-durable-revoked.png"))


def test_a_wrong_passphrase_decides_nothing(page):
    """A wrong passphrase in the dialog is refused and the rule stays a candidate."""
    driver, _ = page
    person()
    propose_and_open_approval(driver, "Keep commits small.", "Mallory")
    driver.find_element(By.ID, "confirm-secret").send_keys("a guess at the passphrase")
    driver.find_element(By.ID, "confirm-ok").click()
    text_in(driver, "status", "not the approval passphrase")
    assert "candidate" in driver.find_element(By.CSS_SELECTOR, "#rules tbody").text


def test_the_dialog_shows_the_text_as_stored_and_announces_a_supersession(page, screens, project):
    """Approving a successor whose text hides a bidi override: the dialog names the rule it supersedes first and
    shows the override as its code."""
    driver, _ = page
    person()
    old = approved("Use black for formatting.", project)
    new = propose("Use ruff format.\u202e.kcab ti ekam", project, supersedes=old)
    driver.find_element(By.ID, "tab-durable").click()
    driver.execute_script("refresh()")
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"tr[data-rule='{new}'] button.approve"))
    driver.find_element(By.ID, "person").send_keys("Ada")
    driver.find_element(By.CSS_SELECTOR, f"tr[data-rule='{new}'] button.approve").click()
    notice = driver.find_element(By.ID, "confirm-supersedes")
    assert notice.is_displayed() and f"supersedes {old}" in notice.text and "Use black for formatting." in notice.text
    assert driver.find_element(By.ID, "confirm-text").text == "Use ruff format.\\u202e.kcab ti ekam"
    driver.save_screenshot(str(screens / "7b-durable-supersedes.png"))
    driver.find_element(By.ID, "confirm-cancel").click()


def test_a_used_launch_code_opens_nothing(browser, project):
    """Opening an address whose code was already used shows why, and no view loads."""
    with Dashboard(project) as dash:  # the helper already traded the printed code
        browser.get(dash.url)
        text_in(browser, "status", "already used")
        assert browser.find_element(By.ID, "project").text == "No dashboard session"


def test_the_views_are_reachable_by_keyboard(page):
    """Arrow keys move between the views' tabs and show each panel."""
    driver, _ = page
    driver.find_element(By.ID, "tab-autopilot").send_keys(Keys.ARROW_RIGHT)
    assert driver.switch_to.active_element.get_attribute("id") == "tab-handover"
    assert driver.find_element(By.ID, "panel-handover").is_displayed()
    assert not driver.find_element(By.ID, "panel-autopilot").is_displayed()


def test_search_shows_a_conflict_with_the_later_outcome_standing(browser, bridge, git_repo, screens):
    """Claude's fix and passing run, then Codex's failing run: the page shows both, the pass marked superseded."""
    from tests.support.search_project import MANIFEST, export, headers_repo, write

    repo = headers_repo(git_repo)
    export(bridge, "claude-fix", repo)
    write(repo, MANIFEST["files"]["afterCodexRegress"])
    export(bridge, "codex-regress", repo)
    with Dashboard(repo, session=False) as dash:
        browser.get(dash.url)
        wait(browser).until(lambda d: "Project" in d.find_element(By.ID, "project").text)
        browser.find_element(By.ID, "tab-passive").click()
        browser.find_element(By.ID, "search-q").send_keys("parse_header" + Keys.ENTER)
        wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#search-result .search-result"))
        shown = browser.find_element(By.ID, "search-result").text
        browser.save_screenshot(str(screens / "5-passive-memory-conflict.png"))
    assert "conflicting outcomes" in shown and "(the last one stands)" in shown
    assert "superseded by #" in shown and "Fixed parse_header" in shown  # the earlier claim stays, marked


def test_the_handover_tab_lists_sessions_when_it_first_opens(page):
    """Opening the Handover tab lists this project's sessions without pressing "Refresh sources"."""
    driver, _ = page
    driver.find_element(By.ID, "tab-handover").click()
    radio = wait(driver).until(ec.presence_of_element_located((By.CSS_SELECTOR, "#sources input[type=radio]")))
    assert radio.get_attribute("value") == Transcript().session and not radio.is_selected()


def test_the_readiness_panel_shows_what_doctor_says_with_each_fix(page, screens, bridge, project):
    """The Autopilot view opens with doctor's checks; a failing one shows the command that fixes it."""
    driver, _ = page
    _, out, _ = bridge("doctor", "--json", cwd=project)
    import json

    doctor = json.loads(out)
    text_in(driver, "readiness-body", doctor["checks"][0]["name"])
    shown = " ".join(driver.find_element(By.ID, "readiness-body").text.split())  # the page collapses spaces
    for c in doctor["checks"]:
        assert c["name"] in shown and (not c["fix"] or c["status"] == "ok" or " ".join(c["fix"].split()) in shown)
    driver.save_screenshot(str(screens / "0-readiness.png"))


def test_recover_on_a_degraded_session(page, screens, bridge, project):
    """A session whose hooks never ran is degraded; its Recover button rebuilds it from the transcript."""
    driver, _ = page
    record_checkpoint(bridge, project, Transcript().session)
    driver.find_element(By.ID, "tab-active").click()
    driver.execute_script("refresh()")
    button = wait(driver).until(ec.element_to_be_clickable((By.CSS_SELECTOR, "#active button.recover")))
    button.click()
    text_in(driver, "status", "observation(s) the hooks missed")
    text_in(driver, "active", "rebuilt from the transcript")
    driver.save_screenshot(str(screens / "6b-active-recovered.png"))


def test_the_archive_is_listed_and_searched(page, bridge, project):
    """Packets `handoff prune` moved are listed in the passive view and found with "search the archive"."""
    driver, dash = page
    status, written = dash.post("/api/export", {"agent": "claude", "session": Transcript().session, "to": "codex"})
    assert status == 200
    assert bridge("handoff", "prune", "--older-than", "0", cwd=project)[0] == 0
    driver.find_element(By.ID, "tab-passive").click()
    driver.execute_script("refresh()")
    text_in(driver, "archive", written["packet"][:19])
    driver.find_element(By.ID, "search-archived").click()
    driver.find_element(By.ID, "search-q").send_keys("parse_header" + Keys.ENTER)
    wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#search-result .search-result"))
    assert written["packet"][:19] in driver.find_element(By.ID, "search-result").text
