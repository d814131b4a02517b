"""The named Liar's Dice games (:mod:`dice_envs.games.liars_dice.named`): each name's certified value is
the one its solve recorded, and each name loads the same rules in PettingZoo, Gymnasium, OpenSpiel and
the command line; bad names and conflicting arguments are refused."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import dice_envs  # noqa: F401  (registers the Gymnasium ids)
from dice_envs import liars_dice_v1
from dice_envs.agents.cli import main
from dice_envs.games.liars_dice.named import NAMED_GAMES, name_of, named_game, rules_arguments
from dice_envs.games.liars_dice.rules import LiarsDiceGame, information_state_count

ROOT = Path(__file__).resolve().parents[2]


def _recorded_rows() -> dict:
    """Every recorded solve of the two records, by the rules it solved."""
    rows = {}
    rounds = json.loads((ROOT / "experiments/figures/liars_dice_round_values.json").read_text())
    for row in rounds["rounds"]:
        rows[LiarsDiceGame(dice_per_player=tuple(row["dice"]), faces=rounds["faces"], wild=row["wild"])] = \
            ("experiments/figures/liars_dice_round_values.json", row)
    named = json.loads((ROOT / "experiments/figures/liars_dice_named_values.json").read_text())
    for row in named["games"]:
        rows[LiarsDiceGame(dice_per_player=tuple(row["dice"]), faces=row["faces"], wild=row["wild"])] = \
            ("experiments/figures/liars_dice_named_values.json", row)
    return rows


@pytest.mark.parametrize("name", list(NAMED_GAMES))
def test_each_named_games_certified_value_is_its_recorded_solve(name):
    named = NAMED_GAMES[name]
    record, row = _recorded_rows()[named.game()]
    assert named.record == record
    assert tuple(named.value_interval) == tuple(row["value_interval"])
    assert named.exact_value == row.get("exact_value")
    low, high = named.value_interval
    # the NashConv, or +- twice the target around a value printed to 6 decimals (+- 5e-7 more)
    assert low <= high and high - low <= 4 * row["target_exploitability"] + 2e-6
    target = f"{row['target_exploitability']:.0e}".replace("e-0", "e-")
    assert (named.exact_value is not None) == ("LP" in named.certified_by)
    assert named.exact_value is not None or target in named.certified_by
    assert ("source" in row) == ("not recorded" in named.certified_by)  # the recorded value +- twice its target


def test_the_fields_benchmark_is_openspiels_liars_dice_with_its_published_size_and_value():
    """LD2D5F: 15.73 M information states and player 0's value 0.0177 (Rudolph et al., ICLR 2026);
    one six-sided wild die each is OpenSpiel's liars_dice, whose value is -7/258."""
    ld2d5f = named_game("LD2D5F")
    assert ld2d5f.game() == LiarsDiceGame(dice_per_player=2, faces=5, wild="highest")
    assert ld2d5f.information_states == 15_728_640
    low, high = ld2d5f.value_interval
    assert low <= 0.0177 <= high
    assert named_game("LD1D6F").exact_value == "-7/258" and named_game("ld1d6f").name == "LD1D6F"


def _information_states_walked(game: LiarsDiceGame) -> int:
    """Both players' information states, by walking every history of every roll."""
    seen = set()
    for rolls, _ in game.chance_distribution():
        stack = [game.new_initial_state().apply(rolls)]
        while stack:
            state = stack.pop()
            if state.is_terminal():
                continue
            seen.add(state.information_state(state.current_player))
            stack.extend(state.apply(a) for a in state.legal_actions())
    return len(seen)


@pytest.mark.parametrize("dice, faces, wild", [(1, 6, "none"), ((1, 2), 3, "aces"), (2, 2, "highest")])
def test_the_information_state_count_is_the_walked_count(dice, faces, wild):
    game = LiarsDiceGame(dice_per_player=dice, faces=faces, wild=wild)
    assert information_state_count(game) == _information_states_walked(game)


def test_bad_names_and_conflicting_arguments_are_refused():
    with pytest.raises(ValueError, match="LD2D5F, LD1D6F-nowild"):
        named_game("LD3D5F")
    with pytest.raises(ValueError, match="LD2D5F"):
        liars_dice_v1.env(game="LD2D6F")
    with pytest.raises(ValueError, match="faces=6 conflicts"):
        liars_dice_v1.env(game="LD2D5F", faces=6)
    with pytest.raises(ValueError, match="wild"):
        gymnasium.make("dice_envs/LiarsDice-v1", game="LD1D6F", wild=False, opponent="random")
    # the same rules spelled otherwise agree: (2, 2) dice, wild=True
    assert rules_arguments("LD2D5F", dice_per_player=(2, 2), wild=True, faces=None)["faces"] == 5
    assert rules_arguments(None, faces=5) == {"dice_per_player": 1, "faces": 5, "wild": "none"}
    assert name_of(LiarsDiceGame(faces=5)) is None


def _pettingzoo_trajectory(name: str, seed: int):
    """A random game of the PettingZoo environment: its rolls, and at each decision the acting
    player, observation, legal actions and the action taken; then the returns."""
    env = liars_dice_v1.raw_env(game=name, observation="flat")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rolls = env.unwrapped.game_state.rolls
    steps = []
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.agent_name_mapping[agent]
        legal = np.flatnonzero(env.action_mask(agent)).tolist()
        action = int(rng.choice(legal))
        steps.append((seat, env.observe(agent).tolist(), legal, action))
        env.step(action)
    returns = [env.unwrapped.game_state.returns()[p] for p in range(2)]
    return rolls, steps, returns


@pytest.mark.parametrize("name", list(NAMED_GAMES))
def test_each_name_loads_the_same_rules_in_pettingzoo_gymnasium_and_openspiel(name):
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is the [openspiel] extra")
    import dice_envs.openspiel  # noqa: F401  (registers the games)

    named = NAMED_GAMES[name]
    game = named.game()
    aec = liars_dice_v1.env(game=name)
    assert aec.unwrapped.game == game
    gym_env = gymnasium.make("dice_envs/LiarsDice-v1", game=name, opponent="random")
    vector = gymnasium.make_vec("dice_envs/LiarsDice-v1", num_envs=2, vectorization_mode="vector_entry_point",
                                game=name, opponent="random")
    spiel = pyspiel.load_game(f"dice_envs_liars_dice(game={name})")
    assert spiel.get_parameters()["game"] == name and "faces" not in spiel.get_parameters()  # str(game) is true
    assert gym_env.unwrapped.game == game
    assert gym_env.action_space.n == vector.single_action_space.n == spiel.num_distinct_actions() == game.num_actions
    shape = aec.observation_space("player_0")["observation"].shape
    assert gym_env.observation_space.shape == vector.single_observation_space.shape == shape
    assert tuple(spiel.information_state_tensor_shape()) == shape
    for seed in range(3):  # the same dice and actions: the same observations, legal actions and returns
        rolls, steps, returns = _pettingzoo_trajectory(name, seed)
        state = spiel.new_initial_state()
        for p in range(2):
            state.apply_action([roll for roll, _ in game.roll_distribution(p)].index(rolls[p]))
        for seat, observation, legal, action in steps:
            assert state.current_player() == seat
            assert state.information_state_tensor() == observation and state.legal_actions() == legal
            state.apply_action(action)
        assert state.is_terminal() and state.returns() == returns
    assert pyspiel.load_game("dice_envs_liars_dice", {"game": name, "starting_player": 0}).new_initial_state() \
        .information_state_tensor(0) == np.asarray(game.new_initial_state().observation(0)).tolist()


def test_openspiel_refuses_conflicts_and_keeps_the_name_through_a_pickle():
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is the [openspiel] extra")
    import pickle

    import dice_envs.openspiel  # noqa: F401

    with pytest.raises(Exception, match="faces=4 conflicts"):
        pyspiel.load_game("dice_envs_liars_dice", {"game": "LD2D5F", "faces": 4})
    with pytest.raises(Exception, match="LD2D5F, LD1D6F-nowild"):
        pyspiel.load_game("dice_envs_liars_dice(game=LD9)")
    # OpenSpiel's names for the same rules agree with the name
    game = pyspiel.load_game("dice_envs_liars_dice", {"game": "LD2D5F", "numdice": 2, "dice_sides": 5})
    assert str(pickle.loads(pickle.dumps(game))) == str(game) == \
        "dice_envs_liars_dice(game=LD2D5F,max_quantity=-1,num_players=2,starting_player=0)"


def test_the_command_line_takes_game(capsys):
    assert main(["evaluate", "liars-dice", "random", "--game", "LD1D6F", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["config"]["game"] == "LD1D6F" and report["config"]["faces"] == 6 and report["config"]["wild"] is True
    with pytest.raises(SystemExit):
        main(["evaluate", "liars-dice", "random", "--game", "LD1D6F", "--wild", "aces"])
    assert "conflicts" in capsys.readouterr().err
    assert main(["export-efg", "liars-dice", "--game", "LD1D6F-nowild", "--json", "--out", "/dev/null", "--force"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert (exported["faces"], exported["wild"], exported["dice_per_player"]) == (6, False, 1)


def named_games_table() -> str:
    """The table of docs/games/liars_dice.md's "Named games", from :data:`NAMED_GAMES`."""
    from dice_envs.agents.solve.interval import format_value

    lines = ["| name | rules | information states | player 0's value | certified by |", "|---|---|---|---|---|"]
    for named in NAMED_GAMES.values():
        low, high = named.value_interval
        value = (f"{named.exact_value} (exact)" if named.exact_value else
                 f"{format_value(low, high)}: in [{low:+.6f}, {high:+.6f}]")
        lines.append(f"| `{named.name}` | {named.describe()} | {named.information_states:,} | {value} | "
                     f"{named.certified_by} |")
    return "\n".join(lines)


def test_the_documentation_lists_every_named_game_with_its_certified_value():
    page = (ROOT / "docs" / "games" / "liars_dice.md").read_text(encoding="utf-8")
    assert named_games_table() + "\n" in page
