"""One PettingZoo AEC adapter for every rules core in ``dice_envs``.

:class:`RulesCoreEnv` turns a :class:`dice_envs.core.Game` into a PettingZoo
``AECEnv``: chance nodes are resolved with the environment's ``np_random`` (so
``reset(seed=...)`` makes a run reproducible), observations are
``{"observation": float32 vector, "action_mask": int8 vector}``, and the payoff
of each seat is paid as the reward on the step that ends the game.

Each game module (``zombie_dice_v0`` and so on) subclasses it only to build its
``Game`` from keyword arguments and to carry its documentation; :func:`wrap_env`
adds PettingZoo's standard wrappers.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers import BaseWrapper

from dice_envs.core.game import Game, GameState, IllegalActionError
from dice_envs.core.validation import as_action, check_choice, check_optional_int
from dice_envs.envs.rendering import RENDER_FPS, TablePainter, check_available
from dice_envs.registry import GAMES

#: Every environment's render modes (``rgb_array`` needs matplotlib).
RENDER_MODES = ["human", "ansi", "rgb_array"]
#: ``observation="dict"``: ``{"observation", "action_mask"}`` (PettingZoo's classic games'); ``"flat"``:
#: the vector alone, a ``Box`` (for SuperSuit's observation wrappers), the mask in ``infos``
OBSERVATION_FORMATS = ("dict", "flat")


def check_render_mode(render_mode, modes) -> None:
    """``ValueError`` for a render mode not in ``modes`` (None is always fine); Gymnasium's
    ``DependencyNotInstalled`` for ``rgb_array`` without matplotlib."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
    if render_mode == "rgb_array":
        check_available()


def wrap_env(raw):
    """PettingZoo's standard wrappers, as the classic environments use them.

    An illegal action ends the game with reward -1 for the offender
    (``TerminateIllegalWrapper``) instead of raising.  An action outside the action
    space raises :class:`~dice_envs.core.IllegalActionError` (the job of
    PettingZoo's ``AssertOutOfBoundsWrapper``, done here without its per-step cost).
    """
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = ActionSpaceCheckWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


class ActionSpaceCheckWrapper(BaseWrapper):
    """Rejects actions outside ``Discrete(n)`` (and ``None`` for a live agent) with a clear error."""

    def __init__(self, env):
        super().__init__(env)
        self._raw = env.unwrapped
        self._n = self._raw.game.num_actions

    def step(self, action):
        raw = self._raw
        if action is None:
            agent = raw.agent_selection
            if not (raw.terminations[agent] or raw.truncations[agent]):
                raise IllegalActionError(f"{agent}: action None is only for agents whose game is over")
        elif as_action(action) is None or not 0 <= as_action(action) < self._n:
            raise IllegalActionError(f"action {action!r} is not in the action space Discrete({self._n})")
        self.env.step(action)


class RulesCoreEnv(AECEnv):
    """AEC environment over a rules core.

    Args:
        game: the configured :class:`~dice_envs.core.Game`.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text),
            ``"human"`` (printed after every step) or ``"rgb_array"`` (``render()``
            returns a picture of the table, :mod:`dice_envs.envs.rendering`; needs matplotlib).
            ``painter.items`` lists what the last picture shows.  Every mode shows the table
            from the seat of the player to move (:meth:`viewer`): the text and the picture,
            its log of the latest events included, hide what that player may not see.
        max_cycles: optional limit on the number of player decisions; when hit, all
            agents are truncated with reward 0.  ``None`` means no limit.
        observation: ``"dict"`` (``{"observation", "action_mask"}``, as PettingZoo's classic
            games) or ``"flat"``: the observation vector alone, a ``Box`` that SuperSuit's
            observation wrappers (``dtype_v0``, ``normalize_obs_v0``, ``frame_stack_v1``) take,
            with the mask in ``infos[agent]["action_mask"]``.
    """

    metadata: Dict[str, Any] = {"render_modes": RENDER_MODES, "name": "rules_core", "is_parallelizable": False,
                                "render_fps": RENDER_FPS}

    def __init__(self, game: Game, render_mode: Optional[str] = None, max_cycles: Optional[int] = None,
                 observation: str = "dict"):
        super().__init__()
        check_render_mode(render_mode, self.metadata["render_modes"])
        max_cycles = check_optional_int("max_cycles (None or a number of decisions)", max_cycles, 1)
        self.flat = check_choice("observation", observation, OBSERVATION_FORMATS) == "flat"
        self.game = game
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = game.observation_bounds()
        vector = spaces.Box(low=low, high=high, dtype=np.float32)
        self._observation_space = vector if self.flat else spaces.Dict(
            {
                "observation": vector,
                "action_mask": spaces.Box(low=0, high=1, shape=(game.num_actions,), dtype=np.int8),
            }
        )
        self._action_space: spaces.Discrete[np.int64] = spaces.Discrete(game.num_actions)
        self.observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self.action_spaces = {a: self._action_space for a in self.possible_agents}
        self.state_: Optional[GameState] = None
        self._np_random, _ = seeding.np_random(None)
        #: ``(state, action or chance outcome)`` of the moves since the last render, written at the
        #: next render as its events, from the seat that frame is drawn for (see :meth:`render`).
        self.log: list = []
        #: ``(state, action or chance outcome)`` of every move of the game, kept for the pictures
        #: (``render_mode="rgb_array"``), which show the last roll or the last round's reveal.
        self.moves: list = []
        #: The :class:`~dice_envs.envs.rendering.TablePainter` of the pictures (made by the first one).
        self.painter: Optional[TablePainter] = None

    # -- PettingZoo API -------------------------------------------------------------

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, dict] = {a: {} for a in self.agents}
        self.num_moves = 0
        self.log = []
        self.moves = []
        self.state_ = self._resolve_chance(self.game.new_initial_state())
        self._select_next()
        self._masks_to_infos()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        """The agent's observation and action mask (``observation="flat"``: the vector alone, the mask
        in ``infos[agent]["action_mask"]``)."""
        vector = self.state_.observation(self.agent_name_mapping[agent])
        return vector if self.flat else {"observation": vector, "action_mask": self.action_mask(agent)}

    def action_mask(self, agent) -> np.ndarray:
        """The agent's legal actions on its turn, none on another's, and all of them once it is done
        (terminated or truncated: its only step is ``None``, which ignores the mask; a sampler over
        masks, as TorchRL's ``PettingZooWrapper`` uses after the last step, needs one that is not
        empty)."""
        if self.terminations.get(agent) or self.truncations.get(agent):
            return np.ones(self.game.num_actions, dtype=np.int8)
        assert self.state_ is not None  # set by reset(), which made self.terminations
        if self.state_.current_player == self.agent_name_mapping[agent]:
            return self.state_.action_mask()
        return np.zeros(self.game.num_actions, dtype=np.int8)

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        state = self.state_
        try:
            action = state.check_action(action)
        except IllegalActionError as err:
            raise IllegalActionError(f"{agent}: {err}") from None
        self._cumulative_rewards[agent] = 0
        if self.render_mode is not None:
            self.log.append((state, action))
            if self.render_mode == "rgb_array":
                self.moves.append((state, action))
        self.state_ = self._resolve_chance(state.apply(action))
        self.num_moves += 1
        self.rewards = {a: 0 for a in self.agents}
        if self.state_.is_terminal():
            returns = self.state_.returns()
            for a in self.agents:
                self.rewards[a] = returns[self.agent_name_mapping[a]]
                self.terminations[a] = True
        elif self.max_cycles is not None and self.num_moves >= self.max_cycles:
            self.truncations = {a: True for a in self.agents}
        self._select_next()
        self._masks_to_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        viewer = self.viewer()
        events = [state.describe_outcome(move, viewer) if state.is_chance_node()
                  else state.describe_action(move, viewer) for state, move in self.log[-6:]]
        self.log.clear()
        if self.render_mode == "rgb_array":
            if self.painter is None:
                self.painter = TablePainter()
            return self.painter.frame(self.game, self.state_, self.possible_agents, self.moves, events,
                                      self.game_title(), self._status())
        text = "\n".join(events + [self.state_.describe(viewer)])
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def viewer(self) -> Optional[int]:
        """The seat every render is made for: the player to move, as at a hot-seat table (``None``, the
        whole table, once the game is over and everything is face up)."""
        state = self.state_
        assert state is not None  # rendered after reset()
        return None if state.is_terminal() else state.current_player

    def game_title(self) -> str:
        """The game's name for pictures: its registry entry's title (found by the environment's name
        without its version)."""
        name = self.metadata.get("name", self.game.name).rsplit("_v", 1)[0]
        entry = GAMES.get(name)
        return entry.title if entry is not None else name.replace("_", " ").title()

    def _status(self) -> str:
        state = self.state_
        assert state is not None  # rendered after reset()
        if state.is_terminal():
            return "game over: " + ", ".join(f"{a} {r:+g}" for a, r in zip(self.possible_agents, state.returns()))
        return f"{self.possible_agents[state.current_player]} to move"

    def close(self):
        self.painter = None  # its matplotlib figure goes with it

    # -- helpers --------------------------------------------------------------------

    @property
    def np_random(self) -> np.random.Generator:
        return self._np_random

    @property
    def game_state(self) -> GameState:
        """The current rules-core state (immutable; safe to hand to a solver or policy).  It is None
        before the first :meth:`reset`, which the annotation leaves out: a game is played after a reset."""
        return self.state_  # type: ignore[return-value]

    def _resolve_chance(self, state: GameState) -> GameState:
        while state.is_chance_node():
            outcome = state.sample_chance(self._np_random)
            if self.render_mode is not None:
                self.log.append((state, outcome))
                if self.render_mode == "rgb_array":
                    self.moves.append((state, outcome))
            state = state.apply(outcome)
        return state

    def _masks_to_infos(self):
        if self.flat:  # the mask is not in the observation: PettingZoo's other place for it
            for agent in self.agents:
                self.infos[agent]["action_mask"] = self.action_mask(agent)

    def _select_next(self):
        state = self.state_
        if state.is_terminal():
            # Keep pointing at a live agent so the dead-step cycle visits everyone.
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
            return
        self.agent_selection = self.possible_agents[state.current_player]
