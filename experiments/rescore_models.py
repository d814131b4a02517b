"""Re-score every committed model in experiments/models/ to the figure its documentation gives.

Each model is scored exactly through the command line (``dice-envs evaluate GAME MODEL ... --json``,
run in this process) and its measure compared with the documented figure: the Difference against
the optimal policy for Pig, All Yellow Zombie Dice and Zombie Dice, the exploitability for Liar's
Dice.  One line per model (the measure, the figure re-scored, the documented one, the seconds); the
exit status is 1 if any model is off by more than its tolerance.

The default set (:data:`QUICK`: Pig, All Yellow Zombie Dice and every one-die-each Liar's Dice model)
takes a few minutes and is what ``tests/agents/test_rescore_models.py`` runs.  Five groups take longer:

* ``--zombie-dice``: the three models of the full Zombie Dice game (goal 13, official dice), whose
  exact scores run the network on 3.4e8 states, 4 to 7 minutes each;
* ``--1v2`` and ``--2v1``: the Liar's Dice models for one die against two and two against one (aces
  wild), a third of a minute to 3 minutes each, the slowest of the default set's old members (the
  suite scores unequal dice with a model it trains: ``tests/liars_dice/test_train_liars_dice_play.py``);
* ``--2v2``: the Liar's Dice model for two dice each (aces wild), whose exact score is streamed over
  352 M information states: 9-10 minutes alone on one core, much longer on a busy machine;
* ``--whole-game``: the whole game of losing dice from two dice each (aces wild), played by the 2v2, 1v2
  and 1v1 models (``dice-envs evaluate liars-dice-match`` with the three files joined by commas): the 2v2
  round streamed with the model asked through the whole game's observations, about 22 CPU minutes and 1.3 GiB;
* ``--ld2d5f``: the models trained on IIG-RL-Benchmark's game LD2D5F (two five-sided dice each, the
  highest face wild) with its published settings, 3 x 512 networks over 15.7 M information states, scored
  in memory: about 7 CPU minutes each.

Run: ``.venv/bin/python experiments/rescore_models.py [--zombie-dice] [--1v2] [--2v1] [--2v2] [--whole-game] [--ld2d5f] [--all]
[MODEL ...]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, Tuple

MODELS_DIR = Path(__file__).resolve().parent / "models"

#: The games whose measure is the Difference against the optimal policy (``details.difference``).
JEOPARDY = ("pig", "ayzd", "zombie-dice")


@dataclass(frozen=True)
class Figure:
    """A committed model and the figure it re-scores to."""

    model: str  #: the file's name in experiments/models (round models of a whole game: names joined by commas)
    game: str  #: ``dice-envs evaluate``'s GAME
    options: Tuple[str, ...]  #: the game's settings, as ``dice-envs evaluate`` spells them
    figure: float  #: the documented measure
    tolerance: float
    group: str = "quick"  #: ``quick``, ``zombie-dice``, ``1v2``, ``2v1``, ``2v2``, ``whole-game`` or ``ld2d5f``
    source: str = ""  #: where the figure is documented

    @property
    def measure(self) -> str:
        return "difference" if self.game in JEOPARDY else "exploitability"


_SIX = ("--faces", "6")
_WILD = (*_SIX, "--wild")  # the highest face wild
_LEARNERS = "docs/learners/ (the learner's page) and docs/leaderboard.md"
_ESCHER_PAGE = "docs/learners/escher.md"

#: Every committed model.  Liar's Dice figures hold to 1e-6: a network's float32 products round
#: differently on other CPUs' kernels (a few 1e-8 measured).
MODELS: Tuple[Figure, ...] = (
    Figure("ayzd_batched_selfplay_seed1.zip", "ayzd", (), -0.0015370767, 1e-9, source="README.md"),
    Figure("pig_batched_selfplay_seed1.zip", "pig", (), -0.0132526, 1e-7, source="docs/games/pig.md"),
    Figure("pig_batched_selfplay_fourier_seed0.zip", "pig", (), -0.0050722, 1e-7, source="docs/games/pig.md"),
    Figure("pig_batched_selfplay_fourier_lambda09_seed0.zip", "pig", (), -0.0036647, 1e-7, source="README.md"),
    Figure("liars_dice_play_mccfr_wild.pt", "liars-dice", _WILD, 0.0059312, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_mccfr_nowild.pt", "liars-dice", _SIX, 0.0006670, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_mccfr_distilled_wild.pt", "liars-dice", _WILD, 0.0106366, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_mccfr_distilled_nowild.pt", "liars-dice", _SIX, 0.0013987, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_escher_wild.pt", "liars-dice", _WILD, 0.0161790, 1e-6, source="README.md"),
    Figure("liars_dice_play_escher_1v2_aces.pt", "liars-dice", (*_SIX, "--dice", "1", "2", "--wild", "aces"),
           0.0367922, 1e-6, group="1v2", source="README.md"),
    Figure("liars_dice_play_escher_2v1_aces.pt", "liars-dice", (*_SIX, "--dice", "2", "1", "--wild", "aces"),
           0.0320849, 1e-6, group="2v1", source="README.md"),
    Figure("liars_dice_play_escher_nowild.pt", "liars-dice", _SIX, 0.0054732, 1e-6, source="README.md"),
    Figure("liars_dice_play_escher_1v1_aces.pt", "liars-dice", (*_SIX, "--wild", "aces"), 0.0259405, 1e-6,
           source=_ESCHER_PAGE),
    Figure("liars_dice_play_mmd_average_wild.pt", "liars-dice", _WILD, 0.0785174, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_mmd_average_nowild.pt", "liars-dice", _SIX, 0.0336088, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_mmd_wild.pt", "liars-dice", _WILD, 0.6782515, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_mmd_nowild.pt", "liars-dice", _SIX, 0.0789235, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_ppo_wild.pt", "liars-dice", _WILD, 0.6315206, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_iig_ppo_ld1d6f.pt", "liars-dice", ("--game", "LD1D6F"), 0.1581744, 1e-6, source=_LEARNERS),
    Figure("liars_dice_play_ppo_nowild.pt", "liars-dice", _SIX, 0.1822958, 1e-6, source=_LEARNERS),
    Figure("liars_dice_pbs_wild.pt", "liars-dice", _WILD, 0.1918162, 1e-6, source=_LEARNERS),
    Figure("zombie_dice_official_selfplay_fourier_seed0.zip", "zombie-dice", (), -0.0040844300, 1e-9,
           group="zombie-dice", source="docs/games/zombie_dice.md"),
    Figure("zombie_dice_official_selfplay_seed0.zip", "zombie-dice", (), -0.0133681, 1e-7, group="zombie-dice",
           source="docs/games/zombie_dice.md"),
    Figure("zombie_dice_official_selfplay_seed1.zip", "zombie-dice", (), -0.0195129, 1e-7, group="zombie-dice",
           source="docs/games/zombie_dice.md"),
    Figure("liars_dice_play_escher_2v2_aces.pt", "liars-dice", (*_SIX, "--dice", "2", "2", "--wild", "aces"),
           0.0950566, 1e-6, group="2v2", source="README.md"),
    Figure("liars_dice_play_escher_2v2_aces.pt,liars_dice_play_escher_1v2_aces.pt,liars_dice_play_escher_1v1_aces.pt",
           "liars-dice-match", (), 0.0820377, 1e-6, group="whole-game", source=_ESCHER_PAGE),
    Figure("liars_dice_play_iig_ppo_ld2d5f.pt", "liars-dice", ("--game", "LD2D5F"), 0.1152759, 1e-6, group="ld2d5f",
           source=_LEARNERS),
    Figure("liars_dice_play_iig_mmd_ld2d5f.pt", "liars-dice", ("--game", "LD2D5F"), 0.1212452, 1e-6, group="ld2d5f",
           source=_LEARNERS),
)

#: The models re-scored by default (and by the test suite).
QUICK = tuple(entry for entry in MODELS if entry.group == "quick")


def rescore(entry: Figure) -> Tuple[float, float]:
    """``(measure, seconds)``: the model's measure re-scored by ``dice-envs evaluate``."""
    from dice_envs.agents.cli import main as cli_main

    models = ",".join(str(MODELS_DIR / name) for name in entry.model.split(","))  # round models of a whole game
    argv = ["evaluate", entry.game, models, *entry.options, "--json"]
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = cli_main(argv)
    seconds = time.perf_counter() - start
    if code != 0:
        raise RuntimeError(f"`dice-envs {' '.join(argv)}` exited with {code}")
    report = json.loads(out.getvalue())
    return float(report["details"]["difference"] if entry.measure == "difference" else report["exploitability"]), \
        seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Without MODEL, the default set plus the groups asked for.")
    parser.add_argument("models", nargs="*", metavar="MODEL", help="file names in experiments/models to re-score")
    parser.add_argument("--zombie-dice", action="store_true",
                        help="also the three full Zombie Dice models (4-7 minutes each)")
    parser.add_argument("--1v2", dest="one_two", action="store_true",
                        help="also the Liar's Dice model for one die against two (a third of a minute to 1 minute)")
    parser.add_argument("--2v1", dest="two_one", action="store_true",
                        help="also the Liar's Dice model for two dice against one (1-3 minutes)")
    parser.add_argument("--2v2", dest="two_each", action="store_true",
                        help="also the two-dice-each Liar's Dice model (9-10 minutes on an idle core)")
    parser.add_argument("--whole-game", dest="whole_game", action="store_true",
                        help="also the whole game from two dice each (aces wild) played by the 2v2, 1v2 and 1v1 "
                             "models (its 2v2 round streamed: about 22 CPU minutes, 1.3 GiB)")
    parser.add_argument("--ld2d5f", action="store_true",
                        help="also the models trained on LD2D5F with IIG-RL-Benchmark's settings (7 CPU minutes each)")
    parser.add_argument("--all", action="store_true", help="every committed model")
    args = parser.parse_args(argv)

    known = {entry.model: entry for entry in MODELS}
    unknown = [name for name in args.models if name not in known]
    if unknown:
        parser.error(f"no documented figure for {', '.join(unknown)} (known: {', '.join(known)})")
    groups = {"quick"} | ({"zombie-dice"} if args.zombie_dice or args.all else set()) | (
        {"1v2"} if args.one_two or args.all else set()) | ({"2v1"} if args.two_one or args.all else set()) | (
        {"2v2"} if args.two_each or args.all else set()) | ({"whole-game"} if args.whole_game or args.all else set()) | (
        {"ld2d5f"} if args.ld2d5f or args.all else set())
    chosen = [known[name] for name in args.models] or [entry for entry in MODELS if entry.group in groups]

    failed = []
    for entry in chosen:
        value, seconds = rescore(entry)
        ok = abs(value - entry.figure) <= entry.tolerance
        print(f"{entry.model:50} {entry.measure:14} {value:+.10f}  documented {entry.figure:+.7f} "
              f"(+-{entry.tolerance:g}, {entry.source})  {'ok' if ok else 'MISMATCH'}  {seconds:.0f} s", flush=True)
        if not ok:
            failed.append(entry.model)
    if failed:
        print(f"{len(failed)} of {len(chosen)} models differ from their documented figures: {', '.join(failed)}",
              file=sys.stderr)
        return 1
    print(f"all {len(chosen)} models re-score to their documented figures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
