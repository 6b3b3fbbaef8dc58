"""Run the bridge as ``python -m autopilot``."""

from autopilot.cli import entry

entry()
