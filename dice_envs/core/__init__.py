"""The ground floor: exact dice (:mod:`~dice_envs.core.dice`), the rules-core protocol
(:mod:`~dice_envs.core.game`, whose names are also here), argument checks, resource guards, atomic
files and the jeopardy games' observation encodings."""

from dice_envs.core.game import CHANCE, TERMINAL, Game, GameState, IllegalActionError, play_out, sample_action

__all__ = ["CHANCE", "TERMINAL", "Game", "GameState", "IllegalActionError", "play_out", "sample_action"]
