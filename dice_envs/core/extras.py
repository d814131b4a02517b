"""The optional dependencies, the extra that brings each, and one error that names it.

Code that needs an optional dependency imports it where it is used and runs inside
:func:`needs_extra`: a missing one then raises Gymnasium's
:class:`~gymnasium.error.DependencyNotInstalled` (what Gymnasium raises for its own optional
dependencies), whose message names the extra to install, instead of a traceback that ends in
``ModuleNotFoundError``.  The command line prints it as a one-line error.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from gymnasium.error import DependencyNotInstalled

__all__ = ["EXTRAS", "DependencyNotInstalled", "needs_extra"]

#: The extra of ``dice-envs`` that installs each optional top-level module.
EXTRAS = {
    "torch": "train", "stable_baselines3": "train", "sb3_contrib": "train", "tensorboard": "train",
    "matplotlib": "plot", "ray": "rllib", "pyspiel": "openspiel", "open_spiel": "openspiel", "numba": "numba",
}


@contextlib.contextmanager
def needs_extra(purpose: str) -> Iterator[None]:
    """Run the block; an optional dependency it fails to import becomes
    ``DependencyNotInstalled("<purpose> needs torch: pip install 'dice-envs[train]'")``.  Any other
    ``ImportError`` goes through unchanged."""
    try:
        yield
    except ImportError as err:
        module = (err.name or "").split(".")[0]
        if module not in EXTRAS:
            raise
        raise DependencyNotInstalled(f"{purpose} needs {module}: pip install 'dice-envs[{EXTRAS[module]}]'") from err
