"""loop/status.py: the run statuses are the schema's, and every status enum the package publishes lists them."""

from __future__ import annotations

import json
from pathlib import Path

from autopilot.loop import state as state_mod


def test_status_vocabulary_is_the_schemas():
    """loop/status.py and state_schema.json name exactly the same statuses, in the same order."""
    from autopilot.loop import status

    schema = json.loads(Path(state_mod.SCHEMA_PATH).read_text())
    assert tuple(schema["properties"]["status"]["enum"]) == status.ALL


def test_every_published_status_enum_is_the_vocabulary():
    """Every run-status enum the package publishes (the dashboard's run summaries) lists every status, no other."""
    from autopilot.loop import status

    schemas = sorted((Path(state_mod.SCHEMA_PATH).parents[1] / "dashboard" / "schemas").glob("*.json"))
    enums = []

    def walk(node):
        if isinstance(node, dict):
            props = node.get("properties")
            found = props.get("status") if isinstance(props, dict) else None
            if isinstance(found, dict) and status.RUNNING in (found.get("enum") or []):  # rules have their own
                enums.append(found["enum"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for path in schemas:
        walk(json.loads(path.read_text()))
    assert enums, "no run status enum found in the dashboard's schemas"
    assert all(tuple(e) == status.ALL for e in enums)
