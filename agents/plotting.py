"""What every plot module shares: matplotlib imported on first use, and atomic saving."""

from __future__ import annotations

import os

from dice_envs.core.extras import needs_extra
from dice_envs.core.files import atomic_file


def pyplot():
    """matplotlib's pyplot on the Agg backend (imported here, so matplotlib stays optional; without it,
    ``DependencyNotInstalled`` names the ``[plot]`` extra)."""
    with needs_extra("a plot"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: str, dpi: int = 130) -> str:
    """Save ``fig`` to ``path`` atomically (a temporary file, then a rename) and close it."""
    suffix = os.path.splitext(path)[1] or ".png"
    try:
        with atomic_file(path, "wb") as fh:
            fig.savefig(fh, dpi=dpi, format=suffix.lstrip("."))
    finally:
        pyplot().close(fig)
    return path
