"""Zombie Dice's table: the brains of every player as bars toward the goal, the last roll's
three dice in their colours with their faces (a brain, a shotgun blast, footprints), the
turn's brains and shotguns set aside, the footprints kept to re-roll, and the cup."""

from __future__ import annotations

from dice_envs.envs.table import GOLD, LIGHT, MUTED, seat_colour
from dice_envs.games.zombie_dice.rules import BRAIN, DICE_PER_ROLL, FACES, FOOTPRINTS, SHOTGUN, SHOTGUNS_TO_BUST

DIE_COLOURS = {"green": "#4caf50", "yellow": "#f2c94c", "red": "#d9463b"}
BUST = "#ff6b5e"


def brain(table, cx, cy, s, z):
    """A pink brain: two lobes, a fold between them and a few wrinkles."""
    for side in (-1, 1):
        table.ellipse(cx + side * s * 0.17, cy, s * 0.4, s * 0.52, "#f49ac1", edge="#a8406f", lw=0.9, z=z)
    table.line([cx, cx], [cy - s * 0.24, cy + s * 0.24], "#a8406f", lw=0.9, z=z + 0.1)
    for side in (-1, 1):
        table.arc(cx + side * s * 0.18, cy - s * 0.06, s * 0.2, s * 0.14, 200, 340, "#a8406f", lw=0.8, z=z + 0.1)
        table.arc(cx + side * s * 0.16, cy + s * 0.1, s * 0.2, s * 0.14, 20, 160, "#a8406f", lw=0.8, z=z + 0.1)


def shotgun(table, cx, cy, s, z):
    """A shotgun blast: an orange starburst with a dark hole."""
    table.star(cx, cy, s * 0.4, "#ff8c1a", points=9, inner=0.5, edge="#8a2b0e", z=z)
    table.circle(cx, cy, s * 0.1, "#3b0d05", z=z + 0.1)


def footprints(table, cx, cy, s, z):
    """Two bare footprints, one a step ahead of the other."""
    for side, dy in ((-1, s * 0.1), (1, -s * 0.1)):
        fx, fy = cx + side * s * 0.15, cy + dy
        table.ellipse(fx, fy + s * 0.05, s * 0.17, s * 0.3, "#4a2c17", z=z)
        for k, dx in enumerate((-0.06, 0.0, 0.06)):
            table.circle(fx + dx * s, fy - s * (0.15 + 0.02 * (k == 1)), s * 0.03, "#4a2c17", z=z)


SYMBOLS = {BRAIN: brain, SHOTGUN: shotgun, FOOTPRINTS: footprints}


def zombie_die(table, x, y, size, colour: str, face=None):
    """A die of ``colour`` (green, yellow or red) showing ``face``, or blank (``None``: in the cup)."""
    table.die_body(x, y, size, DIE_COLOURS.get(colour, "#f2c94c"), edge="#2b2b2b")
    if face is not None:
        SYMBOLS[face](table, x + size / 2, y + size / 2, size, 2.3)
    table.record("zombie_die", colour, face)


def roll_dice(game, outcome):
    """The dice of a roll outcome as ``[(colour, face), ...]``."""
    _, results = outcome
    return [(die.name, face) for die, counts in zip(game.dice, results)
            for face, n in zip(FACES, counts) for _ in range(n)]


def turn_view(game, state, moves):
    """What the turn area shows: the current turn, or the one the last roll just ended (a bust,
    or brains banked automatically).  ``(seat, roll, brains, shotguns, feet, turn_brains, ended)``:
    the roll as ``[(colour, face)]`` (``None`` before the turn's first roll), the dice set aside
    per colour, and ``"bust"``, ``"banked"`` or ``None``."""
    rolled_last = bool(moves) and moves[-1][0].is_chance_node()
    if rolled_last and not state.rolled:  # the roll ended the turn: show the turn as it ended
        before, outcome = moves[-1]
        _, results = outcome
        refill = sum(before.cup) < DICE_PER_ROLL - sum(before.feet)  # the brain dice went back into the cup
        kept = (0,) * game.num_colors if refill else before.brain_dice
        brains = tuple(b + r[0] for b, r in zip(kept, results))
        shotguns = tuple(s + r[1] for s, r in zip(before.shotgun_dice, results))
        feet = tuple(r[2] for r in results)
        turn = before.turn_brains + sum(r[0] for r in results)
        ended = "bust" if sum(shotguns) >= SHOTGUNS_TO_BUST else "banked"
        return before.seat, roll_dice(game, outcome), brains, shotguns, feet, turn, ended
    roll = roll_dice(game, moves[-1][1]) if rolled_last and state.rolled else None
    return state.seat, roll, state.brain_dice, state.shotgun_dice, state.feet, state.turn_brains, None


def draw_scores(table, game, state, agents, view):
    """The brains bars (the mover's turn at stake hatched), and a legend of the dice's faces below."""
    n = game.num_players
    legend = 24 + 22 * game.num_colors
    row = min(44.0, (312 - legend - 8 - 32) / n)
    note = ""
    if state.winner is None and state.final:
        note = ": last round" if len(state.active) == n else ": tiebreak round"
    table.panel(16, 44, 282, 32 + row * n, f"brains (goal {game.goal}){note}")
    top = max([game.goal] + [s + (view[5] if p == state.seat else 0) for p, s in enumerate(state.scores)])
    for seat, agent in enumerate(agents):
        h = min(20.0, row * 0.6)
        y = 64 + row * seat + (row - h) / 2 - 4
        moving = state.winner is None and seat == state.seat
        extra = view[5] if moving and view[6] is None else 0
        if moving:
            table.polygon([(21, y + h / 2 - 5), (29, y + h / 2), (21, y + h / 2 + 5)], GOLD, z=2)
        out = state.winner is None and seat not in state.active
        table.text(32, y + h / 2, agent, size=8, colour=MUTED if out else seat_colour(seat), weight="bold")
        label = f"{state.scores[seat]}" + (f" + {extra}" if extra else "") + (" (out)" if out else "")
        table.score_bar(104, y, 184, h, state.scores[seat], game.goal, extra, owner=agent, colour=seat_colour(seat),
                        label=label, dim=out, scale=top)
    y0 = 356 - legend
    table.panel(16, y0, 282, legend, "the dice: faces out of 6")
    for k, die in enumerate(game.dice):
        y = y0 + 20 + 22 * k
        table.die_body(26, y, 16, DIE_COLOURS.get(die.name, "#f2c94c"), edge="#2b2b2b")
        sides = [f"{w * 6} {face}" + ("s" if w * 6 != 1 and not face.endswith("s") else "")
                 for face, w in zip(die.faces, die.weights)]
        table.text(50, y + 8, f"{die.name}: " + ", ".join(sides), size=7.5, colour=LIGHT)


def draw(table, game, state, agents, moves):
    view = turn_view(game, state, moves)
    seat, roll, brains, shotguns, feet, turn_brains, ended = view
    draw_scores(table, game, state, agents, view)
    # the roll
    said = f"{agents[seat]} rolled" if roll else f"{agents[seat]} to roll"
    if ended == "bust":
        said += f": {sum(shotguns)} shotguns, bust!"
    elif ended == "banked":
        said += f": {turn_brains} brain{'' if turn_brains == 1 else 's'} banked"
    table.panel(308, 44, 276, 100)
    table.text(316, 54, said, size=7.5, colour=BUST if ended == "bust" else MUTED, weight="bold" if ended else "normal")
    for k in range(DICE_PER_ROLL):
        x = 330 + 78 * k
        if roll:
            zombie_die(table, x, 68, 60, *roll[k])
        else:
            table.die_body(x, 68, 60, "#244f36", edge="#3c7253")
    # the dice set aside this turn
    table.panel(308, 152, 276, 112, "this turn")
    rows = ((BRAIN, brains, f"brains  {turn_brains}"), (SHOTGUN, shotguns, f"shotguns  {sum(shotguns)} of 3"),
            (FOOTPRINTS, feet, "to re-roll"))
    for r, (face, counts, label) in enumerate(rows):
        y = 172 + 30 * r
        table.text(316, y + 12, label, size=7.5, colour=BUST if face == SHOTGUN and ended == "bust" else LIGHT)
        dice = [die.name for die, c in zip(game.dice, counts) for _ in range(c)]
        step = min(25.0, 160 / max(len(dice), 1))
        for k, colour in enumerate(dice):
            zombie_die(table, 412 + step * k, y + 2, min(22.0, step - 2), colour, face)
    # the cup
    table.panel(308, 272, 276, 84)
    cup = state.cup if ended is None else game.full_cup
    in_cup = [die.name for die, c in zip(game.dice, cup) for _ in range(c)]
    table.cup(362, 346, 84, 54, count=len(in_cup), upright=True)
    for k, colour in enumerate(in_cup):
        zombie_die(table, 326 + 12 * (k % 7), 276 + 12 * (k // 7) - 4 * (k % 2), 13, colour)
    counts = ", ".join(f"{c} {die.name}" for die, c in zip(game.dice, cup) if c) or "empty"
    table.text(420, 300, f"cup: {len(in_cup)} dice", size=8, colour=LIGHT, weight="bold")
    table.text(420, 318, counts, size=7.5, colour=MUTED)
    if state.winner is not None:
        table.text(420, 338, f"{agents[state.winner]} wins", size=10, colour=GOLD, weight="bold")
