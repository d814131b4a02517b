"""Exact score of any agent in two-player Closest Number (``dice_envs/ClosestNumber-v0``).

An *observation agent* (:mod:`dice_envs.agents.evaluate.contract`) sees what
``gymnasium.make("dice_envs/ClosestNumber-v0")`` shows it (the AEC observation of its
seat) and answers with probabilities over the ``2 * numbers`` actions.
:func:`score_agent` evaluates its strategy exactly in the whole game, against the
equilibrium of :mod:`dice_envs.agents.closest_number.solver` from both seats, and
against a best responder (its exploitability).

How (the solver's round decomposition, with the scores the agent sees):

* Every round starts at a public position: the cards of the last round are face
  up and only the scores carry over.  The equilibrium's strategy depends on the
  round and the starter's *lead*; the agent's may depend on the round and both
  *scores* (they are in its observation), so a round start here is ``(round, a, b)``,
  ``a`` the starter's score and ``b`` the other's.  From round 1's start ``(1, 0, 0)``
  the positions every play can reach are found round by round from the points each
  end of a round gives (17 for round 2 and 48 in all on the source document's 10 numbers).
* Each round is the solver's round tree (:meth:`ClosestNumberSolver.tree
  <dice_envs.agents.closest_number.solver.ClosestNumberSolver.tree>`, one per round
  whatever the scores).  The agent is asked at every information state of every
  reachable round start at once: the observation of the tree's representative state
  with the scores set, one call (:func:`dice_envs.agents.evaluate.contract.ask_agent`).
* Values are chained from the last round back, as the solver's
  :meth:`~dice_envs.agents.closest_number.solver.ClosestNumberSolver.best_response_values`
  chains its best responses by lead: a decided round pays +-1, a tie pays the value of
  the next round (roles swapped: the other player starts it), a tie after the last
  round is a draw (0), and round 1's ends pay round 2's values.  Four values are
  chained: the agent's payoff against the equilibrium as the round's starter and as
  the other player, and a best responder's payoff against the agent in either role.
  A best responder's information at a round start is public, so the round-by-round
  best responses make a best response in the whole game.
* Within a round the tree is evaluated level by level with numpy, for all the
  round's starting positions at once (:func:`expected_values`, :func:`best_response_values`;
  the tests check them against :mod:`dice_envs.agents.solve.exploitability`).

:func:`equilibrium_agent` is the solver's equilibrium as an observation agent (it
reads the round, the scores and the placements off the observation); the tests use
it, and it is how a reader sees the scale: it scores a gap of 0 and the solver's
exploitability.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from dice_envs.agents.closest_number.solver import (
    BYTES_PER_TERMINAL,
    SECONDS_PER_TERMINAL,
    ClosestNumberSolver,
    round2_terminals,
    round_key,
)
from dice_envs.agents.evaluate.contract import DEFAULT_BATCH, ObservationAgent, ask_agent, uniform_agent
from dice_envs.agents.evaluate.observation_agents import Agent
from dice_envs.agents.evaluate.report import named_agent, report
from dice_envs.agents.solve.game_tree import GameTree
from dice_envs.core.resources import LongRunWarning, check_resources
from dice_envs.core.validation import check_int
from dice_envs.games.closest_number.rules import MAX_NUMBERS, ClosestNumberState

__all__ = ["score_closest_number", "score_agent", "equilibrium_agent", "named_agents", "expected_values", "best_response_values", "ScoredGame"]

#: Modes of the chained values: (who plays the round's starter, who plays the other, whose payoff).
#: "agent_first": the agent starts the round against the equilibrium, its payoff; "agent_second":
#: the equilibrium starts, the agent's payoff; "br_first"/"br_second": a best responder in that
#: role against the agent, the best responder's payoff.
#: The scorer's memory and time over the solver's own estimates (:mod:`dice_envs.agents.closest_number.solver`):
#: the rounds' points are replayed through the rules core and every information state is
#: asked at every round start (measured: 10 numbers, 0.2 GB and 7-10 s in all; 12 numbers,
#: 0.4 GB and 20-25 s, on the shared 2-core machine), plus the agent's own time.
MEMORY_FACTOR = 1.5
TIME_FACTOR = 2.0

MODES = ("agent_first", "agent_second", "br_first", "br_second")
_SWAP = {"agent_first": "agent_second", "agent_second": "agent_first", "br_first": "br_second",
         "br_second": "br_first"}


# -- one round tree as arrays ------------------------------------------------------------


@dataclass
class TreeArrays:
    """A round tree (decision and terminal nodes only) as numpy arrays, by depth.

    ``levels`` lists, from the root down, the decision nodes of each depth with their
    acting player, information state and children (``(nodes, A)``, ``-1`` padding,
    aligned with the information state's actions); ``terminals`` are the terminal
    nodes (the leaf values are given in this order)."""

    num_nodes: int
    num_actions: int  # most actions at a node
    infoset: np.ndarray  # (num_nodes,) -1 off decision nodes
    terminals: np.ndarray
    levels: List[Tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)  # (nodes, player, children)

    @classmethod
    def from_tree(cls, tree: GameTree) -> "TreeArrays":
        n = len(tree.kind)
        if any(k == "c" for k in tree.kind):
            raise ValueError("TreeArrays takes trees without chance nodes (a round starts at a public position)")
        depth = np.zeros(n, np.int64)
        for i in range(n):  # preorder: a parent before its children
            for _, c in tree.children[i]:
                depth[c] = depth[i] + 1
        width = max(len(kids) for kids in tree.children)
        infoset = np.array(tree.infoset, np.int64)
        info_depth: Dict[int, int] = {}
        for node in np.flatnonzero(infoset >= 0):
            if info_depth.setdefault(int(infoset[node]), int(depth[node])) != depth[node]:
                raise ValueError("an information state spans two depths; TreeArrays needs layered information states")
        arrays = cls(n, width, infoset, np.array(sorted(tree.payoff), np.int64))
        decision = np.flatnonzero(infoset >= 0)
        for d in range(int(depth.max()) + 1):
            nodes = decision[depth[decision] == d]
            if not len(nodes):
                continue
            children = np.full((len(nodes), width), -1, np.int64)
            for row, i in enumerate(nodes):
                kids = [c for _, c in tree.children[i]]
                children[row, : len(kids)] = kids
            arrays.levels.append((nodes, np.array([tree.player[i] for i in nodes], np.int64), children))
        return arrays

    def _values(self, leaf: np.ndarray) -> np.ndarray:
        values = np.zeros((self.num_nodes + 1, leaf.shape[1]))  # the last row answers the -1 padding: 0
        values[self.terminals] = leaf
        return values


def expected_values(arrays: TreeArrays, table: np.ndarray, leaf: np.ndarray) -> np.ndarray:
    """Expected payoff at the root, for ``K`` variants of one tree at once.

    Args:
        table: ``(infosets, A, K)`` action probabilities (both players' strategies).
        leaf: ``(terminals, K)`` the payoff (of whichever player) at each terminal.

    Returns:
        ``(K,)``, as :func:`dice_envs.agents.solve.exploitability.expected_returns` per variant.
    """
    values = arrays._values(leaf)
    for nodes, _, children in reversed(arrays.levels):
        values[nodes] = (table[arrays.infoset[nodes]] * values[children]).sum(axis=1)
    return values[0]


def best_response_values(arrays: TreeArrays, table: np.ndarray, leaf: np.ndarray, player: int) -> np.ndarray:
    """Best-response value of ``player`` at the root against the other player's strategy
    in ``table``, for ``K`` variants at once (``leaf``: ``player``'s payoff).

    As :func:`dice_envs.agents.solve.exploitability.best_response`: at each of ``player``'s
    information states the action with the highest reach-weighted value (the first on
    ties), the reach being the opponent's."""
    k = leaf.shape[1]
    reach = np.zeros((arrays.num_nodes + 1, k))
    reach[0] = 1.0
    for nodes, who, children in arrays.levels:
        mine = who == player
        pi = np.where(mine[:, None, None], 1.0, table[arrays.infoset[nodes]])
        pi = np.where((children >= 0)[:, :, None], pi, 0.0)
        reach[children] = reach[nodes][:, None, :] * pi  # the -1 padding lands on the spare last row
    reach[-1] = 0.0
    values = arrays._values(leaf)
    for nodes, who, children in reversed(arrays.levels):
        mine = who == player
        if (~mine).any():
            own, kids = nodes[~mine], children[~mine]
            values[own] = (table[arrays.infoset[own]] * values[kids]).sum(axis=1)
        if mine.any():
            own, kids = nodes[mine], children[mine]
            infosets, local = np.unique(arrays.infoset[own], return_inverse=True)
            totals = np.zeros((len(infosets),) + kids.shape[1:] + (k,))
            np.add.at(totals, local, reach[own][:, None, :] * values[kids])
            legal = kids[np.unique(local, return_index=True)[1]] >= 0  # (infosets, A): every node of one alike
            best = np.argmax(np.where(legal[:, :, None], totals, -np.inf), axis=1)  # (infosets, K)
            chosen = np.take_along_axis(kids, best[local], axis=1)  # (nodes, K): the child each variant takes
            values[own] = values[chosen, np.arange(k)[None, :]]
    return values[0]


# -- the whole game: round starts, observations, chaining ---------------------------------


@dataclass
class _Round:
    """One round's tree and what the scorer needs of it."""

    number: int
    arrays: TreeArrays
    points: np.ndarray  # (terminals, 2): the round's points of its starter and of the other player
    players: np.ndarray  # (infosets,) 0 = the round's starter, 1 = the other
    actions: np.ndarray  # (infosets, A) action ids, -1 padding
    observations: np.ndarray  # (infosets, obs_dim) float32, scores zero
    masks: np.ndarray  # (infosets, num_actions) bool
    index: Dict[tuple, int]  # (player, round_key) -> infoset
    positions: List[Tuple[int, int]] = field(default_factory=list)  # reachable (starter's, other's) scores


class ScoredGame:
    """The solver's equilibrium and the round structure the scorer evaluates agents on,
    built once per ``(numbers, round3)`` (:func:`scored_game`)."""

    def __init__(self, numbers: int = 10, round3: str = "two_cards"):
        terminals = round2_terminals(check_int("numbers", numbers, 4, MAX_NUMBERS))
        check_resources(f"scoring an agent in Closest Number on {numbers} numbers (round 2 has {terminals:,} "
                        f"terminal histories)", 100 * 2**20 + MEMORY_FACTOR * BYTES_PER_TERMINAL * terminals,
                        TIME_FACTOR * SECONDS_PER_TERMINAL * terminals)
        with warnings.catch_warnings():  # announced above, with the scorer's share
            warnings.simplefilter("ignore", LongRunWarning)
            self.solver = ClosestNumberSolver(numbers, round3)
        self.solver.solve_all()
        self.game = self.solver.game
        self.numbers, self.round3 = self.solver.numbers, self.solver.round3
        self._equilibrium_tables: Optional[Dict[int, np.ndarray]] = None
        last = self.game.last_round
        size = self.game.observation_shape[0]
        # The observation's scores: own, then the other player's (ClosestNumberState.observation).
        self.score_columns = (size - 3 * 2 - 4, size - 3 * 2 - 4 + 1)
        self.rounds: Dict[int, _Round] = {r: self._round(r) for r in range(1, last + 1)}
        self.rounds[1].positions = [(0, 0)]
        for r in range(1, last):
            nxt = set()
            ends = {tuple(x) for x in self.rounds[r].points.tolist()}
            for a, b in self.rounds[r].positions:
                for p, q in ends:
                    if r == 1:
                        nxt.add((b + q, a + p))  # the other player starts round 2
                    elif a + p == b + q:
                        nxt.add((a + p, b + q))
            self.rounds[r + 1].positions = sorted(nxt)

    def _round(self, r: int) -> _Round:
        tree = self.solver.tree(r)
        arrays = TreeArrays.from_tree(tree)
        start = self.solver.round_start(r)
        # The points of each end of the round: replay the tree through the rules core.
        points: Dict[int, Tuple[int, int]] = {}
        stack = [(0, start)]
        while stack:
            i, state = stack.pop()
            if tree.kind[i] == "t":
                points[i] = (state.scores[0] - start.scores[0], state.scores[1] - start.scores[1])
            else:
                stack.extend((c, state.apply(a)) for a, c in tree.children[i])
        infos = tree.infosets
        actions = np.full((len(infos), arrays.num_actions), -1, np.int64)
        masks = np.zeros((len(infos), self.game.num_actions), bool)
        for j, info in enumerate(infos):
            actions[j, : len(info.actions)] = info.actions
            masks[j, list(info.actions)] = True
        vectors = []
        for info in infos:
            assert info.state is not None  # build_tree keeps a state of every information state
            vectors.append(info.state.observation(info.player))
        observations = np.array(vectors, np.float32)
        observations[:, list(self.score_columns)] = 0.0  # set per round start
        return _Round(r, arrays, np.array([points[i] for i in arrays.terminals], np.int64),
                      np.array([info.player for info in infos], np.int64), actions, observations, masks,
                      {(info.player, info.key): j for j, info in enumerate(infos)})

    # -- the agent's observations and tables --------------------------------------------

    def observations(self, r: int, infosets: np.ndarray, starter_scores: np.ndarray,
                     other_scores: np.ndarray) -> np.ndarray:
        """The observations of information states ``infosets`` of round ``r`` whose
        round started with the scores ``starter_scores``, ``other_scores`` (arrays of one
        length), as the acting player sees them."""
        rnd = self.rounds[r]
        obs = rnd.observations[infosets].copy()
        first = rnd.players[infosets] == 0
        obs[:, self.score_columns[0]] = np.where(first, starter_scores, other_scores)
        obs[:, self.score_columns[1]] = np.where(first, other_scores, starter_scores)
        return obs

    def locate(self, state: ClosestNumberState, seat: int) -> Tuple[int, int, int, int]:
        """``(round, starter's score, other's score, infoset)`` of ``seat``'s decision at ``state``."""
        starter = state.round_starter
        key = round_key(state, seat)
        j = self.rounds[state.round].index[(key[0], key)]
        return state.round, state.scores[starter], state.scores[1 - starter], j

    def agent_tables(self, agent: ObservationAgent, batch_size: int = DEFAULT_BATCH) -> Dict[int, np.ndarray]:
        """The agent's strategy: per round an ``(infosets, A, positions)`` table, asked in one batch."""
        parts, obs, masks = [], [], []
        for r, rnd in self.rounds.items():
            m, k = len(rnd.players), len(rnd.positions)
            infosets = np.tile(np.arange(m), k)
            a, b = (np.repeat(np.array(x), m) for x in zip(*rnd.positions))
            obs.append(self.observations(r, infosets, a, b))
            masks.append(rnd.masks[infosets])
            parts.append((r, m, k))
        probs = ask_agent(agent, np.concatenate(obs), np.concatenate(masks), batch_size)
        tables, lo = {}, 0
        for r, m, k in parts:
            rnd = self.rounds[r]
            block = probs[lo : lo + m * k].reshape(k, m, -1)
            lo += m * k
            picked = np.take_along_axis(block, np.maximum(rnd.actions, 0)[None], axis=2)  # (k, m, A)
            picked[:, rnd.actions < 0] = 0.0
            tables[r] = np.transpose(picked, (1, 2, 0))
        return tables

    def equilibrium_tables(self) -> Dict[int, np.ndarray]:
        """The equilibrium's strategy in the same layout (it depends on the lead only)."""
        if self._equilibrium_tables is not None:
            return self._equilibrium_tables
        tables = {}
        for r, rnd in self.rounds.items():
            table = np.zeros(rnd.actions.shape + (len(rnd.positions),))
            for k, (a, b) in enumerate(rnd.positions):
                for j, row in enumerate(self.solver.solution(r, a - b).table):
                    table[j, : len(row), k] = row
            tables[r] = table
        self._equilibrium_tables = tables
        return tables

    # -- chaining the rounds -------------------------------------------------------------

    def chained_values(self, agent_tables: Dict[int, np.ndarray]) -> Dict[str, Dict[Tuple[int, int, int], float]]:
        """``{mode: {(round, a, b): value}}`` for the :data:`MODES`, from the last round back."""
        eq_tables = self.equilibrium_tables()
        last = self.game.last_round
        values: Dict[str, Dict[Tuple[int, int, int], float]] = {mode: {} for mode in MODES}
        for r in range(last, 0, -1):
            rnd = self.rounds[r]
            a, b = (np.array(x)[None, :] for x in zip(*rnd.positions))  # (1, K)
            total_a = a + rnd.points[:, :1]  # (terminals, K): the starter's score at the round's end
            total_b = b + rnd.points[:, 1:]
            starter = (rnd.players == 0)[:, None, None]
            agent, eq = agent_tables[r], eq_tables[r]
            profiles = {"agent_first": np.where(starter, agent, eq), "agent_second": np.where(starter, eq, agent),
                        "br_first": agent, "br_second": agent}
            for mode in MODES:
                role = 0 if mode.endswith("first") else 1
                leaf = self._leaf(r, total_a, total_b, role, values[_SWAP[mode]])
                if mode.startswith("agent"):
                    v = expected_values(rnd.arrays, profiles[mode], leaf)
                else:
                    v = best_response_values(rnd.arrays, profiles[mode], leaf, role)
                values[mode].update({(r, x, y): float(val) for (x, y), val in zip(rnd.positions, v)})
        return values

    def _leaf(self, r: int, total_a: np.ndarray, total_b: np.ndarray, role: int, nxt: dict) -> np.ndarray:
        """The payoff of the player in ``role`` (0 starter, 1 other) at each end of round ``r``."""
        if r == 1:  # round 2, started by the other player
            return np.vectorize(lambda x, y: nxt[(2, y, x)], otypes=[float])(total_a, total_b)
        lead = np.sign(total_a - total_b).astype(float) * (1 if role == 0 else -1)
        tied = total_a == total_b
        if r < self.game.last_round and tied.any():
            lead[tied] = [nxt[(r + 1, int(x), int(x))] for x in total_a[tied]]
        return lead  # a tie after the last round is a draw: 0

    def score(self, agent: ObservationAgent, batch_size: int = DEFAULT_BATCH) -> dict:
        """``value_as_first``, ``value_as_second``, ``value`` and ``exploitability`` of ``agent``."""
        values = self.chained_values(self.agent_tables(agent, batch_size))
        start = (1, 0, 0)
        first, second = values["agent_first"][start], values["agent_second"][start]
        return {"value_as_first": first, "value_as_second": second, "value": (first + second) / 2,
                "exploitability": (values["br_first"][start] + values["br_second"][start]) / 2}


def scored_game(numbers: int = 10, round3: str = "two_cards") -> ScoredGame:
    """The :class:`ScoredGame` of a board, built once per process."""
    return _scored_game(numbers, round3)


@lru_cache(maxsize=4)
def _scored_game(numbers: int, round3: str) -> ScoredGame:
    return ScoredGame(numbers, round3)


@lru_cache(maxsize=4)
def _random_reference(numbers: int, round3: str) -> dict:
    return scored_game(numbers, round3).score(uniform_agent)


def equilibrium_agent(numbers: int = 10, round3: str = "two_cards") -> ObservationAgent:
    """The solver's equilibrium as an observation agent for ``dice_envs/ClosestNumber-v0``.

    It reads off each observation the round, the acting player's role (starter or
    not), the scores and this round's placements (in order, with the player's own decoy
    flags), i.e. the solver's :func:`~dice_envs.agents.closest_number.solver.round_key`
    and lead, and answers with the equilibrium's probabilities there."""
    scored = scored_game(numbers, round3)
    game, solver = scored.game, scored.solver
    n, p = game.numbers, 2
    channels = p + 3
    base = n * channels

    def agent(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.zeros((len(obs), game.num_actions))
        for row, o in enumerate(np.asarray(obs)):
            board = o[:base].reshape(n, channels)
            r = int(round(float(o[base + 3 * p])))
            starter = o[base + p] == 1  # the acting player starts this round
            rel = 0 if starter else 1
            own, opp = o[base], o[base + 1]
            lead = int(own - opp) if starter else int(opp - own)
            decoy_round = game.round_rules(r).decoy
            placed: List[Tuple[Any, int, int, Optional[bool]]] = []
            for k in np.flatnonzero(board[:, p + 2] > 0):
                if board[k, 0] or board[k, 1]:
                    placed.append((board[k, p + 2], rel, int(k) + 1, bool(board[k, 1])))
                else:
                    placed.append((board[k, p + 2], 1 - rel, int(k) + 1, None if decoy_round else False))
            key = (rel, tuple(x[1:] for x in sorted(placed)))
            rnd = scored.rounds[r]
            j = rnd.index[(rel, key)]
            row_probs = solver.solution(r, lead).table[j]
            out[row, rnd.actions[j, : len(row_probs)]] = row_probs
        return out

    agent.__name__ = "equilibrium"
    return agent


def named_agents(numbers: int = 10, round3: str = "two_cards") -> Dict[str, Callable[[], ObservationAgent]]:
    """The named agents of the game (``"equilibrium"``, ``"random"``), each a function
    making its observation agent."""
    return {"equilibrium": partial(equilibrium_agent, numbers, round3), "random": lambda: uniform_agent}


def score_agent(agent: ObservationAgent, numbers: int = 10, round3: str = "two_cards",
                batch_size: int = DEFAULT_BATCH) -> dict:
    """Exact payoffs and exploitability of an agent in two-player Closest Number.

    Args:
        agent: an observation agent ``agent(observations, masks) -> probabilities``
            over ``dice_envs/ClosestNumber-v0``'s observations and action masks.
        numbers: the board ``1..numbers`` (the source document's 10).
        round3: ``"two_cards"`` or ``"one_card"`` (see :mod:`dice_envs.games.closest_number.rules`).
        batch_size: most observations per call of the agent.

    Returns:
        A dict with ``value_as_first`` and ``value_as_second`` (the agent's expected
        payoff, +1 win / -1 loss / 0 draw as the env pays, against the solver's
        equilibrium when it starts round 1 and when the equilibrium does), ``value``
        (their mean: the env's average with a random starter), ``optimal_value`` (the
        equilibrium's mean over the seats against itself, 0 by symmetry), ``gap``
        (``value - optimal_value``), ``exploitability`` (NashConv / 2 of the agent's
        own strategy in the whole game: what a best responder gains against it,
        averaged over the seats, as :meth:`ClosestNumberSolver.exploitability
        <dice_envs.agents.closest_number.solver.ClosestNumberSolver.exploitability>`
        defines it), ``references`` (the uniform random policy's ``gap``),
        ``reference_exploitability`` (its exploitability), ``optimal_value_as_first``
        and ``optimal_value_as_second`` (the equilibrium's), ``equilibrium_exploitability``
        (the solver's), ``positions`` (round starts evaluated), ``information_states``
        (the agent's decisions asked), ``numbers``, ``round3`` and ``seconds``.

    Raises:
        ValueError: a bad argument or a bad answer of the agent (naming the problem and
            the observation), or a board over the resource limits.
    """
    start = time.perf_counter()
    scored = scored_game(numbers, round3)
    result = scored.score(agent, batch_size)
    v = scored.solver.value(1, 0)
    optimal = (v + -v) / 2
    random = _random_reference(scored.numbers, scored.round3)
    return {
        "numbers": scored.numbers,
        "round3": scored.round3,
        **result,
        "optimal_value": optimal,
        "gap": result["value"] - optimal,
        "optimal_value_as_first": v,
        "optimal_value_as_second": -v,
        "equilibrium_exploitability": scored.solver.exploitability(),
        "references": {"random": random["value"] - optimal},
        "reference_exploitability": {"random": random["exploitability"]},
        "positions": sum(len(rnd.positions) for rnd in scored.rounds.values()),
        "information_states": sum(len(rnd.positions) * len(rnd.players) for rnd in scored.rounds.values()),
        "seconds": time.perf_counter() - start,
    }


def score_closest_number(spec, numbers: int = 10, round3: str = "two_cards") -> dict:
    """Two players with number cards ``1..numbers``: ``spec`` (an agent, ``equilibrium`` or
    ``random``) against the equilibrium from both seats, and its exploitability."""
    agent = spec if isinstance(spec, Agent) else named_agent(spec, named_agents(numbers, round3))
    result = score_agent(agent, numbers=numbers, round3=round3)
    seats = {"first": result["value_as_first"], "second": result["value_as_second"]}
    return report("payoff (+1 win, -1 loss, 0 draw) against the equilibrium", "equilibrium", result["value"],
                  result["optimal_value"], seats, result["exploitability"], result["references"],
                  {key: result[key] for key in sorted(result.keys() - {
                      "value", "value_as_first", "value_as_second", "optimal_value", "gap", "exploitability",
                      "references", "numbers", "round3", "seconds"})})
