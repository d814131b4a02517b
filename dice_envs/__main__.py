import sys

from dice_envs.cli import main

sys.exit(main())
