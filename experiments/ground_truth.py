"""The main job: solve every game, print its ground-truth tables and baseline scores, and write them
as JSON and plots to ``results/`` (:mod:`dice_envs.agents.cli.ground_truth`).

Run it with ``./run main`` (or ``python experiments/ground_truth.py --out DIR --only pig``).
"""

import sys

from dice_envs.agents.cli.ground_truth import main

if __name__ == "__main__":
    sys.exit(main())
