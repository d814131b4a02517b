import sys

from dice_envs.agents.cli import main

sys.exit(main())
