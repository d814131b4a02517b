"""Ray RLlib: the multi-agent env adapter, and one training iteration of self-play PPO sampled by an
env runner in a process of its own on a local Ray instance, scored exactly and re-scored from its
checkpoint.

Skipped, with the reason, only where Ray RLlib is not installed (``./run test`` installs the
``[rllib]`` extra)."""

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'dice-envs[rllib]')")

from dice_envs.rllib import DiceMultiAgentEnv, ppo_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_env_adapter_plays_whole_games_with_masks():
    env = DiceMultiAgentEnv({"game": "liars_dice_v1", "faces": 3, "wild": True})
    rng = np.random.default_rng(0)
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        totals = {}
        while True:
            (agent, o), = obs.items()
            assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
            assert env.observation_spaces[agent].contains(o)
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, rewards, terminateds, _, _ = env.step({agent: action})
            for a, r in rewards.items():
                totals[a] = totals.get(a, 0.0) + r
            if terminateds["__all__"]:
                break
        assert sorted(totals.values()) == [-1.0, 1.0]  # zero-sum, paid to both seats


def test_rllib_s_start_makes_no_illegal_move(capsys, caplog):
    """Issue 56, item 11: RLlib's env check steps each of a runner's envs (16 each) with an action
    sampled from the whole action space, often illegal (1 opening move of Liar's Dice in 13 is the
    call), so RLlib's start printed PettingZoo's "Illegal move made, game terminating" a few
    times.  The config turns that check off (RLlib's ``disable_env_checking``) and checks the env
    itself with a legal move, quietly."""
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from dice_envs.rllib import check_environment

    env = DiceMultiAgentEnv({"game": "zombie_dice_v0"})  # a turn starts with a roll: holding is illegal
    for _ in range(20):  # RLlib's own check, as each of a runner's envs gets it: illegal half the time
        check_multiagent_environments(env)
    assert "Illegal move made" in capsys.readouterr().err + caplog.text
    caplog.clear()
    config = ppo_config("liars_dice_v1", {"faces": 3}, num_env_runners=0)
    check_environment(DiceMultiAgentEnv({"game": "zombie_dice_v0", "variant": "all_yellow", "observation": "compact"}))
    assert config.disable_env_checking
    assert "Illegal move" not in capsys.readouterr().err + caplog.text


def test_compact_observation_is_the_gym_env_s():
    from dice_envs.games.zombie_dice.rules import compact_from_state

    env = DiceMultiAgentEnv({"game": "zombie_dice_v0", "variant": "all_yellow", "observation": "compact"})
    obs, _ = env.reset(seed=3)
    for _ in range(30):
        (agent, o), = obs.items()
        raw = env.env.unwrapped
        assert np.array_equal(o["observations"], compact_from_state(raw.game_state, raw.possible_agents.index(agent)))
        obs, _, terminateds, _, _ = env.step({agent: int(np.flatnonzero(o["action_mask"])[-1])})
        if terminateds["__all__"]:
            obs, _ = env.reset()


def test_bad_configurations():
    with pytest.raises(ValueError, match="env_config\\['game'\\]"):
        DiceMultiAgentEnv({"game": "chess"})
    with pytest.raises(ValueError, match="compact"):
        DiceMultiAgentEnv({"game": "liars_dice_v1", "observation": "compact"})
    with pytest.raises(ValueError, match="faces"):
        ppo_config("liars_dice_v1", {"faces": 9})


def test_one_iteration_with_a_remote_env_runner_scored_exactly(tmp_path, capsys):
    """One env runner: the env is built and played in a Ray actor and its samples reach the learner
    (each further runner is one more process to start, the same code of ours)."""
    from dice_envs.agents.cli import main as cli_main

    spec = importlib.util.spec_from_file_location("train_rllib", ROOT / "experiments" / "train_rllib.py")
    script = importlib.util.module_from_spec(spec)
    sys.modules["train_rllib"] = script
    spec.loader.exec_module(script)
    run_dir = tmp_path / "run"
    argv = ["--faces", "3", "--steps", "400", "--batch", "400", "--minibatch", "200", "--epochs", "1",
            "--eval-every", "1", "--env-runners", "1", "--run-dir", str(run_dir), "--quiet"]
    assert script.main(argv) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["iterations"] == 1 and report["steps"] >= 400
    assert 0 < report["exploitability"] < 1 and report["curve"][0]["exploitability"] == report["exploitability"]
    # The checkpoint re-scores to the same exact figures through `dice-envs evaluate`.
    assert cli_main(["evaluate", "liars-dice", str(run_dir / "checkpoint"), "--faces", "3", "--wild", "--json"]) == 0
    rescored = json.loads(capsys.readouterr().out)
    assert rescored["agent_type"] == "rllib"
    assert rescored["exploitability"] == pytest.approx(report["exploitability"], abs=1e-6)
    # Its recorded game (checkpoint/dice_envs.json) is used, and another game is refused, naming both.
    assert json.loads((run_dir / "checkpoint" / "dice_envs.json").read_text()) == {
        "game": "liars-dice", "config": {"faces": 3, "wild": "highest"}}
    assert cli_main(["evaluate", "liars-dice", str(run_dir / "checkpoint"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exploitability"] == pytest.approx(report["exploitability"], abs=1e-6)
    checkpoint = str(run_dir / "checkpoint")
    for argv_, message in ((["liars-dice", checkpoint, "--faces", "4"], "--faces 4 does not match the game"),
                           (["ayzd", checkpoint], "trained on 'liars-dice', not on 'ayzd'")):
        with pytest.raises(SystemExit):
            cli_main(["evaluate", *argv_])
        assert message in capsys.readouterr().err
    assert script.main(argv[:-1] + ["--minibatch", "800", "--quiet"]) == 2
    assert "--minibatch" in capsys.readouterr().err
    # Issue 23's attacks on resume, refused before Ray starts: other options, a part deleted.
    for option, value in (("--learning-rate", "0.001"), ("--seed", "7")):
        assert script.main(argv + [option, value]) == 2
        assert f"{option} " in (err := capsys.readouterr().err) and "differs from the checkpoint's" in err
    (run_dir / "checkpoint" / "learner_group").rename(run_dir / "checkpoint" / "moved")
    assert script.main(argv) == 2
    assert "has no learner_group" in capsys.readouterr().err
