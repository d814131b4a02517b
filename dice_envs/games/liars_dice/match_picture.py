"""The whole game of Liar's Dice: the current round as in :mod:`dice_envs.games.liars_dice.picture`
(the mover's dice face up, the others' under cups, the bid ladder), every player's dice count
(the dice held, and the lost ones crossed out), and the last round's reveal: every die of it face
up, the called bid and who lost a die.  Once the game is over, the last round is the main picture."""

from __future__ import annotations

from dice_envs.envs.table import GOLD, LIGHT, seat_colour
from dice_envs.games.liars_dice.picture import counts_toward, draw_ladder, draw_round, verdict

_REVEAL_DIE = 14


def last_round(game, moves):
    """``(match state before the call, the round's final state)`` of the last called round, or ``None``."""
    for before, action in reversed(moves):
        if not before.is_chance_node() and before.round is not None and action == game.call_action:
            return before, before.round.apply(before.round.game.call_action)
    return None


def round_number(game, dice) -> int:
    """Every round costs one die, so the round is one more than the dice lost."""
    return sum(game.dice) - sum(dice) + 1


def lost_dice(game, dice):
    return [start - held for start, held in zip(game.dice, dice)]


def reveal_lines(before) -> int:
    """Lines of dice groups the reveal needs (groups wrap at the panel's width)."""
    lines, x = 1, 28
    for p in before.players:
        width = 52 + (_REVEAL_DIE + 2) * before.dice[p] + 10
        if x + width > 364:
            lines, x = lines + 1, 28
        x += width
    return lines


def draw_reveal(table, game, before, final, agents, y, h):
    """The last round's dice, face up, the ones counting toward the called bid ringed."""
    names = [agents[p] for p in before.players]
    loser = final.caller if final.winner == final.bidder else final.bidder
    table.panel(16, y, 354, h, f"round {round_number(game, before.dice)}, revealed")
    table.text(28, y + 26, f"{verdict(final.game, final, names)}: {names[loser]} lost a die", size=7.5,
               colour=LIGHT)
    bid_face = final.game.bid(final.bids[-1])[1]
    x, line = 28, 0
    for i, p in enumerate(before.players):
        width = 52 + (_REVEAL_DIE + 2) * before.dice[p] + 10
        if x + width > 364:
            x, line = 28, line + 1
        top = y + 40 + 20 * line
        table.text(x, top + _REVEAL_DIE / 2, agents[p], size=6.5, colour=seat_colour(p), weight="bold")
        for k, face in enumerate(final.rolls[i]):
            ring = GOLD if counts_toward(final.game, face, bid_face) else None
            table.die(x + 52 + (_REVEAL_DIE + 2) * k, top, _REVEAL_DIE, face, owner=agents[p], ring=ring,
                      kind="revealed_die")
        x += width


def draw(table, game, state, agents, moves):
    previous = last_round(game, moves)
    if state.round is None:  # the game is over: its last round is the picture
        if previous is None:
            table.panel(16, 44, 354, 312)
        else:
            before, final = previous
            draw_round(table, final.game, final, agents, before.players, before.dice, lost_dice(game, before.dice),
                       h=282, title=f"round {round_number(game, before.dice)}, the last")
            bidders = [before.players[final.seat(i)] for i in range(len(final.bids))]
            draw_ladder(table, final.game, final.bids, bidders, agents, agents[before.players[final.caller]])
        table.text(28, 342, f"{agents[state.winner]} wins the game", size=11, colour=GOLD, weight="bold")
        return
    rnd = state.round
    reveal = 0 if previous is None else 48 + 20 * reveal_lines(previous[0])
    title = f"round {round_number(game, state.dice)}: {sum(state.dice)} dice in play"
    draw_round(table, rnd.game, rnd, agents, state.players, state.dice, lost_dice(game, state.dice),
               h=312 - reveal - (6 if reveal else 0), title=title)
    if previous is not None:
        draw_reveal(table, game, *previous, agents, 356 - reveal, reveal)
    bidders = [state.players[rnd.seat(i)] for i in range(len(rnd.bids))]
    draw_ladder(table, rnd.game, rnd.bids, bidders, agents)
