"""Pig's exact solver: published values, an independent value iteration, exact
evaluation against Monte Carlo play of the environment, loaded dice, bad input."""

from fractions import Fraction

import numpy as np
import pytest

from dice_envs import pig_v0
from dice_envs.agents.evaluate.jeopardy_agents import PolicyAgent
from dice_envs.agents.pig import solver as pig
from dice_envs.agents.solve.head_to_head import HeadToHead
from dice_envs.core.dice import Die, d


@pytest.fixture(scope="module")
def classic():
    return pig.solve()  # goal 100, fair d6


def test_optimal_first_player_win_neller_presser_2004(classic):
    """Neller and Presser (2004): the optimal first player wins 53.06% of games."""
    assert classic.first_player_win == pytest.approx(pig.PUBLISHED_FIRST_PLAYER_WIN, abs=1e-4)


def test_hold_at_20_self_play_first_player_win():
    """Neller's "First-Player Advantage" exercise (Nifty Assignments 2010): about .5347."""
    assert pig.evaluate(pig.hold_at_20, pig.hold_at_20) == pytest.approx(0.5347, abs=5e-5)


def test_optimal_policy_is_not_a_simple_hold_at(classic):
    """The published oddity (possiblywrong.wordpress.com, 2014, from Neller and Presser's
    solution): at 41 against 49, hold at 22 to 26 but roll once more at 27."""
    rolls = [classic.should_roll(41, 49, k) for k in range(20, 30)]
    assert rolls == [True, True, False, False, False, False, False, True, False, False]


def test_hold_at_20_difference_to_optimal(classic):
    optimal = classic.as_policy()
    result = pig.head_to_head(pig.hold_at_20, optimal)
    assert isinstance(result, HeadToHead)
    assert result.difference == pytest.approx(2 * (0.5 * (result.win_as_first + result.win_as_second) - 0.5))
    assert -0.09 < result.difference < -0.07  # computed exactly: -0.0798
    # Self-play of the optimal policy is exactly fair over both seats.
    assert pig.head_to_head(optimal, optimal).difference == pytest.approx(0.0, abs=1e-12)
    assert pig.evaluate(optimal, optimal) == pytest.approx(classic.first_player_win, abs=1e-12)


def value_iteration(goal, die):
    """Neller and Presser's value iteration, written independently of dice_envs.agents.solve.jeopardy:
    ``P[i, j, k] = max(roll, hold)`` (``i + k >= goal`` wins) until nothing changes.

    Returns ``(P, roll, hold)``, each ``(goal, goal, goal)`` over live ``i, j, k``."""
    faces = [(int(f), float(p)) for f, p in die.distribution()]
    top = max(f for f, _ in faces)
    n = np.arange(goal)
    i, k = n[:, None, None], np.arange(goal + top)[None, None, :]
    won = np.broadcast_to(i + k >= goal, (goal, goal, goal + top))
    A = np.where(won, 1.0, 0.0)  # A[i, j, k], padded beyond the goal
    for _ in range(20_000):
        start = A[:, :, 0]
        padded = np.zeros((goal, 2 * goal))  # padded[j, m]: the opponent's start value; lost at m >= goal
        padded[:, :goal] = start
        roll = np.zeros((goal, goal, goal))
        for f, p in faces:
            roll += p * ((1 - start.T)[:, :, None] if f == 1 else A[:, :, f : goal + f])
        hold = 1 - padded[n[None, :, None], (n[:, None, None] + n[None, None, :])]
        hold[:, :, 0] = -1.0  # a turn starts with a roll
        new = A.copy()
        new[:, :, :goal] = np.where(won[:, :, :goal], 1.0, np.maximum(roll, hold))
        if np.abs(new - A).max() < 1e-15:
            break
        A = new
    return A[:, :, :goal], roll, hold


@pytest.mark.parametrize("goal, die", [(25, d(6)), (30, d(6).loaded(1, Fraction(5, 4))), (20, Die((1, 2, 3, 4), (1, 2, 0, 3)))])
def test_solver_matches_independent_value_iteration(goal, die):
    P, roll, hold = value_iteration(goal, die)
    solution = pig.solve(goal, die)
    assert solution.first_player_win == pytest.approx(P[0, 0, 0], abs=1e-12)
    assert np.abs(solution.values[0, :goal, :goal, :goal] - P).max() < 1e-11
    n = np.arange(goal)
    live = np.broadcast_to((n[:, None, None] + n[None, None, :] < goal) & (n > 0), P.shape)
    clear = np.abs(roll - hold) > 1e-9  # not a (near) tie
    mine = solution.roll[0, :goal, :goal, :goal] > 0.5
    assert np.array_equal(mine[live & clear], (roll > hold)[live & clear])
    assert (live & clear).sum() > 0.9 * live.sum()


def test_exact_evaluation_matches_monte_carlo_play_of_the_environment():
    """Two policies play the environment; the first seat's win rate matches the exact value."""
    goal = 20
    die = d(6).loaded(6, Fraction(3, 2))
    optimal = pig.solve(goal, die).as_policy()
    first, second = pig.hold_at(8), optimal
    exact = pig.evaluate(first, second, goal, die)
    rng = np.random.default_rng(7)
    agents = {"player_0": PolicyAgent(first, rng), "player_1": PolicyAgent(second, rng)}
    env = pig_v0.raw_env(goal=goal, die=die)
    games, wins = 3000, 0
    for g in range(games):
        env.reset(seed=g)
        for agent in env.agent_iter():
            _, reward, term, trunc, _ = env.last()
            if term or trunc:
                if agent == "player_0":
                    wins += reward > 0
                env.step(None)
                continue
            env.step(agents[agent].act(env.game_state))
    estimate = wins / games
    se = np.sqrt(exact * (1 - exact) / games)
    assert abs(estimate - exact) < 4 * se, (estimate, exact, se)


def test_loaded_dice_change_the_game_as_they_must():
    # A die that cannot show 1 never busts: the first player rolls to the goal and wins.
    assert pig.solve(30, Die((1, 2, 3, 4, 5, 6), (0, 1, 1, 1, 1, 1))).first_player_win == pytest.approx(1.0)
    # The order of the faces does not matter.
    assert pig.solve(30, Die((6, 5, 4, 3, 2, 1))).first_player_win == pytest.approx(pig.solve(30).first_player_win, abs=1e-14)
    # A 1 that comes up more often makes holding earlier better.
    fair, heavy_one = pig.solve(40), pig.solve(40, d(6).loaded(1, 2))
    assert heavy_one.hold_at()[0, 0] < fair.hold_at()[0, 0]


def test_the_process_caches_are_shared_by_every_spelling_of_the_default_die():
    """``solved`` and the hold-at references are kept once a process: asked with the default die
    left out, given as None or given as the fair d6 (the scorers and the trainers spell it differently)."""
    from dice_envs.agents.pig.learned import reference_differences

    assert pig.solved(12) is pig.solved(12, None) is pig.solved(12, pig.FAIR_D6) is pig.solved(goal=12, die=d(6))
    assert reference_differences(12) is reference_differences(12, d(6))
    assert pig.solved(12, d(6).loaded(1, 2)) is not pig.solved(12)


def test_policy_table_and_hold_at():
    table = pig.policy_table(pig.hold_at(3), 10)
    assert table.shape == (11, 11, 11)
    assert table[..., 0].min() == 1  # a turn's start always rolls
    assert table[0, 0, 1:].tolist() == [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: pig.solve(0), "goal"),
        (lambda: pig.solve(10.5), "goal"),
        (lambda: pig.solve(10, Die(("a", "b"))), "positive integers"),
        (lambda: pig.solve(10, Die((1,))), "scoring face"),
        (lambda: pig.hold_at(0), "hold-at"),
        (lambda: pig.evaluate(lambda i, j, k: 2 * np.ones_like(k), pig.hold_at_20, 10), "roll probabilities"),
        (lambda: pig.PigRules(10, num_seats=3), "num_seats"),
    ],
)
def test_bad_arguments_raise_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
