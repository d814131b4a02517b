"""The Shakes: the PettingZoo AEC environment, documented in :mod:`dice_envs.games.shakes.env`."""

from dice_envs.games.shakes.env import MODES, env, raw_env

__all__ = ["env", "raw_env", "MODES"]
