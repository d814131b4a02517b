"""One room per game: its rules core, its batched rules, its PettingZoo environment and its picture."""
