"""The scripts in ``experiments/``: every command-line option has a help text, and ``--help`` works.

Read with ``ast``, so no script is imported: each ``add_argument`` call of a script that has
one must pass a non-empty ``help=``.  A few scripts whose imports are cheap are then run with
``--help`` (a script that needs an optional extra is skipped where it is missing).
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ROOT / "experiments"

# Owned elsewhere in this change (issue 56, item 7): experiments/train_*.py and
# experiments/diagnose_liars_dice_escher.py are being rewritten, their help texts with them.
# Drop these two entries once they land.
OWNED_ELSEWHERE = ("train_*.py", "diagnose_liars_dice_escher.py")


def owned_elsewhere(path: Path) -> bool:
    return any(path.match(pattern) for pattern in OWNED_ELSEWHERE)


def add_argument_calls(path: Path) -> list:
    """Every ``<parser>.add_argument(...)`` call in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"]


SCRIPTS = sorted(path for path in EXPERIMENTS.rglob("*.py")
                 if add_argument_calls(path) and not owned_elsewhere(path))


def option_name(call: ast.Call) -> str:
    names = [arg.value for arg in call.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    return "/".join(names) or ast.unparse(call)


def help_text_missing(call: ast.Call) -> bool:
    """No ``help=``, or one that is an empty (or blank) string; an f-string or a name counts as given."""
    value = next((kw.value for kw in call.keywords if kw.arg == "help"), None)
    if value is None:
        return True
    if isinstance(value, ast.Constant):
        return not (isinstance(value.value, str) and value.value.strip())
    return False


def test_the_scripts_with_options_are_found():
    names = {path.name for path in SCRIPTS}
    assert {"benchmark_pig.py", "distill_liars_dice_table.py", "render_samples.py"} <= names
    assert not any(owned_elsewhere(path) for path in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: str(path.relative_to(EXPERIMENTS)))
def test_every_option_has_a_help_text(script):
    missing = [f"line {call.lineno}: {option_name(call)}" for call in add_argument_calls(script)
               if help_text_missing(call)]
    assert not missing, f"{script.relative_to(ROOT)}: options without help=: {missing}"


#: script -> the optional module it needs even for ``--help`` (None: only the environments)
CHEAP = {
    "benchmark_liars_dice.py": None,
    "benchmark_pig.py": None,
    "benchmark_zombie_dice.py": None,
    "check_gambit_liars_dice.py": None,
    "diagnose_pig_errors.py": None,
    "render_samples.py": "matplotlib",  # the [plot] extra, imported before the parser is built
}


@pytest.mark.parametrize("script", sorted(CHEAP))
def test_help_exits_0(script):
    needs = CHEAP[script]
    if needs and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{script} needs {needs}, which is not installed")
    result = subprocess.run([sys.executable, str(EXPERIMENTS / script), "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: ") and "--help" in result.stdout
