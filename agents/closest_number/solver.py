"""Exact equilibrium of two-player Closest Number (rounds 1 and 2 and every tiebreak round).

The payoff is win/lose (+1/-1; a tie still unresolved after the last,
one-number round is a draw worth 0), so the game **decomposes by rounds**:

* Every round starts at a *public* position: the board is cleared, the cards of
  the last round were turned face up, and the only thing carried over that
  matters is the *lead* ``d`` of the round's starting player (its score minus the
  other's).  Who starts is fixed by the round number (the starter rotates).
* So the subgame of round ``r`` with lead ``d`` is a small game of its own whose
  terminals are the ends of round ``r``, with payoff ``h_r(d + x)`` where ``x``
  is the round's point difference (starter minus other):

  - ``r >= 2``: ``h_r(y) = sign(y)`` if ``y != 0``; a tie (``y = 0``) is worth
    what the next round is worth, ``-V(r + 1, 0)`` (the other player starts it);
    after the last round (``r = numbers + 2``) a tie is a draw, 0;
  - ``r = 1``: ``h_1(x) = -V(2, -x)``: round 1's points matter only through the
    lead they hand to round 2's starter.

  ``V(r, d)`` is the value of that round game for its starter.  Rounds 3, 4, ...
  are always entered with ``d = 0``, so they are solved once each, from the last
  round back; round 2 is solved for every lead that round 1 can produce (about
  ``2 * numbers`` games), and round 1 on top of those values.
* Each round game is built from the rules core itself (:class:`RoundGame`, a
  thin wrapper that ends the game where the round ends) as an explicit tree
  (:func:`dice_envs.agents.solve.game_tree.build_tree`) and solved by the sequence-form LP
  (:func:`dice_envs.agents.solve.sequence_form.solve_lp`).  The largest, round 2 on the 10-card
  board, has 20,160 terminal histories (20 x 18 x 8 x 7 placements, the second
  card's decoy flag being forced).  The whole game's explicit tree, by contrast,
  nests every tiebreak round under every tied round-2 history and is far too big
  to write down for ten cards.
* A round's strategy depends on the round number, the lead, and what the acting
  player has seen in this round (:func:`round_key`, seats counted from the
  round's starter).  Put together they are a behaviour strategy for the whole
  game (:class:`ClosestNumberPolicy`), for either seat and either starting player.

Combining equilibria of the round games with backward induction over the public
round starts gives a (subgame-perfect) equilibrium of the whole game.  Its
exploitability is computed **exactly in the whole game** by the same
decomposition: a best responder's information at the start of a round is
public, so its best-response value in round ``r`` with lead ``d`` is a best
response in the round game (:func:`dice_envs.agents.solve.exploitability.best_response`) whose
tied terminals pay the best-response value of the next round (not the
equilibrium value).  The tests check both the value and this exploitability
against the explicit whole-game tree on small boards
(:func:`dice_envs.agents.solve.exploitability.exploitability`, :func:`dice_envs.agents.solve.sequence_form.solve_lp`).

Seats here are canonical: seat 0 starts round 1 (``starting_player=0``); by
symmetry the value for the starting player is the same whoever starts, and the
value of the game with a random starter is 0.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np

from dice_envs.agents.solve.exploitability import best_response
from dice_envs.agents.solve.interval import value_interval
from dice_envs.agents.solve.game_tree import GameTree, build_tree
from dice_envs.agents.solve.sequence_form import solve_lp
from dice_envs.core.game import TERMINAL, Game, GameState, sample_action
from dice_envs.core.resources import check_resources
from dice_envs.games.closest_number.rules import ClosestNumberGame, ClosestNumberState

__all__ = [
    "RoundGame",
    "RoundState",
    "round_key",
    "RoundSolution",
    "ClosestNumberSolver",
    "ClosestNumberPolicy",
    "SolveResult",
    "solve",
]


def round_key(state: ClosestNumberState, player: int):
    """``player``'s information in the current round, with seats counted from the
    round's starter: ``(own relative seat, ((relative seat, number, decoy flag or
    None if hidden), ...))``.  With the round number and the starter's lead it
    determines the player's equilibrium strategy."""
    p = state.game.num_players
    starter = state.round_starter
    return ((player - starter) % p,
            tuple(((s - starter) % p, k, d) for s, k, d in state.visible_placements(player)))


class RoundGame(Game):
    """One round of Closest Number as a game of its own: it starts at ``start`` (a
    round-start position of a two-player game) and ends where the round ends,
    paying seat 0 the round's point difference ``x`` (seat 0's points minus seat
    1's) and seat 1 ``-x``.  A thin wrapper: every rule comes from the rules core."""

    name = "closest_number_round"

    def __init__(self, start: ClosestNumberState):
        if start.game.num_players != 2:
            raise ValueError("the round solver needs a two-player game")
        self.start = start
        self.inner = start.game
        self.num_players = 2
        self.num_actions = self.inner.num_actions
        self.action_names = self.inner.action_names

    @property
    def observation_shape(self):
        return self.inner.observation_shape

    def new_initial_state(self) -> "RoundState":
        return RoundState(self, self.start)


class RoundState(GameState):
    """A position inside the round of a :class:`RoundGame` (wraps the rules-core state)."""

    __slots__ = ("game", "inner")
    game: RoundGame

    def __init__(self, game: RoundGame, inner: ClosestNumberState):
        self.game = game
        self.inner = inner

    def _over(self) -> bool:
        return self.inner.is_terminal() or self.inner.round != self.game.start.round

    @property
    def current_player(self) -> int:
        return TERMINAL if self._over() else self.inner.current_player

    def legal_actions(self):
        return () if self._over() else self.inner.legal_actions()

    def apply(self, action) -> "RoundState":
        return RoundState(self.game, self.inner.apply(action))

    def returns(self):
        if not self._over():
            return (0.0, 0.0)
        s0, s1 = self.game.start.scores
        x = (self.inner.scores[0] - s0) - (self.inner.scores[1] - s1)
        return (float(x), float(-x))

    def observation(self, player: int) -> np.ndarray:
        return self.inner.observation(player)

    def information_state(self, player: int):
        return round_key(self.inner, player)


@dataclass
class RoundSolution:
    """The equilibrium of one round game (round ``round``, starter's lead ``lead``).

    ``table[j]`` are the action probabilities at information state ``j`` of the
    round tree (aligned with its ``actions``), ``index`` maps a :func:`round_key`
    to ``j``; ``value`` is the starter's equilibrium value."""

    round: int
    lead: int
    value: float
    table: List[np.ndarray]
    index: Dict[tuple, int]
    lp: bool  # False when every terminal pays the same (any strategy is an equilibrium)


def _sign(y: int) -> float:
    return 1.0 if y > 0 else -1.0 if y < 0 else 0.0


#: Peak memory and time per terminal history of round 2, the largest round game (measured
#: on 10 to 24 numbers: 4.0-4.6 KB and 0.19-0.39 ms each, the whole game included).
BYTES_PER_TERMINAL = 6 * 1024
SECONDS_PER_TERMINAL = 4e-4


def round2_terminals(numbers: int) -> int:
    """Terminal histories of round 2 (two players, two cards each, one a decoy): both
    players' first cards (a number and whether it is the decoy), then their second cards
    (whose kind is forced)."""
    n = numbers
    return 4 * n * (n - 1) * (n - 2) * (n - 3)


class ClosestNumberSolver:
    """Equilibrium of the two-player game by round decomposition (module docstring).

    Args:
        numbers: the board ``1..numbers`` (4 to 40; 10 in the source document).
        round3: ``"two_cards"`` or ``"one_card"`` (see :mod:`dice_envs.games.closest_number.rules`).

    Round games are solved lazily and kept: :meth:`value` and :meth:`solution`
    solve what they need; :meth:`solve_all` does the whole game.
    """

    def __init__(self, numbers: int = 10, round3: str = "two_cards"):
        self.game = ClosestNumberGame(2, numbers, 0, round3)
        self.numbers = self.game.numbers
        terminals = round2_terminals(self.numbers)
        check_resources(f"solving Closest Number on {self.numbers} numbers (round 2 has {terminals:,} terminal "
                        f"histories)", 100 * 2**20 + BYTES_PER_TERMINAL * terminals,
                        SECONDS_PER_TERMINAL * terminals)
        self.round3 = self.game.round3
        self._trees: Dict[int, GameTree] = {}
        self._solutions: Dict[Tuple[int, int], RoundSolution] = {}
        self._br: Dict[Tuple[int, int], Tuple[float, float]] = {}
        self.lp_seconds = 0.0
        self.lp_count = 0

    # -- round games ----------------------------------------------------------------

    def round_start(self, round_: int, lead: int = 0) -> ClosestNumberState:
        """The canonical start of round ``round_``: seat 0 starts it, leading by ``lead``."""
        first = (1 - round_) % 2  # round r is started by seat first + r - 1
        return self.game.state_at_round(round_, (max(lead, 0), max(-lead, 0)), first)

    def tree(self, round_: int) -> GameTree:
        """The explicit tree of round ``round_`` (payoff: the round's point difference)."""
        if round_ not in self._trees:
            self._trees[round_] = build_tree(RoundGame(self.round_start(round_)),
                                             infoset_key=lambda s, p: round_key(s.inner, p))
        return self._trees[round_]

    def _leaf(self, round_: int, y: int) -> float:
        """The starter's payoff at the end of round ``round_`` with total lead ``y``."""
        if round_ == 1:
            return -self.value(2, -y)
        if y != 0:
            return _sign(y)
        return 0.0 if round_ == self.game.last_round else -self.value(round_ + 1, 0)

    def solution(self, round_: int, lead: int = 0) -> RoundSolution:
        """The equilibrium of round ``round_`` whose starter leads by ``lead``."""
        key = (round_, lead)
        if key in self._solutions:
            return self._solutions[key]
        if round_ > 2 and lead != 0:
            raise ValueError(f"tiebreak round {round_} is only played with tied scores (lead 0), got {lead}")
        if round_ == 1 and lead != 0:
            raise ValueError(f"round 1 starts at 0-0, got lead {lead}")
        tree = self.tree(round_)
        leaf = {x: self._leaf(round_, lead + x) for x in {int(v[0]) for v in tree.payoff.values()}}
        index = {info.key: j for j, info in enumerate(tree.infosets)}
        if len(set(leaf.values())) == 1:
            value = next(iter(leaf.values()))
            table = [np.full(len(info.actions), 1.0 / len(info.actions)) for info in tree.infosets]
            sol = RoundSolution(round_, lead, value, table, index, lp=False)
        else:
            payoff: Dict[int, Tuple[float, ...]] = {i: (leaf[int(v[0])], -leaf[int(v[0])])
                                                     for i, v in tree.payoff.items()}
            result = solve_lp(dataclasses.replace(tree, payoff=payoff))
            self.lp_seconds += result.seconds
            self.lp_count += 1
            sol = RoundSolution(round_, lead, result.value, result.policy, index, lp=True)
        self._solutions[key] = sol
        return sol

    def value(self, round_: int, lead: int = 0) -> float:
        """``V(round, lead)``: the equilibrium value of round ``round_`` (and all
        that follows) for its starter, who leads by ``lead``."""
        if round_ > self.game.last_round:
            return 0.0
        if (round_, lead) not in self._solutions and round_ <= 2:
            for r in range(self.game.last_round, 2, -1):  # tiebreak rounds from the last one back
                self.solution(r, 0)
        return self.solution(round_, lead).value

    def solve_all(self) -> float:
        """Solve every round game the whole game can reach; the first player's value."""
        return self.value(1, 0)

    # -- exact best responses in the whole game --------------------------------------

    def best_response_values(self, round_: int = 1, lead: int = 0) -> Tuple[float, float]:
        """``(b0, b1)``: the best-response value against this solver's strategy, in
        the whole game from the start of round ``round_`` (starter leading by
        ``lead``), for the round's starter (``b0``) and for the other player
        (``b1``), each in its own payoff."""
        if round_ > self.game.last_round:
            return (0.0, 0.0)
        key = (round_, lead)
        if key in self._br:
            return self._br[key]
        if round_ == 2:
            for r in range(self.game.last_round, 2, -1):  # fill from the last round back
                self.best_response_values(r, 0)
        sol = self.solution(round_, lead)
        tree = self.tree(round_)
        leaves = {}
        for x in {int(v[0]) for v in tree.payoff.values()}:
            y = lead + x
            if round_ == 1:
                nxt = self.best_response_values(2, -y)
                leaves[x] = (nxt[1], nxt[0])  # the other player starts round 2
            elif y != 0:
                leaves[x] = (_sign(y), -_sign(y))
            elif round_ == self.game.last_round:
                leaves[x] = (0.0, 0.0)
            else:
                nxt = self.best_response_values(round_ + 1, 0)
                leaves[x] = (nxt[1], nxt[0])
        br_tree = dataclasses.replace(tree, payoff={i: leaves[int(v[0])] for i, v in tree.payoff.items()})
        out = (best_response(br_tree, sol.table, 0)[0], best_response(br_tree, sol.table, 1)[0])
        self._br[key] = out
        return out

    def exploitability(self) -> float:
        """NashConv / 2 of the computed strategy in the whole game (seat 0 starts)."""
        b0, b1 = self.best_response_values(1, 0)
        return (b0 + b1) / 2

    def policy(self) -> "ClosestNumberPolicy":
        return ClosestNumberPolicy(self)

    # -- reports ------------------------------------------------------------------------

    def principal_line(self, round_: int = 1, lead: int = 0) -> List[Tuple[int, str, float]]:
        """The most likely play of round ``round_`` under the equilibrium:
        ``[(seat relative to the starter, action name, probability), ...]``."""
        sol = self.solution(round_, lead)
        tree = self.tree(round_)
        line, i = [], 0
        while tree.kind[i] == "p":
            j = tree.infoset[i]
            row = sol.table[j]
            a = int(np.argmax(row))
            line.append((tree.player[i], self.game.action_name(tree.infosets[j].actions[a]), float(row[a])))
            i = tree.children[i][a][1]
        return line


class ClosestNumberPolicy:
    """The solver's strategy for any two-player state of the same game (either
    seat, either starting player): ``action_probabilities(state) -> {action: p}``.
    Round games not solved yet are solved on demand."""

    def __init__(self, solver: ClosestNumberSolver):
        self.solver = solver

    def action_probabilities(self, state: ClosestNumberState) -> Dict[int, float]:
        g = state.game
        if (g.num_players, g.numbers, g.round3) != (2, self.solver.numbers, self.solver.round3):
            raise ValueError(f"this policy plays {self.solver.game!r}, not {g!r}")
        starter = state.round_starter
        lead = state.scores[starter] - state.scores[1 - starter]
        sol = self.solver.solution(state.round, lead)
        j = sol.index[round_key(state, state.current_player)]
        actions = self.solver.tree(state.round).infosets[j].actions
        return {a: float(p) for a, p in zip(actions, sol.table[j])}

    __call__ = action_probabilities

    def sample(self, state: ClosestNumberState, rng: np.random.Generator) -> int:
        return sample_action(self.action_probabilities(state), rng)


@dataclass
class SolveResult:
    """The figures of a full solve (see :func:`solve`)."""

    solver: ClosestNumberSolver
    value_first_player: float
    exploitability: float
    seconds: float
    tiebreak_values: Dict[int, float]
    round2_values: Dict[int, float]
    #: the two best-response values to the computed strategy (seat 0's, seat 1's), which bound the game's value
    best_response: Tuple[float, float] = (float("nan"), float("nan"))

    @property
    def value_interval(self) -> Tuple[float, float]:
        """Seat 0's certified interval for the game's value, from the two best responses
        (:func:`dice_envs.agents.solve.interval.value_interval`)."""
        return value_interval(self.best_response)

    def as_dict(self) -> dict:
        s = self.solver
        return {
            "numbers": s.numbers,
            "round3": s.round3,
            "value_first_player": self.value_first_player,
            "value_interval": list(self.value_interval),
            "exploitability": self.exploitability,
            "round1_equilibrium_line": [
                {"seat": seat, "action": name, "probability": p} for seat, name, p in s.principal_line(1, 0)
            ],
            "round2_value_for_its_starter_by_lead": {str(d): v for d, v in sorted(self.round2_values.items())},
            "tiebreak_value_for_round_starter": {str(r): v for r, v in sorted(self.tiebreak_values.items())},
            "round_games_solved_by_lp": s.lp_count,
            "lp_seconds": s.lp_seconds,
            "seconds": self.seconds,
        }


def solve(numbers: int = 10, round3: str = "two_cards") -> SolveResult:
    """Solve the full two-player game: value for the starting player, exact
    exploitability of the computed strategy, and the round values."""
    t0 = time.perf_counter()
    solver = ClosestNumberSolver(numbers, round3)
    value = solver.solve_all()
    expl = solver.exploitability()
    tiebreak = {r: solver.value(r, 0) for r in range(3, solver.game.last_round + 1)}
    round2 = {d: sol.value for (r, d), sol in solver._solutions.items() if r == 2}
    br0, br1 = solver.best_response_values(1, 0)
    return SolveResult(solver, value, expl, time.perf_counter() - t0, tiebreak, round2, (br0, br1))
