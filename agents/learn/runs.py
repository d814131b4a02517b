"""What every training run needs, whatever it trains: options from a dataclass and their
checks, budgets and schedules over them, logging to stderr, atomic files, random-generator
states as JSON data, the checks a checkpoint goes through before it is resumed, one run per
run directory, and :func:`run_script`, a training command's ``main``.

The training loops (:mod:`dice_envs.agents.learn.jeopardy`,
:mod:`dice_envs.agents.liars_dice.training`) and the trainers' commands (``dice-envs train``)
share these, so that they check, save and resume in one way.  Every problem a user can
cause (a bad option, a damaged or foreign checkpoint, an option that differs from the
checkpoint's) is a ``ValueError`` whose message names the option or the file; the
scripts print it and exit with code 2.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import dataclasses
import errno
import inspect
import math
import os
import random
import re
import signal
import sys
import warnings
from pathlib import Path
from typing import Dict, Iterable, Optional, Tuple

import numpy as np

from dice_envs.core.files import atomic_path, os_error_line

# -- options ----------------------------------------------------------------------------------

#: Options renamed so that every learner calls one knob by one name (the names Stable-Baselines3's
#: MaskablePPO gave them, then the others' names): the old name still works on the command line, in
#: a preset or ``--config`` file and in a checkpoint's record, with a ``DeprecationWarning`` where a
#: person wrote it; it goes in dice_envs 0.3.
RENAMED_OPTIONS = {"n_epochs": "epochs", "ent_coef": "entropy", "batch_size": "minibatch"}


class _RenamedOption(argparse.Action):
    """An option's old flag: sets the new one, with a ``DeprecationWarning`` that names it."""

    def __call__(self, parser, namespace, values, option_string=None):
        warnings.warn(f"{option_string} is deprecated (it goes in dice_envs 0.3): use {flag(self.dest)}",
                      DeprecationWarning, stacklevel=2)
        setattr(namespace, self.dest, values)


def add_renamed_options(parser, names: Iterable[str], kinds: Dict[str, type]) -> None:
    """Add to ``parser`` (or a group) the old flag of each option in ``names`` that was renamed
    (:data:`RENAMED_OPTIONS`), hidden from ``--help``; ``kinds`` gives each new name's type."""
    for old, new in RENAMED_OPTIONS.items():
        if new in names:
            parser.add_argument(flag(old), dest=new, type=kinds[new], action=_RenamedOption, help=argparse.SUPPRESS)


def renamed(options: dict, where: str = "") -> dict:
    """``options`` (field name -> value: a preset, a config file, a checkpoint's record) with the old
    names of renamed options (:data:`RENAMED_OPTIONS`) replaced by the new ones; with ``where`` (a
    file a person wrote), a ``DeprecationWarning`` naming it and each old name.  ``ValueError`` when
    both names are given."""
    out = dict(options)
    for old, new in RENAMED_OPTIONS.items():
        if old in out:
            if new in out:
                raise ValueError(f"{where or 'the options'}: {old!r} and {new!r} are one option; give {new!r} only")
            if where:
                warnings.warn(f"{where}: {old!r} is deprecated (it goes in dice_envs 0.3): write {new!r}",
                              DeprecationWarning, stacklevel=3)
            out[new] = out.pop(old)
    return out


def field_comments(cls) -> Dict[str, str]:
    """The comment at the end of each field's line in the source of the dataclass ``cls``
    and of its bases (a subclass's comment wins): ``x: int = 3  # what x is`` gives
    ``{"x": "what x is"}``.  Empty where the source cannot be read."""
    comments: Dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            lines = inspect.getsource(klass).splitlines()  # type: ignore[arg-type]
        except (OSError, TypeError):
            continue
        for line in lines:
            match = re.match(r"\s+(\w+)\s*:[^#]*#\s*(.+)$", line)
            if match:
                comments[match.group(1)] = match.group(2).strip()
    return comments


def args_from_dataclass(cls, description: str, argv=None):
    """Parse ``--field-name`` options for every field of the dataclass ``cls``
    (:func:`options_parser`) and return an instance."""
    return cls(**vars(options_parser(cls, description).parse_args(argv)))


def options_parser(cls, description: str) -> argparse.ArgumentParser:
    """The parser of a ``--field-name`` option for every field of the dataclass ``cls``
    (bools get ``--x/--no-x``); ``--help`` shows each field's comment
    (:func:`field_comments`) and its default."""
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    comments = field_comments(cls)
    kinds = {}
    for f in dataclasses.fields(cls):
        option = flag(f.name)
        text = comments.get(f.name, " ").replace("%", "%%")
        if f.type in ("bool", bool):
            parser.add_argument(option, action=argparse.BooleanOptionalAction, default=f.default, help=text)
        else:
            kinds[f.name] = {"int": int, "float": float, "str": str}[f.type if isinstance(f.type, str)
                                                                     else f.type.__name__]
            parser.add_argument(option, type=kinds[f.name], default=f.default, help=text)
    add_renamed_options(parser, kinds, kinds)
    return parser


def flag(name: str) -> str:
    """The command-line spelling of an options field: ``net_pi`` -> ``--net-pi``."""
    return "--" + name.replace("_", "-")


#: The most torch threads a run may ask for (``--threads``): above any machine's cores, below the
#: counts at which creating the threads fails (OpenMP gives up, or the process crashes).
MAX_THREADS = 1024


def check_args(args, at_least_one=(), positive=(), non_negative=(), ranges: Optional[Dict[str, Tuple]] = None,
               shares=()) -> None:
    """Raise ``ValueError`` naming the option for a bad value.

    * every float option must be finite (``nan``, ``inf`` and ``1e999`` are refused);
    * the fields in ``at_least_one`` must be >= 1, ``positive`` > 0, ``non_negative`` >= 0,
      ``shares`` in ``[0, 1)``;
    * ``ranges`` maps a field to ``(low, high)``, both included;
    * ``seed``, if the options have one, must be in ``[0, 2**32)`` (what numpy accepts);
    * ``threads``, if the options have it, at most :data:`MAX_THREADS`;
    * a budget (``--minutes`` or ``--steps``) must be given, and neither may be negative.
    """
    for f in dataclasses.fields(args):
        value = getattr(args, f.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{flag(f.name)} must be a finite number, got {value}")
    rules = [(at_least_one, lambda v: v >= 1, "at least 1"), (positive, lambda v: v > 0, "positive"),
             (tuple(non_negative) + ("minutes", "steps"), lambda v: v >= 0, ">= 0"),
             (shares, lambda v: 0 <= v < 1, "at least 0 and below 1")]
    for names, ok, wanted in rules:
        for name in names:
            value = getattr(args, name)
            if not ok(value):
                raise ValueError(f"{flag(name)} must be {wanted}, got {value}")
    for name, (low, high) in (ranges or {}).items():
        value = getattr(args, name)
        if not low <= value <= high:
            raise ValueError(f"{flag(name)} must be between {low} and {high}, got {value}")
    if hasattr(args, "threads") and args.threads > MAX_THREADS:
        raise ValueError(f"--threads must be at most {MAX_THREADS} (MAX_THREADS), got {args.threads}")
    if hasattr(args, "seed") and not 0 <= args.seed < 2**32:
        raise ValueError(f"--seed must be between 0 and {2**32 - 1}, got {args.seed}")
    if args.minutes <= 0 and args.steps <= 0:
        raise ValueError("give a positive --minutes or --steps")


def layer_sizes(name: str, text: str) -> str:
    """A network's hidden layers, ``"64,64"`` (empty: none), checked and normalised
    (so ``"64, 64"`` and ``"64,64"`` are the same network on resume)."""
    parts = [p.strip() for p in text.split(",")] if text.strip() else []
    if not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise ValueError(f"{flag(name)} must be layer sizes separated by commas (each at least 1), got {text!r}")
    return ",".join(str(int(p)) for p in parts)


def hidden_widths(text: str) -> list:
    """``--hidden`` of the capacity diagnoses as argparse reads it: one or more positive layer
    widths separated by commas (``"64,64"`` -> ``[64, 64]``), else an error naming the text."""
    try:
        widths = [int(h) for h in text.split(",")]
    except ValueError:
        widths = []
    if not widths or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"must be positive layer widths separated by commas, got {text!r}")
    return widths


def fit_classifier(x: np.ndarray, target: np.ndarray, hidden, epochs: int, seed: int, batch: int = 4096,
                   learning_rate: float = 3e-3):
    """A ReLU MLP (``hidden`` widths, one logit) fitted to the yes/no ``target`` of the rows
    of ``x`` by supervised learning: binary cross-entropy, Adam at ``learning_rate`` with a
    cosine schedule over ``epochs`` passes of shuffled minibatches of ``batch`` rows.  The
    capacity diagnoses use it: can the network of a training script draw the optimal policy
    at all?  Needs torch (the ``[train]`` extra)."""
    import torch

    torch.manual_seed(seed)
    x = torch.as_tensor(np.asarray(x, np.float32))  # type: ignore[assignment]
    y = torch.as_tensor(np.asarray(target, np.float32))
    layers, width = [], x.shape[1]
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    net = torch.nn.Sequential(*layers, torch.nn.Linear(width, 1))
    optimizer = torch.optim.Adam(net.parameters(), learning_rate)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)
    for _ in range(epochs):
        order = torch.randperm(len(x))
        for lo in range(0, len(x), batch):
            rows = order[lo: lo + batch]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(x[rows]).squeeze(1), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        schedule.step()
    return net


def budget_seconds(args) -> float:
    """The wall-clock budget, ``--minutes`` in seconds (unlimited when not positive)."""
    return args.minutes * 60 if args.minutes > 0 else float("inf")


def budget_fraction(args, steps: int, seconds: float) -> float:
    """How much of the budget is used, from 0 to 1: of ``--steps`` if given, else of
    ``--minutes`` (0 when neither limits the run); what schedules over the budget follow."""
    if args.steps > 0:
        done = steps / args.steps
    elif args.minutes > 0:
        done = seconds / budget_seconds(args)
    else:
        done = 0.0
    return min(max(done, 0.0), 1.0)


def cosine_decay(start: float, end: float, done: float) -> float:
    """The value at ``done`` (0 to 1, e.g. :func:`budget_fraction`) of a cosine schedule
    from ``start`` to ``end``."""
    return float(end + 0.5 * (start - end) * (1.0 + np.cos(np.pi * done)))


def budget_spent(args, steps: int, seconds: float) -> bool:
    """Whether ``--steps`` (if given) or ``--minutes`` (if given) is used up."""
    return seconds >= budget_seconds(args) or (args.steps > 0 and steps >= args.steps)


def log(args, *parts) -> None:
    """Print progress to stderr unless ``args.quiet``."""
    if not args.quiet:
        print(*parts, file=sys.stderr, flush=True)


# -- files --------------------------------------------------------------------------------------


def atomic_file(path: Path):
    """Yield a temporary path next to ``path`` (same suffix, ``name.tmp.suffix``, a name the
    scripts recognise as theirs when they clean up) to write; when the block succeeds it is
    flushed to disk and renamed over ``path``, so a reader (or a resumed run) sees the old
    file or the new one, never half of one.  On failure the temporary file is removed
    (:func:`dice_envs.core.files.atomic_path`)."""
    path = Path(path)
    return atomic_path(path, tmp=path.with_name(path.stem + ".tmp" + path.suffix))


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_file`)."""
    with atomic_file(path) as tmp:
        tmp.write_text(text)


def jsonable(value):
    """``value`` with numpy scalars and arrays as Python numbers and lists, tuples as
    lists: plain data for ``json`` and for ``torch.load(weights_only=True)``."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


# -- random states ------------------------------------------------------------------------------


def random_states(generators: Optional[Dict[str, np.random.Generator]] = None) -> dict:
    """The states of Python's ``random``, numpy's global generator, torch's CPU
    generator and the numpy ``generators`` given (by name), as JSON-able data."""
    import torch

    states = {
        "python": jsonable(random.getstate()),
        "numpy": jsonable(np.random.get_state(legacy=False)),
        "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode("ascii"),
        "generators": {name: jsonable(g.bit_generator.state) for name, g in (generators or {}).items()},
    }
    return states


def restore_random_states(states, generators: Optional[Dict[str, np.random.Generator]] = None) -> None:
    """Put back what :func:`random_states` saved; ``ValueError`` if it is not such data."""
    import torch

    try:
        version, internal, gauss = states["python"]
        random.setstate((version, tuple(internal), gauss))
        saved = dict(states["numpy"])
        saved["state"] = dict(saved["state"], key=np.asarray(saved["state"]["key"], dtype=np.uint32))
        np.random.set_state(saved)
        raw = np.frombuffer(base64.b64decode(states["torch"], validate=True), dtype=np.uint8)
        torch.set_rng_state(torch.from_numpy(raw.copy()))
        for name, g in (generators or {}).items():
            g.bit_generator.state = states["generators"][name]
    except (TypeError, ValueError, KeyError, IndexError, OverflowError, RuntimeError) as err:
        raise ValueError(f"the random states are damaged ({type(err).__name__}: {err})") from None


# -- checkpoints --------------------------------------------------------------------------------


def damaged(path: Path, reason: str, start_over: Path) -> ValueError:
    """The error for a checkpoint file that cannot be resumed."""
    return ValueError(f"checkpoint {path} is damaged or not a checkpoint of this script ({reason}); "
                      f"remove {start_over} to start over")


def check_fields(data, where: str, **kinds) -> None:
    """``data`` must be a dict with every key of ``kinds`` of its kind: ``int`` (not a
    bool, >= 0), ``float`` (an int or float, finite), ``str``, ``list``, ``dict``,
    ``bool``; ``(kind, None)`` also allows ``None``.  ``ValueError`` otherwise."""
    if not isinstance(data, dict):
        raise ValueError(f"{where} should be an object of named fields, got {type(data).__name__}")
    for key, kind in kinds.items():
        if key not in data:
            raise ValueError(f"{where} has no {key!r}")
        value = data[key]
        kinds_ok = kind if isinstance(kind, tuple) else (kind,)
        if value is None and None in kinds_ok:
            continue
        kind = kinds_ok[0]
        if kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        elif kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        else:
            ok = isinstance(value, kind)
        if not ok:
            wanted = {int: "a non-negative integer", float: "a finite number"}.get(kind, f"a {kind.__name__}")
            raise ValueError(f"{where}: {key!r} should be {wanted}, got {value!r:.60}")


def check_resume_args(saved, args, changeable: Iterable[str], where: Path) -> None:
    """Refuse to resume a checkpoint made with other options: every option of ``args``
    except those in ``changeable`` must equal the checkpoint's (``saved``, its
    ``dataclasses.asdict``).  The message names the option, both values and the way on."""
    if not isinstance(saved, dict):
        raise ValueError(f"{where} has no options record")
    saved = renamed(saved)  # a checkpoint written before an option was renamed
    for f in dataclasses.fields(args):
        if f.name in changeable:
            continue
        mine = getattr(args, f.name)
        if f.name not in saved:
            raise ValueError(f"the checkpoint {where} does not record {flag(f.name)} (written by another version "
                             f"of this script?); use another --run-dir, or remove it to start over")
        theirs = saved[f.name]
        if theirs != mine or isinstance(theirs, bool) != isinstance(mine, bool):
            if isinstance(theirs, bool):
                same = flag(f.name) if theirs else "--no-" + flag(f.name)[2:]
            else:
                same = f"{flag(f.name)} {theirs}"
            raise ValueError(f"{flag(f.name)} {mine!r} differs from the checkpoint's {theirs!r} ({where}): "
                             f"rerun with {same} to resume it, or give another --run-dir to start a new run")


# -- one run per run directory ------------------------------------------------------------------


@contextlib.contextmanager
def run_lock(run_dir: Path):
    """Hold an exclusive lock on ``run_dir`` (the file ``run_dir/.lock``, created as needed)
    while a run writes there: a second run given the same directory (a command started twice,
    a resume while the first still trains) is refused with a ``ValueError`` at once, instead of
    two runs overwriting one checkpoint.  The operating system drops the lock when the process
    ends, however it ends, so a killed run leaves nothing to clean up."""
    import fcntl

    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise ValueError(f"--run-dir {run_dir} is a file, not a directory: give a directory (it is created as "
                         "needed)")
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / ".lock", "a") as handle:  # created once, never written: a rerun changes no file
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ValueError(f"{run_dir} is in use by another run (it holds {run_dir / '.lock'}); wait for it to "
                             "finish, stop it, or give another --run-dir") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def save_torch(obj, fh) -> None:
    """``torch.save(obj)`` into the open file (or path) ``fh``, serialised in memory first, so that a full
    disk raises Python's ``OSError`` (ENOSPC, naming the file; :func:`run_script` reports it)
    instead of torch's ``RuntimeError: [enforce fail at inline_container.cc]``."""
    import io

    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    if isinstance(fh, (str, os.PathLike)):  # a path (atomic_path's): write it whole
        with open(fh, "wb") as out:
            save_bytes(buffer, out)
    else:
        save_bytes(buffer, fh)


def save_bytes(buffer, fh) -> None:
    """Write ``buffer`` to the open file ``fh``; an ``OSError`` names the file."""
    try:
        fh.write(buffer.getbuffer())
        fh.flush()
    except OSError as err:
        raise OSError(err.errno, err.strerror, getattr(fh, "name", None)) from None


#: The signals that stopped the run in progress, as the trainers' handlers note them (:func:`note_signal`).
_STOPPED_BY: set = set()


def note_signal(signum: int) -> None:
    """Note that the signal ``signum`` (SIGINT, SIGTERM) stopped the run in progress: a trainer's
    handler calls it, so that :func:`run_script` passes a SIGTERM on once the run has saved."""
    _STOPPED_BY.add(signum)


def _pass_on_sigterm() -> None:
    """After a run that SIGTERM stopped has saved and reported, call the SIGTERM handler of what
    runs the trainer in the same process (the command line's, which exits with status 130; a test
    runner's, which stops the test run), as if the signal had reached it.  A trainer run as a script
    (the default handler) just exits with status 130, as after Ctrl-C."""
    if signal.SIGTERM in _STOPPED_BY:
        _STOPPED_BY.clear()
        handler = signal.getsignal(signal.SIGTERM)
        if callable(handler):
            handler(signal.SIGTERM, None)


def run_script(name: str, parse, train, argv=None) -> int:
    """A training script's ``main``: ``parse(argv)`` the options, ``train(args)`` while holding
    the run directory's lock (:func:`run_lock`), print the report as one JSON line.  Exit code
    2 for a ``ValueError`` (bad options, a damaged checkpoint, a diverged run, a directory in
    use; the message on stderr), a full disk (naming the file) or another ``OSError`` (a path
    that cannot be read or written: one line naming it, :func:`os_error_line`), 130 when
    interrupted (Ctrl-C, SIGTERM, or a report that says so).  A run stopped by SIGTERM passes the
    signal on (:func:`_pass_on_sigterm`) once it has saved what it saves on Ctrl-C."""
    import json

    _STOPPED_BY.clear()
    try:
        args = parse(argv)
        with run_lock(Path(args.run_dir)):  # one run per directory
            report = train(args)
    except ValueError as err:
        print(f"{name}: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        if err.errno not in (errno.ENOSPC, errno.EDQUOT):
            print(f"{name}: error: {os_error_line(err)}", file=sys.stderr)
            return 2
        print(f"{name}: error: disk full writing {err.filename or 'the run directory'} ({err.strerror}); "
              f"free some space (or give another --run-dir) and rerun the same command to resume from the last "
              f"checkpoint", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted; rerun the same command to resume from the last checkpoint", file=sys.stderr)
        _pass_on_sigterm()
        return 130
    print(json.dumps(report), flush=True)
    _pass_on_sigterm()
    return 130 if report.get("interrupted") else 0
