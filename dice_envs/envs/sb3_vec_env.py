"""Stable-Baselines3 ``VecEnv`` over a batched vector environment (needs the ``[train]`` extra).

::

    import gymnasium, dice_envs
    from sb3_contrib import MaskablePPO
    from dice_envs.envs.sb3_vec_env import SB3VecEnv

    venv = SB3VecEnv(gymnasium.make_vec("dice_envs/ZombieDice-v0", num_envs=256,
                                        vectorization_mode="vector_entry_point", opponent="optimal"))
    MaskablePPO("MlpPolicy", venv).learn(1_000_000)

The games stay one array program: SB3 sees ``num_envs`` environments, and
``env_method("action_masks")`` (what sb3-contrib's ``MaskablePPO`` calls) answers
with the ``(num_envs, n)`` mask array of the whole batch.  Finished games are reset in
the same step, as SB3 expects: their last observation is in
``infos[i]["terminal_observation"]`` (and ``"TimeLimit.truncated"`` says whether it
was a truncation), with the game's return, length and time in ``infos[i]["episode"]``
(``{"r", "l", "t"}``, as SB3's ``Monitor`` and ``VecMonitor`` write it), so SB3's logger reports
``ep_rew_mean`` and ``ep_len_mean`` with no wrapper.  To save building ``num_envs`` dicts per
step, the games that did not end share one empty, read-only ``info``.
"""

from __future__ import annotations

import time
from types import MappingProxyType
from typing import Any, List, Optional, Sequence

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvStepReturn

from dice_envs.envs.vector import BatchedSingleAgentEnv

_EMPTY: MappingProxyType[str, Any] = MappingProxyType({})


class SB3VecEnv(VecEnv):
    """Adapts a :class:`dice_envs.envs.vector.BatchedSingleAgentEnv` (or ``gymnasium.make_vec``'s
    result for a dice_envs id) to SB3's ``VecEnv``."""

    def __init__(self, vector_env) -> None:
        env = getattr(vector_env, "unwrapped", vector_env)
        if not isinstance(env, BatchedSingleAgentEnv):
            raise ValueError(f"SB3VecEnv needs a dice_envs batched vector env, got {type(vector_env).__name__}")
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: Optional[np.ndarray] = None
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, np.int64)
        self._start = time.perf_counter()

    def reset(self):
        seed = self._seeds[0] if any(s is not None for s in self._seeds) else None
        obs, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64, copy=False)

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        dones = terminated | truncated
        self._returns += rewards
        self._lengths += 1
        infos: List[Any] = [_EMPTY] * self.num_envs
        if dones.any():
            final = info["final_obs"]
            elapsed = round(time.perf_counter() - self._start, 6)
            for k in np.flatnonzero(dones):
                infos[k] = {"terminal_observation": final[k], "TimeLimit.truncated": bool(truncated[k]),
                            "episode": {"r": float(self._returns[k]), "l": int(self._lengths[k]), "t": elapsed}}
            self._returns[dones] = 0.0
            self._lengths[dones] = 0
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices=None) -> List[Any]:
        value = getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        """``"action_masks"`` answers with the mask array (rows = games); any other method of
        the batched env is called once and its result repeated per index."""
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        if method_name == "action_masks":
            return result if indices is None else result[list(self._get_indices(indices))]
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> List[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None] * self.num_envs
