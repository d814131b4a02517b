"""Train a network for Liar's Dice by full-width optimistic magnetic mirror descent, scored
exactly: ``dice-envs train liars-dice --preset mmd-full-width`` with its options as flags
(:func:`dice_envs.agents.liars_dice.full_width.main`)."""

import sys

from dice_envs.agents.liars_dice.full_width import main

if __name__ == "__main__":
    sys.exit(main())
