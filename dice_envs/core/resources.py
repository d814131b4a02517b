"""One guard on resource use, for every solver, exporter and command.

Before a solver allocates its grid or tree, it estimates the memory (and, where it
can, the time) the request needs and calls :func:`check_resources`; a streaming
writer calls :func:`check_disk` with the size it will write.  A request over a limit
is refused with a ``ValueError`` (a :class:`ResourceLimitError`) that names the
request, the estimate, the limit and how to raise it, so nothing is allocated or
written; a request within the limits that will take more than half a minute is
announced (a :class:`LongRunWarning`, one line naming the estimate and its clock: wall-clock
time, CPU time, or CPU time per thread), so no hour goes by unannounced.  A command announces its work
once: the parts it runs are checked against the limits inside :func:`announced`, silently.

The limits:

==========  ==========================  =================  =============================
limit       environment variable        command line       default
==========  ==========================  =================  =============================
memory      ``DICE_ENVS_MAX_MEMORY``    ``--max-memory``   8 GiB, or half the RAM if less
time        ``DICE_ENVS_MAX_SECONDS``   ``--max-seconds``  3600 (one hour)
disk        ``DICE_ENVS_MAX_DISK``      ``--max-disk``     10 GiB, and never more than is free
==========  ==========================  =================  =============================

Under an address-space limit (``ulimit -v``) the memory limit is at most the address space the
process may still map.  Sizes take a unit (``"500M"``, ``"16G"``, ``"2GiB"``) or are bytes; ``"0"`` or
``"none"`` turns a limit off (except the free-disk check and the address space).  An
estimate covers everything the work allocates, from the sizes of its arrays, with coefficients
fitted to measured peaks with a margin: it errs on the side of refusing.  Estimates are Python
integers or floats, which do not overflow; one that is not a finite non-negative number is
refused.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import math
import os
import re
import shutil
import sys
import types
import warnings
import zipfile
import zlib
from typing import Iterator, Optional, Union

__all__ = ["ResourceLimitError", "LongRunWarning", "announced", "check_resources", "check_network", "check_archive",
           "check_disk", "memory_limit", "seconds_limit", "disk_limit", "parse_size", "format_size"]

GiB = 1 << 30
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
          "g": GiB, "gb": GiB, "gib": GiB, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}


class ResourceLimitError(ValueError):
    """A request would exceed a resource limit (memory, time or disk); nothing was done."""


class LongRunWarning(UserWarning):
    """A request within the limits that will take more than :data:`ANNOUNCE_SECONDS`.

    It is shown as one line, ``file:line: LongRunWarning: message``, where ``file:line`` is the
    caller's code that asked for the work (the first frame outside ``dice_envs``), without the
    source line under it."""


_format_warning = warnings.formatwarning


def _one_line(message, category, filename, lineno, line=None):
    """:func:`warnings.formatwarning`, with :class:`LongRunWarning` on one line."""
    if isinstance(category, type) and issubclass(category, LongRunWarning):
        return f"{filename}:{lineno}: {category.__name__}: {message}\n"
    return _format_warning(message, category, filename, lineno, line)


warnings.formatwarning = _one_line


#: Requests estimated to take longer than this are announced (a :class:`LongRunWarning`).
ANNOUNCE_SECONDS = 30.0


def parse_size(text: str, name: str = "size") -> Optional[int]:
    """Bytes from ``"8G"``, ``"500MiB"``, ``"1024"``; None for ``"0"``/``"none"`` (no limit)."""
    value = str(text).strip().lower()
    if value in ("0", "none", "off", "unlimited"):
        return None
    match = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*([a-z]*)", value)
    if not match or match.group(2) not in _UNITS:
        raise ValueError(f"{name} must be a size such as 8G, 500M or 1024 (bytes), or 'none'; got {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def format_size(n: float) -> str:
    """``"1.5 GiB"``, ``"12.0 MiB"``, ``"3.0 KiB"`` or ``"512 bytes"`` (up to ``"1.0e+09 TiB"``)."""
    if n >= 1 << 40:
        tib = n / (1 << 40)
        return f"{tib:.1f} TiB" if tib < 10_000 else f"{tib:.1e} TiB"
    for unit, size in (("GiB", GiB), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} bytes"


def _physical_memory() -> Optional[int]:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _address_space_left() -> Optional[int]:
    """Bytes of address space this process may still map under ``ulimit -v`` (None: no such limit)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/statm") as fh:
            used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError, AttributeError):
        return None
    return max(0, soft - used)


def _memory_limit() -> tuple:
    """``(limit in bytes or None, where it comes from)``."""
    text = os.environ.get("DICE_ENVS_MAX_MEMORY")
    if text is not None:
        limit, source = parse_size(text, "DICE_ENVS_MAX_MEMORY"), "set"
    else:
        ram = _physical_memory()
        limit, source = (min(8 * GiB, ram // 2) if ram else 8 * GiB), "default"
    left = _address_space_left()
    if left is not None and (limit is None or left < limit):
        return left, "address space"
    return limit, source


def memory_limit() -> Optional[int]:
    """The memory limit in bytes (None: no limit): ``DICE_ENVS_MAX_MEMORY``, or 8 GiB (half the
    RAM if less), and at most the address space left under ``ulimit -v``."""
    return _memory_limit()[0]


def seconds_limit() -> Optional[float]:
    """The time limit in seconds (None: no limit)."""
    text = os.environ.get("DICE_ENVS_MAX_SECONDS", "3600").strip().lower()
    if text in ("0", "none", "off", "unlimited"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"DICE_ENVS_MAX_SECONDS must be a number of seconds or 'none', got {text!r}") from None
    if not value > 0 or value != value:
        raise ValueError(f"DICE_ENVS_MAX_SECONDS must be positive, got {text!r}")
    return value


def disk_limit() -> Optional[int]:
    """The limit on one file written, in bytes (None: only the free space limits it)."""
    return parse_size(os.environ.get("DICE_ENVS_MAX_DISK", "10G"), "DICE_ENVS_MAX_DISK")


def format_duration(seconds: float) -> str:
    """``"45 s"``, ``"12 minutes"`` or ``"3.5 hours"``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 3 * 3600:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:.1f} hours"
    if seconds < 3 * 365 * 86400:
        return f"{seconds / 86400:.0f} days"
    return f"{seconds / (365 * 86400):.2g} years"


#: Set inside :func:`announced`: the work being checked is part of a request already announced.
_ANNOUNCED: contextvars.ContextVar[bool] = contextvars.ContextVar("dice_envs_announced", default=False)


@contextlib.contextmanager
def announced() -> Iterator[None]:
    """Run the parts of a request whose whole the caller has already checked and announced:
    inside, :func:`check_resources` still refuses a part over a limit, but does not announce it,
    so a command prints one estimate."""
    token = _ANNOUNCED.set(True)
    try:
        yield
    finally:
        _ANNOUNCED.reset(token)


#: What each clock of an estimate is called in its announcement.
CLOCKS = {"wall": "wall-clock time", "cpu": "CPU time", "cpu per thread": "CPU time per thread"}


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside ``dice_envs`` (the code that asked for the work)."""
    frame: Optional[types.FrameType] = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "dice_envs":
        frame, level = frame.f_back, level + 1
    return level


def check_resources(what: str, memory_bytes: float, seconds: Optional[float] = None, clock: str = "wall") -> None:
    """Refuse ``what`` (e.g. ``"solve ayzd --goal 100 (a 400 x 400 score grid)"``) if its
    estimated peak memory or time is over the limit; announce it (a :class:`LongRunWarning`)
    if it will take more than :data:`ANNOUNCE_SECONDS`, unless inside :func:`announced`.

    Args:
        what: the request, as the user would recognise it.
        memory_bytes: its estimated peak memory, a Python int or float (computed without
            fixed-width integers, which overflow).
        seconds: its estimated time, if known.
        clock: what ``seconds`` measures: ``"wall"`` (wall-clock time), ``"cpu"`` (the process's
            CPU time, whatever else the machine runs) or ``"cpu per thread"`` (CPU time shared
            among the work's threads: the wall-clock time on an idle machine).

    Raises:
        ResourceLimitError: over a limit, or an estimate that is not a finite non-negative number.
    """
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {sorted(CLOCKS)}, got {clock!r}")
    try:
        memory = float(memory_bytes)
        time_ok = seconds is None or (math.isfinite(float(seconds)) and seconds >= 0)
    except OverflowError:  # a Python integer past the floats: no machine has that memory
        raise ResourceLimitError(f"{what} needs about 2**{int(memory_bytes).bit_length()} bytes of memory, beyond "
                                 f"any limit; ask for a smaller game") from None
    if not (math.isfinite(memory) and memory >= 0 and time_ok):
        raise ResourceLimitError(f"{what}: its estimated memory ({memory_bytes!r}) or time ({seconds!r}) is not a "
                                 f"finite non-negative number, so it cannot be checked against the limits; refused")
    limit, source = _memory_limit()
    if limit is not None and memory > limit:
        how = (" (the address space this process may still map under ulimit -v); raise that limit, or ask for a "
               "smaller game" if source == "address space" else
               "; raise it with --max-memory SIZE or DICE_ENVS_MAX_MEMORY=SIZE (e.g. 16G), or ask for a smaller game")
        raise ResourceLimitError(
            f"{what} needs about {format_size(memory)} of memory, over the limit of {format_size(limit)}{how}")
    limit_s = seconds_limit()
    if seconds is not None and limit_s is not None and seconds > limit_s:
        raise ResourceLimitError(
            f"{what} would take about {format_duration(seconds)} of {CLOCKS[clock]}, over the limit of "
            f"{format_duration(limit_s)}; raise it with --max-seconds S or DICE_ENVS_MAX_SECONDS=S (or 'none'), or "
            f"ask for a smaller game"
        )
    if seconds is not None and seconds > ANNOUNCE_SECONDS and not _ANNOUNCED.get():
        warnings.warn(f"{what} will take about {format_duration(seconds)} of {CLOCKS[clock]} and "
                      f"{format_size(memory)} of memory (estimates)", LongRunWarning, stacklevel=_caller_stacklevel())


#: Bytes of memory per parameter of a network being built and loaded (float32 weights, the
#: state being loaded, and the optimiser-free module's gradients' slots: a margin).
BYTES_PER_PARAMETER = 16


#: Bytes per unit per row of a batch through a network: float32 activations and their gradients.
BYTES_PER_ACTIVATION = 8


def check_network(what: str, layer_sizes, rows: int = 0) -> None:
    """Refuse building ``what``, a dense network whose layers have ``layer_sizes`` units
    (input first, each later layer connected to the one before), if its parameters, and the
    activations of a batch of ``rows`` rows, would exceed the memory limit; checked from the
    declared sizes, before anything is built."""
    sizes = [int(n) for n in layer_sizes]
    if any(n < 1 for n in sizes):
        raise ValueError(f"{what} declares a layer of {min(sizes)} units; every layer needs at least 1")
    parameters = sum(a * b + b for a, b in zip(sizes, sizes[1:]))
    batch = f" and a batch of {rows:,} rows" if rows else ""
    check_resources(f"{what} (layers {sizes}, {parameters:,} parameters{batch})",
                    BYTES_PER_PARAMETER * parameters + BYTES_PER_ACTIVATION * rows * sum(sizes))


#: How many times its own size a model or checkpoint archive may declare once inflated.  torch
#: writes its records uncompressed and Stable-Baselines3 deflates float weights and a short JSON
#: description, which shrink a few times at most; an archive declaring more is a zip bomb.
MAX_INFLATION = 100

#: Bytes of memory per byte an archive declares: the inflated bytes and what is built from them.
BYTES_PER_INFLATED_BYTE = 2


def check_archive(what: str, source: Union[str, os.PathLike, bytes], depth: int = 2) -> None:
    """Refuse the zip archive ``source`` (a path, or its bytes) from the sizes its directory
    declares, before anything in it is inflated: a total of more than :data:`MAX_INFLATION`
    times the archive's own size (``ValueError``), or over the memory limit
    (:class:`ResourceLimitError`).  Zip archives inside it (the torch ``.pth`` files of a
    Stable-Baselines3 model) are read, within those limits, and checked the same way, ``depth``
    levels down.  Python's ``zipfile`` and torch's reader inflate no entry beyond its declared size.

    Args:
        what: the file, for messages (``"model file 'agent.pt'"``).
        source: the archive's path or bytes.
        depth: how many levels of nested archives to check.

    Raises:
        ValueError: ``source`` is not a zip archive, or declares too much.
    """
    size = len(source) if isinstance(source, bytes) else os.path.getsize(source)
    try:
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source) as archive:
            entries = archive.infolist()
            declared = sum(info.file_size for info in entries)
            if declared > MAX_INFLATION * max(size, 1):
                raise ValueError(
                    f"{what} declares {declared:,} bytes once inflated, {declared / max(size, 1):,.0f} times its own "
                    f"{size:,} bytes; a model or checkpoint file may inflate at most {MAX_INFLATION} times")
            check_resources(f"inflating {what} ({declared:,} bytes declared)", BYTES_PER_INFLATED_BYTE * declared)
            for info in entries if depth > 0 else ():
                with archive.open(info) as entry:
                    nested = entry.read(4) == b"PK\x03\x04"
                if nested:
                    check_archive(f"{info.filename!r} in {what}", archive.read(info), depth - 1)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, zlib.error) as err:  # damaged, encrypted
        raise ValueError(f"{what} is not a readable zip archive ({type(err).__name__}: {err})") from None


def check_disk(what: str, path: str, size_bytes: float) -> None:
    """Refuse writing about ``size_bytes`` to ``path`` if over the disk limit or the free space."""
    limit = disk_limit()
    if limit is not None and size_bytes > limit:
        raise ResourceLimitError(
            f"{what} would write about {format_size(size_bytes)}, over the limit of {format_size(limit)}; raise it "
            f"with --max-disk SIZE or DICE_ENVS_MAX_DISK=SIZE, or ask for a smaller game"
        )
    directory = os.path.dirname(os.path.abspath(path)) or "."
    while not os.path.isdir(directory) and os.path.dirname(directory) != directory:
        directory = os.path.dirname(directory)
    free = shutil.disk_usage(directory).free
    if size_bytes > free:
        raise ResourceLimitError(
            f"{what} would write about {format_size(size_bytes)}, more than the {format_size(free)} free on "
            f"{directory}"
        )
