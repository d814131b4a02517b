"""ESCHER for Liar's Dice (``dice_envs.agents.liars_dice.escher``): its parts, and that it learns."""

from __future__ import annotations

import io

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dice_envs.agents.liars_dice.escher import (
    Escher,
    EscherSettings,
    Reservoir,
    expected_sarsa_targets,
    regret_matching,
    unique_rows,
)
from dice_envs.agents.liars_dice.learned import NETWORK_CHUNK, InfoStates, LearnedLiarsDicePolicy  # noqa: E402
from dice_envs.agents.liars_dice.solver import PublicTree, exploitability  # noqa: E402
from dice_envs.games.liars_dice.batched import LiarsDiceBatch  # noqa: E402
from dice_envs.games.liars_dice.rules import LiarsDiceGame, LiarsDiceState  # noqa: E402

#: small, and plain: Deep CFR's regret matching on the dealt dice (the settings below add to it)
SMALL = EscherSettings(games=256, value_steps=8, regret_steps=8, average_steps=8, minibatch=512, buffer=20_000,
                       value_learning_rate=1e-3, other_dice="sampled", own_dice="dealt", merge=False,
                       regret_plus=False, predictive_plus=False, reach_floor=0.0, iteration_rows=0.0, average_power=1.0,
                       average_ema=0.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5, allow_nan=False), st.booleans()), min_size=1, max_size=8))
def test_regret_matching_plays_the_positive_regrets_or_the_best_legal_action(rows):
    regrets = torch.tensor([[r for r, _ in rows]], dtype=torch.float64)
    mask = torch.tensor([[legal for _, legal in rows]])
    mask[0, 0] = True  # at least one legal action
    p = regret_matching(regrets, mask)[0].numpy()
    r, legal = regrets[0].numpy(), mask[0].numpy()
    assert p.sum() == pytest.approx(1.0) and (p[~legal] == 0).all()
    positive = np.where(legal, np.maximum(r, 0), 0)
    if positive.sum() > 0:
        assert p == pytest.approx(positive / positive.sum())
    else:
        assert p[np.flatnonzero(legal)[np.argmax(r[legal])]] == 1.0


def _rows(first: int, n: int):
    """Rows that carry their own number (in the target) so that a kept row can be recognised."""
    number = np.arange(first, first + n)
    obs = (number[:, None] % 7).astype(np.uint8).repeat(3, 1)
    mask = np.ones((n, 2), bool)
    target = np.stack([number, -number], 1).astype(np.float32)
    return obs, mask, target


def test_the_reservoir_keeps_a_uniform_sample_of_every_row():
    rng = np.random.default_rng(0)
    res = Reservoir(1000, 3, 2)
    res.add(*_rows(0, 400), 1.0, rng)
    assert len(res) == 400 and res.seen == 400  # below capacity every row is kept, in order
    assert (res.target[:400, 0] == np.arange(400)).all()
    for first in range(400, 20_000, 800):  # batches larger than the capacity too
        res.add(*_rows(first, 800), 2.0, rng)
    assert len(res) == 1000 and res.seen == 20_400
    kept = res.target[:, 0].astype(int)
    assert len(set(kept)) == 1000 and (res.obs[:, 0] == kept % 7).all() and (res.target[:, 1] == -kept).all()
    # Each of the 20,400 rows is kept with probability 1000 / 20,400: the kept numbers' mean is
    # 10,199.5 with a standard deviation of about 20,400 / sqrt(12 x 1000) = 186.
    assert abs(kept.mean() - 10_199.5) < 4 * 186
    assert (res.weight[kept < 400] == 1.0).all() and (res.weight[kept >= 400] == 2.0).all()
    obs, mask, target, weight = res.sample(64, rng)
    assert obs.dtype == torch.float32 and obs.shape == (64, 3) and target.shape == (64, 2) and weight.shape == (64,)


def test_the_reservoir_round_trips_and_refuses_damage():
    rng = np.random.default_rng(1)
    res = Reservoir(50, 3, 2)
    res.add(*_rows(0, 80), 3.0, rng)
    state = res.state_dict()
    back = Reservoir(50, 3, 2)
    back.load_state_dict(state)
    assert back.seen == 80 and all((getattr(back, k) == getattr(res, k)).all()
                                   for k in ("obs", "mask", "target", "weight"))
    bad = dict(state, target=state["target"][:-1])
    with pytest.raises(ValueError, match="'target'"):
        Reservoir(50, 3, 2).load_state_dict(bad)
    nan = state["weight"].clone()
    nan[0] = float("nan")
    with pytest.raises(ValueError, match="not finite"):
        Reservoir(50, 3, 2).load_state_dict(dict(state, weight=nan))
    negative = state["weight"].clone()
    negative[0] = -1.0
    with pytest.raises(ValueError, match="negative weights"):
        Reservoir(50, 3, 2).load_state_dict(dict(state, weight=negative))


def test_a_reservoir_over_the_memory_limit_is_refused(monkeypatch):
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "1G")
    with pytest.raises(ValueError, match="reservoir of 100,000,000 rows"):
        Reservoir(100_000_000, 35, 25, "the reservoir")


def test_expected_sarsa_targets_follow_each_game_to_its_next_decision():
    # Step 0: games 0, 1, 2 move; game 1 ends (its mover wins).  Step 1: games 0 and 2 move,
    # worth 0.25 and -0.5 to their movers; game 2 ends (its mover loses).  Step 2: game 0, ends.
    games = [np.array([0, 1, 2]), np.array([0, 2]), np.array([0])]
    payoff = [np.array([0.0, 1.0, 0.0]), np.array([0.0, -1.0]), np.array([1.0])]
    ended = [np.array([False, True, False]), np.array([False, True]), np.array([True])]
    value = [np.array([9.0, 9.0, 9.0]), np.array([0.25, -0.5]), np.array([0.75])]
    assert expected_sarsa_targets(games, payoff, ended, value).tolist() == [-0.25, 1.0, 0.5, -0.75, -1.0, 1.0]


def _exploitability(game, tree, states, probs):
    return exploitability(tree, states.to_tree_policy(probs))


def _assert_a_round_trip_continues_identically(learner: Escher, copy: Escher) -> None:
    """``learner``'s state, saved and loaded into ``copy`` as a checkpoint is (loaded unsaved,
    torch's Adam states would be shared, not copied), gives the same networks after one more
    iteration from the same seeds."""
    saved = io.BytesIO()
    torch.save(learner.state_dict(), saved)
    saved.seek(0)
    copy.load_state_dict(torch.load(saved, weights_only=True))
    for one in (learner, copy):
        torch.manual_seed(3)
        one.iterate(LiarsDiceBatch(one.settings.games, game=one.game), np.random.default_rng(5))
    for a, b in zip(learner.networks(), copy.networks()):
        for x, y in zip(a.parameters(), b.parameters()):
            assert torch.equal(x, y)


def test_escher_learns_a_small_game_and_its_state_round_trips():
    """On three-faced dice, one each (uniform play is exploitable by 0.718), 120 iterations of 256
    games with 32x32 networks took the average network to 0.29 (seed 0, measured) in 5 s."""
    torch.manual_seed(0)
    game = LiarsDiceGame(faces=3)
    tree = PublicTree(game)
    states = InfoStates(tree)
    learner = Escher(game, "32,32", "32,32", SMALL)
    batch, rng = LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0)
    uniform = _exploitability(game, tree, states, states.mask / states.mask.sum(1, keepdims=True))
    assert uniform == pytest.approx(0.7182, abs=1e-4)
    for _ in range(120):
        steps, losses = learner.iterate(batch, rng)
        assert steps >= SMALL.games and all(np.isfinite(v) for v in losses.values())
    learned = _exploitability(game, tree, states, LearnedLiarsDicePolicy(game, learner.average_net).probabilities(
        states.obs, states.mask))
    assert learned < 0.4
    assert learner.iterations == 120 and len(learner.regrets) > 0 and len(learner.policies) > 0
    # Its state, saved and loaded into a fresh learner as a checkpoint is, continues identically.
    _assert_a_round_trip_continues_identically(learner, Escher(game, "32,32", "32,32", SMALL))


def test_escher_plays_unequal_dice_with_the_other_players_dice_seen_by_the_value_network():
    game = LiarsDiceGame(dice_per_player=(1, 2), faces=3, wild="aces")
    learner = Escher(game, "16", "16", SMALL)
    batch, rng = LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0)
    decisions = learner._play(batch, rng)
    other = np.concatenate(decisions.other)
    assert set(other.sum(1).tolist()) == {1.0, 2.0}  # the other player's dice: one or two
    traverser = np.concatenate(decisions.traverser)
    assert 0.3 < traverser.mean() < 0.7
    sigma = np.concatenate(decisions.sigma)
    assert np.allclose(sigma.sum(1), 1.0) and (sigma[~np.concatenate(decisions.mask)] == 0).all()


def test_escher_refuses_what_it_cannot_learn():
    with pytest.raises(ValueError, match="two-player"):
        Escher(LiarsDiceGame(num_players=3, faces=3), "8", "8", SMALL)
    learner = Escher(LiarsDiceGame(faces=3), "8", "8", SMALL)
    with pytest.raises(ValueError, match="256 games"):
        learner.iterate(LiarsDiceBatch(128, faces=3), np.random.default_rng(0))


@pytest.mark.parametrize("dice, wild", [(1, "highest"), ((1, 2), "aces")])
def test_the_posterior_of_the_hidden_dice_is_bayes_rule_on_the_rules_core(dice, wild):
    """``other_dice="posterior"`` weights each roll the non-traverser may hold by its chance times
    the probability that ``sigma_t`` with that roll made its bids so far.  Recomputed here from the
    rules core's observations, game by game."""
    torch.manual_seed(1)
    game = LiarsDiceGame(dice_per_player=dice, faces=3, wild=wild)
    learner = Escher(game, "16", "16", EscherSettings(**{**SMALL.__dict__, "other_dice": "posterior"}))
    with torch.no_grad():  # a policy far from uniform, so that the bids say something about the dice
        learner.regret_net.mlp[-1].weight.normal_(0.0, 3.0)
    decisions = learner._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0))
    rolls = [game.roll_distribution(p) for p in range(2)]
    bids: dict = {}
    checked = 0
    for step, games in enumerate(decisions.games):
        for row, g in enumerate(games):
            if g >= 40:
                break
            hidden = 1 - g % 2  # the traverser of game g is player g % 2
            history = bids.setdefault(g, [])
            weight = []
            for roll, chance in rolls[hidden]:
                reach = float(chance)
                for turn, bid in enumerate(history):
                    state = LiarsDiceState(game, (roll, roll) if dice == 1 else
                                           tuple(roll if p == hidden else rolls[p][0][0] for p in range(2)),
                                           tuple(history[:turn]), False)
                    if state.current_player == hidden:
                        obs = state.observation(hidden)[None]
                        mask = np.zeros((1, game.num_actions), bool)
                        mask[0, list(state.legal_actions())] = True
                        reach *= learner.current_policy(obs, mask)[0, bid]
                weight.append(reach)
            expected = np.zeros(learner.rolls.shape[1])
            expected[:len(weight)] = np.array(weight) / sum(weight)
            assert decisions.posterior[step][row] == pytest.approx(expected, abs=1e-6)  # float32 networks
            checked += 1
        for row, g in enumerate(games):
            bids.setdefault(g, []).append(int(decisions.action[step][row]))
    assert checked > 100


def test_every_roll_of_a_decision_becomes_a_row_weighted_by_its_posterior():
    """``own_dice="all"``: the regret reservoir gets one row per roll the traverser may hold (its
    chance times the number of rolls as the weight), the average-policy reservoir one per roll the
    other player may hold (its posterior as the weight), each with that roll in the observation."""
    torch.manual_seed(2)
    game = LiarsDiceGame(dice_per_player=(2, 1), faces=3, wild="aces")
    settings_all = EscherSettings(**{**SMALL.__dict__, "own_dice": "all", "other_dice": "posterior"})
    learner = Escher(game, "16", "16", settings_all)
    learner.iterations = 3
    decisions = learner._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0))
    learner._add_samples(decisions, np.random.default_rng(1))
    trav = np.concatenate(decisions.traverser)
    n = len(learner.policies)
    assert learner.policies.weight[:n].sum() == pytest.approx(3.0 * (~trav).sum(), rel=1e-5)
    assert learner.regrets.weight[:len(learner.regrets)].sum() == pytest.approx(3.0 * 6 * trav.sum(), rel=1e-5)
    faces = learner.regrets.obs[:len(learner.regrets), 2:5]
    assert set(map(tuple, faces.tolist())) == {(2, 0, 0), (0, 2, 0), (0, 0, 2), (1, 1, 0), (1, 0, 1), (0, 1, 1),
                                              (1, 0, 0), (0, 1, 0), (0, 0, 1)}
    # a row's average-policy target is sigma_t at its own roll
    rows = learner.policies.obs[:n].astype(np.float32)
    expected = learner.current_policy(rows, learner.policies.mask[:n])
    assert np.allclose(learner.policies.target[:n], expected, atol=1e-6)


def test_settings_name_a_bad_choice():
    with pytest.raises(ValueError, match="other_dice"):
        EscherSettings(other_dice="dealt")
    with pytest.raises(ValueError, match="own_dice"):
        EscherSettings(own_dice="some")
    with pytest.raises(ValueError, match="average_ema"):
        EscherSettings(average_ema=1.0)


@pytest.mark.parametrize("other_dice, own_dice", [("sampled", "dealt"), ("posterior", "all")])
def test_merged_rows_carry_the_same_weighted_targets(other_dice, own_dice):
    """``merge=True`` keeps one row per distinct input of an iteration, weighted by the rows it
    stands for: per input, the total weight and the weighted sum of targets are those of the rows
    added one by one."""
    game = LiarsDiceGame(faces=3, wild="highest")
    learners = []
    for merge in (False, True):
        torch.manual_seed(4)
        learner = Escher(game, "16", "16", EscherSettings(**{**SMALL.__dict__, "buffer": 200_000, "merge": merge,
                                                             "other_dice": other_dice, "own_dice": own_dice}))
        learner.iterations = 2
        decisions = learner._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0))
        learner._add_samples(decisions, np.random.default_rng(1))
        learners.append(learner)
    for name in ("regrets", "policies"):
        totals = []
        for learner in learners:
            store = getattr(learner, name)
            n = len(store)
            assert n < store.capacity  # every row kept
            keys, inverse = np.unique(store.obs[:n], axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
            weight = np.bincount(inverse, store.weight[:n], len(keys))
            target = np.stack([np.bincount(inverse, store.weight[:n] * store.target[:n, a], len(keys))
                               for a in range(game.num_actions)], axis=1)
            totals.append((keys, weight, target, n))
        (k0, w0, t0, n0), (k1, w1, t1, n1) = totals
        assert n1 < n0 and np.array_equal(k0, k1)  # fewer rows, the same inputs
        assert w1 == pytest.approx(w0, rel=1e-5) and t1 == pytest.approx(t0, rel=1e-4, abs=1e-4)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 60), st.integers(1, 40), st.integers(1, 4), st.integers(0, 2 ** 32 - 1))
def test_unique_rows_groups_equal_rows_as_numpy_does(n, width, values, seed):
    rows = np.random.default_rng(seed).integers(0, values, (n, width)).astype(np.uint8)
    first, inverse = unique_rows(rows)
    _, numpy_first, numpy_inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    assert np.array_equal(first, numpy_first) and np.array_equal(inverse, numpy_inverse.reshape(-1))


def test_sampling_by_weight_draws_rows_in_proportion_to_their_weights():
    store = Reservoir(10, 1, 2)
    store.add(np.arange(3, dtype=np.uint8)[:, None], np.ones((3, 2), bool), np.zeros((3, 2), np.float32),
              np.array([1.0, 0.0, 3.0]), np.random.default_rng(0))
    obs, _, _, weight = store.sample(40_000, np.random.default_rng(1), store.by_weight())
    drawn = np.bincount(obs[:, 0].numpy().astype(int), minlength=3) / 40_000
    assert drawn == pytest.approx([0.25, 0.0, 0.75], abs=0.01)
    assert (weight.numpy() == 1.0).all()


def test_regret_matching_plus_fits_the_floored_sums_of_counterfactually_weighted_regrets():
    """``regret_plus``: a traverser decision's weight is ``1 / (games * its reach by its uniform
    draws)`` (an unbiased estimate of the counterfactual reach), and the regret network is fitted
    toward its own output before the fit plus the iteration's weighted regrets, floored at 0: from
    zero outputs, the floored weighted regrets of the first iteration."""
    torch.manual_seed(0)
    game = LiarsDiceGame(faces=3, wild="highest")
    plus = EscherSettings(**{**SMALL.__dict__, "buffer": 200_000, "other_dice": "posterior", "own_dice": "all",
                             "merge": True, "regret_plus": True, "regret_steps": 300})
    learner = Escher(game, "32,32", "16", plus)
    decisions = learner._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0))
    # the traverser's reach: the product of 1 / (legal actions) over its earlier decisions in the game
    reach = {}
    for games, mask, traversing, explore in zip(decisions.games, decisions.mask, decisions.traverser,
                                                decisions.explore):
        expected = np.array([reach.get(g, 1.0) for g in games])
        assert np.allclose(explore, expected)
        for g, legal in zip(games[traversing], mask[traversing].sum(1)):
            reach[g] = reach.get(g, 1.0) / legal
    learner.iterations, learner._playing = 1, True
    learner._add_samples(decisions, np.random.default_rng(1))
    n = len(learner.regrets)
    assert 0 < n < learner.regrets.capacity
    obs, mask = learner.regrets.obs[:n], learner.regrets.mask[:n]
    added = learner._increments.at(obs)
    assert np.allclose(added, learner.regrets.weight[:n, None] * learner.regrets.target[:n], rtol=1e-5, atol=1e-7)
    K = learner.rolls.shape[1]  # (each decision's rows, one per roll, weigh K times its chance: K in all)
    assert learner.regrets.weight[:n].sum() == pytest.approx(
        K * sum((1.0 / (SMALL.games * e[t])).sum() for e, t in zip(decisions.explore, decisions.traverser)), rel=1e-4)
    learner._fit_plus(np.random.default_rng(2))
    with torch.no_grad():
        fitted = learner.regret_net(torch.from_numpy(obs.astype(np.float32))).numpy() * mask
    target = np.clip(added, 0.0, None) * mask
    assert np.abs(fitted - target).mean() < 0.25 * np.abs(target).mean()
    # an observation the iteration did not visit adds nothing; equal observations add up
    unseen = obs[:1].copy()
    unseen[0, -1] = 255
    assert (learner._increments.at(unseen) == 0).all()
    twice = type(learner._increments)(np.concatenate([obs[:1], obs[:1]]), np.ones((2, game.num_actions), np.float32))
    assert (twice.at(obs[:1]) == 2.0).all()


def test_the_regret_decay_scales_the_sums_before_the_iteration_s_regrets_are_added(monkeypatch):
    """``regret_decay = d``: the bootstrapped target is ``max(0, d * before + regrets)``, ``before``
    the regret network's output before the fit."""
    torch.manual_seed(0)
    game = LiarsDiceGame(faces=3, wild="highest")
    targets = {}
    for decay in (1.0, 0.5):
        settings = EscherSettings(**{**SMALL.__dict__, "other_dice": "posterior", "own_dice": "all", "merge": True,
                                     "regret_plus": True, "regret_decay": decay})
        learner = Escher(game, "16", "16", settings)
        with torch.no_grad():  # (outputs well away from 0, so that the decay shows through the floor)
            learner.regret_net.mlp[-1].bias.fill_(2.0)
        learner.iterations, learner._playing = 1, True
        learner._add_samples(learner._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0)),
                             np.random.default_rng(1))
        captured = {}
        monkeypatch.setattr(learner, "_fit", lambda *args, target_of, **kwargs: captured.update(target_of=target_of))
        learner._fit_plus(np.random.default_rng(2))
        n = len(learner.regrets)
        obs = torch.from_numpy(learner.regrets.obs[:n].astype(np.float32))
        with torch.no_grad():
            before, target = learner.regret_net(obs), captured["target_of"](obs)
        added = torch.from_numpy(learner._increments.at(learner.regrets.obs[:n]))
        assert torch.allclose(target, torch.clamp(decay * before + added, min=0.0))
        targets[decay] = target
    assert not torch.allclose(targets[1.0], targets[0.5])


def test_iteration_rows_draw_their_share_of_each_regret_minibatch_from_all_the_iteration_s_rows(monkeypatch):
    """``iteration_rows = s``: each minibatch of the regret fit takes ``s`` of its rows from all of
    the iteration's rows (by weight), where the reservoir kept only some, and the rest from the
    reservoir."""
    torch.manual_seed(0)
    game = LiarsDiceGame(faces=3, wild="highest")
    settings = EscherSettings(**{**SMALL.__dict__, "other_dice": "posterior", "own_dice": "all", "merge": True,
                                 "regret_plus": True, "iteration_rows": 0.25, "buffer": 50})
    learner = Escher(game, "16", "16", settings)
    learner.iterations, learner._playing = 1, True
    learner._add_samples(learner._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0)),
                         np.random.default_rng(1))
    rows = learner._iteration_rows
    assert len(rows) == learner.regrets.seen > len(learner.regrets) == 50
    assert np.array_equal(learner._increments.at(rows.obs) != 0, rows.target != 0)  # the iteration's own regrets
    draws = []
    original = Reservoir.draw
    monkeypatch.setattr(Reservoir, "draw", lambda self, n, rng, by_weight=None:
                        draws.append((self, n, by_weight is not None)) or original(self, n, rng, by_weight))
    learner._fit_plus(np.random.default_rng(2))
    share = round(0.25 * settings.minibatch)
    assert draws == [(learner.regrets, settings.minibatch - share, True), (rows, share, True)] * settings.regret_steps
    # without the share, the fit draws from the reservoir alone
    plain = Escher(game, "16", "16", EscherSettings(**{**settings.__dict__, "iteration_rows": 0.0}))
    plain.iterations, plain._playing = 1, True
    plain._add_samples(plain._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0)),
                       np.random.default_rng(1))
    assert plain._iteration_rows is None
    draws.clear()
    plain._fit_plus(np.random.default_rng(2))
    assert draws == [(plain.regrets, settings.minibatch, True)] * settings.regret_steps


def test_the_average_weights_iteration_t_by_t_to_the_average_power():
    game = LiarsDiceGame(faces=3)
    weights = []
    for power in (1.0, 2.0):
        torch.manual_seed(4)
        learner = Escher(game, "16", "16", EscherSettings(**{**SMALL.__dict__, "average_power": power}))
        learner.iterations = 3
        learner._add_samples(learner._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0)),
                             np.random.default_rng(1))
        weights.append(learner.policies.weight[:len(learner.policies)].copy())
    assert np.allclose(weights[1], 3.0 * weights[0])


def test_predictive_regret_matching_plus_plays_on_the_network_plus_its_last_change():
    """``predictive_plus``: sigma_t is regret matching on ``2 R_t - R_{t-1}``, the regret network
    after and before its last fit; before any fit both are zero (the first legal action, as plain
    regret matching+ plays), and the network before the fit is part of the learner's state."""
    torch.manual_seed(0)
    game = LiarsDiceGame(faces=3, wild="highest")
    settings_ = EscherSettings(**{**SMALL.__dict__, "regret_plus": True, "predictive_plus": True})
    learner = Escher(game, "16", "16", settings_)
    states = InfoStates(PublicTree(game))
    obs, mask = states.obs, states.mask.astype(bool)
    plain = Escher(game, "16", "16", EscherSettings(**{**SMALL.__dict__, "regret_plus": True}))
    assert np.array_equal(learner.current_policy(obs, mask), plain.current_policy(obs, mask))
    batch, rng = LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0)
    for _ in range(2):
        learner.iterate(batch, rng)
    x = torch.from_numpy(obs.astype(np.float32))
    with torch.no_grad():
        after, before = learner.regret_net(x).double(), learner.frozen_net(x).double()
    assert not torch.equal(after, before)
    expected = regret_matching(2.0 * after - before, torch.from_numpy(mask)).numpy()
    assert np.allclose(learner.current_policy(obs, mask), expected)
    # a batch of more than NETWORK_CHUNK rows runs in chunks, to the same policy row by row
    copies = 2 * NETWORK_CHUNK // len(obs) + 1
    assert np.allclose(learner.current_policy(np.tile(obs, (copies, 1)), np.tile(mask, (copies, 1))),
                       np.tile(expected, (copies, 1)))
    # the frozen network round-trips, so that a resumed run plays the same sigma_t
    state = learner.state_dict()
    again = Escher(game, "16", "16", settings_)
    again.load_state_dict(state)
    assert np.array_equal(again.current_policy(obs, mask), learner.current_policy(obs, mask))
    assert "frozen_net" not in plain.state_dict()


def test_the_output_is_the_moving_average_of_the_average_networks_weights():
    """``average_ema = d``: after every Adam step of the average network's fit, ``ema <- d ema +
    (1 - d) w``; the moving average is what is scored and saved, and part of the learner's state."""
    torch.manual_seed(0)
    game = LiarsDiceGame(faces=3, wild="highest")
    decay = 0.8
    learner = Escher(game, "16", "16", EscherSettings(**{**SMALL.__dict__, "average_ema": decay, "average_steps": 3}))
    assert learner.output_net is learner.average_ema and learner.average_ema in learner.networks()
    start = [p.detach().clone() for p in learner.average_ema.parameters()]
    seen = []
    step = learner.optimisers["average"].step

    def step_and_record(*args, **kwargs):
        out = step(*args, **kwargs)
        seen.append([p.detach().clone() for p in learner.average_net.parameters()])
        return out

    learner.optimisers["average"].step = step_and_record
    learner.iterate(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0))
    assert len(seen) == 3
    expected = start
    for weights in seen:
        expected = [decay * e + (1 - decay) * w for e, w in zip(expected, weights)]
    for mine, theirs in zip(learner.average_ema.parameters(), expected):
        assert torch.allclose(mine, theirs, atol=1e-6)
    assert not all(torch.equal(a, b) for a, b in zip(learner.average_ema.parameters(),
                                                     learner.average_net.parameters()))
    again = Escher(game, "16", "16", EscherSettings(**{**SMALL.__dict__, "average_ema": decay}))
    again.load_state_dict(learner.state_dict())
    assert all(torch.equal(a, b) for a, b in zip(again.average_ema.parameters(), learner.average_ema.parameters()))
    plain = Escher(game, "16", "16", SMALL)
    assert plain.output_net is plain.average_net and "average_ema" not in plain.state_dict()


def test_regret_matching_plus_settings_are_checked():
    with pytest.raises(ValueError, match="predictive_plus is for regret_plus"):
        EscherSettings(regret_plus=False, predictive_plus=True)
    with pytest.raises(ValueError, match="average_ema"):
        EscherSettings(average_ema=1.0)
    with pytest.raises(ValueError, match="average_power"):
        EscherSettings(average_power=-1.0)
    with pytest.raises(ValueError, match="reach_floor"):
        EscherSettings(reach_floor=1.0)
    for decay in (0.0, 1.5):
        with pytest.raises(ValueError, match="regret_decay must be in"):
            EscherSettings(regret_decay=decay)
    with pytest.raises(ValueError, match="regret_decay is for regret_plus"):
        EscherSettings(regret_plus=False, predictive_plus=False, regret_decay=0.99)
    for share in (-0.1, 1.0):
        with pytest.raises(ValueError, match="iteration_rows must be in"):
            EscherSettings(iteration_rows=share)
    with pytest.raises(ValueError, match="iteration_rows is for regret_plus"):
        EscherSettings(regret_plus=False, predictive_plus=False, iteration_rows=0.5)


def test_the_reach_floor_caps_the_weights_of_deep_decisions():
    """``reach_floor = f``: a decision's weight is ``1 / (games * max(rho, f))``, a constant of its
    information state (``rho`` depends on the traverser's own bids only), so regret matching+'s
    policy on a table would not change; it keeps the rare deep decisions' weights bounded."""
    game = LiarsDiceGame(dice_per_player=(1, 2), faces=3, wild="aces")
    weights = []
    for floor in (0.0, 0.05):
        torch.manual_seed(4)
        learner = Escher(game, "16", "16", EscherSettings(**{**SMALL.__dict__, "regret_plus": True,
                                                             "reach_floor": floor}))
        learner.iterations = 1
        decisions = learner._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0))
        learner._add_samples(decisions, np.random.default_rng(1))
        weights.append(learner.regrets.weight[:len(learner.regrets)].copy())
        rho = np.concatenate(decisions.explore)[np.concatenate(decisions.traverser)]
    assert weights[0] == pytest.approx(1.0 / (SMALL.games * rho), rel=1e-5)
    assert weights[1] == pytest.approx(1.0 / (SMALL.games * np.maximum(rho, 0.05)), rel=1e-5)
    assert weights[0].max() > 1.0 / (SMALL.games * 0.05) >= weights[1].max()
