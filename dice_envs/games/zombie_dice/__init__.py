"""Zombie Dice, with the official dice or All Yellow: the rules core, its batched copy, the
PettingZoo environment and the picture."""
