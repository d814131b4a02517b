"""Pig's table: the two scores as bars toward the goal (the mover's turn total at stake added
to theirs), and the die as it last landed, with the turn total next to it."""

from __future__ import annotations

from dice_envs.envs.table import GOLD, LIGHT, MUTED, seat_colour

BUST = "#d64541"


def last_roll(moves):
    """``(seat, face)`` of the last roll of the game, or ``None`` before the first."""
    for state, action in reversed(moves):
        if state.pending_roll and state.winner is None:
            return state.mover, int(action)
    return None


def draw_scores(table, game, state, agents, top=48):
    """Both players' bars; the mover's turn total is drawn at stake on theirs."""
    table.panel(16, top, 568, 122, f"scores (goal {game.goal})")
    for seat, agent in enumerate(agents):
        y = top + 30 + 46 * seat
        moving = state.winner is None and seat == state.mover
        extra = state.turn_total if moving else 0
        label = f"{state.scores[seat]}" + (f"  + {extra} at stake" if extra else "")
        if moving:
            table.polygon([(24, y + 4), (34, y + 12), (24, y + 20)], GOLD, z=2)
        table.text(40, y + 12, agent, size=9, colour=seat_colour(seat), weight="bold")
        table.score_bar(130, y, 440, 24, state.scores[seat], game.goal, extra, owner=agent, colour=seat_colour(seat),
                        label=label)


def draw(table, game, state, agents, moves):
    draw_scores(table, game, state, agents)
    roll = last_roll(moves)
    x, y, size = 120, 196, 110
    if roll is None:
        table.die(x, y, size, None, owner=agents[state.mover])
        table.text(x + size / 2, y - 10, f"{agents[state.mover]} to roll", size=9, colour=MUTED, ha="center")
    else:
        seat, face = roll
        bust = face == 1
        table.die(x, y, size, face, owner=agents[seat], ring=BUST if bust else None)
        said = f"{agents[seat]} rolled {face}" + (": bust!" if bust else "")
        table.text(x + size / 2, y - 12, said, size=9, colour=BUST if bust else LIGHT, ha="center", weight="bold")
    if state.winner is not None:
        table.text(300, 240, f"{agents[state.winner]} wins", size=22, colour=GOLD, weight="bold")
        table.text(300, 276, f"with {state.scores[state.winner]} points", size=11, colour=LIGHT)
    else:
        table.text(300, 226, "turn total", size=10, colour=MUTED)
        table.text(300, 262, str(state.turn_total), size=30, colour=GOLD if state.turn_total else LIGHT, weight="bold")
        table.text(300, 298, f"{agents[state.mover]} to " + ("roll or hold" if state.turn_total else "roll"),
                   size=9, colour=MUTED)
