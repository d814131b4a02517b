"""Public beliefs of Liar's Dice (``dice_envs.agents.liars_dice.beliefs``) and the networks that take them:
the ranges against a slow reference on the rules core, the batched play's ranges against the scoring's, and a
belief-taking network scored alike in memory and streamed."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dice_envs.agents.liars_dice.beliefs import Hands, belief_features, beliefs_at  # noqa: E402
from dice_envs.agents.liars_dice.escher import Escher, EscherSettings  # noqa: E402
from dice_envs.agents.liars_dice.learned import (  # noqa: E402
    InfoStates,
    LearnedLiarsDicePolicy,
    build_network,
    load_model,
)
from dice_envs.agents.liars_dice.solver import PublicTree, evaluate  # noqa: E402
from dice_envs.agents.liars_dice.streamed import streamed_evaluate  # noqa: E402
from dice_envs.agents.liars_dice.training import save_model  # noqa: E402
from dice_envs.games.liars_dice.batched import LiarsDiceBatch  # noqa: E402
from dice_envs.games.liars_dice.rules import LiarsDiceGame, LiarsDiceState  # noqa: E402

SMALL = EscherSettings(games=256, value_steps=4, regret_steps=4, average_steps=4, minibatch=256, buffer=20_000,
                       beliefs=True)


def _random_policy(game: LiarsDiceGame, seed: int, scale: float = 2.0) -> LearnedLiarsDicePolicy:
    """A belief-taking network far from uniform, so that the bids say much about the dice."""
    torch.manual_seed(seed)
    net = build_network(game.config(), "16", Hands(game).features)
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, scale)
    return LearnedLiarsDicePolicy(game, net, beliefs=True)


def _faces(counts) -> tuple:
    return tuple(f + 1 for f, c in enumerate(counts) for _ in range(int(c)))


def _reference_ranges(game: LiarsDiceGame, hands: Hands, policy, bids) -> np.ndarray:
    """Both players' log-ranges after ``bids``, recomputed from scratch one decision at a time on the
    rules core's observations: each hand's chance times the probability that its holder's policy, given
    the ranges at that decision, made its bids; a range no hand can have made starts again from the chances."""
    log = hands.log_prior.copy()
    for turn, bid in enumerate(bids):
        mover = (game.starting_player + turn) % 2
        step = log[mover].copy()
        for k in range(hands.K):
            if not np.isfinite(hands.log_prior[mover, k]):
                continue
            rolls = [_faces(hands.counts[p, 0]) for p in (0, 1)]
            rolls[mover] = _faces(hands.counts[mover, k])
            state = LiarsDiceState(game, tuple(rolls), tuple(bids[:turn]), False)
            obs = state.observation(mover)[None]
            mask = np.zeros((1, game.num_actions), bool)
            mask[0, list(state.legal_actions())] = True
            ranges = np.stack([log[mover], log[1 - mover]])
            w = np.exp(ranges - ranges.max(1, keepdims=True))
            features = (w / w.sum(1, keepdims=True)).reshape(1, -1).astype(np.float32)
            with np.errstate(divide="ignore"):
                step[k] += np.log(policy(obs, mask, features)[0, bid])
        log[mover] = step if np.isfinite(step).any() else hands.log_prior[mover]
    return log


def _bids(node: int, bits: int) -> list:
    return [b for b in range(bits) if node >> b & 1]


@pytest.mark.parametrize("dice, wild", [(1, "highest"), ((1, 2), "aces")])
@pytest.mark.parametrize("kind", ["softmax network", "regret matching"])
def test_the_ranges_at_every_public_node_are_bayes_rule_on_the_rules_core(dice, wild, kind):
    """:func:`beliefs_at` over every information state equals the slow reference, with a softmax network
    and with regret matching (whose exact zeros make some ranges start again from the chances)."""
    game = LiarsDiceGame(dice_per_player=dice, faces=3, wild=wild)
    hands = Hands(game)
    if kind == "softmax network":
        policy = _random_policy(game, 0).probabilities
    else:
        torch.manual_seed(1)
        learner = Escher(game, "16", "16", SMALL)
        with torch.no_grad():
            for p in learner.regret_net.parameters():
                p.normal_(0.0, 2.0)
        policy = learner.current_policy
    states = InfoStates(PublicTree(game))
    log = beliefs_at(hands, policy, states.obs)
    R = states.tree.R
    restarted = 0
    for node in range(0, 1 << game.num_bids, 3 if dice == 1 else 97):
        bids = _bids(node, game.num_bids)
        if len(bids) > 5:
            continue
        expected = _reference_ranges(game, hands, policy, bids)
        for row in range(node * R, node * R + R):
            assert np.allclose(log[row], expected, atol=1e-9, equal_nan=False), (node, bids)
        restarted += any(np.array_equal(expected[p], hands.log_prior[p]) for p in (0, 1) if bids)
    assert restarted > 0 if kind == "regret matching" else True


def test_the_batched_play_carries_the_ranges_the_scoring_computes():
    """ESCHER with ``beliefs`` carries both players' ranges along every game, one decision at a time:
    sigma_t's and the output policy's, the same as computed from scratch at the decisions' observations."""
    game = LiarsDiceGame(dice_per_player=(1, 2), faces=3, wild="aces")
    torch.manual_seed(2)
    learner = Escher(game, "16", "16", SMALL)
    with torch.no_grad():
        for net in (learner.regret_net, learner.average_ema):
            for p in net.parameters():
                p.normal_(0.0, 1.0)
    decisions = learner._play(LiarsDiceBatch(SMALL.games, game=game), np.random.default_rng(0))
    obs, seat = np.concatenate(decisions.obs), np.concatenate(decisions.seat)
    for carried, policy in ((decisions.features, learner.current_policy),
                            (decisions.output_features, learner.output_policy().probabilities)):
        expected = belief_features(beliefs_at(learner.hands, policy, obs), seat)
        assert np.allclose(np.concatenate(carried), expected, atol=1e-5)
    # the non-traverser's posterior is sigma_t's range of its rolls
    other = 1 - np.concatenate(decisions.games) % 2
    posterior = np.concatenate(decisions.posterior)
    features = np.concatenate(decisions.features).reshape(len(obs), 2, -1)
    assert np.allclose(posterior, features[np.arange(len(obs)), (other != seat).astype(int)], atol=1e-5)


def test_a_belief_network_scores_the_same_in_memory_and_streamed_and_saved(tmp_path):
    """The network that computes its ranges from its own play is a fixed function of the observation:
    the in-memory evaluation (every information state at once) and the streamed one (blocks of 8 nodes,
    asked a batch at a time) give it the same exploitability, and its saved model re-scores the same."""
    game = LiarsDiceGame(faces=4, wild="highest")
    policy = _random_policy(game, 3, scale=1.0)
    tree = PublicTree(game)
    states = InfoStates(tree)
    in_memory = evaluate(tree, states.to_tree_policy(policy.probabilities(states.obs, states.mask)))
    streamed = streamed_evaluate(game, policy.probabilities, block_bits=3)
    assert streamed.exploitability == pytest.approx(in_memory.exploitability, abs=1e-12)
    assert streamed.value_first_player == pytest.approx(in_memory.value_first_player, abs=1e-12)
    # the ranges matter: the same network given the chances of the deal everywhere plays otherwise
    prior = belief_features(Hands(game).prior(len(states.obs)), states.acting)
    blind = evaluate(tree, states.to_tree_policy(policy.probabilities(states.obs, states.mask, prior)))
    assert abs(blind.value_first_player - in_memory.value_first_player) > 0.01
    save_model(tmp_path / "model.pt", game, "16", policy.net, beliefs=True)
    loaded = load_model(tmp_path / "model.pt")
    assert loaded.beliefs
    assert np.array_equal(loaded.probabilities(states.obs, states.mask), policy.probabilities(states.obs, states.mask))


def test_hands_refuse_more_than_two_players():
    with pytest.raises(ValueError, match="two-player"):
        Hands(LiarsDiceGame(num_players=3, faces=3))
