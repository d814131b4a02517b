"""Official two-player Zombie Dice solved exactly (dice_envs.agents.zombie_dice.solver).

Checks: an independent plain value iteration over the rules core; the shared grid solver
(jeopardy_solver.solve_score_grid) on a TurnModel of the same game; the Bellman equations
through the rules core's own transitions; Monte Carlo play of the AEC environment; the
one-turn figures against the environment; the cache; the environments' "optimal" opponent.
The heavy checks run at small goals (3 or 4); the headline (goal 13) is checked by the
batched environment when its solution is in the cache.
"""

from __future__ import annotations

import json
import math
import os

import gymnasium
import numpy as np
import pytest
import scipy.sparse as sp

import dice_envs  # noqa: F401  (registers the Gymnasium ids)
from dice_envs import zombie_dice_v0
from dice_envs.agents.cli import main
from dice_envs.agents.evaluate.jeopardy_agents import BatchedTurnOpponent
from dice_envs.agents.solve.jeopardy import solve_score_grid
from dice_envs.agents.zombie_dice import solver as zds
from dice_envs.games.zombie_dice.batched import ZombieDiceBatch
from dice_envs.games.zombie_dice.rules import HOLD, ROLL, ZombieDiceGame, ZombieDiceState


@pytest.fixture(scope="module")
def small():
    """Goal 4 with the default cap (43): far enough from the cap for play in the environment."""
    return zds.solve(4)


@pytest.fixture(scope="module")
def goal3():
    """Goal 3 with the default cap (42)."""
    return zds.solve(3)


@pytest.fixture(scope="module")
def tiny():
    """Goal 3 with a small cap (12): quick exact evaluations."""
    return zds.solve(3, 12)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty on-disk cache for the test, and no solution remembered by the process."""
    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path))
    monkeypatch.setattr(zds, "_MEMORY", {})
    return str(tmp_path)


# ---------------------------------------------------------------------------------------
# an independent plain value iteration


def rules_core_dice(game):
    """Dice states (cup, brain dice, shotgun dice, footprints) reachable from a fresh turn, and
    the transitions of a roll, through the rules core's pending-roll state."""
    def key(st):
        return (st.cup, st.brain_dice, st.shotgun_dice, st.feet)

    first = game.new_initial_state()
    states, number, edges, bust = [key(first)], {key(first): 0}, [], []
    k = 0
    while k < len(states):
        st = ZombieDiceState(game, (0, 0), (0, 1), 0, False, *states[k], 0, True, True, None)
        lost = 0.0
        for outcome, p in st.chance_outcomes():
            after = st.apply(outcome)
            if after.turn_index != 0:  # the turn passed: a bust
                lost += float(p)
                continue
            if key(after) not in number:
                number[key(after)] = len(states)
                states.append(key(after))
            edges.append((k, number[key(after)], after.turn_brains, float(p)))
        bust.append(lost)
        k += 1
    return states, edges, np.array(bust)


def plain_value_iteration(goal, cap, tol=1e-15):
    """The optimality equations over every (position, dice state, turn brains), swept until the
    largest change is below ``tol``.  Positions, ends of turns, stop_when_won and the tiebreaks
    all come from the rules core (holding a turn total in a constructed state); the only
    convention is the solver's score cap: scores stop at ``cap - 1``, and a turn whose banked
    score would reach it holds."""
    game = ZombieDiceGame(2, "official", goal)
    states, edges, bust = rules_core_dice(game)
    D, B, top = len(states), cap, cap - 1
    src, dst, gain, prob = (np.array(x) for x in zip(*edges))
    T = [sp.csr_matrix((prob[gain == g], (src[gain == g], dst[gain == g])), shape=(D, D)) for g in range(4)]
    zeros = (0, 0, 0)

    def turn(key, brains):
        scores, active, ti, final = key
        return ZombieDiceState(game, scores, active, ti, final, game.full_cup, zeros, zeros, zeros, brains, True,
                               False, None)

    def pos_key(st):
        return (st.scores, st.active, st.turn_index, st.final)

    positions = [pos_key(game.new_initial_state())]
    number = {positions[0]: 0}
    hold_to = []
    k = 0
    while k < len(positions):
        scores, active, ti, _ = positions[k]
        mover = active[ti]
        row = []
        for b in range(B):
            after = turn(positions[k], min(b, top - scores[mover])).apply(HOLD)
            if after.winner is not None:
                row.append((1.0 if after.winner == mover else 0.0, -1))
                continue
            if pos_key(after) not in number:
                number[pos_key(after)] = len(positions)
                positions.append(pos_key(after))
            row.append((0.0, number[pos_key(after)]))
        hold_to.append(row)
        k += 1
    P = len(positions)
    const = np.array([[c for c, _ in row] for row in hold_to])
    nxt = np.array([[n for _, n in row] for row in hold_to])
    forced = np.array([[key[0][key[1][key[2]]] + b >= top or turn(key, b).holding_wins() for b in range(B)]
                       for key in positions])
    W = np.full((B, D, P), 0.5)  # W[b]: the values with b turn brains (contiguous, for the products)
    F = np.full(P, 0.5)
    for _ in range(5000):
        hold = np.where(nxt >= 0, 1.0 - F[np.maximum(nxt, 0)], const)  # (P, B)
        change = 0.0
        for b in range(B - 1, -1, -1):
            R = bust[:, None] * hold[None, :, 0]
            for g in range(4):
                R += T[g] @ W[min(b + g, B - 1)]
            new = np.where(forced[None, :, b], hold[None, :, b], np.maximum(hold[None, :, b], R))
            if b == 0:
                fresh = R[0]  # state 0 is the fresh turn (must roll)
            change = max(change, float(np.abs(new - W[b]).max()))
            W[b] = new
        change = max(change, float(np.abs(fresh - F).max()))
        F = fresh
        if change < tol:
            break
    else:
        raise AssertionError("value iteration did not converge")
    return {(key[2], key[0][key[1][key[2]]], key[0][1 - key[1][key[2]]]): F[n] for n, key in enumerate(positions)}


def test_matches_plain_value_iteration():
    slow = plain_value_iteration(4, 8)
    fast = zds.solve(4, 8)
    assert len(slow) > 50
    error = max(abs(value - fast.start[key]) for key, value in slow.items())
    assert error <= 1e-12, error
    assert abs(slow[(0, 0, 0)] - fast.first_player_win) <= 1e-12


def test_matches_the_shared_grid_solver():
    """jeopardy_solver.solve_score_grid on a TurnModel over (dice state, turn brains)."""
    chain = zds.dice_chain()
    goal, cap = 2, 4
    grid = solve_score_grid(zds.turn_model(chain, cap), zds.OfficialRules(goal, cap))
    fast = zds.solve(goal, cap)
    played = ~np.isnan(fast.start)
    assert played.sum() > 10
    np.testing.assert_allclose(fast.start[played], grid.start[played], rtol=0, atol=1e-13)


# ---------------------------------------------------------------------------------------
# the rules core, the environments


def test_dice_chain_follows_the_rules_core():
    chain = zds.dice_chain()
    assert zds.dice_chain("official") is chain and zds.dice_chain(zds.VARIANT) is chain  # built once a process
    assert chain.size == 10_766
    assert chain.labels[chain.fresh] == ((6, 4, 3), (0, 0, 0), (0, 0, 0), (0, 0, 0))
    total = np.bincount(chain.src, weights=chain.prob, minlength=chain.size) + chain.self_loop + chain.bust
    np.testing.assert_allclose(total, 1.0, atol=1e-14)
    assert chain.shotguns.max() == 2 and set(np.unique(chain.gain)) <= {0, 1, 2, 3}
    # Every dice state's cup, set-aside and footprint dice add up to the 13 dice.
    for cup, brains, shotguns, feet in chain.labels[:: 97]:
        assert tuple(a + b + c + d for a, b, c, d in zip(cup, brains, shotguns, feet)) == (6, 4, 3)
    # A state reached after a cup refill: brain dice went back, footprints kept, shotguns stayed out.
    refilled = [d for d, (cup, brains, shotguns, feet) in enumerate(chain.labels) if sum(cup) < 3 - sum(feet)]
    assert refilled


def test_bellman_equations_through_the_rules_core(small):
    """value(state) is the best of holding and rolling, each evaluated with the rules core's own
    transitions (ends of turns, stop_when_won, tiebreaks, the cup refill), and the decision
    is the better one."""
    game = ZombieDiceGame(2, "official", small.goal)
    rng = np.random.default_rng(5)

    def value_for(mover, st):
        if st.is_terminal():
            return 1.0 if st.winner == mover else 0.0
        v = small.value(st)
        return v if st.seat == mover else 1.0 - v

    checked = 0
    for _ in range(60):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                st = st.apply(st.sample_chance(rng))
                continue
            if st.rolled and max(st.scores) + st.turn_brains < small.score_cap - 4:
                mover = st.seat
                hold = value_for(mover, st.apply(HOLD))
                pending = st.apply(ROLL)
                roll = sum(float(p) * value_for(mover, pending.apply(o)) for o, p in pending.chance_outcomes())
                assert small.value(st) == pytest.approx(max(hold, roll), abs=1e-12)
                if abs(roll - hold) > 1e-9:
                    assert small.should_roll(st) == (roll > hold)
                checked += 1
            st = st.apply(ROLL if not st.rolled or rng.random() < 0.7 else HOLD)
    assert checked > 200


def test_monte_carlo_play_of_the_aec_env_matches(goal3, games=25_000):
    """The optimal policy in both seats, 25,000 games of the AEC environment, within 4 standard errors."""
    solution = goal3
    env = zombie_dice_v0.raw_env(variant="official", goal=solution.goal)
    wins = 0
    for n in range(games):
        env.reset(seed=n)
        while not env.terminations["player_0"]:
            env.step(ROLL if solution.should_roll(env.game_state) else HOLD)
        wins += env.rewards["player_0"] > 0
    exact = solution.first_player_win
    se = math.sqrt(exact * (1 - exact) / games)
    assert abs(wins / games - exact) < 4 * se, (wins / games, exact, se)


@pytest.mark.parametrize("shotguns", [1, 2])
def test_one_turn_figures_match_the_env(shotguns, turns=30_000):
    exact = zds.turn_figures(zds.RollUntilShotguns(shotguns))
    env = zombie_dice_v0.raw_env(variant="official")
    banked, busts = np.zeros(turns), 0
    for n in range(turns):
        env.reset(seed=n)
        action = ROLL
        while env.agent_selection == "player_0":
            state = env.game_state
            action = ROLL if not state.rolled or state.shotguns < shotguns else HOLD
            env.step(action)
        banked[n] = env.game_state.scores[0]
        busts += action == ROLL  # the turn ended on a roll: a bust (the first player cannot win by holding)
    se = banked.std() / math.sqrt(turns)
    assert abs(banked.mean() - exact["expected_brains"]) < 4 * se, (banked.mean(), exact, se)
    p = exact["bust"]
    assert abs(busts / turns - p) < 4 * math.sqrt(p * (1 - p) / turns) + 1e-12, (busts / turns, p)


def test_one_turn_two_ways():
    """The linear solve over dice states equals the backward pass over (dice state, brains)."""
    chain = zds.dice_chain()
    for shotguns in (1, 2):
        direct = zds.one_turn(chain.shotguns < shotguns)
        table = zds.DicePolicy(np.broadcast_to(chain.shotguns < shotguns, (401, chain.size)))
        layered = zds.turn_figures(table, top=400)
        assert layered["expected_brains"] == pytest.approx(direct["expected_brains"], abs=1e-10)
        assert layered["bust"] == pytest.approx(direct["bust"], abs=1e-10)
    assert direct["expected_brains"] == pytest.approx(2.073051766773758, abs=1e-12)
    assert direct["bust"] == pytest.approx(0.2584409924285346, abs=1e-12)


def test_max_expected_brains_policy():
    short, long = zds.max_expected_brains_policy(400), zds.max_expected_brains_policy(800)
    assert np.array_equal(short.roll[:200], long.roll[:200])  # the truncation changes no decision
    best = zds.turn_figures(short)["expected_brains"]
    for shotguns in (1, 2):
        assert best > zds.turn_figures(zds.RollUntilShotguns(shotguns))["expected_brains"]


def test_observations_are_the_env_s():
    """ObservationPolicy sees exactly the AEC observation vector of the mover."""
    chain = zds.dice_chain()
    game = ZombieDiceGame(2, "official", 4)
    rng = np.random.default_rng(2)
    seen = 0
    while seen < 40:
        st = game.new_initial_state()
        while not st.is_terminal() and seen < 40:
            if st.is_chance_node():
                st = st.apply(st.sample_chance(rng))
                continue
            p, i, j, b, _ = st.two_player_view()
            obs = zds.observations(chain, p - 1, np.array([i]), np.array([j]), b, game.goal)
            d = chain.fresh if not st.rolled else chain.state_of(st)
            np.testing.assert_array_equal(obs[d, 0], st.observation(st.seat))
            seen += 1
            st = st.apply(ROLL if not st.rolled or rng.random() < 0.6 else HOLD)


def test_exact_evaluation(tiny):
    goal, cap = tiny.goal, tiny.score_cap
    optimal = tiny.as_policy()
    again = zds.evaluate_grid(optimal, optimal, goal, cap)
    played = ~np.isnan(tiny.start)
    np.testing.assert_allclose(again[played], tiny.start[played], rtol=0, atol=1e-12)
    assert abs(zds.head_to_head(optimal, optimal, goal, cap).difference) < 1e-12
    # A policy over observations is evaluated as the same policy over dice states, in both seats.
    by_obs = zds.ObservationPolicy(lambda obs: obs[:, 9] < 2, goal)
    assert zds.head_to_head(by_obs, optimal, goal, cap).as_dict() == pytest.approx(
        zds.head_to_head(zds.RollUntilShotguns(2), optimal, goal, cap).as_dict(), abs=1e-13)


@pytest.mark.parametrize("activation, observation", [("relu", "scaled"), ("tanh", "full"), ("relu", "fourier")])
def test_network_policy_is_the_observation_policy(activation, observation):
    """NetworkPolicy (first layer split by dice state and position) decides as ObservationPolicy
    running the same network on the encoded observation vectors."""
    chain = zds.dice_chain()
    rng = np.random.default_rng(3)
    game = ZombieDiceGame(2, "official", 5)
    sizes = [len(game.encoded_bounds(observation)[0]), 16, 8, 2]
    weights = [rng.normal(size=(a, b)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
    biases = [rng.normal(size=b).astype(np.float32) for b in sizes[1:]]

    def fn(obs):
        h = game.encoded_observation(obs, observation)
        for k, (w, v) in enumerate(zip(weights, biases)):
            h = h @ w + v
            if k < len(weights) - 1:
                h = np.maximum(h, 0) if activation == "relu" else np.tanh(h)
        return h[:, ROLL] > h[:, HOLD]

    network = zds.NetworkPolicy(weights, biases, activation, observation, goal=5)
    plain = zds.ObservationPolicy(fn, goal=5)
    i, j = np.array([0, 3, 5, 7, 2]), np.array([0, 6, 5, 1, 4])
    for seat in (0, 1):
        for b in (0, 2, 5):
            ours, theirs = network.decide(chain, seat, i, j, b), plain.decide(chain, seat, i, j, b)
            assert (ours != theirs).mean() < 1e-4 and 0 < ours.mean() < 1  # float32 rounding at exact ties only
    with pytest.raises(ValueError, match=f"{sizes[0]} features"):
        zds.NetworkPolicy(weights[1:], biases[1:], activation, observation)
    with pytest.raises(ValueError, match="encoding"):
        zds.NetworkPolicy(weights, biases, activation, "compact")


def test_exact_score_of_a_policy_over_observations(tiny):
    result = zds.exact_score(lambda obs: obs[:, 9] < 2, tiny.goal, tiny.score_cap)
    expected = zds.head_to_head(zds.RollUntilShotguns(2), tiny.as_policy(), tiny.goal, tiny.score_cap)
    assert result["difference"] == pytest.approx(expected.difference, abs=1e-13)
    from functools import partial

    from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES

    humans = zds.differences(tiny, {k: zds.ScorePolicy(partial(HUMAN_POLICIES[k], goal=3), k)
                                    for k in zds.REFERENCE_POLICIES})
    assert result["references"] == pytest.approx({k: v["difference"] for k, v in humans.items()}, abs=1e-15)
    assert result["reached"] == {k: result["difference"] >= v for k, v in result["references"].items()}


def test_bad_arguments():
    with pytest.raises(ValueError, match="score_cap"):
        zds.solve(13, 20)
    with pytest.raises(ValueError, match="goal"):
        zds.solve(0)
    with pytest.raises(ValueError, match="roll probabilities"):
        zds.evaluate(zds.ObservationPolicy(lambda obs: np.full(len(obs), 2.0)), zds.RollUntilShotguns(1), 3)


# ---------------------------------------------------------------------------------------
# the cache and the environments' optimal opponent


def test_cache_is_atomic_and_checked(cache, tiny):
    solution = tiny
    path = zds.store_cached(solution, cache)
    assert path and os.path.isfile(path) and not [f for f in os.listdir(cache) if f.endswith(".tmp")]
    loaded = zds.load_cached(3, solution.score_cap, cache, verify=True)
    assert loaded is not None and loaded.cached
    assert np.array_equal(loaded.bits, solution.bits) and np.array_equal(loaded.start, solution.start, equal_nan=True)
    assert zds.load_cached(3, solution.score_cap + 1, cache) is None  # another configuration
    raw = open(path, "rb").read()
    # A flipped byte, a truncated file, or decisions changed under an old digest: all read as absent.
    for damaged in (raw[: len(raw) // 2], raw[:1000] + bytes([raw[1000] ^ 0xFF]) + raw[1001:]):
        with open(path, "wb") as fh:
            fh.write(damaged)
        assert zds.load_cached(3, solution.score_cap, cache) is None
    forged = {"start": solution.start, "bits": solution.bits ^ np.uint8(1), "offset": solution.offset,
              "layers": solution.layers}
    meta = {**zds._cache_key(3, solution.score_cap), "digest": zds._digest(
        {"start": solution.start, "bits": solution.bits, "offset": solution.offset, "layers": solution.layers}),
        "D8": solution.D8, "seconds": 1.0, "states": 1, "peak_memory": 1, "timings": {}, "iterations": 1, "positions": 1,
        "first_player_win": solution.first_player_win}
    zds.solver_cache.store(path, forged, meta)
    assert zds.load_cached(3, solution.score_cap, cache) is None
    # solved() then solves again and rewrites the file.
    assert zds.solved(3, solution.score_cap, cache_dir=cache).first_player_win == solution.first_player_win
    assert zds.load_cached(3, solution.score_cap, cache) is not None


def test_gym_optimal_opponent_is_the_official_optimum(cache, goal3):
    zds.store_cached(goal3, cache)  # as if solved before: the env loads it
    env = gymnasium.make("dice_envs/ZombieDice-v0", variant="official", opponent="optimal", goal=3)
    opponent = env.unwrapped.opponent
    assert isinstance(opponent, zds.OptimalAgent)
    solution = opponent.solution
    assert solution.cached and solution.score_cap == goal3.score_cap
    np.testing.assert_array_equal(solution.bits, goal3.bits)
    env.reset(seed=0)
    for _ in range(200):
        _, _, terminated, truncated, _ = env.step(ROLL)
        if terminated or truncated:
            env.reset()
    vec = gymnasium.make_vec("dice_envs/ZombieDice-v0", num_envs=8, vectorization_mode="vector_entry_point",
                             variant="official", opponent="optimal", goal=3)
    assert isinstance(vec.opponent, BatchedTurnOpponent)  # whole turns in one draw; single decisions by the table
    assert isinstance(vec.opponent.step, zds.BatchedOptimalOpponent)
    vec.reset(seed=1)
    for _ in range(30):
        vec.step(np.ones(8, np.int64))


def test_batched_opponent_is_the_same_look_up(small):
    """The batched opponent reads the batch's arrays and decides as the table does in the rules core."""
    game = ZombieDiceGame(2, "official", small.goal)
    rng = np.random.default_rng(9)
    states = []
    while len(states) < 400:
        st = game.new_initial_state()
        while not st.is_terminal() and len(states) < 400:
            if st.is_chance_node():
                st = st.apply(st.sample_chance(rng))
                continue
            states.append(st)
            st = st.apply(ROLL if not st.rolled or rng.random() < 0.6 else HOLD)
    batch = ZombieDiceBatch(len(states), game=game)
    batch.load_states(states)
    actions = zds.BatchedOptimalOpponent(small)(batch, np.arange(len(states)), rng)
    expected = [ROLL if small.should_roll(st) else HOLD for st in states]
    assert actions.tolist() == expected
    assert HOLD in expected and ROLL in expected


def announcements(err: str) -> list:
    return [line for line in err.splitlines() if "LongRunWarning" in line]


def test_cli_solve_zombie_dice_json(cache, capsys, monkeypatch, tiny):
    """Also: one estimate for the command (it printed the command's and the solve's, two different
    figures), and none of a solve then read from the cache."""
    from dice_envs.core import resources

    monkeypatch.setattr(resources, "ANNOUNCE_SECONDS", -1.0)  # announce every estimate
    command = ["solve", "zombie-dice", "--goal", "3", "--score-cap", "12", "--json"]
    assert main(command) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert len(announcements(err)) == 1 and "score cap 12: solved, then 26" in err
    first = report["first_player_win"]
    for key in ("first_player_win", "seconds", "states", "policies", "turn"):
        assert key in report
    assert first == tiny.first_player_win
    assert set(report["policies"]) == {"fixed_hold_at", "minh", "llano", "neller", "all_yellow_optimal",
                                       "roll_until_2_shotguns", "roll_until_1_shotgun", "max_expected_brains",
                                       "random"}
    for name, row in report["policies"].items():  # every policy loses to the optimum, from both seats
        assert row["difference"] < 0, name
        assert row["win_as_first"] <= first + 1e-12 and row["win_as_second"] <= 1 - first + 1e-12, name
    assert set(report["turn"]) >= {"roll_until_1_shotgun", "roll_until_2_shotguns"}
    for row in report["turn"].values():
        assert set(row) == {"expected_brains", "bust"}
    assert report["stop_when_won"] is True
    for name in zds.REFERENCE_POLICIES:  # the human-playable policies under both readings
        row = report["policies"][name]
        assert row["difference_stop_when_won"] == row["difference"]
        assert row["difference_official_ending"] <= row["difference"] + 1e-12, name
    assert set(report["best_human_policy"]) == {"stop_when_won", "official_ending"}
    assert main(command + ["--official-ending"]) == 0
    out, err = capsys.readouterr()
    written = json.loads(out)
    assert len(announcements(err)) == 1 and "score cap 12: read from the cache, then 26" in err
    assert written["stop_when_won"] is False and written["first_player_win"] == first
    for name in zds.REFERENCE_POLICIES:
        assert written["policies"][name]["difference"] == pytest.approx(
            report["policies"][name]["difference_official_ending"], abs=1e-13)
    assert written["best_human_policy"] == report["best_human_policy"]
    monkeypatch.setattr(zds, "_MEMORY", {})  # a new process: the solution comes from the disk cache
    assert main(command) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["cached"] is True and again["first_player_win"] == first


# ---------------------------------------------------------------------------------------
# the rules as written (stop_when_won=False), and how an evaluation follows a turn


def test_turn_outcomes_are_the_backward_pass(small):
    """The forward pass (how turns end, shared between evaluations) gives the backward pass's
    values for any hold values, in every kind of position: policies over scores, mixed,
    over dice states, the optimum; turns that end at different layers (one at the first)."""
    chain = zds.dice_chain()
    rng = np.random.default_rng(7)
    policies = [zds.standard_policies(4)["neller"], zds.standard_policies(4)["random"],
                zds.max_expected_brains_policy(), small.as_policy()]
    i, j = np.array([0, 1, 3, 2, 3]), np.array([0, 2, 1, 3, 3])
    f = np.array([9, 0, 4, 7, 2])
    L, N = int(f.max()) + 1, len(f)
    forced = np.arange(L)[:, None] >= f[None, :]
    for seat in (0, 1):
        for policy in policies:
            hold = rng.random((L, 2 * N))  # [const | coef], the same from each column's end on (as in _run)
            for part in (hold[:, :N], hold[:, N:]):
                part[forced] = np.broadcast_to(part[f, np.arange(N)], (L, N))[forced]
            decide = lambda b: policy.decide(chain, seat, i, j, b)  # noqa: E731
            _, _, backward, _ = zds._backward(chain, hold, forced, np.zeros(len(i)), True, decide)
            outcomes = zds._turn_outcomes(chain, forced, decide)
            assert outcomes.sum(axis=0) == pytest.approx(np.ones(len(i)), abs=1e-13)
            np.testing.assert_allclose(zds._expected_hold(outcomes, hold, True), backward[0], rtol=0, atol=1e-13)


def test_shared_turns_change_nothing(tiny):
    """Evaluations that share their turns (TurnOutcomes) give the values of separate ones."""
    goal, cap = tiny.goal, tiny.score_cap
    shared = zds.TurnOutcomes(zds.dice_chain())
    policies = zds.standard_policies(goal)
    for name in ("minh", "roll_until_2_shotguns", "random"):
        for stop_when_won in (True, False):
            optimal = tiny.as_policy()
            alone = zds.head_to_head(policies[name], optimal, goal, cap, stop_when_won).as_dict()
            together = zds.head_to_head(policies[name], optimal, goal, cap, stop_when_won, shared).as_dict()
            assert together == pytest.approx(alone, abs=1e-14), (name, stop_when_won)
    assert 0 < shared.passes


def test_the_optimum_is_the_same_under_the_rules_as_written(goal3):
    """A player 2 who could win by holding gains nothing by rolling on (every roll can bust), so
    solving under the letter of the rules gives the same values (goal 3, default cap: rolling on
    may reach 38 brains past the goal)."""
    written = zds._run(goal3.goal, goal3.score_cap, None, keep=False, stop_when_won=False).start
    assert np.array_equal(np.isnan(written), np.isnan(goal3.start))
    played = ~np.isnan(goal3.start)
    np.testing.assert_allclose(written[played], goal3.start[played], rtol=0, atol=1e-13)


def batched_play(solution, policy, stop_when_won: bool, games: int, seed: int) -> float:
    """Player 2's win rate in ``games`` games of the batched environment: the optimum moves
    first, ``policy(p, i, j, b, s)`` second."""
    from dice_envs.agents.evaluate.jeopardy_agents import BatchedPolicyAgent

    game = ZombieDiceGame(2, "official", solution.goal, stop_when_won=stop_when_won)
    batch = ZombieDiceBatch(games, game=game)
    rng = np.random.default_rng(seed)
    batch.reset(rng)
    second, first = BatchedPolicyAgent(policy), zds.BatchedOptimalOpponent(solution)
    for _ in range(100_000):
        rows = np.flatnonzero(~batch.done)
        if not len(rows):
            break
        mover = batch.current_player(rows)
        actions = np.empty(len(rows), np.int64)
        for seat, agent in ((0, first), (1, second)):
            if (mover == seat).any():
                actions[mover == seat] = agent(batch, rows[mover == seat], rng)
        batch.step(actions, rng, where=rows)
    assert batch.done.all()
    return float(np.mean(batch.state["winner"] == 1))


@pytest.mark.parametrize("name", ["fixed_hold_at", "minh"])
def test_the_rules_as_written_against_play(small, name, games=100_000):
    """Goal 4: a human-playable policy in the second seat against the optimum, under both
    readings, 10^5 games of the batched environment each within 4 standard errors of the exact
    win; the two readings are more than 8 standard errors apart (so the check tells them apart)."""
    from functools import partial

    from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES

    policy = partial(HUMAN_POLICIES[name], goal=small.goal)
    exact = {sww: 1.0 - zds.evaluate(small.as_policy(), zds.ScorePolicy(policy), small.goal, small.score_cap, sww)
             for sww in (True, False)}
    se = {sww: math.sqrt(p * (1 - p) / games) for sww, p in exact.items()}
    for seed, sww in enumerate((True, False)):
        played = batched_play(small, policy, sww, games, seed)
        assert abs(played - exact[sww]) < 4 * se[sww], (name, sww, played, exact[sww], se[sww])
    assert exact[True] - exact[False] > 8 * se[False], exact


def test_the_reach_past_a_win_hardly_matters(goal3, monkeypatch):
    """Under the rules as written a player 2 past a win may roll on for as far as the grid
    reaches past the goal (42 - 1 - 3 = 38 brains at goal 3) before the model makes the turn
    hold.  Cut to 12 brains, the Differences of the human-playable policies move by about 1e-6;
    cut to 24, by less than 1e-9: the reach of 38 changes nothing measurable.

    The three sets of evaluations share their turn outcomes (:class:`TurnOutcomes`, as
    :func:`differences` shares them between policies): outcomes are kept by where the turn ends,
    so a cut reach computes afresh exactly the turns it ends sooner."""
    policies = {name: zds.standard_policies(3)[name] for name in zds.REFERENCE_POLICIES}
    shared = zds.TurnOutcomes(zds.dice_chain())

    def differences():
        passes = shared.passes
        found = zds.differences(goal3, policies, stop_when_won=False, outcomes=shared)
        assert shared.passes > passes  # the turns this reach ends were computed, not read back
        return {name: row["difference"] for name, row in found.items()}

    far = differences()
    assert zds._past_the_win(zds._Grid(zds.dice_chain(), 3, goal3.score_cap, False)) == 38
    for reach, tolerance in ((12, 1e-5), (24, 1e-9)):
        monkeypatch.setattr(zds, "_past_the_win", lambda grid, reach=reach: reach)
        near = differences()
        for name in zds.REFERENCE_POLICIES:
            assert abs(far[name] - near[name]) < tolerance, (reach, name, far[name], near[name])


@pytest.mark.slow
def test_headline_by_batched_play(games=100_000):
    """Goal 13: 10^5 games of the batched environment with the optimal look-up in both seats
    agree with the exact first-player win within 4 standard errors (needs the cached
    solution: ``dice-envs solve zombie-dice`` writes it)."""
    solution = zds.load_cached(13, zds.default_score_cap(13), zds.solver_cache.default_cache_dir())
    if solution is None:
        pytest.skip("the goal-13 solution is not cached (run `dice-envs solve zombie-dice` once)")
    assert solution.first_player_win == pytest.approx(0.46479157811, abs=1e-10)
    game = ZombieDiceGame(2, "official", 13)
    batch = ZombieDiceBatch(games, game=game)
    rng = np.random.default_rng(13)
    batch.reset(rng)
    opponent = zds.BatchedOptimalOpponent(solution)
    for _ in range(10_000):
        rows = np.flatnonzero(~batch.done)
        if not len(rows):
            break
        batch.step(opponent(batch, rows, rng), rng, where=rows)
    assert batch.done.all()
    observed = float(np.mean(batch.state["winner"] == 0))
    exact = solution.first_player_win
    se = math.sqrt(exact * (1 - exact) / games)
    assert abs(observed - exact) < 4 * se, (observed, exact, se)
