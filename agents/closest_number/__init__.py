"""Closest Number: round 1 alone and the two-player equilibrium, exact scoring of any agent,
opponents, the single-agent environments and the commands."""
