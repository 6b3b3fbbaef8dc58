"""git.py is the one home of git processes: no other module starts git or builds git's command line.

The stand-alone scripts Codex runs (``codex/assets``) are not part of the package (``modules()`` leaves them out).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.test_architecture import modules, nodes, parsed

HOME = "autopilot.git"
# The functions that start a process: every one of subprocess's, and os's exec*, spawn* and posix_spawn*.
OS_STARTERS = ("exec", "spawn", "posix_spawn")


def _is_git_command(node: ast.AST) -> bool:
    """Whether ``node`` is a literal git command: ``["git", ...]``, ``("git", ...)``, ``"git"`` or ``"git status"``."""
    if isinstance(node, (ast.List, ast.Tuple)):
        first = node.elts[0] if node.elts else None
        return isinstance(first, ast.Constant) and first.value == "git"
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.split(" ", 1)[0] == "git"


def _names(path: Path) -> tuple[set[str], set[str], set[str]]:
    """What a module calls the subprocess module, the os module, and the process starters it imports by name."""
    subprocess_as, os_as, starters = set(), set(), set()
    for node in nodes(path):
        if isinstance(node, ast.Import):
            subprocess_as |= {a.asname or a.name for a in node.names if a.name == "subprocess"}
            os_as |= {a.asname or a.name for a in node.names if a.name == "os"}
        elif isinstance(node, ast.ImportFrom) and node.module in ("subprocess", "os"):
            starters |= {
                a.asname or a.name for a in node.names if node.module == "subprocess" or a.name.startswith(OS_STARTERS)
            }
    return subprocess_as, os_as, starters


def git_starts(path: Path) -> list[int]:
    """Lines where a module calls subprocess.*, os.exec*, os.spawn* or os.posix_spawn* with a literal git command."""
    subprocess_as, os_as, starters = _names(path)
    found = []
    for node in nodes(path):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        starts = (isinstance(func, ast.Name) and func.id in starters) or (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and (func.value.id in subprocess_as or (func.value.id in os_as and func.attr.startswith(OS_STARTERS)))
        )
        if starts and any(_is_git_command(a) for a in [*node.args, *(k.value for k in node.keywords)]):
            found.append(node.lineno)
    return sorted(found)


def git_argvs(path: Path) -> list[int]:
    """Lines where a module builds a command line whose first word is the literal ``"git"``."""
    return sorted(n.lineno for n in nodes(path) if isinstance(n, (ast.List, ast.Tuple)) and _is_git_command(n))


def test_only_git_py_starts_git():
    """No module but git.py calls a process starter with a git command: the others ask git.py's runners."""
    assert {m: lines for m, p in modules().items() if m != HOME and (lines := git_starts(p))} == {}


def test_only_git_py_builds_gits_command_line():
    """No module but git.py builds an argv that starts with "git"; git.py builds it in one place (``_argv``)."""
    assert {m: lines for m, p in modules().items() if m != HOME and (lines := git_argvs(p))} == {}
    home = modules()[HOME]
    (line,) = git_argvs(home)
    assert next(n for n in parsed(home).body if isinstance(n, ast.FunctionDef) and n.name == "_argv").lineno < line


PLANTED = """\
import os
import subprocess
import subprocess as sp
from os import execvp as replace_me
from subprocess import Popen

subprocess.run(["git", "status"], check=True)
sp.check_output(("git", "rev-parse", "HEAD"))
Popen(args=["git", "fetch"])
subprocess.run("git status", shell=True)
os.execvp("git", ["git", "log"])
replace_me("git", ARGV)
os.spawnlp(os.P_WAIT, "git", "git", "gc")

subprocess.run(["gitk"])
subprocess.run(["echo", "git"])
os.path.join("git", "x")
CMD = ["git", "-C", "."]


def later():
    import subprocess as late

    late.call(["git", "gc"])
"""


def test_the_checks_find_each_planted_start_and_argv(tmp_path):
    """The checks can fail: each way to start git is found (by alias, by name, as a shell string, by os.exec* or
    os.spawn*, inside a function); other commands and a "git" that is no command are not, and every literal argv
    starting with "git" is."""
    planted = tmp_path / "planted.py"
    planted.write_text(PLANTED)
    assert git_starts(planted) == [7, 8, 9, 10, 11, 12, 13, 24]
    assert git_argvs(planted) == [7, 8, 9, 11, 18, 24]
