"""Liar's Dice: one round (rules, batched rules, environment, picture) and the whole game of
losing dice (``match``, ``match_batched``, ``match_env``, ``match_picture``)."""
