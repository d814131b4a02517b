"""The dice-envs command line: JSON output and the terminal game."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import dice_envs
from dice_envs.agents.cli import main


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_solve_ayzd_json(capsys, tmp_path):
    plot = tmp_path / "policy.png"
    report = run_json(capsys, "solve", "ayzd", "--json", "--plot", str(plot))
    assert set(report["policies"]) == {"fixed_hold_at", "minh", "llano", "neller"}
    for row in report["policies"].values():
        assert row["difference"] == pytest.approx(2 * ((row["win_as_first"] + row["win_as_second"]) / 2 - 0.5))
        assert row["difference"] == pytest.approx(row["published_difference"], abs=5e-4)
    assert 0.46 < report["first_player_win"] < 0.48 and report["seconds"] > 0
    assert plot.stat().st_size > 10_000


def test_solve_ayzd_table(capsys):
    assert main(["solve", "ayzd", "--goal", "6"]) == 0
    out = capsys.readouterr().out
    assert "fixed_hold_at" in out and "goal 6" in out


def test_the_tables_read_whole_at_80_columns(monkeypatch, capsys):
    """Issue 56, item 6: in 80 columns rich cut the policy table's names to ``roll_un…`` (twice, the
    same) and its headers.  Every name and figure is printed whole, and nothing is cut short."""
    from dice_envs.agents.zombie_dice.cli import print_zombie_dice_table

    monkeypatch.setenv("COLUMNS", "80")
    names = ("roll_until_1_shotgun", "roll_until_2_shotguns", "max_expected_brains", "random")
    row = dict(win_as_first=0.4512, win_as_second=0.5226, difference=-0.0274, difference_stop_when_won=-0.0274,
               difference_official_ending=-0.0275, all_yellow_difference=0.0012)
    print_zombie_dice_table(dict(
        goal=13, cached=True, seconds=1.5, states=123_456, dice_states=789, score_cap=52, first_player_win=0.5321,
        stop_when_won=True, policies={name: row for name in names},
        best_human_policy={"stop_when_won": "minh", "official_ending": "neller"}, turn={}, cap_check=None))
    out = capsys.readouterr().out
    assert "…" not in out and max(len(line) for line in out.splitlines()) <= 80
    for name in names:
        assert f" {name} " in out
    assert out.count("0.4512") == len(names) and out.count("+0.0012") == len(names)
    assert main(["dice", "tatham"]) == 0  # a first column of sentences wraps instead, and no column is cut off
    out = capsys.readouterr().out
    assert "…" not in out and max(len(line) for line in out.splitlines()) <= 80
    assert "25% more likely than 6" in out and out.count(" exact") >= 10


def test_bad_argument_is_a_clean_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["solve", "ayzd", "--goal", "0"])
    assert exc.value.code == 2
    assert "goal must be a positive integer" in capsys.readouterr().err


def test_play_zombie_dice_to_the_end(monkeypatch, capsys):
    answers = iter(["", "x"] + ["h", "r"] * 500)  # Enter to roll, a bad answer, then alternate
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", "zombie-dice", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "please answer one of" in out
    assert "you win!" in out or "the computer wins." in out


def test_module_entry_point():
    result = subprocess.run([sys.executable, "-m", "dice_envs", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "solve" in result.stdout


def test_every_option_has_help_text():
    """``--help`` documents every option of every command."""
    import argparse

    from dice_envs.agents.cli import build_parser

    missing = []

    def visit(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    visit(sub, path + [name])
            elif action.option_strings and not action.help and action.dest != "help":
                missing.append(" ".join(path + [action.option_strings[-1]]))

    visit(build_parser(), ["dice-envs"])
    assert not missing, missing


def test_written_files_are_readable_by_others(tmp_path):
    """Results are written atomically but with the usual permissions, not mkstemp's 0600."""
    import os
    import stat

    from dice_envs.agents.cli import main

    old = os.umask(0o022)
    try:
        assert main(["export-efg", "liars-dice", "--faces", "2", "-o", str(tmp_path / "g.efg")]) == 0
        assert main(["solve", "pig", "--goal", "10", "--plot", str(tmp_path / "pig.png")]) == 0
    finally:
        os.umask(old)
    for name in ("g.efg", "pig.png"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o644, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.efg", "pig.png"]  # no temporary files


def test_plot_without_matplotlib_is_refused_before_the_solve(monkeypatch, capsys):
    import dice_envs.envs.rendering
    from dice_envs.agents.cli import main
    from dice_envs.core.extras import DependencyNotInstalled

    def missing():
        raise DependencyNotInstalled("no matplotlib")

    monkeypatch.setattr(dice_envs.envs.rendering, "check_available", missing)
    with pytest.raises(SystemExit) as exit_:
        main(["solve", "pig", "--plot", "x.png"])
    assert exit_.value.code == 2 and "dice-envs[plot]" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["solve", "pig", "--goal", "20"], ["solve", "shakes", "--players", "2"], ["dice", "tatham"],
    ["solve", "closest-number", "--players", "2", "--numbers", "5"], ["solve", "liars-dice", "--faces", "2"],
    ["evaluate", "pig", "hold_at_5", "--goal", "10"],
])
def test_json_outputs_share_one_schema(argv, capsys, tmp_path):
    from dice_envs.agents.cli import main
    from dice_envs.agents.console import JSON_SCHEMA

    if argv[:2] == ["solve", "liars-dice"]:
        argv = argv + ["--cache-dir", str(tmp_path)]
    assert main(argv + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["schema"] == JSON_SCHEMA and isinstance(report["game"], str)

    def keys(obj):
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield k
                yield from keys(v)
        elif isinstance(obj, list):
            for v in obj:
                yield from keys(v)

    assert not {"players", "analysis"} & set(keys(report))


@pytest.mark.parametrize("spelling, game", [
    ("liars_dice_v0", "liars-dice"), ("dice_envs/liars_dice-v0", "liars-dice"), ("LiarsDice-v0", "liars-dice"),
    ("dice_envs/LiarsDiceMatch-v0", "liars-dice-match"), ("dice_envs_closest_number", "closest-number"),
    ("ZombieDice-v0", "zombie-dice"), ("dice_envs_pig", "pig"), ("ayzd", "ayzd"), ("pig", "pig"),
])
def test_every_spelling_of_a_game_names_it_on_the_command_line(spelling, game):
    """Issue 26, item 6: each game had four spellings (PettingZoo's, Gymnasium's, the CLI's,
    OpenSpiel's); the command line takes all of them."""
    from dice_envs.agents.cli import build_parser, canonical_game, game_names_in

    parser = build_parser()
    assert game_names_in(["--max-memory", "2G", "evaluate", spelling, "x"], parser)[3] == game
    assert parser.parse_args(game_names_in(["solve", spelling], parser)).game == game
    assert canonical_game("not_a_game") == "not-a-game"  # unknown names are left for argparse to refuse
    assert game_names_in(["solve", "not_a_game"], parser)[1] == "not_a_game"


@pytest.mark.parametrize("name", sorted(n for n in dice_envs.single_agent_environments if n.endswith("-v0")))
def test_one_gymnasium_id_per_game_and_the_old_second_id_warns(name):
    """Gymnasium knows a game's single-agent version by its CamelCase id; PettingZoo's id, which
    dice_envs 0.1 (every id a v0) also registered with Gymnasium, still makes the same environment,
    with a warning that names the one id.  Later versions have only the CamelCase id."""
    import gymnasium
    import pettingzoo

    old, new = dice_envs.game_id(name), "dice_envs/" + name
    assert old in pettingzoo.aec_registry
    later = [n for n in dice_envs.single_agent_environments if not n.endswith("-v0")]
    assert later and not any(dice_envs.game_id(n) in gymnasium.registry for n in later)
    quick = {} if name == "Shakes-v0" else {"opponent": "random"}  # no equilibrium to solve
    with pytest.warns(DeprecationWarning, match=f"use {new}"):
        env = gymnasium.make(old, **quick)
    assert type(env.unwrapped) is type(gymnasium.make(new, **quick).unwrapped)
    env.close()


@pytest.mark.parametrize("game, model", [("pig", "pig_batched_selfplay_fourier_seed0.zip"),
                                         ("liars-dice", "liars_dice_play_ppo_wild.pt")])
def test_evaluate_without_torch_is_one_line_naming_the_extra(game, model, monkeypatch, capsys):
    for module in ("torch", "stable_baselines3", "sb3_contrib"):
        monkeypatch.setitem(sys.modules, module, None)  # as if the [train] extra were not installed
    models = Path(__file__).resolve().parents[2] / "experiments" / "models"
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", game, str(models / model)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs torch: pip install 'dice-envs[train]'" in err, err
    with pytest.raises(SystemExit):  # a file that is not there is said so first, whatever is installed
        main(["evaluate", game, str(models / ("missing" + Path(model).suffix))])
    assert "does not exist" in capsys.readouterr().err


def test_export_efg_names_each_game_apart_and_overwrites_only_when_asked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["export-efg", "liars-dice", "--faces", "2"]) == 0
    assert main(["export-efg", "liars-dice", "--faces", "2", "--dice", "1", "2", "--wild", "aces"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["liars_dice_1v1_2.efg", "liars_dice_1v2_2_aces.efg"]
    with pytest.raises(SystemExit) as exit_:
        main(["export-efg", "liars-dice", "--faces", "2"])
    assert exit_.value.code == 2 and "exists: pass --force" in capsys.readouterr().err
    assert main(["export-efg", "liars-dice", "--faces", "2", "--force"]) == 0


def test_the_spinner_is_erased_before_the_result_and_warnings_print_above_it(monkeypatch):
    """On a terminal the spinner stops (and, being transient, is erased) at the command's first
    output, so the result is not drawn under it; a warning while it runs goes through its console."""
    import argparse
    import io

    import dice_envs.agents.cli as cli

    class Stderr(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stderr", Stderr())
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    with cli._working(argparse.Namespace(verb="solve", game="pig")):
        progress = cli._SPINNER[0]
        cli.show_warning("long", UserWarning, "f.py", 1)
        assert progress.live.is_started
        print("the result")
        assert not progress.live.is_started and not cli._SPINNER
    assert out.getvalue() == "the result\n"
