"""The modules' old names, kept working while they are deprecated.

dice_envs 0.1 had a flat layout (``dice_envs/pig.py``, ``dice_envs/agents/pig_solver.py``, ...); its
modules now live in one room per game (:mod:`dice_envs.registry`).  Importing an old name gives the
module at its new place, with a ``DeprecationWarning`` that names it; the old names go in 0.3.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

__all__ = ["MOVED", "install_moved_modules"]

#: The new place of every module that moved, by its old name.
MOVED = {
    "dice_envs.aec": "dice_envs.envs.aec",
    "dice_envs.agents.agent_contract": "dice_envs.agents.evaluate.contract",
    "dice_envs.agents.agent_evaluation": "dice_envs.agents.scoring",
    "dice_envs.agents.closest_number_evaluation": "dice_envs.agents.closest_number.evaluation",
    "dice_envs.agents.closest_number_opponents": "dice_envs.agents.closest_number.opponents",
    "dice_envs.agents.closest_number_round1": "dice_envs.agents.closest_number.round1",
    "dice_envs.agents.closest_number_solver": "dice_envs.agents.closest_number.solver",
    "dice_envs.agents.exploitability": "dice_envs.agents.solve.exploitability",
    "dice_envs.agents.gambit": "dice_envs.agents.solve.gambit",
    "dice_envs.agents.game_tree": "dice_envs.agents.solve.game_tree",
    "dice_envs.agents.head_to_head": "dice_envs.agents.solve.head_to_head",
    "dice_envs.agents.jeopardy_agents": "dice_envs.agents.evaluate.jeopardy_agents",
    "dice_envs.agents.jeopardy_learned": "dice_envs.agents.learn.jeopardy_learned",
    "dice_envs.agents.jeopardy_solver": "dice_envs.agents.solve.jeopardy",
    "dice_envs.agents.liars_dice_compiled_solver": "dice_envs.agents.liars_dice.compiled_solver",
    "dice_envs.agents.liars_dice_escher": "dice_envs.agents.liars_dice.escher",
    "dice_envs.agents.liars_dice_learned": "dice_envs.agents.liars_dice.learned",
    "dice_envs.agents.liars_dice_match_solver": "dice_envs.agents.liars_dice.match_solver",
    "dice_envs.agents.liars_dice_mccfr": "dice_envs.agents.liars_dice.mccfr",
    "dice_envs.agents.liars_dice_opponents": "dice_envs.agents.liars_dice.opponents",
    "dice_envs.agents.liars_dice_plots": "dice_envs.agents.liars_dice.plots",
    "dice_envs.agents.liars_dice_solver": "dice_envs.agents.liars_dice.solver",
    "dice_envs.agents.liars_dice_streamed": "dice_envs.agents.liars_dice.streamed",
    "dice_envs.agents.observation_agents": "dice_envs.agents.evaluate.observation_agents",
    "dice_envs.agents.opponents": "dice_envs.agents.evaluate.opponents",
    "dice_envs.agents.pig_learned": "dice_envs.agents.pig.learned",
    "dice_envs.agents.pig_opponents": "dice_envs.agents.pig.opponents",
    "dice_envs.agents.pig_plots": "dice_envs.agents.pig.plots",
    "dice_envs.agents.pig_solver": "dice_envs.agents.pig.solver",
    "dice_envs.agents.rllib_models": "dice_envs.agents.evaluate.rllib_models",
    "dice_envs.agents.sb3_models": "dice_envs.agents.evaluate.sb3_models",
    "dice_envs.agents.sequence_form": "dice_envs.agents.solve.sequence_form",
    "dice_envs.agents.shakes_argument": "dice_envs.agents.shakes.argument",
    "dice_envs.agents.shakes_evaluation": "dice_envs.agents.shakes.evaluation",
    "dice_envs.agents.shakes_policies": "dice_envs.agents.shakes.policies",
    "dice_envs.agents.shakes_solver": "dice_envs.agents.shakes.solver",
    "dice_envs.agents.solver_cache": "dice_envs.agents.solve.cache",
    "dice_envs.agents.tatham_plots": "dice_envs.agents.tatham.plots",
    "dice_envs.agents.zombie_dice_ayzd_solver": "dice_envs.agents.zombie_dice.ayzd_solver",
    "dice_envs.agents.zombie_dice_learned": "dice_envs.agents.zombie_dice.learned",
    "dice_envs.agents.zombie_dice_opponents": "dice_envs.agents.zombie_dice.opponents",
    "dice_envs.agents.zombie_dice_plots": "dice_envs.agents.zombie_dice.plots",
    "dice_envs.agents.zombie_dice_policies": "dice_envs.agents.zombie_dice.policies",
    "dice_envs.agents.zombie_dice_solver": "dice_envs.agents.zombie_dice.solver",
    "dice_envs.agents.zombie_dice_solver_plots": "dice_envs.agents.zombie_dice.solver_plots",
    "dice_envs.batched": "dice_envs.envs.batched",
    "dice_envs.cli": "dice_envs.agents.cli",
    "dice_envs.cli.closest_number": "dice_envs.agents.closest_number.cli",
    "dice_envs.cli.evaluate": "dice_envs.agents.cli.evaluate",
    "dice_envs.cli.liars_dice": "dice_envs.agents.liars_dice.cli",
    "dice_envs.cli.pig": "dice_envs.agents.pig.cli",
    "dice_envs.cli.shakes": "dice_envs.agents.shakes.cli",
    "dice_envs.cli.tatham": "dice_envs.agents.tatham.cli",
    "dice_envs.cli.zombie_dice": "dice_envs.agents.zombie_dice.cli",
    "dice_envs.closest_number": "dice_envs.games.closest_number.rules",
    "dice_envs.closest_number_batched": "dice_envs.games.closest_number.batched",
    "dice_envs.closest_number_gym": "dice_envs.agents.closest_number.gym",
    "dice_envs.dice": "dice_envs.core.dice",
    "dice_envs.encodings": "dice_envs.core.encodings",
    "dice_envs.files": "dice_envs.core.files",
    "dice_envs.liars_dice": "dice_envs.games.liars_dice.rules",
    "dice_envs.liars_dice_batched": "dice_envs.games.liars_dice.batched",
    "dice_envs.liars_dice_gym": "dice_envs.agents.liars_dice.gym",
    "dice_envs.liars_dice_match": "dice_envs.games.liars_dice.match",
    "dice_envs.liars_dice_match_batched": "dice_envs.games.liars_dice.match_batched",
    "dice_envs.liars_dice_match_gym": "dice_envs.agents.liars_dice.match_gym",
    "dice_envs.pig": "dice_envs.games.pig.rules",
    "dice_envs.pig_batched": "dice_envs.games.pig.batched",
    "dice_envs.pig_gym": "dice_envs.agents.pig.gym",
    "dice_envs.rendering": "dice_envs.envs.rendering",
    "dice_envs.resources": "dice_envs.core.resources",
    "dice_envs.sb3_vec_env": "dice_envs.envs.sb3_vec_env",
    "dice_envs.shakes": "dice_envs.games.shakes.rules",
    "dice_envs.shakes_batched": "dice_envs.games.shakes.batched",
    "dice_envs.shakes_gym": "dice_envs.agents.shakes.gym",
    "dice_envs.single_agent": "dice_envs.envs.single_agent",
    "dice_envs.tatham": "dice_envs.games.tatham.dice",
    "dice_envs.validation": "dice_envs.core.validation",
    "dice_envs.vector": "dice_envs.envs.vector",
    "dice_envs.zombie_dice": "dice_envs.games.zombie_dice.rules",
    "dice_envs.zombie_dice_batched": "dice_envs.games.zombie_dice.batched",
    "dice_envs.zombie_dice_gym": "dice_envs.agents.zombie_dice.gym",
}


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module at its new place (the same module object)."""

    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec):
        warnings.warn(f"{spec.name} is deprecated: it moved to {self.new}", DeprecationWarning, stacklevel=2)
        return importlib.import_module(self.new)

    def exec_module(self, module) -> None:
        """Nothing to run: the module was run at its new place."""


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of :data:`MOVED` (and nothing else)."""

    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        package = hasattr(importlib.import_module(new), "__path__")
        return importlib.util.spec_from_loader(fullname, _Alias(new), is_package=package)


def install_moved_modules() -> None:
    """Let the old names be imported (once per process)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())  # before an older install's files, if any are left
