"""Trained networks as jeopardy-game policies (Zombie Dice, Pig): loading and querying.

The exact solvers ask a policy for its roll probability in every position of their
grid at once; :func:`roll_probabilities` answers that for an SB3 actor-critic in a
few large batches, and :func:`greedy_table` turns the answer into the network's greedy
decisions.  The game modules (:mod:`dice_envs.agents.zombie_dice.learned`,
:mod:`dice_envs.agents.pig.learned`) build the observations.

Needs the ``[train]`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import numpy as np

BATCH = 1 << 17


def load_model(path):
    """The policy of a model saved by Stable-Baselines3 (``MaskablePPO``, or plain ``PPO``), on
    the CPU, rebuilt without unpickling anything from the file (:func:`dice_envs.agents.evaluate.sb3_models.load_policy`)."""
    from dice_envs.agents.evaluate.sb3_models import load_policy

    return load_policy(path)


def roll_probabilities(policy_net, observations: np.ndarray, greedy: bool = True) -> np.ndarray:
    """P(roll) of an SB3 actor-critic policy on a batch of observations where both actions are legal.

    ``greedy``: 1.0 where the network prefers rolling (:func:`greedy_table`; as
    ``predict(deterministic=True)``, a tie goes to hold, action 0), else 0.0;
    otherwise the network's probabilities.
    """
    import torch

    out = np.empty(len(observations), np.float64)
    with torch.no_grad():
        for start in range(0, len(observations), BATCH):
            obs = torch.as_tensor(observations[start : start + BATCH])
            probs = policy_net.get_distribution(obs).distribution.probs.cpu().numpy()
            out[start : start + len(obs)] = probs[:, 1]
    return greedy_table(out) if greedy else out


def greedy_table(probabilities: np.ndarray) -> np.ndarray:
    """Greedy decisions (1.0 = roll) from roll probabilities: roll where P(roll) > 1/2."""
    return (np.asarray(probabilities) > 0.5).astype(np.float64)
