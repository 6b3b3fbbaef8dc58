"""chargeBudget and the price table."""

from __future__ import annotations

import pytest

from autopilot.errors import BridgeError
from autopilot.loop.backends import Usage
from autopilot.loop.budget import SHIPPED_PRICES, charge_budget, price_table


def test_charge_uses_fresh_cached_write_and_output_prices():
    """Fresh input, cached input, cache writes and output are each charged at their own price."""
    usd, known = charge_budget(
        "gpt-6.2-sol", Usage(input=1_000_000, cached=400_000, output=100_000, cache_write=100_000)
    )
    # 500k fresh x $2 + 400k cached x $0.10 + 100k write x $2.50 + 100k out x $10 per million
    assert known and usd == pytest.approx(1.0 + 0.04 + 0.25 + 1.0)


def test_dated_snapshot_uses_its_base_price():
    """A dated model name is priced like its base model."""
    assert charge_budget("gpt-6.2-sol-2026-11-17", Usage(1_000_000))[0] == pytest.approx(2.0)


def test_unknown_model_is_charged_conservatively_and_flagged():
    """An unknown model costs the default (expensive) price and is reported as unknown."""
    usd, known = charge_budget("mystery-model", Usage(input=1_000_000, output=1_000_000))
    assert not known and usd == pytest.approx(60.0)


def test_user_price_file_overrides_model_by_model(isolated_homes, monkeypatch):
    """$AUTOPILOT_HOME/prices.yaml replaces rows it names and keeps the rest."""
    (isolated_homes / "autopilot" / "prices.yaml").write_text(
        "gpt-6.2-sol: {input: 1.0, cached_input: 0, cache_write: 0, output: 0}\n"
    )
    table = price_table()
    assert table["gpt-6.2-sol"]["input"] == 1.0 and table["gpt-6-luna"]["input"] == 0.10


def test_broken_price_file_is_a_clear_error(isolated_homes):
    """An unreadable price override names the file and what to do."""
    (isolated_homes / "autopilot" / "prices.yaml").write_text("gpt-x: {input: lots}\n")
    with pytest.raises(BridgeError, match="prices.yaml"):
        price_table()


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "-0.5", "true"])
def test_prices_that_are_not_finite_non_negative_numbers_are_refused(isolated_homes, value):
    """A price of NaN, infinity, a negative number or a boolean is refused when the table loads."""
    (isolated_homes / "autopilot" / "prices.yaml").write_text(f"gpt-x: {{input: {value}, output: 1}}\n")
    with pytest.raises(BridgeError, match="finite, non-negative"):
        price_table()


def test_the_price_table_is_read_from_its_cache_without_yaml(isolated_homes):
    """Once read, a price table comes from its cache: the same table, and no yaml import (10-15 ms a call)."""
    import subprocess
    import sys

    code = "import sys; from autopilot.loop.budget import price_table as t; print(len(t()), 'yaml' in sys.modules)"
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert first.split()[1] == "True" and again == first.replace("True", "False")
    assert price_table() == __import__("yaml").safe_load(SHIPPED_PRICES.read_text())


def test_an_edited_price_file_is_read_again(isolated_homes):
    """The cache is keyed by the file's bytes: an edit is seen at once, and a damaged cache entry is read anew."""
    user = isolated_homes / "autopilot" / "prices.yaml"
    user.write_text("gpt-x: {input: 1, output: 2}\n")
    assert price_table()["gpt-x"] == {"input": 1, "output": 2}
    user.write_text("gpt-x: {input: 3, output: 4}\n")
    assert price_table()["gpt-x"] == {"input": 3, "output": 4}
    for entry in (isolated_homes / "autopilot" / "cache" / "prices").iterdir():
        entry.write_text('{"gpt-x": {"input": -1}}')  # damaged or tampered: not a table, so the file is read again
    assert price_table()["gpt-x"] == {"input": 3, "output": 4}
