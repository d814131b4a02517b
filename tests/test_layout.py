"""The house's floors, checked on the layout the wheel installs (``agents/`` at ``dice_envs/agents``).

``pyproject.toml`` declares them as import-linter contracts: a floor imports only the floors below
it, function-local imports included; the games' rooms never import each other; the shared floors
know no game; and no package has a circle among its modules.  The repository cannot be checked as
it stands (``agents/`` installs under another name), so the test copies the package into the
installed layout and runs ``lint-imports`` there; a probe that imports upward shows the check bites.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def installed_layout(folder: Path) -> Path:
    """``folder/dice_envs`` as the wheel installs it; returns ``folder``."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "dice_envs", folder / "dice_envs", ignore=ignore)
    shutil.copytree(ROOT / "agents", folder / "dice_envs" / "agents", ignore=ignore)
    return folder


def lint_imports(folder: Path) -> subprocess.CompletedProcess:
    command = Path(sys.executable).with_name("lint-imports")
    if not command.exists():
        pytest.skip("import-linter is not installed (the [dev] extra)")
    return subprocess.run([str(command), "--no-cache", str(ROOT / "pyproject.toml")], cwd=folder,
                          env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=300)


def test_the_installed_layout_keeps_every_import_contract(tmp_path):
    result = lint_imports(installed_layout(tmp_path))
    assert result.returncode == 0 and "0 broken" in result.stdout, result.stdout + result.stderr


def test_an_import_that_runs_upward_breaks_a_contract(tmp_path):
    """A function-local import from the ground floor up to the agents breaks the floors (the check sees
    imports inside functions)."""
    folder = installed_layout(tmp_path)
    (folder / "dice_envs" / "core" / "upward_probe.py").write_text(
        "def score():\n    from dice_envs.agents.scoring import evaluate_agent\n\n    return evaluate_agent\n")
    result = lint_imports(folder)
    assert result.returncode != 0 and "dice_envs.core.upward_probe -> dice_envs.agents.scoring" in result.stdout, (
        result.stdout)


def test_every_registry_string_names_what_it_says():
    import gymnasium
    import pettingzoo

    import dice_envs
    from dice_envs.registry import GAMES, load

    for entry in GAMES.values():
        if entry.env is not None:
            assert callable(load(entry.env + ":env")) and load(entry.env + ":raw_env")
            assert dice_envs.all_environments[entry.module_name].env is load(entry.env + ":env")
            assert entry.pettingzoo_id in pettingzoo.aec_registry
            assert load(entry.picture + ":draw")
        for module in entry.earlier_module_names:
            assert dice_envs.earlier_environments[module].raw_env.metadata["name"] == module
            assert f"dice_envs/{module.replace('_v', '-v')}" in pettingzoo.aec_registry
        if entry.gymnasium is not None:
            for name, entry_point, vector_entry_point in (entry.gymnasium, *entry.earlier_gymnasium):
                assert load(entry_point) and load(vector_entry_point)
                assert gymnasium.spec(f"dice_envs/{name}").entry_point == entry_point
                assert gymnasium.spec(f"dice_envs/{name}").vector_entry_point == vector_entry_point
            assert entry.gymnasium_id == f"dice_envs/{entry.gymnasium[0]}"
        assert callable(load(entry.commands + ":add_commands"))
        for suffix, loader in entry.agent_files:
            assert suffix.startswith(".") and callable(load(loader))
        if entry.evaluations is not None:
            from dice_envs.agents.evaluate.report import Evaluation

            assert all(isinstance(e, Evaluation) for e in load(entry.evaluations))
        if entry.openspiel is not None:
            from dice_envs.core.spiel import SpielGame

            assert isinstance(load(entry.openspiel), SpielGame)
    assert sorted(dice_envs.all_environments) == sorted(e.module_name for e in GAMES.values() if e.env)


def test_only_the_registry_and_the_old_names_name_every_game():
    """Adding a game is its rooms and one registry entry: no other installed module lists the games."""
    words = ("zombie", "pig", "liars", "shakes", "closest")
    naming_all = sorted(
        str(path.relative_to(ROOT)) for folder in ("dice_envs", "agents") for path in (ROOT / folder).rglob("*.py")
        if all(word in path.read_text().lower() for word in words))
    assert naming_all == ["dice_envs/_moved.py", "dice_envs/registry.py"]


def test_every_game_is_scored_offered_to_openspiel_and_in_the_main_job_through_the_registry():
    from dice_envs.agents.cli.ground_truth import jobs
    from dice_envs.agents.scoring import evaluations

    assert list(evaluations()) == ["ayzd", "zombie-dice", "shakes", "pig", "liars-dice", "liars-dice-match",
                                   "closest-number"]
    assert set(jobs()) == {"zombie_dice", "zombie_dice_official", "shakes", "pig", "liars_dice", "closest_number",
                           "tatham"}
    pytest.importorskip("pyspiel")
    import dice_envs.openspiel

    assert list(dice_envs.openspiel.GAMES) == ["zombie_dice", "shakes", "pig", "liars_dice", "closest_number"]


def test_the_old_module_names_import_the_moved_modules_with_a_warning():
    import importlib

    from dice_envs._moved import MOVED

    for old, new in MOVED.items():
        sys.modules.pop(old, None)  # imported once already: the warning comes with a first import
        with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: it moved to {new}"):
            module = importlib.import_module(old)
        assert module is importlib.import_module(new), old
    sys.modules.pop("dice_envs.agents.pig_solver")
    with pytest.warns(DeprecationWarning):
        from dice_envs.agents.pig_solver import solve  # the 0.1 spelling of dice_envs.agents.pig.solver
    from dice_envs.agents.pig.solver import solve as moved

    assert solve is moved
