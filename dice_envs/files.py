"""Atomic files: written to a temporary file beside the target, then renamed over it, so a
reader never sees half a file and an interrupted write leaves nothing behind."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager

__all__ = ["atomic_file"]


@contextmanager
def atomic_file(path: str, mode: str = "wb", suffix: str = ".tmp"):
    """``with atomic_file(path) as fh: ...`` writes ``fh`` to ``path`` on success, with the usual
    permissions (``0666`` less the umask; ``mkstemp`` alone would make it ``0600``), and
    removes the temporary file on any error or interrupt."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=suffix)
    try:
        with os.fdopen(fd, mode) as fh:
            yield fh
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
