"""Backend and model selection, and the config file."""

from __future__ import annotations

import os
import re
import stat

import pytest

from autopilot import config
from autopilot.errors import BridgeError
from tests.support.repo import REPO


def fake_codex(tmp_path, monkeypatch):
    path = tmp_path / "bin" / "codex"
    path.parent.mkdir()
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{path.parent}{os.pathsep}/usr/bin:/bin")
    return path


def test_flag_beats_env_beats_run_beats_config(monkeypatch):
    """--backend > AUTOPILOT_BACKEND > the run's backend > config."""
    cfg = {"backend": "codex-cli"}
    monkeypatch.setenv("AUTOPILOT_BACKEND", "openai")
    assert config.resolve_backend("codex-cli", "openai", cfg) == "codex-cli"
    assert config.resolve_backend(None, "codex-cli", cfg) == "openai"
    monkeypatch.delenv("AUTOPILOT_BACKEND")
    assert config.resolve_backend(None, "openai", cfg) == "openai"
    assert config.resolve_backend(None, None, cfg) == "codex-cli"


def test_detection_prefers_codex_on_path_then_openai_key(tmp_path, monkeypatch):
    """With nothing configured, codex on PATH wins, then OPENAI_API_KEY."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert config.resolve_backend(None, None, {}) == "openai"
    fake_codex(tmp_path, monkeypatch)
    assert config.resolve_backend(None, None, {}) == "codex-cli"


def test_no_backend_is_a_one_line_setup_error(monkeypatch):
    """Nothing configured and nothing found: one line telling the user how to set a backend up."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    with pytest.raises(BridgeError) as err:
        config.resolve_backend(None, None, {})
    assert "OPENAI_API_KEY" in str(err.value) and "\n" not in str(err.value)


def test_bad_env_backend_is_refused(monkeypatch):
    """An AUTOPILOT_BACKEND that is not a backend is an error naming the choices."""
    monkeypatch.setenv("AUTOPILOT_BACKEND", "claude")
    with pytest.raises(BridgeError, match="codex-cli, openai"):
        config.resolve_backend(None, None, {})


def test_model_order(monkeypatch):
    """--model > AUTOPILOT_MODEL > config > the run's model."""
    monkeypatch.setenv("AUTOPILOT_MODEL", "env-m")
    assert config.resolve_model("flag-m", "run-m", {"model": "cfg-m"}) == "flag-m"
    assert config.resolve_model(None, "run-m", {"model": "cfg-m"}) == "env-m"
    monkeypatch.delenv("AUTOPILOT_MODEL")
    assert config.resolve_model(None, "run-m", {"model": "cfg-m"}) == "cfg-m"
    assert config.resolve_model(None, "run-m", {}) == "run-m"
    assert config.resolve_model(None, None, {}) is None


def test_model_of_a_phase_comes_between_the_environment_and_the_config_model(monkeypatch):
    """--model > AUTOPILOT_MODEL > phases.<phase>.model > model > the run's; other phases keep the config's."""
    cfg = {"model": "cfg-m", "phases": {"plan": {"model": "plan-m"}}}
    assert config.resolve_model(None, "run-m", cfg, "plan") == "plan-m"
    assert config.resolve_model(None, "run-m", cfg, "review") == "cfg-m"
    assert config.resolve_model("flag-m", "run-m", cfg, "plan") == "flag-m"
    monkeypatch.setenv("AUTOPILOT_MODEL", "env-m")
    assert config.resolve_model(None, "run-m", cfg, "plan") == "env-m"


def test_effort_order(monkeypatch):
    """--effort > AUTOPILOT_EFFORT > phases.<phase>.effort > effort > the run's > none."""
    cfg = {"effort": "medium", "phases": {"review": {"effort": "low"}}}
    monkeypatch.setenv("AUTOPILOT_EFFORT", "xhigh")
    assert config.resolve_effort("high", "low", cfg, "review") == "high"
    assert config.resolve_effort(None, "low", cfg, "review") == "xhigh"
    monkeypatch.delenv("AUTOPILOT_EFFORT")
    assert config.resolve_effort(None, "high", cfg, "review") == "low"
    assert config.resolve_effort(None, "high", cfg, "verdict") == "medium"
    assert config.resolve_effort(None, "high", {}, "verdict") == "high"
    assert config.resolve_effort(None, None, {}, "verdict") is None


def test_bad_env_effort_is_refused(monkeypatch):
    """An AUTOPILOT_EFFORT Codex cannot be asked for is an error naming the choices."""
    monkeypatch.setenv("AUTOPILOT_EFFORT", "max")
    with pytest.raises(BridgeError, match="AUTOPILOT_EFFORT must be one of low, medium, high, xhigh, not 'max'"):
        config.resolve_effort(None, None, {}, "plan")


def test_phase_names_are_the_runs_phases():
    """The phases the config may name are the phases a run charges."""
    from autopilot.loop.migrations import PHASES

    assert config.PHASE_NAMES == PHASES


def test_a_valid_phases_section_loads(isolated_homes):
    """Per-phase model and effort, a general effort and the two percentages load as written."""
    (isolated_homes / "autopilot" / "config.yaml").write_text(
        "effort: medium\nbudget_warn_at: 90\nmin_rate_limit_left: 10\n"
        "phases:\n  plan: {model: gpt-5.5, effort: high}\n  review: {effort: low}\n"
    )
    phases = {"plan": {"model": "gpt-5.5", "effort": "high"}, "review": {"effort": "low"}}
    assert config.load_config()["phases"] == phases


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("backend: [", "cannot read"),
        ("- a list", "mapping"),
        ("colour: blue", "unknown keys"),
        ("backend: gemini", "backend must"),
        ("effort: max", "effort must be one of low, medium, high, xhigh"),
        ("phases: [plan]", "phases must map phase names"),
        ("phases: {fix: {effort: low}}", "phases.fix: unknown phase"),
        ("phases: {plan: high}", "phases.plan must be a mapping of model and effort"),
        ("phases: {plan: {speed: 1}}", "phases.plan has unknown keys: speed"),
        ("phases: {review: {effort: bogus}}", "phases.review.effort must be one of"),
        ("phases: {review: {model: ''}}", "phases.review.model must be a model name"),
        ("budget_warn_at: 120", "budget_warn_at must be a percentage from 0 to 100"),
        ("min_rate_limit_left: lots", "min_rate_limit_left must be a percentage"),
    ],
)
def test_bad_config_file_is_a_clear_error(isolated_homes, text, match):
    """A config file that is not valid YAML, not a mapping, or has unknown keys is refused with its path."""
    (isolated_homes / "autopilot" / "config.yaml").write_text(text)
    with pytest.raises(BridgeError, match=match):
        config.load_config()


def test_codex_binary_comes_from_env_first(tmp_path, monkeypatch):
    """AUTOPILOT_CODEX_BIN names the binary even when another codex is on PATH."""
    fake_codex(tmp_path, monkeypatch)
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", "/opt/codex")
    assert config.codex_binary({}) == "/opt/codex"


def test_codex_model_is_read_without_tomllib_through_tomli(isolated_homes, monkeypatch):
    """On Python 3.10 (no tomllib) the model in Codex's config.toml is read through tomli, not lost."""
    import sys

    import tomllib

    from autopilot.loop.backends.codex_cli import configured_model

    (isolated_homes / "codex" / "config.toml").write_text('model = "gpt-6.2-sol"\n')
    monkeypatch.setitem(sys.modules, "tomllib", None)  # import tomllib now raises ImportError
    monkeypatch.setitem(sys.modules, "tomli", tomllib)  # the backport has the same API
    assert configured_model() == "gpt-6.2-sol"


def test_history_bound_comes_from_env_then_config_then_the_default(monkeypatch):
    """AUTOPILOT_MAX_HISTORY_TOKENS beats max_history_tokens in the config, which beats 10,000; 0 means never."""
    assert config.max_history_tokens({}) == config.DEFAULT_MAX_HISTORY_TOKENS == 10_000
    assert config.max_history_tokens({"max_history_tokens": 4000}) == 4000
    assert config.max_history_tokens({"max_history_tokens": 0}) == 0
    monkeypatch.setenv("AUTOPILOT_MAX_HISTORY_TOKENS", "2500")
    assert config.max_history_tokens({"max_history_tokens": 4000}) == 2500


@pytest.mark.parametrize("bad", ["-5", "lots", "1.5", "nan"])
def test_a_bad_history_bound_is_refused_naming_the_setting(monkeypatch, bad):
    """A bound that is not a whole number of tokens is a clear error naming where it came from."""
    monkeypatch.setenv("AUTOPILOT_MAX_HISTORY_TOKENS", bad)
    with pytest.raises(BridgeError, match="AUTOPILOT_MAX_HISTORY_TOKENS"):
        config.max_history_tokens({})


def test_every_environment_variable_is_documented():
    """docs/bridge.md's table lists exactly the variables config.ENVIRONMENT names, with the same words."""

    from autopilot.config import ENVIRONMENT

    doc = (REPO / "docs" / "bridge.md").read_text()
    table = doc.split("## Environment variables", 1)[1]
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| (.*) \|$", table, re.M))
    assert rows == ENVIRONMENT


def test_an_unknown_variable_is_refused():
    """config.env reads only what ENVIRONMENT names: a typo fails loudly instead of reading nothing."""
    from autopilot.config import env

    with pytest.raises(KeyError, match="AUTOPILOT_HOMEE"):
        env("AUTOPILOT_HOMEE")


@pytest.mark.parametrize(("raw", "expected"), [(None, True), ("on", True), (" OFF ", False)])
def test_review_background_is_on_unless_turned_off(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv("AUTOPILOT_REVIEW_BACKGROUND", raising=False)
    else:
        monkeypatch.setenv("AUTOPILOT_REVIEW_BACKGROUND", raw)
    assert config.review_background() is expected


def test_a_bad_review_background_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("AUTOPILOT_REVIEW_BACKGROUND", "sometimes")
    with pytest.raises(BridgeError, match="AUTOPILOT_REVIEW_BACKGROUND must be on or off, not 'sometimes'"):
        config.review_background()
