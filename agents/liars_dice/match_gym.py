"""
# Liar's Dice, the whole game (single agent)

| Import             | `gymnasium.make("dice_envs/LiarsDiceMatch-v1", opponent="equilibrium")` (after `import dice_envs`) |
|--------------------|-----------------------------------------------------------------|
| Action Space       | Discrete(D * F + 1): bids, then call (as :mod:`dice_envs.liars_dice_match_v0`) |
| Observation Space  | Box `(n + F + D * F + 1 + n,)`: the AEC observation of the agent's seat |
| Action mask        | `env.unwrapped.action_masks()` (sb3-contrib finds it), also `info["action_mask"]`   |
| Opponents          | `"equilibrium"` (two players), `"random"`, a policy over states  |
| Batched            | `gymnasium.make_vec("dice_envs/LiarsDiceMatch-v1", num_envs=N, vectorization_mode="vector_entry_point")` |

### Description

The whole game of :mod:`dice_envs.liars_dice_match_v0` seen from one seat, the other played
inside :meth:`step` by a fixed opponent.  ``"equilibrium"`` plays, in every round, the CFR+
equilibrium of that round game, which together are an equilibrium of the whole game
(:func:`dice_envs.agents.liars_dice.match_solver.solve_match`): no agent averages more than
the whole game's value for its seat against it.

The default game, two three-sided dice each with aces wild, is symmetric, has rounds of two
against two dice, two against one and one against one, and is small enough that every round's
equilibrium ships with the package: the first ``gymnasium.make`` loads it instead of solving.
Other games are solved once per round (CFR+, to ``exploitability``) and cached: seconds to
minutes up to three dice in play, with six faces (two against one: minutes); two six-sided dice
each takes 8-56 minutes to ``exploitability=1e-3`` (the compiled solver, 10.5 GiB:
``DICE_ENVS_MAX_MEMORY=12G``), so solve it first (``dice-envs solve liars-dice-match --dice 2
--wild aces --exploitability 1e-3``) and pass the same ``exploitability``.

### Rewards

+1 if the agent is the last player with dice, -1 if not, on the last step.

### Arguments

``` python
gymnasium.make("dice_envs/LiarsDiceMatch-v1", opponent="equilibrium", dice_per_player=2, faces=3,
               wild="aces", starting_player=0, next_starter="loser", seat=None, exploitability=1e-4,
               render_mode=None, illegal_action="terminate")
```

### Version History

* v1: the default game is two three-sided dice each (symmetric, and its equilibrium ships with
  the package).
* v0: initial release: the default game is two six-sided dice against one (the 2v1 round's
  equilibrium is solved on first use: minutes); kept as `dice_envs/LiarsDiceMatch-v0`
  (:class:`LiarsDiceMatchV0Env`, :class:`LiarsDiceMatchV0VectorEnv`) for the models trained on it.
"""

from __future__ import annotations

from typing import Optional

from dice_envs.envs.single_agent import Opponent, SingleAgentEnv
from dice_envs.envs.vector import BatchedSingleAgentEnv, random_opponent
from dice_envs.games.liars_dice.match import LiarsDiceMatchGame
from dice_envs.games.liars_dice.match_batched import LiarsDiceMatchBatch
from dice_envs.games.liars_dice.match_env import raw_env

__all__ = ["LiarsDiceMatchEnv", "LiarsDiceMatchVectorEnv", "LiarsDiceMatchV0Env", "LiarsDiceMatchV0VectorEnv"]


class LiarsDiceMatchEnv(SingleAgentEnv):
    """The whole game of Liar's Dice from one seat against a fixed opponent (see the module docstring)."""

    def __init__(
        self,
        opponent="equilibrium",
        dice_per_player=2,
        faces: int = 3,
        wild="aces",
        starting_player: int = 0,
        next_starter: str = "loser",
        seat: Optional[int] = None,
        exploitability: float = 1e-4,
        render_mode: Optional[str] = None,
        illegal_action: str = "terminate",
    ):
        aec = raw_env(num_players=2, dice_per_player=dice_per_player, faces=faces, wild=wild,
                      starting_player=starting_player, next_starter=next_starter)
        from dice_envs.agents.evaluate.opponents import PolicyOpponent, RandomOpponent  # agents depend on dice_envs

        self.opponent: Opponent
        if isinstance(opponent, str) and opponent == "random":
            self.opponent = RandomOpponent()
        elif isinstance(opponent, str) and opponent == "equilibrium":
            from dice_envs.agents.liars_dice.match_solver import solve_match

            self.opponent = PolicyOpponent(solve_match(aec.game, exploitability).policy())
        elif hasattr(opponent, "action_probabilities"):
            self.opponent = PolicyOpponent(opponent)
        elif callable(opponent):
            self.opponent = opponent
        else:
            raise ValueError("opponent must be 'equilibrium', 'random', a policy with action_probabilities(state) "
                             f"or a callable over states, got {opponent!r}")
        super().__init__(aec, self.opponent, seat=seat, render_mode=render_mode, illegal_action=illegal_action)


class LiarsDiceMatchVectorEnv(BatchedSingleAgentEnv):
    """``num_envs`` games of :class:`LiarsDiceMatchEnv` in one array program
    (:class:`dice_envs.games.liars_dice.match_batched.LiarsDiceMatchBatch`); the opponent moves
    inside the batch (``"equilibrium"``: a table look-up of each round's CFR+ policy,
    :class:`dice_envs.agents.liars_dice.match_solver.BatchedMatchPolicy`; ``"random"``)."""

    def __init__(
        self,
        num_envs: int,
        opponent="equilibrium",
        dice_per_player=2,
        faces: int = 3,
        wild="aces",
        starting_player: int = 0,
        next_starter: str = "loser",
        seat: Optional[int] = None,
        exploitability: float = 1e-4,
        render_mode: Optional[str] = None,
        illegal_action: str = "terminate",
    ):
        if render_mode is not None:
            raise ValueError(f"the batched whole game does not render; render_mode must be None, got {render_mode!r}")
        game = LiarsDiceMatchGame(2, dice_per_player, faces, wild, starting_player, next_starter)
        if isinstance(opponent, str) and opponent == "random":
            batched = random_opponent
        elif isinstance(opponent, str) and opponent == "equilibrium":
            from dice_envs.agents.liars_dice.match_solver import BatchedMatchPolicy, solve_match

            batched = BatchedMatchPolicy(solve_match(game, exploitability).policy())
        elif getattr(opponent, "batched", False):
            batched = opponent
        else:
            raise ValueError(f"the batched whole game takes opponent 'equilibrium', 'random' or a batched opponent, "
                             f"got {opponent!r}")
        super().__init__(LiarsDiceMatchBatch(num_envs, game=game), batched, seat=seat, illegal_action=illegal_action)


class LiarsDiceMatchV0Env(LiarsDiceMatchEnv):
    """``dice_envs/LiarsDiceMatch-v0``: :class:`LiarsDiceMatchEnv` with version 0's default game, two
    six-sided dice against one (arguments given explicitly are the same in both versions)."""

    def __init__(self, opponent="equilibrium", dice_per_player=(2, 1), faces: int = 6, **kwargs):
        super().__init__(opponent, dice_per_player, faces, **kwargs)


class LiarsDiceMatchV0VectorEnv(LiarsDiceMatchVectorEnv):
    """The batched ``dice_envs/LiarsDiceMatch-v0``: :class:`LiarsDiceMatchVectorEnv` with version 0's
    default game, two six-sided dice against one."""

    def __init__(self, num_envs: int, opponent="equilibrium", dice_per_player=(2, 1), faces: int = 6, **kwargs):
        super().__init__(num_envs, opponent, dice_per_player, faces, **kwargs)
