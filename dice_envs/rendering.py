"""``render_mode="rgb_array"`` for every environment: a picture of the table.

:func:`table_frame` draws the game's name, whose turn it is, the latest events (rolls,
bids, placements) and the position as the rules core describes it, on a felt-green
table, and returns it as an ``(H, W, 3)`` uint8 array of a fixed size, so Gymnasium's
``RecordVideo`` (and any video logger) can record it.  It needs matplotlib (the
``[plot]`` extra); :func:`check_available` says so at construction time.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["RENDER_FPS", "FRAME_SIZE", "check_available", "table_frame"]

#: Frames per second for videos of a game (decisions are far apart in time).
RENDER_FPS = 2
#: ``(width, height)`` of every frame, in pixels.
FRAME_SIZE = (800, 560)
_DPI = 100
_MAX_LINES = 26


def check_available() -> None:
    """Raise ``ValueError`` if matplotlib (needed for ``rgb_array``) is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ValueError("render_mode='rgb_array' draws with matplotlib: install it "
                         "(pip install 'dice-envs[plot]')") from None


def table_frame(title: str, status: str, events: Sequence[str], position: str) -> np.ndarray:
    """An ``(H, W, 3)`` uint8 picture: ``title`` and ``status`` on top, the ``events``
    since the last frame, then ``position`` (text, drawn in a fixed-width font)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    width, height = FRAME_SIZE
    fig = Figure(figsize=(width / _DPI, height / _DPI), dpi=_DPI, facecolor="#1d5e3a")
    canvas = FigureCanvasAgg(fig)
    fig.text(0.03, 0.955, title, color="white", fontsize=17, fontweight="bold", va="top")
    fig.text(0.97, 0.955, status, color="#ffe08a", fontsize=12, ha="right", va="top")
    lines = [f"> {e}" for e in events[-6:]] + ([""] if events else []) + position.splitlines()
    if len(lines) > _MAX_LINES:
        lines = lines[: _MAX_LINES - 1] + ["..."]
    fig.text(0.03, 0.87, "\n".join(line[:95] for line in lines), color="#f4f1e8", fontsize=10,
             family="monospace", va="top", linespacing=1.35)
    canvas.draw()
    frame = np.asarray(canvas.buffer_rgba())[..., :3].copy()
    return frame
