"""Exact scores of any Liar's Dice agent (``dice-envs evaluate liars-dice|liars-dice-match``).

* :func:`score_round`, one round of two-player Liar's Dice.  The agent's probabilities are asked for in
  every information state at once and scored on the whole public tree: its exploitability
  (NashConv / 2) and its value against a best response from both seats, or, asked for
  (``against="equilibrium"``), its value against the CFR+ equilibrium where that equilibrium is
  cached or cheap to solve.  Beyond the tree that fits in memory (two dice each) the exploitability
  is streamed over the tree in blocks (:func:`dice_envs.agents.liars_dice.streamed.streamed_evaluate`).
* :func:`uniform_play_best_responses`, the best responses to uniform play (every legal action alike) in
  one round, by a recursion over the bids that needs no tree: uniform play's exploitability in any
  round, two six-sided dice each included (and :func:`uniform_play_value`, its self-play value; the
  whole game's reference, :func:`uniform_round_responses`, is made of them).
* :func:`score_match`, the whole game of losing dice: the exact exploitability of a whole-game policy,
  from its round games (:func:`dice_envs.agents.liars_dice.match_solver.match_exploitability`).
* :func:`load_agent`, the ``model.pt`` of any of the room's learners as an agent over observations
  (what ``dice-envs evaluate liars-dice MODEL.pt`` reads).
"""

from __future__ import annotations

import os
from typing import Mapping, Optional, Sequence, Tuple

import numpy as np

from dice_envs.agents.evaluate.observation_agents import Agent
from dice_envs.agents.evaluate.report import (
    best_response_report,
    block_progress,
    check_size,
    random_agent,
    report,
)
from dice_envs.agents.liars_dice.belief_learner import MODEL_KIND, BeliefAgent, belief_agent
from dice_envs.agents.liars_dice.cli import AGAINST
from dice_envs.agents.liars_dice.learned import (
    LiarsDiceNetworkAgent,
    agent_tree_policy,
    equilibrium_if_cheap,
    exact_scores,
    model_from,
    read_model,
)
from dice_envs.agents.liars_dice.match_solver import match_exploitability
from dice_envs.agents.liars_dice.solver import PublicTree
from dice_envs.agents.liars_dice.streamed import fits_in_memory, streamed_evaluate
from dice_envs.games.liars_dice.match import LiarsDiceMatchGame
from dice_envs.core.validation import check_choice
from dice_envs.games.liars_dice.named import name_of
from dice_envs.games.liars_dice.rules import LiarsDiceGame, check_wild

__all__ = ["score_round", "score_match", "uniform_play_best_responses", "uniform_play_value", "uniform_round_responses",
           "load_agent"]


def score_round(spec, faces: Optional[int] = None, dice_per_player=None, wild=None, against: str = "best-response",
                exploitability: float = 1e-4, cache_dir=None, input: Optional[str] = None,
                activation: Optional[str] = None) -> dict:
    """One round: ``spec`` (an agent, ``equilibrium`` or ``random``) in the game it was trained on, or
    the one the settings give (6 faces, one die each, no wild face by default).

    OpenSpiel's agents (its policies, networks over either game's information-state tensors, a bare
    weights file) are read before the call (:func:`dice_envs.agents.liars_dice.openspiel_agents.own_agent`):
    ``input`` names the tensors a network or function reads (``"openspiel"``, OpenSpiel's
    ``liars_dice``'s, whose game has the highest face wild unless ``wild`` says otherwise; or
    ``"dice-envs"``), ``activation`` (``"tanh"``, the default, or ``"relu"``) a weights file's layers.

    ``value`` is the agent's payoff against a best response to it from each seat (minus its
    exploitability), whatever is cached; with ``against="equilibrium"``, against the CFR+ equilibrium
    solved to ``exploitability`` (which ``cache_dir`` may hold), and ``value_against_equilibrium``
    says so too.  The exploitability is reported either way."""
    against = check_choice("against", against, AGAINST)
    game = _round_game(spec, {"faces": faces, "dice_per_player": dice_per_player, "wild": wild})
    config = {**game.config(), "against": against, "exploitability": exploitability}
    if name_of(game) is not None:  # a named game (dice_envs.games.liars_dice.named): its name, for leaderboards
        config["game"] = name_of(game)
    if input is not None:
        config["input"] = input
    eq = None
    if against == "equilibrium" or spec in ("equilibrium", "optimal"):
        eq = equilibrium_if_cheap(game, exploitability, cache_dir) if fits_in_memory(game) else None
        if eq is None:
            raise ValueError(f"the equilibrium of {game!r} is not cached and too large to solve for a report; solve "
                             "it first with dice-envs solve liars-dice --cache-dir DIR and score with --cache-dir "
                             "DIR, or score against a best response (--against best-response, the default)")
    if not fits_in_memory(game):
        return {**_streamed(spec, game), "config": config}
    if isinstance(spec, Agent):
        tree, policy = agent_tree_policy(game, spec, f"scoring {spec.name} on {game!r} in memory")
    elif spec in ("equilibrium", "optimal"):
        assert eq is not None  # solved or refused above
        tree, policy = PublicTree(game), eq.policy
    elif spec in ("random", "uniform"):
        tree = PublicTree(game)
        policy = tree.uniform()
    else:
        raise ValueError(f"agent must be a saved model (.pt, .zip), module:function, 'equilibrium' or 'random', "
                         f"got {spec!r}")
    if against == "best-response":
        scores = exact_scores(tree, policy)
        uniform = exact_scores(tree, tree.uniform())
        result = best_response_report(
            scores["nash_conv"], (-scores["value_vs_best_response_as_second"],
                                  -scores["value_vs_best_response_as_first"]),
            uniform["exploitability"], "the default measure, whatever is cached")
        return {**result, "config": config}
    assert eq is not None
    scores = exact_scores(tree, policy, eq.policy)
    uniform = exact_scores(tree, tree.uniform(), eq.policy)
    seats = {"first": scores["value_vs_equilibrium_as_first"], "second": scores["value_vs_equilibrium_as_second"]}
    details = {"game_value_first_player": eq.value_first_player,
               "equilibrium_exploitability": eq.exploitability,
               "reference_exploitability": {"random": uniform["exploitability"]}}
    result = report("payoff (+1 win, -1 loss) against the CFR+ equilibrium", "equilibrium",
                    scores["value_vs_equilibrium"], 0.0, seats, scores["exploitability"],
                    {"random": uniform["value_vs_equilibrium"]}, details,
                    value_against_equilibrium=scores["value_vs_equilibrium"])
    return {**result, "config": config}


def uniform_play_best_responses(game: LiarsDiceGame, sign: float = 1.0) -> Tuple[float, float]:
    """Each player's best-response value against uniform play (every legal action alike) in a
    two-player round: player 0's, then player 1's.  Their mean is uniform play's exploitability.
    With ``sign=-1`` the payoffs are negated: the values of the responses that try to lose (what
    the whole game's scoring asks for where losing a round is worth more).

    Uniform play ignores the dice, so whatever has been bid, the other player's roll is distributed
    as it was dealt, and the best response's value depends only on its own roll, the last bid and who
    acts next: a recursion over the ``B`` bids, from the highest down, per roll (``2 B`` values, where
    the game tree has ``2**B`` histories per roll).  Exact up to floating-point rounding; equal to
    :func:`score_round`'s best responses to ``"random"``, which walk the whole tree.
    """
    if game.num_players != 2:
        raise ValueError(f"uniform_play_best_responses needs two players, got {game.num_players}")
    bids = game.num_bids
    values = []
    for player in (0, 1):
        total = 0.0
        for roll, probability in game.roll_distribution(player):
            true = np.zeros(bids)  # the probability that each bid is true, given this roll
            for other, q in game.roll_distribution(1 - player):
                rolls = (roll, other) if player == 0 else (other, roll)
                true += float(q) * np.array([game.bid_is_true(b, rolls) for b in range(bids)], dtype=float)
            mine = np.zeros(bids)  # the best response to act, the other player having bid b
            theirs = np.zeros(bids)  # the other player to act, the best response having bid b
            for b in range(bids - 1, -1, -1):
                mine[b] = max([sign * (1.0 - 2.0 * true[b])] + list(theirs[b + 1:]))  # call: wins if b is false
                theirs[b] = np.mean([sign * (2.0 * true[b] - 1.0)] + list(mine[b + 1:]))  # a call loses if b is true
            first = game.starting_player == player
            total += float(probability) * (theirs.max() if first else mine.mean())
        values.append(float(total))
    return values[0], values[1]


def uniform_play_value(game: LiarsDiceGame) -> float:
    """Player 0's value when both players of a two-player round play uniformly: a recursion over
    the bids as :func:`uniform_play_best_responses`'s, on each bid's chance of being true."""
    if game.num_players != 2:
        raise ValueError(f"uniform_play_value needs two players, got {game.num_players}")
    bids = game.num_bids
    true = np.zeros(bids)
    for rolls, probability in game.chance_distribution():
        true += float(probability) * np.array([game.bid_is_true(b, rolls) for b in range(bids)], dtype=float)
    after = np.zeros((bids, 2))  # player 0's value once bid b was made by the player in the column
    for b in range(bids - 1, -1, -1):
        for bidder in (0, 1):
            called = (1.0 if bidder == 0 else -1.0) * (2.0 * true[b] - 1.0)  # the bidder wins if b is true
            after[b, bidder] = np.mean([called] + list(after[b + 1:, 1 - bidder]))
    return float(after[:, game.starting_player].mean())


def uniform_round_responses(round_game: LiarsDiceGame, losing: Sequence[int] = ()) -> dict:
    """A round's figures for the whole game's scoring of uniform play
    (:func:`~dice_envs.agents.liars_dice.match_solver.match_exploitability`'s ``round_responses``),
    by the recursions over the bids: no tree, two six-sided dice each included."""
    negated = uniform_play_best_responses(round_game, -1.0) if losing else None
    return {"best": list(uniform_play_best_responses(round_game)), "value": uniform_play_value(round_game),
            "losing": {q: negated[q] for q in losing} if negated is not None else {}}


def load_agent(path, greedy: bool = False) -> Agent:
    """The ``model.pt`` of any Liar's Dice learner of ``dice-envs train liars-dice`` as an agent over
    observations, by what the file holds: the ``pbs`` learner's policy network (its ``kind``,
    :class:`~dice_envs.agents.liars_dice.belief_learner.BeliefAgent`), or a network over observations
    or a table (:class:`~dice_envs.agents.liars_dice.learned.LiarsDiceNetworkAgent`).  Read once, with
    ``torch.load(weights_only=True)`` (:func:`~dice_envs.agents.liars_dice.learned.read_model`).
    It plays its probabilities (each learner trains a mixed strategy), or with ``greedy`` its most
    probable legal action.

    Raises:
        ValueError: naming the file, if it is none of these."""
    blob = read_model(path)
    if blob.get("kind") == MODEL_KIND:
        return belief_agent(blob, path, greedy)
    return LiarsDiceNetworkAgent(model_from(blob, path), os.path.basename(path), greedy)


def _trained_game(agent) -> Optional[LiarsDiceGame]:
    """The round game a model of the room's learners was trained on (``None`` for other agents)."""
    if isinstance(agent, LiarsDiceNetworkAgent):
        return agent.learned.game
    return agent.game if isinstance(agent, BeliefAgent) else None


def _round_game(spec, asked: dict) -> LiarsDiceGame:
    """The game to score ``spec`` in: the settings asked for, which must agree with the game a model
    records it was trained on, and the recorded ones for those not asked."""
    recorded: dict = {}
    trained = _trained_game(spec)
    if isinstance(spec, Agent):
        recorded = trained.config() if trained is not None else spec.info
    same = {"faces": lambda a, b: a == b, "wild": lambda a, b: check_wild(a) == check_wild(b),
            "dice_per_player": lambda a, b: LiarsDiceGame(dice_per_player=a).dice == LiarsDiceGame(dice_per_player=b).dice}
    for key, value in asked.items():
        if value is not None and key in recorded and not same[key](value, recorded[key]):
            raise ValueError(f"--{key.replace('_per_player', '')} {value} does not match the game {spec.name} was "
                             f"trained on ({ {k: recorded[k] for k in asked if k in recorded} })")
    if trained is not None:
        return trained
    chosen = {key: asked[key] if asked[key] is not None else recorded.get(key) for key in asked}
    return LiarsDiceGame(faces=6 if chosen["faces"] is None else chosen["faces"],
                         dice_per_player=1 if chosen["dice_per_player"] is None else chosen["dice_per_player"],
                         wild=False if chosen["wild"] is None else chosen["wild"])


def _streamed(spec, game: LiarsDiceGame) -> dict:
    """A round beyond the in-memory tree: the exploitability streamed in blocks."""
    if isinstance(spec, Agent):
        agent = spec
    elif spec in ("random", "uniform"):
        agent = random_agent()
    else:
        raise ValueError(f"{game.describe()} is scored streamed, without an equilibrium, for an agent over "
                         f"observations (a saved model, module:function) or 'random'; got {spec!r}")
    ev = streamed_evaluate(game, agent, progress=block_progress(f"scoring {agent.name}"))
    # the reference, uniform play's exploitability: the uniform policy's own score, or the recursion over the bids
    uniform = ev.exploitability if agent.kind == "builtin" else sum(uniform_play_best_responses(game)) / 2
    return best_response_report(ev.nash_conv, ev.best_response, uniform,
                                "not cached, and too large to solve for a report (the exploitability is streamed "
                                "over the public tree)")


def _round_model(item, what: str, greedy: bool):
    """``item`` of the round agents: a model file (``str`` or path) loaded (:func:`load_agent`), anything
    else as given."""
    if not isinstance(item, (str, os.PathLike)):
        return item
    if not os.path.isfile(item):
        raise ValueError(f"model file {os.fspath(item)!r} ({what}) does not exist")
    return load_agent(item, greedy)


def own_match_agent(spec, greedy: bool, settings: dict) -> Optional[Agent]:
    """What ``dice-envs evaluate liars-dice-match`` (and :func:`dice_envs.agents.scoring.score`) reads
    as round agents, before the generic loaders: a whole-game agent
    (:class:`~dice_envs.agents.liars_dice.match_agent.WholeGameAgent`) from model files joined by commas
    (``"2v2.pt,1v2.pt,1v1.pt"``, each a ``model.pt`` of ``dice-envs train liars-dice``; one ``.pt`` file
    alone is the one round of a whole game of one die each), or from a list of agents and model files,
    or a mapping ``{(starter's dice, other's dice): agent or model file}``.  ``None`` for anything else.

    The round of each model is the game it records; the whole game's faces and wild rule are the
    models' (the settings, where given, must agree), its dice the settings' or else those of the
    largest round given (with ``starting_player`` 1, that round's dice in seat order are the
    other's first).

    Raises:
        ValueError: an empty name between commas, a file that is not a model, a model of a game of
            more than two players, models of different faces or wild rules, two for one round, a round
            not named by two dice counts, two largest rounds and no dice given, or a round of the whole
            game without one (:class:`~dice_envs.agents.liars_dice.match_agent.WholeGameAgent`).
    """
    from dice_envs.agents.liars_dice.match_agent import WholeGameAgent, round_key

    if isinstance(spec, str) and "," in spec:
        parts = [part.strip() for part in spec.split(",")]
        if not all(parts):
            raise ValueError(f"the round models {spec!r} have an empty name between commas (a trailing or doubled "
                             f"comma?)")
        spec = parts
    elif isinstance(spec, (str, os.PathLike)) and os.fspath(spec).endswith(".pt"):
        spec = [spec]  # one round model: a 1v1 model is the whole game of one die each, others lack rounds
    if isinstance(spec, Mapping):
        rounds = {round_key(key): _round_model(value, f"the model for round {key!r}", greedy)
                  for key, value in spec.items()}
    elif isinstance(spec, (list, tuple)) and not (spec and isinstance(spec[0], int)):
        if not spec:
            raise ValueError("no round agents were given: one model or agent per round game the whole game reaches")
        agents = [_round_model(item, f"round model {n + 1} of {len(spec)}", greedy) for n, item in enumerate(spec)]
        rounds = {}
        for agent in agents:
            game = _trained_game(agent)
            if game is None:
                raise ValueError(f"agent {getattr(agent, 'name', agent)!r} does not record the round game it plays: "
                                 f"give the round agents as a mapping {{(starter's dice, other's dice): agent}}")
            if game.num_players != 2:
                raise ValueError(f"agent {getattr(agent, 'name', agent)!r} was trained on a game of "
                                 f"{game.num_players} players; a whole game is made of two-player rounds")
            key = round_key(game.dice)
            if key in rounds:
                raise ValueError(f"two agents for the round {game.describe()}")
            rounds[key] = agent
    else:
        return None
    games = {key: game for key, agent in rounds.items() if (game := _trained_game(agent)) is not None}
    recorded = {(game.faces, game.wild_rule) for game in games.values()}
    if len(recorded) > 1:
        raise ValueError(f"the round agents were trained on games of different faces or wild rules: "
                         f"{sorted(game.describe() for game in games.values())}")
    faces, wild = next(iter(recorded)) if recorded else (None, None)
    for option, given, own in (("faces", settings.get("faces"), faces), ("wild", settings.get("wild"), wild)):
        if given is not None and own is not None and (check_wild(given) if option == "wild" else given) != own:
            raise ValueError(f"--{option} {given} does not match the round agents' games ({own})")
    starting_player = settings.get("starting_player") or 0
    dice = settings.get("dice_per_player")
    if dice is None:
        most = max(map(sum, rounds))
        largest = [key for key in rounds if sum(key) == most]
        if len(largest) > 1:
            raise ValueError(f"the round agents' largest rounds, {' and '.join(f'{a}v{b}' for a, b in largest)}, "
                             f"could each be the whole game's first: give its dice (--dice)")
        dice = largest[0] if starting_player == 0 else largest[0][::-1]  # the starter's dice first: in seat order
    match = LiarsDiceMatchGame(2, dice, settings.get("faces") or faces or 6, settings.get("wild") or wild or "aces",
                               starting_player, settings.get("next_starter") or "loser")
    return WholeGameAgent(match, rounds, games)


def score_match(spec, faces: Optional[int] = None, dice_per_player=None, wild=None,
                starting_player: Optional[int] = None, next_starter: Optional[str] = None) -> dict:
    """The whole game: the exact exploitability of ``spec`` (an agent or ``random``), from its
    round games (two dice each, 6 faces, aces wild, player 0 starting and the loser starting the
    next round by default; a whole-game agent made of round agents plays its own whole game, and
    the settings given must agree with it)."""
    from dice_envs.agents.liars_dice.match_agent import WholeGameAgent

    if isinstance(spec, WholeGameAgent):
        game = spec.match
        asked = LiarsDiceMatchGame(2, game.dice if dice_per_player is None else dice_per_player,
                                   game.faces if faces is None else faces, game.wild_rule if wild is None else wild,
                                   game.starting_player if starting_player is None else starting_player,
                                   game.next_starter if next_starter is None else next_starter)
        if asked.config() != game.config():
            raise ValueError(f"the settings give {asked!r}, not the whole game the round agents were assembled "
                             f"for, {game!r}")
    else:
        game = LiarsDiceMatchGame(2, 2 if dice_per_player is None else dice_per_player, 6 if faces is None else faces,
                                  "aces" if wild is None else wild, 0 if starting_player is None else starting_player,
                                  "loser" if next_starter is None else next_starter)
    if isinstance(spec, Agent):
        check_size(spec, int(game.observation_shape[0]), repr(game))
        agent = spec
    elif spec in ("random", "uniform"):
        agent = random_agent()
    else:
        raise ValueError(f"agent must be a saved model, module:function or 'random', got {spec!r}")
    uniform = match_exploitability(game, random_agent(), round_responses=uniform_round_responses)
    result = uniform if agent.kind == "builtin" else match_exploitability(game, agent)
    scored = best_response_report(result["nash_conv"], result["best_response"], uniform["exploitability"],
                                  "the whole game's is solved only up to three dice in play")
    scored["details"]["value_self_play_player_0"] = result["value_first_player"]
    scored["details"]["rounds"] = result["positions"]
    return {**scored, "config": game.config()}
