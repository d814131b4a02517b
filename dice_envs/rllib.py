"""Ray RLlib: every game as an RLlib multi-agent environment, with action masks.

Needs the ``[rllib]`` extra (``pip install 'dice-envs[rllib]'``).

* :class:`DiceMultiAgentEnv` is RLlib's own ``PettingZooEnv`` over a game of
  :data:`dice_envs.all_environments`, with the observation in the shape RLlib's
  action-masking module reads: ``{"observations": float32 vector, "action_mask":
  float32 0/1 vector}`` (PettingZoo's ``"observation"`` renamed; the mask as floats, as
  the module takes its log).  ``observation="compact"`` gives two-player All Yellow
  Zombie Dice the compact observation of ``dice_envs/ZombieDice-v0``, the one its
  exact evaluator reads.
* :func:`module_spec` is RLlib's ``ActionMaskingTorchRLModule`` (PPO's default MLP,
  illegal logits pushed to the float minimum) for that space.
* :func:`ppo_config` is a ``PPOConfig`` for self-play with one shared module: every
  seat maps to the module ``"shared"``, so both seats learn one strategy from both
  seats' games (parameter sharing).  It checks the environment once with a legal move
  (:func:`check_environment`) and turns RLlib's own check off: that one steps every env
  runner's environment with an action sampled from the whole action space, which in these
  games is often illegal, so some of the runners' games would end with PettingZoo's
  "Illegal move made" warning, as if masking were broken (RLlib's ``disable_env_checking``
  is there for environments its random action does not suit).
* a trained module (or a checkpoint written by ``algo.save_to_path``) is scored
  exactly as an agent over observations by
  :class:`dice_envs.agents.evaluate.observation_agents.RLlibAgent`
  (``dice-envs evaluate GAME CHECKPOINT_DIR``).

Example::

    import ray
    from dice_envs.rllib import ppo_config

    ray.init()  # or ray.init(address="auto") on a cluster started with `ray start`
    algo = ppo_config("liars_dice_v1", {"faces": 6, "wild": True}, num_env_runners=2).build_algo()
    result = algo.train()
"""

from __future__ import annotations

from typing import Optional

import numpy as np

#: The module every seat is mapped to in :func:`ppo_config`.
SHARED = "shared"


try:  # RLlib's own PettingZoo wrapper is the base; without the extra, using it says what to install
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv as _PettingZooEnv
except ImportError:  # pragma: no cover - depends on the installed extras
    _PettingZooEnv = object  # type: ignore[misc,assignment]


def _require_ray():
    if _PettingZooEnv is object:
        raise ImportError("dice_envs.rllib needs Ray RLlib: pip install 'dice-envs[rllib]'")


def _environment(config: dict):
    """The PettingZoo AEC env and the observation function a :class:`DiceMultiAgentEnv` config asks for."""
    from dice_envs import all_environments, earlier_environments

    environments = {**all_environments, **earlier_environments}
    config = dict(config or {})
    game = config.pop("game", None)
    if game not in environments:
        raise ValueError(f"env_config['game'] must be one of {list(environments)}, got {game!r}")
    observation = config.pop("observation", "full")
    if observation not in ("full", "compact"):
        raise ValueError(f"env_config['observation'] must be 'full' or 'compact', got {observation!r}")
    aec = environments[game].env(**config)
    if observation == "compact":
        if game != "zombie_dice_v0" or aec.unwrapped.game.variant != "all_yellow" or aec.unwrapped.game.num_players != 2:
            raise ValueError("observation='compact' is All Yellow Zombie Dice's, two players "
                             f"(game='zombie_dice_v0', variant='all_yellow'); got {game!r} with {config}")
        from dice_envs.games.zombie_dice.rules import compact_bounds, compact_from_state

        return aec, compact_from_state, compact_bounds()
    return aec, None, None


class _Adapter:
    """The key renaming and mask conversion, applied to what ``PettingZooEnv`` returns."""

    def __init__(self, aec, observation_fn, bounds):
        from gymnasium import spaces

        self.aec, self.observation_fn = aec, observation_fn
        self.spaces = {}
        for agent in aec.possible_agents:
            inner = aec.observation_space(agent)
            if bounds is not None:
                obs_space = spaces.Box(*bounds, dtype=np.float32)
            else:
                obs_space = spaces.Box(inner["observation"].low.astype(np.float32),
                                       inner["observation"].high.astype(np.float32), dtype=np.float32)
            n = inner["action_mask"].shape[0]
            self.spaces[agent] = spaces.Dict({
                "observations": obs_space,
                "action_mask": spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32),
            })

    def convert(self, observations: dict) -> dict:
        out = {}
        for agent, obs in observations.items():
            vector = obs["observation"]
            if self.observation_fn is not None:
                raw = self.aec.unwrapped
                vector = self.observation_fn(raw.game_state, raw.possible_agents.index(agent))
            out[agent] = {"observations": np.asarray(vector, np.float32),
                          "action_mask": np.asarray(obs["action_mask"], np.float32)}
        return out


class DiceMultiAgentEnv(_PettingZooEnv):
    """A game of :data:`dice_envs.all_environments` as an RLlib ``MultiAgentEnv``.

    Args:
        config: ``{"game": "liars_dice_v1", **the game's arguments}``, plus
            ``"observation": "compact"`` for two-player All Yellow Zombie Dice.  RLlib
            passes ``env_config`` here.

    Raises:
        ValueError: an unknown game, observation or game argument.
    """

    def __init__(self, config: Optional[dict] = None):
        import gymnasium as gym

        _require_ray()
        aec, observation_fn, bounds = _environment(config or {})
        super().__init__(aec)
        self._adapter = _Adapter(aec, observation_fn, bounds)
        self.observation_spaces = dict(self._adapter.spaces)
        self.observation_space = gym.spaces.Dict(self._adapter.spaces)  # the seats' spaces, as observation_spaces

    def reset(self, *, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        return self._adapter.convert(observations), infos

    def step(self, action):
        agent = self.env.agent_selection
        if agent not in action:
            raise ValueError(f"it is {agent}'s turn; the action dict has {sorted(action)}")
        observations, rewards, terminateds, truncateds, infos = super().step(action)
        return self._adapter.convert(observations), rewards, terminateds, truncateds, infos


def module_spec(hidden=(64, 64)):
    """RLlib's ``ActionMaskingTorchRLModule`` (PPO's MLP with masked logits), ``hidden`` units per layer."""
    _require_ray()
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config=DefaultModelConfig(fcnet_hiddens=list(hidden), fcnet_activation="relu",
                                                        head_fcnet_hiddens=[]))


def ppo_config(game: str, env_config: Optional[dict] = None, num_env_runners: int = 2, envs_per_runner: int = 16,
               hidden=(64, 64), seed: Optional[int] = None, **training):
    """A ``PPOConfig`` for self-play on ``game`` with one module shared by every seat.

    Args:
        game: a name of :data:`dice_envs.all_environments` (``"liars_dice_v1"``...).
        env_config: the game's arguments (and ``observation``; see :class:`DiceMultiAgentEnv`).
        num_env_runners: remote env runners (0: sample in the driver).
        envs_per_runner: games each env runner steps together, its module called once for all
            (16 sampled 7.8x faster than 1 here: 577 against 74 agent steps/s on a loaded machine).
        hidden: the MLP's hidden layers.
        seed: seeds the env runners and the module.
        training: ``PPOConfig.training`` arguments (``lr``, ``train_batch_size_per_learner``, ...).
    """
    _require_ray()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    env_config = {"game": game, **(env_config or {})}
    # a bad configuration fails here, with its ValueError, not in a remote worker
    check_environment(DiceMultiAgentEnv(env_config))
    config = (
        PPOConfig()
        .environment(DiceMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .multi_agent(policies={SHARED}, policy_mapping_fn=_to_shared)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED: module_spec(hidden)}))
        # a loaded machine can take minutes for a batch: wait for it rather than train on nothing
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_runner,
                     sample_timeout_s=600.0)
        .debugging(seed=seed)
    )
    if training:
        config = config.training(**training)
    return config


def check_environment(env: DiceMultiAgentEnv, seed: int = 0) -> None:
    """RLlib's checks of a multi-agent environment, stepped with a legal move: ``reset`` and
    ``step`` return dicts keyed by agents, every observation lies in its agent's space, and the
    move ends no game as illegal.  (RLlib's ``check_multiagent_environments`` samples the
    move from the whole action space instead.)

    Raises:
        ValueError: naming what does not hold.
    """
    observations, _ = env.reset(seed=seed)
    for _ in range(2):
        for agent, observation in observations.items():
            if not env.get_observation_space(agent).contains(observation):
                raise ValueError(f"{agent}'s observation is outside its space: {observation}")
        if not observations:
            return
        mover = env.env.agent_selection
        if mover not in observations:
            raise ValueError(f"the agent to move, {mover}, has no observation (got {sorted(observations)})")
        legal = np.flatnonzero(observations[mover]["action_mask"])
        observations, rewards, terminateds, truncateds, _ = env.step({mover: int(legal[0])})
        for name, part in (("rewards", rewards), ("terminateds", terminateds), ("truncateds", truncateds)):
            if not isinstance(part, dict):
                raise ValueError(f"step returned {name} that is not a dict: {part!r}")
        if terminateds.get("__all__") and not env.env.unwrapped.game_state.is_terminal():
            raise ValueError(f"a legal move by {mover} ended the game as illegal")


def _to_shared(agent_id, episode, **kwargs):
    return SHARED
