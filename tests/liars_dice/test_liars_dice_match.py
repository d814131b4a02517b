"""The whole game of Liar's Dice (rounds until one player has dice left): rules, environment,
its value from the round games, and any policy's exact exploitability.

Pinned against independent computations: the explicit game tree of the whole game (the
generic best response and expected returns of :mod:`dice_envs.agents.solve.exploitability`) for
the exploitability and self-play value of any policy, and for the value of the combined
round equilibria; PettingZoo's api and seed tests; hypothesis play for the rules."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from dice_envs import liars_dice_match_v0
from dice_envs.agents.evaluate.contract import uniform_agent
from dice_envs.agents.liars_dice.match_solver import match_exploitability, positions, solve_match
from dice_envs.agents.solve import exploitability as generic
from dice_envs.agents.solve.game_tree import build_tree
from dice_envs.agents.solve.sequence_form import solve_lp
from dice_envs.core.game import IllegalActionError
from dice_envs.games.liars_dice.match import LiarsDiceMatchGame


@pytest.mark.parametrize("kwargs", [dict(), dict(dice_per_player=(2, 1), faces=4, wild="highest"),
                                    dict(num_players=3, dice_per_player=(1, 3, 2), faces=4, starting_player=2,
                                         next_starter="winner")])
def test_api(kwargs):
    api_test(liars_dice_match_v0.env(**kwargs), num_cycles=500)


def test_seed():
    seed_test(lambda: liars_dice_match_v0.env(num_players=3, dice_per_player=2, faces=3), num_cycles=500)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), num_players=st.integers(2, 4), dice=st.integers(1, 3),
       faces=st.integers(2, 6), wild=st.sampled_from(["none", "highest", "aces"]),
       next_starter=st.sampled_from(["loser", "winner"]))
def test_random_play_follows_the_rules(seed, num_players, dice, faces, wild, next_starter):
    game = LiarsDiceMatchGame(num_players, dice, faces, wild, 0, next_starter)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    rounds = 0
    while not state.is_terminal():
        if state.is_chance_node():
            before = state.dice
            state = state.apply(state.sample_chance(rng))
            in_play = sum(before)
            continue
        legal = state.legal_actions()
        assert all(game.bid(a)[0] <= in_play if a != game.call_action else True for a in legal)
        if rng.random() < 0.2:
            with pytest.raises(IllegalActionError):
                state.apply(game.num_actions)
        mover, round_state = state.current_player, state.round
        action = int(rng.choice(legal))
        after = state.apply(action)
        if action == game.call_action:
            rounds += 1
            loser = state.players[round_state.apply(round_state.game.call_action).caller] if round_state.game.bid_is_true(
                round_state.bids[-1], round_state.rolls) else state.players[round_state.bidder]
            assert sum(after.dice) == sum(state.dice) - 1 and after.dice[loser] == state.dice[loser] - 1
            if not after.is_terminal():
                winner = mover if loser != mover else state.players[round_state.bidder]
                starter = after.round.seat(0)
                first = after.players[starter]
                if next_starter == "winner":
                    assert first == winner
                elif after.dice[loser] > 0:
                    assert first == loser
        state = after
    assert rounds == sum(game.dice) - max(state.dice)
    returns = state.returns()
    assert returns[state.winner] == 1.0 and sum(returns) == pytest.approx(0.0)
    assert [p for p, n in enumerate(state.dice) if n > 0] == [state.winner]


def test_observation_and_action_layout():
    game = LiarsDiceMatchGame(dice_per_player=2, wild="aces")
    assert game.num_actions == 4 * 6 + 1 and game.observation_shape == (2 + 6 + 25 + 2,)
    state = game.new_initial_state().apply(((1, 6), (3, 3))).apply(game.bid_action(2, 6))
    obs = state.observation(1)
    assert obs[:2].tolist() == [0, 1] and obs[2:8].tolist() == [0, 0, 2, 0, 0, 0]
    assert obs[8 + 11] == 1 and obs[-2:].tolist() == [2, 2]
    after = state.apply(game.call_action)  # two sixes with the ace: true, player 1 loses a die
    assert after.dice == (2, 1) and after.is_chance_node()
    after = after.apply(((2, 5), (4,)))
    assert after.current_player == 1  # the loser starts
    assert max(after.legal_actions()[:-1]) < 3 * 6  # three dice in play: quantities up to 3


def _policy_of(agent, game):
    """An agent over observations as ``action_probabilities(state)`` for the explicit tree."""

    def probabilities(state):
        p = state.current_player
        mask = state.action_mask().astype(bool)[None]
        probs = agent(state.observation(p)[None], mask)[0]
        return {a: float(probs[a]) for a in state.legal_actions()}

    return probabilities


def hashed_agent(observations, masks):
    """A fixed, far-from-uniform Markov policy: a masked softmax of a fixed function of the observation."""
    w = np.random.default_rng(7).normal(size=(observations.shape[1], masks.shape[1]))
    logits = 3 * np.sin(np.asarray(observations) @ w)
    p = np.where(masks, np.exp(logits), 0.0)
    return p / p.sum(axis=1, keepdims=True)


SMALL = {
    "2v1 x2 aces": LiarsDiceMatchGame(dice_per_player=(2, 1), faces=2, wild="aces"),
    "1v2 x2 highest, winner starts, 1 first": LiarsDiceMatchGame(dice_per_player=(1, 2), faces=2, wild="highest",
                                                                 starting_player=1, next_starter="winner"),
    "1v2 x2 none": LiarsDiceMatchGame(dice_per_player=(1, 2), faces=2),
}


@pytest.mark.parametrize("name", list(SMALL))
@pytest.mark.parametrize("agent", [uniform_agent, hashed_agent])
def test_exploitability_equals_the_explicit_tree(name, agent):
    game = SMALL[name]
    tree = build_tree(game)
    policy = _policy_of(agent, game)
    ours = match_exploitability(game, agent)
    assert ours["best_response"][0] == pytest.approx(generic.best_response(tree, policy, 0)[0], abs=1e-12)
    assert ours["best_response"][1] == pytest.approx(generic.best_response(tree, policy, 1)[0], abs=1e-12)
    assert ours["value_first_player"] == pytest.approx(generic.expected_returns(tree, policy)[0], abs=1e-12)


def test_rounds_scored_streamed_give_the_in_memory_figures(monkeypatch):
    """Rounds too large for memory (two six-sided dice each) are streamed, their losing responses (the
    best responses to the negated payoffs) too: here every round is, and the figures are the in-memory
    ones."""
    from dice_envs.agents.liars_dice import match_solver, streamed

    game = SMALL["1v2 x2 highest, winner starts, 1 first"]
    rounds = [(game.round_game((d0, d1), s), match_solver.RoundAgent(hashed_agent, game, game.round_game((d0, d1), s),
                                                                    (d0, d1))) for d0, d1, s in positions(game)]
    in_memory = {name: match_exploitability(game, hashed_agent) for name, game in SMALL.items()}
    in_memory_rounds = [match_solver._round_responses(round_game, agent, (0, 1)) for round_game, agent in rounds]
    monkeypatch.setattr(streamed, "fits_in_memory", lambda game: False)
    for name, game in SMALL.items():
        ours = match_exploitability(game, hashed_agent)
        assert ours["best_response"] == pytest.approx(in_memory[name]["best_response"], abs=1e-12)
        assert ours["value_first_player"] == pytest.approx(in_memory[name]["value_first_player"], abs=1e-12)
    for (round_game, agent), expected in zip(rounds, in_memory_rounds):
        figures = match_solver._round_responses(round_game, agent, (0, 1))
        assert figures["best"] == pytest.approx(expected["best"], abs=1e-12)
        assert figures["losing"] == pytest.approx(expected["losing"], abs=1e-12)
        assert [figures["losing"][q] for q in (0, 1)] != pytest.approx(figures["best"], abs=1e-3)  # another game


@pytest.mark.parametrize("name", list(SMALL) + ["2v2 x3 aces, winner starts"])
def test_uniform_play_s_rounds_by_the_bids_recursions_are_the_walked_trees(name):
    """The whole game's reference (uniform play) from the recursions over the bids, as
    ``dice-envs evaluate liars-dice-match`` computes it, equals the one that walks every round's tree."""
    from dice_envs.agents.liars_dice.evaluation import uniform_round_responses

    game = SMALL.get(name) or LiarsDiceMatchGame(dice_per_player=2, faces=3, wild="aces", next_starter="winner")
    walked = match_exploitability(game, uniform_agent)
    recursed = match_exploitability(game, uniform_agent, round_responses=uniform_round_responses)
    assert recursed["best_response"] == pytest.approx(walked["best_response"], abs=1e-12)
    assert recursed["value_first_player"] == pytest.approx(walked["value_first_player"], abs=1e-12)


@pytest.mark.parametrize("name", list(SMALL))
def test_the_value_is_the_combined_round_equilibria_s(name):
    """The round equilibria played in their rounds form a whole-game policy whose value is the
    solver's, and which a best response on the explicit tree barely exploits."""
    game = SMALL[name]
    solution = solve_match(game, 1e-5)
    tree = build_tree(game)

    probabilities = solution.policy().action_probabilities
    assert generic.expected_returns(tree, probabilities)[0] == pytest.approx(solution.value, abs=1e-12)
    assert generic.exploitability(tree, probabilities) <= solution.error_bound + 1e-9
    assert abs(solution.value - generic.expected_returns(tree, probabilities)[0]) <= solution.error_bound + 1e-9
    # the certified interval, propagated from the rounds' best responses, holds the exact value: the
    # rounds' values proven by their LPs, combined in fractions
    lower, upper = solution.value_interval
    assert lower <= float(_exact_value(game)) <= upper
    assert upper - lower <= 2 * solution.error_bound + 1e-9


def _exact_value(game: LiarsDiceMatchGame) -> Fraction:
    """Player 0's exact value of the whole game, from each round's value proven by the LP of its explicit tree."""
    from dice_envs.agents.liars_dice.match_solver import next_positions

    def value(position) -> Fraction:
        d0, d1, starter = position
        if not d0 or not d1:
            return Fraction(1 if d0 else -1)
        round_tree = build_tree(game.round_game((d0, d1), starter))
        exact, upper = generic.certify_value(round_tree, solve_lp(round_tree).policy)
        assert exact == upper
        win, lose = (value(p) for p in next_positions(game, position))
        return lose + (win - lose) * (1 + exact) / 2

    return value((*game.dice, game.starting_player))


def test_one_die_each_is_the_round_game():
    from dice_envs.agents.liars_dice.solver import solve
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    game = LiarsDiceMatchGame(dice_per_player=1, wild="highest")
    assert positions(game) == [(1, 1, 0)]
    assert solve_match(game).value == pytest.approx(solve(LiarsDiceGame(wild=True)).value_first_player, abs=1e-12)
    assert solve_match(game).value == pytest.approx(-7 / 258, abs=2e-4)


def test_a_round_with_equal_dice_is_the_round_game_with_one_count():
    """(2, 2) and 2 are one game: the same configuration, so the same cached equilibrium (a 2v2
    solve takes half an hour; the whole game must find the one `dice-envs solve liars-dice --dice 2`
    stored)."""
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    round_game = LiarsDiceMatchGame(dice_per_player=2, wild="aces").round_game((2, 2), 0)
    assert round_game.config() == LiarsDiceGame(dice_per_player=2, wild="aces").config()
    assert round_game == LiarsDiceGame(dice_per_player=2, wild="aces")
    assert LiarsDiceGame(dice_per_player=(2, 1)).config()["dice_per_player"] == [2, 1]


def test_bad_configurations():
    with pytest.raises(ValueError, match="next_starter"):
        LiarsDiceMatchGame(next_starter="random")
    with pytest.raises(ValueError, match="dice_per_player\\[1\\]"):
        LiarsDiceMatchGame(dice_per_player=(1, 0))
    with pytest.raises(ValueError, match="two players"):
        solve_match(LiarsDiceMatchGame(num_players=3))


def test_a_whole_game_with_a_round_over_the_memory_limit_is_refused_before_any_round_is_solved(monkeypatch,
                                                                                                tmp_path):
    """Three dice each (and two each, whose 2 v 2 round needs 10.5 GiB) solved the small rounds for
    about 100 s before refusing the large one."""
    import gymnasium

    from dice_envs.agents.liars_dice import solver as liars_dice_solver
    from dice_envs.core.resources import ResourceLimitError

    def no_solve(*args, **kwargs):
        raise AssertionError("a round was solved before the refusal")

    monkeypatch.setattr(liars_dice_solver, "solve", no_solve)
    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path))
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "8G")
    with pytest.raises(ResourceLimitError, match=r"its round of 3 v 3 dice needs about .* TiB"):
        solve_match(LiarsDiceMatchGame(dice_per_player=3, wild="none"))
    with pytest.raises(ResourceLimitError, match=r"its round of 2 v 2 dice needs about 10.5 GiB"):
        gymnasium.make("dice_envs/LiarsDiceMatch-v0", dice_per_player=2)


def test_scoring_a_whole_game_over_the_memory_limit_is_refused_before_any_round_is_scored(monkeypatch):
    """The largest round is 1 v 2 six-faced dice (5.5 M information states, about 1 GiB in memory,
    asked in batches); the scoring once held every row's observation and answer, and every in-memory
    round's tree to the end (the notebook 2026-11-29-whole-game-memory.md has the figures)."""
    from dice_envs.agents.liars_dice.learned import agent_tree_policy_bytes
    from dice_envs.agents.liars_dice.match_solver import match_memory_bytes
    from dice_envs.core.resources import ResourceLimitError

    game = LiarsDiceMatchGame(dice_per_player=(1, 2), faces=6, wild="aces")
    largest = agent_tree_policy_bytes(game.round_game((1, 2), 0))
    assert match_memory_bytes(game, uniform_agent) == largest
    asked = []

    def watched(observations, masks):
        asked.append(len(masks))
        return uniform_agent(observations, masks)

    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", str(largest - 1))
    with pytest.raises(ResourceLimitError, match=r"scoring the whole game .* needs about 1\.\d GiB"):
        match_exploitability(game, watched)
    assert asked == []


@pytest.mark.parametrize("dice", [(1, 2), (2, 1)])
def test_the_whole_game_s_memory_estimate_covers_its_measured_peak_within_2x(dice):
    from dice_envs.agents.liars_dice.match_solver import match_memory_bytes
    from memory_checks import traced_peak

    match_exploitability(LiarsDiceMatchGame(dice_per_player=dice, faces=2), hashed_agent)  # imports, not traced
    game = LiarsDiceMatchGame(dice_per_player=dice, faces=5, wild="aces")  # its largest round: 491,520 rows
    peak = traced_peak(lambda: match_exploitability(game, hashed_agent))
    assert peak <= match_memory_bytes(game, hashed_agent) <= 2 * peak


def test_a_whole_game_s_scoring_holds_one_round_at_a_time(monkeypatch):
    """Each round's tree is let go once its figures (the losing responses too, where the values after
    the round ask for them) are computed."""
    import gc
    import weakref

    from dice_envs.agents.liars_dice import learned

    trees = []
    built = learned.agent_tree_policy

    def watched(game, agent, what):
        alive = [ref for ref in trees if ref() is not None]
        assert not alive, f"{len(alive)} round trees were still held when {game!r} was built"
        tree, policy = built(game, agent, what)
        trees.append(weakref.ref(tree))
        return tree, policy

    monkeypatch.setattr(learned, "agent_tree_policy", watched)
    gc.disable()  # the trees must be freed by reference counting, not by a collection that happens to run
    try:
        game = SMALL["1v2 x2 highest, winner starts, 1 first"]
        match_exploitability(game, hashed_agent)
    finally:
        gc.enable()
    assert len(trees) == len(positions(game))


def test_gymnasium_id_against_the_equilibrium():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import dice_envs  # noqa: F401  (registers the ids)

    env = gymnasium.make("dice_envs/LiarsDiceMatch-v1", dice_per_player=(2, 1), faces=3, wild="aces", seat=1)
    check_env(env.unwrapped, skip_render_check=True)
    solution = solve_match(LiarsDiceMatchGame(dice_per_player=(2, 1), faces=3, wild="aces"))
    rng = np.random.default_rng(0)
    total, episodes = 0.0, 3000
    policy = solution.policy()
    for episode in range(episodes):  # the agent plays the equilibrium too: it gets the game's value
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            probs = policy.action_probabilities(env.unwrapped.aec.game_state)
            actions, p = zip(*probs.items())
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(actions, p=np.array(p) / sum(p))))
            done = terminated or truncated
        total += reward
    mean = total / episodes
    assert abs(mean - (-solution.value)) < 4 * np.sqrt(1.0 / episodes)  # seat 1 gets -value
    with pytest.raises(ValueError, match="opponent must be"):
        gymnasium.make("dice_envs/LiarsDiceMatch-v1", opponent="nobody", faces=3)


def test_batched_equilibrium_opponent_gives_the_game_s_value():
    """make_vec's equilibrium opponent against an agent that plays the same equilibrium through
    the batch's observations: the agent's mean payoff is its seat's value of the whole game."""
    import gymnasium

    import dice_envs  # noqa: F401
    from dice_envs.agents.liars_dice.match_solver import BatchedMatchPolicy

    game = LiarsDiceMatchGame(dice_per_player=(2, 1), faces=3, wild="aces")
    solution = solve_match(game)
    envs = gymnasium.make_vec("dice_envs/LiarsDiceMatch-v1", num_envs=4000, vectorization_mode="vector_entry_point",
                              dice_per_player=(2, 1), faces=3, wild="aces", seat=0)
    me = BatchedMatchPolicy(solution.policy())
    rng = np.random.default_rng(1)
    envs.reset(seed=3)
    total, finished = 0.0, 0
    while finished < 20_000:
        rows = np.arange(envs.num_envs)
        actions = me(envs.batch, rows, rng)
        _, rewards, terminated, truncated, _ = envs.step(actions)
        total += rewards[terminated].sum()
        finished += int(terminated.sum())
    assert abs(total / finished - solution.value) < 4 / np.sqrt(finished)


def test_cli_solves_and_scores_the_whole_game(capsys):
    import json

    from dice_envs.agents.cli import main as cli_main

    assert cli_main(["solve", "liars-dice-match", "--dice", "2", "1", "--faces", "3", "--wild", "aces", "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)
    game = LiarsDiceMatchGame(dice_per_player=(2, 1), faces=3, wild="aces")
    assert solved["value_first_player"] == pytest.approx(solve_match(game).value, abs=1e-12)
    assert [row["dice"] for row in solved["positions"]] == [[2, 1], [1, 1]]
    assert cli_main(["evaluate", "liars-dice-match", "test_liars_dice_match:hashed_agent", "--dice", "2", "1",
                     "--faces", "3", "--wild", "aces", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = match_exploitability(game, hashed_agent)
    assert report["exploitability"] == pytest.approx(expected["exploitability"], abs=1e-12)
    assert report["opponent"] == "best_response" and report["config"]["dice_per_player"] == [2, 1]


def test_the_default_whole_game_is_symmetric_and_ships_its_equilibrium(tmp_path, monkeypatch):
    """``dice_envs/LiarsDiceMatch-v1``'s default game (two three-sided dice each, aces wild) and
    ``LiarsDice-v1``'s load every round's equilibrium from the package on first use, whatever
    the cache holds: nothing is solved.  ``-v0`` keeps its default of two six-sided dice against one."""
    import os

    import gymnasium

    import dice_envs  # noqa: F401
    from dice_envs.agents.liars_dice import solver

    def no_solving(*args, **kwargs):
        raise AssertionError("the default game's equilibrium was solved, not loaded from the package")

    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path / "empty"))
    monkeypatch.setattr(solver, "make_solver", no_solving)
    env = gymnasium.make("dice_envs/LiarsDiceMatch-v1")
    game = env.unwrapped.game
    assert (game.dice, game.faces, game.wild_rule) == ((2, 2), 3, "aces")
    env.reset(seed=0)
    gymnasium.make("dice_envs/LiarsDice-v1").reset(seed=0)
    solution = solve_match(game)
    assert sorted(solution.round_values) == sorted(positions(game))
    assert abs(solution.value) < 0.1 and solution.error_bound < 1e-3
    files = os.listdir(solver.SHIPPED_DIR)
    assert len(files) == 6 and sum(os.path.getsize(os.path.join(solver.SHIPPED_DIR, f)) for f in files) < 1 << 20
    with pytest.warns(DeprecationWarning, match="out of date"):
        old = gymnasium.make("dice_envs/LiarsDiceMatch-v0", opponent="random")
    assert (old.unwrapped.game.dice, old.unwrapped.game.faces) == ((2, 1), 6)


# ---------------------------------------------------------------------------------------
# a whole-game agent made of round agents


WHOLE = {
    "2v2 x3 aces": LiarsDiceMatchGame(dice_per_player=2, faces=3, wild="aces"),
    "1v2 x2 highest, winner starts, 1 first": SMALL["1v2 x2 highest, winner starts, 1 first"],
}


def _round_agents(game):
    from dice_envs.agents.liars_dice.match_agent import rounds_needed

    return {key: hashed_agent for key in rounds_needed(game)}


def _play_against_the_round_agents(game, agent, rng, games: int):
    """Random whole games of ``game``; at every decision, ``agent`` (a WholeGameAgent of
    :func:`_round_agents`) must answer as its round agent in the round game built afresh from the
    match state (the starter's dice first, the starter in seat 0), read back as match actions.
    Returns the starters and the rounds met."""
    from dice_envs.games.liars_dice.rules import LiarsDiceGame, LiarsDiceState

    starters, rounds = set(), set()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.apply(state.sample_chance(rng))
                continue
            mover, inner = state.current_player, state.round
            s = inner.game.starting_player
            key = (len(inner.rolls[s]), len(inner.rolls[1 - s]))
            round_game = LiarsDiceGame(2, key, game.faces, game.wild_rule)
            alone = LiarsDiceState(round_game, (inner.rolls[s], inner.rolls[1 - s]), inner.bids, False)
            assert alone.current_player == (mover - s) % 2
            expected = hashed_agent(alone.observation(alone.current_player)[None],
                                    alone.action_mask().astype(bool)[None])[0]
            got = agent(state.observation(mover)[None], state.action_mask().astype(bool)[None])[0]
            np.testing.assert_allclose(got[: round_game.num_bids], expected[: round_game.num_bids], atol=1e-12)
            assert got[round_game.num_bids : game.call_action].sum() == 0.0
            assert got[game.call_action] == pytest.approx(expected[round_game.call_action], abs=1e-12)
            assert got.sum() == pytest.approx(1.0)
            starters.add(s)
            rounds.add(key)
            legal = list(state.legal_actions())
            state = state.apply(int(rng.choice(legal, p=got[legal] / got[legal].sum())))
    return starters, rounds


@pytest.mark.parametrize("name", list(WHOLE))
def test_a_whole_game_agent_asks_the_round_s_agent_in_the_round_game(name):
    """Along random whole games, the agent's probabilities are its round agent's in the round game
    built afresh from the match state; rounds started by either seat occur."""
    from dice_envs.agents.liars_dice.match_agent import WholeGameAgent

    game = WHOLE[name]
    agent = WholeGameAgent(game, _round_agents(game))
    assert agent.observation_size == game.observation_shape[0]
    starters, rounds = _play_against_the_round_agents(game, agent, np.random.default_rng(3), 40)
    assert starters == {0, 1} and rounds == set(agent.rounds)


@pytest.mark.parametrize("name", list(SMALL))
def test_a_whole_game_agent_is_scored_as_the_explicit_tree_says(name):
    from dice_envs.agents.liars_dice.match_agent import WholeGameAgent

    game = SMALL[name]
    agent = WholeGameAgent(game, _round_agents(game))
    tree = build_tree(game)
    policy = _policy_of(agent, game)
    ours = match_exploitability(game, agent)
    for q in (0, 1):
        assert ours["best_response"][q] == pytest.approx(generic.best_response(tree, policy, q)[0], abs=1e-12)
    # the same agents as a mapping, through the scoring call (round agents that do not record their game)
    from dice_envs.agents.scoring import score

    config = game.config()
    scored = score("liars-dice-match", _round_agents(game), **{k: v for k, v in config.items() if k != "num_players"})
    assert scored["exploitability"] == pytest.approx(ours["exploitability"], abs=1e-12)
    assert scored["config"] == config


def test_the_round_equilibria_saved_as_models_score_as_the_whole_game_s_equilibrium(tmp_path):
    """Each round's equilibrium (shipped with the package) saved as a model file; the files joined
    by commas are scored by ``dice-envs evaluate liars-dice-match`` as one whole-game agent, whose
    value is the whole game's and whose exploitability is within the rounds' solving error."""
    from dice_envs.agents.cli import main
    from dice_envs.agents.liars_dice.learned import InfoStates
    from dice_envs.agents.liars_dice.match_agent import rounds_needed
    from dice_envs.agents.liars_dice.solver import PublicTree, solve
    from dice_envs.agents.liars_dice.training import save_table_model
    from dice_envs.agents.scoring import score

    game = WHOLE["2v2 x3 aces"]
    files = []
    for key, round_game in rounds_needed(game).items():
        assert key in {(2, 2), (1, 2), (1, 1)}
        policy = solve(round_game).policy
        table = InfoStates(PublicTree(round_game)).to_action_table(policy.edge, policy.call)
        files.append(tmp_path / f"{key[0]}v{key[1]}.pt")
        save_table_model(files[-1], round_game, table)
    spec = ",".join(map(str, files))
    result = score("liars-dice-match", spec, dice_per_player=2, faces=3)
    solution = solve_match(game)
    assert result["exploitability"] <= solution.error_bound < 1e-3
    assert result["details"]["reference_exploitability"]["random"] > 0.3
    assert result["details"]["value_self_play_player_0"] == pytest.approx(solution.value, abs=solution.error_bound)
    assert result["config"] == game.config()
    assert main(["evaluate", "liars-dice-match", spec, "--json"]) == 0  # the game from the models
    with pytest.raises(ValueError, match="no agent was given for 1v2"):
        score("liars-dice-match", ",".join(map(str, files[:1] + files[2:])))
    with pytest.raises(ValueError, match="does not match the round agents' games"):
        score("liars-dice-match", spec, wild="highest")
    with pytest.raises(ValueError, match="two agents for the round"):
        score("liars-dice-match", ",".join(map(str, files + files[:1])))


@settings(max_examples=25, deadline=None)
@given(dice=st.tuples(st.integers(1, 2), st.integers(1, 2)), faces=st.integers(2, 4),
       wild=st.sampled_from(["none", "highest", "aces"]), starting_player=st.integers(0, 1),
       next_starter=st.sampled_from(["loser", "winner"]), seed=st.integers(0, 2**31 - 1))
def test_a_whole_game_agent_finds_every_round_and_its_starter(dice, faces, wild, starting_player, next_starter, seed):
    """Over small whole games of every rule, along random play, the whole-game agent answers as its
    round agent does in the round game built afresh from the match state (seat, own dice, bids,
    dice counts rewritten with the starter in seat 0)."""
    from dice_envs.agents.liars_dice.match_agent import WholeGameAgent

    game = LiarsDiceMatchGame(2, dice, faces, wild, starting_player, next_starter)
    _play_against_the_round_agents(game, WholeGameAgent(game, _round_agents(game)), np.random.default_rng(seed), 4)


@settings(max_examples=15, deadline=None)
@given(dice=st.tuples(st.integers(1, 2), st.integers(1, 2)), faces=st.integers(2, 3),
       wild=st.sampled_from(["none", "highest", "aces"]), starting_player=st.integers(0, 1),
       next_starter=st.sampled_from(["loser", "winner"]))
def test_uniform_play_s_whole_game_reference_by_the_recursions_over_small_games(dice, faces, wild, starting_player,
                                                                              next_starter):
    """The whole game's uniform reference from the recursions over the bids (best, losing responses
    and self-play value in every round) equals the one that walks every round's public tree."""
    from dice_envs.agents.liars_dice.evaluation import uniform_round_responses

    game = LiarsDiceMatchGame(2, dice, faces, wild, starting_player, next_starter)
    walked = match_exploitability(game, uniform_agent)
    recursed = match_exploitability(game, uniform_agent, round_responses=uniform_round_responses)
    assert recursed["best_response"] == pytest.approx(walked["best_response"], abs=1e-12)
    assert recursed["value_first_player"] == pytest.approx(walked["value_first_player"], abs=1e-12)


def _uniform_round_model(path, **round_game):
    """A model file of uniform play in the round game ``LiarsDiceGame(**round_game)`` (a table)."""
    from dice_envs.agents.liars_dice.learned import InfoStates
    from dice_envs.agents.liars_dice.solver import PublicTree
    from dice_envs.agents.liars_dice.training import save_table_model
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    game = LiarsDiceGame(**round_game)
    tree = PublicTree(game)
    uniform = tree.uniform()
    save_table_model(path, game, InfoStates(tree).to_action_table(uniform.edge, uniform.call))
    return str(path)


@pytest.fixture(scope="module")
def round_models(tmp_path_factory):
    """Uniform round models of two-sided dice, aces wild, by name: 2v2, 1v2, 2v1 and 1v1."""
    folder = tmp_path_factory.mktemp("round_models")
    return {f"{a}v{b}": _uniform_round_model(folder / f"{a}v{b}.pt", dice_per_player=(a, b), faces=2, wild="aces")
            for a, b in [(2, 2), (1, 2), (2, 1), (1, 1)]}


def test_round_models_named_wrongly_are_refused_by_name(round_models, tmp_path):
    """Every reading of the round models names what is wrong: no raw KeyError, TypeError or
    unpacking error, no model file passed on as an agent."""
    import torch

    from dice_envs.agents.liars_dice.learned import build_network
    from dice_envs.agents.scoring import score
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    m = round_models
    whole = ",".join(m[name] for name in ("2v2", "1v2", "1v1"))
    for spec in (whole + ",", "a.pt,", ",", f"{m['2v2']},,{m['1v1']}"):
        with pytest.raises(ValueError, match="empty name between commas"):
            score("liars-dice-match", spec)
    with pytest.raises(ValueError, match=r"model file '.*missing\.pt' \(round model 2 of 2\) does not exist"):
        score("liars-dice-match", f"{m['1v1']},{tmp_path / 'missing.pt'}")
    (tmp_path / "notes.txt").write_text("not a model")
    with pytest.raises(ValueError, match="is not a Liar's Dice model"):
        score("liars-dice-match", f"{m['1v1']},{tmp_path / 'notes.txt'}")
    three = LiarsDiceGame(3, 1, 2, "aces")
    torch.save({"game": three.config(), "hidden": "4", "net": build_network(three.config(), "4").state_dict()},
               tmp_path / "three.pt")
    for dice in (None, 1):
        with pytest.raises(ValueError, match="trained on a game of 3 players"):
            score("liars-dice-match", f"{tmp_path / 'three.pt'},{m['1v1']}", dice_per_player=dice)
    with pytest.raises(ValueError, match="no round agents were given"):
        score("liars-dice-match", [])
    for key in ("2v2", (2,), 2, (2, 2, 0), (0, 1), (True, 1)):
        with pytest.raises(ValueError, match="two dice counts from 1 to 5"):
            score("liars-dice-match", {key: m["2v2"]})
    with pytest.raises(ValueError, match="the agent for round 1v1 is not an agent"):
        score("liars-dice-match", {(2, 2): m["2v2"], (1, 2): m["1v2"], (1, 1): 5})
    # rounds trained on the game described the same way, but with player 1 starting or longer bids
    started = _uniform_round_model(tmp_path / "1v2s1.pt", dice_per_player=(1, 2), faces=2, wild="aces",
                                   starting_player=1)
    with pytest.raises(ValueError, match="round 1v2 was trained on 1 and 2 two-sided dice, aces wild, player 1 "
                                         "starting, not on"):
        score("liars-dice-match", f"{m['2v2']},{started},{m['1v1']}")
    longer = _uniform_round_model(tmp_path / "1v1q3.pt", faces=2, wild="aces", max_quantity=3)
    with pytest.raises(ValueError, match="round 1v1 was trained on 1 two-sided die each, aces wild, quantities up "
                                         "to 3, not on"):
        score("liars-dice-match", longer)
    # two largest rounds: the whole game's dice must be given
    with pytest.raises(ValueError, match="largest rounds, 2v1 and 1v2, could each be the whole game's first"):
        score("liars-dice-match", f"{m['2v1']},{m['1v2']},{m['1v1']}")
    assert score("liars-dice-match", f"{m['2v1']},{m['1v2']},{m['1v1']}",
                 dice_per_player=(1, 2))["config"]["dice_per_player"] == [1, 2]


def lowest_legal_action(observations, masks):
    return np.argmax(masks, axis=1)


def test_greedy_round_models_play_their_most_probable_action(round_models):
    """``--greedy`` reaches the round models (once ignored): uniform models played greedily take
    the lowest legal action (ties to the lowest), in a round and in the whole game."""
    from dice_envs.agents.scoring import score

    m = round_models
    whole = ",".join(m[name] for name in ("2v2", "1v2", "1v1"))
    greedy = score("liars-dice-match", whole, greedy=True)
    assert greedy["exploitability"] == pytest.approx(
        score("liars-dice-match", f"{__name__}:lowest_legal_action", dice_per_player=2, faces=2)["exploitability"],
        abs=1e-12)
    assert greedy["exploitability"] == 1.0 > score("liars-dice-match", whole)["exploitability"]
    one_round = score("liars-dice", m["1v2"], greedy=True)
    assert one_round["exploitability"] == pytest.approx(
        score("liars-dice", f"{__name__}:lowest_legal_action", dice_per_player=(1, 2), faces=2,
              wild="aces")["exploitability"], abs=1e-12)


def test_round_models_read_every_way_score_alike(round_models):
    """Model files joined by commas, as a list, as a mapping of files, and one 1v1 model alone
    (the whole game of one die each) are read as the same whole-game agent: uniform play's
    exploitability, the reference."""
    from dice_envs.agents.scoring import score

    m = round_models
    names = ("2v2", "1v2", "1v1")
    joined = score("liars-dice-match", ",".join(m[name] for name in names))
    assert joined["agent_type"] == "torch" and joined["config"]["faces"] == 2
    assert joined["exploitability"] == pytest.approx(joined["details"]["reference_exploitability"]["random"],
                                                     abs=1e-12)
    listed = score("liars-dice-match", [m[name] for name in names])
    mapped = score("liars-dice-match", {(int(name[0]), int(name[2])): m[name] for name in names})
    assert listed["exploitability"] == mapped["exploitability"] == joined["exploitability"]
    alone = score("liars-dice-match", m["1v1"])
    assert alone["config"]["dice_per_player"] == 1
    assert alone["exploitability"] == pytest.approx(score("liars-dice-match", "random", dice_per_player=1,
                                                          faces=2)["exploitability"], abs=1e-12)


def test_the_whole_game_s_dice_from_the_largest_round_are_in_seat_order(round_models):
    """The largest round given is named by the starter's dice first: with player 1 starting, the
    whole game's dice (in seat order) are the other way round.  Swapping the seats and the first
    starter is the same game seen from the other side, so the exploitability is the same."""
    from dice_envs.agents.scoring import score

    m = round_models
    spec = f"{m['2v1']},{m['1v1']}"
    first = score("liars-dice-match", spec)
    second = score("liars-dice-match", spec, starting_player=1)
    assert first["config"]["dice_per_player"] == [2, 1] and second["config"]["dice_per_player"] == [1, 2]
    assert second["config"]["starting_player"] == 1
    assert second["exploitability"] == pytest.approx(first["exploitability"], abs=1e-12)


def test_a_whole_game_agent_is_scored_on_its_own_game_by_default():
    """A whole-game agent of another first starter or next-round rule is scored on its own game
    when the settings leave them out, and refused where they disagree; round agents of plain
    functions are of kind "function", not "torch"."""
    from dice_envs.agents.liars_dice.match_agent import WholeGameAgent
    from dice_envs.agents.scoring import score

    game = SMALL["1v2 x2 highest, winner starts, 1 first"]
    agent = WholeGameAgent(game, _round_agents(game))
    assert agent.kind == "function"
    scored = score("liars-dice-match", agent)
    assert scored["config"] == game.config() and scored["agent_type"] == "function"
    assert scored["exploitability"] == pytest.approx(match_exploitability(game, agent)["exploitability"], abs=1e-12)
    with pytest.raises(ValueError, match="not the whole game the round agents were assembled for"):
        score("liars-dice-match", agent, next_starter="loser")
