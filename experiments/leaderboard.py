"""Write docs/leaderboard.md: every learner x named Liar's Dice game x budget, scored exactly.

The page is generated, never typed. Its rows come from:

* the presets of ``dice-envs train liars-dice`` (agents/liars_dice/presets.toml): each preset with
  recorded runs (``recorded``: the runs' JSON records) is one row, its game the named game the records
  were played on (:func:`dice_envs.games.liars_dice.named.name_of`; a preset's ``game`` key must agree),
  its budget the preset's ``minutes`` or ``steps``, one exploitability per seed (the record's);
* the row files of experiments/leaderboard/ (``<name>.toml``): an agent trained elsewhere and scored
  with ``dice-envs evaluate liars-dice AGENT --game NAME --json`` (see the page's last section), its
  values given, or read from its runs' records in the repository (``records``: OpenSpiel's learners
  run by experiments/benchmark_liars_dice_learners.py);
* the baselines, both exact: uniform play's exploitability in each game and the CFR+ solver's at its
  target, from experiments/figures/liars_dice_named_values.json (written by
  experiments/liars_dice_named_values.py) and experiments/figures/liars_dice_round_values.json.

A row file naming an unknown game, missing a key or a seed's value, or giving a value outside
``[0, uniform play's exploitability]`` is refused with an error naming the file (its records', as a
preset's, must lie in ``[0, 1]``: a run may end worse than uniform play). A preset's
record outside ``[0, 1]`` (the payoffs' bound), of an unnamed game or of a seed the preset does not
list is refused too. tests/liars_dice/test_liars_dice_leaderboard.py regenerates the page and compares.

    python experiments/leaderboard.py            # rewrite docs/leaderboard.md
    python experiments/leaderboard.py --check    # exit 1 if the page is not what the records give
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

from dice_envs.agents.learn.presets import budget_of, load_presets
from dice_envs.agents.solve.interval import format_value
from dice_envs.games.liars_dice.named import NAMED_GAMES, name_of, named_game
from dice_envs.games.liars_dice.rules import LiarsDiceGame

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ROOT / "agents" / "liars_dice" / "presets.toml"
ROWS = ROOT / "experiments" / "leaderboard"
NAMED_VALUES = ROOT / "experiments" / "figures" / "liars_dice_named_values.json"
ROUND_VALUES = ROOT / "experiments" / "figures" / "liars_dice_round_values.json"
PAGE = ROOT / "docs" / "leaderboard.md"

#: The keys of a row file: required, then optional.
ROW_KEYS = ("learner", "game", "budget", "seeds", "exploitability", "command")
ROW_OPTIONAL = ("link", "records")
#: the keys a row file with ``records`` (its runs' JSON records, in the repository) leaves to them
FROM_RECORDS = ("seeds", "exploitability")


def baselines(named_values: Path = NAMED_VALUES, round_values: Path = ROUND_VALUES) -> Dict[str, dict]:
    """Per named game: uniform play's exploitability and the CFR+ solve's exploitability and target."""
    named = json.loads(named_values.read_text())
    rounds = json.loads(round_values.read_text())
    solves = {}
    for row in rounds["rounds"]:
        solves[LiarsDiceGame(dice_per_player=tuple(row["dice"]), faces=rounds["faces"], wild=row["wild"])] = row
    for row in named["games"]:
        solves[LiarsDiceGame(dice_per_player=tuple(row["dice"]), faces=row["faces"], wild=row["wild"])] = row
    uniform = {row["name"]: row for row in named.get("uniform", [])}
    out = {}
    for name, game in NAMED_GAMES.items():
        if name not in uniform:
            raise ValueError(f"{named_values} holds no uniform play's exploitability of {name}: run "
                             "experiments/liars_dice_named_values.py --uniform")
        solve = solves[game.game()]
        out[name] = {"uniform": uniform[name]["exploitability"], "cfr_plus": solve["exploitability"],
                     "cfr_plus_target": solve["target_exploitability"],
                     "uniform_walked": "tree_best_response_values" in uniform[name]}
    return out


def _check_value(value, low: float, high: float, what: str, bound: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"{what}: exploitability {value!r} is outside [{low:g}, {high:.6g}] ({bound})")
    return float(value)


def read_records(paths: List[str], where: str, root: Path = ROOT, seeds: Optional[List[int]] = None) -> tuple:
    """``(named game, {seed: exploitability})`` of run records (JSON with ``game``, ``exploitability`` and
    the seed as ``args.seed`` or ``seed``; else the ``seeds`` listed, in order), all of one named game."""
    games, values = set(), {}
    for path in paths:
        record = json.loads((root / path).read_text())
        game = name_of(LiarsDiceGame(**record["game"]))
        if game is None:
            raise ValueError(f"{where}: {path} was played on {record['game']}, which is not a named game "
                             f"({', '.join(NAMED_GAMES)})")
        games.add(game)
        seed = record.get("args", {}).get("seed", record.get("seed"))
        if seed is None:  # (records that do not say their seed: the seeds listed, in order)
            if seeds is None or len(values) >= len(seeds):
                raise ValueError(f"{where}: {path} does not say its seed")
            seed = seeds[len(values)]
        values[seed] = _check_value(record["exploitability"], 0.0, 1.0, f"{where}: {path}", "the payoffs' bound")
    if len(games) != 1:
        raise ValueError(f"{where}: its records were played on different games: {sorted(games)}")
    return games.pop(), values


def preset_rows(presets_file: Path = PRESETS, root: Path = ROOT) -> List[dict]:
    """One row per preset with recorded runs (see the module docstring)."""
    rows = []
    for name, entry in load_presets(presets_file).items():
        recorded = entry.get("recorded", [])
        if not recorded:
            continue
        where = f"{presets_file.name} [{name}]"
        game, values = read_records(recorded, where, root, entry["seeds"])
        if "game" in entry and named_game(entry["game"]).name != game:
            raise ValueError(f"{where}: game = {entry['game']!r}, but its records were played on {game}")
        if sorted(values) != sorted(entry["seeds"]):
            raise ValueError(f"{where}: seeds = {entry['seeds']}, but its records are of seeds {sorted(values)}")
        budget = budget_of(entry)
        seeds = sorted(values)
        learner = f"{entry['title']}, `{entry['learner']}`" if "title" in entry else f"`{entry['learner']}`"
        rows.append({"game": game, "learner": f"{learner} (preset `{name}`)", "budget": budget,
                     "seeds": seeds, "exploitability": [values[s] for s in seeds],
                     "command": f"dice-envs train liars-dice --preset {name} --seed {seeds[0]}", "link": None})
    return rows


def file_rows(folder: Path = ROWS, uniform: Optional[Dict[str, float]] = None, root: Path = ROOT) -> List[dict]:
    """One row per row file of ``folder`` (see the module docstring), checked."""
    rows = []
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else []:
        where = f"{path.name}"
        try:
            entry = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as err:
            raise ValueError(f"{where}: {err}") from None
        from_records = "records" in entry
        missing = [key for key in ROW_KEYS if key not in entry and not (from_records and key in FROM_RECORDS)]
        unknown = sorted(set(entry) - set(ROW_KEYS) - set(ROW_OPTIONAL))
        if missing or unknown:
            raise ValueError(f"{where}: " + "; ".join(
                ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unknown {', '.join(unknown)}"] if unknown else []))
                + f" (a row file has {', '.join(ROW_KEYS)} and optionally {', '.join(ROW_OPTIONAL)}; with records, "
                  f"{' and '.join(FROM_RECORDS)} come from them)")
        try:
            game = named_game(entry["game"]).name
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        if from_records:
            if any(key in entry for key in FROM_RECORDS):
                raise ValueError(f"{where}: give records or {' and '.join(FROM_RECORDS)}, not both")
            played, by_seed = read_records(entry["records"], where, root)
            if played != game:
                raise ValueError(f"{where}: game = {entry['game']!r}, but its records were played on {played}")
            entry = dict(entry, seeds=sorted(by_seed), exploitability=[by_seed[s] for s in sorted(by_seed)])
        seeds, values = entry["seeds"], entry["exploitability"]
        if not (isinstance(seeds, list) and seeds and all(isinstance(s, int) and not isinstance(s, bool) for s in seeds)
                and len(set(seeds)) == len(seeds)):
            raise ValueError(f"{where}: seeds must be a non-empty list of distinct integers, got {seeds!r}")
        if not isinstance(values, list) or len(values) != len(seeds):
            raise ValueError(f"{where}: exploitability must give one value per seed ({len(seeds)}), got {values!r}")
        if not from_records:  # (a recorded run may end worse than uniform play: its record is checked against 1)
            bound = (uniform or {}).get(game, 1.0)
            values = [_check_value(v, 0.0, bound, f"{where}: seed {s}", f"uniform play's exploitability in {game}")
                      for s, v in zip(seeds, values)]
        for key in ("learner", "budget", "command"):
            if not isinstance(entry[key], str) or not entry[key].strip():
                raise ValueError(f"{where}: {key} must be a non-empty string, got {entry[key]!r}")
        rows.append({"game": game, "learner": entry["learner"], "budget": entry["budget"], "seeds": seeds,
                     "exploitability": values, "command": entry["command"], "link": entry.get("link")})
    return rows


def _number(x: float) -> str:
    return f"{x:.4g}"


def _target(x: float) -> str:
    """``1e-3`` for 0.001."""
    return f"{x:.0e}".replace("e-0", "e-")


def _mean(values) -> float:
    return sum(values) / len(values)


HEAD = """# Leaderboard

Every learner on every named Liar's Dice game ([the named games](games/liars_dice.md#named-games)), at
each budget it was run with: the **exact exploitability** (NashConv / 2: what a best response wins
against the policy, averaged over the two seats; 0 at an equilibrium) of the policy each run ended
with, for each seed and their mean. No sampling: every number is computed on the whole game tree.

This page is generated by `experiments/leaderboard.py` from the runs the presets of
`dice-envs train liars-dice` record (`agents/liars_dice/presets.toml`), the row files of
`experiments/leaderboard/` and the solves' records; a test regenerates it and compares. The two
baselines are exact too: uniform play (every legal action alike) and the CFR+ solver's average policy at its
target (`dice-envs solve liars-dice --game NAME`).

## The games

| game | rules | information states | player 0's value | uniform play | CFR+ (its target) |
|---|---|---|---|---|---|
"""

HOW_TO = """## Add your own agent's row

PettingZoo's users asked for a leaderboard of its environments
([PettingZoo#773](https://github.com/Farama-Foundation/PettingZoo/issues/773)); this one takes rows by
pull request. Score your agent exactly on a named game:

```bash
dice-envs evaluate liars-dice MODEL --game LD2D5F --json
```

`MODEL` is a saved model, `module:function` over observations, an OpenSpiel policy or a network over
OpenSpiel's information-state tensors (`--input openspiel`): see [Scoring any agent](evaluate.md).
From Python, `dice_envs.agents.liars_dice.openspiel_agents.exploitability` scores an OpenSpiel agent
in a training loop. The report's `exploitability` is the number to give; score one agent per seed.
Then add a row file, `experiments/leaderboard/<your name>.toml`:

```toml
learner = "NFSP (OpenSpiel), 3 x 512"          # what was trained, as the row shows it
game = "LD2D5F"                                  # a named game
budget = "10,000,000 steps"                      # what the run was given
seeds = [0, 1]
exploitability = [0.1234, 0.1301]                # one per seed, from the reports
command = "python train.py --seed SEED, then dice-envs evaluate liars-dice model.pt --game LD2D5F --json"
link = "https://github.com/you/your-code"        # optional
```

and run `python experiments/leaderboard.py`, which checks the file (a known game, one value per seed,
each between 0 and uniform play's exploitability) and rewrites this page. A preset of
`dice-envs train liars-dice` with recorded runs shows up by itself: its `game` key (or the game its
records were played on) places it, and its `title` key, if any, names its learner.
"""


def markdown(preset: List[dict], files: List[dict], base: Dict[str, dict]) -> str:
    """The page."""
    lines = [HEAD.rstrip("\n")]
    for name, named in NAMED_GAMES.items():
        b = base[name]
        low, high = named.value_interval
        value = named.exact_value or f"{format_value(low, high)}: in [{low:+.6f}, {high:+.6f}]"
        lines.append(f"| [{name}](#{name.lower()}) | {named.describe()} | {named.information_states:,} | {value} | "
                     f"{_number(b['uniform'])} | {_number(b['cfr_plus'])} ({_target(b['cfr_plus_target'])}) |")
    for name in NAMED_GAMES:
        b = base[name]
        rows = [r for r in preset + files if r["game"] == name]
        lines += ["", f"## {name}", ""]
        uniform_command = (f"dice-envs evaluate liars-dice random --game {name}" if b["uniform_walked"] else
                           "python experiments/liars_dice_named_values.py --uniform")
        table = [(b["cfr_plus"], f"| CFR+ (the solver) | to exploitability {_target(b['cfr_plus_target'])} | - | "
                                 f"{_number(b['cfr_plus'])} | `dice-envs solve liars-dice --game {name} "
                                 f"--exploitability {_target(b['cfr_plus_target'])}` |"),
                 (b["uniform"], f"| uniform play | - | - | {_number(b['uniform'])} | `{uniform_command}` |")]
        for r in rows:
            per_seed = ", ".join(f"{_number(v)} (seed {s})" for s, v in zip(r["seeds"], r["exploitability"]))
            learner = f"[{r['learner']}]({r['link']})" if r["link"] else r["learner"]
            table.append((_mean(r["exploitability"]), f"| {learner} | {r['budget']} | {per_seed} | "
                                                      f"{_number(_mean(r['exploitability']))} | `{r['command']}` |"))
        lines += ["| learner | budget | exploitability per seed | mean | reproduce |", "|---|---|---|---|---|"]
        lines += [text for _, text in sorted(table, key=lambda pair: pair[0])]
        if not rows:
            lines += ["", "No learner's row yet."]
    unwalked = [name for name in NAMED_GAMES if not base[name]["uniform_walked"]]
    lines += ["", "A preset's row is reproduced by its command with each of its seeds (`--seed N`); the run "
              "records its exact exploitability when it ends. Uniform play's exploitability comes from a recursion "
              "over the bids that uniform play allows "
              "(`dice_envs.agents.liars_dice.evaluation.uniform_play_best_responses`), equal to the walked tree's "
              "(`dice-envs evaluate liars-dice random`) in every game where both were computed"
              + (f"; {', '.join(unwalked)} only by the recursion." if unwalked else "."), "", HOW_TO.rstrip("\n")]
    return "\n".join(lines) + "\n"


def build(presets_file: Path = PRESETS, rows: Path = ROWS, named_values: Path = NAMED_VALUES,
          round_values: Path = ROUND_VALUES, root: Path = ROOT) -> str:
    """The page from the records (``ValueError`` naming a bad row or record)."""
    base = baselines(named_values, round_values)
    return markdown(preset_rows(presets_file, root), file_rows(rows, {k: v["uniform"] for k, v in base.items()}),
                    base)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing: exit 1 if the page differs")
    parser.add_argument("--page", type=Path, default=PAGE, help="the page (%(default)s)")
    parser.add_argument("--rows", type=Path, default=ROWS, help="the row files' folder (%(default)s)")
    args = parser.parse_args(argv)
    try:
        text = build(rows=args.rows)
    except ValueError as err:
        print(f"leaderboard: error: {err}", file=sys.stderr)
        return 2
    if args.check:
        same = args.page.is_file() and args.page.read_text(encoding="utf-8") == text
        print(f"{args.page} is {'up to date' if same else 'not what the records give: run experiments/leaderboard.py'}")
        return 0 if same else 1
    args.page.write_text(text, encoding="utf-8")
    print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
