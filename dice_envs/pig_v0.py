"""Pig: the PettingZoo AEC environment, documented in :mod:`dice_envs.games.pig.env`."""

from dice_envs.games.pig.env import env, raw_env

__all__ = ["env", "raw_env"]
