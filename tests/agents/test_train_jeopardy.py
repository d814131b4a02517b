"""Training smoke tests (a few hundred steps): experiments/train_ayzd.py and train_pig.py (the shared
loop of dice_envs.agents.learn.jeopardy) with their exact evaluation, checkpoints and resume,
`dice-envs evaluate` on the saved models, and MaskablePPO directly on the AEC environment with the
PettingZoo SB3 action-mask pattern."""

import json
from pathlib import Path

import numpy as np
import pytest
from trainer_checks import load_script

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from dice_envs.agents.cli import main as cli_main  # noqa: E402
from dice_envs.agents.zombie_dice.policies import PUBLISHED_DIFFERENCES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


SMALL = ["--n-envs", "2", "--n-steps", "64", "--minibatch", "64", "--epochs", "1", "--pool-size", "2",
         "--minutes", "0", "--quiet"]


def run(script, capsys, *argv):
    code = script.main([*argv, *SMALL])
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1])


def test_train_smoke_and_evaluate(tmp_path, capsys):
    """The script's defaults (AYZD to 13, the compact observation, the published references) for one
    rollout: its outputs, a rerun of the finished run, the saved model scored again by ``dice-envs
    evaluate`` and played as an opponent.  Resuming (the curve kept and continued, the same network) is
    ``tests/agents/test_training_checkpoints.py``'s, on a smaller goal."""
    script = load_script()
    run_dir = tmp_path / "run"
    code, first = run(script, capsys, "--run-dir", str(run_dir), "--steps", "128", "--eval-every", "128")
    assert code == 0 and not first["resumed"]
    assert first["steps"] == 128 and [h["steps"] for h in first["history"]] == [0, 128]
    assert -1 < first["difference"] <= 1e-12
    assert set(first["reached"]) == set(PUBLISHED_DIFFERENCES)
    assert first["reached"]["minh"] == (first["difference"] >= PUBLISHED_DIFFERENCES["minh"])
    for name in ("model.zip", "model.json", "difference.png", "curve.json", "checkpoint/state.json"):
        assert (run_dir / name).exists(), name
    info = json.loads((run_dir / "model.json").read_text())
    assert info["variant"] == "all_yellow" and info["observation"] == "compact" and info["goal"] == 13
    assert info["net_arch"] == {"pi": [64, 64], "vf": [128, 128]} and info["activation"] == "relu"
    assert list((run_dir / "tb").glob("MaskablePPO_1/events.*"))
    state = json.loads((run_dir / "checkpoint" / "state.json").read_text())
    assert state["steps"] == 128 and (run_dir / "checkpoint" / state["model"]).exists()
    assert (run_dir / "checkpoint" / state["pool"]).exists()
    assert state["format"] == 2 and set(state["rng"]) == {"python", "numpy", "torch", "generators"}
    assert state["report"] == first
    assert not list((run_dir / "checkpoint").glob("*.tmp*"))

    # The finished run, rerun: its report again, no training (it used to crash: no _logger).
    assert run(script, capsys, "--run-dir", str(run_dir), "--steps", "128", "--eval-every", "128") == (0, first)

    # The saved model scores the same through `dice-envs evaluate ayzd`.
    assert cli_main(["evaluate", "ayzd", str(run_dir / "model.zip"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["details"]["difference"] == pytest.approx(first["difference"], abs=1e-12)

    # It also plays as an opponent in the single-agent environment.
    import gymnasium

    env = gymnasium.make("dice_envs/ZombieDice-v0", opponent=str(run_dir / "model.zip"), seat=0)
    env.reset(seed=0)
    env.step(1)


def test_fixed_opponent_and_bad_arguments(tmp_path, capsys):
    script = load_script()
    goal = ["--goal", "4"]  # a small game: exact scores in a fraction of a second
    code, result = run(script, capsys, "--run-dir", str(tmp_path / "minh"), "--steps", "128",
                       "--eval-every", "128", "--opponent", "minh", "--no-plot", *goal)
    assert code == 0 and result["opponent"] == "minh" and result["plot"] is None
    # the checkpoint belongs to another opponent
    assert script.main(["--run-dir", str(tmp_path / "minh"), "--steps", "256", "--opponent", "optimal", *goal,
                        *SMALL]) == 2
    assert "--opponent 'optimal' differs from the checkpoint" in capsys.readouterr().err
    assert script.main(["--steps", "0", "--minutes", "0"]) == 2
    assert script.main(["--steps", "10", "--n-envs", "0"]) == 2
    (tmp_path / "broken" / "checkpoint").mkdir(parents=True)
    (tmp_path / "broken" / "checkpoint" / "state.json").write_text("{not json")
    assert script.main(["--run-dir", str(tmp_path / "broken"), "--steps", "128", *SMALL]) == 2
    assert "damaged" in capsys.readouterr().err
    (tmp_path / "broken" / "checkpoint" / "state.json").write_text(
        (tmp_path / "minh" / "checkpoint" / "state.json").read_text())  # names a model that is not there
    assert script.main(["--run-dir", str(tmp_path / "broken"), "--steps", "256", "--opponent", "minh", *goal,
                        *SMALL]) == 2
    assert "damaged" in capsys.readouterr().err


def test_train_pig_smoke_and_evaluate(tmp_path, capsys):
    """train_pig.py's own defaults (goal 100, the Fourier observation, GAE's lambda 0.9) for one
    rollout, with the hold-at references; the saved model scored again by ``dice-envs evaluate pig``
    and played as an opponent.  Resuming is checked on a smaller goal (the scaled observation's test)."""
    script = load_script("train_pig")
    run_dir = tmp_path / "pig"
    code, first = run(script, capsys, "--run-dir", str(run_dir), "--steps", "128", "--eval-every", "128",
                      "--no-eval-start")  # one exact score at goal 100 (the AYZD test checks the one at the start)
    assert code == 0 and first["game"] == "pig" and [h["steps"] for h in first["history"]] == [128]
    assert -1 < first["difference"] <= 1e-12
    assert first["references"]["hold_at_20"] == pytest.approx(-0.0798, abs=5e-5)
    assert first["reached"]["hold_at_20"] == (first["difference"] >= first["references"]["hold_at_20"])
    info = json.loads((run_dir / "model.json").read_text())
    assert info["observation"] == "fourier" and info["goal"] == 100  # train_pig.py's own defaults
    assert json.loads((run_dir / "checkpoint" / "state.json").read_text())["args"]["gae_lambda"] == 0.9
    assert info["net_arch"] == {"pi": [64, 64], "vf": [128, 128]} and info["activation"] == "relu"

    assert cli_main(["evaluate", "pig", str(run_dir / "model.zip"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["details"]["difference"] == pytest.approx(first["difference"], abs=1e-12)

    # The model plays as an opponent in Pig-v0, single and batched.
    import gymnasium

    env = gymnasium.make("dice_envs/Pig-v0", opponent=str(run_dir / "model.zip"), seat=1)
    env.reset(seed=0)
    vec = gymnasium.make_vec("dice_envs/Pig-v0", num_envs=4, vectorization_mode="vector_entry_point",
                             opponent=str(run_dir / "model.zip"), seat=1)
    vec.reset(seed=0)
    vec.step(np.ones(4, np.int64))


OFFICIAL = ["--variant", "official", "--goal", "2", "--score-cap", "4"]  # a 4-point grid: exact scores in 0.1 s


@pytest.mark.parametrize("observation", ["scaled", "fourier"])
def test_train_official_dice(tmp_path, capsys, observation):
    """--variant official: MaskablePPO on the full game (scaled or Fourier observation, a pool of
    networks), scored exactly; the score is the saved network's greedy policy fed the solver's
    states as the env would give them (encoded the same way), and model.json says how to rebuild it."""
    from sb3_contrib import MaskablePPO

    from dice_envs.agents.zombie_dice import solver as zds
    from dice_envs.agents.zombie_dice.gym import ZombieDiceVectorEnv
    from dice_envs.games.zombie_dice.rules import ZombieDiceGame

    script = load_script()
    import dice_envs.agents.learn.jeopardy as jt

    run_dir = tmp_path / "official"
    chosen = [] if observation == "fourier" else ["--observation", observation]  # fourier: the default
    code, report = run(script, capsys, "--run-dir", str(run_dir), "--steps", "256", "--eval-every", "128", *OFFICIAL,
                       *chosen)
    assert code == 0 and report["game"] == "zombie_dice" and [h["steps"] for h in report["history"]] == [0, 128, 256]
    assert -1 < report["difference"] <= 1e-12
    assert report["references"] == pytest.approx(zds.human_differences(2, 4), abs=1e-15)
    assert set(report["references"]) == {"fixed_hold_at", "minh", "llano", "neller"}
    assert report["reached"] == {name: report["difference"] >= gap for name, gap in report["references"].items()}
    game = ZombieDiceGame(2, "official", 2)
    info = json.loads((run_dir / "model.json").read_text())
    assert info == {"game": "zombie_dice", "variant": "official", "observation": observation,
                    "observation_scale": game.observation_scale().tolist(), "goal": 2, "score_cap": 4,
                    "net_arch": {"pi": [64, 64], "vf": [128, 128]}, "activation": "relu", "steps": 256,
                    "difference": report["difference"]}

    model = MaskablePPO.load(run_dir / "model.zip", device="cpu")
    frozen = jt.FrozenActor(model.policy)
    spec = script.OfficialSpec()
    args = jt.parse_args(script.Args, "", ["--steps", "1", *OFFICIAL, "--observation", observation],
                         script.spec_for)[0]
    # The env's observation is the spec's encoding of the AEC vector ...
    env = ZombieDiceVectorEnv(64, opponent="random", variant="official", goal=2, observation=observation)
    obs, _ = env.reset(seed=0)
    raw = env.batch.observe(env.seat)
    assert np.array_equal(obs, spec.observe(raw, args))
    assert np.array_equal(obs, game.encoded_observation(raw, observation))
    assert obs.shape[1] == {"scaled": 24, "fourier": 64}[observation]
    # ... the frozen network gives SB3's logits ...
    import torch

    with torch.no_grad():
        logits = model.policy.get_distribution(torch.as_tensor(obs)).distribution.logits.numpy()
    mine = frozen.logits(obs).astype(np.float64)
    mine -= np.log(np.exp(mine).sum(axis=1, keepdims=True))  # SB3 keeps the log-probabilities
    assert np.allclose(mine, logits, atol=1e-5)
    # ... and the exact score is the same through the plain observation function (no factoring).
    def greedy(raw_obs):
        out = frozen.logits(spec.observe(raw_obs, args))
        return (out[:, 1] > out[:, 0]).astype(np.float32)

    plain = zds.exact_score(greedy, 2, 4)
    assert plain["difference"] == pytest.approx(report["difference"], abs=1e-12)

    # `dice-envs evaluate zombie-dice` re-scores the saved model (encoding and score cap from model.json).
    assert cli_main(["evaluate", "zombie-dice", str(run_dir / "model.zip"), "--json"]) == 0
    rescored = json.loads(capsys.readouterr().out)
    assert rescored["details"]["difference"] == pytest.approx(report["difference"], abs=1e-12)
    assert rescored["config"] == {"goal": 2, "score_cap": 4, "stop_when_won": True}


@pytest.mark.parametrize("argv,message", [
    (["--variant", "official", "--observation", "compact"],
     "--observation compact does not go with --variant official (it needs --variant all_yellow)"),
    (["--observation", "scaled"], "--observation scaled does not go with --variant all_yellow"),
    (["--observation", "pixels"], "--observation pixels does not go with --variant all_yellow"),
    (["--variant", "full"], "--variant must be one of ['all_yellow', 'official']"),
    (["--score-cap", "60"], "--score-cap is for --variant official"),
    (["--variant", "official", "--goal", "2", "--score-cap", "3"], "--score-cap must be 0"),
    (["--variant", "official", "--opponent", "runs/ayzd/model.zip"], "saved models play AYZD"),
])
def test_variant_options_are_checked(tmp_path, capsys, argv, message):
    script = load_script()
    import dice_envs.agents.learn.jeopardy as jt

    with pytest.raises(ValueError) as err:
        jt.parse_args(script.Args, "", ["--steps", "128", *argv], script.spec_for)
    assert message in str(err.value)
    assert script.main(["--run-dir", str(tmp_path / "run"), "--steps", "128", *argv]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "run").exists()


def test_train_pig_on_the_scaled_observation_resume_and_evaluate(tmp_path, capsys):
    """Pig to 20 on the scaled observation: a rerun with a larger budget resumes (the curve so far is
    kept and continued), and ``dice-envs evaluate pig`` scores the model on its own goal and observation
    (from its model.json)."""
    script = load_script("train_pig")
    run_dir = tmp_path / "pig"
    argv = ["--run-dir", str(run_dir), "--goal", "20", "--observation", "scaled"]
    code, first = run(script, capsys, *argv, "--steps", "256", "--eval-every", "256")
    assert code == 0 and -1 < first["difference"] <= 1e-12 and [h["steps"] for h in first["history"]] == [0, 256]
    code, second = run(script, capsys, *argv, "--steps", "384", "--eval-every", "128")
    assert code == 0 and second["resumed"] and second["history"][:2] == first["history"]
    assert second["history"][2]["steps"] == 384
    assert len(list((run_dir / "checkpoint").glob("model-*.zip"))) == 1
    info = json.loads((run_dir / "model.json").read_text())
    assert info["observation"] == "scaled" and info["goal"] == 20
    assert cli_main(["evaluate", "pig", str(run_dir / "model.zip"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["details"]["difference"] == pytest.approx(second["difference"], abs=1e-12)
    assert report["config"]["goal"] == 20
    assert script.main(["--run-dir", str(tmp_path / "bad"), "--observation", "compact"]) == 2
    assert "--observation" in capsys.readouterr().err


def test_pig_model_policy_reads_its_observation_off_the_model():
    """A network trained on another goal is refused, not silently mis-scaled."""
    from sb3_contrib import MaskablePPO

    from dice_envs.agents.pig.gym import PigEnv
    from dice_envs.agents.pig.learned import ModelPolicy
    from dice_envs.games.pig.rules import PigGame

    for kind in ("full", "scaled", "fourier"):
        model = MaskablePPO("MlpPolicy", PigEnv(observation=kind, goal=30), n_steps=64, batch_size=64,
                            device="cpu")
        policy = ModelPolicy(model, PigGame(30))
        assert policy.observation_kind == kind
        assert policy(np.array([0, 5]), np.array([3, 3]), np.array([4, 1])).shape == (2,)
        with pytest.raises(ValueError, match="another goal"):
            ModelPolicy(model, PigGame(100))


@pytest.mark.parametrize("variant", ["all_yellow", "official"])
def test_maskable_ppo_on_the_aec_env(variant):
    """The PettingZoo SB3 action-mask pattern: one network plays every seat of the AEC env.
    The raw env raises on an illegal action, so a finished run shows the masks were obeyed."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    from dice_envs import zombie_dice_v0
    from dice_envs.envs.single_agent import SB3ActionMaskWrapper

    env = SB3ActionMaskWrapper(zombie_dice_v0.raw_env(variant=variant))
    obs, _ = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and env.action_mask().tolist() == [False, True]
    rewards = []
    for _ in range(400):
        legal = np.flatnonzero(env.action_mask())
        obs, reward, terminated, truncated, _ = env.step(int(legal[-1] if len(legal) == 1 else legal[_ % 2]))
        rewards.append(reward)
        if terminated or truncated:
            assert reward in (-1.0, 1.0)  # the winning or losing move is paid to its mover
            obs, _ = env.reset()
    masked = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO("MlpPolicy", masked, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256


def test_a_run_directory_in_use_is_refused(tmp_path, capsys):
    """Two runs on one directory would overwrite one checkpoint: the second is refused at once."""
    from dice_envs.agents.learn.runs import run_lock

    script = load_script()
    with run_lock(tmp_path / "run"):
        assert script.main(["--run-dir", str(tmp_path / "run"), "--steps", "64", *SMALL]) == 2
    assert "is in use by another run" in capsys.readouterr().err
    assert not (tmp_path / "run" / "checkpoint").exists()
