"""Simulated hard kills for the training scripts' checkpoint tests."""

from __future__ import annotations

import contextlib


class Killed(BaseException):
    """A simulated hard kill: nothing in the trainer catches it (only `finally` blocks run)."""


def kill_after_checkpoints(script, monkeypatch, count: int) -> None:
    """Make ``script`` die (:class:`Killed`) right after its ``count``-th ``checkpoint.pt`` is written
    (through its ``atomic_file``)."""
    real, writes = script.atomic_file, []

    @contextlib.contextmanager
    def atomic_file(path):
        with real(path) as tmp:
            yield tmp
        writes.append(path.name)
        if writes.count("checkpoint.pt") == count:
            raise Killed

    monkeypatch.setattr(script, "atomic_file", atomic_file)
