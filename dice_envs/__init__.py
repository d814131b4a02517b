"""dice_envs: fully solved dice games as PettingZoo environments.

After ``import dice_envs`` every game is in PettingZoo's registry::

    import pettingzoo, dice_envs
    env = pettingzoo.make("aec", "dice_envs/zombie_dice-v0", variant="all_yellow")

and in module form, as PettingZoo's own environments are::

    env = dice_envs.zombie_dice_v0.env(render_mode="ansi")

and single-agent versions (the other seats played by a chosen opponent) are in
Gymnasium's registry::

    import gymnasium, dice_envs
    env = gymnasium.make("dice_envs/ZombieDice-v0", opponent="optimal")
    env = gymnasium.make("dice_envs/LiarsDice-v0", opponent="equilibrium")

(every game's ids are in :mod:`dice_envs.registry`, the one list of games).

``all_environments`` maps each environment name to its module;
``single_agent_environments`` maps each Gymnasium id to its entry point.
"""

from __future__ import annotations

import functools
import importlib
import re
import warnings

import gymnasium
import pettingzoo

from dice_envs._moved import install_moved_modules
from dice_envs.registry import GAMES, load, plain_name

__version__ = "0.1.0"

#: Each environment's module, by name (``"liars_dice_v0"``), as PettingZoo's ``all_environments``.
all_environments = {entry.module_name: importlib.import_module(f"dice_envs.{entry.module_name}")
                    for entry in GAMES.values() if entry.env is not None}

#: Single-agent Gymnasium versions (the other seats played by a chosen opponent): entry point by name.
single_agent_environments = {entry.gymnasium[0]: entry.gymnasium[1] for entry in GAMES.values() if entry.gymnasium}

#: Batched versions of the single-agent ids, for ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``.
vector_environments = {entry.gymnasium[0]: entry.gymnasium[2] for entry in GAMES.values() if entry.gymnasium}


def game_id(gymnasium_name: str) -> str:
    """PettingZoo's id of a game from its Gymnasium name: ``"LiarsDiceMatch-v0"`` ->
    ``"dice_envs/liars_dice_match-v0"``."""
    version = re.search(r"-v\d+$", gymnasium_name)
    return f"dice_envs/{plain_name(gymnasium_name)}{version.group(0) if version else ''}"


def _old_id(entry_point: str, old: str, new: str, **kwargs):
    """What Gymnasium makes for ``old``, an earlier second id of ``new``: ``new``'s environment, with
    a warning."""
    warnings.warn(f"the Gymnasium id {old} is deprecated (it goes in dice_envs 0.3): use {new}", DeprecationWarning,
                  stacklevel=3)
    return load(entry_point)(**kwargs)


def _register_all() -> None:
    for entry in GAMES.values():
        if entry.env is not None and entry.pettingzoo_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", entry.pettingzoo_id, entry_point=f"dice_envs.{entry.module_name}:env")
        if entry.gymnasium is None:
            continue
        name, entry_point, vector_entry_point = entry.gymnasium
        new, old = "dice_envs/" + name, game_id(name)
        if new not in gymnasium.registry:
            gymnasium.register(new, entry_point=entry_point, vector_entry_point=vector_entry_point)
        if old not in gymnasium.registry:  # dice_envs 0.1 also knew the single-agent versions by PettingZoo's ids
            gymnasium.register(old, entry_point=functools.partial(_old_id, entry_point, old, new),
                               vector_entry_point=functools.partial(_old_id, vector_entry_point, old, new))


install_moved_modules()
_register_all()

__all__ = ["all_environments", "single_agent_environments", "vector_environments", "game_id", "__version__",
           *all_environments]
