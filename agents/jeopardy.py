"""Shared machinery for exact solutions of two-player jeopardy dice games.

In a jeopardy game (Pig, Zombie Dice, ...) a turn is a Markov chain of *turn
states*; in each the player may roll (move along the chain, or bust) or hold
(bank the turn's points and pass the turn).  Banked scores never decrease, so
all the cycles of the game are tiny: a turn that ends with nothing banked (a bust,
or a hold with nothing) passes the move to the opponent at the *same* scores, and
the opponent's bust passes it back.  The positions therefore come in coupled
*pairs* (my turn at scores ``(i, j)``, the opponent's at ``(j, i)``), and a solver
can go through the score grid from high totals to low, solving each pair exactly.

This module holds the game-independent parts:

* :class:`TurnModel`: the within-turn chain (transitions from the dice module);
* :func:`turn_pass`: backward induction over the turn states for a batch of
  positions, with every value kept *affine* in the one unknown of its pair (the
  value of passing the turn at unchanged scores), either choosing roll/hold
  greedily or following given decisions;
* :func:`solve_pairs`: the exact solution of the coupled pairs, by policy
  iteration on that affine form (exact for a fixed policy, and stopping when the
  greedy policy no longer changes).

A game supplies the hold values (from its score grid and end-of-game rule).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

# Rolling is preferred to holding only when it is better by more than this;
# exact ties (and float noise around them) go to holding.
TIE_TOLERANCE = 1e-13


@dataclass(frozen=True)
class TurnModel:
    """The within-turn Markov chain of a jeopardy game.

    Attributes:
        labels: a description of each turn state (game-specific tuples).
        banked: points banked by holding in each state.
        can_hold: whether holding is legal in each state.
        successors, probabilities: for each state, the other states a roll can
            lead to and their probabilities.
        self_loop: probability that a roll leaves the state unchanged.
        bust: probability that a roll ends the turn with nothing.
        order: the states in an order where every successor comes first.
    """

    labels: Tuple[tuple, ...]
    banked: np.ndarray
    can_hold: np.ndarray
    successors: Tuple[np.ndarray, ...]
    probabilities: Tuple[np.ndarray, ...]
    self_loop: np.ndarray
    bust: np.ndarray
    order: np.ndarray

    @property
    def size(self) -> int:
        return len(self.labels)

    @classmethod
    def build(
        cls,
        labels: Sequence[tuple],
        banked: Sequence[int],
        can_hold: Sequence[bool],
        transitions: Callable[[int], Sequence[Tuple[Optional[int], float]]],
    ) -> "TurnModel":
        """Build from ``transitions(t) -> [(next_state or None for bust, probability)]``.

        Raises:
            ValueError: if a state's probabilities do not sum to 1, or the chain has a
                cycle longer than a self-loop (then backward induction is impossible).
        """
        n = len(labels)
        succ, probs, self_loop, bust = [], [], np.zeros(n), np.zeros(n)
        for t in range(n):
            merged: dict = {}
            for nxt, p in transitions(t):
                if nxt is None:
                    bust[t] += p
                elif nxt == t:
                    self_loop[t] += p
                else:
                    merged[nxt] = merged.get(nxt, 0.0) + p
            total = bust[t] + self_loop[t] + sum(merged.values())
            if abs(total - 1.0) > 1e-12:
                raise ValueError(f"turn state {labels[t]} has probabilities summing to {total}")
            succ.append(np.array(sorted(merged), dtype=np.intp))
            probs.append(np.array([merged[k] for k in sorted(merged)], dtype=np.float64))
        order = _topological_order(succ)
        return cls(
            tuple(labels), np.asarray(banked, np.int64), np.asarray(can_hold, bool),
            tuple(succ), tuple(probs), self_loop, bust, order,
        )


def _topological_order(succ: Sequence[np.ndarray]) -> np.ndarray:
    """States ordered so that successors come first (raises on a cycle)."""
    n = len(succ)
    state = np.zeros(n, np.int8)  # 0 new, 1 on stack, 2 done
    order: list = []
    for root in range(n):
        if state[root]:
            continue
        stack = [(root, iter(succ[root]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            for nxt in it:
                if state[nxt] == 1:
                    raise ValueError("turn states form a cycle; backward induction needs an acyclic turn")
                if state[nxt] == 0:
                    state[nxt] = 1
                    stack.append((nxt, iter(succ[nxt])))
                    break
            else:
                stack.pop()
                state[node] = 2
                order.append(node)
    return np.array(order, dtype=np.intp)


@dataclass
class TurnValues:
    """Result of :func:`turn_pass` for a batch of ``N`` positions.

    The value of turn state ``t`` for position ``k`` is
    ``const[t, k] + coef[t, k] * x[k]``, where ``x[k]`` is the (unknown) value for
    the mover of passing the turn at unchanged scores; ``roll[t, k]`` is the
    decision taken (a probability of rolling when decisions were given).
    """

    const: np.ndarray
    coef: np.ndarray
    roll: np.ndarray


def turn_pass(
    model: TurnModel,
    hold_const: np.ndarray,
    hold_coef: np.ndarray,
    x_guess: Optional[np.ndarray] = None,
    decisions: Optional[np.ndarray] = None,
    must_hold: Optional[np.ndarray] = None,
) -> TurnValues:
    """Backward induction over one turn for a batch of positions.

    Args:
        model: the turn chain.
        hold_const, hold_coef: ``(T, N)`` value of holding in each turn state, as
            ``const + coef * x``.
        x_guess: ``(N,)`` numeric guess of ``x`` used to choose greedily.
        decisions: ``(T, N)`` probabilities of rolling (bools are fine); if given,
            followed instead of choosing (where holding is illegal, the player rolls).
        must_hold: ``(T, N)`` bool, where the rules end the turn by holding (for
            example, a game that stops as soon as holding wins); overrides both.

    Returns:
        :class:`TurnValues` with ``(T, N)`` arrays.
    """
    T, N = hold_const.shape
    const = np.zeros((T, N))
    coef = np.zeros((T, N))
    roll = np.ones((T, N), dtype=float if decisions is not None else bool)
    for t in model.order:
        s, p = model.successors[t], model.probabilities[t]
        stay = 1.0 - model.self_loop[t]
        if stay <= 0.0:
            r_const = np.zeros(N)
            r_coef = np.ones(N)  # a roll that can never change anything: treat as passing
        else:
            r_const = (p @ const[s]) / stay if len(s) else np.zeros(N)
            r_coef = ((p @ coef[s]) + model.bust[t]) / stay if len(s) else np.full(N, model.bust[t] / stay)
        if not model.can_hold[t]:
            const[t], coef[t] = r_const, r_coef
            continue
        if decisions is not None:
            q = decisions[t]  # probability of rolling
            if must_hold is not None:
                q = np.where(must_hold[t], 0.0, q)
            roll[t] = q
            const[t] = q * r_const + (1.0 - q) * hold_const[t]
            coef[t] = q * r_coef + (1.0 - q) * hold_coef[t]
            continue
        r = r_const + r_coef * x_guess
        h = hold_const[t] + hold_coef[t] * x_guess
        choose = r > h + TIE_TOLERANCE
        if must_hold is not None:
            choose &= ~must_hold[t]
        roll[t] = choose
        const[t] = np.where(choose, r_const, hold_const[t])
        coef[t] = np.where(choose, r_coef, hold_coef[t])
    return TurnValues(const, coef, roll)


def solve_pairs(
    model: TurnModel,
    hold_const: np.ndarray,
    hold_coef: np.ndarray,
    partner: np.ndarray,
    start: int,
    fixed: Optional[np.ndarray] = None,
    decisions: Optional[np.ndarray] = None,
    must_hold: Optional[np.ndarray] = None,
    x_guess: Optional[np.ndarray] = None,
    max_iterations: int = 100,
) -> Tuple[np.ndarray, TurnValues]:
    """Solve a batch of coupled positions exactly.

    Position ``k``'s unknown ``x[k]`` is ``1 - S[partner[k]]``, where ``S[k]`` is the
    mover's win probability at the start of position ``k``'s turn (turn state
    ``start``).  A position whose ``fixed[k]`` is not NaN is terminal with
    ``S[k] = fixed[k]``.

    ``must_hold`` marks turn states where the rules make the mover hold (see
    :func:`turn_pass`).  With ``decisions`` the policy is evaluated (one pass).  Without, both movers
    maximise: policy iteration until the greedy decisions repeat.

    Returns:
        ``(S, turn_values)``; ``turn_values`` holds the final decisions and the
        affine values (evaluate with ``x = 1 - S[partner]``).
    """
    N = len(partner)
    fixed = np.full(N, np.nan) if fixed is None else fixed
    is_fixed = ~np.isnan(fixed)
    x = np.full(N, 0.5) if x_guess is None else x_guess
    previous = None
    for _ in range(max_iterations):
        tv = turn_pass(model, hold_const, hold_coef, x_guess=x, decisions=decisions, must_hold=must_hold)
        a, c = tv.const[start], tv.coef[start]
        a2, c2 = a[partner], c[partner]
        f2 = fixed[partner]
        # S = a + c (1 - S2) with S2 = a2 + c2 (1 - S)  (or S2 fixed)
        denominator = 1.0 - c * c2
        with np.errstate(divide="ignore", invalid="ignore"):
            coupled = (a + c * (1.0 - a2 - c2)) / denominator
        partner_fixed = ~np.isnan(f2)
        S = np.where(partner_fixed, a + c * (1.0 - np.nan_to_num(f2)), coupled)
        S = np.where(is_fixed, fixed, S)
        # Positions the movers pass back and forth forever (only possible at a
        # grid's score cap, or for policies that never bank anything) never end:
        # they count as 1/2 each.
        endless = ~is_fixed & ~partner_fixed & (denominator <= 1e-15)
        S = np.where(endless, 0.5, S)
        x = 1.0 - S[partner]
        if decisions is not None:
            return S, tv
        if previous is not None and np.array_equal(previous, tv.roll):
            return S, tv
        previous = tv.roll
    raise RuntimeError(f"policy iteration did not settle in {max_iterations} iterations")


class ScoreRules:
    """How a jeopardy game's turns connect on the score grid (subclass per game).

    Positions are ``(seat, i, j)``: the mover sits in ``seat`` (seats differ only if
    the rules treat them differently, e.g. Zombie Dice's last round; a game whose
    seats are symmetric, like Pig, has one), with banked score ``i`` against ``j``.
    Holding ``b`` points moves the game to ``(next_seat(seat), j, min(i + b, cap - 1))``
    and busting to ``(next_seat(seat), j, i)``.
    """

    num_seats: int = 1
    score_cap: int

    def next_seat(self, seat: np.ndarray) -> np.ndarray:
        return (seat + 1) % self.num_seats

    def terminal_value(self, seat: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The mover's win probability where the game is already over, NaN elsewhere."""
        raise NotImplementedError

    def must_hold(self, seat: np.ndarray, i: np.ndarray, j: np.ndarray, banked: np.ndarray):
        """Where the rules make the mover hold (``(T, N)`` bool), or None."""
        return None


@dataclass
class GridSolution:
    """Values and decisions on the whole score grid.

    ``start[seat, i, j]``: the mover's win probability at the start of a turn;
    ``values[seat, i, j, t]`` and ``roll[seat, i, j, t]``: the mover's win probability
    and probability of rolling in turn state ``t``.
    """

    start: np.ndarray
    values: np.ndarray
    roll: np.ndarray


def solve_score_grid(
    model: TurnModel, rules: ScoreRules, start_state: int = 0, tables: Optional[np.ndarray] = None
) -> GridSolution:
    """Solve (or, with ``tables``, evaluate) a two-player jeopardy game exactly.

    Goes through the grid by decreasing total score ``i + j``: holding with points
    leads to a higher total (already solved), and the positions of one total that
    pass the turn to each other come in pairs, which :func:`solve_pairs` solves
    exactly.

    Args:
        model: the turn chain; ``start_state`` is the turn state a turn begins in.
        rules: the score grid's rules.
        tables: ``(num_seats, cap, cap, T)`` probabilities of rolling that fix every
            decision (policy evaluation); None to let both players maximise.
    """
    M, T, seats = rules.score_cap, model.size, rules.num_seats
    start = np.zeros((seats, M, M))
    values = np.zeros((seats, M, M, T))
    roll = np.zeros((seats, M, M, T))
    banked = model.banked[:, None]
    for sigma in range(2 * M - 2, -1, -1):
        lo, hi = max(0, sigma - M + 1), min(sigma, M - 1)
        L = hi - lo + 1
        k = np.arange(L)
        seat = np.repeat(np.arange(seats), L)
        i = np.tile(lo + k, seats)
        j = sigma - i
        partner = rules.next_seat(seat) * L + np.tile(L - 1 - k, seats)
        # Holding b: the opponent moves next from (j, i + b); with nothing banked
        # (or at the cap) that is the partner position, whose value is the unknown.
        after = np.minimum(i[None, :] + banked, M - 1)
        passes = after == i[None, :]
        next_start = start[rules.next_seat(seat)[None, :], j[None, :], after]
        hold_const = np.where(passes, 0.0, 1.0 - next_start)
        hold_coef = passes.astype(float)
        fixed = rules.terminal_value(seat, i, j)
        decisions = None if tables is None else tables[seat, i, j].T
        must_hold = rules.must_hold(seat, i, j, banked)
        S, tv = solve_pairs(
            model, hold_const, hold_coef, partner, start=start_state, fixed=fixed, decisions=decisions,
            must_hold=must_hold,
        )
        x = 1.0 - S[partner]
        over = ~np.isnan(fixed)
        start[seat, i, j] = S
        values[seat, i, j] = np.where(over[None, :], S[None, :], tv.const + tv.coef * x[None, :]).T
        roll[seat, i, j] = tv.roll.T
    return GridSolution(start, values, roll)
