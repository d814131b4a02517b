"""dice_envs.agents.liars_dice.belief_learner: the public-belief-state (``pbs``) learner, on one die of
three or four faces.

* the depth-limited subgame's tree has the nodes and leaves its bids give, and one too large for
  memory is refused before it is built;
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
* a short run (one, shared by the module) lowers the exact exploitability far below uniform play's,
  and ``dice-envs evaluate liars-dice`` scores its ``model.pt`` as the run did;
* a run stopped by SIGTERM (or Ctrl-C) saves and exits, and a run killed after a checkpoint loses
  only what came after it: rerunning the command ends as the uninterrupted run did; scored streamed, a run
  also saves between its scorings and before each;
* bad options, options too large for memory and a damaged checkpoint are refused with the option or
  the file named.
"""

import json
import shutil
import signal

import numpy as np
import pytest
from checkpoint_kills import Killed, kill_after_checkpoints
from trainer_checks import assert_same

from dice_envs.agents.liars_dice import belief_learner as bl
from dice_envs.agents.liars_dice import training
from dice_envs.agents.liars_dice.beliefs import popcount
from dice_envs.agents.liars_dice.solver import PublicTree, TreePolicy, exploitability, solve
from dice_envs.core.resources import ResourceLimitError
from dice_envs.games.liars_dice.rules import LiarsDiceGame

torch = pytest.importorskip("torch")

THREE = LiarsDiceGame(faces=3, wild="none")
FOUR = LiarsDiceGame(faces=4, wild="highest")


@pytest.fixture(scope="module")
def equilibria():
    """The CFR+ equilibria of both games, solved once (to 1e-4: the checks below allow 2e-3)."""
    return {3: solve(THREE, 1e-4), 4: solve(FOUR, 1e-4)}


#: a short run on one three-faced die each: small networks, 20 CFR+ iterations a solve, 200 PBSs (9 iterations)
TINY = ["--faces", "3", "--wild", "none", "--hidden", "32,32", "--value-hidden", "32,32", "--games", "32",
        "--cfr-iterations", "20", "--eval-every", "4", "--minutes", "0", "--steps", "200", "--value-error-pbs", "8",
        "--quiet", "--no-plot"]


def call(capsys, run, *options):
    """``belief_learner.main`` on the run directory ``run``: ``(exit code, report or None, stderr)``."""
    code = bl.main(["--run-dir", str(run), *TINY, *options])
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    return code, (json.loads(lines[-1]) if lines else None), captured.err


def snapshot(run) -> dict:
    """What a run directory holds at its end: the checkpoint's tensors and curve, and the model's weights."""
    blob = torch.load(run / "checkpoint.pt", weights_only=True)
    state = json.loads(blob.pop("state"))
    model = torch.load(run / "model.pt", weights_only=True)["net"] if (run / "model.pt").exists() else None
    return {"curve": [(h["steps"], h["exploitability"]) for h in state["history"]], "updates": state["updates"],
            "tensors": blob, "model": model}


@pytest.fixture(scope="module", autouse=True)
def one_thread_and_a_cache_of_its_own(tmp_path_factory):
    """torch on one thread, as the trainer runs it (several fight over a busy machine's cores), and the CFR+
    references in a cache of the module's own."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICE_ENVS_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def trained(tmp_path_factory, worker_id):
    """The short run, trained once: its directory, report and snapshot.  Under pytest-xdist the first worker
    that asks trains it, holding a lock, in the session's directory that every worker shares; the others
    wait and read it."""
    import contextlib
    import io

    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent
    run, report = shared / "pbs-trained" / "run", shared / "pbs-trained" / "report.json"
    with FileLock(str(shared / "pbs-trained.lock")):
        if not report.exists():
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert bl.main(["--run-dir", str(run), *TINY]) == 0
            report.write_text(out.getvalue().strip().splitlines()[-1])
    return run, json.loads(report.read_text()), snapshot(run)


def test_a_short_run_lowers_the_exploitability(trained):
    run, report, _ = trained
    tree = PublicTree(THREE)
    uniform = exploitability(tree, tree.uniform())
    assert uniform == pytest.approx(0.7182, abs=1e-4)
    assert report["exploitability"] < 0.4 * uniform and report["updates"] == 9
    assert report["value_error"]["pbs"] > 0 and report["value_error"]["mean_abs_error"] < 0.3
    assert set(report["cpu_seconds"]) == {"sampling", "solving", "leaf_values", "value_fit", "policy_fit", "scoring"}
    agent = bl.load_belief_agent(run / "model.pt")
    assert exploitability(tree, agent.tree_policy(tree)) == pytest.approx(report["exploitability"], abs=1e-9)


def test_dice_envs_evaluate_scores_the_model_as_the_run_did(trained, capsys):
    """The game is the model's (three faces, not the command's default six), and the scores are the run's."""
    from dice_envs.agents.cli import main as cli_main
    from dice_envs.agents.liars_dice.learned import load_model

    run, report, _ = trained
    assert cli_main(["evaluate", "liars-dice", str(run / "model.pt"), "--against", "equilibrium", "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["config"]["faces"] == 3 and scored["config"]["wild"] is False
    assert scored["exploitability"] == pytest.approx(report["exploitability"], abs=1e-9)
    assert scored["value"] == pytest.approx(report["value_vs_equilibrium"], abs=1e-9)  # against CFR+, both seats
    with pytest.raises(ValueError, match="kind 'pbs-policy'"):  # the loader of networks over observations says what it is
        load_model(run / "model.pt")


def stopped_during_iteration(monkeypatch, iteration: int, signum: int) -> None:
    """Raise the signal ``signum`` while iteration ``iteration`` samples its PBSs."""
    real, calls = bl.BeliefLearner.sample, []

    def sample(self, rng):
        calls.append(1)
        if len(calls) == iteration:
            signal.raise_signal(signum)
        return real(self, rng)

    monkeypatch.setattr(bl.BeliefLearner, "sample", sample)


def test_a_stopped_run_saves_and_the_same_command_resumes_it(trained, tmp_path, capsys, monkeypatch):
    """SIGTERM (as Ctrl-C) during iteration 3 saves the run there and exits with 130, handing the signal on to
    the handler it replaced (a copy of that checkpoint with a damaged frontier is refused); resumed, then
    killed hard after the checkpoint of the evaluation at iteration 4, it leaves that checkpoint.  Rerunning
    the command then ends with the uninterrupted run's curve, networks, optimisers, buffers, frontier and
    model."""
    run = tmp_path / "run"
    seen = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        stopped_during_iteration(monkeypatch, 3, signal.SIGTERM)
        code, report, err = call(capsys, run)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert code == 130 and report["interrupted"] and report["updates"] == 3 and "interrupted" in err
    assert seen == [signal.SIGTERM] and snapshot(run)["updates"] == 3 and not (run / "model.pt").exists()
    monkeypatch.undo()
    damaged = tmp_path / "damaged"  # (a copy whose frontier has the wrong movers is refused, naming the file)
    shutil.copytree(run, damaged)
    blob = torch.load(damaged / "checkpoint.pt", weights_only=True)
    blob["frontier"]["mover"] = 1 - blob["frontier"]["mover"]
    torch.save(blob, damaged / "checkpoint.pt")
    code, _, err = call(capsys, damaged)
    assert code == 2 and "not public nodes of this game with their last bids and movers" in err and str(damaged) in err
    kill_after_checkpoints(training, monkeypatch, 1)
    with pytest.raises(Killed):
        bl.main(["--run-dir", str(run), *TINY])
    assert snapshot(run)["updates"] == 4
    monkeypatch.undo()
    code, report, _ = call(capsys, run)
    assert code == 0 and report["resumed"] and not report["interrupted"]
    measured = [{k: v for k, v in r["value_error"].items() if k != "cpu_seconds"} for r in (report, trained[1])]
    assert measured[0] == measured[1]
    assert_same(snapshot(run), trained[2])


def test_a_streamed_run_saves_before_and_between_its_scorings(tmp_path, capsys, monkeypatch):
    """Where the tree does not fit in memory the scoring is streamed (minutes at two dice each; here three faces,
    scored streamed): not at iteration 0; a checkpoint every CHECKPOINT_SECONDS between the scorings (here
    after every iteration) and one before each scoring.  Killed after the one before the scoring at iteration
    2, the same command runs that scoring and ends with the uninterrupted run's curve."""
    monkeypatch.setattr(training, "make_scorer", lambda game, target: training.StreamedScorer(game))
    monkeypatch.setattr(training, "CHECKPOINT_SECONDS", 0.0)
    options = ["--steps", "60", "--eval-every", "2"]
    code, reference, _ = call(capsys, tmp_path / "reference", *options)
    assert code == 0 and reference["cfr_plus_exploitability"] is None and reference["updates"] == 3
    assert [h["steps"] > 0 for h in reference["curve"]] == [True, True]  # at iteration 2 and at the end
    real = training.atomic_file
    kill_after_checkpoints(training, monkeypatch, 2)  # after iteration 1, and before the scoring at iteration 2
    with pytest.raises(Killed):
        bl.main(["--run-dir", str(tmp_path / "run"), *TINY, *options])
    monkeypatch.setattr(training, "atomic_file", real)
    state = snapshot(tmp_path / "run")
    assert state["updates"] == 2 and state["curve"] == []
    code, report, _ = call(capsys, tmp_path / "run", *options)
    assert code == 0 and report["resumed"]
    same = [(h["steps"], h["exploitability"]) for h in reference["curve"]]
    assert [(h["steps"], h["exploitability"]) for h in report["curve"]] == same


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
    assert [bl.subgame_size(rules.B, b, d) for b, d in ((-1, 2), (3, 2), (-1, 6))] == [root.size, late.size, 64]
    with pytest.raises(ValueError, match="depth"):
        bl.SubgameTree(rules, -1, 0)


def test_a_subgame_too_large_for_memory_is_refused_before_it_is_built():
    rules = bl.Rules(LiarsDiceGame(faces=6, dice_per_player=2, wild="aces"))  # 24 bids, 21 rolls
    with pytest.raises(ResourceLimitError, match=r"10 bids deep \(4,540,386 public nodes\) needs about .* over the limit"):
        bl.SubgameTree(rules, -1, 10)


@pytest.mark.parametrize("game", [THREE, FOUR], ids=["3 faces", "4 faces, wild"])
def test_the_whole_game_as_one_subgame_is_solved(game, equilibria):
    rules = bl.Rules(game)
    reference = equilibria[game.faces]
    out = bl.solve_subgames(rules, bl.exact_tree(rules, -1), np.array([-1]), np.array([rules.first]),
                            rules.priors[None], None, 200)
    assert rules.priors[0] @ out.values[0, 0] == pytest.approx(reference.value_first_player, abs=2e-3)
    assert rules.priors[1] @ out.values[0, 1] == pytest.approx(-reference.value_first_player, abs=2e-3)
    tree = PublicTree(game)
    paths = bl.exact_tree(rules, -1).path
    probs = np.zeros((tree.N, tree.R, rules.A))
    probs[paths] = out.policy[0]
    assert exploitability(tree, tree_policy(tree, probs)) < 5e-3


@pytest.mark.parametrize("depth", [1, 2])
def test_exact_leaf_values_give_the_games_value_at_the_root(depth, equilibria):
    """The leaves valued as the game's equilibrium continues from them: with the continuation fixed, the
    game's value is unchanged (the equilibrium guarantees it to both players), so the depth-limited
    solve's root must reproduce it."""
    game = FOUR
    rules, tree = bl.Rules(game), PublicTree(game)
    reference = equilibria[4]
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


def resolve_every_node(game, gadget: bool, iterations: int = 100) -> float:
    """Re-solve the subgame (to the end of the game) at every public node, top-down, with the beliefs the
    re-solves above it lead to, keep each root's strategy, and score the whole: with ``gadget``, each
    re-solve promises the player who just bid what the re-solve above computed for it there.  The nodes
    are taken by their last bid, in one batch each, from the game's start up: a node's parent has a lower
    last bid."""
    rules, tree = bl.Rules(game), PublicTree(game)
    last = tree.highbit
    mover = tree.player.astype(np.int64)
    beliefs = np.zeros((tree.N, 2, rules.R))
    probs = np.zeros((tree.N, rules.R, rules.A))
    promised = np.zeros((tree.N, rules.R))
    beliefs[0] = rules.priors
    for b in range(-1, rules.B):
        sel = np.flatnonzero(last == b)
        if b >= 0:
            parent = sel - (1 << b)
            moved = mover[parent]
            beliefs[sel] = beliefs[parent]
            beliefs[sel, moved] = bl.bayes_update(rules, beliefs[parent, moved], probs[parent, :, b], moved)
        sub = bl.exact_tree(rules, b)
        out = bl.solve_subgames(rules, sub, last[sel], mover[sel], beliefs[sel], None, iterations,
                                promised[sel] if gadget and b >= 0 else None)
        probs[sel] = out.root_policy
        for c in sub.levels[1]:
            promised[sel | (1 << sub.bid[c])] = out.node_values[np.arange(len(sel)), c, mover[sel]]
    return exploitability(tree, tree_policy(tree, probs))


def test_resolving_needs_the_gadget():
    unsafe, safe = resolve_every_node(FOUR, False), resolve_every_node(FOUR, True)
    assert safe < 0.02 < 0.05 < unsafe


def test_beliefs_follow_bayes_rule_from_the_policy_network():
    torch.manual_seed(0)
    rules = bl.Rules(FOUR)
    policy = bl.PolicyNetwork(rules, "16")
    m = (1 << 1) | (1 << 4) | (1 << 6)  # bids 1, 4, 6: player 0, 1, 0
    beliefs, probs = bl.beliefs_at(rules, policy, np.array([m, 0]))
    expected = rules.priors.copy()
    last, player = -1, 0
    for b in (1, 4, 6):
        p = policy.probabilities(np.array([last]), np.array([player]), expected[None])[0]
        expected[player] = bl.bayes_update(rules, expected[player][None], p[None, :, b], np.array([player]))[0]
        last, player = b, player ^ 1
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
    greedy = bl.BeliefAgent(rules, agent.policy, greedy=True)(states.obs, states.mask)
    assert np.array_equal(greedy.argmax(axis=1), np.where(states.mask, probs, -1).argmax(axis=1))
    assert np.array_equal(greedy.sum(axis=1), np.ones(len(greedy))) and set(np.unique(greedy)) == {0.0, 1.0}


def test_the_value_network_error_is_measured_and_falls_as_it_learns():
    torch.manual_seed(0)
    learner = bl.BeliefLearner(THREE, hidden="16", value_hidden="64,64", cfr_iterations=30, games=16,
                               value_steps=32, policy_steps=4, groups=2, leaf_pbs=16)
    rng = np.random.default_rng(0)
    pbs = learner.sample(rng)
    before = bl.value_error(learner.rules, learner.value, pbs.last_bid, pbs.mover, pbs.beliefs, 50)
    for _ in range(3):
        learner.iterate(rng)
    after = bl.value_error(learner.rules, learner.value, pbs.last_bid, pbs.mover, pbs.beliefs, 50)
    assert before["pbs"] == after["pbs"] == len(pbs.node)
    assert after["mean_abs_error"] < 0.5 * before["mean_abs_error"]
    assert after["pbs_value_error"] < before["pbs_value_error"]


@pytest.mark.parametrize("option, value, why", [
    ("--depth", "0", "must"), ("--explore", "1.5", "must"), ("--cfr-iterations", "0", "must"), ("--depth", "7", "must"),
    ("--hidden", "abc", "must"), ("--value-learning-rate", "0", "must"), ("--groups", "0", "must"),
    ("--value-error-pbs", "-1", "must"), ("--games", "100000000", "over the limit"),
    ("--buffer", "10000000000", "over the limit"), ("--minibatch", "1000000000", "over the limit"),
    ("--value-hidden", "100000000", "over the limit")])
def test_bad_options_are_named(tmp_path, capsys, option, value, why):
    """Out of range, or too large for memory (the limit named), before anything is built or written."""
    code, _, err = call(capsys, tmp_path / "run", option, value)
    assert code == 2 and f"{option} " in err and why in err
    assert not (tmp_path / "run").exists()
