"""Liar's Dice, the whole game: the PettingZoo AEC environment, documented in
:mod:`dice_envs.games.liars_dice.match_env`."""

from dice_envs.games.liars_dice.match_env import env, raw_env

__all__ = ["env", "raw_env"]
