"""docs/leaderboard.md is what experiments/leaderboard.py makes of the records: the presets' recorded runs, the
row files of experiments/leaderboard/ and the solves' baselines; bad rows are refused with an error naming
them, and a preset on a named game shows up by itself."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from dice_envs.games.liars_dice.named import NAMED_GAMES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def leaderboard():
    spec = importlib.util.spec_from_file_location("leaderboard", ROOT / "experiments" / "leaderboard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_page_is_what_the_records_give(leaderboard):
    assert (ROOT / "docs" / "leaderboard.md").read_text(encoding="utf-8") == leaderboard.build()


def test_every_preset_with_records_is_a_row_with_its_recorded_values(leaderboard):
    rows = {row["learner"]: row for row in leaderboard.preset_rows()}
    escher = rows["`escher` (preset `escher-2v2-aces`)"]
    assert escher["game"] == "LD2D6F-aces" and escher["budget"] == "7,053,684 steps" and escher["seeds"] == [0, 1]
    record = json.loads((ROOT / "experiments/figures/liars_dice_play_escher_2v2_aces_7054ksteps_seed0.json").read_text())
    assert escher["exploitability"][0] == record["exploitability"]
    assert "`rllib-ppo` (preset `rllib-ppo`)" not in rows  # no recorded run
    assert "IIG-RL-Benchmark's MMD (PPO with a KL term), `ppo` (preset `iig-mmd-ld2d5f`)" in rows  # its title
    assert {row["game"] for row in rows.values()} <= set(NAMED_GAMES)


def test_the_baselines_are_the_recorded_uniform_play_and_cfr_plus(leaderboard):
    base = leaderboard.baselines()
    assert set(base) == set(NAMED_GAMES)
    for name, b in base.items():
        assert 0 < b["cfr_plus"] <= b["cfr_plus_target"] < b["uniform"] < 1, name
    page = leaderboard.build()
    assert f"| uniform play | - | - | {leaderboard._number(base['LD2D5F']['uniform'])} |" in page


def _write_row(folder: Path, name: str, text: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.toml").write_text(text)


GOOD = ('learner = "NFSP (OpenSpiel)"\ngame = "LD1D6F"\nbudget = "1,000,000 steps"\nseeds = [0, 1]\n'
        'exploitability = [0.25, 0.5]\ncommand = "dice-envs evaluate liars-dice nfsp.pt --game LD1D6F --json"\n'
        'link = "https://example.org/nfsp"\n')


def test_a_row_file_becomes_a_row_of_its_game(leaderboard, tmp_path):
    _write_row(tmp_path, "nfsp", GOOD)
    page = leaderboard.build(rows=tmp_path)
    section = page.split("\n## LD1D6F\n")[1].split("\n## ")[0]
    assert ("| [NFSP (OpenSpiel)](https://example.org/nfsp) | 1,000,000 steps | 0.25 (seed 0), 0.5 (seed 1) | 0.375 | "
            "`dice-envs evaluate liars-dice nfsp.pt --game LD1D6F --json` |") in section


@pytest.mark.parametrize("change, error", [
    (('game = "LD1D6F"', 'game = "LD7D6F"'), "nfsp.toml: 'LD7D6F' is not a named Liar's Dice game; the named games: LD2D5F"),
    (("seeds = [0, 1]", "seeds = [0, 1, 2]"), "nfsp.toml: exploitability must give one value per seed \\(3\\)"),
    (("exploitability = [0.25, 0.5]", "exploitability = [0.25, 0.99]"),
     r"nfsp.toml: seed 1: exploitability 0.99 is outside \[0, 0\.\d+\] \(uniform play's exploitability in LD1D6F\)"),
    (("exploitability = [0.25, 0.5]", "exploitability = [-0.1, 0.5]"), "seed 0: exploitability -0.1 is outside"),
    (('budget = "1,000,000 steps"\n', ""), "nfsp.toml: missing budget"),
    (("seeds = [0, 1]", "seeds = []"), "seeds must be a non-empty list"),
    (('link = "https://example.org/nfsp"', 'url = "x"'), "nfsp.toml: unknown url"),
])
def test_a_bad_row_file_is_refused_naming_the_file_and_the_problem(leaderboard, tmp_path, change, error):
    _write_row(tmp_path, "nfsp", GOOD.replace(*change))
    with pytest.raises(ValueError, match=error):
        leaderboard.build(rows=tmp_path)
    assert leaderboard.main(["--rows", str(tmp_path), "--check"]) == 2


def test_a_preset_of_a_named_game_shows_up_without_code_changes(leaderboard, tmp_path):
    """A preset named like the field's recipe (learner ppo, ``game = "LD2D5F"``, a step budget) with its
    runs' records is a row of LD2D5F; a ``game`` key that its records contradict is refused."""
    records = []
    for seed, value in ((0, 0.125), (1, 0.25)):
        path = tmp_path / f"iig_ppo_seed{seed}.json"
        path.write_text(json.dumps({"game": NAMED_GAMES["LD2D5F"].game().config(), "exploitability": value,
                                    "args": {"seed": seed}}))
        records.append(str(path))
    presets = tmp_path / "presets.toml"
    presets.write_text(f'[iig-ppo-ld2d5f]\nlearner = "ppo"\ngame = "LD2D5F"\nseeds = [0, 1]\nsteps = 10000000\n'
                       f'recorded = {json.dumps(records)}\n')
    page = leaderboard.build(presets_file=presets, root=tmp_path)
    section = page.split("\n## LD2D5F\n")[1].split("\n## ")[0]
    assert ("| `ppo` (preset `iig-ppo-ld2d5f`) | 10,000,000 steps | 0.125 (seed 0), 0.25 (seed 1) | 0.1875 | "
            "`dice-envs train liars-dice --preset iig-ppo-ld2d5f --seed 0` |") in section
    presets.write_text(presets.read_text().replace('game = "LD2D5F"', 'game = "LD1D6F"'))
    with pytest.raises(ValueError, match=r"game = 'LD1D6F', but its records were played on LD2D5F"):
        leaderboard.build(presets_file=presets, root=tmp_path)


def test_a_row_file_may_read_its_values_from_its_runs_records(leaderboard, tmp_path):
    """OpenSpiel's learners, run by experiments/benchmark_liars_dice_learners.py, are rows whose values come
    from their records (``records``), which may end worse than uniform play; a record of another game, or
    values given beside records, are refused."""
    deep_cfr = json.loads((ROOT / "experiments/figures/liars_dice_openspiel_deep_cfr_6faces_wild_30min_seed0.json")
                          .read_text())
    row = next(r for r in leaderboard.file_rows() if r["learner"] == "Deep CFR (OpenSpiel)" and r["game"] == "LD1D6F")
    assert row["seeds"] == [0] and row["exploitability"] == [deep_cfr["exploitability"]]
    record = tmp_path / "run.json"
    record.write_text(json.dumps({"game": NAMED_GAMES["LD1D6F"].game().config(), "exploitability": 0.3, "seed": 4}))
    folder = tmp_path / "rows"
    text = (f'learner = "NFSP (OpenSpiel)"\ngame = "LD1D6F"\nbudget = "30 min"\nrecords = ["{record}"]\n'
            f'command = "python run.py"\n')
    _write_row(folder, "nfsp", text)
    assert [(r["seeds"], r["exploitability"]) for r in leaderboard.file_rows(folder, root=tmp_path)] == [([4], [0.3])]
    _write_row(folder, "nfsp", text.replace('game = "LD1D6F"', 'game = "LD2D5F"'))
    with pytest.raises(ValueError, match="nfsp.toml: game = 'LD2D5F', but its records were played on LD1D6F"):
        leaderboard.file_rows(folder, root=tmp_path)
    _write_row(folder, "nfsp", text + "seeds = [4]\n")
    with pytest.raises(ValueError, match="give records or seeds and exploitability, not both"):
        leaderboard.file_rows(folder, root=tmp_path)
