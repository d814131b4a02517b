"""Zombie Dice: the optimal policies (official dice and All Yellow), the human-playable policies of
Neller et al., opponents, learned models, the single-agent environment, plots and the commands."""
