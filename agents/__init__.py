"""Policies, exact solvers and exact evaluation for the games in ``dice_envs``."""
