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
    env = gymnasium.make("dice_envs/LiarsDiceMatch-v0", opponent="equilibrium")  # the whole game
    env = gymnasium.make("dice_envs/Pig-v0", opponent="optimal")
    env = gymnasium.make("dice_envs/ClosestNumber-v0", opponent="equilibrium")
    env = gymnasium.make("dice_envs/Shakes-v0", num_players=4)  # the court: one decision maker

``all_environments`` maps each environment name to its module;
``single_agent_environments`` maps each Gymnasium id to its entry point.
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from . import closest_number_v0, liars_dice_match_v0, liars_dice_v0, pig_v0, shakes_v0, zombie_dice_v0

__version__ = "0.1.0"

all_environments = {
    "zombie_dice_v0": zombie_dice_v0,
    "shakes_v0": shakes_v0,
    "pig_v0": pig_v0,
    "liars_dice_v0": liars_dice_v0,
    "liars_dice_match_v0": liars_dice_match_v0,
    "closest_number_v0": closest_number_v0,
}


# Single-agent Gymnasium versions (the other seats played by a chosen opponent).
single_agent_environments = {
    "ZombieDice-v0": "dice_envs.zombie_dice_gym:ZombieDiceEnv",
    "LiarsDice-v0": "dice_envs.liars_dice_gym:LiarsDiceEnv",
    "LiarsDiceMatch-v0": "dice_envs.liars_dice_match_gym:LiarsDiceMatchEnv",
    "Pig-v0": "dice_envs.pig_gym:PigEnv",
    "ClosestNumber-v0": "dice_envs.closest_number_gym:ClosestNumberEnv",
    "Shakes-v0": "dice_envs.shakes_gym:ShakesEnv",
}

# Batched versions of the single-agent ids, for gymnasium.make_vec(..., vectorization_mode="vector_entry_point").
vector_environments = {
    "ZombieDice-v0": "dice_envs.zombie_dice_gym:ZombieDiceVectorEnv",
    "LiarsDice-v0": "dice_envs.liars_dice_gym:LiarsDiceVectorEnv",
    "LiarsDiceMatch-v0": "dice_envs.liars_dice_match_gym:LiarsDiceMatchVectorEnv",
    "Pig-v0": "dice_envs.pig_gym:PigVectorEnv",
    "ClosestNumber-v0": "dice_envs.closest_number_gym:ClosestNumberVectorEnv",
    "Shakes-v0": "dice_envs.shakes_gym:ShakesVectorEnv",
}


def game_id(gymnasium_name: str) -> str:
    """The one name of a game, PettingZoo's id, from its Gymnasium name:
    ``"LiarsDiceMatch-v0"`` -> ``"dice_envs/liars_dice_match-v0"``.  Gymnasium knows every
    single-agent version under both ids; PettingZoo's registry under this one."""
    import re

    return "dice_envs/" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", gymnasium_name).lower()


def _register_all() -> None:
    for name, module in all_environments.items():
        env_id = "dice_envs/" + name.replace("_v", "-v")
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=f"{module.__name__}:env")
    for name, entry_point in single_agent_environments.items():
        for env_id in ("dice_envs/" + name, game_id(name)):  # Gymnasium's spelling, and PettingZoo's
            if env_id not in gymnasium.registry:
                gymnasium.register(env_id, entry_point=entry_point,
                                   vector_entry_point=vector_environments.get(name))


_register_all()

__all__ = [
    "all_environments", "single_agent_environments", "closest_number_v0", "liars_dice_match_v0", "liars_dice_v0", "pig_v0", "shakes_v0",
    "zombie_dice_v0", "game_id", "__version__",
]
