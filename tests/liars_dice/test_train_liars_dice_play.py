"""dice_envs.agents.liars_dice.play_training (experiments/train_liars_dice_play.py): Liar's Dice learners
that see only sampled games (ESCHER, PPO, MMD with sampled returns, outcome-sampling MCCFR), scored exactly.

* a short run of each method on one 3-faced die each lowers the exact exploitability
  (seeds fixed; the measured values are pinned loosely);
* the exploratory deviation's bookkeeping (which payoffs the critic may learn from);
* a killed or interrupted run, resumed, equals an uninterrupted one (curve and every tensor);
* a finished run reports again; damaged checkpoints, options that differ from the
  checkpoint's and bad options are refused with a clear message (exit code 2);
* the saved model re-scores the same through ``dice-envs evaluate liars-dice``.

Tiny networks and batches keep the whole file fast."""

import contextlib
import json
import shutil
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
from checkpoint_kills import Killed, kill_after_checkpoints
from trainer_checks import assert_same

from dice_envs.agents.liars_dice import play as learners
from dice_envs.agents.liars_dice import training as liars_dice_training

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
#: a tiny run of mccfr's tables (which a network's options are refused for), and of the network methods
TINY_TABLES = ["--faces", "3", "--games", "256", "--minutes", "0", "--quiet", "--no-plot"]
TINY = [*TINY_TABLES, "--hidden", "32,32", "--critic-hidden", "32,32", "--minibatch", "512"]
#: the settings of the network methods' runs these tests pin (MMD's and PPO's defaults before the
#: recommended ones became the defaults)
NETWORK = ["--epochs", "4"]
MMD = ["--method", "mmd", *NETWORK, "--eta", "0.2", "--average-steps", "4"]
#: PPO in CleanRL's form with IIG-RL-Benchmark's Liar's Dice settings (tanh networks, GAE, one loss with the
#: clipped state value, the gradient clipped, the rate annealed linearly), and its MMD's KL term
PPO_GAE = ["--method", "ppo", "--epochs", "8", "--advantage", "gae", "--gamma", "0.99", "--gae-lambda", "0.95",
           "--value-coef", "0.0625", "--clip-value", "--clip", "0.025", "--entropy", "0.1", "--kl", "0.025",
           "--max-grad-norm", "0.5", "--activation", "tanh", "--lr-decay", "linear", "--lr-floor", "0",
           "--learning-rate", "3e-4", "--value-learning-rate", "3e-4"]


#: the average-policy network, the magnet moved to the policy
AVERAGE = ["--average", "--magnet-every", "20"]
#: ESCHER with few Adam steps and small reservoirs, plain regret matching on the dealt dice
PLAIN = ["--other-dice", "sampled", "--own-dice", "dealt", "--no-merge-rows", "--no-regret-plus",
         "--no-predictive-plus", "--reach-floor", "0", "--iteration-rows", "0", "--average-power", "1",
         "--average-ema", "0"]
ESCHER = ["--method", "escher", *PLAIN, "--value-steps", "8", "--regret-steps", "8", "--average-steps", "8",
          "--average-buffer", "20000"]




@pytest.fixture(scope="module")
def lp(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("DICE_ENVS_CACHE", str(tmp_path_factory.mktemp("cache")))  # the CFR+ reference, solved once
    from dice_envs.agents.liars_dice import play_training

    yield NoWild(play_training)
    mp.undo()


class NoWild:
    """The trainer module, its commands given ``--wild none`` first (the game these tests were written on;
    the trainer's default is the highest face wild): a later ``--wild`` wins.  Its other attributes are the
    module's (patch ``.module`` itself)."""

    def __init__(self, module):
        self.module = module

    def __getattr__(self, name):
        return getattr(self.module, name)

    def main(self, argv):
        return self.module.main(["--wild", "none", *argv])

    def parse_args(self, argv):
        return self.module.parse_args(["--wild", "none", *argv])


def call(script, capsys, argv):
    """``script.main(argv)``; returns ``(exit code, report or None, stderr)``."""
    code = script.main(argv)
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    return code, (json.loads(lines[-1]) if lines else None), captured.err


def snapshot(run: Path) -> dict:
    blob = torch.load(run / "checkpoint.pt", weights_only=True)
    state = json.loads(blob.pop("state"))
    curve = [(h["steps"], h["exploitability"], h["value_vs_equilibrium"]) for h in state["history"]]
    return {"curve": curve, "steps": state["steps"], "updates": state["updates"], "tensors": blob}


@pytest.fixture(scope="module")
def runs(lp, tmp_path_factory):
    """One short run of each method (3 faces, about 30 updates of 256 games, seed 0; ESCHER 60, for its
    current policy to be clearly better than uniform play)."""
    out = {}
    for name, options in (("mmd", [*MMD, "--no-average"]), ("ppo", ["--method", "ppo", *NETWORK]),
                          ("mmd_average", [*MMD, *AVERAGE]), ("mccfr", ["--method", "mccfr"]), ("escher", ESCHER),
                          ("ppo_gae", PPO_GAE)):
        run = tmp_path_factory.mktemp(name) / "run"
        steps = "60000" if name == "escher" else "30000"
        tiny = TINY_TABLES if name == "mccfr" else TINY
        code = lp.main([*options, "--run-dir", str(run), "--steps", steps, "--eval-every", "20", *tiny])
        assert code == 0
        out[name] = run
    return out


@pytest.mark.parametrize("run,below", [("mmd", 0.33), ("ppo", 0.3), ("mmd_average", 0.46), ("mccfr", 0.2),
                                       ("escher", 0.45), ("ppo_gae", 0.57)])
def test_a_short_run_lowers_the_exploitability(runs, run, below):
    """Uniform play is exploitable by 0.72 on 3 faces; measured after about 30,000 agent
    steps (seed 0): mmd 0.28, ppo 0.24, the average network of mmd 0.41 (it trails the
    policy early on, as an average does), mccfr's average policy (tables) 0.14, escher's
    average network after 60,000 steps 0.32, PPO with GAE (the field's settings, a larger rate)
    0.52: its clip of 0.025 takes small steps."""
    report = json.loads((runs[run] / "curve.json").read_text())
    method = run.split("_")[0]
    assert report["method"] == method and report["steps"] >= 30000
    first = report["curve"][0]["exploitability"]
    assert first == pytest.approx(0.7182, abs=1e-3)
    assert report["best_exploitability"] < below < first
    assert report["best_exploitability"] == min(h["exploitability"] for h in report["curve"])
    assert report["steps_per_second"] > 0 and 0 < report["cfr_plus_exploitability"] <= 1e-4
    assert list((runs[run] / "tb").glob("events.*")) and not list(runs[run].glob("*.tmp*"))
    assert ("average" in report["description"]) == (run in ("mmd_average", "mccfr", "escher"))
    assert 0 < report["current_exploitability"] < first


@pytest.mark.parametrize("run", ["mmd", "mccfr", "escher", "ppo_gae"])
def test_the_model_rescores_through_the_cli(runs, capsys, run):
    from dice_envs.agents.cli import main as cli_main

    report = json.loads((runs[run] / "curve.json").read_text())
    assert cli_main(["evaluate", "liars-dice", str(runs[run] / "model.pt"), "--faces", "3", "--against",
                     "equilibrium", "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["exploitability"] == pytest.approx(report["exploitability"], abs=1e-9)
    assert scored["value"] == pytest.approx(report["value_vs_equilibrium"], abs=1e-9)  # against CFR+, both seats


def test_exploration_bookkeeping(lp):
    """With every first decision a uniform deviation, every payoff is usable: the
    deviator's own decisions with weight 1, the other player's with the importance ratio
    pi(a) / uniform(a) = 1 for the uniform network; without exploration all weights are 1."""
    from dice_envs.agents.liars_dice.learned import build_network
    from dice_envs.games.liars_dice.batched import LiarsDiceBatch
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    game = LiarsDiceGame(faces=3)
    net = build_network(game.config(), "8", zero_output=True)
    batch = LiarsDiceBatch(64, game=game)
    ro = learners.play(batch, net, np.random.default_rng(0), explore=1.0)
    assert torch.allclose(ro.weight, torch.ones_like(ro.weight), atol=1e-6)
    assert bool(ro.mask[torch.arange(len(ro.action)), ro.action].all())
    assert set(ro.ret.tolist()) <= {-1.0, 1.0}
    # Zero-sum: per game the two players' payoffs cancel, so the first two decisions' payoffs do.
    first, second = ro.ret[:64], ro.ret[64:128]
    assert torch.equal(first, -second)
    torch.manual_seed(0)
    sharp = build_network(game.config(), "8")  # a non-uniform policy: ratios below 1 for the other player
    ro = learners.play(batch, sharp, np.random.default_rng(1), explore=0.5)
    assert float(ro.weight.min()) >= 0 and float(ro.weight.max()) <= 1
    assert bool((ro.weight == 0).any()) and bool(((ro.weight > 0) & (ro.weight < 1)).any())
    plain = learners.play(batch, sharp, np.random.default_rng(1))
    assert torch.equal(plain.weight, torch.ones_like(plain.weight))
    # A deviation drawn from the policy itself (sharpness 1) has ratio 1: every weight is 1.
    same = learners.play(batch, sharp, np.random.default_rng(2), explore=1.0, sharpness=1.0)
    assert torch.allclose(same.weight, torch.ones_like(same.weight), atol=1e-5)


#: with the average-policy network, its buffer small enough to wrap around (about 300 rows added per update)
RESUME = [*MMD, "--steps", "12000", "--eval-every", "4", "--average", "--average-buffer", "2000",
          "--average-rows", "300", "--magnet-every", "5", "--alpha-final", "0.03", "--lr-floor", "0.2", *TINY]


#: --method mccfr: its tables and the dealing generator are the whole state
RESUME_MCCFR = ["--method", "mccfr", "--steps", "12000", "--eval-every", "4", *TINY_TABLES]
#: --method escher, its reservoirs small enough to be full (about 400 rows added to each per update, more with
#: one per roll), its targets averaged over the other player's rolls, equal rows merged, plain regret matching
RESUME_ESCHER = [*ESCHER[:-1], "1000", "--steps", "12000", "--eval-every", "4", "--lr-floor", "0.2",
                 "--other-dice", "posterior", "--own-dice", "all", "--merge-rows", *TINY]
#: --method escher with predictive regret matching+ (bootstrapped targets from the regret network before each fit,
#: which is kept for the prediction), the average weighted by t squared and scored as a moving average of its
#: weights
RESUME_ESCHER_PLUS = [*ESCHER[:-1], "1000", "--steps", "12000", "--eval-every", "4", "--other-dice", "posterior",
                      "--own-dice", "all", "--merge-rows", "--regret-plus", "--average-power", "2",
                      "--reach-floor", "0.001", "--predictive-plus", "--average-ema", "0.9", *TINY]
#: --method ppo --advantage gae: the state-value critic, the clipped gradient and the linear annealing
RESUME_PPO_GAE = [*PPO_GAE, "--steps", "12000", "--eval-every", "4", *TINY]
#: --method escher with both players' ranges as the networks' inputs (their reservoirs keep them with the rows)
RESUME_ESCHER_BELIEFS = [*RESUME_ESCHER_PLUS, "--beliefs"]
RESUMES = {"mmd": RESUME, "mccfr": RESUME_MCCFR, "escher": RESUME_ESCHER, "escher_plus": RESUME_ESCHER_PLUS,
           "ppo_gae": RESUME_PPO_GAE, "escher_beliefs": RESUME_ESCHER_BELIEFS}


@pytest.fixture(scope="module")
def reference(lp, tmp_path_factory):
    out = {}
    for name, options in RESUMES.items():
        run = tmp_path_factory.mktemp("reference") / "run"
        assert lp.main(["--run-dir", str(run), *options]) == 0
        out[name] = snapshot(run)
    return out


def ctrl_c_during_update(monkeypatch, update: int, signum: int = signal.SIGINT) -> None:
    """Raise SIGINT (Ctrl-C), or ``signum``, while update ``update`` deals its games (each update deals once)."""
    from dice_envs.games.liars_dice.batched import LiarsDiceBatch

    real_reset, calls = LiarsDiceBatch.reset, []

    def reset(*a, **k):
        calls.append(1)
        if len(calls) == update:
            signal.raise_signal(signum)
        return real_reset(*a, **k)

    monkeypatch.setattr(LiarsDiceBatch, "reset", reset)


@pytest.mark.parametrize("how", ["killed after a checkpoint", "ctrl-c"])
@pytest.mark.parametrize("method", list(RESUMES))
def test_resume_is_exact(lp, reference, tmp_path, capsys, monkeypatch, how, method):
    run = tmp_path / "run"
    argv = ["--run-dir", str(run), *RESUMES[method]]
    reference = reference[method]
    if how == "killed after a checkpoint":
        kill_after_checkpoints(liars_dice_training, monkeypatch, 3)  # the checkpoints at updates 0, 4, 8
        with pytest.raises(Killed):
            lp.main(argv)
        monkeypatch.undo()
        assert snapshot(run)["updates"] == 8
    else:
        ctrl_c_during_update(monkeypatch, 6)
        code, report, err = call(lp, capsys, argv)
        monkeypatch.undo()
        assert code == 130 and report["interrupted"] and report["updates"] == 6 and "interrupted" in err
        assert snapshot(run)["updates"] == 6 and not (run / "model.pt").exists()
    code, report, _ = call(lp, capsys, argv)
    assert code == 0 and report["resumed"] and not report["interrupted"]
    resumed = snapshot(run)
    assert resumed["curve"] == reference["curve"]
    assert_same(resumed, reference)


def test_sigterm_stops_an_in_process_trainer_as_ctrl_c_and_reaches_what_runs_it(lp, tmp_path, capsys, monkeypatch):
    """Issue 58's attack: a trainer running in the test's process swallowed SIGTERM (it saved and
    returned, and the test run went on).  It stops as on Ctrl-C, saving its checkpoint, and then
    hands the signal to the handler it replaced (the test run's, here one that notes it)."""
    run = tmp_path / "run"
    seen = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        ctrl_c_during_update(monkeypatch, 3, signal.SIGTERM)
        code, report, err = call(lp, capsys, ["--run-dir", str(run), *RESUME_MCCFR])
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert code == 130 and report["interrupted"] and report["updates"] == 3 and "interrupted" in err
    assert snapshot(run)["updates"] == 3 and seen == [signal.SIGTERM]
    # Ctrl-C is not passed on: the caller's own Ctrl-C handler is Python's, which raises KeyboardInterrupt.
    ctrl_c_during_update(monkeypatch, 2)
    code, report, _ = call(lp, capsys, ["--run-dir", str(tmp_path / "other"), *RESUME_MCCFR])
    assert code == 130 and report["updates"] == 2 and seen == [signal.SIGTERM]


def test_finished_run_reports_again_and_refuses_other_options(lp, runs, capsys):
    run = runs["ppo"]
    first = json.loads((run / "curve.json").read_text())
    argv = ["--method", "ppo", "--run-dir", str(run), "--steps", "30000", *TINY]
    code, report, _ = call(lp, capsys, [*argv, "--eval-every", "1", "--threads", "2"])
    assert code == 0 and report == first
    for option in (["--entropy", "0.1"], ["--seed", "3"], ["--games", "128"]):
        code, report, err = call(lp, capsys, [*argv, *option])
        assert code == 2 and report is None and f"{option[0]} " in err and "differs from the checkpoint's" in err
    code, _, err = call(lp, capsys, [*argv[:1], "mmd", *argv[2:]])
    assert code == 2 and "--method 'mmd' differs" in err


@pytest.mark.parametrize("case,message", [("nan", "non-finite"), ("shape", "has shape"), ("count", "iteration 7")])
def test_damaged_mccfr_tables_are_refused(lp, runs, tmp_path, capsys, case, message):
    run = tmp_path / "run"
    shutil.copytree(runs["mccfr"], run)
    blob = torch.load(run / "checkpoint.pt", weights_only=True)
    tables = blob["tables"]
    if case == "nan":
        tables["average"][0, 0] = float("nan")
    elif case == "shape":
        tables["regret"] = tables["regret"][:-1]
    else:
        tables["iterations"] = torch.tensor(7)
    state = json.loads(blob["state"])
    del state["report"]
    blob["state"] = json.dumps(state)
    torch.save(blob, run / "checkpoint.pt")
    code, report, err = call(lp, capsys, ["--method", "mccfr", "--run-dir", str(run), "--steps", "90000", *TINY_TABLES])
    assert code == 2 and report is None and message in err and f"remove {run}" in err and "Traceback" not in err, err


@pytest.mark.parametrize("case", ["garbage", "no updates", "model without checkpoint"])
def test_damaged_checkpoint_is_refused(lp, runs, tmp_path, capsys, case):
    run = tmp_path / "run"
    shutil.copytree(runs["ppo"], run)
    if case == "garbage":
        (run / "checkpoint.pt").write_bytes(b"garbage")
    elif case == "no updates":
        blob = torch.load(run / "checkpoint.pt", weights_only=True)
        state = json.loads(blob["state"])
        del state["updates"], state["report"]
        blob["state"] = json.dumps(state)
        torch.save(blob, run / "checkpoint.pt")
    else:
        (run / "checkpoint.pt").unlink()
    code, report, err = call(lp, capsys, ["--method", "ppo", "--run-dir", str(run), "--steps", "90000", *TINY])
    assert code == 2 and report is None and f"remove {run}" in err and "Traceback" not in err, err


@pytest.fixture(scope="module")
def escher_run(lp, tmp_path_factory):
    """A few ESCHER updates (3 faces), checkpointed."""
    run = tmp_path_factory.mktemp("escher_short") / "run"
    assert lp.main([*ESCHER, "--run-dir", str(run), "--steps", "3000", "--eval-every", "20", *TINY]) == 0
    return run


@pytest.mark.parametrize("case, message", [
    ("nan regret weights", "non-finite numbers in escher['regret_net']"),
    ("inf optimiser moment", "non-finite numbers in escher['opt_"),
    ("negative reservoir weight", "the reservoir holds negative weights"),
])
def test_a_poisoned_escher_checkpoint_is_refused(lp, escher_run, tmp_path, capsys, case, message):
    """Issue 58's attack: an ESCHER checkpoint with NaN weights loaded (one update later the run
    stopped, blaming the learning rate), and negative reservoir weights loaded."""
    run = tmp_path / "run"
    shutil.copytree(escher_run, run)
    blob = torch.load(run / "checkpoint.pt", weights_only=True)
    learner = blob["escher"]
    if case == "nan regret weights":
        next(iter(learner["regret_net"].values())).view(-1)[0] = float("nan")
    elif case == "inf optimiser moment":
        name = next(k for k in learner if k.startswith("opt_") and learner[k]["state"])
        moments = next(iter(learner[name]["state"].values()))
        moments["exp_avg"].view(-1)[0] = float("inf")
    else:
        learner["regrets"]["weight"][0] = -1.0
    state = json.loads(blob["state"])
    state.pop("report", None)
    blob["state"] = json.dumps(state)
    torch.save(blob, run / "checkpoint.pt")
    code, report, err = call(lp, capsys, [*ESCHER, "--run-dir", str(run), "--steps", "90000", "--eval-every", "20",
                                          *TINY])
    assert code == 2 and report is None and message in err and f"remove {run}" in err and "Traceback" not in err, err


@pytest.mark.parametrize("option,value", [
    ("--method", "nfsp"), ("--explore", "2"), ("--explore-sharpness", "-0.5"), ("--games", "0"), ("--eta", "nan"),
    ("--eta", "0"), ("--clip", "0"),
    ("--entropy", "-1"), ("--alpha", "-0.1"), ("--magnet-every", "-1"), ("--hidden", "abc"),
    ("--critic-hidden", "0"), ("--faces", "7"), ("--learning-rate", "inf"), ("--seed", "-1"), ("--minibatch", "0"),
    ("--average-buffer", "0"), ("--average-rows", "0"), ("--average-steps", "0"), ("--average-learning-rate", "0"),
    ("--average-buffer", "1000000000000"), ("--value-learning-rate", "0"),
    ("--alpha-final", "0.5"), ("--alpha-final", "-0.01"), ("--lr-floor", "1.5"),
    ("--regret-discount", "-1"), ("--dice", "0"), ("--dice", "1,2,1"), ("--dice", "two"), ("--wild", "twos"),
    ("--value-steps", "0"), ("--regret-steps", "0"), ("--other-dice", "dealt"), ("--own-dice", "some"),
    ("--average-power", "5"), ("--average-power", "-1"), ("--reach-floor", "1"),
    ("--average-ema", "1"), ("--lr-floor", "-0.1"), ("--advantage", "v"), ("--activation", "gelu"),
    ("--lr-decay", "step"), ("--gamma", "0"), ("--gamma", "1.5"), ("--gae-lambda", "2"), ("--value-coef", "0"),
    ("--kl", "-1"), ("--max-grad-norm", "-1"), ("--lr-hold", "1"), ("--lr-hold", "-0.1"),
    ("--lr-hold", "0.5"), ("--lr-updates", "2000"),  # (a hold or a length for no decay: --lr-floor is 1)
    ("--lr-updates", "-1"), ("--regret-decay", "0"), ("--regret-decay", "1.01"), ("--iteration-rows", "1"),
    ("--iteration-rows", "-0.1"),
])
def test_bad_options(lp, tmp_path, capsys, option, value):
    code, _, err = call(lp, capsys, ["--run-dir", str(tmp_path / "run"), "--steps", "10", option, value])
    assert code == 2 and option in err and "Traceback" not in err, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("method,given", [("mccfr", ["--explore", "0"]), ("mccfr", ["--average"]),
                                          ("escher", ["--average"]), ("mmd", ["--other-dice", "posterior"]),
                                          ("ppo", ["--own-dice", "all"]), ("mccfr", ["--merge-rows"]),
                                          ("mmd", ["--regret-plus"]), ("mccfr", ["--average-power", "2"]),
                                          ("ppo", ["--average-ema", "0.99"]), ("mmd", ["--average-hidden", "16"]),
                                          ("mmd", ["--beliefs"]), ("escher", ["--eta", "0.1"]),
                                          ("mmd", ["--advantage", "gae"]), ("escher", ["--activation", "tanh"]),
                                          ("mccfr", ["--kl", "0.1"]),
                                          ("mccfr", ["--score-current"]), ("mccfr", ["--hidden", "16"]),
                                          ("mccfr", ["--minibatch", "64"]),
                                          ("mccfr", ["--lr-hold", "0.5", "--lr-floor", "0.3"]),
                                          ("mccfr", ["--lr-updates", "100", "--lr-floor", "0.3"])])
def test_options_a_method_cannot_take(lp, tmp_path, capsys, method, given):
    code, _, err = call(lp, capsys, ["--run-dir", str(tmp_path / "run"), "--steps", "10", "--method", method, *given])
    assert code == 2 and given[0] in err and method in err and "Traceback" not in err, err
    assert not (tmp_path / "run").exists()


def test_escher_average_network_of_its_own_width(lp, tmp_path, capsys):
    """``--average-hidden`` gives the average-policy network (the one scored and saved) its own
    layers: the saved model has them, re-scores through the CLI to the run's figure, and the run
    refuses to resume with other layers; without it the average network takes ``--hidden``'s."""
    from dice_envs.agents.cli import main as cli_main

    run = tmp_path / "run"
    argv = [*ESCHER, "--run-dir", str(run), "--steps", "4000", "--eval-every", "4", *TINY, "--average-hidden", "16"]
    code, report, err = call(lp, capsys, argv)
    assert code == 0, err
    assert "32,32 (the average network 16)" in report["description"]
    model = torch.load(run / "model.pt", weights_only=True)
    assert model["hidden"] == "16" and next(iter(model["net"].values())).shape[0] == 16
    assert cli_main(["evaluate", "liars-dice", str(run / "model.pt"), "--faces", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exploitability"] == pytest.approx(report["exploitability"], abs=1e-9)
    code, _, err = call(lp, capsys, [*argv[:-1], "8"])
    assert code == 2 and "--average-hidden '8' differs from the checkpoint's" in err, err
    assert lp.parse_args([*ESCHER, *TINY, "--steps", "1"]).average_hidden == "32,32"
    code, _, err = call(lp, capsys, [*ESCHER, "--run-dir", str(tmp_path / "bad"), *TINY, "--average-hidden", "x"])
    assert code == 2 and "--average-hidden must be layer sizes" in err and "Traceback" not in err, err


@pytest.mark.parametrize("given", [["--no-regret-plus"], ["--no-regret-plus", "--reach-floor", "0.01"],
                                   ["--no-regret-plus", "--no-predictive-plus", "--regret-decay", "0.99"],
                                   ["--no-regret-plus", "--no-predictive-plus", "--iteration-rows", "0.5"]])
def test_predictive_plus_the_reach_floor_the_regret_decay_and_iteration_rows_need_regret_plus(lp, tmp_path, capsys, given):
    code, _, err = call(lp, capsys, ["--run-dir", str(tmp_path / "run"), "--steps", "10", "--method", "escher",
                                     *given])
    assert code == 2 and "is for --regret-plus" in err and "Traceback" not in err, err
    assert not (tmp_path / "run").exists()


def test_the_removed_variants_are_refused_on_resume(lp):
    """A checkpoint made with an option this version no longer has, at another value than the one
    that does what this version does, is refused, naming it; at that value the option is dropped."""
    with pytest.raises(ValueError, match="--central-critic"):
        lp.legacy_args({"central_critic": True, "wild": "none", "dice": "1"})
    with pytest.raises(ValueError, match="--predictive-steps"):
        lp.legacy_args({"predictive_steps": 4, "wild": "none", "dice": "1"})
    assert "magnet_to" not in lp.legacy_args({"magnet_to": "policy", "wild": "none", "dice": "1"})


def test_mccfr_is_refused_where_the_tree_does_not_fit_in_memory(lp, tmp_path, capsys):
    """Its tables hold every information state; the network learners train there, scored streamed
    (``test_mmd_and_its_average_train_where_the_scoring_is_streamed``)."""
    code, _, err = call(lp, capsys, ["--run-dir", str(tmp_path / "run"), "--steps", "10", "--dice", "2",
                                     "--wild", "aces", "--method", "mccfr"])
    assert code == 2 and "Traceback" not in err, err
    assert "--method mccfr keeps tables over every information state, which" in err and "does not fit" in err, err
    assert not (tmp_path / "run").exists()
    args = lp.parse_args(["--method", "escher", "--dice", "2", "--wild", "aces", "--steps", "10"])
    assert args.run_dir == "runs/liars_dice_play_escher_6_2v2_aces"


def test_wild_keeps_its_old_spellings(lp):
    """A bare --wild is the highest face wild (the option was a flag), --no-wild none; runs of
    before, whose checkpoints say wild true or false, resume under the new spelling."""
    assert lp.parse_args(["--wild", "--steps", "1"]).wild == "highest"
    assert lp.parse_args(["--steps", "1", "--wild"]).wild == "highest"
    assert lp.parse_args(["--no-wild", "--steps", "1"]).wild == "none"
    assert lp.parse_args(["--wild", "aces", "--steps", "1"]).wild == "aces"
    assert lp.parse_args(["--wild", "--steps", "1"]).run_dir == "runs/liars_dice_play_escher_6_wild"
    old = {"wild": True, "faces": 6}
    dealt = {"other_dice": "sampled", "own_dice": "dealt", "merge_rows": False,  # ESCHER before these options
             "regret_plus": False, "average_power": 1.0, "reach_floor": 0.0, "predictive_plus": False,
             "average_ema": 0.0, "beliefs": False, "entropy_anneal": False, "lr_hold": 0.0,
             "lr_updates": 0, "regret_decay": 1.0, "iteration_rows": 0.0, **lp.INTRODUCED_WITH_GAE}  # (and PPO before --advantage gae, --entropy-anneal, --lr-hold)
    assert lp.legacy_args(old) == {"wild": "highest", "faces": 6, "dice": "1", "value_steps": 32, "regret_steps": 64,
                                   **dealt}
    assert lp.legacy_args({"wild": False})["wild"] == "none"
    assert lp.legacy_args({"wild": "aces", "dice": "2"}) == {"wild": "aces", "dice": "2", **dealt}
    assert lp.legacy_args({"dice": "2", "own_dice": "all"})["own_dice"] == "all"


def test_an_old_checkpoint_resumes(lp, runs, tmp_path, capsys):
    """A finished run whose checkpoint records ``wild`` as a bool (before --dice and the wild rules)
    still reports, and refuses another wild rule."""
    run = tmp_path / "run"
    shutil.copytree(runs["ppo"], run)
    blob = torch.load(run / "checkpoint.pt", weights_only=True)
    state = json.loads(blob["state"])
    state["args"]["wild"] = False
    del state["args"]["dice"], state["args"]["value_steps"], state["args"]["regret_steps"]
    blob["state"] = json.dumps(state)
    torch.save(blob, run / "checkpoint.pt")
    argv = ["--method", "ppo", "--run-dir", str(run), "--steps", "30000", *TINY]
    code, report, err = call(lp, capsys, argv)
    assert code == 0 and report["steps"] == state["steps"], err
    code, _, err = call(lp, capsys, [*argv, "--wild", "aces"])
    assert code == 2 and "--wild 'aces' differs" in err


def killed_while_scoring(self, net, beliefs=False):
    """In place of ``StreamedScorer.scores``: a hard kill during a streamed scoring."""
    raise Killed


def test_escher_on_unequal_dice_scored_streamed(lp, tmp_path, capsys, monkeypatch):
    """Where the public tree does not fit in memory (two dice each) the average network is scored
    streamed, without an equilibrium (its values against one are None) and without counting the
    scoring in the budget: here forced on 1 v 2 three-faced dice, where the exact in-memory
    evaluation (the CLI's) gives the same exploitability.  Interrupted (Ctrl-C) before its one
    evaluation, it reports no exploitability and an empty curve, and the same command resumes it;
    killed during that evaluation, the same command scores the state it saved first.  The current
    policy is not scored streamed, unless the finished run is rerun with ``--score-current``: then
    once, to the in-memory scoring's figure."""
    from dice_envs.agents.cli import main as cli_main

    monkeypatch.setattr(lp.module, "make_scorer", lambda game, target: liars_dice_training.StreamedScorer(game))
    run = tmp_path / "run"
    argv = [*ESCHER, "--dice", "1,2", "--wild", "aces", "--run-dir", str(run), "--steps", "6000", "--eval-every",
            "1000", *TINY]
    with monkeypatch.context() as patch:
        ctrl_c_during_update(patch, 2)  # long before the evaluation
        code, report, err = call(lp, capsys, argv)
    assert code == 130 and report["interrupted"] and "interrupted" in err, err
    assert report["curve"] == [] and report["exploitability"] is None and report["evaluated_at"] is None
    assert report["updates"] == 2 and (run / "checkpoint.pt").exists() and not (run / "model.pt").exists()

    with monkeypatch.context() as patch:  # killed during the final scoring: the trained state was saved first
        patch.setattr(liars_dice_training.StreamedScorer, "scores", killed_while_scoring)
        with pytest.raises(Killed):
            lp.main(argv)
    trained = snapshot(run)
    assert trained["steps"] >= 6000 and trained["curve"] == []
    code, report, err = call(lp, capsys, argv)
    assert code == 0 and report["resumed"] and not report["interrupted"], err
    assert len(report["curve"]) == 1 and report["curve"][0]["steps"] == report["steps"] >= 6000  # only at the end
    assert (report["steps"], report["updates"]) == (trained["steps"], trained["updates"])  # scored, not retrained
    assert report["value_vs_equilibrium"] is None and report["cfr_plus_exploitability"] is None
    assert report["current_exploitability"] is None  # regret matching's is not scored streamed
    assert report["game"]["dice_per_player"] == [1, 2] and report["game"]["wild"] == "aces"
    assert (run / "curve.json").exists() and 0 < report["exploitability"] < 1
    shutil.copytree(run, tmp_path / "in_memory")

    # rerun with --score-current, the finished run scores its current policy (streamed), once
    code, rescored, err = call(lp, capsys, [*argv, "--score-current"])
    assert code == 0 and 0 < rescored["current_exploitability"] < 1, err
    assert rescored["curve"][-1]["current_exploitability"] == rescored["current_exploitability"]
    unchanged = set(report) - set(lp.RESCORED)  # not retrained, the average not rescored
    assert {k: rescored[k] for k in unchanged} == {k: report[k] for k in unchanged}
    assert rescored["args"]["score_current"] and rescored["curve"][:-1] == report["curve"][:-1]
    code, again, err = call(lp, capsys, [*argv, "--score-current"])
    assert code == 0 and again == rescored  # scored once: now it is the finished run's report

    monkeypatch.undo()  # in memory: the same figures
    assert cli_main(["evaluate", "liars-dice", str(run / "model.pt"), "--faces", "3", "--dice", "1", "2", "--wild",
                     "aces", "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["exploitability"] == pytest.approx(report["exploitability"], abs=1e-9)
    code, exact, err = call(lp, capsys, [*argv, "--run-dir", str(tmp_path / "in_memory"), "--score-current"])
    assert code == 0 and exact["current_exploitability"] == pytest.approx(rescored["current_exploitability"],
                                                                          abs=1e-6), err


def test_a_current_policy_over_the_time_limit_keeps_the_streamed_score_of_the_average(lp, tmp_path, capsys,
                                                                                         monkeypatch):
    """With ``--score-current`` where the scoring is streamed, the current policy's scoring comes
    after the average network's; refused over the time limit, it costs the average's score nothing:
    the run ends with it, stderr names the refusal, and the finished run rerun under a higher
    limit scores the current policy alone."""
    from dice_envs.core.resources import ResourceLimitError

    def over_the_limit(self, policy):
        raise ResourceLimitError("the streamed evaluation would take about 1.5 hours of CPU time, over the limit "
                                 "of 1 hour")

    monkeypatch.setattr(lp.module, "make_scorer", lambda game, target: liars_dice_training.StreamedScorer(game))
    run = tmp_path / "run"
    argv = [*ESCHER, "--dice", "1,2", "--wild", "aces", "--run-dir", str(run), "--steps", "3000", "--eval-every",
            "1000", "--score-current", *TINY]
    with monkeypatch.context() as patch:
        patch.setattr(liars_dice_training.StreamedScorer, "policy_exploitability", over_the_limit)
        code, report, err = call(lp, capsys, argv)
    assert code == 0 and 0 < report["exploitability"] < 1, err
    assert report["current_exploitability"] is None and "current policy was not scored" in err
    assert "over the limit of 1 hour" in err
    code, rescored, err = call(lp, capsys, argv)
    assert code == 0 and 0 < rescored["current_exploitability"] < 1, err
    assert rescored["exploitability"] == report["exploitability"] and rescored["steps"] == report["steps"]


def test_a_streamed_scoring_over_the_time_limit_is_refused_before_the_training(lp, tmp_path, capsys, monkeypatch):
    """Where the run ends with a streamed scoring, that scoring's time is estimated from its first block
    with the untrained network before any update: over the limit, the run is refused there, naming the
    limit, with nothing trained; within it, the run trains and scores as before."""
    from dice_envs.agents.liars_dice import escher as escher_module
    from dice_envs.agents.liars_dice import streamed as liars_dice_streamed

    monkeypatch.setattr(lp.module, "make_scorer", lambda game, target: liars_dice_training.StreamedScorer(game))
    monkeypatch.setattr(liars_dice_streamed, "DEFAULT_BLOCK_BITS", 2)  # blocks of 4 public nodes: an estimate
    updates = []
    real_iterate = escher_module.Escher.iterate
    monkeypatch.setattr(escher_module.Escher, "iterate", lambda self, *a: (updates.append(1), real_iterate(self, *a))[1])
    run = tmp_path / "run"
    argv = [*ESCHER, "--dice", "1,2", "--wild", "aces", "--run-dir", str(run), "--steps", "2000", "--eval-every",
            "1000", *TINY]
    monkeypatch.setenv("DICE_ENVS_MAX_SECONDS", "0.000001")
    code, report, err = call(lp, capsys, argv)
    assert code == 2 and report is None and "refused before training: the streamed evaluation" in err, err
    assert "over the limit of" in err and "--max-seconds" in err and "Traceback" not in err
    assert not updates and not (run / "checkpoint.pt").exists()
    monkeypatch.delenv("DICE_ENVS_MAX_SECONDS")
    code, report, err = call(lp, capsys, argv)
    assert code == 0 and updates and 0 < report["exploitability"] < 1, err


def test_mmd_and_its_average_train_where_the_scoring_is_streamed(lp, tmp_path, capsys, monkeypatch):
    """Where the public tree does not fit in memory (two dice each) PPO and MMD train as ESCHER does, their
    network scored streamed (here forced on 1 v 2 three-faced dice, where the CLI's in-memory scoring gives
    the same exploitability); the policy network beside the average is scored there only with
    --score-current.  No network learner builds the table of every information state, in memory or
    streamed."""
    from dice_envs.agents.cli import main as cli_main
    from dice_envs.agents.liars_dice import learned

    built = []
    real = learned.InfoStates.__init__
    monkeypatch.setattr(learned.InfoStates, "__init__", lambda self, tree: (built.append(tree), real(self, tree))[1])
    argv = [*MMD, *AVERAGE, "--dice", "1,2", "--wild", "aces", "--steps", "6000", "--eval-every", "1000", *TINY]
    code, in_memory, err = call(lp, capsys, [*argv, "--run-dir", str(tmp_path / "in_memory")])
    assert code == 0 and 0 < in_memory["current_exploitability"] < 1, err
    with monkeypatch.context() as patch:
        patch.setattr(lp.module, "make_scorer", lambda game, target: liars_dice_training.StreamedScorer(game))
        code, report, err = call(lp, capsys, [*argv, "--run-dir", str(tmp_path / "run")])
        assert code == 0, err
        assert len(report["curve"]) == 1 and report["curve"][0]["steps"] == report["steps"]  # only at the end
        assert report["current_exploitability"] is None and report["value_vs_equilibrium"] is None
        assert report["exploitability"] == pytest.approx(in_memory["exploitability"], abs=1e-9)
        code, rescored, err = call(lp, capsys, [*argv, "--run-dir", str(tmp_path / "run"), "--score-current"])
        assert code == 0 and rescored["current_exploitability"] == pytest.approx(in_memory["current_exploitability"],
                                                                                 abs=1e-9), err
        code, ppo, err = call(lp, capsys, ["--method", "ppo", "--dice", "1,2", "--wild", "aces", "--steps", "3000",
                                           "--run-dir", str(tmp_path / "ppo"), *TINY])
        assert code == 0 and 0 < ppo["exploitability"] < 1 and ppo["current_exploitability"] == ppo["exploitability"]
    assert not built  # (neither in memory nor streamed)
    assert cli_main(["evaluate", "liars-dice", str(tmp_path / "run" / "model.pt"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exploitability"] == pytest.approx(report["exploitability"], abs=1e-9)


def test_schedules_follow_the_budget(lp):
    """alpha decays geometrically from --alpha to --alpha-final, every learning rate by
    the cosine to --lr-floor times its start (with --lr-hold h, over the budget's last 1 - h; with
    --lr-updates n, over the first n updates whatever the budget), PPO's entropy bonus with
    --entropy-anneal linearly to 0; without them nothing changes."""
    args = lp.Args(alpha=0.1, alpha_final=0.025, lr_floor=0.1, learning_rate=1e-3, value_learning_rate=2e-3,
                   average_learning_rate=4e-3)
    rates = ("learning_rate", "value_learning_rate", "average_learning_rate")
    start, middle, end = (learners.scheduled(args, done) for done in (0.0, 0.5, 1.0))
    assert start == args
    assert middle.alpha == pytest.approx(0.05) and end.alpha == pytest.approx(0.025)
    for rate in rates:
        assert getattr(middle, rate) == pytest.approx(0.55 * getattr(args, rate))
        assert getattr(end, rate) == pytest.approx(0.1 * getattr(args, rate))
    constant = lp.Args()
    assert all(learners.scheduled(constant, done) == constant for done in (0.0, 0.3, 1.0))
    linear = lp.Args(lr_decay="linear", lr_floor=0.0, learning_rate=1e-3)  # CleanRL's anneal_lr
    assert [learners.scheduled(linear, done).learning_rate for done in (0.0, 0.25, 1.0)] == pytest.approx(
        [1e-3, 0.75e-3, 0.0])
    held = lp.Args(lr_floor=0.1, lr_hold=0.5, learning_rate=1e-3, alpha=0.1, alpha_final=0.025)
    assert [learners.scheduled(held, done).learning_rate for done in (0.0, 0.5, 0.75, 1.0)] == pytest.approx(
        [1e-3, 1e-3, 0.55e-3, 0.1e-3])  # the cosine over the budget's second half
    assert learners.scheduled(held, 0.5).alpha == pytest.approx(0.05)  # (only the rates are held)
    held_linear = lp.Args(lr_decay="linear", lr_floor=0.0, lr_hold=0.8, learning_rate=1e-3)
    assert learners.scheduled(held_linear, 0.9).learning_rate == pytest.approx(0.5e-3)
    by_updates = lp.Args(lr_floor=0.1, lr_hold=0.5, lr_updates=2000, learning_rate=1e-3, alpha=0.1, alpha_final=0.025)
    assert [learners.scheduled(by_updates, 0.1, n).learning_rate for n in (0, 1000, 1500, 2000, 5000)] == pytest.approx(
        [1e-3, 1e-3, 0.55e-3, 0.1e-3, 0.1e-3])  # held 1,000 updates, the cosine to 2,000, then the floor
    assert [learners.scheduled(by_updates, done, 1500).learning_rate for done in (0.0, 1.0)] == pytest.approx(
        [0.55e-3, 0.55e-3])  # (the budget does not move it)
    assert learners.scheduled(by_updates, 0.5, 1500).alpha == pytest.approx(0.05)  # (alpha follows the budget)
    annealed = lp.Args(method="ppo", entropy=0.1, entropy_anneal=True)  # the bonus's bias removed by the end
    assert [learners.scheduled(annealed, done).entropy for done in (0.0, 0.25, 1.0)] == pytest.approx([0.1, 0.075, 0.0])


def test_gae_is_iig_rl_benchmarks_estimate(lp):
    """Generalised advantage estimates from the mover's side equal IIG-RL-Benchmark's, which keeps the
    values on player 0's side, runs GAE over the game's decisions and turns the advantage's sign by
    the mover; the returns are advantage plus value."""
    from dice_envs.games.liars_dice.batched import LiarsDiceBatch
    from dice_envs.games.liars_dice.rules import LiarsDiceGame
    from dice_envs.agents.liars_dice.learned import build_network

    game = LiarsDiceGame(faces=3, wild="none")
    torch.manual_seed(0)
    ro = learners.play(LiarsDiceBatch(64, game=game), build_network(game.config(), "8"), np.random.default_rng(0))
    values = torch.rand(len(ro.ret)) * 2 - 1
    gamma, lam = 0.9, 0.8
    adv, returns = learners.gae(ro, values, gamma, lam)
    assert torch.allclose(returns, adv + values)
    for g in range(64):
        rows = sorted((ro.game == g).nonzero()[:, 0].tolist(), key=lambda r: int(ro.depth[r]))
        sign = [1.0 if k % 2 == 0 else -1.0 for k in range(len(rows))]  # player 0 moves first in every game
        v0 = [sign[k] * float(values[r]) for k, r in enumerate(rows)]
        r0 = [0.0] * (len(rows) - 1) + [sign[-1] * float(ro.ret[rows[-1]])]  # player 0's payoff, at the call
        a0, expected = 0.0, []
        for k in reversed(range(len(rows))):
            following = v0[k + 1] if k + 1 < len(rows) else 0.0
            done = k + 1 == len(rows)
            delta = r0[k] + gamma * following * (not done) - v0[k]
            a0 = delta + gamma * lam * (not done) * a0
            expected.append(sign[k] * a0)
        assert adv[rows].tolist() == pytest.approx(expected[::-1], abs=1e-6)


def test_average_buffer_keeps_the_newest_rows_and_round_trips(lp):
    """First in, first out over a wrap-around; the checkpoint's state dict restores it."""
    buffer = learners.AverageBuffer(5, obs_dim=2, num_actions=3)
    for start in (0, 3, 6):  # rows 0..8, one per value; the last 5 stay
        rows = torch.arange(start, start + 3, dtype=torch.float32)
        buffer.add(torch.stack([rows, rows], 1), torch.ones((3, 3), dtype=torch.bool),
                   torch.full((3, 3), 1 / 3))
    assert buffer.size == 5 and sorted(buffer.obs[:, 0].tolist()) == [4, 5, 6, 7, 8]
    copy = learners.AverageBuffer(5, obs_dim=2, num_actions=3)
    copy.load_state_dict(buffer.state_dict())
    assert torch.equal(copy.obs, buffer.obs) and (copy.size, copy.next) == (buffer.size, buffer.next)
    obs, mask, target = copy.sample(64)
    assert set(obs[:, 0].tolist()) <= {4, 5, 6, 7, 8} and torch.allclose(target.sum(1), torch.ones(64))
    torch.manual_seed(0)  # linear weighting: the k-th oldest of 5 rows is drawn with chance (2k - 1) / 25
    drawn = torch.bincount(copy.sample(50000)[0][:, 0].long() - 4, minlength=5) / 50000
    assert torch.allclose(drawn, torch.tensor([1.0, 3, 5, 7, 9]) / 25, atol=0.01)
    drawn = torch.bincount(copy.sample(50000, linear=False)[0][:, 0].long() - 4, minlength=5) / 50000
    assert torch.allclose(drawn, torch.full((5,), 0.2), atol=0.01)
    with pytest.raises(ValueError, match="does not fit capacity 2"):
        learners.AverageBuffer(2, obs_dim=2, num_actions=3).load_state_dict(buffer.state_dict())


def test_average_rows_are_those_the_mover_reached_on_policy(lp):
    """A mover's decisions after its own deviation are left out of the average's data (its
    own reach there is not its policy's); the other player's are kept."""
    from dice_envs.agents.liars_dice.learned import build_network
    from dice_envs.games.liars_dice.batched import LiarsDiceBatch
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    game = LiarsDiceGame(faces=3)
    torch.manual_seed(0)
    net = build_network(game.config(), "8")
    batch = LiarsDiceBatch(256, game=game)
    ro = learners.play(batch, net, np.random.default_rng(0), explore=1.0)  # every game deviates at its first decision
    first = torch.zeros(len(ro.ret), dtype=torch.bool)
    first[:256] = True
    second = torch.zeros_like(first)
    second[256:512] = True
    assert bool(ro.own_reach[first | second].all())  # the deviation itself, and the other player's reply
    later_own = ~(first | second) & ~ro.own_reach
    assert bool(later_own.any())  # the deviator's own later decisions
    assert torch.allclose(ro.policy.sum(1), torch.ones(len(ro.ret)), atol=1e-5)
    assert bool((ro.policy[~ro.mask] == 0).all())


def test_divergence_stops_with_the_last_checkpoint(lp, tmp_path, capsys):
    run = tmp_path / "run"
    code, report, err = call(lp, capsys, ["--run-dir", str(run), "--steps", "5000", "--eval-every", "100", *TINY,
                                          "--value-learning-rate", "1e30"])
    assert code == 2 and report is None and "training diverged" in err and "checkpoint at update 0 is kept" in err
    assert snapshot(run)["updates"] == 0 and not (run / "model.pt").exists()


def test_a_full_disk_is_named(lp, tmp_path, capsys, monkeypatch):
    """Issue 23's attack: on a full disk the checkpoint write said `RuntimeError: [enforce fail at
    inline_container.cc:672]`, with no word of the disk."""
    import errno

    class FullDisk:
        name = str(tmp_path / "run" / ".checkpoint.pt.tmp")

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            pass

    @contextlib.contextmanager
    def full_disk(path, mode="wb"):
        yield FullDisk()

    monkeypatch.setattr(liars_dice_training, "atomic_file", full_disk)
    code = lp.main(["--method", "mmd", "--run-dir", str(tmp_path / "run"), "--steps", "2000", "--eval-every", "1",
                    *TINY])
    err = capsys.readouterr().err
    assert code == 2
    assert "disk full writing" in err and ".checkpoint.pt.tmp" in err and "enforce fail" not in err


def test_a_checkpoint_is_written_between_rare_evaluations(lp, tmp_path, capsys, monkeypatch):
    """Streamed scoring is rare (two dice each: minutes, at --eval-every or the end): a checkpoint is
    also written after CHECKPOINT_SECONDS without one, so a kill loses minutes, not the run; resuming
    from it ends as the uninterrupted run does."""
    monkeypatch.setattr(lp.module, "make_scorer", lambda game, target: liars_dice_training.StreamedScorer(game))
    monkeypatch.setattr(liars_dice_training, "CHECKPOINT_SECONDS", 0.0)  # after every update
    argv = [*ESCHER, "--dice", "1,2", "--wild", "aces", "--steps", "3000", "--eval-every", "1000", *TINY]
    code, reference, _ = call(lp, capsys, [*argv, "--run-dir", str(tmp_path / "reference")])
    assert code == 0
    real = liars_dice_training.atomic_file
    kill_after_checkpoints(liars_dice_training, monkeypatch, 2)  # after update 2, not evaluated
    run = tmp_path / "run"
    with pytest.raises(Killed):
        lp.main([*argv, "--run-dir", str(run)])
    monkeypatch.setattr(liars_dice_training, "atomic_file", real)
    state = snapshot(run)
    assert state["updates"] == 2 and state["curve"] == []  # a checkpoint with no evaluation yet
    code, report, _ = call(lp, capsys, [*argv, "--run-dir", str(run)])
    assert code == 0 and report["resumed"]
    same = [(h["steps"], h["exploitability"]) for h in reference["curve"]]
    assert [(h["steps"], h["exploitability"]) for h in report["curve"]] == same  # (minutes are wall time)


def test_a_kill_during_a_streamed_scoring_mid_run_costs_no_training(lp, tmp_path, capsys, monkeypatch):
    """A streamed scoring at --eval-every (minutes at two dice each) saves the trained state first:
    killed during it, the same command resumes at that update, runs the scoring it owes there, and
    ends with the uninterrupted run's curve."""
    monkeypatch.setattr(lp.module, "make_scorer", lambda game, target: liars_dice_training.StreamedScorer(game))
    argv = [*ESCHER, "--dice", "1,2", "--wild", "aces", "--steps", "5000", "--eval-every", "2", *TINY]
    code, reference, _ = call(lp, capsys, [*argv, "--run-dir", str(tmp_path / "reference")])
    assert code == 0 and reference["updates"] > 4 and len(reference["curve"]) >= 3  # at updates 2, 4, ... and the end
    run = tmp_path / "run"
    with monkeypatch.context() as patch:  # killed during the scoring at update 2
        patch.setattr(liars_dice_training.StreamedScorer, "scores", killed_while_scoring)
        with pytest.raises(Killed):
            lp.main([*argv, "--run-dir", str(run)])
    state = snapshot(run)
    assert state["updates"] == 2 and state["curve"] == []  # trained to update 2, its scoring owed
    code, report, _ = call(lp, capsys, [*argv, "--run-dir", str(run)])
    assert code == 0 and report["resumed"] and report["updates"] == reference["updates"]
    same = [(h["steps"], h["exploitability"]) for h in reference["curve"]]
    assert [(h["steps"], h["exploitability"]) for h in report["curve"]] == same
