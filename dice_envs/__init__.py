"""dice_envs: fully solved dice games as PettingZoo environments.

After ``import dice_envs`` every game is in PettingZoo's registry::

    import pettingzoo, dice_envs
    env = pettingzoo.make("aec", "dice_envs/zombie_dice-v0", variant="all_yellow")

and in module form, as PettingZoo's own environments are::

    env = dice_envs.zombie_dice_v0.env(render_mode="ansi")

``all_environments`` maps each environment name to its module.
"""

from __future__ import annotations

import pettingzoo

from . import closest_number_v0, liars_dice_v0, pig_v0, shakes_v0, zombie_dice_v0

__version__ = "0.1.0"

all_environments = {
    "zombie_dice_v0": zombie_dice_v0,
    "shakes_v0": shakes_v0,
    "pig_v0": pig_v0,
    "liars_dice_v0": liars_dice_v0,
    "closest_number_v0": closest_number_v0,
}


def _register_all() -> None:
    for name, module in all_environments.items():
        env_id = "dice_envs/" + name.replace("_v", "-v")
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=f"{module.__name__}:env")


_register_all()

__all__ = [
    "all_environments", "closest_number_v0", "liars_dice_v0", "pig_v0", "shakes_v0", "zombie_dice_v0", "__version__",
]
