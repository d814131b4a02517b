"""``dice-envs train GAME --preset NAME``: the presets shipped with the package, resolved to each
trainer's options and checked against what the recorded runs used.

* every preset resolves (the learner's checks included) to options equal to the options its recorded
  runs record (``experiments/figures/*.json``'s ``args``; for the MaskablePPO runs the committed
  model's Stable-Baselines3 data and ``model.json``), for every seed it names;
* ``--print-config`` and ``--config`` give the same options back;
* a bad preset name, key or value is a ``ValueError`` naming it;
* ``dice-envs train --help`` answers without torch, and a run without it names the extra;
* one tiny run per trainer family through ``dice-envs train`` (RLlib's: ``tests/integrations/test_rllib.py``).
"""

import dataclasses
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dice_envs.agents.cli import build_parser
from dice_envs.agents.cli import main as cli_main
from dice_envs.agents.learn.presets import command_options, read_config, resolve

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("pig", "ayzd", "zombie-dice", "liars-dice")


def parsed(*argv):
    return build_parser().parse_args(["train", *argv])


def presets_of(game):
    return parsed(game).presets


ALL = [(game, name) for game in GAMES for name in presets_of(game)]

#: options that came after some recorded runs, at the value that does what those runs did
INTRODUCED_LATER = {"alpha_final": 0.0, "lr_floor": 1.0, "dice": "1", "explore_sharpness": 0.0,
                    "magnet_every": 0, "optimism": 0.0}


def test_every_game_has_the_fixed_preset_names():
    """The names the documentation cites."""
    assert list(presets_of("pig")) == ["maskable-ppo"]
    assert list(presets_of("ayzd")) == ["maskable-ppo", "rllib-ppo"]
    assert list(presets_of("zombie-dice")) == ["maskable-ppo"]
    assert set(presets_of("liars-dice")) == {
        "escher-1v1", "escher-1v1-highest", "escher-1v1-aces", "escher-1v2-aces", "escher-2v1-aces", "escher-2v2-aces",
        "pbs-1v1-highest",
        "mmd-full-width", "mmd-full-width-highest", "mccfr", "mccfr-highest", "mmd", "mmd-highest", "ppo",
        "ppo-highest", "iig-ppo-ld2d5f", "iig-ppo-ld1d6f", "iig-ppo-ld1d6f-nowild", "iig-ppo-1v2-aces", "iig-ppo-2v1-aces",
        "iig-mmd-ld2d5f", "iig-mmd-ld1d6f",
        "rllib-ppo"}


#: the Liar's Dice rows that ESCHER's one configuration (the learner's defaults) meets, and what such a row's
#: preset may set: its game, its budget and how often it is scored
ESCHER_ROWS = ("escher-1v1", "escher-1v1-highest", "escher-1v2-aces", "escher-2v1-aces")
ROW_KEYS = {"dice", "wild", "faces", "minutes", "steps", "eval_every"}


def test_escher_runs_one_configuration_on_every_row_but_two_dice_each():
    """Each row's preset sets its game and budget alone, so the rows' options differ only there, and its
    records (checked above) were made with the learner's defaults."""
    from dice_envs.agents.learn.presets import META_KEYS

    presets = presets_of("liars-dice")
    for name in ESCHER_ROWS:
        assert presets[name]["learner"] == "escher"
        assert set(presets[name]) - set(META_KEYS) <= ROW_KEYS, (name, set(presets[name]) - set(META_KEYS) - ROW_KEYS)
    learned = [{key: value for key, value in dataclasses.asdict(command_options(parsed("liars-dice", "--preset",
                                                                                       name))[1]).items()
                if key not in ROW_KEYS | {"run_dir"}} for name in ESCHER_ROWS]
    assert all(options == learned[0] for options in learned)


def recorded_args(learner, data: dict) -> dict:
    """A recorded run's options, as this version names them."""
    from dice_envs.agents.liars_dice import full_width, play_training

    saved = dict(data["args"])
    if learner.name == "pbs":  # (its own options, recorded as they are named)
        return saved
    if learner.name == "mmd-full-width":  # format 2 recorded lr_floor as the final rate itself, wild as a bool
        saved["lr_floor"] = saved["lr_floor"] / saved["learning_rate"]
        saved["wild"] = "highest" if saved["wild"] else "none"
        return saved
    assert learner.options is play_training.Args and full_width is not None
    return play_training.legacy_args(saved)


@pytest.mark.parametrize("game,name", ALL)
def test_every_preset_reproduces_its_recorded_runs(game, name):
    args = parsed(game, "--preset", name)
    learner, options, label = command_options(args)
    entry = args.presets[name]
    assert label == name and entry["seeds"] and entry["result"]
    assert options.minutes == entry["minutes"]
    recorded = [ROOT / path for path in entry["recorded"]]
    assert all(path.is_file() for path in recorded), recorded
    if learner.name == "rllib-ppo":  # its one run is described in the documentation, not recorded as data
        assert recorded == []
        return
    assert recorded
    for path in recorded:
        if path.suffix == ".zip":
            check_sb3_model(options, path, entry)
        elif learner.name == "maskable-ppo":
            report = json.loads(path.read_text())
            assert report["opponent"] == options.opponent == "selfplay"
            assert options.minutes <= report["minutes"] < options.minutes + 5  # (its final evaluation after)
        else:
            data = json.loads(path.read_text())
            saved = recorded_args(learner, data)
            assert saved["seed"] in entry["seeds"]
            for field in learner.option_fields():
                if field in ("run_dir", "plot", "quiet", "threads", "eval_every", "score_current", "seed"):
                    continue  # (they do not change what is trained: a resume may change them)
                mine = getattr(options, field)
                theirs = saved.get(field, INTRODUCED_LATER.get(field, "not recorded"))
                assert mine == pytest.approx(theirs) if isinstance(mine, float) else mine == theirs, \
                    f"{name}: {field} {mine!r}, recorded {theirs!r} ({path.name})"
            if "method" in saved:
                assert saved["method"] == options.method
            if options.steps:  # a budget of agent steps (the field's protocol): the run played them
                assert options.steps <= data["steps"] < options.steps + 100_000
            else:
                assert data["minutes"] == pytest.approx(options.minutes, abs=1.0)


def check_sb3_model(options, path: Path, entry: dict) -> None:
    """The committed model's Stable-Baselines3 data, and its model.json where there is one."""
    data = json.loads(zipfile.ZipFile(path).read("data"))
    sb3_names = {"minibatch": "batch_size", "epochs": "n_epochs", "entropy": "ent_coef"}  # SB3's names
    for field in ("n_steps", "minibatch", "epochs", "gamma", "gae_lambda", "entropy", "n_envs"):
        assert data[sb3_names.get(field, field)] == getattr(options, field), (path.name, field)
    # the rate decays linearly to lr_floor x its start: the saved model holds the last chunk's
    assert options.learning_rate * options.lr_floor <= data["learning_rate"] <= options.learning_rate
    net = data["policy_kwargs"]["net_arch"]
    assert ",".join(map(str, net["pi"])) == options.net_pi and ",".join(map(str, net["vf"])) == options.net_vf
    assert "ReLU" in data["policy_kwargs"]["activation_fn"] and options.activation == "relu"
    if data.get("seed") is not None:
        assert data["seed"] in entry["seeds"]
    described = path.with_suffix(".json")
    if described.is_file():
        info = json.loads(described.read_text())
        assert info["observation"] == options.observation and info["goal"] == options.goal
        assert info["net_arch"] == {"pi": net["pi"], "vf": net["vf"]}


@pytest.mark.parametrize("game,name", [("pig", "maskable-ppo"), ("zombie-dice", "maskable-ppo"),
                                       ("liars-dice", "escher-2v2-aces"), ("liars-dice", "mmd-full-width-highest"),
                                       ("liars-dice", "mccfr"), ("ayzd", "rllib-ppo")])
def test_print_config_and_config_round_trip(game, name, tmp_path, capsys):
    assert cli_main(["train", game, "--preset", name, "--seed", "1", "--print-config"]) == 0
    text = capsys.readouterr().out
    config = tmp_path / "mine.toml"
    config.write_text(text)
    assert read_config(config)["seed"] == 1
    assert cli_main(["train", game, "--config", str(config), "--print-config"]) == 0
    assert capsys.readouterr().out == text
    first = command_options(parsed(game, "--preset", name, "--seed", "1"))[1]
    again = command_options(parsed(game, "--config", str(config)))[1]
    assert dataclasses.asdict(first) == dataclasses.asdict(again)


def test_overrides_change_only_what_they_name():
    _, options, _ = command_options(parsed("liars-dice", "--preset", "escher-1v2-aces", "--seed", "1",
                                           "--minutes", "5", "--games", "512"))
    _, preset, _ = command_options(parsed("liars-dice", "--preset", "escher-1v2-aces"))
    assert (options.seed, options.minutes, options.games) == (1, 5.0, 512)
    changed = {k for k, v in dataclasses.asdict(options).items() if dataclasses.asdict(preset)[k] != v}
    assert changed == {"seed", "minutes", "games", "run_dir"}
    assert options.run_dir == "runs/liars-dice/escher-1v2-aces-seed1"


def test_a_named_game_sets_the_rules_options_from_the_command_line_or_a_preset(tmp_path):
    """``--game NAME`` replaces the preset's game; a preset's or config's ``game`` key sets it; either,
    given with a rules option that disagrees, is refused, as is a game the learner cannot play."""
    from dice_envs.agents.liars_dice.cli import named_game_options
    from dice_envs.agents.liars_dice.play_training import LEARNERS

    _, options, _ = command_options(parsed("liars-dice", "--preset", "ppo", "--game", "LD2D5F"))
    _, preset, _ = command_options(parsed("liars-dice", "--preset", "ppo"))
    assert (options.dice, options.faces, options.wild) == ("2", 5, "highest")
    changed = {k for k, v in dataclasses.asdict(options).items() if dataclasses.asdict(preset)[k] != v}
    assert changed == {"dice", "faces", "wild"}
    _, options, _ = command_options(parsed("liars-dice", "--preset", "escher-1v1", "--game", "LD1v2D6F-aces",
                                           "--dice", "1,2"))
    assert (options.dice, options.wild) == ("1,2", "aces")
    with pytest.raises(ValueError, match="--game LD2D5F: game LD2D5F has faces = 5; faces = 6 conflicts"):
        command_options(parsed("liars-dice", "--preset", "ppo", "--game", "LD2D5F", "--faces", "6"))
    with pytest.raises(ValueError, match="this learner plays one die each"):
        command_options(parsed("liars-dice", "--preset", "mmd-full-width", "--game", "LD2D5F"))
    with pytest.raises(ValueError, match="the named games: LD2D5F"):
        command_options(parsed("liars-dice", "--preset", "ppo", "--game", "LD9"))
    config = tmp_path / "iig-ppo-ld2d5f.toml"
    config.write_text('learner = "ppo"\ngame = "LD2D5F"\nsteps = 1000\n')
    _, options, _ = command_options(parsed("liars-dice", "--config", str(config)))
    assert (options.dice, options.faces, options.wild, options.steps) == ("2", 5, "highest", 1000)
    config.write_text('learner = "ppo"\ngame = "LD2D5F"\nwild = "aces"\n')
    with pytest.raises(ValueError, match="wild = 'aces' conflicts"):
        command_options(parsed("liars-dice", "--config", str(config)))
    assert resolve(LEARNERS, {"learner": "ppo", "game": "ld2d5f", "dice": "2,2"}, "mine",
                   games=named_game_options)[1].faces == 5  # the same dice spelled otherwise agree
    with pytest.raises(ValueError, match="mine: this game has no named games"):
        resolve(LEARNERS, {"learner": "ppo", "game": "LD2D5F"}, "mine")


def test_one_name_per_knob_across_learners_and_the_old_names_still_work(tmp_path):
    """MaskablePPO called the entropy bonus, the passes and the minibatch ``ent_coef``, ``n_epochs`` and
    ``batch_size`` (SB3's names), RLlib and the Liar's Dice learners ``entropy``, ``epochs`` and
    ``minibatch``: now every learner uses the latter, and the old names still work, with a warning."""
    from dice_envs.agents.learn.runs import RENAMED_OPTIONS

    for game in GAMES:
        for learner in parsed(game).learners.values():
            assert not set(RENAMED_OPTIONS) & set(learner.option_fields()), (game, learner.name)
    ayzd = parsed("ayzd").learners
    assert {"entropy", "epochs", "minibatch"} <= set(ayzd["maskable-ppo"].option_fields()) & set(
        ayzd["rllib-ppo"].option_fields())
    with pytest.warns(DeprecationWarning, match="--n-epochs is deprecated.*use --epochs"):
        _, options, _ = command_options(parsed("ayzd", "--n-epochs", "2", "--ent-coef", "0.01", "--batch-size", "128"))
    assert (options.epochs, options.entropy, options.minibatch) == (2, 0.01, 128)
    config = tmp_path / "old.toml"
    config.write_text('learner = "maskable-ppo"\nminutes = 1.0\nn_epochs = 3\n')
    with pytest.warns(DeprecationWarning, match="'n_epochs' is deprecated.*write 'epochs'"):
        _, options, _ = command_options(parsed("ayzd", "--config", str(config)))
    assert options.epochs == 3
    config.write_text('learner = "maskable-ppo"\nminutes = 1.0\nn_epochs = 3\nepochs = 2\n')
    with pytest.raises(ValueError, match="'n_epochs' and 'epochs' are one option"):
        command_options(parsed("ayzd", "--config", str(config)))


def test_the_default_preset_is_the_files_first():
    learner, options, label = command_options(parsed("pig"))
    assert (learner.name, label, options.gae_lambda, options.observation) == ("maskable-ppo", "maskable-ppo", 0.9,
                                                                             "fourier")


def test_a_bad_preset_key_or_value_is_a_value_error_naming_it(tmp_path, capsys):
    from dice_envs.agents.liars_dice.play_training import LEARNERS

    with pytest.raises(ValueError, match="'nope' is not a preset of liars-dice"):
        command_options(parsed("liars-dice", "--preset", "nope"))
    with pytest.raises(ValueError, match="'gamez' is not an option of the escher learner"):
        resolve(LEARNERS, {"learner": "escher", "gamez": 4096}, "mine")
    with pytest.raises(ValueError, match="mine: games must be an integer, got 'many'"):
        resolve(LEARNERS, {"learner": "escher", "games": "many"}, "mine")
    with pytest.raises(ValueError, match="mine: merge_rows must be true or false"):
        resolve(LEARNERS, {"learner": "escher", "merge_rows": 1}, "mine")
    with pytest.raises(ValueError, match="learner 'nfsp' is not one of this game's"):
        resolve(LEARNERS, {"learner": "nfsp"}, "mine")
    with pytest.raises(ValueError, match="'eta' is not an option of the escher learner"):  # another learner's
        resolve(LEARNERS, {"learner": "escher", "eta": 0.1}, "mine")
    with pytest.raises(ValueError, match="--games must be at least 1"):  # the learner's own checks
        resolve(LEARNERS, {"learner": "escher", "games": 0}, "mine")
    with pytest.raises(ValueError, match="--eta is not an option of the escher learner"):
        command_options(parsed("liars-dice", "--preset", "escher-1v1", "--eta", "0.3"))
    bad = tmp_path / "bad.toml"
    bad.write_text('learner = "mmd"\nclip = 0.1\n')
    assert cli_main(["train", "liars-dice", "--config", str(bad), "--print-config"]) == 2
    assert "'clip' is not an option of the mmd learner" in capsys.readouterr().err
    bad.write_text("learner = [\n")
    with pytest.raises(ValueError, match=f"--config {bad}"):
        read_config(bad)
    assert cli_main(["train", "pig", "--preset", "fastest", "--steps", "1"]) == 2
    assert "'fastest' is not a preset of pig" in capsys.readouterr().err


def test_a_preset_starts_from_its_base_and_a_bad_base_is_refused(tmp_path):
    from dice_envs.agents.learn.presets import load_presets

    mmd = command_options(parsed("liars-dice", "--preset", "iig-mmd-ld2d5f"))[1]
    ppo = command_options(parsed("liars-dice", "--preset", "iig-ppo-ld2d5f", "--kl", "0.025"))[1]
    assert dataclasses.replace(mmd, run_dir=ppo.run_dir) == ppo and mmd.kl == 0.025
    file = tmp_path / "presets.toml"
    file.write_text('[a]\nlearner = "escher"\nseeds = [0]\nresult = "r"\ngames = 64\nminutes = 1.0\n'
                    '[b]\nbase = "a"\ntitle = "t"\nseeds = [1]\nminutes = 2.0\n[c]\nbase = "b"\n')
    presets = load_presets(file)
    assert presets["b"] == {"learner": "escher", "games": 64, "minutes": 2.0, "seeds": [1], "title": "t"}
    assert presets["c"] == {"learner": "escher", "games": 64, "minutes": 2.0}  # (options, not seeds, result, title)
    file.write_text('[a]\nlearner = "escher"\ntitle = 3\n')
    with pytest.raises(ValueError, match="preset 'a' has title = 3; a title is a string"):
        load_presets(file)
    file.write_text('[a]\nlearner = "escher"\n[b]\nbase = "z"\n')
    with pytest.raises(ValueError, match="preset 'b' has base = 'z', which is not a preset of this file"):
        load_presets(file)
    file.write_text('[a]\nbase = "b"\n[b]\nbase = "a"\n')
    with pytest.raises(ValueError, match="presets a -> b -> a name each other as base"):
        load_presets(file)


def test_list_presets_prints_budget_seeds_and_result(capsys):
    assert cli_main(["train", "liars-dice", "--list-presets"]) == 0
    out = capsys.readouterr().out
    assert "escher-2v2-aces: escher, 7,053,684 steps, seeds 0, 1" in out and "0.0979 (seed 0)" in out
    assert "iig-mmd-ld2d5f: ppo (IIG-RL-Benchmark's MMD (PPO with a KL term)), 10,000,000 steps, seeds 0, 1" in out


BLOCKED = ("import sys\nfor name in ('torch', 'stable_baselines3', 'sb3_contrib', 'tensorboard', 'ray'):\n"
           "    sys.modules[name] = None\nfrom dice_envs.agents.cli import main\nsys.exit(main(sys.argv[1:]))\n")


def test_help_answers_without_torch_and_a_run_names_the_extra(tmp_path):
    def run(*argv):
        return subprocess.run([sys.executable, "-c", BLOCKED, *argv], capture_output=True, text=True, cwd=tmp_path)

    for argv in (["train", "--help"], ["train", "liars-dice", "--help"], ["train", "pig", "--help"]):
        done = run(*argv)
        assert done.returncode == 0 and "usage: dice-envs train" in done.stdout, done.stderr
    text = run("train", "liars-dice", "--help").stdout
    assert "escher-1v2-aces" in text and "--value-learning-rate" in text and "mmd-full-width:" in text
    done = run("train", "pig", "--steps", "64", "--run-dir", str(tmp_path / "run"))
    assert done.returncode == 2 and "pip install 'dice-envs[train]'" in done.stderr, done.stderr
    done = run("train", "ayzd", "--preset", "rllib-ppo", "--steps", "64", "--run-dir", str(tmp_path / "rl"))
    assert done.returncode == 2 and "pip install 'dice-envs[rllib]'" in done.stderr, done.stderr


# -- one tiny run per trainer family through the command -------------------------------------------


def train(capsys, *argv):
    code = cli_main(["train", *argv, "--quiet", "--no-plot"])
    lines = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(lines[-1]) if lines else None


def test_maskable_ppo_through_the_command(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    code, report = train(capsys, "pig", "--preset", "maskable-ppo", "--run-dir", str(tmp_path / "run"), "--steps",
                         "256", "--goal", "20", "--n-envs", "4", "--n-steps", "64", "--minibatch", "64",
                         "--epochs", "1", "--pool-size", "2", "--eval-every", "256", "--minutes", "0")
    assert code == 0 and report["game"] == "pig" and report["steps"] == 256
    assert -1 <= report["difference"] <= 0 and (tmp_path / "run" / "model.zip").is_file()


@pytest.mark.parametrize("preset,extra", [
    ("escher-1v1-highest", ["--hidden", "16", "--minibatch", "256", "--value-steps", "4", "--regret-steps", "4",
                            "--average-steps", "4", "--average-buffer", "20000"]),
    ("mccfr", []),  # (tables: no network options)
    ("mmd", ["--hidden", "16", "--minibatch", "256", "--average-buffer", "20000"]),
])
def test_sampled_play_through_the_command(tmp_path, capsys, monkeypatch, preset, extra):
    pytest.importorskip("torch")
    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path / "cache"))
    code, report = train(capsys, "liars-dice", "--preset", preset, "--run-dir", str(tmp_path / "run"), "--faces",
                         "3", "--games", "128", "--steps", "3000", "--eval-every", "4", "--minutes", "0", *extra)
    assert code == 0 and report["method"] == preset.split("-")[0] and report["steps"] >= 3000
    assert 0 < report["exploitability"] < 1 and report["args"]["faces"] == 3


def test_full_width_through_the_command(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path / "cache"))
    code, report = train(capsys, "liars-dice", "--preset", "mmd-full-width-highest", "--run-dir",
                         str(tmp_path / "run"), "--faces", "3", "--steps", "3", "--eval-every", "3", "--minutes", "0",
                         "--hidden", "16", "--lookahead", "5", "--inner-steps", "5")
    assert code == 0 and report["steps"] == 3 and report["args"]["wild"] == "highest"
    assert report["args"]["lr_floor"] == 0.1 and 0 < report["exploitability"] < 1


def test_more_env_runners_than_cpus_are_refused_on_a_local_ray(capsys, monkeypatch):
    """Ray would wait forever for CPUs the machine does not have; a cluster (``--address``) may have them."""
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert cli_main(["train", "ayzd", "--preset", "rllib-ppo", "--env-runners", "3"]) == 2
    assert "--env-runners 3 asks the local Ray instance for one CPU per env runner; this machine has 2" in \
        capsys.readouterr().err
    _, options, _ = command_options(parsed("ayzd", "--preset", "rllib-ppo", "--env-runners", "3", "--address", "auto"))
    assert options.env_runners == 3
