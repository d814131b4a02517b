"""The pictures of the tables, one module per game, drawn with the shared primitives of
:mod:`dice_envs.pictures.table`.  :mod:`dice_envs.rendering` picks the game's module and draws
the frame around it (title, status, last events); see its docstring for what each picture shows.

Every game module has one entry point, ``draw(table, game, state, agents, moves)``: ``table`` is
the :class:`~dice_envs.pictures.table.Table` to draw on, ``state`` the rules-core position,
``agents`` the agent names by seat, and ``moves`` the ``(state, action or chance outcome)``
pairs of the game so far (the pictures take the last roll, or the last round's reveal, from
them).  Nothing here is imported by the rules cores, and matplotlib only when a frame is drawn.
"""

#: The picture module of each rules-core game, by ``Game.name``.
PICTURES = {
    "pig": "pig",
    "zombie_dice": "zombie_dice",
    "liars_dice": "liars_dice",
    "liars_dice_match": "liars_dice_match",
    "shakes_court": "shakes",
    "shakes_maesters": "shakes",
    "closest_number": "closest_number",
}
