"""Pig: the optimal policy, exact scoring of learned models, opponents, the single-agent
environments, its plot and the commands."""
