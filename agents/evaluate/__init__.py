"""Scoring any agent: the observation-agent contract, model loaders, opponents."""
