"""dice_envs.agents.liars_dice.belief_learner: the public-belief-state (``pbs``) learner, on one die of
three or four faces.

* the depth-limited subgame's tree has the nodes and leaves its bids give;
* CFR+ on the subgame after no bid, unrolled to the end, reproduces the game's CFR+ value, and its
  average strategy is an equilibrium;
* unrolled one or two bids with the leaves valued exactly (the values, for both players and every
  roll, of the game's CFR+ equilibrium played from each leaf on), the root's values are the game's
  value: the subgame solve is correct;
* re-solving every public node (four faces, the highest wild), with the beliefs the re-solves before it
  lead to, is exploitable without the gadget and nearly an equilibrium with it (the values promised
  by the re-solve above);
* the beliefs along the bids follow Bayes' rule from the policy network, and the agent over
  observations answers for every information state as the evaluators ask it;
* the value network's error against exact subgame values is measured, and falls as it is fitted;
* a short run lowers the exact exploitability far below uniform play's; resuming equals an uninterrupted
  run; bad options are refused with the option named.
"""

import json

import numpy as np
import pytest

from dice_envs.agents.liars_dice import belief_learner as bl
from dice_envs.agents.liars_dice.solver import PublicTree, TreePolicy, exploitability, solve
from dice_envs.games.liars_dice.rules import LiarsDiceGame

torch = pytest.importorskip("torch")

THREE = LiarsDiceGame(faces=3, wild="none")
FOUR = LiarsDiceGame(faces=4, wild="highest")


def tree_policy(tree: PublicTree, probs: np.ndarray) -> TreePolicy:
    """``(N, R, A)`` probabilities of the player to act at every public node -> a TreePolicy."""
    edge = np.zeros((tree.N, tree.R))
    for k in range(tree.B):
        lo, hi = 1 << k, 1 << (k + 1)
        edge[lo:hi] = probs[:lo, :, k]
    call = probs[:, :, tree.game.call_action].copy()
    call[0] = 0.0
    return TreePolicy(tree, edge, call)


def continuation_values(tree: PublicTree, policy: TreePolicy) -> np.ndarray:
    """``U[m, r0, r1]``: player 0's expected payoff from public node ``m`` on, both players playing
    ``policy``, for each pair of rolls."""
    U = np.zeros((tree.N, tree.R, tree.R))
    for m in range(tree.N - 1, -1, -1):
        mover = int(tree.player[m])
        for b in range(tree.highbit[m] + 1, tree.B):
            p = policy.edge[m | (1 << b)]
            U[m] += (p[:, None] if mover == 0 else p[None, :]) * U[m | (1 << b)]
        if m:
            c = policy.call[m]
            truth = tree.payoff[tree.highbit[m]]  # +1 where the last bid is true for (r0, r1)
            # the mover calls; player 0 wins a true bid it made, or a false bid it called
            U[m] += (c[:, None] if mover == 0 else c[None, :]) * (-truth if mover == 0 else truth)
    return U


def test_subgame_tree_nodes_and_leaves():
    rules = bl.Rules(THREE)  # 6 bids
    root = bl.SubgameTree(rules, -1, 2)
    assert root.size == 1 + 6 + 15 and len(root.leaves) == 15 - 5  # the nodes 2 bids deep, but those ending in bid 5
    assert not root.legal[0, rules.call] and root.legal[1:7, rules.call].all()
    late = bl.SubgameTree(rules, 3, 2)  # bids 4 and 5 remain: (4), (5), (4, 5)
    assert late.size == 4 and len(late.leaves) == 0
    with pytest.raises(ValueError, match="depth"):
        bl.SubgameTree(rules, -1, 0)


@pytest.mark.parametrize("game", [THREE, FOUR], ids=["3 faces", "4 faces, wild"])
def test_the_whole_game_as_one_subgame_is_solved(game):
    rules = bl.Rules(game)
    reference = solve(game, 1e-5)
    out = bl.solve_subgames(rules, bl.exact_tree(rules, -1), np.array([-1]), np.array([rules.first]),
                            rules.priors[None], None, 400)
    assert rules.priors[0] @ out.values[0, 0] == pytest.approx(reference.value_first_player, abs=2e-3)
    assert rules.priors[1] @ out.values[0, 1] == pytest.approx(-reference.value_first_player, abs=2e-3)
    tree = PublicTree(game)
    paths = bl.exact_tree(rules, -1).path
    probs = np.zeros((tree.N, tree.R, rules.A))
    probs[paths] = out.policy[0]
    assert exploitability(tree, tree_policy(tree, probs)) < 5e-3


@pytest.mark.parametrize("depth", [1, 2])
def test_exact_leaf_values_give_the_games_value_at_the_root(depth):
    """The leaves valued as the game's equilibrium continues from them: with the continuation fixed, the
    game's value is unchanged (the equilibrium guarantees it to both players), so the depth-limited
    solve's root must reproduce it."""
    game = FOUR
    rules, tree = bl.Rules(game), PublicTree(game)
    reference = solve(game, 1e-6)
    U = continuation_values(tree, reference.policy)

    def exact(subgame, mover, beliefs):
        at = U[subgame.path[subgame.leaves]]  # (L, R, R): the leaves' public nodes (the root is the game's start)
        v0 = np.einsum("lrs,kls->klr", at, beliefs[:, :, 1])
        v1 = -np.einsum("lrs,klr->kls", at, beliefs[:, :, 0])
        return np.stack([v0, v1], axis=2)

    out = bl.solve_subgames(rules, bl.SubgameTree(rules, -1, depth), np.array([-1]), np.array([0]),
                            rules.priors[None], exact, 400)
    assert rules.priors[0] @ out.values[0, 0] == pytest.approx(reference.value_first_player, abs=2e-3)
    assert rules.priors[1] @ out.values[0, 1] == pytest.approx(-reference.value_first_player, abs=2e-3)


def resolve_every_node(game, gadget: bool, iterations: int = 300) -> float:
    """Re-solve the subgame (to the end of the game) at every public node, top-down, with the beliefs the
    re-solves above it lead to, keep each root's strategy, and score the whole: with ``gadget``, each
    re-solve promises the player who just bid what the re-solve above computed for it there."""
    rules, tree = bl.Rules(game), PublicTree(game)
    nodes = np.arange(tree.N)
    depth, last = bl._popcount(nodes), tree.highbit
    mover = tree.player.astype(np.int64)
    beliefs = np.zeros((tree.N, 2, rules.R))
    probs = np.zeros((tree.N, rules.R, rules.A))
    promised = np.zeros((tree.N, rules.R))
    beliefs[0] = rules.priors
    for d in range(rules.B + 1):
        here = np.flatnonzero(depth == d)
        if d:
            parent = here - (1 << last[here])
            moved = mover[parent]
            beliefs[here] = beliefs[parent]
            beliefs[here, moved] = bl.bayes_update(rules, beliefs[parent, moved], probs[parent, :, last[here]], moved)
        for b in np.unique(last[here]):
            sel = here[last[here] == b]
            sub = bl.exact_tree(rules, int(b))
            out = bl.solve_subgames(rules, sub, last[sel], mover[sel], beliefs[sel], None, iterations,
                                    promised[sel] if gadget and d else None)
            probs[sel] = out.root_policy
            for c in sub.levels[1]:
                promised[sel | (1 << sub.bid[c])] = out.node_values[np.arange(len(sel)), c, mover[sel]]
    return exploitability(tree, tree_policy(tree, probs))


def test_resolving_needs_the_gadget():
    unsafe, safe = resolve_every_node(FOUR, False, 200), resolve_every_node(FOUR, True, 200)
    assert safe < 0.02 < 0.05 < unsafe


def test_beliefs_follow_bayes_rule_from_the_policy_network():
    torch.manual_seed(0)
    rules = bl.Rules(FOUR)
    policy = bl.PolicyNetwork(rules, "16")
    m = (1 << 1) | (1 << 4) | (1 << 6)  # bids 1, 4, 6: player 0, 1, 0
    beliefs, probs = bl.beliefs_at(rules, policy, np.array([m, 0]))
    expected = rules.priors.copy()
    node, player = 0, 0
    for b in (1, 4, 6):
        last = -1 if node == 0 else int(bl._highbit(np.array([node]), rules.B)[0])
        p = policy.probabilities(np.array([last]), np.array([player]), expected[None])[0]
        expected[player] = bl.bayes_update(rules, expected[player][None], p[None, :, b], np.array([player]))[0]
        node |= 1 << b
        player ^= 1
    assert np.allclose(beliefs[0], expected) and np.allclose(beliefs[1], rules.priors)
    assert np.allclose(probs[1], policy.probabilities(np.array([-1]), np.array([0]), rules.priors[None])[0])


def test_the_agent_answers_every_information_state():
    from dice_envs.agents.evaluate.contract import ask_agent
    from dice_envs.agents.liars_dice.learned import InfoStates

    torch.manual_seed(0)
    rules = bl.Rules(FOUR)
    agent = bl.BeliefAgent(rules, bl.PolicyNetwork(rules, "16"))
    tree = PublicTree(FOUR)
    states = InfoStates(tree)
    probs = ask_agent(agent, states.obs, states.mask)  # checked: probabilities, legal actions only
    _, by_node = bl.beliefs_at(rules, agent.policy, np.arange(tree.N))
    assert np.allclose(probs.reshape(tree.N, tree.R, -1), by_node * states.mask.reshape(tree.N, tree.R, -1))
    rows = np.random.default_rng(0).permutation(len(states.obs))[:50]  # any batch, in any order
    assert np.allclose(agent(states.obs[rows], states.mask[rows]), probs[rows])


def test_the_value_network_error_is_measured_and_falls_as_it_learns():
    torch.manual_seed(0)
    learner = bl.BeliefLearner(THREE, hidden="16", value_hidden="64,64", cfr_iterations=30, games=32,
                               value_steps=64, policy_steps=4, groups=2, leaf_pbs=16)
    rng = np.random.default_rng(0)
    pbs = learner.sample(rng)
    before = bl.value_error(learner.rules, learner.value, pbs.last_bid, pbs.mover, pbs.beliefs, 100)
    for _ in range(4):
        learner.iterate(rng)
    after = bl.value_error(learner.rules, learner.value, pbs.last_bid, pbs.mover, pbs.beliefs, 100)
    assert before["pbs"] == after["pbs"] == len(pbs.node)
    assert after["mean_abs_error"] < 0.5 * before["mean_abs_error"]
    assert after["pbs_value_error"] < before["pbs_value_error"]


TINY = ["--faces", "3", "--wild", "none", "--hidden", "32,32", "--value-hidden", "32,32", "--games", "32",
        "--cfr-iterations", "40", "--eval-every", "4", "--minutes", "0", "--value-error-pbs", "8", "--quiet",
        "--no-plot"]


def run(tmp_path, capsys, *options):
    code = bl.main(["--run-dir", str(tmp_path / "run"), *TINY, *options])
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_a_short_run_lowers_the_exploitability(tmp_path, capsys):
    code, report = run(tmp_path, capsys, "--steps", "200")
    tree = PublicTree(THREE)
    uniform = exploitability(tree, tree.uniform())
    assert code == 0 and uniform == pytest.approx(0.7182, abs=1e-4)
    assert report["exploitability"] < 0.4 * uniform
    assert report["value_error"]["pbs"] > 0 and report["value_error"]["mean_abs_error"] < 0.2
    assert set(report["cpu_seconds"]) == {"sampling", "solving", "leaf_values", "value_fit", "policy_fit", "scoring"}
    agent = bl.load_belief_agent(tmp_path / "run" / "model.pt")
    assert exploitability(tree, agent.tree_policy(tree)) == pytest.approx(report["exploitability"], abs=1e-9)


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path, capsys):
    code, once = run(tmp_path / "once", capsys, "--steps", "120")
    assert code == 0
    code, first = run(tmp_path / "twice", capsys, "--steps", "60")
    assert code == 0 and not first["resumed"]
    code, resumed = run(tmp_path / "twice", capsys, "--steps", "120")
    assert code == 0 and resumed["resumed"]
    assert resumed["exploitability"] == once["exploitability"] and resumed["steps"] == once["steps"]
    a = torch.load(tmp_path / "once" / "run" / "model.pt", weights_only=True)["net"]
    b = torch.load(tmp_path / "twice" / "run" / "model.pt", weights_only=True)["net"]
    assert all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("option, value", [("--depth", "0"), ("--explore", "1.5"), ("--cfr-iterations", "0"),
                                           ("--depth", "7"), ("--hidden", "abc"), ("--value-learning-rate", "0"),
                                           ("--groups", "0"), ("--value-error-pbs", "-1")])
def test_bad_options_are_named(tmp_path, capsys, option, value):
    assert bl.main(["--run-dir", str(tmp_path / "run"), *TINY, "--steps", "10", option, value]) == 2
    assert option in capsys.readouterr().err
