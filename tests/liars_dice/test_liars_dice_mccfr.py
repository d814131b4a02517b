"""agents/liars_dice/mccfr.py (outcome-sampling MCCFR from sampled games) and the tabular
Liar's Dice policy it saves (agents/liars_dice/learned.py).

* one iteration's regret increments are, on average, the exact counterfactual regrets
  of the current policy (the estimator is unbiased), checked against the solver's exact
  action values on a 2-faced game, and its average increments the policy weighted by the
  player's own reach;
* iterating drives the average policy's exact exploitability down (seed fixed, pinned
  loosely);
* damaged tables are refused on load; bad options are refused;
* a policy table saved as a model re-loads, answers the environment's observations by its
  rows, and bad tables are refused with the reason."""

import numpy as np
import pytest

from dice_envs.agents.liars_dice.learned import InfoStates, TabularLiarsDicePolicy, action_values
from dice_envs.agents.liars_dice.mccfr import OutcomeSamplingCFR
from dice_envs.agents.liars_dice.solver import PublicTree, exploitability
from dice_envs.games.liars_dice.batched import LiarsDiceBatch
from dice_envs.games.liars_dice.rules import LiarsDiceGame


def states_of(faces, wild=False):
    game = LiarsDiceGame(faces=faces, wild=wild)
    tree = PublicTree(game)
    return game, tree, InfoStates(tree)


def exact_regrets(tree, states, probs):
    """Each information state's counterfactual regrets ``(rows, A)`` for the player to act,
    weighted by the chance of its own roll (what one sampled iteration estimates)."""
    policy = states.to_tree_policy(probs)
    out = np.zeros(probs.shape)
    for player in (0, 1):
        q_edge, q_call, norm = action_values(tree, policy, player)
        q = states.to_action_table(q_edge, q_call).reshape(tree.N, tree.R, -1)
        weight = norm[:, None] * tree.prior[None, :]  # opponent's reach x chance of both rolls
        p = probs.reshape(tree.N, tree.R, -1)
        regret = (q - (p * q).sum(-1, keepdims=True)) * weight[..., None]
        rows = (states.acting == player).reshape(tree.N, tree.R)
        out.reshape(tree.N, tree.R, -1)[rows] = regret[rows]
    return out * states.mask


@pytest.mark.parametrize("wild", [False, True])
def test_one_iteration_estimates_the_counterfactual_regrets(wild):
    game, tree, states = states_of(2, wild)
    cfr = OutcomeSamplingCFR(states, explore=0.5, regret_discount=0.0)
    rng = np.random.default_rng(0)
    cfr.regret = rng.normal(size=cfr.regret.shape)  # some non-uniform current policy
    start = cfr.regret.copy()
    probs = cfr.current_policy()
    games = 400_000
    cfr.iterate(LiarsDiceBatch(games, game=game), rng)
    estimate = cfr.regret - start
    exact = exact_regrets(tree, states, probs)
    assert np.abs(exact).max() > 0.05
    # the sampling error of a mean of 400,000 games; a wrong weight (a missing reach or
    # sampling probability) is off by far more
    assert np.abs(estimate - exact).max() < 0.012
    assert np.linalg.norm(estimate - exact) < 0.05 * np.linalg.norm(exact)
    assert cfr.iterations == 1 and (cfr.average >= 0).all()


def test_one_iteration_adds_the_policy_weighted_by_own_reach_to_the_average():
    """Expected increment at information state (m, r): the chance of roll r times the
    player's own reach of public node m, times sigma there (iteration 1: weight 1)."""
    game, tree, states = states_of(2, wild=True)
    cfr = OutcomeSamplingCFR(states, explore=0.5, regret_discount=0.0)
    rng = np.random.default_rng(4)
    cfr.regret = rng.normal(size=cfr.regret.shape) * states.mask
    probs = cfr.current_policy()
    cfr.iterate(LiarsDiceBatch(100_000, game=game), rng)
    policy = states.to_tree_policy(probs)
    expected = np.zeros(probs.shape)
    for player in (0, 1):
        own_edges = tree.edge_mask[player] > 0
        reach = tree.top_down(tree.prior, np.where(own_edges, policy.edge, 1.0))  # (N, R): prior x own reach
        rows = states.acting == player
        expected[rows] = (reach.reshape(-1)[:, None] * probs)[rows]
    expected *= states.mask
    # measured: 0.011 and 1.0 % (sampling error of 100,000 games); a missing or extra reach
    # or sampling factor is off by tens of percent
    assert np.abs(cfr.average - expected).max() < 0.03
    assert np.linalg.norm(cfr.average - expected) < 0.03 * np.linalg.norm(expected)


def test_iterating_lowers_the_average_policys_exploitability():
    """Uniform play is exploitable by 0.72 on 3 faces; 300 iterations of 2,048 games
    (seed 0) measured 0.012."""
    game, tree, states = states_of(3)
    cfr = OutcomeSamplingCFR(states)
    batch, rng = LiarsDiceBatch(2048, game=game), np.random.default_rng(0)
    for _ in range(300):
        cfr.iterate(batch, rng)
    assert exploitability(tree, states.to_tree_policy(cfr.average_policy())) < 0.03


def test_tables_round_trip_and_damage_is_refused():
    game, tree, states = states_of(3)
    cfr = OutcomeSamplingCFR(states)
    cfr.iterate(LiarsDiceBatch(64, game=game), np.random.default_rng(1))
    other = OutcomeSamplingCFR(states)
    other.load_state_dict(cfr.state_dict())
    assert np.array_equal(other.regret, cfr.regret) and np.array_equal(other.average, cfr.average)
    assert other.iterations == 1
    good = cfr.state_dict()
    for change, message in (({"regret": good["regret"][:-1]}, "shape"),
                            ({"average": np.full_like(good["average"], np.nan)}, "non-finite"),
                            ({"average": -1.0 * states.mask}, "negative"),
                            ({"regret": good["regret"] + ~states.mask}, "illegal actions"),
                            ({"iterations": np.array(-1)}, "whole number"),
                            ({"iterations": np.array(2.5)}, "whole number"),
                            ({"average": None}, "has shape")):
        with pytest.raises(ValueError, match=message):
            OutcomeSamplingCFR(states).load_state_dict({**good, **change})


@pytest.mark.parametrize("option", [{"explore": 0.0}, {"explore": 1.5}, {"regret_discount": -1.0}])
def test_bad_options_are_refused(option):
    with pytest.raises(ValueError, match=next(iter(option))):
        OutcomeSamplingCFR(states_of(2)[2], **option)


def test_a_steep_regret_discount_does_not_overflow():
    game, tree, states = states_of(2)
    cfr = OutcomeSamplingCFR(states, regret_discount=1000.0)
    batch, rng = LiarsDiceBatch(64, game=game), np.random.default_rng(5)
    for _ in range(3):
        cfr.iterate(batch, rng)
    assert np.isfinite(cfr.regret).all() and np.abs(cfr.regret).max() > 0


def test_a_saved_table_is_a_model(tmp_path):
    pytest.importorskip("torch")
    from dice_envs.agents.liars_dice.learned import load_model
    from dice_envs.agents.liars_dice.training import save_table_model

    game, tree, states = states_of(3, wild=True)
    table = np.random.default_rng(2).random(states.mask.shape) * states.mask
    table /= table.sum(1, keepdims=True)
    save_table_model(tmp_path / "model.pt", game, table)
    policy = load_model(tmp_path / "model.pt")
    assert isinstance(policy, TabularLiarsDicePolicy) and policy.game == game
    # the environment's observations find their rows
    batch = LiarsDiceBatch(500, game=game)
    rng = np.random.default_rng(3)
    batch.reset(rng)
    batch.step(rng.integers(0, game.num_bids, 500), rng)
    live = np.flatnonzero(~batch.done)
    obs, mask = batch.observe_mover(where=live), batch.action_mask(where=live).astype(bool)
    assert np.allclose(policy.probabilities(obs, mask), table[states.rows(obs)])
    state = game.new_initial_state()
    state = state.apply(state.chance_outcomes()[0][0])  # the roll
    p = policy.action_probabilities(state)
    assert sum(p.values()) == pytest.approx(1.0) and set(p) == set(state.legal_actions())


@pytest.mark.parametrize("damage,message", [
    (lambda t: t[:-1], "shape"),
    (lambda t: -t, "negative"),
    (lambda t: t * 2, "sums to 2"),
    (lambda t: t + 1.0, "illegal actions"),
])
def test_bad_tables_are_refused(damage, message):
    game, tree, states = states_of(2)
    table = states.mask / states.mask.sum(1, keepdims=True)
    with pytest.raises(ValueError, match=message):
        TabularLiarsDicePolicy(game, damage(table))
