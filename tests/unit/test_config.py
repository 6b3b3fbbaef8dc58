"""Backend and model selection, and the config file."""

from __future__ import annotations

import os
import stat

import pytest

from autopilot import config
from autopilot.errors import BridgeError


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


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("backend: [", "cannot read"),
        ("- a list", "mapping"),
        ("colour: blue", "unknown keys"),
        ("backend: gemini", "backend must"),
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

    from autopilot.backends.codex_cli import configured_model

    (isolated_homes / "codex" / "config.toml").write_text('model = "gpt-6.2-sol"\n')
    monkeypatch.setitem(sys.modules, "tomllib", None)  # import tomllib now raises ImportError
    monkeypatch.setitem(sys.modules, "tomli", tomllib)  # the backport has the same API
    assert configured_model() == "gpt-6.2-sol"
