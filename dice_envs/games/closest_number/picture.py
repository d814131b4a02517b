"""Closest Number's table: the number cards in a row with the players' cards placed on them this
round (in each player's colour, with their placing order; in a decoy round the mover's own decoy
marked ``D`` and the other players' cards marked ``?``), the last finished round face up with
every number tinted in the colour of the player who scored it, the points and the mover's hand."""

from __future__ import annotations

from typing import Dict

from dice_envs.envs.table import GOLD, INK, LIGHT, MUTED, PALETTE, seat_colour

DECOY = "D"
UNKNOWN = "?"


def scorer(placements, number: int):
    """The seat that scores ``number`` with ``placements``: the one whose nearest scoring card is
    strictly nearer than every other seat's (``None``: a tie, or no card), as in
    :func:`dice_envs.games.closest_number.rules.score_board`."""
    nearest: Dict[int, int] = {}
    for seat, n, decoy in placements:
        if not decoy:
            nearest[seat] = min(nearest.get(seat, abs(n - number)), abs(n - number))
    ranked = sorted(nearest.values())
    if not ranked or (len(ranked) > 1 and ranked[0] == ranked[1]):
        return None
    return min(nearest, key=nearest.__getitem__)


def draw_board(table, game, agents, y, numbers: int, placements, title: str, territory: bool = False):
    """A row of the number cards ``1..game.numbers`` (those above ``numbers`` greyed) with
    ``placements`` ``(seat, number, is_decoy or None)`` on them; ``territory`` tints each number
    with the colour of the player who scores it."""
    table.panel(16, y, 568, 112, title)
    step = 548 / game.numbers
    w = min(44.0, step - 3)
    size = min(15.0, w * 0.5)
    many = game.num_players > PALETTE  # colours repeat: the cards carry their seat's number
    on = {number: (order, seat, decoy) for order, (seat, number, decoy) in enumerate(placements, start=1)}
    for k in range(1, game.numbers + 1):
        x = 26 + step * (k - 1) + (step - 3 - w) / 2
        owner = scorer(placements, k) if territory and k <= numbers else None
        colour = seat_colour(owner) if owner is not None else "#f7f3e8"
        table.card(x, y + 20, w, 38, str(k), face_up=True, colour=colour, size=size, dim=k > numbers,
                   kind="number_card")
        if k not in on:
            continue
        order, seat, decoy = on[k]
        mark = (str(seat) if many else "") + (DECOY if decoy else UNKNOWN if decoy is None else "")
        table.card(x, y + 63, w, 30, mark, owner=agents[seat], colour=seat_colour(seat), text_colour=INK,
                   size=size * (0.6 if many else 0.9), ring=LIGHT if decoy else None)
        table.text(x + w / 2, y + 103, str(order), size=6.5, colour=MUTED, ha="center")


def draw_scores(table, game, state, agents, y=44):
    """The round and its rules, the mover's hand, and everyone's points so far."""
    table.panel(16, y, 568, 70)
    rules = state.rules
    kind = "two cards each, one a decoy" if rules.decoy else "one card each" if rules.cards == 1 else "two cards each"
    if state.outcome is not None:
        w = state.winner
        said = f"game over after round {state.round}: " + (f"{agents[w]} wins" if w is not None else "a draw")
        table.text(26, y + 13, said, size=8.5, colour=GOLD, weight="bold")
    else:
        table.text(26, y + 13, f"round {state.round}: {kind}; numbers 1 to {rules.numbers}", size=8.5,
                   colour=LIGHT, weight="bold")
        mover = state.current_player
        if mover >= 0:
            left, decoy = state.hand(mover)
            hand = f"{agents[mover]}'s hand: {left} card{'s' if left != 1 else ''}" + (
                "" if not decoy else ", the decoy" if left == 1 else ", one of them the decoy")
            table.text(26, y + 29, hand, size=7.5, colour=GOLD)
    n = game.num_players
    if n > 6:  # points as text, ten players a line
        for line in range(0, n, 10):
            points = "   ".join(f"P{s}: {state.scores[s]}" + ("" if s in state.active else " (out)")
                                for s in range(line, min(n, line + 10)))
            table.text(26, y + 44 + 12 * (line // 10), points, size=6.5, colour=LIGHT)
        return
    step = 548 / n
    for seat, agent in enumerate(agents):
        x = 26 + step * seat
        out = seat not in state.active
        table.box(x, y + 43, 14, 14, seat_colour(seat), radius=3, z=2, alpha=0.4 if out else 1.0)
        table.text(x + 20, y + 50, f"{agent}: {state.scores[seat]}" + (" (out)" if out else ""), size=7.5,
                   colour=MUTED if out else LIGHT)


def draw(table, game, state, agents, moves):
    if state.first is None:  # the starting player is not drawn yet (the environment draws it at once)
        table.text(300, 200, "drawing who starts round 1", size=10, colour=LIGHT, ha="center")
        return
    draw_scores(table, game, state, agents)
    panels = [120, 240]
    if state.outcome is None:
        mover = state.current_player
        title = f"round {state.round}: this round's cards" + (
            " (the mover sees their own decoy, D; any other card may be a decoy, ?)" if state.rules.decoy else "")
        draw_board(table, game, agents, panels.pop(0), state.rules.numbers, state.visible_placements(mover), title)
    for y, played in zip(panels, range(len(state.history), 0, -1)):
        title = f"round {played}, face up: each number in the colour of the player who scored it"
        draw_board(table, game, agents, y, game.round_rules(played).numbers, state.history[played - 1], title,
                   territory=True)
