"""Shared plumbing for the training scripts in this folder: options from a dataclass,
logging to stderr, and atomic text files."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path


def args_from_dataclass(cls, description: str, argv=None):
    """Parse ``--field-name`` options for every field of the dataclass ``cls``
    (bools get ``--x/--no-x``) and return an instance."""
    parser = argparse.ArgumentParser(description=description)
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default)
        else:
            kind = {"int": int, "float": float, "str": str}[f.type if isinstance(f.type, str) else f.type.__name__]
            parser.add_argument(flag, type=kind, default=f.default)
    return cls(**vars(parser.parse_args(argv)))


def check_args(args, at_least_one=(), positive=(), non_negative=()) -> None:
    """Raise ``ValueError`` naming the option for a bad value: the fields in
    ``at_least_one`` must be >= 1, ``positive`` > 0, ``non_negative`` >= 0; and a
    budget (``--minutes`` or ``--steps``) must be given."""
    rules = [(at_least_one, lambda v: v >= 1, "at least 1"), (positive, lambda v: v > 0, "positive"),
             (non_negative, lambda v: v >= 0, ">= 0")]
    for names, ok, wanted in rules:
        for name in names:
            value = getattr(args, name)
            if not ok(value):
                raise ValueError(f"--{name.replace('_', '-')} must be {wanted}, got {value}")
    if args.minutes <= 0 and args.steps <= 0:
        raise ValueError("give a positive --minutes or --steps")


def budget_seconds(args) -> float:
    """The wall-clock budget, ``--minutes`` in seconds (unlimited when not positive)."""
    return args.minutes * 60 if args.minutes > 0 else float("inf")


def log(args, *parts) -> None:
    """Print progress to stderr unless ``args.quiet``."""
    if not args.quiet:
        print(*parts, file=sys.stderr, flush=True)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename, so a reader
    (or a resumed run) never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
