"""Exact scores of any agent, in one shape for every game: ``dice-envs evaluate GAME AGENT``.

:func:`score` takes a game (one of :data:`GAMES`), an agent (a saved model, a
``module:function`` over observations, see :mod:`dice_envs.agents.evaluate.observation_agents`,
or one of the game's named policies) and the game's settings, asks the agent for its
decision in every information state of the game at once, and evaluates that strategy
exactly against the game's optimum: the optimal policy in the jeopardy games (Zombie
Dice, Pig: win probabilities from both seats, the Difference of the All Yellow Zombie
Dice paper), the equilibrium in Liar's Dice and Closest Number (payoffs from both
seats, and the exploitability of the agent's own strategy), and the Bayes-optimal
policy in The Shakes' court (a single decision maker).

Every game answers with the same keys:

``game``, ``agent``, ``agent_type`` (``sb3``, ``torch``, ``function`` or ``builtin``),
``config`` (the game's settings), ``opponent`` (``"optimal"``, ``"equilibrium"`` or
None), ``payoff`` (what ``value`` measures), ``value`` (the agent's expected payoff,
averaged over the seats), ``seats`` (per seat, or None), ``optimal_value`` (what the
optimum gets in the same place), ``gap`` (``value - optimal_value``: 0 is optimal,
negative is worse), ``exploitability`` (NashConv / 2 of the agent's strategy in the
two-player zero-sum games, else None), ``references`` (the ``gap`` of well-known
policies of the game), ``reached`` (for each reference, whether ``gap`` is at least
its gap), ``details`` (game-specific figures) and ``seconds``.
"""

from __future__ import annotations

import inspect
import re
import time
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from dice_envs.agents.evaluate.contract import ask_agent
from dice_envs.agents.evaluate.observation_agents import Agent, FunctionAgent, load_agent

__all__ = ["GAMES", "score"]


def _report(payoff: str, opponent: Optional[str], value: float, optimal_value: float, seats=None,
            exploitability=None, references=None, details=None) -> dict:
    """The common keys a game's scorer fills (``score`` adds the agent's and the game's)."""
    gap = value - optimal_value
    references = {name: float(g) for name, g in (references or {}).items()}
    return {
        "opponent": opponent,
        "payoff": payoff,
        "value": float(value),
        "seats": None if seats is None else {name: float(v) for name, v in seats.items()},
        "optimal_value": float(optimal_value),
        "gap": float(gap),
        "exploitability": None if exploitability is None else float(exploitability),
        "references": references,
        "reached": {name: bool(gap >= g - 1e-12) for name, g in references.items()},
        "details": details or {},
    }


def _jeopardy_report(h2h: dict, differences: Dict[str, float], details=None) -> dict:
    """A head-to-head against the optimal policy (``win_as_first``, ``win_as_second``).

    The All Yellow Zombie Dice paper's Difference is the sum of the two seats' win
    probabilities minus 1, twice ``gap``; ``details["difference"]`` and
    ``details["reference_differences"]`` give it, and ``references`` the gaps."""
    seats = {"first": h2h["win_as_first"], "second": h2h["win_as_second"]}
    details = {"difference": seats["first"] + seats["second"] - 1.0,
               "reference_differences": dict(differences), **(details or {})}
    return _report("win probability against the optimal policy", "optimal", 0.5 * sum(seats.values()), 0.5,
                   seats, None, {name: d / 2 for name, d in differences.items()}, details)


def _check_size(agent: Agent, size: int, what: str) -> None:
    known = agent.observation_size
    if known is not None and known != size:
        raise ValueError(f"{agent.name} takes observations of length {known}; {what} has observations of "
                         f"length {size}: was it trained on another game or observation?")


def _two_action_probability(agent: Agent, observations: np.ndarray) -> np.ndarray:
    """P(action 1) (roll) where both actions are legal."""
    return ask_agent(agent, observations, np.ones((len(observations), 2), bool), what=f"agent {agent.name}")[:, 1]


def _goal(spec, goal: Optional[int], default: int) -> int:
    """``goal`` if given, else the one a model's description records, else ``default``."""
    from dice_envs.core.validation import check_int

    if goal is None and isinstance(spec, Agent):
        goal = spec.info.get("goal")
    return check_int("goal", default if goal is None else goal, 1)


# -- All Yellow Zombie Dice ----------------------------------------------------------------


def _ayzd(spec, goal: Optional[int] = None, stop_when_won: bool = True) -> dict:
    from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
    from dice_envs.agents.zombie_dice.ayzd_solver import solved
    from dice_envs.agents.zombie_dice.learned import exact_score, resolve_policy
    from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES, PUBLISHED_DIFFERENCES
    from dice_envs.games.zombie_dice.rules import COMPACT_SIZE, compact_observation

    goal = _goal(spec, goal, 13)
    if isinstance(spec, Agent):
        agent = spec
        _check_size(agent, COMPACT_SIZE, "All Yellow Zombie Dice (observation='compact')")

        def policy(p, i, j, b, s):
            p, i, j, b, s = np.broadcast_arrays(*(np.asarray(x) for x in (p, i, j, b, s)))
            obs = compact_observation(p, i, j, b, s, goal, rolled=1).reshape(-1, COMPACT_SIZE)
            return _two_action_probability(agent, obs).reshape(p.shape)
    else:
        policy = resolve_policy(spec, goal, stop_when_won)
    result = exact_score(policy, goal, stop_when_won)
    optimal = solved(goal, stop_when_won)
    references = {name: ayzd.head_to_head(
        human if goal == 13 else (lambda p, i, j, b, s, h=human: h(p, i, j, b, s, goal=goal)),
        optimal.as_policy(), goal, optimal.score_cap, stop_when_won).difference
        for name, human in HUMAN_POLICIES.items()}
    details: Dict[str, Any] = {"score_cap": optimal.score_cap}
    if goal == 13:
        details["published"] = dict(PUBLISHED_DIFFERENCES)
    return {**_jeopardy_report(result, references, details), "config": {"goal": goal, "stop_when_won": stop_when_won}}


# -- Zombie Dice, official dice --------------------------------------------------------------


def _zombie_dice(spec, goal: Optional[int] = None, score_cap: Optional[int] = None,
                 stop_when_won: Optional[bool] = None) -> dict:
    from dice_envs.agents.zombie_dice import solver as zds
    from dice_envs.core.encodings import ENCODINGS
    from dice_envs.games.zombie_dice.rules import ZombieDiceGame

    goal = _goal(spec, goal, 13)
    if score_cap is None and isinstance(spec, Agent):
        score_cap = spec.info.get("score_cap")
    if stop_when_won is None:  # a model trained on the rules as written is scored on them
        stop_when_won = bool(spec.info.get("stop_when_won", True)) if isinstance(spec, Agent) else True
    solution = zds.solved(goal, score_cap)
    standard = zds.standard_policies(goal)
    policy: zds.TurnPolicy
    if isinstance(spec, Agent):
        agent = spec
        # A model trained on observation="scaled" or "fourier" (its model.json says so) sees that encoding;
        # without model.json, the encoding whose size the network takes.
        game = ZombieDiceGame(2, "official", goal)
        sizes = {len(game.encoded_bounds(kind)[0]): kind for kind in ("full", "fourier")}
        kind = agent.info.get("observation") or sizes.get(agent.observation_size or 24, "full")
        if kind not in ENCODINGS:
            raise ValueError(f"{agent.name} was trained on observation={kind!r}; the official dice' are "
                             f"{list(ENCODINGS)}")
        _check_size(agent, len(game.encoded_bounds(kind)[0]),
                    f"Zombie Dice with the official dice (observation={kind!r})")
        layers = _mlp_layers(agent)
        if layers is not None:  # the same greedy decisions, several times faster (zds.NetworkPolicy)
            policy = zds.NetworkPolicy(*layers, observation=kind, goal=goal, name=agent.name)
        else:
            policy = zds.ObservationPolicy(
                lambda obs: _two_action_probability(agent, game.encoded_observation(obs, kind)), goal, agent.name)
    elif spec == "optimal":
        policy = solution.as_policy()
    elif spec in standard:
        policy = standard[spec]
    else:
        raise ValueError(f"agent must be a saved model (.zip), module:function or one of "
                         f"{['optimal', *standard]}, got {spec!r}")
    h2h = zds.head_to_head(policy, solution.as_policy(), goal, solution.score_cap, stop_when_won).as_dict()
    references = zds.human_differences(goal, solution.score_cap, stop_when_won)
    return {**_jeopardy_report(h2h, references, {"score_cap": solution.score_cap}),
            "config": {"goal": goal, "score_cap": solution.score_cap, "stop_when_won": stop_when_won}}


def _mlp_layers(agent: Agent) -> Optional[Tuple[List[np.ndarray], List[np.ndarray], str]]:
    """``(weights, biases, activation)`` of a greedy SB3 network's policy MLP, as
    :class:`dice_envs.agents.zombie_dice.solver.NetworkPolicy` takes them, or None if the
    agent is not one (a function, a stochastic or an unusual network)."""
    import torch

    from dice_envs.agents.evaluate.observation_agents import NetworkAgent

    if not isinstance(agent, NetworkAgent) or not agent.greedy:
        return None
    policy = agent.policy
    hidden = list(getattr(getattr(policy, "mlp_extractor", None), "policy_net", []))
    head = getattr(policy, "action_net", None)
    linear = [m for m in hidden if isinstance(m, torch.nn.Linear)]
    activations = {type(m) for m in hidden if not isinstance(m, torch.nn.Linear)}
    names = {torch.nn.ReLU: "relu", torch.nn.Tanh: "tanh"}
    flat = type(getattr(policy, "features_extractor", None)).__name__ == "FlattenExtractor"
    if not (flat and isinstance(head, torch.nn.Linear) and len(activations) <= 1 and activations <= set(names)):
        return None
    layers = linear + [head]
    weights = [m.weight.detach().numpy().T.copy() for m in layers]
    biases = [m.bias.detach().numpy().copy() for m in layers]
    return weights, biases, names[activations.pop()] if activations else "relu"


# -- Pig ---------------------------------------------------------------------------------


def _pig(spec, goal: Optional[int] = None, die=None) -> dict:
    from dice_envs.agents.pig.learned import exact_score
    from dice_envs.agents.pig.opponents import resolve_policy
    from dice_envs.games.pig.rules import OBSERVATIONS, PigGame

    game = PigGame(_goal(spec, goal, 100), die)
    if isinstance(spec, Agent):
        agent = spec
        kind = agent.info.get("observation") or _pig_observation_kind(agent, game)
        if kind not in OBSERVATIONS:
            raise ValueError(f"{agent.name} was trained on observation={kind!r}; Pig's are {list(OBSERVATIONS)}")
        _check_size(agent, len(game.encoded_bounds(kind)[1]), f"Pig (observation={kind!r})")

        def policy(i, j, k):
            shape = np.broadcast_shapes(np.shape(i), np.shape(j), np.shape(k))
            return _two_action_probability(agent, game.position_observation(i, j, k, kind)).reshape(shape)
    else:
        policy = resolve_policy(spec, game)
    result = exact_score(policy, game.goal, game.die)
    # pig_learned's references are Differences
    return {**_jeopardy_report(result, result["references"]), "config": {"goal": game.goal, "die": game.die}}


def _pig_observation_kind(agent: Agent, game) -> str:
    """The observation of Pig-v0 whose bounds a network recorded (``"full"`` when none match)."""
    from dice_envs.agents.pig.learned import observation_kind

    space = getattr(getattr(agent, "policy", None), "observation_space", None)
    return observation_kind(getattr(space, "high", np.inf), game) or "full"


# -- Liar's Dice --------------------------------------------------------------------------


def _liars_dice(spec, faces: Optional[int] = None, dice_per_player=None, wild=None, exploitability: float = 1e-4,
                cache_dir=None) -> dict:
    from dice_envs.agents.liars_dice.learned import (
        InfoStates,
        LiarsDiceNetworkAgent,
        equilibrium_if_cheap,
        exact_scores,
    )
    from dice_envs.agents.liars_dice.solver import PublicTree
    from dice_envs.games.liars_dice.rules import LiarsDiceGame, check_wild

    asked = {"faces": faces, "dice_per_player": dice_per_player, "wild": wild}
    recorded: dict = {}  # the game a model records it was trained on
    if isinstance(spec, Agent):
        recorded = spec.learned.game.config() if isinstance(spec, LiarsDiceNetworkAgent) else spec.info
    same = {"faces": lambda a, b: a == b, "wild": lambda a, b: check_wild(a) == check_wild(b),
            "dice_per_player": lambda a, b: LiarsDiceGame(dice_per_player=a).dice == LiarsDiceGame(dice_per_player=b).dice}
    for key, value in asked.items():
        if value is not None and key in recorded and not same[key](value, recorded[key]):
            raise ValueError(f"--{key.replace('_per_player', '')} {value} does not match the game {spec.name} was "
                             f"trained on ({ {k: recorded[k] for k in asked if k in recorded} })")
    if isinstance(spec, LiarsDiceNetworkAgent):  # kind "torch"
        game = spec.learned.game
    else:
        chosen = {key: asked[key] if asked[key] is not None else recorded.get(key) for key in asked}
        game = LiarsDiceGame(faces=6 if chosen["faces"] is None else chosen["faces"],
                             dice_per_player=1 if chosen["dice_per_player"] is None else chosen["dice_per_player"],
                             wild=False if chosen["wild"] is None else chosen["wild"])
    config = {**game.config(), "exploitability": exploitability}
    from dice_envs.agents.liars_dice.streamed import fits_in_memory

    # The whole tree in memory only to compare with an equilibrium at hand; else streamed, which
    # is lighter and faster (one die against two, a 2x256 MLP: 80 s and 2.2 GB in memory).
    eq = equilibrium_if_cheap(game, exploitability, cache_dir) if fits_in_memory(game) else None
    if eq is None and spec not in ("equilibrium", "optimal"):
        return {**_liars_dice_streamed(spec, game), "config": config}
    tree = PublicTree(game)
    states = InfoStates(tree)
    if isinstance(spec, Agent):
        obs = states.obs
        if spec.observation_size == game.prefix_size:  # trained on dice_envs 0.1's observation, without the counts
            obs = obs[:, : game.prefix_size]
        else:
            _check_size(spec, int(game.observation_shape[0]), repr(game))
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
    report = _report("payoff (+1 win, -1 loss) against the CFR+ equilibrium", "equilibrium",
                     scores["value_vs_equilibrium"], 0.0, seats, scores["exploitability"],
                     {"random": uniform["value_vs_equilibrium"]}, details)
    return {**report, "config": config}


def _best_response_report(nash_conv: float, best_responses, uniform_exploitability: Optional[float],
                          why: str) -> dict:
    """A Liar's Dice report without an equilibrium: the agent's value against a best response
    from each seat (``-best response value``), whose mean is ``-exploitability``."""
    seats = {"first": -best_responses[1], "second": -best_responses[0]}
    references = {} if uniform_exploitability is None else {"random": -uniform_exploitability}
    details = {"equilibrium": f"{why}; the value is against a best response (-exploitability, averaged over the "
                              "seats)",
               "reference_exploitability": {"random": uniform_exploitability}}
    return _report("payoff (+1 win, -1 loss) against a best response", "best_response", 0.5 * sum(seats.values()),
                   0.0, seats, nash_conv / 2, references, details)


def _liars_dice_streamed(spec, game) -> dict:
    """Liar's Dice beyond the in-memory tree: the exploitability streamed in blocks."""
    from dice_envs.agents.liars_dice.streamed import streamed_evaluate

    if isinstance(spec, Agent):
        agent = spec
    elif spec in ("random", "uniform"):
        agent = _uniform_liars_dice_agent()
    else:
        raise ValueError(f"{game.describe()} is scored streamed, without an equilibrium, for an agent over "
                         f"observations (a saved model, module:function) or 'random'; got {spec!r}")
    if agent.observation_size not in (None, game.prefix_size):
        _check_size(agent, int(game.observation_shape[0]), repr(game))
    ev = streamed_evaluate(game, agent, progress=_block_progress(f"scoring {agent.name}"))
    uniform = ev if agent.kind == "builtin" else streamed_evaluate(
        game, _uniform_liars_dice_agent(), progress=_block_progress("scoring the uniform policy"))
    return _best_response_report(ev.nash_conv, ev.best_response, uniform.exploitability,
                                 "not cached, and too large to solve for a report (the exploitability is streamed "
                                 "over the public tree)")


def _liars_dice_match(spec, faces: Optional[int] = None, dice_per_player=None, wild=None, starting_player: int = 0,
                      next_starter: str = "loser") -> dict:
    """The whole game: the exact exploitability of a whole-game policy, from its round games."""
    from dice_envs.agents.liars_dice.match_solver import match_exploitability
    from dice_envs.games.liars_dice.match import LiarsDiceMatchGame

    game = LiarsDiceMatchGame(2, 2 if dice_per_player is None else dice_per_player, 6 if faces is None else faces,
                              "aces" if wild is None else wild, starting_player, next_starter)
    if isinstance(spec, Agent):
        _check_size(spec, int(game.observation_shape[0]), repr(game))
        agent = spec
    elif spec in ("random", "uniform"):
        agent = _uniform_liars_dice_agent()
    else:
        raise ValueError(f"agent must be a saved model, module:function or 'random', got {spec!r}")
    result = match_exploitability(game, agent)
    uniform = result if agent.kind == "builtin" else match_exploitability(game, _uniform_liars_dice_agent())
    report = _best_response_report(result["nash_conv"], result["best_response"], uniform["exploitability"],
                                   "the whole game's is solved only up to three dice in play")
    report["details"]["value_self_play_player_0"] = result["value_first_player"]
    report["details"]["rounds"] = result["positions"]
    return {**report, "config": game.config()}


def _block_progress(what: str):
    """A progress line on a terminal's stderr for a streamed evaluation (None elsewhere)."""
    import sys

    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        print(f"\r{what}: block {done} of {total}", end="\n" if done == total else "", file=sys.stderr, flush=True)

    return show


def _uniform_liars_dice_agent() -> Agent:
    from dice_envs.agents.evaluate.contract import uniform_agent

    return FunctionAgent(uniform_agent, "random", kind="builtin")


# -- The Shakes (the court) and Closest Number ---------------------------------------------


def _named_observation_agent(game: str, spec: str, names: Dict[str, Callable]) -> Agent:
    if spec not in names:
        raise ValueError(f"agent must be a saved model (.zip), module:function or one of {sorted(names)}, "
                         f"got {spec!r}")
    return FunctionAgent(names[spec](), spec, kind="builtin")


def _shakes(spec, num_players: int = 4, objective: str = "win") -> dict:
    from dice_envs.agents.shakes import evaluation as shakes_evaluation

    agent = spec if isinstance(spec, Agent) else _named_observation_agent(
        "shakes", spec, shakes_evaluation.named_agents(num_players, objective))
    result = shakes_evaluation.score_agent(agent, num_players=num_players, objective=objective)
    payoff = "team win probability" if objective == "win" else "expected patients saved"
    return _report(payoff, None, result["value"], result["optimal_value"], None, None,
                   result["references"], {"states": result["states"]})


def _closest_number(spec, numbers: int = 10, round3: str = "two_cards") -> dict:
    from dice_envs.agents.closest_number import evaluation as closest_number_evaluation

    agent = spec if isinstance(spec, Agent) else _named_observation_agent(
        "closest-number", spec, closest_number_evaluation.named_agents(numbers, round3))
    result = closest_number_evaluation.score_agent(agent, numbers=numbers, round3=round3)
    seats = {"first": result["value_as_first"], "second": result["value_as_second"]}
    return _report("payoff (+1 win, -1 loss, 0 draw) against the equilibrium", "equilibrium", result["value"],
                   result["optimal_value"], seats, result["exploitability"], result["references"],
                   {key: result[key] for key in sorted(result.keys() - {
                       "value", "value_as_first", "value_as_second", "optimal_value", "gap", "exploitability",
                       "references", "numbers", "round3", "seconds"})})


#: Each game's scorer, with its settings (the keyword arguments of :func:`score`).
GAMES: Dict[str, Callable[..., dict]] = {
    "ayzd": _ayzd,
    "zombie-dice": _zombie_dice,
    "pig": _pig,
    "liars-dice": _liars_dice,
    "liars-dice-match": _liars_dice_match,
    "shakes": _shakes,
    "closest-number": _closest_number,
}

#: The names the training scripts record for a game (``model.json``, ``dice_envs.json``), by :data:`GAMES` key.
RECORDED_NAMES = {"ayzd": ("ayzd", "all_yellow_zombie_dice"), "zombie-dice": ("zombie-dice", "zombie_dice"),
                  "pig": ("pig",), "liars-dice": ("liars-dice", "liars_dice"),
                  "liars-dice-match": ("liars-dice-match", "liars_dice_match"), "shakes": ("shakes",),
                  "closest-number": ("closest-number", "closest_number")}


def _check_recorded_game(spec, game: str) -> None:
    """Refuse a model whose description records another game than ``game``, naming both."""
    recorded = spec.info.get("game") if isinstance(spec, Agent) else None
    if recorded is not None and recorded not in RECORDED_NAMES[game]:
        raise ValueError(f"{spec.name} was trained on {recorded!r}, not on {game!r}: score it with "
                         f"dice-envs evaluate GAME for its own game")


#: A name the game understands itself (a built-in policy), not a file or a function.
_BUILTIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


#: Games whose optimum is a mixed strategy: networks are scored on their probabilities there
#: unless asked otherwise; elsewhere on their greedy decisions.
MIXED = ("liars-dice", "liars-dice-match", "closest-number")


def score(game: str, agent, greedy: Optional[bool] = None, **config) -> dict:
    """Score ``agent`` exactly in ``game`` with ``config`` (see the module docstring).

    Args:
        game: one of :data:`GAMES`.
        agent: an :class:`~dice_envs.agents.evaluate.observation_agents.Agent`, a path to a saved
            model, ``module:function``, or a name the game knows (``optimal``, ``random``,
            the human-playable Zombie Dice policies, ``hold_at_20``...).
        greedy: score a loaded network's greedy decisions or its probabilities (default:
            probabilities in the games of :data:`MIXED`, greedy decisions elsewhere).
        config: the game's settings (``goal``, ``faces``, ``num_players``...).

    Raises:
        ValueError: an unknown game, agent or setting, or an agent that does not fit the game.
    """
    if game not in GAMES:
        raise ValueError(f"game must be one of {list(GAMES)}, got {game!r}")
    t0 = time.perf_counter()
    greedy = game not in MIXED if greedy is None else greedy
    spec: Union[Agent, str]
    if isinstance(agent, Agent):
        name, kind, spec = agent.name, agent.kind, agent
    elif isinstance(agent, str) and _BUILTIN.fullmatch(agent):
        name, kind, spec = agent, "builtin", agent
    else:
        spec = load_agent(agent, greedy)
        name, kind = str(agent), spec.kind
    _check_recorded_game(spec, game)
    scorer = GAMES[game]
    settings = dict(list(inspect.signature(scorer).parameters.items())[1:])
    unknown = config.keys() - settings.keys()
    if unknown:
        raise ValueError(f"{game} has no setting {sorted(unknown)}; its settings are {list(settings)}")
    config = {key: value for key, value in config.items() if value is not None}
    result = scorer(spec, **config)
    effective = result.pop("config", None) or {key: config.get(key, parameter.default)
                                               for key, parameter in settings.items()}
    return {"game": game.replace("-", "_"), "agent": name, "agent_type": kind, "config": effective, **result,
            "seconds": time.perf_counter() - t0}
