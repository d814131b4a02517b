"""Agents over observations: what ``dice-envs evaluate GAME AGENT`` scores.

An agent is a callable ``agent(observations, masks) -> probabilities`` (the contract of
:mod:`dice_envs.agents.evaluate.contract`): ``observations`` is a float32 array ``(N, d)``
of the observations the game's Gymnasium env gives the agent, ``masks`` a bool array
``(N, A)`` of the legal actions there, and the answer an ``(N, A)`` array of action
probabilities.  The exact evaluators ask it once, in a few large batches, for every
information state of the game, so the agent is scored on the whole game, not on
sampled play.

:func:`load_agent` makes one from what a user names:

* a Stable-Baselines3 model, ``MODEL.zip`` (:class:`NetworkAgent`; rebuilt without
  unpickling, :mod:`dice_envs.agents.evaluate.sb3_models`); a ``MODEL.json`` next to it, as the
  training scripts write, tells which observation and goal it was trained on;
* a model file that a game's own learners save, by its suffix (its :mod:`dice_envs.registry` entry's
  ``agent_files``: ``MODEL.pt``, Liar's Dice, a network or a table, or the ``pbs`` learner's policy
  network, :func:`~dice_envs.agents.liars_dice.evaluation.load_agent`);
* an RLlib checkpoint directory, written by ``algo.save_to_path`` with
  :func:`dice_envs.rllib.ppo_config` (:class:`RLlibAgent`; its weights are read without
  unpickling anything that could run code, :mod:`dice_envs.agents.evaluate.rllib_models`);
* ``module:function``, a function with the signature above (:class:`FunctionAgent`); it
  may also return ``(N,)`` integer actions, a deterministic agent.

SB3 and RLlib networks play greedily by default (the most probable legal action, ties to the
lowest action, as SB3's ``predict(deterministic=True)``; between two legal actions, action 1
where its probability is above 1/2, the training scripts' rule, so that near-ties are decided
the same way: :func:`greedy_choice`); ``greedy=False`` scores their probabilities.  A game's own
model files play their probabilities unless ``greedy=True``.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from typing import Optional

import numpy as np

from dice_envs.agents.evaluate.contract import ContractError, call_agent, check_probabilities, real_array
from dice_envs.core.extras import needs_extra
from dice_envs.registry import GAMES, load

__all__ = ["Agent", "FunctionAgent", "NetworkAgent", "RLlibAgent", "import_function", "load_agent"]

BATCH = 1 << 16


class Agent:
    """The interface: ``agent(observations, masks) -> (N, A) probabilities``.

    Attributes:
        name: how reports name it.
        kind: ``"sb3"``, ``"torch"``, ``"rllib"``, ``"function"`` or ``"builtin"``.
        info: what a model's description says of its training (``observation``, ``goal``...), or ``{}``.
    """

    name: str = "agent"
    kind: str = "function"
    info: dict = {}

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @property
    def observation_size(self) -> Optional[int]:
        """The observation length the agent takes, if it is known (a network's input)."""
        return None


class FunctionAgent(Agent):
    """``fn(observations, masks)`` returning probabilities or ``(N,)`` integer actions, checked
    (:func:`dice_envs.agents.evaluate.contract.check_probabilities`); what ``fn`` raises is an
    :class:`~dice_envs.agents.evaluate.contract.AgentError` naming it
    (:func:`~dice_envs.agents.evaluate.contract.call_agent`)."""

    def __init__(self, fn, name: Optional[str] = None, kind: str = "function"):
        if not callable(fn):
            raise ValueError(f"agent {name or fn!r} is not callable")
        self.fn, self.kind, self.info = fn, kind, {}
        self.name = name if name else getattr(fn, "__name__", "agent")

    def __call__(self, observations, masks):
        what = f"agent {self.name}"
        answer = call_agent(self.fn, what, observations, masks, takes="(observations, masks)")
        answer = real_array(answer, what, "action probabilities or actions")
        if answer.ndim == 1 and answer.shape[0] == masks.shape[0]:  # actions
            if not np.issubdtype(answer.dtype, np.integer):
                raise ContractError(f"{what} returned {answer.dtype} actions; actions must be integers")
            if np.any((answer < 0) | (answer >= masks.shape[1])):
                raise ContractError(f"{what} returned an action outside 0..{masks.shape[1] - 1}")
            one_hot = np.zeros(masks.shape)
            one_hot[np.arange(len(answer)), answer] = 1.0
            answer = one_hot
        return check_probabilities(answer, masks, f"agent {self.name}", observations)


def greedy_choice(probs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """One-hot rows of each row's most probable legal action (ties to the lowest action; between
    two legal actions, action 1 where its probability is above 1/2): how a network plays greedily."""
    probs = np.where(masks, probs, 0.0)
    best = np.argmax(np.where(masks, probs, -1.0), axis=1)
    if masks.shape[1] == 2:  # roll/hold: action 1 iff its probability is above 1/2, exactly the
        both = masks.all(axis=1)  # rule of the training scripts' greedy tables (jeopardy_learned)
        best[both] = probs[both, 1] > 0.5
    out = np.zeros(masks.shape)
    out[np.arange(len(best)), best] = 1.0
    return out


class NetworkAgent(Agent):
    """An SB3 actor-critic policy (``MaskableActorCriticPolicy`` or ``ActorCriticPolicy``):
    its action distribution restricted to the legal actions, or its greedy action."""

    kind = "sb3"

    def __init__(self, policy, name: str = "model", greedy: bool = True, info: Optional[dict] = None):
        self.policy = getattr(policy, "policy", policy)
        self.name, self.greedy, self.info = name, greedy, dict(info or {})

    @property
    def observation_size(self) -> int:
        return int(np.prod(self.policy.observation_space.shape))

    def __call__(self, observations, masks):
        import torch

        observations = np.array(observations, np.float32)
        if observations.ndim != 2 or observations.shape[1] != self.observation_size:
            raise ContractError(f"{self.name} takes observations of length {self.observation_size}, got shape "
                             f"{observations.shape}: was it trained on this game and observation?")
        probs = np.empty(masks.shape)
        with torch.no_grad():
            for start in range(0, len(observations), BATCH):
                obs = torch.as_tensor(observations[start:start + BATCH])
                probs[start:start + len(obs)] = self.policy.get_distribution(obs).distribution.probs.numpy()
        if self.greedy:
            return greedy_choice(probs, masks)
        probs = np.where(masks, probs, 0.0)
        return probs / probs.sum(axis=1, keepdims=True)


class RLlibAgent(Agent):
    """A trained RLlib module as an agent over observations, for the exact evaluators
    (:mod:`dice_envs.agents.evaluate.observation_agents`): ``agent(observations, masks) -> probabilities``.

    Args:
        module: an ``RLModule`` taking ``{"observations", "action_mask"}`` (as :func:`dice_envs.rllib.module_spec`).
        name: how reports name it.
        greedy: its most probable legal action (default) or its probabilities.
    """

    kind = "rllib"

    def __init__(self, module, name: str = "rllib", greedy: bool = True):
        self.module, self.name, self.greedy, self.info = module, name, greedy, {}

    @classmethod
    def from_checkpoint(cls, path: str, greedy: bool = True) -> "RLlibAgent":
        """The shared module of a checkpoint written by ``algo.save_to_path`` (or a module's own
        directory), rebuilt from its weights without unpickling anything that could run code
        (:func:`dice_envs.agents.evaluate.rllib_models.load_module`); ``info`` is the game the checkpoint
        records (``dice_envs.json``, written by ``experiments/train_rllib.py``)."""
        from dice_envs.agents.evaluate.rllib_models import load_module

        module, description = load_module(path)
        agent = cls(module, os.path.basename(os.path.normpath(os.fspath(path))), greedy)
        agent.info = {"game": description["game"], **description.get("config", {})} if description else {}
        return agent

    @property
    def observation_size(self) -> int:
        space = self.module.observation_space
        space = space["observations"] if hasattr(space, "spaces") else space
        return int(np.prod(space.shape))

    def __call__(self, observations, masks):
        import torch

        masks = np.asarray(masks, bool)
        with torch.no_grad():
            out = self.module.forward_inference({"obs": {
                "observations": torch.as_tensor(np.array(observations, np.float32)),
                "action_mask": torch.as_tensor(masks.astype(np.float32))}})
            logits = out["action_dist_inputs"].numpy().astype(np.float64)
        logits = np.where(masks, logits, -np.inf)
        if self.greedy:
            best = np.argmax(logits, axis=1)
            probs = np.zeros(masks.shape)
            probs[np.arange(len(best)), best] = 1.0
            return probs
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        return probs / probs.sum(axis=1, keepdims=True)


def model_description(path: str) -> dict:
    """``MODEL.json`` next to ``MODEL.zip`` (what the training scripts record), or ``{}``."""
    sidecar = os.path.splitext(path)[0] + ".json"
    if not os.path.isfile(sidecar):
        return {}
    try:
        with open(sidecar) as f:
            info = json.load(f)
    except (OSError, ValueError) as err:
        raise ValueError(f"the model's description {sidecar} is damaged ({err})") from None
    if not isinstance(info, dict):
        raise ValueError(f"the model's description {sidecar} is not a JSON object")
    return info


#: ``module:function``, the module a dotted name of identifiers.
_FUNCTION_SPEC = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):([A-Za-z_]\w*)")


def import_function(spec: str):
    """The function ``module:function`` names, imported with the current directory on the
    path (as ``python -m`` would find the module).

    Raises:
        ValueError: in one line, if ``spec`` is not ``dotted.module:function`` or the module or
            function cannot be imported.
    """
    match = _FUNCTION_SPEC.fullmatch(spec)
    if not match:
        raise ValueError(f"agent {spec!r} is not module:function (a dotted module name, a colon, a function "
                         "name), a saved model (.zip, .pt) or an RLlib checkpoint directory")
    module, attr = match.groups()
    added = os.getcwd() not in sys.path
    if added:
        sys.path.insert(0, os.getcwd())
    try:
        return getattr(importlib.import_module(module), attr)
    except (Exception, SystemExit) as err:  # noqa: BLE001 - whatever importing the user's module raises, in one line
        raise ValueError(f"cannot import agent {spec!r}: {type(err).__name__}: {err}") from None
    finally:
        if added:
            sys.path.remove(os.getcwd())


def load_agent(spec: str, greedy: Optional[bool] = None) -> Agent:
    """An :class:`Agent` from a saved model (``.zip``, ``.pt``) or ``module:function``: a network
    playing greedily or its probabilities (``greedy``; by default, greedily for SB3 and RLlib
    models, its probabilities for a game's own model files, whose learners train mixed strategies).

    Raises:
        ValueError: the file is missing or not a model this project can load safely, the
            function cannot be imported or is not callable, or ``spec`` is none of these.
        gymnasium.error.DependencyNotInstalled: reading the model needs an extra that is not
            installed (the message names it: ``[train]`` for torch, ``[rllib]`` for Ray).
    """
    spec = os.fspath(spec)
    if os.path.isdir(spec):  # an RLlib checkpoint
        with needs_extra(f"reading the RLlib checkpoint {spec!r}"):
            return RLlibAgent.from_checkpoint(spec, greedy is not False)
    loader = next((target for entry in GAMES.values() for suffix, target in entry.agent_files
                   if spec.endswith(suffix)), None)
    model = spec.endswith(".zip") or (os.path.isfile(spec) and loader is None)
    if (model or loader is not None) and not os.path.isfile(spec):  # before any loader is imported
        raise ValueError(f"model file {spec!r} does not exist")
    if model:
        with needs_extra(f"reading the model {spec!r}"):
            from dice_envs.agents.evaluate.sb3_models import load_policy

            return NetworkAgent(load_policy(spec), os.path.basename(spec), greedy is not False,
                                model_description(spec))
    if loader is not None:
        with needs_extra(f"reading the model {spec!r}"):
            return load(loader)(spec, bool(greedy))
    if ":" in spec:
        return FunctionAgent(import_function(spec), spec)
    raise ValueError(f"agent {spec!r} is not a saved model (.zip, .pt) or module:function")
