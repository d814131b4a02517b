"""Closest Number: the PettingZoo AEC environment, documented in :mod:`dice_envs.games.closest_number.env`."""

from dice_envs.games.closest_number.env import env, raw_env

__all__ = ["env", "raw_env"]
