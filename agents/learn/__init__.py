"""Game-agnostic learning: trained networks as policies, what every training run needs, and the
jeopardy games' training loop (the game passed in)."""
