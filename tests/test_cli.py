"""The dice-envs command line: JSON output and the terminal game."""

import json
import subprocess
import sys

import pytest

from dice_envs.cli import main


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
