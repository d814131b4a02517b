"""Write a game's tree in Gambit's extensive-form ``.efg`` format.

Generic over any rules core (:mod:`dice_envs.core`) with exact chance
probabilities: chance probabilities are written as exact fractions (``1/36``;
Gambit rejects decimals such as 0.1667 that do not sum to exactly 1), payoffs
as integers or fractions.  The tree is streamed depth first, so large trees
(the source document's two million nodes for 4-sided dice) never sit in memory, and the
file is written atomically (a temporary file renamed into place).

Format (Gambit's documentation, "Game representation formats")::

    EFG 2 R "title" { "Player 1" "Player 2" }
    "comment"

    c "" 1 "" { "outcome" 1/4 ... } 0          chance node, its infoset number
    p "" 1 3 "label" { "action" ... } 0        player 1's node in infoset 3
    t "" 2 "Outcome 2" { -1, 1 }               terminal node with outcome 2

Information states are numbered per player in order of first appearance, keyed
as in :mod:`dice_envs.agents.solve.game_tree` (``state.information_state(player)`` by default).
"""

from __future__ import annotations

import os
import sys
from fractions import Fraction
from typing import Callable, Dict, Optional, TextIO

from dice_envs.agents.solve.game_tree import default_infoset_key
from dice_envs.core.files import atomic_file
from dice_envs.core.game import Game, GameState

__all__ = ["write_efg", "efg_text"]


def _quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(x) -> str:
    f = Fraction(x).limit_denominator(10**12) if isinstance(x, float) else Fraction(x)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


class _Writer:
    def __init__(self, game: Game, out: TextIO, infoset_key: Callable, label: Optional[Callable]):
        self.game = game
        self.out = out
        self.key = infoset_key
        self.label = label
        self.infosets: list = [dict() for _ in range(game.num_players)]
        self.chance_sets = 0
        self.outcomes: Dict[tuple, int] = {}
        self.nodes = 0

    def visit(self, state: GameState) -> None:
        self.nodes += 1
        write = self.out.write
        if state.is_terminal():
            payoff = tuple(_number(r) for r in state.returns())
            number = self.outcomes.setdefault(payoff, len(self.outcomes) + 1)
            write(f't "" {number} "Outcome {number}" {{ {", ".join(payoff)} }}\n')
        elif state.is_chance_node():
            outcomes = list(state.chance_outcomes())
            total = sum(Fraction(p) for _, p in outcomes)
            if total != 1:
                raise ValueError(f"chance probabilities sum to {total}, not exactly 1")
            self.chance_sets += 1
            parts = " ".join(f"{_quote(self._outcome_name(state, o))} {_number(Fraction(p))}" for o, p in outcomes)
            write(f'c "" {self.chance_sets} "" {{ {parts} }} 0\n')
            for outcome, _ in outcomes:
                self.visit(state.apply(outcome))
        else:
            player = state.current_player
            key = self.key(state, player)
            table = self.infosets[player]
            number = table.setdefault(key, len(table) + 1)
            actions = state.legal_actions()
            names = " ".join(_quote(self.game.action_name(a)) for a in actions)
            label = self.label(state, player) if self.label else str(key)
            write(f'p "" {player + 1} {number} {_quote(label)} {{ {names} }} 0\n')
            for a in actions:
                self.visit(state.apply(a))

    @staticmethod
    def _outcome_name(state: GameState, outcome) -> str:
        describe = getattr(state, "describe_outcome", None)
        return describe(outcome) if describe else str(outcome)


def write_efg(game: Game, path_or_file, title: Optional[str] = None, comment: str = "",
              infoset_key: Optional[Callable] = None, infoset_label: Optional[Callable] = None) -> int:
    """Write ``game``'s full tree to ``path_or_file`` (a path, written atomically, or
    an open text file).  Returns the number of nodes written.

    Args:
        title: the game's title in the file (default ``repr(game)``).
        comment: the file's comment line.
        infoset_key: ``(state, player) -> hashable`` identifying information states.
        infoset_label: ``(state, player) -> str`` naming them (default: the key).
    """
    key = infoset_key or default_infoset_key
    label = infoset_label or getattr(game, "infoset_label", None)

    def emit(fh: TextIO) -> int:
        players = " ".join(_quote(f"Player {p + 1}") for p in range(game.num_players))
        fh.write(f"EFG 2 R {_quote(title or repr(game))} {{ {players} }}\n{_quote(comment)}\n\n")
        writer = _Writer(game, fh, key, label)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 10_000))
        try:
            writer.visit(game.new_initial_state())
        finally:
            sys.setrecursionlimit(limit)
        return writer.nodes

    if hasattr(path_or_file, "write"):
        return emit(path_or_file)
    with atomic_file(os.fspath(path_or_file), "w") as fh:
        return emit(fh)


def efg_text(game: Game, **kwargs) -> str:
    """The ``.efg`` file as a string (small games)."""
    import io

    buf = io.StringIO()
    write_efg(game, buf, **kwargs)
    return buf.getvalue()
