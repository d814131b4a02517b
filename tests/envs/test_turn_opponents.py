"""Fixed opponents that play whole turns in one draw (issue 27 item 3) against the same opponents
stepped one decision at a time: what the agent sees must be distributed alike.

A fixed policy's turn, from its start, is a small absorbing Markov chain, so the batched
single-agent envs draw how it ends from its exact distribution
(:class:`dice_envs.agents.evaluate.jeopardy_agents.BatchedTurnOpponent`).  Here each env of a batch
plays a randomised agent and reports one step, drawn per env: its observation (or the final
observation of a game that ended), its reward and whether it ended.  The samples of the two
versions go through a chi-square test of homogeneity; a last test checks that the comparison
tells two different opponents apart, so it can fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from dice_envs.agents.evaluate.jeopardy_agents import BatchedTurnOpponent, TurnTable
from dice_envs.agents.pig import opponents as pig_opponents
from dice_envs.agents.pig import solver as pig_solver
from dice_envs.agents.pig.gym import PigVectorEnv
from dice_envs.agents.zombie_dice import opponents as zombie_dice_opponents
from dice_envs.agents.zombie_dice.gym import ZombieDiceVectorEnv
from dice_envs.core.dice import Die
from dice_envs.games.pig.rules import PigGame
from dice_envs.games.zombie_dice.rules import ZombieDiceGame

GAMES = 20_000  # envs per sample, one reported step each
STEPS = 30  # the reported step is drawn uniformly from the first STEPS
P_VALUE = 1e-4  # a false alarm once in 10,000 runs per case


def sample(env, seed: int) -> np.ndarray:
    """Per env, ``(terminated, reward, observation...)`` of one of its first :data:`STEPS` steps
    (the final observation where that step ended a game), the agent rolling with probability 3/4."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    report = rng.integers(STEPS, size=env.num_envs)
    out = np.zeros((env.num_envs, 2 + obs.shape[1]), np.float64)
    for t in range(STEPS):
        masks = info["action_mask"]
        roll = (rng.random(env.num_envs) < 0.75) | ~masks[:, 0]  # action 0 holds, 1 rolls, in both games
        actions = np.where(roll & masks[:, 1], 1, 0)
        obs, reward, terminated, _, info = env.step(actions)
        seen = obs.copy()
        if terminated.any():
            seen[terminated] = np.stack(info["final_obs"][terminated])
        now = report == t
        out[now, 0], out[now, 1], out[now, 2:] = terminated[now], reward[now], seen[now]
    return out


def homogeneity(a: np.ndarray, b: np.ndarray) -> float:
    """p-value of the chi-square test that the rows of ``a`` and ``b`` come from one distribution
    (outcomes expected fewer than 5 times in either sample are pooled into one column)."""
    outcomes, codes = np.unique(np.concatenate([a, b]), axis=0, return_inverse=True)
    codes = codes.ravel()
    counts = np.stack([np.bincount(codes[: len(a)], minlength=len(outcomes)),
                       np.bincount(codes[len(a):], minlength=len(outcomes))])
    rare = counts.sum(axis=0) * min(len(a), len(b)) / (len(a) + len(b)) < 5
    table = np.concatenate([counts[:, ~rare], counts[:, rare].sum(axis=1, keepdims=True)], axis=1)
    table = table[:, table.sum(axis=0) > 0]
    assert table.shape[1] > 10, "too few outcomes to compare"
    return float(chi2_contingency(table)[1])


def pig_env(opponent, goal=30, num_envs=GAMES):
    return PigVectorEnv(num_envs, opponent=opponent, goal=goal)


def zombie_env(opponent, variant="all_yellow", goal=13, stop_when_won=True, num_envs=GAMES):
    return ZombieDiceVectorEnv(num_envs, opponent=opponent, variant=variant, goal=goal, stop_when_won=stop_when_won)


CASES = [
    ("pig", "optimal", {}),
    ("pig", "hold_at_20", {}),
    ("pig", "random", {}),
    ("zombie", "optimal", {}),
    ("zombie", "minh", {}),
    ("zombie", "random", {}),
    ("zombie", "optimal", dict(variant="official", goal=6)),
    ("zombie", "neller", dict(variant="official", goal=6, stop_when_won=False)),
]


@pytest.mark.parametrize("game, opponent, kwargs", CASES, ids=[f"{g}-{o}-{k}" for g, o, k in CASES])
def test_whole_turns_are_distributed_as_stepped_ones(game, opponent, kwargs):
    make = pig_env if game == "pig" else zombie_env
    whole = make(opponent, **kwargs)
    assert isinstance(whole.opponent, BatchedTurnOpponent)
    stepped = make(whole.opponent.stepped(), **kwargs)
    a, b = sample(whole, seed=1), sample(stepped, seed=2)
    assert a[:, 0].sum() > 200 and b[:, 0].sum() > 200  # games end inside the reported steps
    assert homogeneity(a, b) > P_VALUE


def test_the_comparison_tells_two_opponents_apart():
    one = pig_env("hold_at_20")
    other = pig_env(pig_env("hold_at_25", num_envs=1).opponent.stepped())
    assert homogeneity(sample(one, seed=1), sample(other, seed=2)) < 1e-6


def test_a_turn_table_row_is_the_exact_turn():
    """Pig from (0, 0) with a four-sided die, holding at 2: the first roll busts (1) or holds."""
    game = PigGame(goal=10, die=Die((1, 2, 3, 4)))
    table = pig_solver.turn_endings(pig_solver.hold_at(2), [0], [0], game.goal, game.die)[0]
    np.testing.assert_allclose(table[:5], [0.25, 0.0, 0.25, 0.25, 0.25])
    assert table.sum() == pytest.approx(1.0)


def test_the_pig_table_covers_the_scores_below_the_goal():
    """``covers`` marks the positions of the table's grid (``play_turns`` leaves any other to the
    stepped opponent; in Pig every position in play is inside)."""
    opponent = pig_opponents.make_batched_opponent("hold_at_20", PigGame(goal=30))
    assert isinstance(opponent.table, TurnTable)
    inside = opponent.table.covers((np.array([0, 29, 30]), np.array([0, 0, 5])))
    np.testing.assert_array_equal(inside, [True, True, False])


def test_a_draw_for_many_games_holds_one_pass_at_a_time(monkeypatch):
    """Issue 58 item 7: make_vec(Pig-v0, num_envs=10**7, opponent="random") passed the batch's guard, then
    failed at its first step on a 3.95 GiB temporary: the draw compared every game's whole row of the table
    at once.  It now draws in passes of PASS_BYTES (lowered here), the same numbers as one pass would."""
    import tracemalloc

    from dice_envs.agents.evaluate import jeopardy_agents

    game = PigGame(goal=100)
    table = pig_opponents.make_batched_opponent("random", game).table
    games = 100_000
    position = (np.zeros(games, np.int64), np.zeros(games, np.int64))
    table.draw(tuple(x[:1] for x in position), np.random.default_rng(0))  # the table is worked out (an eager table: all of it)
    monkeypatch.setattr(jeopardy_agents, "PASS_BYTES", 1 << 20)
    tracemalloc.start()
    try:
        drawn = table.draw(position, np.random.default_rng(1))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    row = games * table.width * 8  # one pass over every game's row: 85 MB here
    assert peak < row / 8, f"the draw held {peak:,} bytes at once"
    cumulative = np.cumsum(pig_solver.turn_endings(pig_solver.uniform_random(), [0], [0], game.goal, game.die)[0])
    cumulative /= cumulative[-1]
    cumulative[-1] = 1.0
    u = np.random.default_rng(1).random(games)
    np.testing.assert_array_equal(drawn, np.searchsorted(cumulative, u, side="right"))


@pytest.mark.parametrize("make, position", [
    (lambda: pig_opponents.make_batched_opponent("hold_at_20", PigGame(goal=150)), ([0], [0])),
    (lambda: zombie_dice_opponents.make_batched_opponent("random", ZombieDiceGame(variant="all_yellow", goal=100)),
     ([0, 1, 1], [0, 5, 99], [3, 0, 120])),
], ids=["pig, eager", "zombie dice, lazy"])
def test_a_turn_table_s_memory_estimate_covers_its_peak(make, position):
    """What the environments' guard counts for an opponent's table is never below what working it out
    holds (measured with tracemalloc, which sees numpy's allocations), and for the eager table, whose
    size is what a refusal turns on, not more than twice as much.  (A lazy table is counted as if every
    position were asked; here three are.)"""
    import tracemalloc

    table = make().table
    tracemalloc.start()
    try:
        table.draw(tuple(np.array(x) for x in position), np.random.default_rng(0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= table.memory_bytes(), (peak, table.memory_bytes())
    if table.eager:
        assert table.positions == table.size and table.memory_bytes() <= 2 * peak, (peak, table.memory_bytes())


def roll_probability_nan(i, j, k):
    return np.full(np.shape(i), np.nan)


def roll_probability_above_one(i, j, k):
    return np.full(np.shape(i), 1.5)


def roll_probability_negative(i, j, k):
    return np.full(np.shape(i), -0.5)


def roll_probability_complex(i, j, k):
    return np.full(np.shape(i), 0.5 + 0.1j)


@pytest.mark.parametrize("policy, shown", [(roll_probability_nan, "got nan"), (roll_probability_above_one, "got 1.5"),
                                           (roll_probability_negative, "got -0.5"),
                                           (roll_probability_complex, "complex")])
@pytest.mark.parametrize("given", ["callable", "module:attr"])
def test_a_batched_pig_opponent_s_roll_probabilities_are_checked_however_it_is_given(policy, shown, given):
    """The same policy as a callable (played a decision at a time) and as ``module:attr`` (whole
    turns from its table) is refused alike, naming it, at its first answer."""
    import gymnasium as gym

    spec = policy if given == "callable" else f"test_turn_opponents:{policy.__name__}"
    env = gym.make_vec("dice_envs/Pig-v0", num_envs=4, opponent=spec, goal=20)
    with pytest.raises(ValueError, match=f"policy {policy.__name__} .*{shown}"):
        env.reset(seed=0)  # the opponent may move first
        for _ in range(20):  # the agent holds: the opponent moves at once
            env.step(np.zeros(4, np.int64))
    env.close()


def test_a_single_pig_opponent_that_raises_is_named():
    import gymnasium as gym

    def broken(i, j, k):
        raise RuntimeError("no answer")

    env = gym.make("dice_envs/Pig-v0", opponent=broken, goal=20)
    with pytest.raises(RuntimeError, match="policy broken raised RuntimeError: no answer"):
        env.reset(seed=0)  # the opponent may move first
        for _ in range(20):
            env.step(0)
    env.close()


def test_zombie_dice_three_players_keep_the_stepped_random_opponent():
    game = ZombieDiceGame(num_players=3, variant="official")
    assert not hasattr(zombie_dice_opponents.make_batched_opponent("random", game), "play_turns")


def benchmark():
    """``experiments/benchmark_batched.py``, which builds the training scripts' self-play pools."""
    from experiments import benchmark_batched

    return benchmark_batched


def pool_opponent(game: str, whole_turns: bool, num_envs: int = GAMES):
    """The self-play pool of ``dice_envs.agents.learn.jeopardy`` holding two tables (Pig's optimum
    and hold-at 12, goal 30; or the All Yellow optimum and Minh's policy), whole turns drawn or stepped."""
    from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES

    if game == "pig":
        return benchmark().pool_opponent("pig", [pig_solver.solved(30).as_policy(), pig_solver.hold_at(12)], 30,
                                         whole_turns, num_envs)
    return benchmark().pool_opponent("all_yellow", [zombie_dice_opponents.solved(13).as_policy(),
                                                    HUMAN_POLICIES["minh"]], 13, whole_turns, num_envs)


@pytest.mark.parametrize("game", ["pig", "zombie"])
def test_the_self_play_pool_plays_whole_turns_as_stepped_ones(game):
    """The training scripts' self-play pool of tables: whole turns drawn per pool policy (each
    game's own) against the same pool stepped, as above."""
    make = pig_env if game == "pig" else zombie_env
    whole = pool_opponent(game, whole_turns=True)
    assert hasattr(whole, "play_turns")
    a, b = sample(make(whole), seed=1), sample(make(pool_opponent(game, whole_turns=False)), seed=2)
    assert len(whole._turns) == 2 and all(t.table.positions > 0 for t in whole._turns.values())  # both drew turns
    assert a[:, 0].sum() > 200 and b[:, 0].sum() > 200
    assert homogeneity(a, b) > P_VALUE


def test_a_pool_of_networks_steps_its_turns():
    """The official dice' pool holds networks, whose whole turns have no cheap exact distribution:
    it offers no ``play_turns``, so the env steps it (and spends nothing asking)."""
    import importlib

    from dice_envs.agents.learn.jeopardy import Pool, PoolOpponent

    module = importlib.import_module("dice_envs.agents.zombie_dice.training")
    args = module.Args(variant="official", goal=13)
    assert not hasattr(PoolOpponent(Pool(2, module.OfficialSpec(), args), 4), "play_turns")
    assert hasattr(PoolOpponent(Pool(2, module.AYZDSpec(), module.Args()), 4), "play_turns")
    assert not hasattr(PoolOpponent(Pool(2, module.AYZDSpec(), module.Args()), 4, whole_turns=False), "play_turns")


def test_the_benchmark_measures_the_pools():
    """``experiments/benchmark_batched.py --opponents`` times the pools both ways (a short smoke run)."""
    rows = benchmark().measure_pools(0.05, 0.0, num_envs=64)
    assert set(rows) == {"pig/selfplay pool of 6 tables", "all_yellow/selfplay pool of 6 tables"}
    assert all(r["make_vec_steps_per_s"] > 0 and r["make_vec_stepped_steps_per_s"] > 0 for r in rows.values())
