"""Liar's Dice's table: every player's dice, face up for the player to move and hidden under a
cup for the others (all face up once the bid is called), and the bid ladder: the round's bids
from the lowest at the bottom to the current one at the top, with who made each.

:func:`draw_hands` and :func:`draw_ladder` also draw the rounds of the whole game
(:mod:`dice_envs.games.liars_dice.match_picture`)."""

from __future__ import annotations

from typing import Optional, Sequence

from dice_envs.envs.table import GOLD, INK, LIGHT, MUTED, seat_colour

RUNG = "#c8a97e"
CALLED = "#ff6b5e"
_MAX_RUNGS = 8


def counts_toward(game, face: int, bid_face: int) -> bool:
    """Does a die showing ``face`` count toward a bid on ``bid_face`` (wild dice count)?"""
    counts = [0] * game.faces
    counts[face - 1] = 1
    return game.matches(counts, bid_face) > 0


def wild_note(game) -> str:
    """``"6s wild"``, ``"aces wild"`` or ``""``."""
    return {"none": "", "highest": f"{game.faces}s wild", "aces": "aces wild"}[game.wild_rule]


def draw_hand(table, x, y, size, agent: str, seat: int, roll: Optional[Sequence[int]], shown: bool, game,
              count: int, lost: int = 0, bid_face: Optional[int] = None, moving: bool = False):
    """One player's place: name, ``count`` dice face up (``shown``) or hidden under an upturned cup,
    and ``lost`` crossed-out dice; with ``bid_face``, the dice counting toward it are ringed."""
    if moving:
        table.polygon([(x - 12, y + size / 2 - 6), (x - 3, y + size / 2), (x - 12, y + size / 2 + 6)], GOLD, z=2)
    if size >= 24:  # room for the dice count under the name (a small die's row has the name alone)
        table.text(x, y + size / 2 - 6, agent, size=8.5, colour=seat_colour(seat), weight="bold")
        table.text(x, y + size / 2 + 8, f"{count} {'die' if count == 1 else 'dice'}", size=7, colour=MUTED)
    else:
        table.text(x, y + size / 2, agent, size=8, colour=seat_colour(seat), weight="bold")
    dx, step = x + 78, size + 6
    if shown and roll is not None:
        for k, face in enumerate(roll):
            ring = GOLD if bid_face is not None and counts_toward(game, face, bid_face) else None
            table.die(dx + step * k, y, size, face, owner=agent, ring=ring, wild=face == game.wild_face)
    elif count:
        for k in range(count):
            table.hidden_die(dx + step * k, y + size * 0.3, size * 0.7, owner=agent)
        width = step * (count - 1) + size * 0.7 + 14
        table.cup(dx + width / 2 - 7, y + size * 0.62, width, size * 0.82, owner=agent, count=count,
                  label=f"{count} hidden")
    for k in range(lost):
        table.lost_die(dx + step * (count + k), y + size * 0.15, size * 0.7, owner=agent)


def draw_ladder(table, game, bids: Sequence[int], bidders: Sequence[int], agents: Sequence[str],
                called_by: Optional[str] = None, x=378, y=44, w=206, h=312, title="bids"):
    """The bid ladder: ``bids`` (action numbers, in order) by the seats ``bidders``, lowest at
    the bottom, the current bid highlighted (red once ``called_by`` called it)."""
    note = wild_note(game)
    table.panel(x, y, w, h, title + (f" ({note})" if note else ""))
    bottom, rung_h, gap = y + h - 14, 24, 30
    table.line([x + 14, x + 14], [y + 22, bottom + 2], RUNG, lw=3, z=0.8)
    table.line([x + w - 14, x + w - 14], [y + 22, bottom + 2], RUNG, lw=3, z=0.8)
    shown = list(zip(bids, bidders))[-_MAX_RUNGS:]
    if len(bids) > len(shown):
        table.text(x + w / 2, bottom + 6, f"({len(bids) - len(shown)} lower bids)", size=6.5, colour=MUTED,
                   ha="center")
    if not bids:
        table.text(x + w / 2, y + h / 2, "no bid yet", size=9, colour=MUTED, ha="center")
    for k, (bid, seat) in enumerate(shown):
        quantity, face = game.bid(bid)
        top = bottom - rung_h - gap * k - 8
        current = k == len(shown) - 1
        colour = (CALLED if called_by else GOLD) if current else RUNG
        table.box(x + 10, top, w - 20, rung_h, colour, edge="#5a4326", lw=1, radius=5, z=1.5)
        ink = INK if current else "#2a2015"
        table.text(x + 22, top + rung_h / 2, f"{quantity} \u00d7", size=10, colour=ink, weight="bold")
        table.die(x + 64, top + 3, rung_h - 6, face, wild=face == game.wild_face)
        table.text(x + 96, top + rung_h / 2, agents[seat], size=7.5, colour=ink, weight="bold" if current else "normal")
        table.record("rung", agents[seat], (quantity, face))
        if current and called_by:
            table.text(x + w / 2, top - 9, f"called by {called_by}!", size=8, colour=CALLED, ha="center",
                       weight="bold")


def verdict(game, state, agents: Sequence[str]) -> str:
    """The called bid's count and who won."""
    quantity, face = game.bid(state.bids[-1])
    found = sum(counts_toward(game, f, face) for roll in state.rolls for f in roll)
    true = found >= quantity
    return (f"{agents[state.caller]} called {quantity} \u00d7 {face}: {found} found, "
            f"the bid is {'true' if true else 'false'}")


def draw_round(table, game, state, agents: Sequence[str], seats: Sequence[int], dice: Sequence[int],
               lost: Sequence[int] = (), y=44, h=312, title: Optional[str] = None):
    """A round's hands, one row per player of the table: ``seats`` maps the round's seats to the
    rows, ``dice`` and ``lost`` are every row's dice held and lost (a row not in ``seats`` is out)."""
    rows = len(dice)
    table.panel(16, y, 354, h, title)
    row = min(84.0, (h - 34 - (40 if state.called else 0)) / rows)
    most = max(d + (lost[r] if lost else 0) for r, d in enumerate(dice))
    size = min(56.0, row - 8, (236 - 6 * (most - 1)) / most)  # the largest dice a row has room for
    mover = state.current_player if not state.is_terminal() and state.rolls is not None else None
    bid_face = game.bid(state.bids[-1])[1] if state.called else None
    for r in range(rows):
        top = y + 26 + row * r
        if r in seats:
            i = list(seats).index(r)
            roll = state.rolls[i] if state.rolls is not None else None
            draw_hand(table, 40, top, size, agents[r], r, roll, state.called or i == mover, game, dice[r],
                      lost[r] if lost else 0, bid_face, moving=i == mover)
        else:
            draw_hand(table, 40, top, size, agents[r], r, None, False, game, 0, lost[r] if lost else 0)
            table.text(120 + (size + 6) * (lost[r] if lost else 0), top + size / 2, "out", size=8, colour=MUTED)
    if state.called:
        names = [agents[s] for s in seats]
        table.text(28, y + h - 32, verdict(game, state, names), size=8, colour=LIGHT, weight="bold")
        table.text(28, y + h - 14, f"{names[state.winner]} wins the round", size=9, colour=GOLD, weight="bold")


def draw(table, game, state, agents, moves):
    draw_round(table, game, state, agents, range(game.num_players), game.dice)
    bidders = [state.seat(i) for i in range(len(state.bids))]
    draw_ladder(table, game, state.bids, bidders, agents, agents[state.caller] if state.called else None)
    if not state.called:
        table.text(193, 342, "the player to move sees their dice; the others' are under their cups", size=6.5,
                   colour=MUTED, ha="center")
