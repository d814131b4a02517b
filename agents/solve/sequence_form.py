"""Exact equilibrium of a small two-player zero-sum game by the sequence-form LP.

Koller, Megiddo and von Stengel (1996): a behaviour strategy of player ``p`` is
represented by its *realisation plan* ``x`` over ``p``'s sequences (the
information-state/action pairs on the way to a node), constrained by
``E x = e, x >= 0`` (the empty sequence has weight 1, and each information
state passes its parent sequence's weight on to its actions).  With ``A`` the
payoff matrix of player 0 over pairs of sequences (chance probabilities folded
in), the game value is

    max_x min_y x^T A y  =  max_{x, q} e1^T q   s.t.  F^T q <= A^T x,  E x = e,  x >= 0,

one linear program, solved here with ``scipy.optimize.linprog`` (HiGHS).  Player
1's equilibrium plan ``y`` is read off the duals of the inequality constraints.

Generic over any game the explicit tree of :mod:`dice_envs.agents.solve.game_tree` can hold;
the LP has one variable per sequence and one nonzero of ``A`` per terminal.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Dict, List

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from dice_envs.agents.solve.game_tree import GameTree

__all__ = ["SequenceForm", "sequence_form", "solve_lp", "LPResult"]


@dataclass
class SequenceForm:
    """``E x = e`` for player 0, ``F y = f`` for player 1, payoff matrix ``A``.

    ``seq_of[p][j]`` is the index of the first sequence (action 0) of information
    state ``j`` of player ``p``; its actions follow consecutively.  Sequence 0 is
    the empty sequence.  ``parent_seq[j]`` is the sequence leading to infoset ``j``.
    """

    tree: GameTree
    num_seqs: List[int]
    seq_of: List[dict]
    parent_seq: dict
    E: sparse.csr_matrix
    F: sparse.csr_matrix
    A: sparse.csr_matrix


def sequence_form(tree: GameTree) -> SequenceForm:
    """Build the sequence form of a two-player zero-sum ``tree``."""
    if tree.game.num_players != 2:
        raise ValueError("the sequence-form LP needs a two-player game")
    seq_of: List[Dict[int, int]] = [{}, {}]
    num = [1, 1]
    for j, info in enumerate(tree.infosets):
        seq_of[info.player][j] = num[info.player]
        num[info.player] += len(info.actions)
    parent_seq: Dict[int, int] = {}
    rows, cols, vals = [], [], []
    # Walk the tree keeping each player's last sequence.
    stack = [(0, 0, 0, 1.0)]
    while stack:
        i, s0, s1, chance = stack.pop()
        k = tree.kind[i]
        if k == "t":
            rows.append(s0)
            cols.append(s1)
            vals.append(chance * tree.payoff[i][0])
        elif k == "c":
            for prob, (_, child) in zip(tree.probs[i], tree.children[i]):
                stack.append((child, s0, s1, chance * float(prob)))
        else:
            j = tree.infoset[i]
            p = tree.player[i]
            mine = s0 if p == 0 else s1
            if parent_seq.setdefault(j, mine) != mine:
                raise ValueError("the game does not have perfect recall")
            first = seq_of[p][j]
            for a, (_, child) in enumerate(tree.children[i]):
                if p == 0:
                    stack.append((child, first + a, s1, chance))
                else:
                    stack.append((child, s0, first + a, chance))
    A = sparse.coo_matrix((vals, (rows, cols)), shape=(num[0], num[1])).tocsr()
    constraints = []
    for p in (0, 1):
        r, c, v = [0], [0], [1.0]
        row = 1
        for j, first in seq_of[p].items():
            if j not in parent_seq:  # unreachable infoset
                continue
            r.append(row)
            c.append(parent_seq[j])
            v.append(-1.0)
            for a in range(len(tree.infosets[j].actions)):
                r.append(row)
                c.append(first + a)
                v.append(1.0)
            row += 1
        constraints.append(sparse.coo_matrix((v, (r, c)), shape=(row, num[p])).tocsr())
    return SequenceForm(tree, num, seq_of, parent_seq, constraints[0], constraints[1], A)


@dataclass
class LPResult:
    """The LP's game value (player 0's payoff) and both players' equilibrium policies."""

    value: float
    policy: List[np.ndarray]  # per infoset, aligned with infoset.actions (both players)
    seconds: float
    num_sequences: List[int]

    def action_probabilities_table(self) -> List[np.ndarray]:
        return self.policy


def _behaviour(sf: SequenceForm, plan: np.ndarray, player: int, table: List[np.ndarray]) -> None:
    for j, first in sf.seq_of[player].items():
        n = len(sf.tree.infosets[j].actions)
        part = np.maximum(plan[first : first + n], 0.0)
        total = part.sum()
        table[j] = part / total if total > 1e-15 else np.full(n, 1.0 / n)


def solve_lp(tree_or_sf) -> LPResult:
    """Solve the sequence-form LP; returns the value and an equilibrium profile."""
    sf = tree_or_sf if isinstance(tree_or_sf, SequenceForm) else sequence_form(tree_or_sf)
    t0 = time.perf_counter()
    n0 = sf.num_seqs[0]
    m1 = sf.F.shape[0]
    # Variables: x (n0, >= 0), q (m1, free).  Maximise q_0 (f = e_1).
    c = np.zeros(n0 + m1)
    c[n0] = -1.0
    A_ub = sparse.hstack([-sf.A.T, sf.F.T]).tocsr()
    b_ub = np.zeros(sf.num_seqs[1])
    A_eq = sparse.hstack([sf.E, sparse.csr_matrix((sf.E.shape[0], m1))]).tocsr()
    b_eq = np.zeros(sf.E.shape[0])
    b_eq[0] = 1.0
    bounds = [(0, None)] * n0 + [(None, None)] * m1
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"sequence-form LP failed: {res.message}")
    x = res.x[:n0]
    y = -res.ineqlin.marginals  # duals of F^T q <= A^T x: player 1's realisation plan
    table: List[np.ndarray] = [None] * len(sf.tree.infosets)  # type: ignore[list-item]  # _behaviour fills all
    _behaviour(sf, x, 0, table)
    _behaviour(sf, y, 1, table)
    return LPResult(float(-res.fun), table, time.perf_counter() - t0, list(sf.num_seqs))
