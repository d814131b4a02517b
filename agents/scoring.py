"""Exact scores of any agent, in one shape for every game: ``dice-envs evaluate GAME AGENT``.

:func:`score` takes a game (one of :func:`evaluations`), an agent (a saved model, a
``module:function`` over observations, see :mod:`dice_envs.agents.evaluate.observation_agents`,
or one of the game's named policies) and the game's settings, asks the agent for its
decision in every information state of the game at once, and evaluates that strategy
exactly against the game's optimum: the optimal policy in the jeopardy games (win
probabilities from both seats, the Difference of Neller et al.'s All Yellow Zombie Dice
paper), the equilibrium in the two-player zero-sum games of hidden dice (payoffs from both
seats, and the exploitability of the agent's own strategy), and the Bayes-optimal policy
where a single decision maker plays.

Every game answers with the same keys (:mod:`dice_envs.agents.evaluate.report`).  Each game's
room says how its agents are scored (``dice_envs.agents.<room>.evaluation``), and its
:mod:`dice_envs.registry` entry where.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Dict, Optional

from dice_envs.agents.evaluate.report import Evaluation, score_agent
from dice_envs.registry import GAMES, load

__all__ = ["evaluations", "score"]


@lru_cache(maxsize=None)
def _evaluations() -> Dict[str, Evaluation]:
    found: Dict[str, Evaluation] = {}
    for entry in GAMES.values():
        for evaluation in load(entry.evaluations) if entry.evaluations else ():
            found[evaluation.name] = evaluation
    return found


def evaluations() -> Dict[str, Evaluation]:
    """Every game's :class:`~dice_envs.agents.evaluate.report.Evaluation`, by its command-line name
    (``"ayzd"``, ``"pig"``, ``"liars-dice"``...), in the registry's order."""
    return dict(_evaluations())


def score(game: str, agent, greedy: Optional[bool] = None, **config) -> dict:
    """Score ``agent`` exactly in ``game`` with ``config`` (see the module docstring).

    Args:
        game: one of :func:`evaluations`.
        agent: an :class:`~dice_envs.agents.evaluate.observation_agents.Agent`, a path to a saved
            model, ``module:function``, or a name the game knows (``optimal``, ``random``,
            the human-playable Zombie Dice policies, ``hold_at_20``...).
        greedy: score a loaded network's greedy decisions or its probabilities (default:
            probabilities in the games whose optimum is mixed, greedy decisions elsewhere).
        config: the game's settings (``goal``, ``faces``, ``num_players``...).

    Raises:
        ValueError: an unknown game, agent or setting, or an agent that does not fit the game.
    """
    known = _evaluations()
    if game not in known:
        raise ValueError(f"game must be one of {list(known)}, got {game!r}")
    return score_agent(known[game], agent, greedy, **config)
