"""RLlib checkpoints, loaded without running code from them.

``RLModule.from_checkpoint`` unpickles (cloudpickle) the module's
``class_and_ctor_args.pkl`` and ``module_state.pkl``, so a folder shaped like a
checkpoint runs whatever code its pickles carry.  :func:`load_module` never does:

* ``class_and_ctor_args.pkl`` is not read at all.  The module is rebuilt with
  :func:`dice_envs.rllib.module_spec` (RLlib's ``ActionMaskingTorchRLModule``, the one
  ``experiments/train_rllib.py`` trains), its layer sizes read off the weights;
* ``module_state.pkl`` is read by :class:`WeightsUnpickler`, which builds dicts and numpy
  arrays and nothing else: a pickle that names any other callable is refused before that
  callable is looked up (the idea of ``torch.load(weights_only=True)``);
* ``dice_envs.json`` next to the checkpoint (written by ``train_rllib.py``) records the game
  and its settings, so a checkpoint scored on another game is refused, naming both.

Every weight must be finite, and the state file is refused before it is read if it is
larger than :data:`MAX_STATE_BYTES` or than the memory limit allows
(:mod:`dice_envs.core.resources`).  A file that does not fit is refused with a
:class:`ValueError` that names what did not fit; ``RLModule.from_checkpoint`` remains the way
to load a checkpoint one trusts.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
from typing import Dict, Optional, Tuple

import numpy as np

from dice_envs.core.resources import check_resources

__all__ = ["WeightsUnpickler", "load_module", "read_description", "read_state", "DESCRIPTION", "MAX_STATE_BYTES"]

#: The description ``experiments/train_rllib.py`` writes into its checkpoint folder.
DESCRIPTION = "dice_envs.json"
#: Largest module state read.
MAX_STATE_BYTES = 1 << 30
#: Where the shared module's state lies, relative to a checkpoint written by ``algo.save_to_path``
#: (the folder itself when a module was saved on its own).
MODULE_DIRS = (("learner_group", "learner", "rl_module", "shared"), ())
STATE_FILES = ("module_state.pkl", "state.pkl")

#: The only globals a weights pickle may name: numpy arrays and their dtypes, and ordered dicts.
_ALLOWED = {
    ("collections", "OrderedDict"),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.multiarray", "scalar"),
}


def _refuse(path: str, what: str) -> ValueError:
    return ValueError(f"{path}: {what}; it cannot be loaded without running code from the checkpoint (if you "
                      "trust it, ray.rllib's RLModule.from_checkpoint loads it)")


class ForbiddenGlobal(pickle.UnpicklingError):
    """A pickle named a global that a weights file has no use for."""


class WeightsUnpickler(pickle.Unpickler):
    """An unpickler that builds only dicts, lists, numbers, strings and numpy arrays.

    Any other global a pickle names (a function, a class, ``os.system``...) is refused with a
    :class:`ForbiddenGlobal` before it is imported."""

    def find_class(self, module: str, name: str):
        if (module, name) not in _ALLOWED:
            raise ForbiddenGlobal(f"the pickle names {module}.{name}, which is not part of a weights file")
        return super().find_class(module, name)


def read_state(path: str) -> Dict[str, np.ndarray]:
    """The weights in an RLlib module's state file, as ``{name: float array}``.

    Raises:
        ValueError: the file is too large, names anything but arrays, or holds anything but
            finite numeric arrays (the message names the first bad parameter).
    """
    size = os.path.getsize(path)
    if size > MAX_STATE_BYTES:
        raise ValueError(f"{path} is {size:,} bytes, over the {MAX_STATE_BYTES:,} a module's weights can have")
    check_resources(f"reading the weights in {path}", 3 * size)
    with open(path, "rb") as f:
        raw = f.read()
    try:
        state = WeightsUnpickler(io.BytesIO(raw)).load()
    except ForbiddenGlobal as err:
        raise _refuse(path, str(err)) from None
    except Exception as err:  # noqa: BLE001 - truncated or damaged: any error means not a weights file
        raise ValueError(f"{path} is not a readable module state ({type(err).__name__}: {err})") from None
    if not isinstance(state, dict) or not state:
        raise ValueError(f"{path} does not hold a module's weights (a dict of arrays)")
    out = {}
    for name, value in state.items():
        if not isinstance(name, str) or not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu":
            raise ValueError(f"{path}: entry {name!r} is not a numeric array")
        if not np.isfinite(value).all():
            raise ValueError(f"{path}: parameter {name!r} holds non-finite numbers (NaN or inf)")
        out[name] = value
    return out


def read_description(checkpoint: str) -> dict:
    """``dice_envs.json`` of a checkpoint (``{"game": ..., "config": {...}}``), or ``{}``."""
    path = os.path.join(checkpoint, DESCRIPTION)
    if not os.path.isfile(path):
        return {}
    try:
        with open(path) as f:
            info = json.load(f)
    except (OSError, ValueError) as err:
        raise ValueError(f"the checkpoint's description {path} is damaged ({err})") from None
    if not isinstance(info, dict) or not isinstance(info.get("config", {}), dict):
        raise ValueError(f"the checkpoint's description {path} is not a JSON object with a 'config' object")
    return info


def _layer_index(name: str, prefix: str) -> Optional[int]:
    match = re.fullmatch(re.escape(prefix) + r"(\d+)\.weight", name)
    return int(match.group(1)) if match else None


def architecture(state: Dict[str, np.ndarray], path: str) -> Tuple[int, Tuple[int, ...], int]:
    """``(observation size, hidden layer sizes, number of actions)`` of an
    ``ActionMaskingTorchRLModule``'s weights (PPO's default encoder and a linear policy head)."""
    encoder = sorted((i, w) for name, w in state.items()
                     if (i := _layer_index(name, "encoder.encoder.net.mlp.")) is not None)
    head = state.get("pi.net.mlp.0.weight")
    if not encoder or head is None or any(w.ndim != 2 for _, w in encoder) or head.ndim != 2:
        raise _refuse(path, "its weights are not those of dice_envs.rllib.module_spec (an MLP encoder "
                            "'encoder.encoder.net.mlp.N' and a linear head 'pi.net.mlp.0')")
    sizes = [encoder[0][1].shape[1]] + [w.shape[0] for _, w in encoder]
    if any(w.shape[1] != sizes[k] for k, (_, w) in enumerate(encoder)) or head.shape[1] != sizes[-1]:
        raise ValueError(f"{path}: the layers' shapes do not chain ({[w.shape for _, w in encoder]}, head "
                         f"{head.shape})")
    return sizes[0], tuple(sizes[1:]), head.shape[0]


def module_directory(checkpoint: str) -> Optional[str]:
    """The folder holding the shared module's state, or None."""
    for parts in MODULE_DIRS:
        folder = os.path.join(checkpoint, *parts)
        if any(os.path.isfile(os.path.join(folder, name)) for name in STATE_FILES):
            return folder
    return None


def load_module(checkpoint: str):
    """The shared module of a checkpoint written by ``algo.save_to_path`` with
    :func:`dice_envs.rllib.ppo_config` (or a module's own folder), rebuilt from its weights.

    Returns ``(module, description)``: the ``RLModule`` in evaluation mode, and the
    checkpoint's :func:`read_description` (``{}`` if it has none).

    Raises:
        ValueError: not such a checkpoint, weights that are not plain finite arrays, or a
            network other than :func:`dice_envs.rllib.module_spec`'s.
    """
    checkpoint = os.fspath(checkpoint)
    folder = module_directory(checkpoint)
    if folder is None:
        from dice_envs.rllib import SHARED

        raise ValueError(f"{checkpoint} is not an RLlib checkpoint with a module {SHARED!r} "
                         "(written by algo.save_to_path with dice_envs.rllib.ppo_config)")
    path = next(os.path.join(folder, n) for n in STATE_FILES if os.path.isfile(os.path.join(folder, n)))
    state = read_state(path)
    obs_size, hidden, num_actions = architecture(state, path)
    try:
        from dice_envs.rllib import _require_ray, module_spec

        _require_ray()
    except ImportError as err:
        raise ValueError(f"{checkpoint} is an RLlib checkpoint: {err}") from None
    import torch
    from gymnasium import spaces

    observation_space = spaces.Dict({
        "observations": spaces.Box(-np.inf, np.inf, (obs_size,), np.float32),
        "action_mask": spaces.Box(0.0, 1.0, (num_actions,), np.float32),
    })
    spec = module_spec(hidden)
    spec.observation_space, spec.action_space = observation_space, spaces.Discrete(num_actions)
    module = spec.build()
    expected = module.state_dict()
    missing = sorted(expected.keys() - state.keys())
    if missing:
        raise _refuse(path, f"its weights lack {missing[:3]}")
    try:
        module.load_state_dict({k: torch.as_tensor(state[k]) for k in expected}, strict=True)
    except RuntimeError as err:
        raise ValueError(f"{path}: its weights do not fit the network they describe "
                         f"({str(err).strip().splitlines()[0]})") from None
    module.eval()
    return module, read_description(checkpoint)
