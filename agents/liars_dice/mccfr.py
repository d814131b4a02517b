"""Outcome-sampling Monte Carlo CFR for two-player Liar's Dice, learned from sampled games.

:class:`OutcomeSamplingCFR` is outcome-sampling MCCFR (Lanctot, Waugh, Zinkevich and
Bowling 2009, "Monte Carlo Sampling for Regret Minimization in Extensive Games") over
tables of every information state (the rows of
:class:`dice_envs.agents.liars_dice.learned.InfoStates`).  It never walks the game tree:
each :meth:`~OutcomeSamplingCFR.iterate` plays a batch of games of the batched
environment (:class:`dice_envs.games.liars_dice.batched.LiarsDiceBatch`) from fresh deals to the
end, every seat sampling from ``(1 - explore) sigma + explore uniform`` (``sigma``: regret
matching on the cumulative regrets), and learns from what those games reveal: the
information state and action of every decision, the probabilities they were played with,
and the payoffs.  Both players' regrets are updated from every game.

For a decision of player ``i`` at history ``h`` with the sampled action ``a*``, in a game
``z`` sampled with probability ``q(z)`` (the players' sampling probabilities; chance
cancels), the sampled counterfactual value of playing ``a*`` is
``W = u_i(z) pi_-i(h) pi(h a*, z) / q(z)`` (``pi_-i(h)``: the opponent's reach under
``sigma``; ``pi(h a*, z)``: both players' ``sigma`` probabilities after ``a*``), and the
sampled regrets are ``W (1[a = a*] - sigma(a*))`` over the legal actions.  The average
policy accumulates ``sigma`` weighted by the player's own reach over the sampling
probability of reaching ``h`` (stochastically weighted averaging), times the iteration
number (linear averaging); ``regret_discount`` (``d``) multiplies the cumulative regrets
by ``t^d / (t^d + 1)`` after iteration ``t`` (``d = 1``: Linear CFR, Brown and Sandholm
2019).  Each iteration's increments are the batch's means, so an iteration counts the same
whatever the batch size.

The average policy converges to a Nash equilibrium as the iterations grow.  The tables
are indexed by the game's information states (enumerated once, to lay them out), but no
value is ever computed on the game tree: the payoffs come from the sampled games alone.
"""

from __future__ import annotations

import numpy as np

from dice_envs.envs.batched import categorical


def uniform_policy(mask: np.ndarray) -> np.ndarray:
    """``(rows, A)``: the uniform policy over each row's legal actions (``mask``)."""
    return mask / mask.sum(1, keepdims=True).clip(1)


def sample_mixed(policy: np.ndarray, uniform: np.ndarray, explore: float, rng: np.random.Generator) -> tuple:
    """One action per row from the sampling policy ``(1 - explore) policy + explore uniform``
    (all ``(n, A)``); returns the actions and that policy's probabilities."""
    mu = (1.0 - explore) * policy + explore * uniform
    cum = np.cumsum(mu, axis=1)
    return categorical(rng.random(len(mu)), cum / cum[:, -1:]), mu


class OutcomeSamplingCFR:
    """Outcome-sampling MCCFR tables for every information state of ``states``.

    Args:
        states: :class:`~dice_envs.agents.liars_dice.learned.InfoStates` of the game (its
            rows index the tables; :meth:`InfoStates.rows` maps the environment's
            observations to them).
        explore: the uniform share of the sampling policy at every decision, in (0, 1].
        regret_discount: ``d`` above (0: plain regret matching, no discount).
    """

    def __init__(self, states, explore: float = 0.3, regret_discount: float = 0.0):
        if not 0.0 < explore <= 1.0:
            raise ValueError(f"explore must be in (0, 1] (outcome sampling needs every action sampled), got {explore}")
        if not regret_discount >= 0.0:
            raise ValueError(f"regret_discount must be >= 0, got {regret_discount}")
        self.states, self.explore, self.regret_discount = states, explore, regret_discount
        self.mask = states.mask
        self.uniform = uniform_policy(self.mask)
        self.regret = np.zeros(self.mask.shape)
        self.average = np.zeros(self.mask.shape)
        self.iterations = 0

    def current_policy(self) -> np.ndarray:
        """``(rows, A)``: regret matching on the cumulative regrets (uniform where none is positive)."""
        return self._normalised(np.maximum(self.regret, 0.0) * self.mask)

    def average_policy(self) -> np.ndarray:
        """``(rows, A)``: the average policy (uniform at information states never sampled)."""
        return self._normalised(self.average)

    def _normalised(self, weights: np.ndarray) -> np.ndarray:
        total = weights.sum(1, keepdims=True)
        return np.where(total > 0, weights / np.where(total > 0, total, 1.0), self.uniform)

    def iterate(self, batch, rng: np.random.Generator) -> int:
        """One iteration: play every game of ``batch`` to the end with the sampling policy
        and update the regrets and the average; returns the number of agent steps played."""
        sigma = self.current_policy()
        n = batch.num_envs
        batch.reset(rng)
        own_reach = np.ones((n, 2))  # each player's sigma-reach of the history so far
        sampled = np.ones(n)  # the sampling probability of the history so far
        payoff = np.zeros((n, 2))
        decisions = []
        while True:
            idx = np.flatnonzero(~batch.done)
            if not len(idx):
                break
            rows = self.states.rows(batch.observe_mover(where=idx))
            mover = batch.current_player(where=idx)
            s = sigma[rows]
            action, mu = sample_mixed(s, self.uniform[rows], self.explore, rng)
            k = np.arange(len(idx))
            decisions.append((idx, rows, mover, action, s[k, action], own_reach[idx, mover], own_reach[idx, 1 - mover],
                              sampled[idx]))
            own_reach[idx, mover] *= s[k, action]
            sampled[idx] *= mu[k, action]
            rewards, _ = batch.step(action, rng, where=idx)
            payoff[idx] += rewards
        self.iterations += 1
        t = self.iterations
        tail = np.ones(n)  # both players' sigma-probability of the rest of the game, after each decision
        for idx, rows, mover, action, s_a, reach, opp_reach, sampled_h in reversed(decisions):
            value = payoff[idx, mover] * opp_reach * tail[idx] / sampled[idx]  # W above
            regret = -(value * s_a)[:, None] * self.mask[rows]
            regret[np.arange(len(idx)), action] += value
            np.add.at(self.regret, rows, regret / n)
            np.add.at(self.average, rows, (t * reach / sampled_h / n)[:, None] * sigma[rows])
            tail[idx] *= s_a
        if self.regret_discount:
            self.regret *= 1.0 / (1.0 + float(t) ** -self.regret_discount)  # t^d / (t^d + 1), without overflow
        return sum(len(d[0]) for d in decisions)

    def state_dict(self) -> dict:
        """The tables and the iteration count (numpy arrays)."""
        return {"regret": self.regret.copy(), "average": self.average.copy(),
                "iterations": np.array(self.iterations, np.int64)}

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict`; ``ValueError`` naming the problem if an entry is
        missing, a table does not fit this game, holds non-finite numbers or weight on
        illegal actions, the average a negative weight, or the count is not a whole
        number >= 0."""
        missing = [k for k in ("regret", "average", "iterations") if k not in state]
        if missing:
            raise ValueError(f"the tables lack {', '.join(missing)}")
        regret, average = (np.asarray(state[k], np.float64) for k in ("regret", "average"))
        for name, table in (("regret", regret), ("average", average)):
            if table.shape != self.mask.shape:
                raise ValueError(f"the {name} table has shape {table.shape}, this game's is {self.mask.shape}")
            if not np.isfinite(table).all():
                raise ValueError(f"non-finite numbers in the {name} table")
            if (table[~self.mask] != 0).any():
                raise ValueError(f"the {name} table has entries on illegal actions")
        if (average < 0).any():
            raise ValueError("negative weights in the average table")
        count = np.asarray(state["iterations"])
        if count.shape != () or not np.issubdtype(count.dtype, np.integer) or int(count) < 0:
            raise ValueError(f"the iteration count must be a whole number >= 0, got {count!r}")
        iterations = int(count)
        self.regret, self.average, self.iterations = regret, average, iterations
