"""MaskablePPO self-play on Pig, scored exactly against optimal play: the game's part of
:mod:`dice_envs.agents.learn.jeopardy`'s training loop, and the ``maskable-ppo`` learner of
``dice-envs train pig``.

The agent plays the batched ``dice_envs/Pig-v0`` (:class:`dice_envs.agents.pig.gym.PigVectorEnv`)
with the Fourier observation (scores and turn total divided by the goal, with sines and cosines
of them, :meth:`dice_envs.games.pig.rules.PigGame.fourier_observation`; ``observation = "scaled"``
leaves the waves out), against a self-play pool (default) or a fixed opponent: ``optimal``,
``hold_at_N``, ``random`` or a saved model (``.zip``).  Every ``eval_every`` steps its greedy
policy is evaluated exactly against Neller and Presser's optimal policy from both seats: the
"Difference" of the Zombie Dice paper (:func:`dice_envs.agents.pig.learned.exact_score`), with the
hold-at-20 and hold-at-25 rules' Differences as references (``reached``).

Its defaults differ from the shared loop's in the observation (Fourier) and in GAE's lambda
(0.9, not 0.5): both are the settings of the best recorded result (the ``maskable-ppo`` preset of
``presets.toml``).  The loop, the self-play pool, the checkpoints and the outputs are
:mod:`dice_envs.agents.learn.jeopardy`'s.

Run: ``dice-envs train pig`` (the ``[train]`` extra).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dice_envs.agents.learn.jeopardy import TableSpec, TrainArgs, check_options
from dice_envs.agents.learn.jeopardy import main as train_main
from dice_envs.agents.learn.jeopardy import train as train_game
from dice_envs.agents.learn.presets import Learner
from dice_envs.core.resources import check_resources
from dice_envs.core.validation import check_int

#: the observations a Pig agent can be trained on (the first is the default)
OBSERVATIONS = ("fourier", "scaled")


@dataclass
class Args(TrainArgs):
    run_dir: str = "runs/pig"
    goal: int = 100  # points to win
    observation: str = "fourier"  # fourier or scaled (dice_envs/Pig-v0's observation)
    gae_lambda: float = 0.9  # GAE's lambda


#: Bytes per position of the grid when a network's policy is read off it for its exact score: the
#: position's coordinates (int64), its observation (float32) and its roll probability and table
#: entry (float64).
POLICY_TABLE_BYTES = 4 * 8 + 2 * 8


def check_exact_score_size(goal: int, observation: str) -> None:
    """Refuse a ``--goal`` whose exact score (the network's policy read off the whole grid, then
    played against the optimum's on the solver's grid) exceeds the memory or time limit, before
    training starts."""
    from dice_envs.agents.solve.jeopardy import check_grid
    from dice_envs.games.pig.rules import PigGame

    M = goal + 1
    inputs = PigGame(goal).encoded_bounds(observation)[1].size
    check_resources(f"--goal {goal}: the exact score reads the network's policy in {M ** 3:,} positions",
                    M ** 3 * (POLICY_TABLE_BYTES + 4 * inputs))
    check_grid(2, M, M)  # what the exact score's solve checks


class PigSpec(TableSpec):
    """Pig (fair d6) for :func:`dice_envs.agents.learn.jeopardy.train`."""

    name = "pig"

    def check_args(self, args) -> None:
        if args.observation not in OBSERVATIONS:
            raise ValueError(f"--observation must be one of {list(OBSERVATIONS)}, got {args.observation!r}")
        check_int("--goal", args.goal, 1)
        check_exact_score_size(args.goal, args.observation)

    def make_vector_env(self, args, opponent):
        from dice_envs.agents.pig.gym import PigVectorEnv

        return PigVectorEnv(args.n_envs, opponent=opponent, goal=args.goal, observation=args.observation,
                            auto_forced=True, illegal_action="raise")

    def probability_table(self, policy_net, args) -> np.ndarray:
        """The ``(M, M, M)`` roll probabilities of the solver's grid ``(i, j, k)`` (one batched pass)."""
        from dice_envs.agents.pig import solver as pig_solver
        from dice_envs.agents.pig.learned import ModelPolicy
        from dice_envs.games.pig.rules import PigGame

        return pig_solver.policy_table(ModelPolicy(policy_net, PigGame(args.goal), greedy=False), args.goal)

    def evaluate(self, table: np.ndarray, args) -> dict:
        """Exact score of the greedy policy of a table."""
        from dice_envs.agents.learn.jeopardy_learned import greedy_table
        from dice_envs.agents.pig.learned import exact_score

        greedy = greedy_table(table)

        def learned(i, j, k):
            return greedy[i, j, k]

        return exact_score(learned, args.goal)

    def table_index(self, view, top):
        return tuple(np.minimum(x, top) for x in view)

    def turn_table(self, args):
        from dice_envs.agents.pig.opponents import whole_turns
        from dice_envs.games.pig.rules import PigGame

        return whole_turns(None, None, PigGame(args.goal)).table

    def whole_turns(self, table: np.ndarray, game):
        """The roll-probability table playing whole turns (:func:`dice_envs.agents.pig.opponents.whole_turns`)."""
        from dice_envs.agents.evaluate.jeopardy_agents import BatchedPolicyAgent
        from dice_envs.agents.pig.opponents import whole_turns
        from dice_envs.agents.pig.solver import table_policy

        policy = table_policy(table, "pool")
        return whole_turns(BatchedPolicyAgent(policy), policy, game)

    def model_info(self, args) -> dict:
        return {"game": self.name, "observation": args.observation, "goal": args.goal}

    def plot_title(self, args) -> str:
        return f"MaskablePPO on Pig, goal {args.goal} ({args.opponent})"


def check(args: Args) -> Args:
    """The options checked (``ValueError`` naming a bad one)."""
    return check_options(args, PigSpec())


def train(args: Args) -> dict:
    """Train (or resume) as :func:`dice_envs.agents.learn.jeopardy.train` does."""
    return train_game(PigSpec(), args)


#: The learners of ``dice-envs train pig``.
LEARNERS = {"maskable-ppo": Learner("maskable-ppo", "MaskablePPO self-play, scored exactly", Args, check, train)}


def main(argv=None) -> int:
    """The trainer with its options as flags and no preset (``experiments/train_pig.py``):
    :func:`dice_envs.agents.learn.jeopardy.main`."""
    return train_main(PigSpec(), Args, __doc__.splitlines()[0], argv)
