"""The shared drawing primitives of every game's picture: the table, dice, cups, cards, bars, text.

A :class:`Table` is one matplotlib ``Figure`` (Agg, no pyplot) the size of
:data:`dice_envs.envs.rendering.FRAME_SIZE`, reused from frame to frame.  Its coordinates are
pixels with ``(0, 0)`` at the top left and ``y`` growing downwards, as on the screen.  The
game modules (:mod:`dice_envs.games.pig.picture` and the others) draw with the methods below and
never touch matplotlib themselves.

Every object a primitive draws is also recorded in :attr:`Table.items`, an
:class:`Item` ``(kind, owner, value)``, so that what a picture shows can be checked without
reading pixels (:meth:`dice_envs.envs.rendering.TablePainter.count`, e.g.
``painter.count("die", owner="player_0")``).  The kinds:

* ``"die"``: a die face up, ``value`` its face (``None``: a die not rolled yet);
* ``"hidden_die"``: a die whose face its owner alone knows (under a cup);
* ``"lost_die"``: a die a player no longer has (Liar's Dice Match);
* ``"cup"``: a dice cup, ``value`` the number of dice it holds or hides;
* ``"score_bar"``: a score drawn as a bar toward a goal, ``value`` the score;
* ``"card"``: a card, ``value`` its text face up, ``None`` face down;
* ``"token"``: a round counter (a saved patient in The Shakes);
* ``"rung"``: a bid on the Liar's Dice ladder, ``value`` ``(quantity, face)``;
* ``"text"``: a line of text, ``value`` the text (titles, names, the log of the latest events);
* kinds a game adds for its own dice (``"zombie_die"``, ``"patient"``).
"""

from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

__all__ = ["Item", "Table", "FELT", "IVORY", "INK", "GOLD", "LIGHT", "MUTED", "seat_colour", "PIP_LAYOUT", "PALETTE"]

FELT = "#1d5e3a"  # the table
FELT_DARK = "#164a2e"  # panels on it
IVORY = "#f7f3e8"  # die faces and cards
INK = "#1c1c1c"  # pips
GOLD = "#f2c14e"  # the highlight: the current bid, the player to move, the winner
LIGHT = "#f4f1e8"  # text
MUTED = "#a9c4b3"  # secondary text
HIDDEN = "#7a2530"  # the back of a die nobody else may see
LEATHER = "#6b4226"  # dice cups
CARD_BACK = "#2d4a8a"

_SEAT_COLOURS = ("#e8a33d", "#5fa8e8", "#e0609a", "#b38ee0", "#4fd0c4", "#e07a5f", "#d9d24a", "#9aa3ad")

#: Pip positions of faces 1-6 on a unit die, ``(x, y)`` from the top left.
PIP_LAYOUT = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.28, 0.22), (0.72, 0.22), (0.28, 0.5), (0.72, 0.5), (0.28, 0.78), (0.72, 0.78)),
}
_DPI = 100
_PT = 72 / _DPI  # points per pixel


#: How many seats have colours of their own (beyond, they repeat).
PALETTE = len(_SEAT_COLOURS)


def seat_colour(seat: int) -> str:
    """The colour of a seat (its bar, its cards, its name on the bid ladder)."""
    return _SEAT_COLOURS[seat % len(_SEAT_COLOURS)]


class Item(NamedTuple):
    """One object drawn: its kind (see the module docstring), its owner (an agent name, a
    colour, or ``None``) and its value."""

    kind: str
    owner: Optional[str]
    value: object


class Table:
    """A reusable canvas of ``size = (width, height)`` pixels; :meth:`begin` starts a frame,
    the primitives draw on it, :meth:`finish` returns it as an ``(height, width, 3)`` uint8 array."""

    def __init__(self, size: Tuple[int, int]):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.width, self.height = size
        self.fig = Figure(figsize=(self.width / _DPI, self.height / _DPI), dpi=_DPI, facecolor=FELT)
        self.canvas = FigureCanvasAgg(self.fig)
        self.ax = self.fig.add_axes((0, 0, 1, 1))
        self.ax.set_axis_off()
        self.items: List[Item] = []
        self._pips: list = []

    # -- the frame ------------------------------------------------------------------

    def begin(self) -> None:
        """Clear the previous frame's drawing (the figure and its axes are kept)."""
        ax = self.ax
        for group in (ax.artists, ax.patches, ax.texts, ax.collections, ax.lines):
            for artist in list(group):
                artist.remove()
        ax.set_xlim(0, self.width)
        ax.set_ylim(self.height, 0)
        self.items = []
        self._pips = []

    def finish(self) -> np.ndarray:
        """Draw the frame and return its pixels."""
        if self._pips:
            x, y, d, c, z = zip(*self._pips)
            for level in sorted(set(z)):
                idx = [i for i, zi in enumerate(z) if zi == level]
                self.ax.scatter([x[i] for i in idx], [y[i] for i in idx], s=[(d[i] * _PT) ** 2 for i in idx],
                                c=[c[i] for i in idx], linewidths=0, zorder=level)
        self.canvas.draw()
        return np.asarray(self.canvas.buffer_rgba())[..., :3].copy()

    def _add(self, patch):
        """Add a patch (without the data-limit update of ``add_patch``, a third of the time of a frame)."""
        self.ax.add_artist(patch)

    def record(self, kind: str, owner: Optional[str] = None, value=None) -> None:
        self.items.append(Item(kind, owner, value))

    # -- shapes ---------------------------------------------------------------------

    def box(self, x, y, w, h, face, edge=None, lw=1.0, radius=0.0, z=1.0, alpha=1.0, hatch=None):
        """A rectangle with its top left at ``(x, y)``, corners rounded by ``radius`` pixels."""
        from matplotlib.patches import FancyBboxPatch

        style = f"round,pad=0,rounding_size={radius}" if radius else "square,pad=0"
        self._add(FancyBboxPatch((x, y), w, h, boxstyle=style, facecolor=face, alpha=alpha, hatch=hatch,
                                         edgecolor=edge or face, linewidth=lw if edge else 0, zorder=z))

    def panel(self, x, y, w, h, title: Optional[str] = None):
        """A darker area of the felt grouping related things, with a small title above it."""
        self.box(x, y, w, h, FELT_DARK, radius=8, z=0.5)
        if title:
            self.text(x + 8, y + 10, title, size=7.5, colour=MUTED)

    def polygon(self, points: Sequence[Tuple[float, float]], face, edge=None, lw=1.0, z=1.0, alpha=1.0):
        from matplotlib.patches import Polygon

        self._add(Polygon(points, closed=True, facecolor=face, edgecolor=edge or face, alpha=alpha,
                                  linewidth=lw if edge else 0, zorder=z))

    def circle(self, cx, cy, r, face, edge=None, lw=1.0, z=1.0, alpha=1.0):
        from matplotlib.patches import Circle

        self._add(Circle((cx, cy), r, facecolor=face, edgecolor=edge or face, alpha=alpha,
                                 linewidth=lw if edge else 0, zorder=z))

    def ellipse(self, cx, cy, w, h, face, angle=0.0, edge=None, lw=1.0, z=1.0):
        from matplotlib.patches import Ellipse

        self._add(Ellipse((cx, cy), w, h, angle=angle, facecolor=face, edgecolor=edge or face,
                                  linewidth=lw if edge else 0, zorder=z))

    def arc(self, cx, cy, w, h, theta1, theta2, colour, lw=1.0, z=1.0):
        """An arc of the ellipse ``w`` by ``h`` around ``(cx, cy)``; angles in degrees, clockwise
        on the screen from the right (the y axis points down)."""
        from matplotlib.patches import Arc

        self._add(Arc((cx, cy), w, h, theta1=theta1, theta2=theta2, edgecolor=colour, linewidth=lw,
                              zorder=z))

    def line(self, xs, ys, colour, lw=1.0, z=1.0, style="-"):
        from matplotlib.lines import Line2D

        self._add(Line2D(xs, ys, color=colour, linewidth=lw, zorder=z, linestyle=style, solid_capstyle="round"))

    def star(self, cx, cy, r, face, points=5, inner=0.45, z=3.0, edge=None):
        """A star of ``points`` points (a wild face's mark, a shotgun's blast)."""
        angles = np.pi / points * np.arange(2 * points) - np.pi / 2
        radii = np.where(np.arange(2 * points) % 2 == 0, r, r * inner)
        self.polygon(list(zip(cx + radii * np.cos(angles), cy + radii * np.sin(angles))), face, edge=edge, lw=0.8,
                     z=z)

    def text(self, x, y, s, size=8.0, colour=LIGHT, ha="left", va="center", weight="normal", z=4.0, family=None):
        """Text at ``(x, y)`` (``size`` in points; 8 points is 11 pixels)."""
        extra = {"family": family} if family else {}
        self.ax.text(x, y, s, fontsize=size, color=colour, ha=ha, va=va, fontweight=weight, zorder=z,
                     clip_on=False, **extra)
        self.record("text", None, s)

    # -- dice -----------------------------------------------------------------------

    def die_body(self, x, y, size, face=IVORY, edge="#3b3b3b", z=2.0, ring: Optional[str] = None):
        """A blank die of ``size`` pixels with its top left at ``(x, y)``; ``ring`` outlines it."""
        if ring:
            pad = max(2.0, size * 0.08)
            self.box(x - pad, y - pad, size + 2 * pad, size + 2 * pad, ring, radius=size * 0.22 + pad, z=z - 0.1)
        self.box(x, y, size, size, face, edge=edge, lw=max(0.6, size / 40), radius=size * 0.18, z=z)

    def die(self, x, y, size, face, owner: Optional[str] = None, body=IVORY, pips=INK, ring: Optional[str] = None,
            wild: bool = False, kind: str = "die", z=2.0):
        """A die showing ``face`` (pips for 1-6, the number above 6, a faint ``?`` for ``None``);
        ``wild`` marks it with a small gold star; ``ring`` outlines it (a die that counts)."""
        self.die_body(x, y, size, body, z=z, ring=ring)
        if face in PIP_LAYOUT:
            d = size * (0.2 if face < 4 else 0.17)
            for px, py in PIP_LAYOUT[face]:
                self._pips.append((x + px * size, y + py * size, d, pips, z + 0.2))
        else:
            label = "?" if face is None else str(face)
            self.text(x + size / 2, y + size / 2, label, size=size * 0.42 * _PT, colour=pips if face else "#9a9a9a",
                      ha="center", weight="bold", z=z + 0.2)
        if wild:
            self.star(x + size * 0.98, y + size * 0.02, max(4.0, size * 0.2), GOLD, edge=INK, z=z + 0.4)
        self.record(kind, owner, face)

    def hidden_die(self, x, y, size, owner: Optional[str] = None, z=2.0):
        """A die seen from its back: its face is its owner's secret."""
        self.die_body(x, y, size, HIDDEN, edge="#2b0d11", z=z)
        self.text(x + size / 2, y + size / 2, "?", size=size * 0.4 * _PT, colour="#d9a0a8", ha="center",
                  weight="bold", z=z + 0.2)
        self.record("hidden_die", owner)

    def lost_die(self, x, y, size, owner: Optional[str] = None):
        """The outline of a die a player has lost, crossed out."""
        self.box(x, y, size, size, "none", edge=MUTED, lw=0.8, radius=size * 0.18, z=1.5, alpha=0.7)
        self.line([x + 3, x + size - 3], [y + 3, y + size - 3], MUTED, lw=0.8, z=1.6)
        self.record("lost_die", owner)

    def cup(self, cx, bottom, width, height, owner: Optional[str] = None, count: Optional[int] = None,
            label: Optional[str] = None, upright: bool = False):
        """A leather dice cup, its base ``width`` wide at ``bottom``: upside down over hidden dice
        (the default), or ``upright`` with dice in it.  ``label`` is written on it."""
        top, base, mouth = bottom - height, width / 2, width * 0.36
        if upright:  # opening at the top, wider than the bottom
            base, mouth = width * 0.38, width / 2
            pts = [(cx - mouth, top), (cx + mouth, top), (cx + base, bottom), (cx - base, bottom)]
            self.polygon(pts, LEATHER, edge="#3a2212", lw=1.2, z=1.2)
            self.box(cx - mouth - 2, top - 3, 2 * mouth + 4, 6, "#8a5a36", edge="#3a2212", lw=1, radius=3, z=1.3)
        else:
            pts = [(cx - mouth, top), (cx + mouth, top), (cx + base, bottom), (cx - base, bottom)]
            self.polygon(pts, LEATHER, edge="#3a2212", lw=1.2, z=3.0)
            self.box(cx - base - 2, bottom - 7, 2 * base + 4, 7, "#8a5a36", edge="#3a2212", lw=1, radius=3, z=3.1)
        if label:
            self.text(cx, top + height * (0.3 if upright else 0.42), label, size=7, colour="#f0dcc0", ha="center",
                      z=3.5)
        self.record("cup", owner, count)

    # -- scores and cards -------------------------------------------------------------

    def score_bar(self, x, y, w, h, value, goal, extra=0, owner: Optional[str] = None, colour=GOLD,
                  label: Optional[str] = None, dim: bool = False, scale: Optional[float] = None):
        """A score drawn as a bar toward ``goal`` (a flag at the goal), ``extra`` points (a turn
        total at stake) added in a lighter, hatched stretch; ``label`` inside the track."""
        top = max(scale or goal, value + extra, 1)
        self.box(x, y, w, h, "#0f3a22", edge="#0a2717", lw=1, radius=h / 3, z=1.0)
        filled = w * min(value, top) / top
        if filled > 0:
            self.box(x, y, filled, h, colour, radius=min(h / 3, filled / 2), z=1.2, alpha=0.45 if dim else 1.0)
        if extra > 0:
            more = w * min(extra, top - value) / top
            self.box(x + filled, y + 1, more, h - 2, "#fff3c4", edge="#c9a227", lw=0.8, z=1.3, hatch="////")
        gx = x + w * goal / top
        self.line([gx, gx], [y - 4, y + h + 4], LIGHT, lw=1.2, z=1.5)
        if label:  # inside the filled stretch if it fits, else after the bar's end
            inside = filled > 6.5 * len(label) + 10
            lx = x + 6 if inside else x + filled + (w * min(extra, top - value) / top if extra > 0 else 0) + 6
            self.text(lx, y + h / 2, label, size=7.5, colour=INK if inside else LIGHT, weight="bold", z=2)
        self.record("score_bar", owner, value)

    def card(self, x, y, w, h, text: Optional[str], owner: Optional[str] = None, face_up: bool = True,
             colour=IVORY, text_colour=INK, size=None, ring: Optional[str] = None, dim: bool = False,
             kind: str = "card"):
        """A card with ``text`` on its face, or its back (``face_up=False``)."""
        if ring:
            self.box(x - 2.5, y - 2.5, w + 5, h + 5, ring, radius=5, z=1.9)
        if face_up:
            self.box(x, y, w, h, colour, edge="#4a4a4a", lw=0.8, radius=4, z=2.0, alpha=0.4 if dim else 1.0)
            if text:
                self.text(x + w / 2, y + h / 2, text, size=size or min(w, h) * 0.45 * _PT, colour=text_colour,
                          ha="center", weight="bold", z=2.2)
        else:
            self.box(x, y, w, h, CARD_BACK, edge=IVORY, lw=1.2, radius=4, z=2.0)
            self.box(x + 3, y + 3, w - 6, h - 6, "#3d5fa8", edge="#c7d3ef", lw=0.6, radius=3, z=2.1, hatch="xx")
        self.record(kind, owner, text if face_up else None)

    def token(self, cx, cy, r, colour, owner: Optional[str] = None, kind: str = "token"):
        """A round counter."""
        self.circle(cx, cy, r, colour, edge="#143d26", lw=1, z=2.0)
        self.circle(cx, cy, r * 0.55, "none", edge="#ffffff", lw=0.7, z=2.1, alpha=0.6)
        self.record(kind, owner)

    def grid(self, n: int, x, y, cols: int, step: float):
        """Top-left corners of ``n`` cells, ``cols`` a row, ``step`` apart."""
        return [(x + (i % cols) * step, y + (i // cols) * step) for i in range(n)]
