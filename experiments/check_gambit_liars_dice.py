"""Check our Liar's Dice ``.efg`` files with Gambit itself (``pygambit``).

Writes the files with this project's interpreter, then, with an interpreter that
has ``pygambit`` (``--gambit-python``, default ``.venv-bench/bin/python``; it is
not a dependency of dice_envs), reads each one back, counts its nodes and
information sets and, with ``--solve``, runs Gambit's exact rational LP
(``pygambit.nash.lp_solve(rational=True)``) to compare the value with ours.

Run: ``.venv/bin/python experiments/check_gambit_liars_dice.py [--solve] [--faces 2 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GAMBIT_SCRIPT = r"""
import json, sys, time
import pygambit as gbt
path, solve = sys.argv[1], sys.argv[2] == "1"
g = gbt.read_efg(path)
out = {"nodes": len(list(g.nodes)), "infosets": [len(p.infosets) for p in g.players],
       "pygambit": gbt.__version__}
if solve:
    t0 = time.perf_counter()
    eq = gbt.nash.lp_solve(g, rational=True).equilibria[0]
    out["gambit_value"] = str(eq.payoff(list(g.players)[0]))
    out["gambit_seconds"] = time.perf_counter() - t0
print(json.dumps(out))
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--faces", type=int, nargs="+", default=[2, 3],
                        help="sides of the die (one each) of the games checked, each with and without a wild face "
                             "(2 3)")
    parser.add_argument("--seed-bids", action="store_true", help="the source document's bid space (quantities up to faces)")
    parser.add_argument("--solve", action="store_true", help="also solve with Gambit's rational LP (slow for 3 faces)")
    parser.add_argument("--gambit-python", default=os.path.join(ROOT, ".venv-bench", "bin", "python"),
                        help="an interpreter with pygambit installed (default .venv-bench/bin/python)")
    args = parser.parse_args(argv)

    from dice_envs.agents.solve.exploitability import certify_value
    from dice_envs.agents.solve.gambit import write_efg
    from dice_envs.agents.solve.game_tree import build_tree
    from dice_envs.agents.solve.sequence_form import solve_lp
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    if not os.path.exists(args.gambit_python):
        print(f"no interpreter with pygambit at {args.gambit_python}; nothing checked")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for faces in args.faces:
            for wild in (False, True):
                game = LiarsDiceGame(faces=faces, wild=wild, max_quantity=faces if args.seed_bids else None)
                path = os.path.join(tmp, f"liars_{faces}{'_wild' if wild else ''}.efg")
                nodes = write_efg(game, path)
                tree = build_tree(game)
                lower, upper = certify_value(tree, solve_lp(tree).policy)
                proc = subprocess.run([args.gambit_python, "-c", GAMBIT_SCRIPT, path, "1" if args.solve else "0"],
                                      capture_output=True, text=True)
                if proc.returncode != 0:
                    print(f"{game!r}: Gambit failed: {proc.stderr.strip().splitlines()[-1]}")
                    continue
                gambit = json.loads(proc.stdout)
                infosets = [sum(1 for i in tree.infosets if i.player == p) for p in (0, 1)]
                ok = gambit["nodes"] == nodes and gambit["infosets"] == infosets
                line = (f"{game!r}: we wrote {nodes:,} nodes, Gambit read {gambit['nodes']:,} nodes and "
                        f"{gambit['infosets']} information sets (ours {infosets}) -> {'OK' if ok else 'MISMATCH'}")
                if args.solve:
                    same = gambit["gambit_value"] == str(lower) == str(upper)
                    line += (f"; Gambit's exact LP value {gambit['gambit_value']} in {gambit['gambit_seconds']:.1f} s, "
                             f"ours {lower} -> {'OK' if same else 'MISMATCH'}")
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
