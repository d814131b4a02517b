"""``import dice_envs.openspiel``: every game as a pyspiel game, checked against the project's own
solvers (OpenSpiel's exploitability of the CFR+ equilibrium, OpenSpiel's CFR iterate for iterate)
and by OpenSpiel's random-simulation test."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is the [openspiel] extra: pip install 'dice-envs[openspiel]'")

import dice_envs.openspiel  # noqa: E402,F401  (registers the games)
from dice_envs.agents import liars_dice_solver as lds  # noqa: E402
from dice_envs.liars_dice import LiarsDiceGame  # noqa: E402

SMALL = {
    "dice_envs_liars_dice": {"faces": 3, "wild": True},
    "dice_envs_pig": {"goal": 15},
    "dice_envs_zombie_dice": {"goal": 5},
    "dice_envs_shakes": {"num_players": 3, "mode": "maesters"},
    "dice_envs_closest_number": {"numbers": 5},
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_game_loads_and_passes_openspiels_random_simulation_test(name):
    game = pyspiel.load_game(name, SMALL[name])
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


def test_the_project_parameter_names_and_errors():
    game = pyspiel.load_game("dice_envs_liars_dice", {"faces": 6, "wild": True})
    assert game.num_distinct_actions() == 13 and game.max_chance_outcomes() == 6  # one player's roll per node
    assert game.get_parameters()["wild"] is True
    with pytest.raises(Exception, match="faces"):
        pyspiel.load_game("dice_envs_liars_dice", {"faces": 9})
    assert {f"dice_envs_{name}" for name in dice_envs.openspiel.GAMES} <= set(pyspiel.registered_names())


def test_openspiel_exploitability_of_our_equilibrium_equals_ours():
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability

    game = LiarsDiceGame(faces=4, wild=True)
    eq = lds.solve(game, 1e-4)
    ours = lds.evaluate(lds.PublicTree(game), eq.policy).exploitability
    spiel_game = pyspiel.load_game("dice_envs_liars_dice", {"faces": 4, "wild": True})
    table = os_policy.tabular_policy_from_callable(spiel_game, lambda s: eq.policy.action_probabilities(s.core))
    assert exploitability.exploitability(spiel_game, table) == pytest.approx(ours, abs=1e-12)


def test_openspiel_exploitability_with_aces_and_unequal_dice_equals_ours():
    """The new rules through the registration (``dice``, ``wild_rule``, ``starting_player``):
    OpenSpiel's exploitability of our CFR+ equilibrium equals ours."""
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability

    game = LiarsDiceGame(dice_per_player=(1, 2), faces=3, wild="aces", starting_player=1)
    eq = lds.solve(game, 1e-4)
    ours = lds.evaluate(lds.PublicTree(game), eq.policy)
    spiel_game = pyspiel.load_game("dice_envs_liars_dice", {"dice": "1,2", "faces": 3, "wild_rule": "aces",
                                                            "starting_player": 1})
    assert spiel_game.max_chance_outcomes() == 6  # the two-dice roll of three faces: 6 multisets
    table = os_policy.tabular_policy_from_callable(spiel_game, lambda s: eq.policy.action_probabilities(s.core))
    assert exploitability.exploitability(spiel_game, table) == pytest.approx(ours.exploitability, abs=1e-12)
    with pytest.raises(Exception, match="dice must be counts"):
        pyspiel.load_game("dice_envs_liars_dice", {"dice": "one,two"})


@pytest.mark.parametrize("plus", [True, False])
def test_openspiel_cfr_matches_ours_iterate_for_iterate(plus):
    from open_spiel.python.algorithms import cfr

    game = LiarsDiceGame(faces=3, wild=True)
    theirs = (cfr.CFRPlusSolver if plus else cfr.CFRSolver)(pyspiel.load_game(
        "dice_envs_liars_dice", {"faces": 3, "wild": True}))
    ours = lds.CFRSolver(game, plus=plus)
    for _ in range(8):
        theirs.evaluate_and_update_policy()
        ours.iterate(1)
        average_theirs, average_ours = theirs.average_policy(), ours.average_policy()
        for state in average_theirs.states:
            a, b = average_theirs.action_probabilities(state), average_ours.action_probabilities(state.core)
            assert max(abs(a[k] - b.get(k, 0.0)) for k in a) < 1e-12


def test_many_dice_load_at_once_and_three_players_pass_the_random_simulation_test():
    """Issue 23's attack: six players of five dice died with MemoryError after 43 s, one chance
    node listing every joint roll; now each player's roll is a chance node of 252 outcomes.
    Three players failed OpenSpiel's zero-sum check (issue 26): the utilities are declared to sum to 0."""
    game = pyspiel.load_game("dice_envs_liars_dice", {"num_players": 6, "dice_per_player": 5})
    assert game.max_chance_outcomes() == 252
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    pyspiel.random_sim_test(pyspiel.load_game("dice_envs_liars_dice", {"num_players": 3, "dice_per_player": 2,
                                                                        "faces": 4}),
                            num_sims=5, serialize=False, verbose=False)


def test_a_cloned_state_is_independent():
    game = pyspiel.load_game("dice_envs_pig", {"goal": 10})
    state = game.new_initial_state()
    state.apply_action(1)  # roll
    clone = state.clone()
    clone.apply_action(int(np.argmax([p for _, p in clone.chance_outcomes()])))
    assert state.is_chance_node() and not clone.is_chance_node()
