"""Simulated hard kills for the training scripts' checkpoint tests."""

from __future__ import annotations

import contextlib
import json


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


def kill_after_state(module, monkeypatch, steps: int) -> None:
    """Make the jeopardy trainer ``module`` (``dice_envs.agents.learn.jeopardy``) die (:class:`Killed`)
    right after it writes the ``state.json`` of its checkpoint at ``steps`` (through its
    ``atomic_write_text``)."""
    real = module.atomic_write_text

    def write(path, text):
        real(path, text)
        if path.name == "state.json" and json.loads(text)["steps"] == steps:
            raise Killed

    monkeypatch.setattr(module, "atomic_write_text", write)
