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
    env = gymnasium.make("dice_envs/LiarsDice-v1", opponent="equilibrium")

(every game's ids are in :mod:`dice_envs.registry`, the one list of games).  Earlier versions of an
environment stay registered for the models trained on them (``dice_envs.liars_dice_v0``,
``dice_envs/LiarsDice-v0``); Gymnasium says so when one is made.

``all_environments`` maps each environment name to its module (the current versions, as
PettingZoo's);
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

#: Each environment's module, by name (``"liars_dice_v1"``), as PettingZoo's ``all_environments``.
all_environments = {entry.module_name: importlib.import_module(f"dice_envs.{entry.module_name}")
                    for entry in GAMES.values() if entry.env is not None}
#: The earlier versions' modules that stay (``"liars_dice_v0"``), for the models trained on them.
earlier_environments = {name: importlib.import_module(f"dice_envs.{name}")
                        for entry in GAMES.values() for name in entry.earlier_module_names}

#: Single-agent Gymnasium versions (the other seats played by a chosen opponent): entry point by name.
single_agent_environments = {name: point for entry in GAMES.values() if entry.gymnasium
                             for name, point, _ in (entry.gymnasium, *entry.earlier_gymnasium)}

#: Batched versions of the single-agent ids, for ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``.
vector_environments = {name: point for entry in GAMES.values() if entry.gymnasium
                       for name, _, point in (entry.gymnasium, *entry.earlier_gymnasium)}


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
        if entry.env is not None:
            for version in (entry.version, *entry.earlier_versions):
                env_id = f"dice_envs/{entry.name}-v{version}"
                if env_id not in pettingzoo.aec_registry:
                    pettingzoo.register("aec", env_id, entry_point=f"dice_envs.{entry.name}_v{version}:env")
        if entry.gymnasium is None:
            continue
        for name, entry_point, vector_entry_point in (entry.gymnasium, *entry.earlier_gymnasium):
            new, old = "dice_envs/" + name, game_id(name)
            if new not in gymnasium.registry:
                gymnasium.register(new, entry_point=entry_point, vector_entry_point=vector_entry_point)
            # dice_envs 0.1 also knew its single-agent versions (all v0) by PettingZoo's ids
            if name.endswith("-v0") and old not in gymnasium.registry:
                gymnasium.register(old, entry_point=functools.partial(_old_id, entry_point, old, new),
                                   vector_entry_point=functools.partial(_old_id, vector_entry_point, old, new))


install_moved_modules()
_register_all()

__all__ = ["all_environments", "earlier_environments", "single_agent_environments", "vector_environments", "game_id",
           "__version__", *all_environments, *earlier_environments]
