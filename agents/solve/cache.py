"""The on-disk cache every solver shares: one ``.npz`` file per solved configuration.

* **Where:** ``$DICE_ENVS_CACHE`` or ``~/.cache/dice_envs`` (:func:`default_cache_dir`).
* **Names:** a prefix and a hash of the configuration's key (a JSON-able dict that
  holds everything the result depends on, the solver's version included).
* **Writes are atomic** (a temporary file in the same directory, then a rename), so a
  reader never sees half a file, and a failed write leaves nothing behind.
* **A cache that cannot be written degrades** to "computed, not cached": a read-only
  or missing-permission directory, a ``cache_dir`` naming a file, or a cache path
  that is a directory produce one :class:`CacheWarning` per directory, never an
  error that throws the finished solve away.
* **Reads are validated:** a missing, unreadable, truncated or mismatched file reads
  as absent (:func:`load`), so the caller solves again and overwrites it; each
  solver adds its own checks of the contents (shapes, recomputed values).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from typing import Dict, Optional, Tuple

import numpy as np

from dice_envs.core.files import atomic_file

__all__ = ["CacheWarning", "default_cache_dir", "cache_path", "store", "load"]

_warned: set = set()


class CacheWarning(UserWarning):
    """A result could not be cached; it was computed and is used all the same."""


def default_cache_dir() -> str:
    """``$DICE_ENVS_CACHE`` or ``~/.cache/dice_envs``."""
    return os.environ.get("DICE_ENVS_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "dice_envs")


def cache_path(prefix: str, key: dict, cache_dir: str) -> str:
    """The file of the configuration ``key`` (a JSON-able dict) in ``cache_dir``."""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return os.path.join(cache_dir, f"{prefix}_{digest}.npz")


def store(path: str, arrays: Dict[str, np.ndarray], meta: dict) -> Optional[str]:
    """Write ``arrays`` and the JSON ``meta`` to ``path`` atomically; return the path, or
    None (with one :class:`CacheWarning`) when the location cannot be written."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        with atomic_file(path, "wb") as fh:
            # (numpy's stubs read any keyword as possibly savez's allow_pickle: a bool)
            np.savez(fh, **arrays, meta=np.array(json.dumps(meta)))  # type: ignore[arg-type]
        return path
    except OSError as err:
        if directory not in _warned:
            _warned.add(directory)
            warnings.warn(f"could not write the solver cache {path} ({err.strerror or err}); the result was "
                          f"computed and is used, but not cached (set DICE_ENVS_CACHE or cache_dir to a "
                          f"writable directory to keep it)", CacheWarning, stacklevel=3)
        return None


def load(path: str) -> Optional[Tuple[Dict[str, np.ndarray], dict]]:
    """``(arrays, meta)`` from ``path``, or None if it is missing or damaged (not an npz,
    truncated, no ``meta``, ``meta`` not a JSON object).  Never unpickles."""
    if not os.path.isfile(path):
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        meta = json.loads(str(arrays.pop("meta")))
    except Exception:  # damaged: unreadable, truncated, bad JSON, wrong types
        return None
    return (arrays, meta) if isinstance(meta, dict) else None
