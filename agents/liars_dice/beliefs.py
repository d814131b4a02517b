"""Public beliefs of two-player Liar's Dice: each player's range over its possible hands, given the bids.

Dice are dealt independently and a player's bids depend only on its own dice and the bids before
them, so along a history ``h`` the probability that player ``p`` holds hand ``r`` follows from
``p``'s policy alone (Bayes' rule)::

    P(r | h) ∝ P(r) * prod over p's decisions in h of pi(a | r, prefix)

Both players' ranges are public: anyone who knows the policy can compute them from the bids.  A
policy that takes them as inputs (:func:`belief_features`, the mover's range then the other
player's) is still a fixed function of (own dice, bids): the range at a decision depends only on
the policy at earlier decisions, so it is computed depth by depth from the first bid.

* :class:`Hands`: every player's possible hands (counts per face) and their log-chances, padded to
  the longer list so that both players' ranges stack as ``(n, 2, K)`` arrays;
* :meth:`Hands.update`: one decision's step of Bayes' rule, in log space (what the batched play
  carries along each game, one decision at a time);
* :func:`beliefs_at`: the ranges at any batch of observations, computed from scratch by depth
  over the public histories they share (what an exact scoring of a belief-taking network needs).

Where a player's policy gives the bid made no probability with any of its hands (a response
outside that policy's own play), its range starts again from the chances of the deal: a range is
defined at every public history.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from dice_envs.core.dice import roll_counts
from dice_envs.games.liars_dice.rules import LiarsDiceGame

__all__ = ["Hands", "PolicyWithBeliefs", "belief_features", "beliefs_at", "highbit", "histories_through", "popcount",
           "public_nodes"]

#: ``policy(observations, masks, features) -> (n, A) probabilities``: a policy that takes the
#: ranges (:func:`belief_features`) as inputs
PolicyWithBeliefs = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


class Hands:
    """Every player's possible hands of a two-player game, as counts per face, and their
    log-chances.  Both players' lists are padded to the longer one (``K`` hands) with impossible
    hands (no dice, log-chance ``-inf``), so that both players' ranges stack.

    Attributes:
        counts: ``(2, K, faces)`` float32 counts per face of each player's hands.
        log_prior: ``(2, K)`` their log-chances (``-inf`` for the padding).
        K: the longer list's length.
    """

    def __init__(self, game: LiarsDiceGame):
        if game.num_players != 2:
            raise ValueError(f"public beliefs here are for two-player Liar's Dice, got {game.num_players} players")
        self.game = game
        rolls = [roll_counts(game.die, n) for n in game.dice]
        self.K = max(map(len, rolls))
        self.counts = np.zeros((2, self.K, game.faces), np.float32)
        self.log_prior = np.full((2, self.K), -np.inf)
        for player, outcomes in enumerate(rolls):
            for k, (counts, probability) in enumerate(outcomes):
                self.counts[player, k] = counts
                self.log_prior[player, k] = np.log(float(probability))

    @property
    def features(self) -> int:
        """The number of inputs :func:`belief_features` gives a network: ``2 K``."""
        return 2 * self.K

    def prior(self, n: int) -> np.ndarray:
        """``n`` copies of both players' log-chances: the ranges before any bid, ``(n, 2, K)``."""
        return np.repeat(self.log_prior[None], n, axis=0)

    def with_hands(self, obs: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """``obs`` (``(n, D)``) once per possible hand of its ``seat``'s player, that hand's counts
        in place of the observation's own dice: ``(n, K, D)`` (the padding: no dice)."""
        g = self.game
        out = np.repeat(obs[:, None, :], self.K, axis=1)
        out[:, :, g.num_players:g.num_players + g.faces] = self.counts[seat]
        return out

    def update(self, log_beliefs: np.ndarray, seat: np.ndarray, by_hand: np.ndarray, action: np.ndarray) -> None:
        """Bayes' rule at one decision of each row, in place: ``log_beliefs`` (``(n, 2, K)``)
        gains, in the mover's (``seat``'s) range, the log-probability ``by_hand`` (``(n, K, A)``,
        the mover's policy had it held each hand) gives the ``action`` taken.  A range that no hand
        can have made the action starts again from the chances of the deal."""
        rows = np.arange(len(seat))
        with np.errstate(divide="ignore"):
            mover = log_beliefs[rows, seat] + np.log(by_hand[rows, :, action])
        lost = ~np.isfinite(mover).any(1)
        mover[lost] = self.log_prior[seat[lost]]
        log_beliefs[rows, seat] = mover


def belief_features(log_beliefs: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """A network's belief inputs at decisions of ``seat``: the mover's range, then the other
    player's, each normalised to probabilities over the ``K`` hands; ``(n, 2 K)`` float32."""
    rows = np.arange(len(seat))
    ordered = np.stack([log_beliefs[rows, seat], log_beliefs[rows, 1 - seat]], axis=1)  # (n, 2, K)
    shifted = np.exp(ordered - ordered.max(2, keepdims=True))
    return (shifted / shifted.sum(2, keepdims=True)).reshape(len(seat), -1).astype(np.float32)


def public_nodes(game: LiarsDiceGame, observations: np.ndarray) -> np.ndarray:
    """The public node of each observation: the bids made, as a bitmask (bit ``b``: bid ``b``)."""
    lo = game.num_players + game.faces
    bits = np.asarray(observations)[:, lo:lo + game.num_bids] > 0.5
    return bits.astype(np.int64) @ (np.int64(1) << np.arange(game.num_bids, dtype=np.int64))


def highbit(nodes: np.ndarray) -> np.ndarray:
    """The highest set bit of each node (the last bid made; -1 at the root)."""
    out = np.full(nodes.shape, -1, np.int64)
    rest = nodes.copy()
    k = 0
    while rest.any():
        out[rest & 1 == 1] = k
        rest >>= 1
        k += 1
    return out


def popcount(nodes: np.ndarray) -> np.ndarray:
    """The number of set bits of each node (the bids made)."""
    out = np.zeros(nodes.shape, np.int64)
    rest = nodes.copy()
    while rest.any():
        out += rest & 1
        rest >>= 1
    return out


def histories_through(nodes: np.ndarray) -> np.ndarray:
    """Every public node on the way to ``nodes`` (bitmasks of the bids made): each node and its
    ancestors down to the root (0), sorted, each once.  A node's parent is itself without its
    highest bit (its last bid), so the sorted list is visited depth by depth from the root by
    :func:`popcount`."""
    nodes = np.asarray(nodes, np.int64)
    on_the_way, frontier = [np.zeros(1, np.int64)], np.unique(nodes)
    while len(frontier):
        on_the_way.append(frontier)
        frontier = frontier[frontier > 0]
        frontier = np.unique(frontier & ~(np.int64(1) << highbit(frontier)))
    return np.unique(np.concatenate(on_the_way))


def _decisions_at(game: LiarsDiceGame, nodes: np.ndarray, mover: np.ndarray):
    """The observation (own dice left empty) and legal actions of the mover at each public node."""
    g = game
    n = len(nodes)
    obs = np.zeros((n, g.observation_shape[0]), np.float32)
    obs[np.arange(n), mover] = 1.0
    lo = g.num_players + g.faces
    obs[:, lo:lo + g.num_bids] = (nodes[:, None] >> np.arange(g.num_bids)) & 1
    obs[:, g.prefix_size:] = g.dice
    mask = np.zeros((n, g.num_actions), bool)
    mask[:, :g.num_bids] = np.arange(g.num_bids) > highbit(nodes)[:, None]
    mask[:, g.call_action] = nodes > 0
    return obs, mask


def beliefs_at(hands: Hands, policy: PolicyWithBeliefs, observations: np.ndarray) -> np.ndarray:
    """Both players' log-ranges, ``(n, 2, K)``, at the public node of each observation, when both
    play ``policy`` (given the ranges as inputs, :func:`belief_features`).

    Every public node on the way to the observations' nodes is visited once, depth by depth: at
    each, ``policy`` is asked for every hand of its mover, with the ranges there, and the children
    on the way get the ranges Bayes' rule (:meth:`Hands.update`) gives after their bid.  A batch
    whose nodes share their histories (a whole tree, a block of it) asks ``policy`` about as many
    rows as it has."""
    game = hands.game
    nodes = public_nodes(game, observations)
    visited = histories_through(nodes)
    depth = popcount(visited)
    mover = (depth + game.starting_player) % 2
    bid = highbit(visited)
    parent = np.searchsorted(visited, visited & ~(np.int64(1) << np.maximum(bid, 0)))  # (the root: itself)
    log_beliefs = hands.prior(len(visited))
    for d in range(int(depth.max())):
        children = np.flatnonzero(depth == d + 1)
        parents, back = np.unique(parent[children], return_inverse=True)
        obs, mask = _decisions_at(game, visited[parents], mover[parents])
        K = hands.K
        rows = hands.with_hands(obs, mover[parents]).reshape(len(parents) * K, -1)
        features = np.repeat(belief_features(log_beliefs[parents], mover[parents]), K, axis=0)
        possible = np.isfinite(hands.log_prior[mover[parents]]).reshape(-1)
        asked = np.zeros((len(parents) * K, game.num_actions))
        asked[possible] = policy(rows[possible], np.repeat(mask, K, axis=0)[possible], features[possible])
        by_hand = asked.reshape(len(parents), K, -1)
        after = log_beliefs[parents][back]
        hands.update(after, mover[parents][back], by_hand[back], bid[children])
        log_beliefs[children] = after
    return log_beliefs[np.searchsorted(visited, nodes)]
