"""What every plot module shares: matplotlib imported on first use, and atomic saving."""

from __future__ import annotations

import os


def pyplot():
    """matplotlib's pyplot on the Agg backend (imported here, so matplotlib stays optional)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: str, dpi: int = 130) -> str:
    """Save ``fig`` to ``path`` atomically (a temporary file, then a rename) and close it."""
    import tempfile

    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    suffix = os.path.splitext(path)[1] or ".png"
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=suffix)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=dpi, format=suffix.lstrip("."))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
        pyplot().close(fig)
    return path
