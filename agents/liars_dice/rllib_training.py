"""RLlib's self-play PPO on Liar's Dice: the ``rllib-ppo`` learner of ``dice-envs train liars-dice``
(:mod:`dice_envs.agents.learn.rllib_training` is the loop; this module gives the game)."""

from __future__ import annotations

from dataclasses import dataclass

from dice_envs.agents.learn.presets import Learner
from dice_envs.agents.learn.rllib_training import RLlibArgs
from dice_envs.agents.learn.rllib_training import check as check_rllib
from dice_envs.agents.learn.rllib_training import train as train_rllib


@dataclass
class LiarsDiceRLlibArgs(RLlibArgs):
    faces: int = 6  # faces of each die
    wild: str = "highest"  # none | highest | aces


def rllib_game(args) -> tuple:
    """The PettingZoo game and its arguments, the evaluator's game and its settings (one die each)."""
    return ("liars_dice_v1", {"faces": args.faces, "wild": args.wild}, "liars-dice",
            {"faces": args.faces, "wild": args.wild})


def check(args: LiarsDiceRLlibArgs) -> LiarsDiceRLlibArgs:
    """The options checked (``ValueError`` naming a bad one)."""
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    if args.wild not in ("none", "highest", "aces"):
        raise ValueError(f"--wild must be none, highest or aces, got {args.wild!r}")
    try:
        LiarsDiceGame(faces=args.faces, wild=args.wild)
    except ValueError as err:
        raise ValueError(f"--faces: {err}") from None
    return check_rllib(args, rllib_game)


def train(args: LiarsDiceRLlibArgs, score) -> dict:
    """Train (or resume) as :func:`dice_envs.agents.learn.rllib_training.train` does."""
    return train_rllib(args, rllib_game, score)


#: The RLlib learner of ``dice-envs train liars-dice``.
LEARNER = Learner("rllib-ppo", "RLlib's self-play PPO (the [rllib] extra)", LiarsDiceRLlibArgs, check, train,
                  extra="rllib", scored_by="liars-dice")
