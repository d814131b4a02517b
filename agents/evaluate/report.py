"""The one shape of an exact score, and what every game's scorer shares.

A game's room describes how its agents are scored with an :class:`Evaluation` (the name
``dice-envs evaluate`` knows it by, its settings' command-line options, where the function that
scores is), listed in its :mod:`dice_envs.registry` entry's ``evaluations``.
:func:`score_agent` runs one: it turns what a user names into an agent, checks the settings
and the game the agent was trained on, and adds the keys every report carries.

Every report has the same keys:

``game``, ``agent``, ``agent_type`` (``sb3``, ``torch``, ``rllib``, ``function``, ``openspiel`` (an
OpenSpiel policy) or ``builtin``), ``config`` (the game's settings), ``opponent`` (``"optimal"``,
``"equilibrium"``, ``"best_response"`` or None), ``payoff`` (what ``value`` measures),
``value`` (the agent's expected payoff, averaged over the seats), ``seats`` (per seat, or None),
``optimal_value`` (what the optimum gets in the same place), ``gap`` (``value -
optimal_value``: 0 is optimal, negative is worse), ``exploitability`` (NashConv / 2 of the
agent's strategy in the two-player zero-sum games, else None), ``value_against_equilibrium`` (the
agent's value against an equilibrium, averaged over the seats, where it was asked for and is not
``value`` itself, else None), ``references`` (the ``gap`` of
well-known policies of the game), ``reached`` (for each reference, whether ``gap`` is at least
its gap), ``details`` (game-specific figures) and ``seconds``.
"""

from __future__ import annotations

import argparse
import inspect
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

import numpy as np

from dice_envs.agents.evaluate.contract import ask_agent, uniform_agent
from dice_envs.agents.evaluate.observation_agents import Agent, FunctionAgent, load_agent
from dice_envs.core.validation import check_int
from dice_envs.registry import load

__all__ = ["Evaluation", "score_agent", "report", "jeopardy_report", "best_response_report", "check_size",
           "two_action_probability", "goal_of", "named_agent", "random_agent", "block_progress", "print_report"]


def _unchanged(config: dict) -> dict:
    return config


@dataclass(frozen=True)
class Evaluation:
    """How one game's agents are scored exactly (``dice-envs evaluate NAME AGENT``).

    Attributes:
        name: the game's name on the command line (``"liars-dice"``).
        help: one line on what is measured, against what.
        policies: the policies the game names itself (``"optimal, hold_at_N, random"``), for the help.
        score: ``"module:function"`` of ``score(agent, **settings) -> dict`` (loaded when an agent
            is scored, so that declaring the command stays cheap), where ``agent`` is an
            :class:`~dice_envs.agents.evaluate.observation_agents.Agent` or a policy's name, and the
            keyword arguments (all with defaults, ``None`` meaning "the model's, else the game's
            default") are the game's settings.  It returns :func:`report`'s keys, and ``"config"``
            when the settings it used differ from the arguments it was given.
        add_options: adds the settings' options to the game's ``evaluate`` parser.
        read_options: turns the parsed options (a dict) into ``score``'s settings.
        printable: the settings as JSON (``"die"`` as a summary, say).
        mixed: the optimum is a mixed strategy, so networks are scored on their probabilities
            (else on their greedy decisions), unless asked otherwise.
        recorded_names: the names the training runs record for this game (``model.json``): a
            model that records another is refused.
        own_agents: ``"module:function"`` of ``own_agents(agent, greedy, settings) -> Agent or None``,
            the game's own reading of what a user names (an object, a file, ``module:attr``: OpenSpiel's
            policies and networks in Liar's Dice), tried before the generic loaders (``None``: not one
            of its kinds); ``settings`` are the game's settings as given.
    """

    name: str
    help: str
    policies: str
    score: str
    add_options: Callable[[argparse.ArgumentParser], None]
    read_options: Callable[[dict], dict] = _unchanged
    printable: Callable[[dict], dict] = _unchanged
    mixed: bool = False
    recorded_names: Tuple[str, ...] = ()
    own_agents: Optional[str] = None

    @property
    def scorer(self) -> Callable[..., dict]:
        """The function ``score`` names."""
        return load(self.score)

    @property
    def settings(self) -> Dict[str, inspect.Parameter]:
        """The scorer's settings by name (every parameter after the agent)."""
        return dict(list(inspect.signature(self.scorer).parameters.items())[1:])


#: A name the game understands itself (a built-in policy), not a file or a function.
_BUILTIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def score_agent(evaluation: Evaluation, agent: Union[Agent, str], greedy: Optional[bool] = None,
                **config: Any) -> dict:
    """Score ``agent`` exactly with ``evaluation`` and the game's settings ``config``.

    Args:
        evaluation: the game's :class:`Evaluation`.
        agent: an :class:`~dice_envs.agents.evaluate.observation_agents.Agent`, a path to a saved
            model, ``module:function``, a policy the game names, or an object of the game's own
            kinds (:attr:`Evaluation.own_agents`).
        greedy: score a loaded network's greedy decisions or its probabilities (default:
            probabilities where the optimum is mixed, greedy decisions elsewhere).
        config: the game's settings; ``None`` values are left to their defaults.

    Raises:
        ValueError: an unknown agent or setting, or an agent that does not fit the game.
    """
    t0 = time.perf_counter()
    greedy = not evaluation.mixed if greedy is None else greedy
    spec: Union[Agent, str]
    if isinstance(agent, Agent):
        name, kind, spec = agent.name, agent.kind, agent
    elif isinstance(agent, str) and _BUILTIN.fullmatch(agent):
        name, kind, spec = agent, "builtin", agent
    else:
        own = load(evaluation.own_agents)(agent, greedy, config) if evaluation.own_agents else None
        spec = own if own is not None else load_agent(agent, greedy)
        name, kind = (str(agent) if isinstance(agent, str) else spec.name), spec.kind
    recorded = spec.info.get("game") if isinstance(spec, Agent) else None
    if recorded is not None and recorded not in evaluation.recorded_names:
        raise ValueError(f"{name} was trained on {recorded!r}, not on {evaluation.name!r}: score it with "
                         f"dice-envs evaluate GAME for its own game")
    settings = evaluation.settings
    unknown = config.keys() - settings.keys()
    if unknown:
        raise ValueError(f"{evaluation.name} has no setting {sorted(unknown)}; its settings are {list(settings)}")
    config = {key: value for key, value in config.items() if value is not None}
    result = evaluation.scorer(spec, **config)
    effective = result.pop("config", None) or {key: config.get(key, parameter.default)
                                               for key, parameter in settings.items()}
    return {"game": evaluation.name.replace("-", "_"), "agent": name, "agent_type": kind, "config": effective,
            **result, "seconds": time.perf_counter() - t0}


def report(payoff: str, opponent: Optional[str], value: float, optimal_value: float,
           seats: Optional[Mapping[str, float]] = None, exploitability: Optional[float] = None,
           references: Optional[Mapping[str, float]] = None, details: Optional[dict] = None,
           value_against_equilibrium: Optional[float] = None) -> dict:
    """The keys a game's scorer fills (:func:`score_agent` adds the agent's and the game's)."""
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
        "value_against_equilibrium": None if value_against_equilibrium is None else float(value_against_equilibrium),
        "references": references,
        "reached": {name: bool(gap >= g - 1e-12) for name, g in references.items()},
        "details": details or {},
    }


def jeopardy_report(head_to_head: Mapping[str, float], differences: Mapping[str, float],
                    details: Optional[dict] = None) -> dict:
    """The report of a head-to-head against the optimal policy (``win_as_first``, ``win_as_second``).

    The Difference of Neller et al.'s All Yellow Zombie Dice paper is the sum of the two seats'
    win probabilities minus 1, twice ``gap``; ``details["difference"]`` and
    ``details["reference_differences"]`` give it, and ``references`` the gaps."""
    seats = {"first": head_to_head["win_as_first"], "second": head_to_head["win_as_second"]}
    details = {"difference": seats["first"] + seats["second"] - 1.0,
               "reference_differences": dict(differences), **(details or {})}
    return report("win probability against the optimal policy", "optimal", 0.5 * sum(seats.values()), 0.5,
                  seats, None, {name: d / 2 for name, d in differences.items()}, details)


def best_response_report(nash_conv: float, best_responses, uniform_exploitability: Optional[float],
                         why: str) -> dict:
    """A two-player zero-sum report without an equilibrium: the agent's value against a best
    response from each seat (``-best response value``), whose mean is ``-exploitability``;
    ``details["best_response_values"]`` are the best responses' values, player 0's and player 1's."""
    seats = {"first": -best_responses[1], "second": -best_responses[0]}
    references = {} if uniform_exploitability is None else {"random": -uniform_exploitability}
    details = {"equilibrium": f"{why}; the value is against a best response (-exploitability, averaged over the "
                              "seats)",
               "best_response_values": [float(v) for v in best_responses],
               "reference_exploitability": {"random": uniform_exploitability}}
    return report("payoff (+1 win, -1 loss) against a best response", "best_response", 0.5 * sum(seats.values()),
                  0.0, seats, nash_conv / 2, references, details)


def check_size(agent: Agent, size: int, what: str) -> None:
    """``ValueError`` where ``agent`` records observations of another length than ``size``."""
    known = agent.observation_size
    if known is not None and known != size:
        raise ValueError(f"{agent.name} takes observations of length {known}; {what} has observations of "
                         f"length {size}: was it trained on another game or observation?")


def two_action_probability(agent: Agent, observations: np.ndarray) -> np.ndarray:
    """The agent's probability of action 1 (roll) where both actions are legal."""
    return ask_agent(agent, observations, np.ones((len(observations), 2), bool), what=f"agent {agent.name}")[:, 1]


def goal_of(spec: Union[Agent, str], goal: Optional[int], default: int) -> int:
    """``goal`` if given, else the one a model's description records, else ``default``."""
    if goal is None and isinstance(spec, Agent):
        goal = spec.info.get("goal")
    return check_int("goal", default if goal is None else goal, 1)


def named_agent(spec: str, names: Mapping[str, Callable[[], Any]]) -> Agent:
    """The observation agent a game names ``spec`` (``names``: name -> a function that makes it)."""
    if spec not in names:
        raise ValueError(f"agent must be a saved model (.zip), module:function or one of {sorted(names)}, "
                         f"got {spec!r}")
    return FunctionAgent(names[spec](), spec, kind="builtin")


def random_agent() -> Agent:
    """The uniform policy over the legal actions, as a built-in agent called ``random``."""
    return FunctionAgent(uniform_agent, "random", kind="builtin")


def block_progress(what: str) -> Optional[Callable[[int, int], None]]:
    """A progress line on a terminal's stderr for work done in blocks (None elsewhere)."""
    import sys

    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        print(f"\r{what}: block {done} of {total}", end="\n" if done == total else "", file=sys.stderr, flush=True)

    return show


def print_report(result: dict) -> None:
    """A report as a few lines of text."""
    settings = ", ".join(f"{key} {value['name'] if isinstance(value, dict) else value}"
                         for key, value in result["config"].items() if value is not None and key != "cache_dir")
    print(f"{result['agent']} ({result['agent_type']}) in {result['game']} ({settings}), exact:")
    print(f"  {result['payoff']}: {result['value']:.6f}" + (
        "" if result["seats"] is None else
        f" (as first {result['seats']['first']:.6f}, as second {result['seats']['second']:.6f})"))
    best = {"optimal": "the optimal policy", "equilibrium": "the equilibrium",
            "best_response": "an equilibrium"}.get(result["opponent"], "the optimum")
    print(f"  {best} in its place: {result['optimal_value']:.6f}; gap {result['gap']:+.6f}")
    if "difference" in result["details"]:
        print(f"  Difference (both seats' win probabilities - 1): {result['details']['difference']:+.6f}")
    if result["exploitability"] is not None:
        print(f"  exploitability (NashConv/2): {result['exploitability']:.6f}")
    for name, gap in result["references"].items():
        print(f"  {name:22s} gap {gap:+.6f}: {'reached' if result['reached'][name] else 'not reached'}")
