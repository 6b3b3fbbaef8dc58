"""codex-autopilot: Codex plans, reviews and steers Claude Code; either agent can pick up the other's work.

Beside the version: the plugin's name and the slash commands it gives users, spelled as they type them,
the one list messages name them from. Every layer's messages name them (the hooks, the status line,
setup's launcher, doctor's fixes), the status line and the hooks among them, so they are here, at the
bottom, where importing them costs nothing.

Each command is a skill, ``skills/<name>/SKILL.md``: Claude Code gives a plugin's *skills* their bare name
(``/autopilot``) as well as the namespaced one (``/codex-autopilot:autopilot``), while a plugin's
*commands* only ever answer to the namespaced name (verified on claude 2.1.100 to 2.1.332, headless and
in the TUI). The namespaced forms are what earlier releases' commands were called, so they keep working.
A test collects every slash command named in the README, docs, skills, agents and this package's
messages, and checks each is one defined here and by a skill.
"""

__version__ = "0.1.0"

PLUGIN = "codex-autopilot"

# skill name -> what it does (the skill's own description says more)
SKILLS = {
    "autopilot": "Codex plans a goal into tasks and the loop starts; `resume` continues a paused run",
    "codex-plan": "Codex plans a goal (nothing is implemented yet)",
    "codex-review": "Codex reviews the current diff against the current task, now",
    "codex-status": "the run in this repository: task, iteration, spend, last review, verdict, error",
    "codex-stop": "stop the run in this repository (spend and counts are kept)",
    "from-codex": "continue here what was going on in Codex (after $handoff there)",
    "handoff-import": "import a handover packet of this project into this session (no id: list them)",
    "setup": "set up the Codex side ($handoff, $from-claude, trust) and a `codex-bridge` launcher",
}

START = "/autopilot <goal>"
RESUME = "/autopilot resume"
PLAN = "/codex-plan <goal>"
REVIEW = "/codex-review"
STATUS = "/codex-status"
STOP = "/codex-stop"
FROM_CODEX = "/from-codex"
HANDOFF_IMPORT = "/handoff-import <packet-id>"
SETUP = "/codex-autopilot:setup"  # namespaced: a bare /setup is too likely to be someone else's


def namespaced(name: str) -> str:
    """``/codex-autopilot:<name>``: the form that resolves even when another plugin or skill takes the bare one."""
    return f"/{PLUGIN}:{name}"
