"""Liar's Dice, one round: the PettingZoo AEC environment, documented in :mod:`dice_envs.games.liars_dice.env`."""

from dice_envs.games.liars_dice.env import env, raw_env

__all__ = ["env", "raw_env"]
