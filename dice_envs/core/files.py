"""Atomic files: written to a temporary file next to the target, flushed to disk, then renamed
over it, so a reader never sees half a file and an interrupted write leaves nothing behind.
Every atomic write of the project (results, plots, caches, the ``.efg`` export and the
training scripts' checkpoints) goes through :func:`atomic_path`.  :func:`os_error_line` says in
one line what went wrong with a path, for the commands' error messages."""

from __future__ import annotations

import errno
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_path", "atomic_file", "os_error_line"]


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, but belongs to someone else
        return True
    return True


def _remove_stale(directory: str, base: str, suffix: str) -> None:
    """Remove ``base.PID.*suffix`` files next to ``base`` whose process ``PID`` is gone."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not (name.startswith(base + ".") and name.endswith(suffix)):
            continue
        pid = name[len(base) + 1:].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _process_exists(int(pid)):
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass


@contextmanager
def atomic_path(path, tmp=None):
    """``with atomic_path(path) as tmp: write(tmp)`` (``tmp`` a :class:`pathlib.Path`) puts what was written to ``tmp`` at ``path``
    on success: the file is flushed to disk, given the usual permissions (``0666`` less the
    umask; ``mkstemp`` alone would make it ``0600``) and renamed over ``path``.  On any error
    or interrupt the temporary file is removed.

    ``tmp``: the temporary file's path, next to ``path`` (default: a unique name that keeps
    ``path``'s suffix, for writers that add a suffix when it is missing, as SB3 does, and
    holds the writer's process id: the temporary files of ``path`` left by a writer that no
    longer runs, killed with ``-9`` where nothing could remove them, are removed first).
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    if tmp is None:
        base, suffix = os.path.basename(path), ".tmp" + os.path.splitext(path)[1]
        _remove_stale(directory, base, suffix)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f"{base}.{os.getpid()}.", suffix=suffix)
        os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@contextmanager
def atomic_file(path, mode: str = "wb"):
    """``with atomic_file(path) as fh: ...``: :func:`atomic_path` with the temporary file open
    in ``mode``."""
    with atomic_path(path) as tmp:
        with open(tmp, mode) as fh:
            yield fh


def os_error_line(err: OSError) -> str:
    """An ``OSError`` as one line naming the path (``read-only file system: /data/run (give a path
    that can be written)``)."""
    what = (err.strerror or str(err) or type(err).__name__).rstrip(".")
    paths = " -> ".join(os.fsdecode(p) if isinstance(p, (str, bytes, os.PathLike)) else str(p)
                        for p in (err.filename, err.filename2) if p is not None)
    hint = {errno.EROFS: "give a path that can be written", errno.EACCES: "give a path that can be written",
            errno.EPERM: "give a path that can be written", errno.ENOTDIR: "a part of the path is a file",
            errno.EEXIST: "a file is in the way"}.get(err.errno or 0)
    return f"{what[:1].lower()}{what[1:]}" + (f": {paths}" if paths else "") + (f" ({hint})" if hint else "")
