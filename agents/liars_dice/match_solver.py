"""The whole game of two-player Liar's Dice, solved from its round games, and any policy's exact exploitability.

A position of :mod:`dice_envs.games.liars_dice.match` between rounds is ``(d0, d1, starter)``.  Its
round ends in one of two ways, each leading to a position with one die fewer, so with
``W`` a player's value of the whole game (``+1`` win, ``-1`` loss),

``W(d0, d1, s) = W_lose + (W_win - W_lose) * (1 + v) / 2``

where ``v`` is that player's value of the round game played for +1/-1
(:class:`~dice_envs.games.liars_dice.rules.LiarsDiceGame` with dice ``(d0, d1)`` and ``s`` first) and
``W_win``, ``W_lose`` are the values of the positions after winning and after losing the
round.  The round's payoffs are a positive affine function of the round's +1/-1 outcome
whenever ``W_win > W_lose`` (checked), so the round game's equilibrium is the whole game's
equilibrium in that round and ``v`` is its value: :func:`solve_match` solves each round
game once (CFR+, :func:`dice_envs.agents.liars_dice.solver.solve`) and combines the values
bottom-up from the positions with the fewest dice.

A whole-game policy (an agent over the match's observations) is scored the same way
(:func:`match_exploitability`): in each round game it is a round policy
(:class:`RoundAgent` rewrites the observations and the actions), whose best-response
values each player's best response to it in the whole game combines; where winning the
round is worth less to the responder than losing it, the round's "losing response" (the
best response to the round's negated payoffs) is used instead.  Round games up to
:data:`dice_envs.agents.liars_dice.streamed.IN_MEMORY_STATES` are evaluated on the whole
public tree, larger ones streamed (:mod:`dice_envs.agents.liars_dice.streamed`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from dice_envs.agents.evaluate.contract import ask_agent
from dice_envs.games.liars_dice.match import LiarsDiceMatchGame
from dice_envs.games.liars_dice.rules import LiarsDiceGame

if TYPE_CHECKING:
    from dice_envs.agents.liars_dice.solver import TreePolicy

__all__ = ["BatchedMatchPolicy", "MatchPolicy", "MatchSolution", "RoundAgent", "combine_intervals", "match_exploitability",
           "match_memory_bytes", "position_intervals", "positions", "solve_match"]

Position = Tuple[int, int, int]  # (player 0's dice, player 1's dice, the round's starter)


def _check(game: LiarsDiceMatchGame) -> None:
    if game.num_players != 2:
        raise ValueError(f"the whole game is solved for two players, got num_players={game.num_players}")


def next_positions(game: LiarsDiceMatchGame, position: Position):
    """``(position after player 0 wins the round, after it loses)``; a position with no dice
    for a player is the end (``(d0, 0, -1)`` or ``(0, d1, -1)``)."""
    d0, d1, _ = position
    loser_starts = game.next_starter == "loser"
    win = (d0, d1 - 1, (1 if loser_starts else 0) if d1 > 1 else -1)
    lose = (d0 - 1, d1, (0 if loser_starts else 1) if d0 > 1 else -1)
    return win, lose


def positions(game: LiarsDiceMatchGame):
    """Every position the game can reach, the start first."""
    _check(game)
    start = (game.dice[0], game.dice[1], game.starting_player)
    seen, todo = [start], [start]
    while todo:
        for nxt in next_positions(game, todo.pop()):
            if nxt[2] >= 0 and nxt not in seen:
                seen.append(nxt)
                todo.append(nxt)
    return seen


def _combine(win: float, lose: float, round_value: float) -> float:
    """A player's whole-game value from its round value ``round_value`` (+1/-1) and the values
    after winning and losing the round."""
    return lose + (win - lose) * (1.0 + round_value) / 2.0


def combine_intervals(win: Tuple[float, float], lose: Tuple[float, float],
                      round_value: Tuple[float, float]) -> Tuple[float, float]:
    """The interval of a position's whole-game value from the intervals of the values after winning
    and losing its round and of the round's value: :func:`_combine` is linear in each of its three
    arguments, so its extremes over the box are at the box's corners (no assumption on their order)."""
    corners = [_combine(w, lo, v) for w in win for lo in lose for v in round_value]
    return min(corners), max(corners)


def position_intervals(game: LiarsDiceMatchGame,
                       round_interval: Callable[[Position], Tuple[float, float]]) -> Dict[Position, Tuple[float, float]]:
    """Player 0's certified interval for the value of every position of the whole game, from an
    interval for each position's round game (``round_interval(position)``, player 0's value of the
    round played for +1/-1), by :func:`combine_intervals` from the positions with the fewest dice up.

    :func:`solve_match` passes its rounds' intervals; a table of round values (exact fractions, or the
    digits a table prints, each read as the interval it rounds) gives the whole game's the same way.
    """
    out: Dict[Position, Tuple[float, float]] = {}

    def interval(position: Position) -> Tuple[float, float]:
        end = _terminal_value(position, 0)
        if end is not None:
            return end, end
        if position not in out:
            win, lose = next_positions(game, position)
            out[position] = combine_intervals(interval(win), interval(lose), round_interval(position))
        return out[position]

    return {p: interval(p) for p in positions(game)}


def _terminal_value(position: Position, player: int) -> Optional[float]:
    d0, d1, _ = position
    if d0 == 0 or d1 == 0:
        won = (d1 == 0) if player == 0 else (d0 == 0)
        return 1.0 if won else -1.0
    return None


@dataclass
class MatchSolution:
    """What :func:`solve_match` returns.

    Attributes:
        value: player 0's value of the whole game (+1 win, -1 loss) at the start.
        values: player 0's value at every position.
        round_values: player 0's value of every position's round game (+1/-1), and the CFR+
            exploitability reached there.
        error_bound: how far ``value`` can be from the exact value (the rounds' exploitabilities,
            propagated).
        intervals: player 0's certified interval for the exact value of every position (the rounds'
            intervals, from their two best responses, propagated by :func:`combine_intervals`).
        round_intervals: player 0's certified interval for every position's round game.
    """

    game: LiarsDiceMatchGame
    value: float
    values: Dict[Position, float]
    round_values: Dict[Position, Tuple[float, float]]
    error_bound: float
    policies: Dict[Position, TreePolicy] = field(default_factory=dict, repr=False)
    intervals: Dict[Position, Tuple[float, float]] = field(default_factory=dict)
    round_intervals: Dict[Position, Tuple[float, float]] = field(default_factory=dict)

    @property
    def value_interval(self) -> Tuple[float, float]:
        """Player 0's certified interval for the whole game's value at the start."""
        return self.intervals[(self.game.dice[0], self.game.dice[1], self.game.starting_player)]

    def policy(self) -> "MatchPolicy":
        """The round equilibria, each played in its round: the whole game's equilibrium."""
        return MatchPolicy(self.game, self.policies)

    @property
    def first_player_advantage(self) -> float:
        """How much more the starting player wins than its opponent: ``P(start wins) - P(other wins)``
        (the starting player's value, +1/-1)."""
        return self.value if self.game.starting_player == 0 else -self.value

    def as_dict(self) -> dict:
        return {"game": "liars_dice_match", **self.game.config(), "value_first_player": self.value,
                "value_interval": list(self.value_interval),
                "first_player_advantage": self.first_player_advantage, "error_bound": self.error_bound,
                "positions": [{"dice": [d0, d1], "starter": s, "value_player_0": v,
                               "value_interval_player_0": list(self.intervals[(d0, d1, s)]),
                               "round_value_player_0": self.round_values[(d0, d1, s)][0],
                               "round_value_interval_player_0": list(self.round_intervals[(d0, d1, s)]),
                               "round_exploitability": self.round_values[(d0, d1, s)][1]}
                              for (d0, d1, s), v in self.values.items()]}


def solve_match(game: LiarsDiceMatchGame, target_exploitability: float = 1e-4, cache_dir=None) -> MatchSolution:
    """The value of the whole two-player game from its round games' CFR+ equilibria.

    Raises:
        ValueError: more than two players, or a round game too large for the CFR+ solver (every
            round not cached is checked before the first is solved; two dice each, 352 M information
            states, needs 10.5 GiB at its peak and takes about half an hour to 1e-3, once: every round
            is cached).
    """
    from dice_envs.agents.liars_dice.solver import check_solve, default_cache_dir, solve

    _check(game)
    cache_dir = cache_dir or default_cache_dir()
    for d0, d1, s in positions(game):
        check_solve(game.round_game((d0, d1), s), target_exploitability, cache_dir=cache_dir,
                    what=f"solving the whole game of {game.first_round.describe()}: its round of {d0} v {d1} dice")
    values: Dict[Position, float] = {}
    round_values: Dict[Position, Tuple[float, float]] = {}
    errors: Dict[Position, float] = {}
    round_intervals: Dict[Position, Tuple[float, float]] = {}
    policies = {}

    def value(position: Position) -> float:
        end = _terminal_value(position, 0)
        if end is not None:
            return end
        if position not in values:
            win, lose = next_positions(game, position)
            w, lo = value(win), value(lose)
            if not w > lo:
                raise ValueError(f"at {position}, winning the round is not worth more than losing it ({w} <= {lo})")
            d0, d1, s = position
            result = solve(game.round_game((d0, d1), s), target_exploitability, cache_dir=cache_dir)
            round_values[position] = (result.value_first_player, result.exploitability)
            policies[position] = result.policy
            v = result.value_first_player
            values[position] = _combine(w, lo, v)
            round_intervals[position] = result.value_interval
            # The round's value is within its NashConv (twice the exploitability) of exact, which
            # moves W by (w - lo) / 2 per unit; the next positions' errors enter with weights
            # (1 + v) / 2 and (1 - v) / 2.
            errors[position] = ((w - lo) * result.exploitability + (1 + v) / 2 * errors.get(win, 0.0)
                                + (1 - v) / 2 * errors.get(lose, 0.0))
        return values[position]

    start = (game.dice[0], game.dice[1], game.starting_player)
    total = value(start)
    ordered = {p: values[p] for p in positions(game)}
    return MatchSolution(game, total, ordered, round_values, errors[start], policies,
                         position_intervals(game, round_intervals.__getitem__),
                         {p: round_intervals[p] for p in ordered})


class MatchPolicy:
    """A policy of the whole game made of one round policy per position (the round equilibria
    of a :class:`MatchSolution`): ``action_probabilities(state)`` for a
    :class:`~dice_envs.games.liars_dice.match.LiarsDiceMatchState` (two players)."""

    def __init__(self, game: LiarsDiceMatchGame, round_policies: Dict[Position, TreePolicy]):
        self.game, self.round_policies = game, round_policies

    def action_probabilities(self, state) -> Dict[int, float]:
        position = (state.dice[0], state.dice[1], state.players[state.round.seat(0)])
        probs = self.round_policies[position].action_probabilities(state.round)
        call = state.round.game.call_action
        return {(self.game.call_action if a == call else a): p for a, p in probs.items()}


class BatchedMatchPolicy:
    """A :class:`MatchPolicy` as a batched opponent (:mod:`dice_envs.envs.vector`) of a
    :class:`~dice_envs.games.liars_dice.match_batched.LiarsDiceMatchBatch`: the games are grouped
    by position, and in each group the public node (this round's bids) and the mover's roll
    select the round policy's probabilities, one array look-up per group."""

    batched = True

    def __init__(self, policy: MatchPolicy):
        self.policy, self.game = policy, policy.game
        g = self.game
        self.base = max(g.dice) + 1
        self.code_weights = self.base ** np.arange(g.faces, dtype=np.int64)
        self.bit = 1 << np.arange(g.num_bids, dtype=np.int64)

    def _roll_codes(self, tree, player: int) -> np.ndarray:
        codes = np.zeros(self.base**self.game.faces, np.int64)
        for r, roll in enumerate(tree.player_rolls[player]):
            codes[np.bincount(np.asarray(roll) - 1, minlength=self.game.faces) @ self.code_weights] = r
        return codes

    def __call__(self, batch, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        g, s = self.game, batch.state
        dice, mover = s["dice"][rows], s["mover"][rows]
        starter = (mover - s["bids"][rows].sum(axis=1)) % 2
        probs = np.zeros((len(rows), g.num_actions))
        keys = dice[:, 0] * 100 + dice[:, 1] * 10 + starter
        for key in np.unique(keys):
            here = np.flatnonzero(keys == key)
            position = (int(key // 100), int(key // 10 % 10), int(key % 10))
            tree_policy = self.policy.round_policies[position]
            tree = tree_policy.tree
            node = s["bids"][rows[here], : tree.B].astype(np.int64) @ self.bit[: tree.B]
            who = mover[here]
            roll = np.zeros(len(here), np.int64)
            for p in (0, 1):
                mine = who == p
                counts = s["counts"][rows[here][mine], p]
                roll[mine] = self._roll_codes(tree, p)[counts @ self.code_weights]
            later = np.arange(tree.B) > tree.highbit[node][:, None]
            children = node[:, None] | self.bit[: tree.B]
            probs[here, : tree.B] = np.where(later, tree_policy.edge[np.where(later, children, 0), roll[:, None]], 0.0)
            probs[here, g.call_action] = np.where(node > 0, tree_policy.call[node, roll], 0.0)
        cumulative = np.cumsum(probs, axis=1)
        u = rng.random(len(rows)) * cumulative[:, -1]
        return np.minimum((u[:, None] >= cumulative).sum(axis=1), g.num_actions - 1)


class RoundAgent:
    """A whole-game agent (over :mod:`dice_envs.games.liars_dice.match` observations) as an agent of
    one round game: round observations are rewritten as the match's (the bids in the first
    slots, the call where the match has it) and the match's probabilities read back."""

    def __init__(self, agent, match: LiarsDiceMatchGame, round_game: LiarsDiceGame, dice: Tuple[int, int]):
        self.agent, self.match, self.round, self.dice = agent, match, round_game, dice
        self.name = getattr(agent, "name", "agent")
        self.kind = getattr(agent, "kind", "function")
        self.observation_size = round_game.observation_shape[0]

    def __call__(self, observations, masks):
        g, r = self.match, self.round
        obs = np.asarray(observations)
        out = np.zeros((len(obs), g.observation_shape[0]), np.float32)
        head = g.num_players + g.faces
        out[:, :head] = obs[:, :head]
        out[:, head : head + r.num_bids] = obs[:, head : head + r.num_bids]
        out[:, g.prefix_size :] = self.dice
        wide = np.zeros((len(obs), g.num_actions), bool)
        wide[:, : r.num_bids] = masks[:, : r.num_bids]
        wide[:, g.call_action] = masks[:, r.call_action]
        probs = ask_agent(self.agent, out, wide, what=f"agent {self.name}")
        return np.concatenate([probs[:, : r.num_bids], probs[:, g.call_action : g.call_action + 1]], axis=1)


def _round_responses(round_game: LiarsDiceGame, agent, losing: Sequence[int] = ()) -> dict:
    """A round policy's figures for :func:`match_exploitability`: each player's best-response
    value (``"best"``), player 0's self-play value (``"value"``) and, for each player in
    ``losing``, the value of its losing response (the best response to the negated payoffs,
    ``"losing": {player: value}``).  Nothing of the round is kept: one round's tree or blocks
    at a time."""
    from dice_envs.agents.liars_dice.streamed import fits_in_memory

    if fits_in_memory(round_game):
        from dice_envs.agents.liars_dice.learned import agent_tree_policy
        from dice_envs.agents.liars_dice.solver import best_response_value, evaluate

        tree, policy = agent_tree_policy(round_game, agent, f"scoring the round {round_game!r} of the whole game in "
                                                            f"memory")
        ev = evaluate(tree, policy)
        negated = copy.copy(tree)
        negated.payoff_t = [-t for t in tree.payoff_t]
        return {"best": list(ev.best_response), "value": ev.value_first_player,
                "losing": {q: best_response_value(negated, policy, q) for q in losing}}
    from dice_envs.agents.liars_dice.streamed import StreamedTree, streamed_evaluate
    from dice_envs.core.resources import announced

    runs = 1 + len(losing)  # the time estimate of the first pass covers the losing responses' passes
    ev = streamed_evaluate(round_game, agent, runs=runs)
    losing_values: Dict[int, float] = {}
    for q in losing:
        negated = StreamedTree(round_game)
        negated.payoff_for = [-t for t in negated.payoff_for]
        with announced():
            losing_values[q] = streamed_evaluate(round_game, agent, tree=negated).best_response[q]
    return {"best": list(ev.best_response), "value": ev.value_first_player, "losing": losing_values}


def match_memory_bytes(game: LiarsDiceMatchGame, agent) -> int:
    """The peak memory of :func:`match_exploitability` scoring ``agent`` on ``game``: its largest
    round's, in memory (:func:`dice_envs.agents.liars_dice.learned.agent_tree_policy_bytes`) or
    streamed (:func:`dice_envs.agents.liars_dice.streamed.memory_bytes`)."""
    from dice_envs.agents.liars_dice.learned import agent_tree_policy_bytes
    from dice_envs.agents.liars_dice.streamed import AgentSource, StreamedTree, fits_in_memory, memory_bytes

    peak = 0
    for d0, d1, s in positions(game):
        round_game = game.round_game((d0, d1), s)
        if fits_in_memory(round_game):
            peak = max(peak, agent_tree_policy_bytes(round_game))
        else:
            tree = StreamedTree(round_game)
            peak = max(peak, memory_bytes(tree, AgentSource(RoundAgent(agent, game, round_game, (d0, d1)), round_game,
                                                            tree)))
    return peak


def match_exploitability(game: LiarsDiceMatchGame, agent, progress=None,
                         round_responses: Optional[Callable[[LiarsDiceGame, Sequence[int]], dict]] = None) -> dict:
    """The exact exploitability of a whole-game policy (``agent(observations, masks)`` over
    the match's observations, both seats): each player's best response to it in the whole
    game, from every round game's best and losing responses.

    The positions are scored from the fewest dice up, so that before a round is scored each
    player's values after winning and after losing it are known, and with them whether its
    losing response is needed; one round is held at a time, so the peak memory is the largest
    round's (:func:`match_memory_bytes`), checked against the limit before any round is scored.

    ``round_responses(round_game, losing)``, where given, computes a round's figures instead of
    walking the round's tree with ``agent`` (``{"best": [player 0's, player 1's], "value":
    player 0's self-play value, "losing": {q: player q's value of the best response to the
    negated payoffs, for each q in losing}}``): uniform play's come from recursions over the
    bids (:func:`dice_envs.agents.liars_dice.evaluation.uniform_round_responses`).
    ``progress(position)`` is called after each round.

    Returns ``{"exploitability", "nash_conv", "best_response": [player 0's, player 1's],
    "value_first_player" (self-play), "positions": {position: round figures}}``.
    """
    _check(game)
    if round_responses is None:  # refused before any round is scored
        from dice_envs.core.resources import check_resources

        check_resources(f"scoring the whole game {game!r} (one round game at a time)", match_memory_bytes(game, agent))
    best: Dict[Tuple[Position, int], float] = {}  # (position, q): q's best-response value of the whole game there
    selfplay: Dict[Position, float] = {}  # player 0's value of the whole game there, both playing the policy
    figures = {}

    def br(position: Position, q: int) -> float:
        end = _terminal_value(position, q)
        return best[(position, q)] if end is None else end

    def value(position: Position) -> float:
        end = _terminal_value(position, 0)
        return selfplay[position] if end is None else end

    for position in sorted(positions(game), key=lambda p: p[0] + p[1]):  # each round's successors have fewer dice
        d0, d1, s = position
        win, lose = next_positions(game, position)
        after = {q: (br(win, q), br(lose, q)) if q == 0 else (br(lose, q), br(win, q)) for q in (0, 1)}
        losing = [q for q, (won, lost) in after.items() if won < lost]  # losing this round is worth more to q
        round_game = game.round_game((d0, d1), s)
        r = (round_responses(round_game, losing) if round_responses is not None
             else _round_responses(round_game, RoundAgent(agent, game, round_game, (d0, d1)), losing))
        for q, (won, lost) in after.items():
            best[(position, q)] = (_combine(won, lost, r["best"][q]) if q not in losing
                                   else _combine(lost, won, r["losing"][q]))
        selfplay[position] = _combine(value(win), value(lose), r["value"])
        figures[position] = r
        if progress is not None:
            progress(position)

    start = (game.dice[0], game.dice[1], game.starting_player)
    responses = [br(start, 0), br(start, 1)]
    nash_conv = responses[0] + responses[1]
    return {"exploitability": nash_conv / 2, "nash_conv": nash_conv, "best_response": responses,
            "value_first_player": value(start),
            "positions": {f"{d0}v{d1} starter {s}": {"best_response": list(r["best"]), "value_player_0": r["value"]}
                          for (d0, d1, s), r in figures.items()}}
