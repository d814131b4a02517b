"""Train MaskablePPO on Pig and score it EXACTLY against optimal play.

The agent plays the batched ``dice_envs/Pig-v0`` (:class:`dice_envs.agents.pig.gym.PigVectorEnv`)
with the Fourier observation (scores and turn total divided by the goal, with sines and
cosines of them, :meth:`dice_envs.games.pig.rules.PigGame.fourier_observation`; ``--observation scaled``
leaves the waves out), against a
self-play pool (default) or a fixed opponent: ``optimal``, ``hold_at_N``, ``random`` or
a saved model (``.zip``).  Every ``--eval-every`` steps its greedy policy is evaluated
exactly against Neller and Presser's optimal policy from both seats: the "Difference"
of the Zombie Dice paper (:func:`dice_envs.agents.pig.learned.exact_score`), beside the
hold-at-20 rule's -0.0798 and hold-at-25's -0.0421 (``reached``).

The loop, the self-play pool, the checkpoints and the outputs (``--run-dir``, default
``runs/pig``: ``tb/``, ``checkpoint/``, ``model.zip``, ``difference.png``,
``curve.json``) are shared with ``train_ayzd.py``: see
:mod:`dice_envs.agents.learn.jeopardy`.

Its defaults differ from the shared loop's in the observation and in GAE's lambda (0.9, not
0.5): on 30 minutes of the 2-core machine, two seeds each, the scaled observation with lambda
0.5 ended at -0.0149 and -0.0133, the Fourier one with lambda 0.5 at -0.0051 and -0.0053, and
with lambda 0.9 at -0.0037 and -0.0042 (``docs/games/pig.md``).

Run: ``.venv/bin/python experiments/train_pig.py --minutes 30`` (needs the ``[train]``
extra).  ``--minutes`` and ``--steps`` are totals over all resumes.  Rerunning the same
command resumes exactly from the checkpoint (or, for a finished run, prints its report
again); which options may change on resume, the checkpoint's format and how damaged ones
are refused: see :mod:`dice_envs.agents.learn.jeopardy`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from dice_envs.agents.learn.jeopardy import TableSpec, TrainArgs
from dice_envs.agents.learn.jeopardy import main as train_main

#: the observations a Pig agent can be trained on (the first is the default)
OBSERVATIONS = ("fourier", "scaled")


@dataclass
class Args(TrainArgs):
    run_dir: str = "runs/pig"
    goal: int = 100  # points to win
    observation: str = "fourier"  # fourier or scaled (dice_envs/Pig-v0's observation)
    gae_lambda: float = 0.9  # GAE's lambda (0.5, the jeopardy loop's default, levels off near -0.005)


class PigSpec(TableSpec):
    """Pig (fair d6) for :func:`dice_envs.agents.learn.jeopardy.train`."""

    name = "pig"

    def check_args(self, args) -> None:
        if args.observation not in OBSERVATIONS:
            raise ValueError(f"--observation must be one of {list(OBSERVATIONS)}, got {args.observation!r}")

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


def main(argv=None) -> int:
    return train_main(PigSpec(), Args, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
