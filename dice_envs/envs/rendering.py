"""``render_mode="rgb_array"`` for every environment: a picture of the table.

Every AEC environment (``dice_envs/*_v0.py``) and every Gymnasium id draws the table as a
person sitting at it would see it, on a felt-green frame of :data:`FRAME_SIZE` (600 by 400
pixels), returned as an ``(400, 600, 3)`` uint8 array, so Gymnasium's ``RecordVideo`` (and any
video logger) can record a game.  The game's name is at the top left, the status (who is to
move, or the returns once the game is over) at the top right, and the latest events (rolls,
bids, placements) in small text at the bottom; the picture in between is the game's own
(the module its :mod:`dice_envs.registry` entry names):

* **Pig**: the two scores as bars toward the goal, with the mover's turn total at stake drawn
  (hatched) after their score; the die as it last landed, with pips (ringed in red on a 1, a
  bust), who rolled it, and the turn total.
* **Zombie Dice**: every player's brains as a bar toward the goal (13), the mover's brains of
  this turn at stake hatched after it, players out of a tiebreak dimmed; the last roll's three
  dice in their colours (green, yellow, red) showing a brain (pink), a shotgun blast (orange
  star) or footprints; the turn's brains and shotguns set aside (and the shotguns counted out of
  3), the footprint dice kept to re-roll; the cup with the dice left in it, by colour; a legend
  of the dice's faces.  A roll that ends the turn (a bust, or brains banked) stays on the table
  until the next player rolls.
* **Liar's Dice**: one row per player, the dice face up or hidden under a cup (see below);
  the bid ladder on the right, the bids of the round from the lowest at the bottom to the
  current one at the top (highlighted), each rung the quantity, a die showing the face and who
  bid it; wild dice carry a gold star.  Once a bid is called every die is shown, the dice that
  count toward the bid ringed in gold, with the count and who won.
* **Liar's Dice Match**: the same for the current round, and each player's dice count: the
  dice they still hold and the ones they have lost (crossed-out outlines), the round number,
  and the last round's reveal (every die, the called bid, who lost a die).  Once the game is
  over, its last round, called and face up, is the picture.
* **The Shakes**: the patients still waiting (dice on the table), the team's saved patients as
  a bar toward the number the team needs (the competitive game: who saves 3 first); one column
  per treatment (maester): its efficacy card, the strength of its last argument (a die, the
  winner's ringed), the dice rolled on its patients (green: saved, grey: lost; the latest
  ringed) and a token for every patient it saved.  In the maesters game a maester who has
  declared this round is marked (not what they declared: declarations are simultaneous).
* **Closest Number**: the number cards in a row (those no longer in play greyed) with the
  cards placed on them this round in each player's colour and their placing order; the last
  finished round face up below it (once the game is over, its last two rounds), every number
  tinted with the colour of the player who scored it; the players' points, the round and its
  rules, and the cards left in the mover's hand.

**Hidden information.**  A frame is drawn from the seat of the player to move, as at a
hot-seat table: that player's secrets are face up, everyone else's hidden, and everything is
turned face up once the rules make it public.  The log of the latest events is written for the
same seat (``dice rolled: player_0 2 5; player_1 ? ?``; a decoy placed is "a card (or the decoy)";
a maester's declaration is "declared"), as is the text of ``render_mode="ansi"``.  Liar's Dice:
the mover's dice face up, each other player's dice (dark, with a ``?``) under an upturned cup;
every die face up once the bid is called (the end of the round), and in the match the last
round's dice in its reveal.  The Shakes: efficacy cards face down, the maester to move's own
card face up (maesters game; the court never sees a card), every card face up when the game
is over (the competitive game's, all 3, always).  Closest Number: in a decoy round the mover's
own decoy is marked ``D``, the other players' cards carry a ``?`` (any of them may be the
decoy); a finished round is face up.  In the single-agent Gymnasium
environments the agent is the player to move in every frame but the last, so their videos show
the agent's view.

Everything drawn is also listed, as :class:`~dice_envs.envs.table.Item` ``(kind, owner,
value)``, in :attr:`TablePainter.items` of the painter that drew the frame (``painter`` of the
raw AEC environment, ``env.unwrapped.painter``; ``env.unwrapped.aec.painter`` of a Gymnasium
id), so a test can check what a picture shows without reading pixels.  A frame takes 20 to 60
milliseconds (matplotlib's Agg, one figure per environment, reused).  It needs matplotlib (the
``[plot]`` extra); :func:`check_available` says so at construction time.  For videos,
``gymnasium.wrappers.RecordVideo`` needs moviepy (the ``[video]`` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence, Tuple

import numpy as np

from dice_envs.core.extras import needs_extra
from dice_envs.envs.table import GOLD, MUTED, Table
from dice_envs.registry import entry_for_rules, load

if TYPE_CHECKING:
    from dice_envs.envs.table import Table

__all__ = ["RENDER_FPS", "FRAME_SIZE", "TablePainter", "check_available"]

#: Frames per second for videos of a game (decisions are far apart in time).
RENDER_FPS = 2
#: ``(width, height)`` of every frame, in pixels.
FRAME_SIZE = (600, 400)
_EVENT_LINES = 3
_EVENT_CHARS = 105


def check_available() -> None:
    """Raise Gymnasium's ``DependencyNotInstalled`` if matplotlib (needed for ``rgb_array``) is missing;
    its message names the ``[plot]`` extra."""
    with needs_extra("render_mode='rgb_array' (a picture of the table)"):
        import matplotlib  # noqa: F401


def picture(game):
    """The ``draw`` function of ``game``'s picture (``ValueError`` for a game without one).

    Every game's picture is the module its :mod:`dice_envs.registry` entry names: it draws the table
    with the primitives of :mod:`dice_envs.envs.table` through one entry point,
    ``draw(table, game, state, agents, moves)`` (``state`` the rules-core position, ``agents`` the
    agent names by seat, ``moves`` the ``(state, action or chance outcome)`` pairs of the game so far)."""
    entry = entry_for_rules(getattr(game, "name", None))
    if entry.picture is None:
        raise ValueError(f"no picture for the game {entry.name!r}")
    return load(entry.picture + ":draw")


class TablePainter:
    """Draws the frames of one environment (one matplotlib figure, reused from frame to frame).

    Attributes:
        items: what the last frame shows, a tuple of :class:`~dice_envs.envs.table.Item`.
    """

    def __init__(self) -> None:
        self._table: Optional[Table] = None
        self.items: Tuple = ()

    def frame(self, game, state, agents: Sequence[str], moves: Sequence = (), events: Sequence[str] = (),
              title: str = "", status: str = "") -> np.ndarray:
        """The picture of ``state`` (a rules-core position of ``game``), an ``(H, W, 3)`` uint8 array.

        Args:
            agents: the agent name of every seat.
            moves: the ``(state, action or chance outcome)`` pairs of the game so far, oldest
                first (the picture shows the last roll or the last round's reveal from them).
            events: the latest events, as text; the last few are written at the bottom.
            title, status: the game's name, and whose turn it is or how the game ended.
        """
        draw = picture(game)
        if self._table is None:
            self._table = Table(FRAME_SIZE)
        table = self._table
        table.begin()
        width, height = FRAME_SIZE
        table.text(14, 18, title, size=13, weight="bold")
        if 11.5 * len(title) + 7.2 * len(status) < width - 48:
            table.text(width - 14, 18, status, size=8.5, colour=GOLD, ha="right")
        else:  # a long status (the returns of many players) goes below the title's line, smaller
            table.text(width - 14, 33, status, size=7, colour=GOLD, ha="right")
        draw(table, game, state, list(agents), list(moves))
        lines = [e if len(e) <= _EVENT_CHARS else e[: _EVENT_CHARS - 3] + "..." for e in events[-_EVENT_LINES:]]
        for k, line in enumerate(reversed(lines)):
            table.text(14, height - 10 - 12 * k, line, size=7, colour=MUTED if k else "#dfe8e2")
        frame = table.finish()
        self.items = tuple(table.items)
        return frame

    def __getstate__(self):  # a copy draws on a figure of its own (made by its first frame)
        return {"_table": None, "items": self.items}

    def count(self, kind: str, owner: Optional[str] = None) -> int:
        """How many objects of ``kind`` (of ``owner``, if given) the last frame shows."""
        return sum(1 for i in self.items if i.kind == kind and (owner is None or i.owner == owner))
