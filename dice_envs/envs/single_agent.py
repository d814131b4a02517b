"""Single-agent Gymnasium views of the AEC environments, for Stable-Baselines3 / sb3-contrib.

Two ways to train one network on a multi-player game:

* :class:`SingleAgentEnv` (the recommended one): one seat is the learning agent and
  every other seat is played by a fixed *opponent*; the opponents move inside
  ``step`` until it is the agent's turn again or the game is over.  It is a plain
  ``gymnasium.Env`` with a ``Box`` observation and ``action_masks()`` for
  sb3-contrib's ``MaskablePPO``, so ``gymnasium.utils.env_checker.check_env``
  passes.  It is generic over every :class:`~dice_envs.envs.aec.RulesCoreEnv` game.

* :class:`SB3ActionMaskWrapper`: PettingZoo's SB3 action-mask pattern (the
  "SB3: Action Masked PPO for Connect Four" tutorial): the AEC environment itself
  looks like a Gymnasium env whose observation is that of the agent to move, so
  one network plays every seat (self-play by parameter sharing)::

      from sb3_contrib import MaskablePPO
      from sb3_contrib.common.wrappers import ActionMasker
      from dice_envs import zombie_dice_v0
      from dice_envs.envs.single_agent import SB3ActionMaskWrapper

      env = SB3ActionMaskWrapper(zombie_dice_v0.env(variant="all_yellow"))
      env = ActionMasker(env, lambda e: e.action_mask())
      MaskablePPO("MlpPolicy", env).learn(10_000)

  Unlike the tutorial, the reward returned by ``step`` is the one earned by the
  player who just acted (the tutorial returns the next player's), so a win is
  credited to the winning move.  The transitions still cross from one seat to the
  other, so PPO's advantage estimates mix the two players' points of view: the
  pattern is fine for a quick start, and :class:`SingleAgentEnv` is the sound way.

Opponents are callables ``opponent(state) -> action`` over the rules-core state
(:mod:`dice_envs.core`); if an opponent has a ``reset(rng)`` method it is called at
the start of every episode with the environment's ``np_random``, so seeded
environments give seeded opponents.
"""

from __future__ import annotations

from typing import Callable, Dict, Mapping, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from dice_envs.core.game import GameState, IllegalActionError
from dice_envs.core.validation import check_bool, check_choice, check_optional_int
from dice_envs.envs.aec import RENDER_MODES, RulesCoreEnv, check_render_mode
from dice_envs.envs.rendering import RENDER_FPS

Opponent = Callable[[GameState], int]
ObservationFn = Callable[[GameState, int], np.ndarray]


class SingleAgentEnv(gymnasium.Env):
    """One seat of a :class:`~dice_envs.envs.aec.RulesCoreEnv` game against fixed opponents.

    Args:
        aec: the (raw) AEC environment; its rules core and chance handling are used.
        opponents: one callable for every other seat, or a ``{seat: callable}`` dict
            covering them.
        seat: the learning agent's seat, or ``None`` (default) to draw it uniformly at
            every reset (``info["seat"]`` says which).
        observation_fn: ``(state, seat) -> float32 vector``; default the AEC
            observation vector (``state.observation(seat)``).
        observation_space: the Box of ``observation_fn`` (needed with it).
        auto_forced: play a decision with a single legal action for the agent
            automatically (it never sees forced moves).
        illegal_action: ``"terminate"`` (default; PettingZoo's
            ``TerminateIllegalWrapper`` convention): an illegal action ends the
            episode with reward -1 and ``info["illegal_action"] = True``;
            ``"raise"``: raise :class:`~dice_envs.core.IllegalActionError` naming
            the legal actions.
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``, as the AEC environment.

    Rewards are the agent's payoff when the game ends (0 before).  ``info`` holds
    ``"action_mask"`` and ``"seat"``.

    A game the opponents finish before the agent's first decision is dealt again at
    :meth:`reset` (an episode needs a decision), so episodes are games *in which the agent
    gets to move*.  Where that is not every game (a later seat at a small goal: Pig to 10, a
    hold-at-4 agent seated second against the optimal policy wins 0.269 of its episodes, but
    0.108 of the games), an average over episodes is not the seat's win probability; the
    exact scorers (``dice-envs evaluate``) give the latter.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}

    def __init__(
        self,
        aec: RulesCoreEnv,
        opponents: Union[Opponent, Mapping[int, Opponent]],
        seat: Optional[int] = None,
        observation_fn: Optional[ObservationFn] = None,
        observation_space: Optional[spaces.Box] = None,
        auto_forced: bool = False,
        render_mode: Optional[str] = None,
        illegal_action: str = "terminate",
    ):
        self.illegal_action = check_choice("illegal_action", illegal_action, ("terminate", "raise"))
        if not isinstance(aec, RulesCoreEnv):
            raise ValueError(f"aec must be a RulesCoreEnv (a raw_env), got {type(aec).__name__}")
        n = aec.game.num_players
        seat = check_optional_int("seat (None or a seat)", seat, 0, n - 1)
        if isinstance(opponents, Mapping):
            missing = [s for s in range(n) if s not in opponents and s != seat]
            if seat is None or missing:
                raise ValueError(
                    "opponents as a dict needs a fixed seat and a callable for every other seat "
                    f"(missing {missing})"
                )
            self._opponents: Dict[int, Opponent] = dict(opponents)
        elif callable(opponents):
            self._opponents = {s: opponents for s in range(n)}
        else:
            raise ValueError(f"opponents must be a callable or a dict of callables, got {opponents!r}")
        if (observation_fn is None) != (observation_space is None):
            raise ValueError("observation_fn and observation_space go together")
        check_render_mode(render_mode, self.metadata["render_modes"])
        aec.render_mode = render_mode
        self.aec = aec
        self.game = aec.game
        self._illegal = False
        self.fixed_seat = seat
        self.seat = 0 if seat is None else int(seat)
        self.auto_forced = check_bool("auto_forced", auto_forced)
        self.render_mode = render_mode
        self._observation_fn = observation_fn or (lambda state, s: state.observation(s))
        self.observation_space = observation_space or aec.observation_space(aec.possible_agents[0])["observation"]
        self.action_space = spaces.Discrete(self.game.num_actions)

    # -- Gymnasium API ----------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        rng = self.np_random
        while True:
            self.seat = int(rng.integers(self.game.num_players)) if self.fixed_seat is None else self.fixed_seat
            for opponent in {id(o): o for o in self._opponents.values()}.values():
                if hasattr(opponent, "reset"):
                    opponent.reset(rng)
            self._illegal = False
            self.aec.reset(seed=int(rng.integers(2**63)))
            self._advance()
            if not self._over():  # a game decided before the agent's first move is dealt again
                return self._observation(), self._info()

    def step(self, action):
        aec = self.aec
        if self._over():
            raise RuntimeError("step() called after the episode ended; call reset()")
        state = aec.game_state
        try:
            action = state.check_action(action)
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise IllegalActionError(f"seat {self.seat}: {err}") from None
            self._illegal = True
            info = {"action_mask": np.zeros(self.game.num_actions, np.int8), "seat": self.seat,
                    "illegal_action": True}
            return self._observation(), -1.0, True, False, info
        aec.step(action)
        self._advance()
        me = aec.possible_agents[self.seat]
        terminated = bool(aec.terminations[me])
        truncated = bool(aec.truncations[me]) and not terminated
        reward = float(aec.rewards[me]) if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the agent (bool), as sb3-contrib's ``MaskablePPO`` asks."""
        state = self.aec.game_state
        if self._over() or state.current_player != self.seat:
            return np.ones(self.game.num_actions, dtype=bool)  # after the end: anything (never used)
        return state.action_mask().astype(bool)

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()

    @property
    def game_state(self) -> GameState:
        return self.aec.game_state

    # -- helpers ----------------------------------------------------------------------

    def _over(self) -> bool:
        me = self.aec.possible_agents[self.seat]
        return self._illegal or self.aec.terminations[me] or self.aec.truncations[me]

    def _advance(self):
        """Let the opponents (and forced moves) play until the agent must decide."""
        aec = self.aec
        while not self._over():
            state = aec.game_state
            if state.current_player != self.seat:
                aec.step(self._opponents[state.current_player](state))
            elif self.auto_forced and len(state.legal_actions()) == 1:
                aec.step(state.legal_actions()[0])
            else:
                return

    def _observation(self) -> np.ndarray:
        return np.asarray(self._observation_fn(self.aec.game_state, self.seat), dtype=np.float32)

    def _info(self) -> dict:
        return {"action_mask": self.action_masks().astype(np.int8), "seat": self.seat}


class SB3ActionMaskWrapper(gymnasium.Env):
    """PettingZoo's SB3 action-mask pattern: an AEC env as a Gymnasium env for one shared network.

    ``reset``/``step`` return the observation of the agent to move (without the
    mask); ``action_mask()`` gives its legal actions; the reward of ``step`` is the
    payoff of the agent that just acted; the episode ends with the game.  See the
    module docstring for the caveat.

    Args:
        env: a PettingZoo AEC environment with ``{"observation", "action_mask"}``
            observations and the same spaces for every agent.
    """

    metadata = {"render_modes": []}

    def __init__(self, env):
        self.env = env
        first = env.possible_agents[0]
        self.observation_space = env.observation_space(first)["observation"]
        self.action_space = env.action_space(first)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self.env.reset(seed=seed, options=options)
        return self._observe(), {}

    def step(self, action):
        env = self.env
        mover = env.agent_selection
        if isinstance(action, np.ndarray) and action.size == 1:  # SB3 may hand over a one-element array
            action = action.reshape(())
        env.step(action)  # the env refuses a float, bool or string with IllegalActionError
        reward = float(env.rewards.get(mover, 0.0))
        done = all(env.terminations.values())
        truncated = not done and all(env.truncations.values())
        return self._observe(), reward, done, truncated, {}

    def action_mask(self) -> np.ndarray:
        obs = self.env.observe(self.env.agent_selection)
        return np.asarray(obs["action_mask"], dtype=bool)

    def _observe(self):
        return np.asarray(self.env.observe(self.env.agent_selection)["observation"], dtype=np.float32)
