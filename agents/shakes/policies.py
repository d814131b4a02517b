"""Policies for The Shakes, each as exact choice probabilities from the public record.

A court policy is a function ``policy(efficacies, record) -> probabilities``
where ``efficacies`` is the game's known multiset (``ShakesRules.efficacies``)
and ``record`` is ``((treated, saved), ...)`` per treatment; it returns the
probability of giving the next patient to each treatment (Fractions).

* :func:`dice_rule`: the source document's argument (every maester argues; see
  :mod:`dice_envs.agents.shakes.argument`).
* :func:`thompson`: exact Thompson sampling under the game's true prior, where
  the efficacies are a uniformly random arrangement of the known multiset: draw an
  arrangement from the posterior and treat with its most effective treatment,
  i.e. choose ``i`` with the posterior probability that ``i`` holds the highest
  card (unique in every player count).
* :func:`greedy`: the highest posterior mean efficacy (ties split evenly).
* :func:`uniform_random`: every treatment equally likely.

The posterior of an arrangement ``sigma`` is proportional to
``prod_i e_sigma(i)^s_i (6 - e_sigma(i))^(t_i - s_i)``, an integer, so everything
here is exact.  :class:`CourtAgent` plays any such policy in the court
environment; :func:`always_argue` and :func:`argue_if_best` are joint policies
for the maesters environment.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from dice_envs.agents.shakes.argument import argument_win_probabilities
from dice_envs.games.shakes.rules import ARGUE, YIELD, CourtState, MaestersState, deal_distribution

Policy = Callable[[Tuple[int, ...], tuple], Sequence]


def posterior(efficacies, record):
    """``[(arrangement, Fraction)]``: the posterior over the dealt cards given the record."""
    weights = []
    for perm, _ in deal_distribution(tuple(sorted(efficacies, reverse=True))):
        w = 1
        for e, (t, s) in zip(perm, record):
            w *= e**s * (6 - e) ** (t - s)
        weights.append((perm, w))
    total = sum(w for _, w in weights)
    return [(perm, Fraction(w, total)) for perm, w in weights if w]


def success_probabilities(efficacies, record) -> Tuple[Fraction, ...]:
    """Posterior probability that each treatment saves the next patient."""
    n = len(record)
    out = [Fraction(0)] * n
    for perm, p in posterior(efficacies, record):
        for i in range(n):
            out[i] += p * Fraction(perm[i], 6)
    return tuple(out)


def thompson(efficacies, record) -> Tuple[Fraction, ...]:
    """Exact Thompson sampling: ``P(treatment i has the highest efficacy | record)``."""
    n = len(record)
    top = max(efficacies)
    out = [Fraction(0)] * n
    for perm, p in posterior(efficacies, record):
        best = [i for i in range(n) if perm[i] == top]
        for i in best:
            out[i] += p / len(best)
    return tuple(out)


def greedy(efficacies, record) -> Tuple[Fraction, ...]:
    """The treatment with the highest posterior mean efficacy; ties split evenly."""
    means = success_probabilities(efficacies, record)
    best = max(means)
    winners = [i for i, m in enumerate(means) if m == best]
    return tuple(Fraction(1, len(winners)) if i in winners else Fraction(0) for i in range(len(record)))


def uniform_random(efficacies, record) -> Tuple[Fraction, ...]:
    """Every treatment with probability ``1 / n``."""
    return (Fraction(1, len(record)),) * len(record)


def dice_rule(efficacies, record) -> Tuple[Fraction, ...]:
    """The source document's argument: the probability that each maester wins it."""
    return argument_win_probabilities(record)


POLICIES: Dict[str, Policy] = {
    "dice_rule": dice_rule,
    "thompson": thompson,
    "greedy": greedy,
    "random": uniform_random,
}


class CourtAgent:
    """Plays a court policy in the court environment: samples from its probabilities."""

    def __init__(self, policy: Policy, rng: Optional[np.random.Generator] = None):
        self.policy = policy
        self.rng = rng if rng is not None else np.random.default_rng()

    def act(self, state: CourtState) -> int:
        probs = np.array([float(p) for p in self.policy(state.rules.efficacies, state.record)])
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    __call__ = act


# -- joint policies for the maesters environment ---------------------------------------


def always_argue(state: MaestersState, seat: int) -> int:
    """The source document's play: every maester argues every round."""
    return ARGUE


def argue_if_best(state: MaestersState, seat: int) -> int:
    """Best joint play (cooperative): argue only with the highest card.

    The highest efficacy is unique and its holder knows it, so exactly one maester
    argues and every patient gets the best treatment: the full-information optimum.
    """
    return ARGUE if state.efficacies[seat] == max(state.rules.efficacies) else YIELD
