"""Token usage and what it costs: the price table and chargeBudget."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

from autopilot import config, paths
from autopilot.digest import sha256_hex
from autopilot.errors import BridgeError
from autopilot.fastjson import dumps, parse_json
from autopilot.fsutil import atomic_write
from autopilot.loop.backends import Usage

SHIPPED_PRICES = Path(__file__).with_name("prices.yaml")
PRICE_KEYS = ("input", "cached_input", "cache_write", "output")


def _load_yaml(path: Path) -> dict[str, Any]:
    """The price table in ``path``, checked; read through a cache of the checked table keyed by the file's bytes.

    yaml costs 10-15 ms to import, paid before every Codex call for a table that changes with an upgrade or an
    edit of the user's file: the table read from given bytes is kept as JSON under
    ``$AUTOPILOT_HOME/cache/prices/<sha256 of the bytes>.json``, checked again when it is used, and read with
    yaml whenever it is missing, damaged or not a table.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BridgeError(
            f"cannot read the price table {path}: {exc}",
            hint="fix the YAML or remove the file to use the shipped prices",
        ) from None
    cached = paths.autopilot_home() / "cache" / "prices" / f"{sha256_hex(raw)}.json"
    try:
        data = parse_json(cached.read_text(encoding="utf-8"))
        if _table_problem(data) is None:
            return data  # type: ignore[return-value]  # a table _table_problem accepts
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    data = _parse_yaml(path, raw)
    if all(isinstance(model, str) and all(isinstance(k, str) for k in row) for model, row in data.items()):
        with contextlib.suppress(OSError):  # only what JSON keeps unchanged; a cache not written is read again later
            atomic_write(cached, dumps(data), durable=False)
    return data


def _parse_yaml(path: Path, raw: bytes) -> dict[str, Any]:
    import yaml  # heavy: only when the table's bytes are new (see _load_yaml)

    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: same result, faster
        data = yaml.load(raw.decode("utf-8"), Loader=loader) or {}  # noqa: S506 - a safe loader
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise BridgeError(
            f"cannot read the price table {path}: {exc}",
            hint="fix the YAML or remove the file to use the shipped prices",
        ) from None
    problem = _table_problem(data)
    if problem == "not a table":
        raise BridgeError(
            f"the price table {path} must map model names to prices", hint="see the shipped prices.yaml for the format"
        )
    if problem is not None:
        raise BridgeError(
            f"price table {path}: entry {problem} needs finite, non-negative numbers for {', '.join(PRICE_KEYS)}",
            hint="prices are USD per million tokens",
        )
    return data


def _table_problem(data: object) -> str | None:
    """None for a price table (models mapped to rows of prices); else what is wrong: 'not a table' or an entry."""
    if not isinstance(data, dict):
        return "not a table"
    for model, row in data.items():
        if not isinstance(row, dict) or any(not _price(row.get(k, 0)) for k in PRICE_KEYS):
            return repr(model)
    return None


def _price(value: Any) -> bool:
    """Whether ``value`` can be a price: a finite number, zero or more (YAML's .nan and .inf cannot)."""
    import math

    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def price_table() -> dict[str, dict[str, float]]:
    """The shipped prices with the user's override file merged over them, model by model."""
    table = _load_yaml(SHIPPED_PRICES)
    override = config.env("AUTOPILOT_PRICES")
    user = Path(override) if override else paths.autopilot_home() / "prices.yaml"
    if override and not user.exists():
        raise BridgeError(f"AUTOPILOT_PRICES names {user}, which does not exist", hint="fix or unset it")
    if user.exists():
        table.update(_load_yaml(user))
    return table


def lookup(model: str | None, table: dict[str, dict[str, float]]) -> tuple[dict[str, float], bool]:
    """The price row for ``model`` and whether it was known (dated snapshots match their base name)."""
    if model:
        if model in table:
            return table[model], True
        base = re.sub(r"-\d{4}-\d{2}-\d{2}$", "", model)
        if base in table:
            return table[base], True
    return table["_default"], False


def charge_budget(
    model: str | None, usage: Usage, table: dict[str, dict[str, float]] | None = None
) -> tuple[float, bool]:
    """chargeBudget: the USD cost of ``usage`` on ``model``, and whether the model's price was known."""
    row, known = lookup(model, table if table is not None else price_table())
    fresh = max(0, usage.input - usage.cached - usage.cache_write)
    usd = (
        fresh * row.get("input", 0)
        + usage.cached * row.get("cached_input", 0)
        + usage.cache_write * row.get("cache_write", row.get("input", 0))
        + usage.output * row.get("output", 0)
    ) / 1_000_000
    return round(usd, 10), known


def add_usd(total: float, amount: float) -> float:
    """Add money without letting float noise accumulate across many calls."""
    return round(total + amount, 10)
