"""Stable-Baselines3 model files (``.zip``), loaded without running code from them.

``PPO.load`` and ``MaskablePPO.load`` unpickle (cloudpickle) several entries of a
model's ``data`` file, among them the policy class, its keyword arguments and the
spaces, so a crafted ``.zip`` runs whatever code it carries.  :func:`load_policy`
never unpickles anything:

* the readable half of each entry of ``data`` (SB3 stores the ``repr`` of every
  attribute next to the pickle) gives the policy class, ``net_arch``, the activation
  and the spaces, each checked against a short list of what SB3 itself writes for an
  actor-critic MLP (``PPO``/``A2C``'s ``MlpPolicy``, ``MaskablePPO``'s ``MlpPolicy``);
* the network is built from them with SB3's own policy class, and its weights are
  read from ``policy.pth`` with ``torch.load(weights_only=True)`` and loaded strictly.

A file that does not fit (another policy class, a custom activation, a feature
extractor) is refused with a :class:`ValueError` that names what did not fit, and
says that ``MaskablePPO.load`` remains the way to load a file one trusts.

Needs the ``[train]`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import ast
import io
import json
import math
import os
import re
import zipfile
from typing import Optional

import numpy as np

from dice_envs.core.resources import check_archive, check_network

__all__ = ["load_policy", "read_description"]

#: The policy classes that can be rebuilt, by the module SB3 records for them.
POLICY_CLASSES = {
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "maskable",
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "plain",
}
#: The activations that can be rebuilt, by the class SB3 records for them.
ACTIVATIONS = ("Tanh", "ReLU", "ELU", "LeakyReLU", "SiLU", "GELU", "Sigmoid")
#: ``policy_kwargs`` keys that can be rebuilt (their values are read as Python literals).
LITERAL_KWARGS = ("net_arch", "ortho_init", "share_features_extractor", "normalize_images", "log_std_init")
#: Largest ``data`` and ``policy.pth`` entries read (a damaged or hostile zip can claim anything).
MAX_ENTRY_BYTES = 1 << 30
#: Largest observation a model may declare, in numbers (the games' observations hold a few hundred
#: at most); checked before the spaces or the network are built.
MAX_OBSERVATION_SIZE = 1 << 20


def _refuse(path: str, what: str) -> ValueError:
    return ValueError(f"{path}: {what}; it cannot be loaded without unpickling it (if you trust the file, "
                      "sb3_contrib.MaskablePPO.load loads it, running the code it carries)")


def _read_entry(archive: zipfile.ZipFile, name: str, path: str) -> bytes:
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ValueError(f"{path} is not a Stable-Baselines3 model: it has no {name!r} entry") from None
    if info.file_size > MAX_ENTRY_BYTES:
        raise ValueError(f"{path}: its {name!r} entry is {info.file_size:,} bytes, over the "
                         f"{MAX_ENTRY_BYTES:,} a policy can have")
    return archive.read(name)


def read_description(path) -> dict:
    """The ``data`` entry of an SB3 ``.zip`` as plain JSON (nothing unpickled).

    Raises ``ValueError`` if the file is missing, not a zip, not an SB3 model, or declares more
    than it can hold once inflated (:func:`dice_envs.core.resources.check_archive`)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"model file {path!r} does not exist")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not a Stable-Baselines3 model (not a zip file)")
    check_archive(f"model file {path!r}", path)
    try:
        with zipfile.ZipFile(path) as archive:
            raw = _read_entry(archive, "data", path)
    except zipfile.BadZipFile:
        raise ValueError(f"{path} is not a Stable-Baselines3 model (not a zip file)") from None
    try:
        data = json.loads(raw)
    except ValueError as err:
        raise ValueError(f"{path}: its 'data' entry is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: its 'data' entry is not a JSON object")
    return data


def _policy_class(data: dict, path: str):
    entry = data.get("policy_class")
    if not isinstance(entry, dict):
        raise ValueError(f"{path}: no policy class recorded")
    module = entry.get("__module__")
    match = re.match(r"<function (\w+)\.__init__", str(entry.get("__init__", "")))
    name = match.group(1) if match else None
    kind = POLICY_CLASSES.get((module, name))  # type: ignore[arg-type]  # a None part finds nothing
    if kind is None:
        raise _refuse(path, f"its policy class is {module}.{name}, not one of "
                            f"{[m + '.' + n for m, n in POLICY_CLASSES]}")
    if kind == "maskable":
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        return MaskableActorCriticPolicy
    from stable_baselines3.common.policies import ActorCriticPolicy

    return ActorCriticPolicy


def _policy_kwargs(data: dict, path: str) -> dict:
    import torch

    entry = data.get("policy_kwargs") or {}
    if not isinstance(entry, dict):
        raise ValueError(f"{path}: policy_kwargs is not an object")
    pickled = ":serialized:" in entry
    kwargs = {}
    for key, value in entry.items():
        if key.startswith(":"):
            continue
        if key == "activation_fn":
            match = re.fullmatch(r"<class 'torch\.nn\.modules\.activation\.(\w+)'>", str(value))
            if not match or match.group(1) not in ACTIVATIONS:
                raise _refuse(path, f"its activation {value} is not one of {list(ACTIVATIONS)}")
            kwargs[key] = getattr(torch.nn, match.group(1))
        elif key in LITERAL_KWARGS:
            try:
                kwargs[key] = ast.literal_eval(value) if pickled and isinstance(value, str) else value
            except (ValueError, SyntaxError):
                raise ValueError(f"{path}: policy_kwargs {key} = {value!r} is not readable") from None
        else:
            raise _refuse(path, f"its policy_kwargs has {key!r}, which is not one of "
                                f"{['activation_fn', *LITERAL_KWARGS]}")
    return kwargs


def _numbers(text, count: int) -> Optional[np.ndarray]:
    """A numpy repr such as ``'[ 0.  1. inf]'`` as an array, or None if it is summarised or odd."""
    found = re.findall(r"-?inf|nan|[-+]?\d+\.?\d*(?:e[-+]?\d+)?", str(text))
    return np.array(found, np.float32) if len(found) == count else None


def _spaces(data: dict, path: str):
    """The observation space (a flat ``Box``) and action space (``Discrete``) SB3 recorded."""
    from gymnasium import spaces

    obs, act = data.get("observation_space") or {}, data.get("action_space") or {}
    if obs.get(":type:") != "<class 'gymnasium.spaces.box.Box'>" or act.get(":type:") != (
            "<class 'gymnasium.spaces.discrete.Discrete'>"):
        raise _refuse(path, f"its spaces are {obs.get(':type:')} and {act.get(':type:')}, not a Box "
                            "observation and a Discrete action")
    try:
        shape = tuple(int(x) for x in ast.literal_eval(str(obs.get("_shape"))))
        n = int(act.get("n"))  # type: ignore[arg-type]  # None: the TypeError below
    except (ValueError, SyntaxError, TypeError):
        raise ValueError(f"{path}: the recorded spaces are not readable") from None
    size = math.prod(shape)
    if size > MAX_OBSERVATION_SIZE:
        raise ValueError(f"{path}: its observation shape {shape} holds {size:,} numbers, over the "
                         f"{MAX_OBSERVATION_SIZE:,} a model's observation can have (MAX_OBSERVATION_SIZE)")
    if len(shape) != 1 or shape[0] < 1 or n < 1:
        raise _refuse(path, f"its observation shape is {shape} and it has {n} actions; an MLP policy "
                            "needs a flat observation")
    low, high = _numbers(obs.get("low"), shape[0]), _numbers(obs.get("high"), shape[0])
    if low is None or high is None:  # the bounds do not matter to an MLP; keep the shape
        low, high = np.full(shape, -np.inf, np.float32), np.full(shape, np.inf, np.float32)
    return spaces.Box(low, high, shape, np.float32), spaces.Discrete(n)


def _check_declared_size(net_arch, observation_size: int, num_actions: int, path: str) -> None:
    """Refuse a network whose declared sizes (``net_arch``, the observation and action counts)
    would exceed the memory limit, before it is built (:func:`dice_envs.core.resources.check_network`)."""
    if net_arch is None:
        net_arch = [64, 64]
    if isinstance(net_arch, list) and len(net_arch) == 1 and isinstance(net_arch[0], dict):
        net_arch = net_arch[0]  # SB3 before 1.8: [dict(pi=..., vf=...)]
    heads = net_arch if isinstance(net_arch, dict) else {"pi": net_arch, "vf": net_arch}
    for head, outputs in (("pi", num_actions), ("vf", 1)):
        layers = heads.get(head, [])
        if not isinstance(layers, (list, tuple)) or not all(isinstance(n, int) and not isinstance(n, bool)
                                                            for n in layers):
            raise ValueError(f"{path}: net_arch {net_arch!r} is not lists of layer sizes")
        check_network(f"the {head} network of {path}", [observation_size, *layers, outputs])


def load_policy(path):
    """An SB3 actor-critic policy (``MaskableActorCriticPolicy`` or ``ActorCriticPolicy``)
    rebuilt from a saved model's description and weights, on the CPU, in evaluation mode.

    Args:
        path: a ``.zip`` written by ``model.save`` (the suffix may be left off).

    Raises:
        ValueError: the file is missing, damaged, or not an MLP actor-critic that can be
            rebuilt safely (the message says which part did not fit).
    """
    import torch

    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(path + ".zip"):
        path += ".zip"
    data = read_description(path)
    policy_class = _policy_class(data, path)
    kwargs = _policy_kwargs(data, path)
    observation_space, action_space = _spaces(data, path)
    _check_declared_size(kwargs.get("net_arch"), observation_space.shape[0], action_space.n, path)
    with zipfile.ZipFile(path) as archive:
        weights = _read_entry(archive, "policy.pth", path)
    try:
        state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - any unpickling error means a damaged or foreign file
        raise ValueError(f"{path}: its weights (policy.pth) are not readable ({type(err).__name__}: {err})") from None
    if not isinstance(state, dict):
        raise ValueError(f"{path}: its weights (policy.pth) are not a state dict")
    for name, tensor in state.items():
        if not isinstance(tensor, torch.Tensor) or not torch.isfinite(tensor).all():
            raise ValueError(f"{path}: parameter {name!r} is not a tensor of finite numbers (NaN or inf)")
    policy = policy_class(observation_space, action_space, lambda _: 0.0, **kwargs)
    try:
        policy.load_state_dict(state, strict=True)
    except (RuntimeError, TypeError, AttributeError) as err:
        first = str(err).strip().splitlines()[0]
        raise ValueError(f"{path}: its weights do not fit the network it describes ({first})") from None
    return policy.eval()
