"""Liar's Dice, one round, version 0: the observation without the dice counts, kept for the models
trained on it (:mod:`dice_envs.liars_dice_v1` is the current version; both are documented in
:mod:`dice_envs.games.liars_dice.env`)."""

from dice_envs.games.liars_dice.env import env_v0 as env
from dice_envs.games.liars_dice.env import raw_env_v0 as raw_env

__all__ = ["env", "raw_env"]
