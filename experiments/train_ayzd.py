"""Train MaskablePPO on All Yellow Zombie Dice and score it EXACTLY against optimal play.

The agent plays the batched ``dice_envs/ZombieDice-v0``
(:class:`dice_envs.zombie_dice_gym.ZombieDiceVectorEnv`) with the compact observation
(a function of the solver's position ``(p, i, j, b, s)`` only), against a self-play
pool (default) or a fixed opponent: ``optimal``, ``fixed_hold_at``, ``minh``,
``llano``, ``neller``, ``random`` or a saved model (``.zip``).  Every ``--eval-every``
steps its greedy policy is evaluated exactly against the optimal policy from both
seats: the "Difference" of the paper's table
(:func:`dice_envs.agents.zombie_dice_learned.exact_score`), and ``reached`` says which
published human-playable policies' gaps it has closed.

The loop, the self-play pool, the checkpoints and the outputs (``--run-dir``, default
``runs/ayzd``: ``tb/``, ``checkpoint/``, ``model.zip``, ``difference.png``,
``curve.json``) are shared with ``train_pig.py``: see
:mod:`experiments.jeopardy_training`.

Run: ``.venv/bin/python experiments/train_ayzd.py --minutes 30`` (needs the ``[train]``
extra).  ``--minutes`` and ``--steps`` are totals over all resumes.  Rerunning the same
command resumes exactly from the checkpoint (or, for a finished run, prints its report
again); which options may change on resume, the checkpoint's format and how damaged ones
are refused: see :mod:`experiments.jeopardy_training`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from experiments.jeopardy_training import GameSpec, TrainArgs  # noqa: E402
from experiments.jeopardy_training import main as train_main  # noqa: E402


@dataclass
class Args(TrainArgs):
    run_dir: str = "runs/ayzd"
    goal: int = 13


class AYZDSpec(GameSpec):
    """All Yellow Zombie Dice for :func:`experiments.jeopardy_training.train`."""

    name = "all_yellow_zombie_dice"

    def make_vector_env(self, args, opponent):
        from dice_envs.zombie_dice_gym import ZombieDiceVectorEnv

        return ZombieDiceVectorEnv(args.n_envs, opponent=opponent, variant="all_yellow", goal=args.goal,
                                   observation="compact", auto_forced=True, illegal_action="raise")

    def probability_table(self, policy_net, args) -> np.ndarray:
        """The ``(2, M, M, T)`` roll probabilities of the solver's grid (one batched pass)."""
        from dice_envs.agents import zombie_dice_ayzd_solver as ayzd
        from dice_envs.agents.zombie_dice_learned import ModelPolicy
        from dice_envs.agents.zombie_dice_opponents import solved

        return ayzd.policy_table(ModelPolicy(policy_net, args.goal, greedy=False), solved(args.goal).score_cap)

    def evaluate(self, table: np.ndarray, args) -> dict:
        """Exact score of the greedy policy of a table (as ``ModelPolicy(greedy=True)``)."""
        from dice_envs.agents.zombie_dice_learned import exact_score, greedy_table, table_policy

        result = exact_score(table_policy(greedy_table(table), "learned"), args.goal)
        result["references"] = result.pop("published", {})
        return result

    def table_index(self, view, top):
        from dice_envs.zombie_dice import SHOTGUNS_TO_BUST

        p, i, j, b, s = view
        return p - 1, np.minimum(i, top), np.minimum(j, top), 1 + SHOTGUNS_TO_BUST * np.minimum(b, top) + s

    def model_info(self, args) -> dict:
        return {"game": self.name, "observation": "compact", "goal": args.goal}

    def plot_title(self, args) -> str:
        return f"MaskablePPO on AYZD ({args.opponent})"


def main(argv=None) -> int:
    return train_main(AYZDSpec(), Args, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
