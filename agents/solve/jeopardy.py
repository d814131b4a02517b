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
  decisions are greedy with respect to their own values);
* :class:`ScoreRules` and :func:`solve_score_grid`: the walk over the score grid,
  by decreasing total, for optimal play or for evaluating fixed policies.

A game supplies its turn model and its :class:`ScoreRules` (terminal positions,
seats, and moves the rules force): see :mod:`dice_envs.agents.zombie_dice.ayzd_solver` and :mod:`dice_envs.agents.pig.solver`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

from dice_envs.core.resources import check_resources

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
        levels: the states grouped so that every successor of a state is in an
            earlier group (backward induction handles one group at a time).
        padded_succ, padded_prob: the successors and their probabilities as ``(T, K)``
            and ``(T, K, 1)`` arrays, padded with probability 0 (for batched gathers).
    """

    labels: Tuple[tuple, ...]
    banked: np.ndarray
    can_hold: np.ndarray
    successors: Tuple[np.ndarray, ...]
    probabilities: Tuple[np.ndarray, ...]
    self_loop: np.ndarray
    bust: np.ndarray
    levels: Tuple[np.ndarray, ...]
    padded_succ: np.ndarray
    padded_prob: np.ndarray

    @property
    def size(self) -> int:
        return len(self.labels)

    @property
    def level_data(self):
        """Per level: ``(states, successors, their probabilities, 1 - self_loop, bust,
        can_hold)``; successors are padded to a rectangle (probability 0), and the
        per-state arrays are columns, ready to broadcast over a batch."""
        cached = self.__dict__.get("_level_data")
        if cached is None:
            cached = tuple(
                (lv, self.padded_succ[lv], self.padded_prob[lv], (1.0 - self.self_loop[lv])[:, None],
                 self.bust[lv][:, None], self.can_hold[lv][:, None])
                for lv in self.levels
            )
            object.__setattr__(self, "_level_data", cached)
        return cached

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
            if self_loop[t] >= 1.0:
                raise ValueError(f"rolling in turn state {labels[t]} can never change it")
            succ.append(np.array(sorted(merged), dtype=np.intp))
            probs.append(np.array([merged[k] for k in sorted(merged)], dtype=np.float64))
        depth = np.zeros(n, np.intp)
        for t in _topological_order(succ):
            depth[t] = 1 + max((depth[u] for u in succ[t]), default=-1)
        levels = tuple(np.flatnonzero(depth == d) for d in range(depth.max() + 1))
        width = max(1, max(len(x) for x in succ))
        padded_succ = np.zeros((n, width), np.intp)
        padded_prob = np.zeros((n, width, 1))
        for t in range(n):
            padded_succ[t, : len(succ[t])] = succ[t]
            padded_prob[t, : len(succ[t]), 0] = probs[t]
        return cls(
            tuple(labels), np.asarray(banked, np.int64), np.asarray(can_hold, bool),
            tuple(succ), tuple(probs), self_loop, bust, levels, padded_succ, padded_prob,
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
    both = np.zeros((T, 2 * N))  # [const | coef] side by side
    roll = np.ones((T, N), dtype=float if decisions is not None else bool)
    for level, succ, prob, stay, bust, can_hold in model.level_data:
        r = (both[succ] * prob).sum(axis=1)  # a gather, not BLAS: these rows are tiny
        r_const = r[:, :N] / stay
        r_coef = (r[:, N:] + bust) / stay
        h_const, h_coef = hold_const[level], hold_coef[level]
        if decisions is not None:
            q = np.where(can_hold, decisions[level], 1.0)  # probability of rolling
            if must_hold is not None:
                q = np.where(must_hold[level] & can_hold, 0.0, q)
            both[level, :N] = q * r_const + (1.0 - q) * h_const
            both[level, N:] = q * r_coef + (1.0 - q) * h_coef
        else:
            q = (r_const - h_const) + (r_coef - h_coef) * x_guess > TIE_TOLERANCE
            q |= ~can_hold
            if must_hold is not None:
                q &= ~(must_hold[level] & can_hold)
            both[level, :N] = np.where(q, r_const, h_const)
            both[level, N:] = np.where(q, r_coef, h_coef)
        roll[level] = q
    const, coef = both[:, :N], both[:, N:]
    return TurnValues(const, coef, roll)


def greedy_is_consistent(
    model: TurnModel,
    tv: TurnValues,
    x: np.ndarray,
    hold_const: np.ndarray,
    hold_coef: np.ndarray,
    must_hold: Optional[np.ndarray] = None,
) -> bool:
    """Are ``tv``'s decisions greedy with respect to their own values at ``x``?

    One vectorised Bellman check over all turn states at once (instead of another
    backward pass); disagreements within the tie tolerance are indifferent.
    """
    values = tv.const + tv.coef * x[None, :]
    stay = (1.0 - model.self_loop)[:, None]
    expected = (values[model.padded_succ] * model.padded_prob).sum(axis=1)
    roll_value = (expected + model.bust[:, None] * x[None, :]) / stay
    hold_value = hold_const + hold_coef * x[None, :]
    advantage = roll_value - hold_value
    can_hold = np.broadcast_to(model.can_hold[:, None], advantage.shape)
    if must_hold is not None:
        forced = ~can_hold | must_hold
        greedy = np.where(must_hold & can_hold, False, ~can_hold | (advantage > TIE_TOLERANCE))
    else:
        forced = ~can_hold
        greedy = ~can_hold | (advantage > TIE_TOLERANCE)
    disagree = (greedy != tv.roll) & ~forced
    return not np.any(disagree & (np.abs(advantage) > 2 * TIE_TOLERANCE))


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
    ``S[k] = fixed[k]``.  ``partner`` may map a position to itself (a symmetric
    game's tie, which passes the turn to the same position).

    ``must_hold`` marks turn states where the rules make the mover hold (see
    :func:`turn_pass`).  With ``decisions`` the policy is evaluated (one pass).
    Without, both movers maximise: policy iteration from ``x_guess`` until the
    decisions are greedy with respect to their own exact values.

    Returns:
        ``(S, turn_values)``; ``turn_values`` holds the final decisions and the
        affine values (evaluate with ``x = 1 - S[partner]``).
    """
    N = len(partner)
    fixed = np.full(N, np.nan) if fixed is None else fixed
    is_fixed = ~np.isnan(fixed)
    x = np.full(N, 0.5) if x_guess is None else x_guess
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
        if decisions is not None or greedy_is_consistent(model, tv, x, hold_const, hold_coef, must_hold):
            return S, tv
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


#: Peak memory and time of one grid solve per cell ``(seat, i, j, turn state)``: the values,
#: the decisions and the policy tables are float64 arrays of that size, and the solve's
#: temporaries about as much again (measured: 2.2 arrays' worth at the peak); about 0.4 us
#: per cell on the 2-core development machine.
GRID_BYTES_PER_CELL = 3 * 8
GRID_SECONDS_PER_CELL = 0.5e-6


def check_grid(seats: int, score_cap: int, turn_states: int) -> None:
    """Refuse a score grid over the memory or time limit; callers that know the grid's size
    before building the turn model call it first, so a huge goal is refused at once."""
    cells = seats * score_cap * score_cap * turn_states
    check_resources(f"solving a score grid of {seats} x {score_cap} x {score_cap} scores x {turn_states} turn states",
                    GRID_BYTES_PER_CELL * cells, GRID_SECONDS_PER_CELL * cells)


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
    check_grid(seats, M, T)
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
        # Guess each unknown from the neighbouring, already solved, total.
        x_guess = 1.0 - start[rules.next_seat(seat), j, np.minimum(i + 1, M - 1)]
        S, tv = solve_pairs(
            model, hold_const, hold_coef, partner, start=start_state, fixed=fixed, decisions=decisions,
            must_hold=must_hold, x_guess=x_guess,
        )
        x = 1.0 - S[partner]
        over = ~np.isnan(fixed)
        start[seat, i, j] = S
        values[seat, i, j] = np.where(over[None, :], S[None, :], tv.const + tv.coef * x[None, :]).T
        roll[seat, i, j] = tv.roll.T
    return GridSolution(start, values, roll)
