"""Train MaskablePPO on Pig and score it exactly against optimal play: ``dice-envs train pig`` with
its options as flags and no preset (:func:`dice_envs.agents.pig.training.main`)."""

import sys

from dice_envs.agents.pig.training import main

if __name__ == "__main__":
    sys.exit(main())
