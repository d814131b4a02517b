"""A whole-game agent of Liar's Dice made of round agents.

The whole game of losing dice (:mod:`dice_envs.games.liars_dice.match`) is a sequence of round
games, and its equilibrium plays each round's equilibrium in that round
(:mod:`dice_envs.agents.liars_dice.match_solver`).  So an agent for the whole game can be
assembled from agents trained on the round games alone, one per round that the whole game
reaches: :class:`WholeGameAgent` reads a match observation, finds the round being played, and
asks that round's agent.

A round agent is an agent over one round game's observations, the game with the starter's dice
first and the starter in seat 0 (what ``dice-envs train liars-dice --dice 1,2`` trains, say),
and it answers for both seats.  A round started by seat 1 is the same game with the seats
swapped, so one agent serves the round ``(1, 2)`` started by the seat holding one die, and
``(2, 1)`` started by the seat holding two.  The round and the starter are read from the
observation alone: the dice left are part of it, and the starter follows from the mover's seat
and the number of bids made (turns alternate), so the agent is a fixed function of the
mover's information state and is scored exactly by
:func:`~dice_envs.agents.liars_dice.match_solver.match_exploitability`.

Example::

    from dice_envs.agents.scoring import score

    # the three rounds of the whole game from two dice each (the loser starts the next round)
    score("liars-dice-match", "runs/2v2/model.pt,runs/1v2/model.pt,runs/1v1/model.pt")
"""

from __future__ import annotations

import operator
from typing import Dict, Mapping, Optional, Tuple

import numpy as np

from dice_envs.agents.evaluate.contract import ask_agent
from dice_envs.agents.evaluate.observation_agents import Agent
from dice_envs.agents.liars_dice.match_solver import positions
from dice_envs.games.liars_dice.match import LiarsDiceMatchGame
from dice_envs.games.liars_dice.rules import LiarsDiceGame

__all__ = ["WholeGameAgent", "round_key", "rounds_needed"]

Round = Tuple[int, int]  # (the starter's dice, the other player's dice)


def rounds_needed(match: LiarsDiceMatchGame) -> Dict[Round, LiarsDiceGame]:
    """The round games the whole game ``match`` can reach, by ``(starter's dice, other's dice)``:
    each as the game with the starter in seat 0 (the game a round agent is trained on)."""
    needed = {}
    for d0, d1, starter in positions(match):
        key = (d0, d1) if starter == 0 else (d1, d0)
        needed[key] = LiarsDiceGame(2, key, match.faces, match.wild_rule)
    return dict(sorted(needed.items()))


def _name(dice: Tuple[int, ...]) -> str:
    return "v".join(map(str, dice))


def round_key(key) -> Round:
    """A round's key as given (any pair of integers, ``(2, 1)`` or ``np.array([2, 1])``) as
    ``(starter's dice, other's dice)``.

    Raises:
        ValueError: anything but two dice counts from 1 to 5 (``"2v1"``, ``(2,)``, ``(2, 1, 0)``).
    """
    try:
        first, second = key
        pair = operator.index(first), operator.index(second)
    except (TypeError, ValueError):
        pair = None
    if pair is None or isinstance(first, bool) or isinstance(second, bool) or not all(1 <= n <= 5 for n in pair):
        raise ValueError(f"a round is named by (starter's dice, other's dice), two dice counts from 1 to 5 such as "
                         f"(1, 2); got {key!r}")
    return pair


def _trained_on(game: LiarsDiceGame) -> str:
    """``game`` in words, with what :meth:`LiarsDiceGame.describe` leaves out: who starts, and
    bids beyond the dice in play."""
    words = game.describe()
    if game.starting_player:
        words += f", player {game.starting_player} starting"
    if game.max_quantity != game.total_dice:
        words += f", quantities up to {game.max_quantity}"
    return words


class WholeGameAgent(Agent):
    """An agent for the whole game of two-player Liar's Dice, from one agent per round game.

    Args:
        match: the whole game.
        rounds: ``{(starter's dice, other's dice): agent}``, an agent (``agent(observations, masks)
            -> probabilities``, :class:`~dice_envs.agents.evaluate.observation_agents.Agent`) over
            the observations of the round game with those dice and seat 0 starting.  Every round
            the whole game reaches needs one (:func:`rounds_needed`); others are ignored.
        games: the round game each agent was trained on, where known (a model records it): its
            faces and wild rule must be the whole game's, and its dice and starter the round's.
        name: how reports name the agent.

    Attributes:
        kind: the round agents' kind where they share one (``"torch"`` for models), else ``"function"``.

    Raises:
        ValueError: a game of more than two players, a round named by anything but two dice counts
            (:func:`round_key`), a round without an agent, an agent that is not callable, or an agent
            trained on another game.
    """

    def __init__(self, match: LiarsDiceMatchGame, rounds: Mapping[Round, Agent],
                 games: Optional[Mapping[Round, LiarsDiceGame]] = None, name: Optional[str] = None):
        if match.num_players != 2:
            raise ValueError(f"a whole-game agent is made of round agents for two players, got "
                             f"num_players={match.num_players}")
        needed = rounds_needed(match)
        rounds = {round_key(key): agent for key, agent in rounds.items()}
        missing = [_name(key) for key in needed if key not in rounds]
        if missing:
            raise ValueError(f"the whole game from {match.first_round.describe()} (the {match.next_starter} of a "
                             f"round starting the next) reaches the rounds "
                             f"{', '.join(map(_name, needed))} (the starter's dice first); no agent was given for "
                             f"{', '.join(missing)}")
        for key, game in (games or {}).items():
            want = needed.get(round_key(key))
            if want is None:
                continue
            if (game.num_players, game.dice, game.faces, game.wild_rule, game.starting_player, game.max_quantity) != (
                    want.num_players, want.dice, want.faces, want.wild_rule, want.starting_player, want.max_quantity):
                raise ValueError(f"the agent for round {_name(want.dice)} was trained on {_trained_on(game)}, not on "
                                 f"{want.describe()} (the round with the starter's dice first and seat 0 starting)")
        for key, game in needed.items():
            if not callable(rounds[key]):
                raise ValueError(f"the agent for round {_name(key)} is not an agent (agent(observations, masks) -> "
                                 f"probabilities): {rounds[key]!r}")
            size = getattr(rounds[key], "observation_size", None)
            if size is not None and size != game.observation_shape[0]:
                raise ValueError(f"the agent for round {_name(key)} takes observations of {size} numbers; "
                                 f"{game.describe()} has {game.observation_shape[0]}")
        self.match, self.games = match, needed
        self.rounds = {key: rounds[key] for key in needed}
        self.name = name or "+".join(getattr(self.rounds[key], "name", _name(key)) for key in needed)
        kinds = {getattr(agent, "kind", "function") for agent in self.rounds.values()}
        self.kind = kinds.pop() if len(kinds) == 1 and "builtin" not in kinds else "function"
        self.info = {"game": "liars_dice_match", **match.config()}

    @property
    def observation_size(self) -> int:
        return int(self.match.observation_shape[0])

    def __call__(self, observations, masks) -> np.ndarray:
        g = self.match
        obs = np.asarray(observations, np.float32)
        masks = np.asarray(masks, bool)
        base = g.num_players + g.faces
        seat = np.argmax(obs[:, : g.num_players], axis=1)
        bids = np.rint(obs[:, base : base + g.num_bids].sum(axis=1)).astype(np.int64)
        dice = np.rint(obs[:, g.prefix_size :]).astype(np.int64)
        starter = (seat - bids) % 2  # the mover's seat, back by one seat per bid made
        rows = np.arange(len(obs))
        first, second = dice[rows, starter], dice[rows, 1 - starter]
        out = np.zeros((len(obs), g.num_actions))
        for key, game in self.games.items():
            here = np.flatnonzero((first == key[0]) & (second == key[1]))
            if not len(here):
                continue
            if masks[here, game.num_bids : g.num_bids].any():
                raise ValueError(f"a match observation of round {_name(key)} allows a bid that round does not have")
            round_obs = np.zeros((len(here), game.observation_shape[0]), np.float32)
            round_obs[np.arange(len(here)), (seat[here] - starter[here]) % 2] = 1.0  # the starter is seat 0
            round_obs[:, g.num_players : base] = obs[here, g.num_players : base]  # own dice
            round_obs[:, base : base + game.num_bids] = obs[here, base : base + game.num_bids]
            round_obs[:, game.prefix_size :] = key
            round_masks = np.zeros((len(here), game.num_actions), bool)
            round_masks[:, : game.num_bids] = masks[here, : game.num_bids]
            round_masks[:, game.call_action] = masks[here, g.call_action]
            probs = ask_agent(self.rounds[key], round_obs, round_masks, what=f"the agent for round {_name(key)}")
            out[here, : game.num_bids] = probs[:, : game.num_bids]
            out[here, g.call_action] = probs[:, game.call_action]
        unplayed = np.flatnonzero(out.sum(axis=1) == 0)
        if len(unplayed):
            n = unplayed[0]
            raise ValueError(f"a match observation with dice {dice[n].tolist()} is not of a round of the whole game "
                             f"from {_name(g.dice)}")
        return out
