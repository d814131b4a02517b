"""Train MaskablePPO on Zombie Dice (All Yellow, or ``--variant official``) and score it exactly
against optimal play: ``dice-envs train ayzd`` and ``dice-envs train zombie-dice`` with their options as
flags and no preset (:func:`dice_envs.agents.zombie_dice.training.main`)."""

import sys

from dice_envs.agents.zombie_dice.training import main

if __name__ == "__main__":
    sys.exit(main())
