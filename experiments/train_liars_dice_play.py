"""Train a Liar's Dice learner from sampled games (``--method escher``, the default, ``mmd``,
``ppo`` or ``mccfr``), scored exactly: ``dice-envs train liars-dice`` with its options as flags and no
preset (:func:`dice_envs.agents.liars_dice.play_training.main`)."""

import sys

from dice_envs.agents.liars_dice.play_training import main

if __name__ == "__main__":
    sys.exit(main())
