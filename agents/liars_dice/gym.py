"""
# Liar's Dice (single agent)

| Import             | `gymnasium.make("dice_envs/LiarsDice-v1", opponent="equilibrium")` (after `import dice_envs`) |
|--------------------|-----------------------------------------------------------------|
| Action Space       | Discrete(Q * F + 1): bids, then call (as :mod:`dice_envs.liars_dice_v1`) |
| Observation Space  | Box `(n + F + Q * F + 1 + n,)`: the AEC observation of the agent's seat |
| Action mask        | `env.unwrapped.action_masks()` (sb3-contrib finds it), also `info["action_mask"]`   |
| Opponents          | `"equilibrium"` (CFR+, two players), `"random"`, a saved model (`.pt`), a policy |
| Batched            | `gymnasium.make_vec("dice_envs/LiarsDice-v1", num_envs=N, vectorization_mode="vector_entry_point")` |

### Description

The Liar's Dice game of :mod:`dice_envs.liars_dice_v1` seen from one seat: the
other seats are played by a chosen opponent inside :meth:`step` (the generic
:class:`dice_envs.envs.single_agent.SingleAgentEnv`).  Against ``"equilibrium"`` no
agent can average more than the game's value for its seat (player 0's is -7/258 with
one wild 6-sided die each); how far an agent falls short, averaged over both seats,
is the ``value_against_equilibrium`` of ``dice-envs evaluate liars-dice --against equilibrium``, and its
exploitability (what a best response to it would win) bounds that shortfall.

### Rewards

+1 if the agent's side of the call wins, -1 if it loses, on the last step.

### Arguments

``` python
gymnasium.make("dice_envs/LiarsDice-v1", opponent="equilibrium", num_players=2, dice_per_player=None,
               faces=None, wild=None, max_quantity=None, starting_player=0, seat=None, exploitability=1e-4,
               render_mode=None, illegal_action="terminate", game=None)
```

``opponent``: see :func:`dice_envs.agents.liars_dice.opponents.make_opponent`.  The game's
arguments are :mod:`dice_envs.liars_dice_v1`'s (``dice_per_player=(1, 2)``, ``wild="aces"``...;
one die each of six faces, no wild face, when not given), ``game`` among them: a named game
(:mod:`dice_envs.games.liars_dice.named`), ``gymnasium.make("dice_envs/LiarsDice-v1", game="LD2D5F")``.  ``seat``:
the agent's seat, or ``None`` to draw it at every reset.  ``exploitability``:
how closely the equilibrium opponent is solved (cached on disk after the first
solve: about a second for one 6-sided die each).  ``illegal_action``:
``"terminate"`` (-1 and the episode ends, PettingZoo's convention) or ``"raise"``.

### Version History

* v1: the observation is :mod:`dice_envs.liars_dice_v1`'s, the dice counts appended.
* v0: initial release (dice_envs 0.1.0): the observation is :mod:`dice_envs.liars_dice_v0`'s
  (seat, own dice, bids, call); kept as `dice_envs/LiarsDice-v0` (:class:`LiarsDiceV0Env`,
  :class:`LiarsDiceV0VectorEnv`) for the models trained on it.
"""

from __future__ import annotations

from typing import Optional

from dice_envs.envs.single_agent import SingleAgentEnv
from dice_envs.envs.vector import BatchedSingleAgentEnv
from dice_envs.games.liars_dice.batched import LiarsDiceBatch
from dice_envs.games.liars_dice.env import observation_space_v0, observation_v0, raw_env, raw_env_v0
from dice_envs.games.liars_dice.named import rules_arguments
from dice_envs.games.liars_dice.rules import LiarsDiceGame

__all__ = ["LiarsDiceEnv", "LiarsDiceVectorEnv", "LiarsDiceV0Env", "LiarsDiceV0VectorEnv"]


class LiarsDiceEnv(SingleAgentEnv):
    """Liar's Dice from one seat against a fixed opponent (see the module docstring)."""

    #: the environment's version: 1 (``dice_envs/LiarsDice-v1``), 0 in :class:`LiarsDiceV0Env`
    version = 1

    def __init__(
        self,
        opponent="equilibrium",
        num_players: int = 2,
        dice_per_player=None,
        faces: Optional[int] = None,
        wild=None,
        max_quantity: Optional[int] = None,
        starting_player: int = 0,
        seat: Optional[int] = None,
        exploitability: float = 1e-4,
        render_mode: Optional[str] = None,
        illegal_action: str = "terminate",
        game: Optional[str] = None,
    ):
        aec = (raw_env_v0 if self.version == 0 else raw_env)(
            num_players=num_players, dice_per_player=dice_per_player, faces=faces, wild=wild,
            max_quantity=max_quantity, starting_player=starting_player, game=game)
        from dice_envs.agents.liars_dice.opponents import make_opponent  # agents depends on dice_envs, not the reverse

        self.opponent = make_opponent(opponent, aec.game, exploitability)
        v0 = self.version == 0
        super().__init__(aec, self.opponent, seat=seat, render_mode=render_mode, illegal_action=illegal_action,
                         observation_fn=observation_v0 if v0 else None,
                         observation_space=observation_space_v0(aec.game) if v0 else None)


class LiarsDiceVectorEnv(BatchedSingleAgentEnv):
    """``num_envs`` games of :class:`LiarsDiceEnv` in one array program
    (:class:`dice_envs.games.liars_dice.batched.LiarsDiceBatch`); the opponent moves inside the
    batch (``"equilibrium"`` is a table look-up of the CFR+ policy, ``"random"`` uniform).
    See :class:`dice_envs.envs.vector.BatchedSingleAgentEnv`."""

    version = 1

    def __init__(
        self,
        num_envs: int,
        opponent="equilibrium",
        num_players: int = 2,
        dice_per_player=None,
        faces: Optional[int] = None,
        wild=None,
        max_quantity: Optional[int] = None,
        starting_player: int = 0,
        seat: Optional[int] = None,
        exploitability: float = 1e-4,
        render_mode: Optional[str] = None,
        illegal_action: str = "terminate",
        game: Optional[str] = None,
    ):
        if render_mode is not None:
            raise ValueError(f"the batched Liar's Dice env does not render; render_mode must be None, got {render_mode!r}")
        rules = rules_arguments(game, dice_per_player=dice_per_player, faces=faces, wild=wild)
        rules_game = LiarsDiceGame(num_players, rules["dice_per_player"], rules["faces"], rules["wild"], max_quantity,
                                   starting_player)
        from dice_envs.agents.liars_dice.opponents import make_batched_opponent  # solvers only for opponents

        v0, size = self.version == 0, rules_game.prefix_size
        super().__init__(LiarsDiceBatch(num_envs, game=rules_game),
                         make_batched_opponent(opponent, rules_game, exploitability),
                         seat=seat, illegal_action=illegal_action,
                         observation_fn=(lambda batch, rows, seats: batch.observe(seats, where=rows)[:, :size]) if v0
                         else None,
                         observation_space=observation_space_v0(rules_game) if v0 else None)


class LiarsDiceV0Env(LiarsDiceEnv):
    """``dice_envs/LiarsDice-v0``: :class:`LiarsDiceEnv` with version 0's observation (seat, own dice,
    bids, call; :func:`dice_envs.games.liars_dice.env.observation_v0`), kept for the models trained on it."""

    version = 0


class LiarsDiceV0VectorEnv(LiarsDiceVectorEnv):
    """The batched ``dice_envs/LiarsDice-v0``: :class:`LiarsDiceVectorEnv` with version 0's observation."""

    version = 0
