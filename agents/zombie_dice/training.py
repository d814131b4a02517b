"""MaskablePPO self-play on Zombie Dice (All Yellow, or the official dice), scored exactly against
optimal play: the game's part of :mod:`dice_envs.agents.learn.jeopardy`'s training loop, and the
``maskable-ppo`` learner of ``dice-envs train ayzd`` and ``dice-envs train zombie-dice``.

``variant="all_yellow"`` (AYZD, ``dice-envs train ayzd``): the agent plays the batched
``dice_envs/ZombieDice-v0`` (:class:`dice_envs.agents.zombie_dice.gym.ZombieDiceVectorEnv`) with
the compact observation (a function of the solver's position ``(p, i, j, b, s)`` only), against a
self-play pool (default) or a fixed opponent: ``optimal``, ``fixed_hold_at``, ``minh``, ``llano``,
``neller``, ``random`` or a saved model (``.zip``).  Every ``eval_every`` steps (default
2,000,000) its greedy policy is evaluated exactly against the optimal policy from both seats: the
"Difference" of the paper's table (:func:`dice_envs.agents.zombie_dice.learned.exact_score`), and
``reached`` says which published human-playable policies' gaps it has closed.  The pool holds
probability tables over the AYZD solver's grid.

``variant="official"`` (``dice-envs train zombie-dice``): the full game (6 green, 4 yellow, 3 red
dice), with the full observation vector of the seat (24 features: scores, round flags, turn brains
and shotguns, the dice by colour): ``observation="fourier"`` (default: each feature divided by
:meth:`dice_envs.games.zombie_dice.rules.ZombieDiceGame.observation_scale`, so all are about 0 to
1, then the sines and cosines of the scores, the turn's brains and the score a hold banks, 64
features: :meth:`dice_envs.games.zombie_dice.rules.ZombieDiceGame.fourier_observation`),
``scaled`` (the divided vector alone) or ``full`` (raw counts).  Opponents: the self-play pool
(default; it holds the networks themselves, run in numpy on the batch's observations, since a
table over the solver's 10,766 dice states per position would be too large), ``optimal`` (the
official optimum), ``random`` or a human-playable policy.  Every ``eval_every`` steps (default
10,000,000: an evaluation runs the network on the 3.4e8 states of the solver's grid) the greedy
network is scored exactly against the official optimum from both seats
(:func:`dice_envs.agents.zombie_dice.solver.exact_score` with a
:class:`~dice_envs.agents.zombie_dice.solver.NetworkPolicy`: every state turned into the
observation the env would give, encoded the same way); the references are the Differences of the
four human-playable policies on the full game
(:func:`~dice_envs.agents.zombie_dice.solver.human_differences`), and ``reached`` says which it
has closed.  ``score_cap`` sets the solver's grid (default ``goal + 39``).  ``model.json`` records
the variant, the observation and its scale, the goal, the score cap and the network
(``net_arch``, ``activation``).

Options that do not go together (``observation="compact"`` with the official dice, ``score_cap``
with All Yellow, a saved model as the official game's opponent) are refused with a message naming
them.  The loop, the self-play pool, the checkpoints and the outputs are
:mod:`dice_envs.agents.learn.jeopardy`'s.

Run: ``dice-envs train ayzd`` or ``dice-envs train zombie-dice`` (the ``[train]`` extra).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from dice_envs.agents.learn.jeopardy import NetworkSpec, TableSpec, TrainArgs, check_options
from dice_envs.agents.learn.jeopardy import main as train_main
from dice_envs.agents.learn.jeopardy import train as train_game
from dice_envs.agents.learn.presets import Learner
from dice_envs.agents.learn.rllib_training import RLlibArgs
from dice_envs.agents.learn.rllib_training import check as check_rllib
from dice_envs.agents.learn.rllib_training import train as train_rllib

VARIANTS = ("all_yellow", "official")
#: the observations each variant can be trained on (the first is the default)
OBSERVATIONS = {"all_yellow": ("compact",), "official": ("fourier", "scaled", "full")}
#: the default --eval-every of each variant: an exact evaluation of the official game runs the
#: network on 3.4e8 states (about 2 minutes on one thread with 64 x 64; training runs about
#: 20,000 steps/s), the AYZD table takes seconds
EVAL_EVERY = {"all_yellow": 2_000_000, "official": 10_000_000}


@dataclass
class Args(TrainArgs):
    run_dir: str = ""  # default runs/ayzd (all_yellow), runs/zombie_dice_official (official)
    goal: int = 13  # brains to win
    variant: str = "all_yellow"  # all_yellow (AYZD) or official (green/yellow/red dice)
    observation: str = ""  # default compact (all_yellow, the only one), fourier (official; or scaled, full)
    score_cap: int = 0  # official only: the exact solver's score cap (0: its default, goal + 39)
    eval_every: int = 0  # 0: 2,000,000 steps (all_yellow), 10,000,000 (official)


class AYZDSpec(TableSpec):
    """All Yellow Zombie Dice for :func:`dice_envs.agents.learn.jeopardy.train`."""

    name = "all_yellow_zombie_dice"

    def check_args(self, args) -> None:
        check_variant_args(args)

    def make_vector_env(self, args, opponent):
        from dice_envs.agents.zombie_dice.gym import ZombieDiceVectorEnv

        return ZombieDiceVectorEnv(args.n_envs, opponent=opponent, variant="all_yellow", goal=args.goal,
                                   observation="compact", auto_forced=True, illegal_action="raise")

    def probability_table(self, policy_net, args) -> np.ndarray:
        """The ``(2, M, M, T)`` roll probabilities of the solver's grid (one batched pass)."""
        from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
        from dice_envs.agents.zombie_dice.learned import ModelPolicy
        from dice_envs.agents.zombie_dice.opponents import solved

        return ayzd.policy_table(ModelPolicy(policy_net, args.goal, greedy=False), solved(args.goal).score_cap)

    def evaluate(self, table: np.ndarray, args) -> dict:
        """Exact score of the greedy policy of a table (as ``ModelPolicy(greedy=True)``)."""
        from dice_envs.agents.zombie_dice.learned import exact_score, greedy_table, table_policy

        result = exact_score(table_policy(greedy_table(table), "learned"), args.goal)
        result["references"] = result.pop("published", {})
        return result

    def table_index(self, view, top):
        from dice_envs.games.zombie_dice.rules import SHOTGUNS_TO_BUST

        p, i, j, b, s = view
        return p - 1, np.minimum(i, top), np.minimum(j, top), 1 + SHOTGUNS_TO_BUST * np.minimum(b, top) + s

    def turn_table(self, args):
        from dice_envs.agents.zombie_dice.opponents import whole_turns
        from dice_envs.games.zombie_dice.rules import ZombieDiceGame

        return whole_turns(None, None, ZombieDiceGame(2, "all_yellow", args.goal)).table

    def whole_turns(self, table: np.ndarray, game):
        """The roll-probability table playing whole turns (:func:`dice_envs.agents.zombie_dice.opponents.whole_turns`)."""
        from dice_envs.agents.evaluate.jeopardy_agents import BatchedPolicyAgent
        from dice_envs.agents.zombie_dice import solver as zs
        from dice_envs.agents.zombie_dice.learned import table_policy
        from dice_envs.agents.zombie_dice.opponents import whole_turns

        policy = table_policy(table, "pool")
        return whole_turns(BatchedPolicyAgent(policy), zs.ScorePolicy(policy), game)

    def model_info(self, args) -> dict:
        return {"game": self.name, "variant": "all_yellow", "observation": "compact", "goal": args.goal}

    def plot_title(self, args) -> str:
        return f"MaskablePPO on AYZD ({args.opponent})"


class OfficialSpec(NetworkSpec):
    """Zombie Dice with the official dice (6 green, 4 yellow, 3 red) for
    :func:`dice_envs.agents.learn.jeopardy.train`: the full observation vector (Fourier by
    default), the self-play pool's policies played as numpy networks, the greedy policy
    scored exactly by :func:`dice_envs.agents.zombie_dice.solver.exact_score` (every state
    of the solver's grid turned into the observation the env would give, encoded the same
    way), with the four human-playable policies' Differences on the full game as references."""

    name = "zombie_dice"

    def check_args(self, args) -> None:
        check_variant_args(args)

    def make_vector_env(self, args, opponent):
        from dice_envs.agents.zombie_dice.gym import ZombieDiceVectorEnv

        return ZombieDiceVectorEnv(args.n_envs, opponent=opponent, variant="official", goal=args.goal,
                                   observation=args.observation, auto_forced=True, illegal_action="raise")

    def observe(self, raw: np.ndarray, args) -> np.ndarray:
        """AEC observation vectors in the env's encoding ``--observation``
        (:meth:`dice_envs.games.zombie_dice.rules.ZombieDiceGame.encoded_observation`)."""
        return self.game(args.goal).encoded_observation(raw, args.observation)

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def game(goal: int):
        from dice_envs.games.zombie_dice.rules import ZombieDiceGame

        return ZombieDiceGame(2, "official", goal)

    def evaluate(self, frozen, args) -> dict:
        """Exact score of the greedy network (:class:`dice_envs.agents.zombie_dice.solver.NetworkPolicy`:
        the observations of the solver's states, encoded as the env encodes them)."""
        from dice_envs.agents.zombie_dice import solver as zds

        policy = zds.NetworkPolicy(frozen.weights, frozen.biases, frozen.activation, args.observation, args.goal,
                                   "learned")
        return zds.exact_score(policy, args.goal, args.score_cap or None)

    def model_info(self, args) -> dict:
        from dice_envs.agents.zombie_dice import solver as zds

        scale = self.game(args.goal).observation_scale().tolist() if args.observation != "full" else None
        return {"game": self.name, "variant": "official", "observation": args.observation,
                "observation_scale": scale, "goal": args.goal,
                "score_cap": zds.check_score_cap(args.score_cap or None, args.goal)}

    def plot_title(self, args) -> str:
        return f"MaskablePPO on Zombie Dice, official dice ({args.opponent})"


def check_variant_args(args) -> None:
    """``--variant`` and the options that depend on it (``ValueError`` naming the problem);
    fills in the defaults of ``--observation``, ``--eval-every`` and ``--run-dir``."""
    if args.variant not in VARIANTS:
        raise ValueError(f"--variant must be one of {list(VARIANTS)}, got {args.variant!r}")
    allowed = OBSERVATIONS[args.variant]
    args.observation = args.observation or allowed[0]
    if args.observation not in allowed:
        others = [v for v in VARIANTS if args.observation in OBSERVATIONS[v]]
        needs = f" (it needs --variant {others[0]})" if others else ""
        raise ValueError(f"--observation {args.observation} does not go with --variant {args.variant}{needs}; "
                         f"with {args.variant} give one of {list(allowed)}")
    if args.variant == "all_yellow" and args.score_cap:
        raise ValueError("--score-cap is for --variant official (the AYZD solver's cap is its own default)")
    if args.score_cap and not (args.goal >= 1 and args.score_cap >= 2 * args.goal):
        raise ValueError(f"--score-cap must be 0 (the solver's default, goal + 39) or at least 2 x --goal "
                         f"(a smaller grid changes the values), got {args.score_cap} with --goal {args.goal}")
    if args.variant == "official" and args.opponent not in ("selfplay", "optimal", "random", "fixed_hold_at", "minh",
                                                            "llano", "neller"):
        raise ValueError(f"--opponent {args.opponent!r}: with --variant official give selfplay, optimal, random or "
                         f"a human-playable policy (fixed_hold_at, minh, llano, neller); saved models play AYZD")
    if args.eval_every == 0:
        args.eval_every = EVAL_EVERY[args.variant]
    if not args.run_dir:
        args.run_dir = "runs/ayzd" if args.variant == "all_yellow" else "runs/zombie_dice_official"


def spec_for(args):
    """The spec of ``--variant``."""
    return OfficialSpec() if args.variant == "official" else AYZDSpec()


def check(args: Args) -> Args:
    """The options checked (``ValueError`` naming a bad one), the defaults of ``observation``,
    ``eval_every`` and ``run_dir`` that depend on the variant filled in."""
    return check_options(args, spec_for(args))


def train(args: Args) -> dict:
    """Train (or resume) as :func:`dice_envs.agents.learn.jeopardy.train` does."""
    return train_game(spec_for(args), args)


def main(argv=None) -> int:
    """The trainer with its options as flags and no preset (``experiments/train_ayzd.py``):
    :func:`dice_envs.agents.learn.jeopardy.main`."""
    return train_main(spec_for, Args, __doc__.splitlines()[0], argv)


@dataclass
class AYZDRLlibArgs(RLlibArgs):
    goal: int = 13  # brains to win


def ayzd_rllib_game(args) -> tuple:
    """The PettingZoo game and its arguments, the evaluator's game and its settings, of RLlib's AYZD runs."""
    return ("zombie_dice_v0", {"variant": "all_yellow", "goal": args.goal, "observation": "compact"},
            "ayzd", {"goal": args.goal})


def check_ayzd_rllib(args):
    if args.goal < 1:
        raise ValueError(f"--goal must be at least 1, got {args.goal}")
    return check_rllib(args, ayzd_rllib_game)


def train_ayzd_rllib(args, score) -> dict:
    return train_rllib(args, ayzd_rllib_game, score)


def _jeopardy_learner(variant: str, description: str) -> Learner:
    fixed = {"variant": variant, **({"score_cap": 0, "observation": "compact"} if variant == "all_yellow" else {})}
    return Learner("maskable-ppo", description, Args, check, train, fixed=fixed)


#: The learners of ``dice-envs train ayzd``.
AYZD_LEARNERS = {
    "maskable-ppo": _jeopardy_learner("all_yellow", "MaskablePPO self-play on All Yellow Zombie Dice"),
    "rllib-ppo": Learner("rllib-ppo", "RLlib's self-play PPO (the [rllib] extra)", AYZDRLlibArgs, check_ayzd_rllib,
                         train_ayzd_rllib, extra="rllib", scored_by="ayzd"),
}
#: The learners of ``dice-envs train zombie-dice``.
ZOMBIE_DICE_LEARNERS = {"maskable-ppo": _jeopardy_learner("official", "MaskablePPO self-play, the official dice")}
