"""One module per command family; each function takes typed arguments and returns an exit code."""

import json
import sys


def emit(payload: object) -> None:
    """Print one JSON document on stdout (for ``jq``)."""
    sys.stdout.write(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    sys.stdout.flush()
