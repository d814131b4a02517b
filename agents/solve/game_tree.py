"""The explicit extensive-form tree of a small game, built from its rules core.

Generic over any :class:`dice_envs.core.Game` with chance nodes and hidden
information: the exact evaluators (:mod:`dice_envs.agents.solve.exploitability`) and the
sequence-form LP (:mod:`dice_envs.agents.solve.sequence_form`) work on this tree, so they serve
every imperfect-information game in the project, not only Liar's Dice.

Information states come from ``infoset_key(state, player)``; the default is
``state.information_state(player)`` when the state has it, else the player's
observation vector (which must then have perfect recall).

Nodes are numbered in preorder (the order Gambit's ``.efg`` lists them).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Dict, List, Optional, Tuple

from dice_envs.core.game import Game, GameState

__all__ = ["GameTree", "InfoSet", "build_tree", "default_infoset_key"]

CHANCE_NODE, DECISION_NODE, TERMINAL_NODE = "c", "p", "t"


def default_infoset_key(state: GameState, player: int):
    """``state.information_state(player)`` if defined, else the observation bytes."""
    info = getattr(state, "information_state", None)
    if info is not None:
        return info(player)
    return (player, state.observation(player).tobytes())


@dataclass
class InfoSet:
    """One information state of one player: its key, legal actions and nodes."""

    player: int
    key: Any
    actions: Tuple[int, ...]
    nodes: List[int] = field(default_factory=list)
    state: Optional[GameState] = None  # a representative state (to query a policy)


@dataclass
class GameTree:
    """A game tree in preorder.

    Per node ``i``: ``kind[i]`` is ``"c"``, ``"p"`` or ``"t"``; ``player[i]`` the
    player to act (-1 at chance/terminal); ``infoset[i]`` an index into
    ``infosets`` (-1 unless a decision node); ``children[i]`` a list of
    ``(action or outcome, child index)``; ``probs[i]`` exact chance
    probabilities (chance nodes); ``payoff[i]`` the returns (terminals).
    """

    game: Game
    kind: List[str]
    player: List[int]
    infoset: List[int]
    children: List[List[Tuple[Any, int]]]
    probs: Dict[int, List[Fraction]]
    payoff: Dict[int, Tuple[float, ...]]
    infosets: List[InfoSet]

    def __len__(self) -> int:
        return len(self.kind)

    @property
    def num_nodes(self) -> int:
        return len(self.kind)


def build_tree(game: Game, infoset_key: Optional[Callable] = None, max_nodes: int = 2_000_000) -> GameTree:
    """Walk ``game`` from its initial state and return the explicit tree.

    Raises:
        ValueError: if the tree has more than ``max_nodes`` nodes.
    """
    key_fn = infoset_key or default_infoset_key
    kind: List[str] = []
    player: List[int] = []
    infoset: List[int] = []
    children: List[List[Tuple[Any, int]]] = []
    probs: Dict[int, List[Fraction]] = {}
    payoff: Dict[int, Tuple[float, ...]] = {}
    infosets: List[InfoSet] = []
    index: Dict[Any, int] = {}

    def visit(state: GameState) -> int:
        i = len(kind)
        if i >= max_nodes:
            raise ValueError(f"game tree has more than max_nodes={max_nodes:,} nodes")
        kids: List[Tuple[Any, int]] = []
        kind.append("")
        player.append(-1)
        infoset.append(-1)
        children.append(kids)
        if state.is_terminal():
            kind[i] = TERMINAL_NODE
            payoff[i] = tuple(float(r) for r in state.returns())
        elif state.is_chance_node():
            kind[i] = CHANCE_NODE
            outcomes = list(state.chance_outcomes())
            probs[i] = [Fraction(p) for _, p in outcomes]
            for outcome, _ in outcomes:
                kids.append((outcome, visit(state.apply(outcome))))
        else:
            kind[i] = DECISION_NODE
            p = state.current_player
            player[i] = p
            actions = tuple(state.legal_actions())
            key = (p, key_fn(state, p))
            j = index.get(key)
            if j is None:
                j = index[key] = len(infosets)
                infosets.append(InfoSet(p, key[1], actions, state=state))
            elif infosets[j].actions != actions:
                raise ValueError(f"information state {key!r} has different legal actions at two nodes")
            infosets[j].nodes.append(i)
            infoset[i] = j
            for a in actions:
                kids.append((a, visit(state.apply(a))))
        return i

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        visit(game.new_initial_state())
    finally:
        sys.setrecursionlimit(limit)
    return GameTree(game, kind, player, infoset, children, probs, payoff, infosets)
