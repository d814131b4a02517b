"""Exact scores of any Liar's Dice agent (``dice-envs evaluate liars-dice|liars-dice-match``).

* :data:`ROUND`, one round of two-player Liar's Dice.  The agent's probabilities are asked for in
  every information state at once and scored on the whole public tree: its exploitability
  (NashConv / 2), and its value against the CFR+ equilibrium from both seats where that
  equilibrium is cached or cheap to solve.  Beyond the tree that fits in memory (two dice each)
  the exploitability is streamed over the tree in blocks
  (:func:`dice_envs.agents.liars_dice.streamed.streamed_evaluate`), and the value reported is the
  one against a best response.
* :data:`MATCH`, the whole game of losing dice: the exact exploitability of a whole-game policy,
  from its round games (:func:`dice_envs.agents.liars_dice.match_solver.match_exploitability`).
"""

from __future__ import annotations

from typing import Optional

from dice_envs.agents.evaluate.contract import ask_agent
from dice_envs.agents.evaluate.observation_agents import Agent
from dice_envs.agents.evaluate.report import (
    Evaluation,
    best_response_report,
    block_progress,
    check_size,
    random_agent,
    report,
)
from dice_envs.agents.liars_dice.cli import dice_argument, game_arguments
from dice_envs.agents.liars_dice.learned import InfoStates, LiarsDiceNetworkAgent, equilibrium_if_cheap, exact_scores
from dice_envs.agents.liars_dice.match_solver import match_exploitability
from dice_envs.agents.liars_dice.solver import PublicTree
from dice_envs.agents.liars_dice.streamed import fits_in_memory, streamed_evaluate
from dice_envs.games.liars_dice.match import LiarsDiceMatchGame
from dice_envs.games.liars_dice.rules import LiarsDiceGame, check_wild

__all__ = ["ROUND", "MATCH", "EVALUATIONS", "MATCH_EVALUATIONS", "score_round", "score_match"]


def score_round(spec, faces: Optional[int] = None, dice_per_player=None, wild=None, exploitability: float = 1e-4,
                cache_dir=None) -> dict:
    """One round: ``spec`` (an agent, ``equilibrium`` or ``random``) in the game it was trained on, or
    the one the settings give (6 faces, one die each, no wild face by default)."""
    game = _round_game(spec, {"faces": faces, "dice_per_player": dice_per_player, "wild": wild})
    config = {**game.config(), "exploitability": exploitability}
    # The whole tree in memory only to compare with an equilibrium at hand; else streamed, which
    # is lighter and faster.
    eq = equilibrium_if_cheap(game, exploitability, cache_dir) if fits_in_memory(game) else None
    if eq is None and spec not in ("equilibrium", "optimal"):
        return {**_streamed(spec, game), "config": config}
    tree = PublicTree(game)
    states = InfoStates(tree)
    if isinstance(spec, Agent):
        obs = states.obs
        if spec.observation_size == game.prefix_size:  # trained on dice_envs 0.1's observation, without the counts
            obs = obs[:, : game.prefix_size]
        else:
            check_size(spec, int(game.observation_shape[0]), repr(game))
        policy = states.to_tree_policy(ask_agent(spec, obs, states.mask, what=f"agent {spec.name}"))
    elif spec in ("equilibrium", "optimal"):
        if eq is None:
            raise ValueError(f"the equilibrium of {game!r} is not cached and too large to solve for a report; solve "
                             "it first with dice-envs solve liars-dice --cache-dir DIR, and score with --cache-dir DIR")
        policy = eq.policy
    elif spec in ("random", "uniform"):
        policy = tree.uniform()
    else:
        raise ValueError(f"agent must be a saved model (.pt, .zip), module:function, 'equilibrium' or 'random', "
                         f"got {spec!r}")
    assert eq is not None  # without it, scored streamed (an agent) or refused (the equilibrium) above
    scores = exact_scores(tree, policy, eq.policy)
    uniform = exact_scores(tree, tree.uniform(), eq.policy)
    seats = {"first": scores["value_vs_equilibrium_as_first"], "second": scores["value_vs_equilibrium_as_second"]}
    details = {"game_value_first_player": eq.value_first_player,
               "equilibrium_exploitability": eq.exploitability,
               "reference_exploitability": {"random": uniform["exploitability"]}}
    result = report("payoff (+1 win, -1 loss) against the CFR+ equilibrium", "equilibrium",
                    scores["value_vs_equilibrium"], 0.0, seats, scores["exploitability"],
                    {"random": uniform["value_vs_equilibrium"]}, details)
    return {**result, "config": config}


def _round_game(spec, asked: dict) -> LiarsDiceGame:
    """The game to score ``spec`` in: the settings asked for, which must agree with the game a model
    records it was trained on, and the recorded ones for those not asked."""
    recorded: dict = {}
    if isinstance(spec, Agent):
        recorded = spec.learned.game.config() if isinstance(spec, LiarsDiceNetworkAgent) else spec.info
    same = {"faces": lambda a, b: a == b, "wild": lambda a, b: check_wild(a) == check_wild(b),
            "dice_per_player": lambda a, b: LiarsDiceGame(dice_per_player=a).dice == LiarsDiceGame(dice_per_player=b).dice}
    for key, value in asked.items():
        if value is not None and key in recorded and not same[key](value, recorded[key]):
            raise ValueError(f"--{key.replace('_per_player', '')} {value} does not match the game {spec.name} was "
                             f"trained on ({ {k: recorded[k] for k in asked if k in recorded} })")
    if isinstance(spec, LiarsDiceNetworkAgent):  # kind "torch"
        return spec.learned.game
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
    if agent.observation_size not in (None, game.prefix_size):
        check_size(agent, int(game.observation_shape[0]), repr(game))
    ev = streamed_evaluate(game, agent, progress=block_progress(f"scoring {agent.name}"))
    uniform = ev if agent.kind == "builtin" else streamed_evaluate(
        game, random_agent(), progress=block_progress("scoring the uniform policy"))
    return best_response_report(ev.nash_conv, ev.best_response, uniform.exploitability,
                                "not cached, and too large to solve for a report (the exploitability is streamed "
                                "over the public tree)")


def score_match(spec, faces: Optional[int] = None, dice_per_player=None, wild=None, starting_player: int = 0,
                next_starter: str = "loser") -> dict:
    """The whole game: the exact exploitability of ``spec`` (an agent or ``random``), from its
    round games (two dice each, 6 faces, aces wild by default)."""
    game = LiarsDiceMatchGame(2, 2 if dice_per_player is None else dice_per_player, 6 if faces is None else faces,
                              "aces" if wild is None else wild, starting_player, next_starter)
    if isinstance(spec, Agent):
        check_size(spec, int(game.observation_shape[0]), repr(game))
        agent = spec
    elif spec in ("random", "uniform"):
        agent = random_agent()
    else:
        raise ValueError(f"agent must be a saved model, module:function or 'random', got {spec!r}")
    result = match_exploitability(game, agent)
    uniform = result if agent.kind == "builtin" else match_exploitability(game, random_agent())
    scored = best_response_report(result["nash_conv"], result["best_response"], uniform["exploitability"],
                                  "the whole game's is solved only up to three dice in play")
    scored["details"]["value_self_play_player_0"] = result["value_first_player"]
    scored["details"]["rounds"] = result["positions"]
    return {**scored, "config": game.config()}


def _round_options(parser) -> None:
    game_arguments(parser, defaults=False)
    parser.add_argument("--exploitability", type=float, default=None, metavar="E",
                        help="exploitability the CFR+ reference equilibrium is solved to (1e-4)")
    parser.add_argument("--cache-dir", default=None, help="reuse/store the equilibrium in this directory")


def _match_options(parser) -> None:
    game_arguments(parser, defaults=False)
    parser.add_argument("--starting-player", type=int, default=0, choices=[0, 1], help="who starts the first round")
    parser.add_argument("--next-starter", choices=["loser", "winner"], default="loser",
                        help="who starts the next round (the loser, as usual)")


def _read_options(config: dict) -> dict:
    return {**{key: value for key, value in config.items() if key != "dice"},
            "dice_per_player": dice_argument(config.get("dice"))}


ROUND = Evaluation(
    "liars-dice", "Liar's Dice: exploitability, and the value against the CFR+ equilibrium", "equilibrium, random",
    score_round, _round_options, read_options=_read_options, mixed=True,
    recorded_names=("liars-dice", "liars_dice"))
MATCH = Evaluation(
    "liars-dice-match", "Liar's Dice, the whole game of losing dice: exploitability, from its round games", "random",
    score_match, _match_options, read_options=_read_options, mixed=True,
    recorded_names=("liars-dice-match", "liars_dice_match"))

#: The evaluations of the round's and the whole game's :mod:`dice_envs.registry` entries.
EVALUATIONS = (ROUND,)
MATCH_EVALUATIONS = (MATCH,)
