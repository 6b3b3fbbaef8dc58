"""The Handover view switched to Codex, in a real browser: it lists Codex's sessions at once, each field in words.

The project has a Claude Code session and two Codex rollouts, one of them a thread the autopilot's reviewer used
(recorded in a run's ``codex-thread-usage.json``); no codex binary answers, so the local rollouts are read.
"""

from __future__ import annotations

import json
import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.support.claude_rows import Transcript
from tests.support.codex_home import rollout, thread
from tests.support.dashboard import Dashboard
from tests.support.handoff_env import claude_session, codex_lines, codex_rollout, thread_of, work_session

UTC = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$")


@pytest.fixture
def board(browser, git_repo, isolated_homes, tmp_path):
    """The dashboard on a project with a Claude session, the person's Codex thread and a reviewer thread."""
    claude_session(work_session(Transcript()), git_repo)
    codex_rollout("exec_plain", git_repo)
    rollout(thread(7), git_repo)  # the reviewer's
    run = isolated_homes / "autopilot" / "runs" / "repo-000000000000"
    run.mkdir(parents=True)
    (run / "codex-thread-usage.json").write_text(json.dumps({thread(7): {"input": 1, "cached": 0, "output": 1}}))
    with Dashboard(git_repo, env={"AUTOPILOT_CODEX_BIN": str(tmp_path / "no-codex")}, session=False) as dash:
        browser.get(dash.url)
        WebDriverWait(browser, 30).until(lambda d: "Project" in d.find_element(By.ID, "project").text)
        yield browser, dash


def rows(driver) -> list[list[str]]:
    """The sources table's cells as shown, read at once (the table is redrawn as answers come)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#sources tbody tr')]"
        ".map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()))"
    )


def test_switching_to_codex_lists_codex_sessions_at_once_in_words(board, screens):
    """Choosing Codex replaces the Claude rows without "Refresh sources": the person's thread with a UTC time, its
    size, "untitled" and its latest prompt; the reviewer's thread hidden and counted; each gap with its detail."""
    driver, _ = board
    driver.find_element(By.ID, "tab-handover").click()
    wait = WebDriverWait(driver, 30)
    wait.until(lambda d: any(Transcript().session in " ".join(r) for r in rows(d)))
    Select(driver.find_element(By.ID, "src-agent")).select_by_value("codex")
    person = thread_of(codex_lines("exec_plain"))
    wait.until(lambda d: any(person in " ".join(r) for r in rows(d)))
    (row,) = rows(driver)
    _, session, _, last, title, prompt, size = row
    assert session == person and Transcript().session not in " ".join(row)
    assert UTC.match(last) and title == "untitled" and prompt not in ("", "—") and re.fullmatch(r"\d+(\.\d)? KiB", size)
    note = driver.find_element(By.ID, "src-note").text
    assert "1 hidden: codex-autopilot's own planner and reviewer threads" in note
    assert "1 session in this worktree" in note and "Read from the local files" in note
    assert re.search(r"Read \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\.", note)
    gaps = driver.find_element(By.ID, "src-gaps").text
    assert all(": " in line and len(line.split(": ", 1)[1]) > 10 for line in gaps.splitlines())
    driver.save_screenshot(str(screens / "2a-handover-codex.png"))
    Select(driver.find_element(By.ID, "src-agent")).select_by_value("claude")
    wait.until(lambda d: any(Transcript().session in " ".join(r) for r in rows(d)))
    assert not any(person in " ".join(r) for r in rows(driver))


def test_every_time_is_one_format_whatever_the_answer_held(board):
    """Epoch seconds (Codex's app server), epoch milliseconds and ISO 8601 text all read the same way."""
    driver, _ = board
    shown = driver.execute_script(
        "return [when(1765100000), when(1765100000000), when('2025-12-07T09:33:20.123456Z'), when(null)]"
    )
    assert shown == ["2025-12-07 09:33:20 UTC"] * 3 + ["—"]
    assert ec.presence_of_element_located((By.ID, "refreshed"))(driver).text.count(" UTC") == 1
