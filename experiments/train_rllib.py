"""Self-play PPO with Ray RLlib on Liar's Dice (``--game liars_dice``, the default) or All Yellow Zombie
Dice (``--game ayzd``), scored exactly: ``dice-envs train liars-dice|ayzd --preset rllib-ppo`` with the
options that follow."""

import sys

from dice_envs.agents.cli import main as dice_envs

GAMES = {"liars_dice": "liars-dice", "ayzd": "ayzd"}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    game = "liars_dice"
    if "--game" in argv:
        at = argv.index("--game")
        game = argv[at + 1] if at + 1 < len(argv) else ""
        del argv[at:at + 2]
    if game not in GAMES:
        print(f"train_rllib: error: --game must be one of {', '.join(GAMES)}, got {game!r}", file=sys.stderr)
        return 2
    return dice_envs(["train", GAMES[game], "--preset", "rllib-ppo", *argv])


if __name__ == "__main__":
    sys.exit(main())
