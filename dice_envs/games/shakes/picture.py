"""The Shakes' table: the patients waiting (dice on the table), the team's saved patients toward
the number it needs, and one place per treatment (maester): its efficacy card, the strength of
its last argument, the dice it rolled on its patients (green: saved, grey: lost) and a token
per patient saved."""

from __future__ import annotations

from dice_envs.envs.table import GOLD, LIGHT, MUTED, seat_colour
from dice_envs.games.shakes.rules import ARGUMENT, COMPETITIVE_SAVES_TO_WIN, OVER, TREAT

SAVED = "#bfe6b5"
LOST = "#9a9a9a"
TOKEN = "#3fae5a"


def treatments(moves):
    """Every treatment roll of the game so far: ``[(treatment, face, saved)]``."""
    return [(s.patient_to, int(face), int(face) <= s.efficacies[s.patient_to])
            for s, face in moves if s.is_chance_node() and s.phase == TREAT]


def last_argument(moves):
    """``{maester: strength}`` of the last argument rolled, and its winner (``None``: still tied)."""
    for s, outcome in reversed(moves):
        if s.is_chance_node() and s.phase == ARGUMENT:
            strengths = dict(zip(s.contenders, (int(v) for v in outcome)))
            best = max(strengths.values())
            winners = [m for m, v in strengths.items() if v == best]
            return strengths, winners[0] if len(winners) == 1 else None
    return {}, None


def card_shown(game, state, seat: int) -> bool:
    """Is treatment ``seat``'s efficacy card face up?  At the end of the game, in the competitive
    game (every card is 3), and for the maester to move (their own card)."""
    if state.efficacies is None:
        return False
    if state.phase == OVER or state.rules.competitive:
        return True
    return game.name == "shakes_maesters" and state.current_player == seat


def result(state) -> str:
    """How the game ended."""
    if state.rules.competitive:
        w = state.winner
        return "nobody saved 3: a draw" if w is None else f"player_{w} wins"
    return "the team wins" if state.team_won else "the team loses"


def draw_patients(table, state, y=44):
    rules = state.rules
    left = state.patients_left
    table.panel(16, y, 568, 64)
    waiting = "patients keep coming" if left < 0 else f"{left} patient{'' if left == 1 else 's'} waiting"
    table.text(26, y + 14, waiting, size=8, colour=LIGHT, weight="bold")
    if state.phase == OVER:
        table.text(26, y + 40, result(state), size=11, colour=GOLD, weight="bold")
    else:
        for k in range(6 if left < 0 else left):
            table.die_body(26 + 17 * k, y + 28, 14)
            table.record("patient")
        if left < 0:
            table.text(26 + 17 * 6 + 4, y + 35, "...", size=9, colour=LIGHT)
    if rules.competitive:
        table.text(390, y + 14, f"first maester to save {COMPETITIVE_SAVES_TO_WIN} wins", size=8, colour=LIGHT,
                   weight="bold")
        table.text(390, y + 34, f"{state.total_saved} saved of {state.total_treated} treated", size=7.5, colour=MUTED)
        return
    table.text(346, y + 14, f"saved {state.total_saved} of {state.total_treated}; the team needs {rules.threshold}",
               size=8, colour=LIGHT, weight="bold")
    colour = TOKEN if state.total_saved >= rules.threshold else GOLD
    table.score_bar(346, y + 28, 224, 16, state.total_saved, rules.threshold, owner="team", colour=colour,
                    label=str(state.total_saved), scale=rules.patients)


def draw(table, game, state, agents, moves):
    rules = state.rules
    n = rules.num_players
    draw_patients(table, state)
    maesters = game.name == "shakes_maesters"
    names = agents if maesters else [f"treatment {i}" for i in range(n)]
    rolls = treatments(moves)
    strengths, winner = last_argument(moves)
    top, width = 116, 568 / n
    title = "efficacy card, last argument" if maesters else "efficacy card (hidden from the court)"
    table.panel(16, top, 568, 240, f"{title}, patients treated (green: saved) and saved tokens")
    for seat in range(n):
        x = 16 + width * seat + 10
        moving = maesters and state.current_player == seat
        if moving:
            table.polygon([(x - 4, top + 26), (x + 3, top + 31), (x - 4, top + 36)], GOLD, z=2)
        table.text(x + 6, top + 31, names[seat], size=8, colour=seat_colour(seat), weight="bold")
        shown = card_shown(game, state, seat)
        efficacy = str(state.efficacies[seat]) if shown else None
        table.card(x + 2, top + 44, 34, 48, efficacy, owner=names[seat], face_up=shown,
                   text_colour="#7a2530", size=16)
        table.text(x + 19, top + 101, f"saves \u2264 {efficacy}" if shown else "efficacy ?", size=6.5,
                   colour=MUTED, ha="center")
        if seat in strengths:
            ring = GOLD if seat == winner else None
            table.die(x + 48, top + 52, 30, strengths[seat], owner=names[seat], ring=ring, kind="argument_die")
            table.text(x + 63, top + 94, "argued", size=6, colour=GOLD if ring else MUTED, ha="center")
        elif maesters and state.phase not in (OVER,) and seat < len(state.declared):
            table.text(x + 63, top + 68, "declared", size=6.5, colour=MUTED, ha="center")
        mine = [(face, saved) for who, face, saved in rolls if who == seat]
        tcols = max(1, int((width - 14) // 15))
        room = 100 - 15 * -(-state.saved[seat] // tcols)  # the tokens' rows go below the dice
        step = next((st for st in range(23, 11, -1) if st * -(-len(mine) // max(1, int((width - 14) // st))) <= room),
                    12)
        cols = max(1, int((width - 14) // step))
        for k, ((face, saved), (dx, dy)) in enumerate(zip(mine, table.grid(len(mine), x, top + 112, cols, step))):
            latest = rolls and rolls[-1][0] == seat and k == len(mine) - 1
            table.die(dx, dy, step - 3, face, owner=names[seat], body=SAVED if saved else LOST,
                      ring=GOLD if latest else None, kind="patient_die")
        below = top + 112 + step * -(-len(mine) // cols) + 4
        for k, (dx, dy) in enumerate(table.grid(state.saved[seat], x, below, tcols, 15)):
            table.token(dx + 7, dy + 7, 6, TOKEN, owner=names[seat])
        table.text(x, top + 228, f"saved {state.saved[seat]} of {state.treated[seat]}", size=7, colour=LIGHT)
