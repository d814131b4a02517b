"""Learned Liar's Dice policies: the exact-evaluation path of a network policy checked on
known policies (CFR+'s equilibrium, uniform random), the exact action values, and a smoke
run of experiments/train_liars_dice.py with a resume and `dice-envs evaluate liars-dice`."""

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dice_envs.agents.cli import main as cli_main  # noqa: E402
from dice_envs.agents.liars_dice.learned import (
    InfoStates,
    LearnedLiarsDicePolicy,
    OptimisticMMD,
    action_value_table,
    action_values,
    build_network,
    masked_log_softmax,
    mmd_step,
)
from dice_envs.agents.liars_dice.solver import PublicTree, evaluate, expected_value, exploitability, solve
from dice_envs.games.liars_dice.rules import LiarsDiceGame  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class TableNet(torch.nn.Module):
    """A 'network' answering fixed action probabilities of a TreePolicy from observations,
    so a known policy can be pushed through the learned-policy adapter."""

    def __init__(self, tree_policy):
        super().__init__()
        self.policy = tree_policy

    def forward(self, obs):
        p = np.stack([self.policy.probabilities_from_observation(o) for o in obs.numpy()])
        return torch.from_numpy(np.log(np.maximum(p, 1e-300)).astype(np.float32))


class ZeroNet(torch.nn.Module):
    """Equal logits: the uniform random policy over legal actions."""

    def __init__(self, num_actions):
        super().__init__()
        self.num_actions = num_actions

    def forward(self, obs):
        return torch.zeros((obs.shape[0], self.num_actions))


@pytest.mark.parametrize("wild", [False, True])
def test_uniform_random_through_the_adapter(wild):
    game = LiarsDiceGame(faces=6, wild=wild)
    tree = PublicTree(game)
    policy = LearnedLiarsDicePolicy(game, ZeroNet(game.num_actions))
    expl = exploitability(tree, policy.tree_policy(tree))
    assert expl == pytest.approx(exploitability(tree, tree.uniform()), abs=1e-12)
    # Computed, not assumed: 0.8803 without the wild face, 0.7807 with it (OpenSpiel's liars_dice).
    assert expl == pytest.approx(0.7807443 if wild else 0.8803291, abs=1e-6)


def test_cfr_equilibrium_through_the_adapter():
    game = LiarsDiceGame(faces=6, wild=True)
    tree = PublicTree(game)
    eq = solve(game, target_exploitability=1e-3).policy
    policy = LearnedLiarsDicePolicy(game, TableNet(eq))
    batched = policy.tree_policy(tree)
    assert exploitability(tree, batched) == pytest.approx(exploitability(tree, eq), abs=1e-6)
    assert evaluate(tree, batched).value_first_player == pytest.approx(evaluate(tree, eq).value_first_player, abs=1e-6)


def test_action_probabilities_path_matches_the_batched_path():
    game = LiarsDiceGame(faces=3)
    tree = PublicTree(game)
    torch.manual_seed(1)
    policy = LearnedLiarsDicePolicy(game, build_network(game.config(), "16"))
    # The solver's tabulate asks action_probabilities(state) once per information state.
    one_by_one = evaluate(tree, policy)
    batched = evaluate(tree, policy.tree_policy(tree))
    assert one_by_one.exploitability == pytest.approx(batched.exploitability, abs=1e-6)
    assert one_by_one.value_first_player == pytest.approx(batched.value_first_player, abs=1e-6)
    # And it plays from environment observations.
    state = tree.probe_state(0b101, 2)
    a = policy.act({"observation": state.observation(state.current_player)}, np.random.default_rng(0))
    assert a in state.legal_actions()


@pytest.mark.parametrize("wild", [False, True])
def test_action_values_give_the_exact_value(wild):
    game = LiarsDiceGame(faces=4, wild=wild)
    tree = PublicTree(game)
    states = InfoStates(tree)
    rng = np.random.default_rng(0)
    p = rng.random(states.mask.shape) * states.mask
    p /= p.sum(1, keepdims=True)
    pi = states.to_tree_policy(p)
    for player in (0, 1):
        q_edge, q_call, reach = action_values(tree, pi, player)
        q = states.to_action_table(q_edge, q_call).reshape(tree.N, tree.R, -1)
        pr = p.reshape(tree.N, tree.R, -1)
        # Player 0 acts at the root; player 1 at the nodes after one bid.
        nodes = [0] if player == 0 else [1 << b for b in range(tree.B)]
        value = 0.0
        for m in nodes:
            opp_reach = reach[m] if player == 1 else 1.0
            value += opp_reach * float(tree.prior @ (pr[m] * q[m]).sum(-1))
        expected = expected_value(tree, pi, 0)
        assert value == pytest.approx(expected if player == 0 else -expected, abs=1e-12)
        assert np.all(np.abs(q) <= 1 + 1e-12)


def test_mmd_step_is_the_regularised_best_reply():
    """The closed form maximises <pi, q> - alpha KL(pi||magnet) - KL(pi||pi_old)/eta
    in every row: no random policy on the legal actions scores higher."""
    rng = np.random.default_rng(1)
    mask = np.array([[True, True, True, False], [False, True, True, True]])
    old = masked_log_softmax(rng.normal(size=mask.shape), mask)
    mag = masked_log_softmax(rng.normal(size=mask.shape), mask)
    q = rng.uniform(-1, 1, size=mask.shape)
    eta, alpha = 0.7, 0.2

    def objective(lp):
        p = np.where(mask, np.exp(lp), 0.0)
        kl = lambda ref: np.where(mask, p * (np.where(mask, lp, 0) - np.where(mask, ref, 0)), 0).sum(1)
        return (p * q).sum(1) - alpha * kl(mag) - kl(old) / eta

    best = objective(mmd_step(old, mag, q, mask, eta, alpha))
    for _ in range(200):
        other = masked_log_softmax(rng.normal(scale=3, size=mask.shape), mask)
        assert np.all(objective(other) <= best + 1e-12)
    assert np.allclose(np.where(mask, np.exp(mmd_step(old, mag, q, mask, eta, alpha)), 0).sum(1), 1.0)


def test_action_value_table_matches_per_player_values():
    tree = PublicTree(LiarsDiceGame(faces=3))
    states = InfoStates(tree)
    p = np.random.default_rng(2).random(states.mask.shape) * states.mask
    p /= p.sum(1, keepdims=True)
    table = action_value_table(states, p).reshape(tree.N, tree.R, -1)
    for player in (0, 1):
        q_edge, q_call, _ = action_values(tree, states.to_tree_policy(p), player)
        mine = states.to_action_table(q_edge, q_call).reshape(tree.N, tree.R, -1)
        nodes = tree.player == player
        assert np.array_equal(table[nodes], mine[nodes])


@pytest.mark.parametrize("config", [{"faces": 3}, {"faces": 4, "wild": True}, {"faces": 3, "dice_per_player": 2}])
def test_info_state_rows_invert_the_observations(config):
    """Every information state's observation decodes to its own row, and so do the
    environment's own observations of sampled games."""
    from dice_envs.games.liars_dice.batched import LiarsDiceBatch

    game = LiarsDiceGame(**config)
    states = InfoStates(PublicTree(game))
    assert np.array_equal(states.rows(states.obs), np.arange(len(states.obs)))
    batch = LiarsDiceBatch(64, game=game)
    rng = np.random.default_rng(0)
    batch.reset(rng)
    while not batch.done.all():
        idx = np.flatnonzero(~batch.done)
        obs, mask = batch.observe_mover(where=idx), batch.action_mask(where=idx)
        assert np.array_equal(states.obs[states.rows(obs)], obs) and np.array_equal(states.mask[states.rows(obs)], mask)
        legal = [rng.choice(np.flatnonzero(row)) for row in mask]
        batch.step(np.array(legal), rng, where=idx)


@pytest.mark.parametrize("config", [{"faces": 3}, {"faces": 4, "wild": "aces"}, {"faces": 3, "dice_per_player": (1, 2)},
                                    {"faces": 3, "dice_per_player": (2, 1), "wild": "highest"}])
@pytest.mark.parametrize("step", [1, 3, 64])
def test_a_tree_policy_asked_a_batch_of_nodes_at_a_time_is_the_whole_tables(config, step):
    """What the scoring in memory asks an agent (``node_rows``, a batch of public nodes at a time, so that
    only the tree and the policy are held for every information state) is the whole table's rows, and
    the policy it assembles (``fill_tree_policy``) is :meth:`InfoStates.to_tree_policy`'s."""
    from dice_envs.agents.liars_dice.learned import agent_tree_policy, fill_tree_policy, node_rows

    game = LiarsDiceGame(**config)
    tree = PublicTree(game)
    states = InfoStates(tree)
    p = np.random.default_rng(3).random(states.mask.shape) * states.mask
    p = (p / p.sum(1, keepdims=True))[states.rows(states.obs)]  # a function of the observation (as an agent is)
    edge, call = np.zeros((tree.N, tree.R)), np.zeros((tree.N, tree.R))
    R = tree.R
    for lo in range(0, tree.N, step):
        hi = min(tree.N, lo + step)
        obs, mask = node_rows(tree, lo, hi)
        assert np.array_equal(obs, states.obs[lo * R : hi * R]) and np.array_equal(mask, states.mask[lo * R : hi * R])
        fill_tree_policy(edge, call, tree, lo, p[lo * R : hi * R])
    whole = states.to_tree_policy(p)
    assert np.array_equal(edge, whole.edge) and np.array_equal(call, whole.call)
    _, asked = agent_tree_policy(game, lambda observations, masks: p[states.rows(observations)], "test")
    assert np.allclose(asked.edge, whole.edge, rtol=0, atol=1e-15) and np.allclose(asked.call, whole.call, rtol=0,
                                                                                  atol=1e-15)


def test_the_trainers_scorer_asks_a_network_in_batches_and_builds_the_row_table_only_for_tables(monkeypatch):
    """:class:`ExactScorer` scores a network (and any policy over observations) a batch of public
    nodes at a time, with the scores the whole table of rows gives, and builds that table
    (:attr:`ExactScorer.states`, gigabytes at LD2D5F) only for a tabular learner."""
    from dice_envs.agents.evaluate import contract
    from dice_envs.agents.liars_dice.learned import LearnedLiarsDicePolicy, build_network, exact_scores
    from dice_envs.agents.liars_dice.training import ExactScorer

    game = LiarsDiceGame(dice_per_player=(1, 2), faces=3, wild="aces")
    scorer = ExactScorer(game, 1e-3)
    monkeypatch.setattr(contract, "DEFAULT_BATCH", 100)  # batches of 16 public nodes (of 512)
    torch.manual_seed(0)
    net = build_network(game.config(), "16")
    scores = scorer.scores(net)
    assert "states" not in vars(scorer)  # (not built)
    states = InfoStates(scorer.tree)
    whole = exact_scores(scorer.tree, states.to_tree_policy(LearnedLiarsDicePolicy(game, net).probabilities(
        states.obs, states.mask)), scorer.eq.policy)
    for key, value in whole.items():
        assert scores[key] == pytest.approx(value, abs=1e-12), key
    assert scorer.policy_exploitability(LearnedLiarsDicePolicy(game, net).probabilities) == scores["exploitability"]
    assert scorer.scores_table(LearnedLiarsDicePolicy(game, net).probabilities(states.obs, states.mask)) == \
        pytest.approx(scores, abs=1e-12)
    assert len(scorer.states.mask) == len(states.mask)  # (built on first use, for tables)


def test_the_row_table_over_the_memory_limit_is_refused_naming_it(monkeypatch):
    from dice_envs.core.resources import ResourceLimitError

    tree = PublicTree(LiarsDiceGame(dice_per_player=2, faces=3))  # (24,576 rows: about 2 MiB)
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "1M")
    with pytest.raises(ResourceLimitError, match=r"every information state of .* as network rows \(.* rows\)"):
        InfoStates(tree)


def tabular_mmd_exploitability(optimism: float, updates: int = 200) -> float:
    tree = PublicTree(LiarsDiceGame(faces=4, wild=True))
    states = InfoStates(tree)
    mmd = OptimisticMMD(states, eta=0.5, alpha=0.03, optimism=optimism)
    log_pi = log_magnet = masked_log_softmax(np.zeros(states.mask.shape), states.mask)
    for t in range(1, updates + 1):
        log_pi = mmd.step(log_pi, log_magnet)
        if t % 100 == 0:
            log_magnet = log_pi
    return exploitability(tree, states.to_tree_policy(np.where(states.mask, np.exp(log_pi), 0.0)))


def test_optimistic_mmd_converges_where_plain_mmd_cycles():
    """The trainer's update rule as a table, on wild 4-face Liar's Dice (exact values):
    the optimistic step gets within 0.002 of equilibrium in 200 updates (measured
    0.0017), plain behavioural MMD is still above 0.1 (measured 0.16)."""
    assert tabular_mmd_exploitability(optimism=1.0) < 0.002
    assert tabular_mmd_exploitability(optimism=0.0) > 0.1


def load_script():
    """The full-width trainer behind ``experiments/train_liars_dice.py``."""
    from dice_envs.agents.liars_dice import full_width

    return full_width


def run(script, capsys, *argv):
    code = script.main([*argv, "--minutes", "0", "--quiet", "--faces", "4", "--hidden", "32,32"])
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1])


def test_train_smoke_resume_and_evaluate(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path / "cache"))
    script = load_script()
    run_dir = tmp_path / "run"
    code, first = run(script, capsys, "--run-dir", str(run_dir), "--steps", "10", "--eval-every", "5")
    assert code == 0 and first["steps"] == 10
    assert [h["steps"] for h in first["curve"]] == [0, 5, 10]
    assert first["exploitability"] < first["curve"][0]["exploitability"]
    assert 0 < first["cfr_plus_exploitability"] <= 1e-4
    for name in ("model.pt", "checkpoint.pt", "curve.json", "exploitability.png"):
        assert (run_dir / name).exists(), name
    assert list((run_dir / "tb").glob("events.*"))
    assert not list(run_dir.glob("*.tmp*")) and not (run_dir / "state.json").exists()  # one file: checkpoint.pt
    # Everything in it loads with weights_only=True (tensors and plain containers).
    blob = torch.load(run_dir / "checkpoint.pt", weights_only=True)
    assert blob["format"] == 3 and json.loads(blob["state"])["report"] == first

    # The finished run, rerun: its report again, no training.
    assert run(script, capsys, "--run-dir", str(run_dir), "--steps", "10", "--eval-every", "5") == (0, first)

    # A rerun with a larger budget resumes from the checkpoint and continues the curve.
    code, second = run(script, capsys, "--run-dir", str(run_dir), "--steps", "15", "--eval-every", "5")
    assert code == 0 and second["steps"] == 15
    assert second["curve"][:3] == first["curve"] and second["curve"][3]["steps"] == 15

    # The saved model scores the same through `dice-envs evaluate liars-dice`.
    assert cli_main(["evaluate", "liars-dice", str(run_dir / "model.pt"), "--faces", "4", "--against", "equilibrium",
                     "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["exploitability"] == pytest.approx(second["exploitability"], abs=1e-9)
    assert report["value"] == pytest.approx(second["value_vs_equilibrium"], abs=1e-9)
    assert report["value_against_equilibrium"] == report["value"]
    with pytest.raises(SystemExit):
        cli_main(["evaluate", "liars-dice", str(run_dir / "model.pt"), "--faces", "6"])
    assert "--faces 6 does not match" in capsys.readouterr().err
    assert script.main(["--run-dir", str(run_dir), "--steps", "100", "--faces", "4", "--hidden", "8", "--quiet"]) == 2
    assert "--hidden '8' differs from the checkpoint's '32,32'" in capsys.readouterr().err


def test_bad_arguments():
    script = load_script()
    with pytest.raises(ValueError, match="--eta"):
        script.parse_args(["--eta", "0"])
    with pytest.raises(ValueError, match="--inner-steps"):
        script.parse_args(["--inner-steps", "0"])
    with pytest.raises(ValueError, match="--minutes or --steps"):
        script.parse_args(["--minutes", "0"])
