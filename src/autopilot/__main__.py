"""Run the bridge as ``python -m autopilot``."""

import sys

from autopilot.cli import main

sys.exit(main())
