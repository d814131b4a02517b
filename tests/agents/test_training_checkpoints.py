"""Checkpoints and options of the training scripts (issue 13, items 4 and 5):
dice_envs.agents.learn.jeopardy (through train_ayzd.py and train_pig.py) and
experiments/train_liars_dice.py.

* a resumed run equals an uninterrupted one (same curve, same network), whether it was
  killed just after a checkpoint, killed while writing one, stopped by Ctrl-C, or
  extended with a larger --steps (constant learning rate: the schedule follows the budget);
* a finished run that is rerun prints its report and trains no more;
* damaged, foreign, crafted or older-version checkpoints, options that differ from the
  checkpoint's, and nonsensical options are refused with a clear message and exit code 2;
* a run whose numbers stop being finite stops with an error and keeps its last checkpoint.

Sizes are tiny (a few hundred PPO steps, a few Liar's Dice updates) to keep this fast."""

import json
import pickle
import shutil
import signal
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from checkpoint_kills import Killed, kill_after_checkpoints, kill_after_state
from trainer_checks import assert_same, load_script

from dice_envs.agents.liars_dice import training as liars_dice_training

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]


def call(script, capsys, argv):
    """Run ``script.main(argv)``; returns ``(exit code, report or None, stderr)``."""
    code = script.main(argv)
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    return code, (json.loads(lines[-1]) if lines else None), captured.err


# -- the jeopardy trainer (train_ayzd.py / train_pig.py) --------------------------------------------------

TINY = ["--n-envs", "2", "--n-steps", "64", "--minibatch", "64", "--epochs", "1", "--pool-size", "2",
        "--minutes", "0", "--quiet", "--no-plot"]
AYZD = ["--goal", "3", *TINY, "--eval-every", "128"]  # AYZD to 3 points: a curve that moves, evaluated in 0.1 s


@pytest.fixture(scope="module")
def jt():
    load_script("train_ayzd")
    load_script("train_pig")
    import dice_envs.agents.learn.jeopardy as module

    return module


def jeopardy_snapshot(run: Path) -> dict:
    """What must match between two runs: the curve and every tensor of the checkpoint."""
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    with zipfile.ZipFile(run / "checkpoint" / state["model"]) as z:
        tensors = {name: torch.load(z.open(name), weights_only=True) for name in ("policy.pth", "policy.optimizer.pth")}
    with np.load(run / "checkpoint" / state["pool"]) as pool:
        arrays = {key: pool[key] for key in pool.files}
    curve = [(h["steps"], h["difference"], h["win_as_first"], h["win_as_second"]) for h in state["history"]]
    return {"curve": curve, "steps": state["steps"], "tensors": tensors, "pool": arrays,
            "rng": {k: v for k, v in state["rng"].items()}}


@pytest.fixture(scope="module")
def jeopardy_reference(jt, tmp_path_factory):
    """Uninterrupted AYZD runs of 384 steps, with the default decaying learning rate and with a constant one."""
    script = sys.modules["train_ayzd"]
    out = {}
    for name, extra in (("decay", []), ("constant", ["--lr-floor", "1"])):
        run = tmp_path_factory.mktemp("reference") / name
        assert script.main(["--run-dir", str(run), "--steps", "384", *AYZD, *extra]) == 0
        out[name] = jeopardy_snapshot(run)
    return out


@pytest.mark.parametrize("how", ["killed after a checkpoint", "killed while writing a checkpoint", "ctrl-c",
                                 "extended with --steps"])
def test_jeopardy_resume_is_exact(jt, jeopardy_reference, tmp_path, capsys, monkeypatch, how):
    """Run 384 steps, evaluating every 128, interrupted around 256 and resumed: the same
    Differences at the same steps, the same network, optimiser, pool and generator states
    as the uninterrupted run.  The env deals fresh games at every evaluation, in both."""
    script = sys.modules["train_ayzd"]
    run = tmp_path / "run"
    argv = ["--run-dir", str(run), "--steps", "384", *AYZD]
    reference = jeopardy_reference["decay"]
    if how.startswith("killed"):
        real = jt.atomic_write_text

        def write(path, text):
            at_256 = path.name == "state.json" and json.loads(text)["steps"] == 256
            if at_256 and how == "killed while writing a checkpoint":
                raise Killed  # model and pool files of 256 written, state.json not switched: 128 stands
            real(path, text)
            if at_256:
                raise Killed

        monkeypatch.setattr(jt, "atomic_write_text", write)
        with pytest.raises(Killed):
            script.main(argv)
        monkeypatch.undo()
        expected = 256 if how == "killed after a checkpoint" else 128
        assert json.loads((run / "checkpoint" / "state.json").read_text())["steps"] == expected
    elif how == "ctrl-c":
        from sb3_contrib import MaskablePPO

        real_train = MaskablePPO.train

        def train(self):
            if self.num_timesteps == 384:  # the rollout of the chunk after 256 is collected
                raise KeyboardInterrupt
            real_train(self)

        monkeypatch.setattr(MaskablePPO, "train", train)
        code, report, err = call(script, capsys, argv)
        monkeypatch.undo()
        assert code == 130 and report["interrupted"] and report["steps"] == 256 and report["model"] is None
        assert "checkpoint at 256 steps is kept" in err
    else:
        reference = jeopardy_reference["constant"]
        argv += ["--lr-floor", "1"]
        assert script.main([*argv[:3], "256", *argv[4:]]) == 0
    code, report, _ = call(script, capsys, argv)
    assert code == 0 and report["resumed"] and not report["interrupted"]
    resumed = jeopardy_snapshot(run)
    assert resumed["curve"] == reference["curve"]
    assert_same(resumed, reference)
    assert not list((run / "checkpoint").glob("*.tmp*"))
    assert sorted(p.name for p in (run / "checkpoint").iterdir()) == ["model-0000000384.zip", "pool-0000000384.npz",
                                                                     "state.json"]


def test_jeopardy_sigterm_stops_as_ctrl_c_and_reaches_what_runs_it(jt, tmp_path, capsys, monkeypatch):
    """Issue 58's attack: a trainer running in the test's process swallowed SIGTERM, and the test
    run went on.  It keeps its last checkpoint as on Ctrl-C, then hands the signal to the handler
    it replaced (the test run's, here one that notes it)."""
    import signal

    from sb3_contrib import MaskablePPO

    real_train = MaskablePPO.train

    def train(self):
        if self.num_timesteps == 384:
            signal.raise_signal(signal.SIGTERM)
        real_train(self)

    monkeypatch.setattr(MaskablePPO, "train", train)
    seen = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        code, report, err = call(sys.modules["train_ayzd"], capsys,
                                 ["--run-dir", str(tmp_path / "run"), "--steps", "384", *AYZD])
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert code == 130 and report["interrupted"] and report["steps"] == 256 and seen == [signal.SIGTERM]
    assert "checkpoint at 256 steps is kept" in err


# Zombie Dice with the official dice (train_ayzd.py --variant official): the pool holds networks, not tables.
OFFICIAL = ["--variant", "official", "--goal", "2", "--score-cap", "4", *TINY, "--eval-every", "128"]


@pytest.fixture(scope="module")
def official_reference(jt, tmp_path_factory):
    """An uninterrupted official-dice run of 384 steps (goal 2 on a 4-point grid: exact scores in 0.1 s)."""
    run = tmp_path_factory.mktemp("official") / "run"
    assert sys.modules["train_ayzd"].main(["--run-dir", str(run), "--steps", "384", *OFFICIAL]) == 0
    return jeopardy_snapshot(run)


def test_official_resume_is_exact(jt, official_reference, tmp_path, capsys, monkeypatch):
    """Killed just after the checkpoint at 256 steps and resumed: the same curve, network,
    optimiser, pool of networks and generator states as the uninterrupted run."""
    script = sys.modules["train_ayzd"]
    run = tmp_path / "run"
    argv = ["--run-dir", str(run), "--steps", "384", *OFFICIAL]
    kill_after_state(jt, monkeypatch, 256)
    with pytest.raises(Killed):
        script.main(argv)
    monkeypatch.undo()
    code, report, _ = call(script, capsys, argv)
    assert code == 0 and report["resumed"] and report["game"] == "zombie_dice"
    resumed = jeopardy_snapshot(run)
    assert resumed["curve"] == official_reference["curve"] and len(resumed["curve"]) == 4
    assert len({key.split("/")[0] for key in resumed["pool"]}) == 2  # --pool-size 2 networks
    assert_same(resumed, official_reference)


def test_official_evaluated_only_at_the_end(jt, tmp_path, capsys, monkeypatch):
    """``--no-eval-start``, ``--eval-every`` above the budget and ``--snapshot-every 128``:
    the pool takes a network every 128 steps, the only exact evaluation is at the end, and
    a run killed after an unevaluated checkpoint (an empty curve) resumes exactly; an
    interrupted run with no evaluation yet reports no Difference."""
    script = sys.modules["train_ayzd"]
    argv = ["--steps", "384", *OFFICIAL, "--eval-every", "1000000", "--snapshot-every", "128", "--no-eval-start"]
    reference_run = tmp_path / "reference"
    code, reference_report, _ = call(script, capsys, ["--run-dir", str(reference_run), *argv])
    assert code == 0 and [h["steps"] for h in reference_report["history"]] == [384]
    assert reference_report["evaluated_at"] == 384 and -1 < reference_report["difference"] <= 1e-12
    reference = jeopardy_snapshot(reference_run)
    assert len({key.split("/")[0] for key in reference["pool"]}) == 2  # --pool-size 2 of the 4 networks

    run = tmp_path / "run"
    kill_after_state(jt, monkeypatch, 256)
    with pytest.raises(Killed):
        script.main(["--run-dir", str(run), *argv])
    monkeypatch.undo()
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    assert state["steps"] == 256 and state["history"] == [] and state["result"] == {}
    code, report, _ = call(script, capsys, ["--run-dir", str(run), *argv])
    assert code == 0 and report["resumed"] and report["difference"] == reference_report["difference"]
    assert_same(jeopardy_snapshot(run), reference)

    # Ctrl-C before the first evaluation: the report says so with no figures.
    from sb3_contrib import MaskablePPO

    def interrupt(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(MaskablePPO, "train", interrupt)
    code, report, _ = call(script, capsys, ["--run-dir", str(tmp_path / "early"), *argv])
    assert code == 130 and report["interrupted"] and report["difference"] is None and report["best"] is None


@pytest.fixture(scope="module")
def pig_run(jt, tmp_path_factory):
    """A finished Pig run (goal 20, 128 steps) to damage and to rerun."""
    run = tmp_path_factory.mktemp("pig") / "run"
    assert sys.modules["train_pig"].main(["--run-dir", str(run), "--steps", "128", "--goal", "20", *TINY,
                                          "--eval-every", "128"]) == 0
    return run


def pig_argv(run, *extra):
    return ["--run-dir", str(run), "--goal", "20", *TINY, "--eval-every", "128", *extra]


def damage_state(key, value):
    def damage(ckpt: Path):
        state = json.loads((ckpt / "state.json").read_text())
        if value is KeyError:
            del state[key]
        else:
            state[key] = value
        (ckpt / "state.json").write_text(json.dumps(state))
    return damage


def write(name, data):
    def damage(ckpt: Path):
        target = ckpt / name if "*" not in name else next(ckpt.glob(name))
        target.write_bytes(data(target) if callable(data) else data)
    return damage


def foreign_zip(path):
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("data", "{}")
    return buffer.getvalue()


def foreign_npz(path):
    import io

    buffer = io.BytesIO()
    np.savez(buffer, **{"0/not_a_layer": np.zeros(3, np.float32)})
    return buffer.getvalue()


def zip_bomb(path):
    """The zip ``path`` rewritten deflated, its first entry followed by zeros, 200 times the file's size:
    a file declaring far more than it holds (issue 58 item 8)."""
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zout:
        for k, item in enumerate(zin.infolist()):
            zout.writestr(item.filename, zin.read(item) + (bytes(200 * path.stat().st_size) if k == 0 else b""))
    return buffer.getvalue()


JEOPARDY_DAMAGE = {
    "state.json {}": (write("state.json", b"{}"), "state.json", "no 'format'"),
    "state.json []": (write("state.json", b"[]"), "state.json", "should be an object"),
    "state.json null": (write("state.json", b"null"), "state.json", "should be an object"),
    "state.json not JSON": (write("state.json", b"{not json"), "state.json", "not JSON"),
    "state.json empty": (write("state.json", b""), "state.json", "not JSON"),
    "missing rng": (damage_state("rng", KeyError), "state.json", "no 'rng'"),
    "steps a string": (damage_state("steps", "128"), "state.json", "'steps' should be a non-negative integer"),
    "steps negative": (damage_state("steps", -1), "state.json", "'steps' should be a non-negative integer"),
    "seconds NaN": (damage_state("seconds", float("nan")), "state.json", "'seconds' should be a finite number"),
    "history not a list": (damage_state("history", {}), "state.json", "'history' should be a list"),
    "history empty": (damage_state("history", []), "state.json", "the history is empty"),
    "history past the checkpoint": (damage_state("history", [{"steps": 999, "minutes": 0.0, "difference": 0.0,
                                                               "win_as_first": 0.5, "win_as_second": 0.5}]),
                                    "state.json", "after the checkpoint's 128"),
    "model elsewhere": (damage_state("model", "../../x.zip"), "state.json", "expected 'model-0000000128.zip'"),
    "random states damaged": (damage_state("rng", {"python": 1}), "state.json", "random states are damaged"),
    "older version": (damage_state("format", KeyError), "state.json", "older version"),
    "model empty": (write("model-*.zip", b""), "model-0000000128.zip", "empty or not a zip"),
    "model not a zip": (write("model-*.zip", b"hello"), "model-0000000128.zip", "empty or not a zip"),
    "model zip without tensors": (write("model-*.zip", foreign_zip), "model-0000000128.zip", "not this run's model"),
    "model missing": (lambda ckpt: next(ckpt.glob("model-*.zip")).unlink(), "model-0000000128.zip", "missing"),
    "pool truncated": (write("pool-*.npz", lambda p: p.read_bytes()[:300]), "pool-0000000128.npz", "BadZipFile"),
    "pool foreign": (write("pool-*.npz", foreign_npz), "pool-0000000128.npz", "not this run's self-play pool"),
    "pool missing": (lambda ckpt: next(ckpt.glob("pool-*.npz")).unlink(), "pool-0000000128.npz", "missing"),
    "model a zip bomb": (write("model-*.zip", zip_bomb), "model-0000000128.zip", "a model or checkpoint file may "
                                                                                 "inflate at most 100 times"),
    "pool a zip bomb": (write("pool-*.npz", zip_bomb), "pool-0000000128.npz", "may inflate at most 100 times"),
}


@pytest.mark.parametrize("case", list(JEOPARDY_DAMAGE))
def test_jeopardy_damaged_checkpoint_is_refused(jt, pig_run, tmp_path, capsys, case):
    damage, name, reason = JEOPARDY_DAMAGE[case]
    run = tmp_path / "run"
    shutil.copytree(pig_run, run)
    damage(run / "checkpoint")
    before = {p.name: p.read_bytes() for p in (run / "checkpoint").iterdir()}
    code, report, err = call(sys.modules["train_pig"], capsys, pig_argv(run, "--steps", "256"))
    assert code == 2 and report is None
    assert name in err and reason in err and f"remove {run / 'checkpoint'} to start over" in err, err
    assert "Traceback" not in err and ".zip.zip" not in err
    assert {p.name: p.read_bytes() for p in (run / "checkpoint").iterdir()} == before  # nothing overwritten


@pytest.mark.parametrize("option", [["--net-pi", "32"], ["--net-vf", "32,32"], ["--activation", "tanh"],
                                    ["--goal", "21"], ["--opponent", "random"], ["--n-envs", "4"],
                                    ["--learning-rate", "0.001"], ["--seed", "1"], ["--pool-size", "3"],
                                    ["--gamma", "0.99"]])
def test_jeopardy_options_that_differ_from_the_checkpoint_are_refused(jt, pig_run, capsys, option):
    argv = pig_argv(pig_run, "--steps", "256")
    for k in range(0, len(argv) - 1):  # the later value wins in argparse; keep one for clarity
        if argv[k] == option[0]:
            del argv[k: k + 2]
            break
    code, _, err = call(sys.modules["train_pig"], capsys, [*argv, *option])
    assert code == 2
    assert f"{option[0]} " in err and "differs from the checkpoint's" in err and "another --run-dir" in err, err


def test_jeopardy_finished_run_reports_again(jt, pig_run, capsys):
    """Rerun as is, with a smaller --steps, or with the options that may change: the
    stored report, nothing trained, nothing written."""
    first = json.loads((pig_run / "curve.json").read_text())
    files = {p: p.stat().st_mtime_ns for p in pig_run.rglob("*") if p.is_file()}
    for extra in ([], ["--steps", "64"], ["--threads", "2", "--eval-every", "64", "--plot"]):
        argv = pig_argv(pig_run, "--steps", "128", *extra)
        code, report, _ = call(sys.modules["train_pig"], capsys, argv)
        assert code == 0 and report == first
    assert {p: p.stat().st_mtime_ns for p in pig_run.rglob("*") if p.is_file()} == files


def test_jeopardy_killed_while_finishing(jt, pig_run, tmp_path, capsys):
    """Killed after the last checkpoint but before the report was stored: the rerun
    writes the outputs from the checkpoint, without training or evaluating."""
    run = tmp_path / "run"
    shutil.copytree(pig_run, run)
    first = json.loads((run / "curve.json").read_text())
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    del state["report"]
    (run / "checkpoint" / "state.json").write_text(json.dumps(state))
    (run / "model.zip").unlink()
    code, report, _ = call(sys.modules["train_pig"], capsys, pig_argv(run, "--steps", "128"))
    assert code == 0 and report == {**first, "resumed": True, "run_dir": str(run), "model": str(run / "model.zip")}
    assert (run / "model.zip").read_bytes() == (run / "checkpoint" / state["model"]).read_bytes()


@pytest.mark.parametrize("option,value", [
    ("--learning-rate", "inf"), ("--learning-rate", "nan"), ("--learning-rate", "-1"), ("--learning-rate", "0"),
    ("--gamma", "2"), ("--gamma", "nan"), ("--gae-lambda", "-0.5"), ("--entropy", "nan"), ("--entropy", "-1"),
    ("--lr-floor", "1.5"), ("--minutes", "nan"), ("--minutes", "-1"), ("--steps", "-5"), ("--seed", "-1"),
    ("--net-pi", "abc"), ("--net-vf", "64,0"), ("--activation", "gelu"), ("--minibatch", "1"),
    ("--n-envs", "0"), ("--eval-every", "0"), ("--goal", "0"),
])
def test_jeopardy_bad_options(jt, tmp_path, capsys, option, value):
    code, _, err = call(sys.modules["train_pig"], capsys,
                        ["--run-dir", str(tmp_path / "run"), "--steps", "128", option, value])
    assert code == 2 and option in err and "Traceback" not in err, err
    assert not (tmp_path / "run").exists()


def test_jeopardy_divergence_stops_with_the_last_checkpoint(jt, tmp_path, capsys):
    run = tmp_path / "run"
    argv = pig_argv(run, "--steps", "256", "--learning-rate", "1e30")
    code, report, err = call(sys.modules["train_pig"], capsys, argv)
    assert code == 2 and report is None and "training diverged" in err and "checkpoint at 0 steps is kept" in err
    assert json.loads((run / "checkpoint" / "state.json").read_text())["steps"] == 0


def test_jeopardy_model_without_checkpoint_is_not_overwritten(jt, tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "model.zip").write_bytes(b"a finished run's model")
    code, _, err = call(sys.modules["train_pig"], capsys, pig_argv(tmp_path / "run", "--steps", "128"))
    assert code == 2 and "no checkpoint" in err
    assert (tmp_path / "run" / "model.zip").read_bytes() == b"a finished run's model"


# -- the Liar's Dice trainer -----------------------------------------------------------------------------

LD = ["--faces", "3", "--hidden", "16", "--lookahead", "5", "--inner-steps", "5", "--minutes", "0", "--quiet",
      "--no-plot", "--eval-every", "2"]


@pytest.fixture(scope="module")
def ld(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("DICE_ENVS_CACHE", str(tmp_path_factory.mktemp("cache")))  # the CFR+ reference, solved once
    yield load_script("train_liars_dice")
    mp.undo()


def ld_snapshot(run: Path) -> dict:
    blob = torch.load(run / "checkpoint.pt", weights_only=True)
    state = json.loads(blob.pop("state"))
    curve = [(h["steps"], h["exploitability"], h["value_vs_equilibrium"]) for h in state["history"]]
    return {"curve": curve, "steps": state["steps"], "tensors": blob}


@pytest.fixture(scope="module")
def ld_reference(ld, tmp_path_factory):
    out = {}
    for name, extra in (("decay", []), ("constant", ["--lr-floor", "1"])):
        run = tmp_path_factory.mktemp("ld_reference") / name
        assert ld.main(["--run-dir", str(run), "--steps", "8", *LD, *extra]) == 0
        out[name] = ld_snapshot(run)
    return out


@pytest.mark.parametrize("how", ["killed after a checkpoint", "ctrl-c", "extended with --steps"])
def test_liars_dice_resume_is_exact(ld, ld_reference, tmp_path, capsys, monkeypatch, how):
    run = tmp_path / "run"
    argv = ["--run-dir", str(run), "--steps", "8", *LD]
    reference = ld_reference["decay"]
    if how == "killed after a checkpoint":
        kill_after_checkpoints(liars_dice_training, monkeypatch, 3)  # the checkpoints at updates 0, 2, 4
        with pytest.raises(Killed):
            ld.main(argv)
        monkeypatch.undo()
        assert ld_snapshot(run)["steps"] == 4
    elif how == "ctrl-c":
        real_rate = ld.fit_learning_rate

        def rate(args, elapsed, steps):
            if steps == 4:
                signal.raise_signal(signal.SIGINT)  # Ctrl-C during update 5
            return real_rate(args, elapsed, steps)

        monkeypatch.setattr(ld, "fit_learning_rate", rate)
        code, report, err = call(ld, capsys, argv)
        monkeypatch.undo()
        assert code == 130 and report["interrupted"] and report["steps"] == 5 and report["evaluated_at"] == 4
        assert ld_snapshot(run)["steps"] == 5 and not (run / "model.pt").exists()
    else:
        reference = ld_reference["constant"]
        argv += ["--lr-floor", "1"]
        assert ld.main([*argv[:3], "4", *argv[4:]]) == 0
    code, report, _ = call(ld, capsys, argv)
    assert code == 0 and report["resumed"] and not report["interrupted"]
    resumed = ld_snapshot(run)
    assert resumed["curve"] == reference["curve"]
    assert_same(resumed, reference)


def test_liars_dice_checkpoint_between_evaluations(ld, ld_reference, tmp_path, capsys, monkeypatch):
    """A checkpoint is also written after CHECKPOINT_SECONDS without one (here after every update), as
    the learners from sampled games write it: killed after the one at update 3, between the evaluations
    at updates 2 and 4, the run resumes there and ends as the uninterrupted run."""
    run = tmp_path / "run"
    argv = ["--run-dir", str(run), "--steps", "8", *LD]
    monkeypatch.setattr(liars_dice_training, "CHECKPOINT_SECONDS", 0.0)
    kill_after_checkpoints(liars_dice_training, monkeypatch, 4)  # the checkpoints at updates 0, 1, 2, 3
    with pytest.raises(Killed):
        ld.main(argv)
    monkeypatch.undo()
    killed = ld_snapshot(run)
    assert killed["steps"] == 3 and [h[0] for h in killed["curve"]] == [0, 2]
    code, report, _ = call(ld, capsys, argv)
    assert code == 0 and report["resumed"] and not report["interrupted"]
    resumed = ld_snapshot(run)
    assert resumed["curve"] == ld_reference["decay"]["curve"]
    assert_same(resumed, ld_reference["decay"])


@pytest.fixture(scope="module")
def ld_run(ld, tmp_path_factory):
    run = tmp_path_factory.mktemp("ld") / "run"
    assert ld.main(["--run-dir", str(run), "--steps", "2", *LD]) == 0
    return run


class Payload:
    """A pickle that would create a file when loaded without weights_only."""

    marker = None

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def crafted(how):
    def damage(run: Path):
        Payload.marker = str(run / "PWNED")
        if how == "torch.save":
            torch.save({"format": 2, "state": "{}", "net": Payload()}, run / "checkpoint.pt")
        else:
            with open(run / "checkpoint.pt", "wb") as f:
                pickle.dump({"format": 2, "net": Payload()}, f)
    return damage


def ld_edit(**changes):
    """Change fields of the checkpoint (``state.<key>``: of its JSON state; KeyError: remove)."""
    def damage(run: Path):
        blob = torch.load(run / "checkpoint.pt", weights_only=True)
        state = json.loads(blob["state"])
        for key, value in changes.items():
            target = state if key.startswith("state.") else blob
            key = key.removeprefix("state.")
            if value is KeyError:
                del target[key]
            else:
                target[key] = value
        if any(key.startswith("state.") for key in changes):
            blob["state"] = json.dumps(state)
        torch.save(blob, run / "checkpoint.pt")
    return damage


def ld_write(data):
    def damage(run: Path):
        (run / "checkpoint.pt").write_bytes(data)
    return damage


LD_DAMAGE = {
    "garbage": (ld_write(b"garbage"), "checkpoint.pt", "torch cannot read it"),
    "a zip bomb": (lambda run: (run / "checkpoint.pt").write_bytes(zip_bomb(run / "checkpoint.pt")), "checkpoint.pt",
                   "a model or checkpoint file may inflate at most 100 times"),
    "empty": (ld_write(b""), "checkpoint.pt", "torch cannot read it"),
    "crafted torch.save": (crafted("torch.save"), "checkpoint.pt", "torch cannot read it"),
    "crafted pickle": (crafted("pickle"), "checkpoint.pt", "torch cannot read it"),
    "a list": (lambda run: torch.save([1, 2], run / "checkpoint.pt"), "checkpoint.pt", "should be an object"),
    "older version": (lambda run: torch.save({"game": {}, "hidden": "16", "net": {}}, run / "checkpoint.pt"),
                      "checkpoint.pt", "older version"),
    "state not JSON": (ld_edit(state="{not json"), "checkpoint.pt", "not JSON"),
    "state null": (ld_edit(state="null"), "checkpoint.pt", "should be an object"),
    "no steps": (ld_edit(**{"state.steps": KeyError}), "checkpoint.pt", "no 'steps'"),
    "elapsed a string": (ld_edit(**{"state.elapsed": "x"}), "checkpoint.pt", "'elapsed' should be a finite number"),
    "history empty": (ld_edit(**{"state.history": []}), "checkpoint.pt", "history is empty"),
    "random states damaged": (ld_edit(**{"state.rng": {"torch": "!"}}), "checkpoint.pt", "random states"),
    "net of another shape": (ld_edit(net={"mlp.0.weight": torch.zeros(3, 3)}), "checkpoint.pt",
                             "not this run's networks"),
    "prev_q of another shape": (ld_edit(prev_q=torch.zeros(2, 2)), "checkpoint.pt", "not this run's networks"),
    "state.json beside it": (lambda run: (run / "state.json").write_text("{}"), "state.json", "older version"),
    "model.pt without checkpoint.pt": (lambda run: (run / "checkpoint.pt").unlink(), "no checkpoint.pt",
                                       "remove"),
}


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
@pytest.mark.parametrize("case", list(LD_DAMAGE))
def test_liars_dice_damaged_checkpoint_is_refused(ld, ld_run, tmp_path, capsys, case):
    damage, name, reason = LD_DAMAGE[case]
    run = tmp_path / "run"
    shutil.copytree(ld_run, run)
    damage(run)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    code, report, err = call(ld, capsys, ["--run-dir", str(run), "--steps", "4", *LD])
    assert code == 2 and report is None
    assert name in err and reason in err and f"remove {run}" in err, err
    assert "Traceback" not in err
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before  # nothing overwritten
    assert not (run / "PWNED").exists()  # the crafted pickle did not run


@pytest.mark.parametrize("option", [["--hidden", "8"], ["--faces", "4"], ["--wild"], ["--eta", "0.3"],
                                    ["--seed", "1"], ["--learning-rate", "0.01"]])
def test_liars_dice_options_that_differ_from_the_checkpoint_are_refused(ld, ld_run, capsys, option):
    code, _, err = call(ld, capsys, ["--run-dir", str(ld_run), "--steps", "4", *LD, *option])
    assert code == 2 and f"{option[0]} " in err and "differs from the checkpoint's" in err, err
    assert "another --run-dir" in err


def test_liars_dice_finished_run_reports_again(ld, ld_run, capsys):
    first = json.loads((ld_run / "curve.json").read_text())
    files = {p: p.stat().st_mtime_ns for p in ld_run.rglob("*") if p.is_file()}
    for extra in ([], ["--steps", "1"], ["--threads", "2", "--eval-every", "1"]):
        code, report, _ = call(ld, capsys, ["--run-dir", str(ld_run), "--steps", "2", *LD, *extra])
        assert code == 0 and report == first
    assert {p: p.stat().st_mtime_ns for p in ld_run.rglob("*") if p.is_file()} == files


@pytest.mark.parametrize("option,value", [
    ("--learning-rate", "inf"), ("--learning-rate", "nan"), ("--learning-rate", "-1"), ("--eta", "nan"),
    ("--eta", "0"), ("--alpha", "-1"), ("--lr-floor", "1.5"), ("--optimism", "inf"), ("--cfr-target", "0"),
    ("--faces", "9"), ("--hidden", "abc"), ("--seed", "-1"), ("--minutes", "nan"), ("--inner-steps", "0"),
])
def test_liars_dice_bad_options(ld, tmp_path, capsys, option, value):
    code, _, err = call(ld, capsys, ["--run-dir", str(tmp_path / "run"), "--steps", "2", option, value])
    assert code == 2 and option in err and "Traceback" not in err, err
    assert not (tmp_path / "run").exists()


def test_liars_dice_divergence_stops_with_the_last_checkpoint(ld, tmp_path, capsys):
    run = tmp_path / "run"
    code, report, err = call(ld, capsys, ["--run-dir", str(run), "--steps", "4", *LD, "--learning-rate", "1e30"])
    assert code == 2 and report is None and "training diverged" in err and "checkpoint at update 0 is kept" in err
    assert ld_snapshot(run)["steps"] == 0 and not (run / "model.pt").exists()


@pytest.mark.parametrize("name", ["train_ayzd", "train_pig", "train_liars_dice", "train_liars_dice_play",
                                  "train_rllib"])
def test_every_option_has_help(name, capsys):
    """``--help`` explains every option (the comment on its field's line) and gives its default."""
    import dataclasses

    from dice_envs.agents.learn.runs import options_parser

    if name == "train_rllib":
        from dice_envs.agents.liars_dice.rllib_training import LiarsDiceRLlibArgs as options
    else:
        options = load_script(name).Args
    parser = options_parser(options, "help")
    explained = {action.dest: action.help for action in parser._actions}
    for field in dataclasses.fields(options):
        assert explained[field.name].strip(), f"--{field.name.replace('_', '-')} has no help"
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["--help"])
    assert exit_.value.code == 0 and "(default: " in capsys.readouterr().out
