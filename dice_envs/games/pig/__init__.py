"""Pig: the rules core, its batched copy, the PettingZoo environment and the picture."""
