"""``import dice_envs.openspiel``: every game as a pyspiel game, checked against the project's own
solvers (OpenSpiel's exploitability of the CFR+ equilibrium, OpenSpiel's CFR iterate for iterate)
and by OpenSpiel's random-simulation test."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is the [openspiel] extra: pip install 'dice-envs[openspiel]'")

import dice_envs.openspiel  # noqa: E402,F401  (registers the games)
from dice_envs.agents.liars_dice import solver as lds  # noqa: E402
from dice_envs.games.liars_dice.rules import LiarsDiceGame  # noqa: E402

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


@pytest.mark.parametrize("name, params, utility, players", [
    ("dice_envs_liars_dice", {"num_players": 3, "faces": 2}, "ZERO_SUM", (2, 6)),
    ("dice_envs_pig", {"goal": 10}, "ZERO_SUM", (2, 2)),
    ("dice_envs_zombie_dice", {"goal": 5}, "ZERO_SUM", (2, 8)),
    ("dice_envs_zombie_dice", {"goal": 5, "num_players": 3}, "GENERAL_SUM", (2, 8)),
    ("dice_envs_closest_number", {"numbers": 5}, "ZERO_SUM", (2, 20)),
    ("dice_envs_closest_number", {"numbers": 6, "num_players": 3}, "GENERAL_SUM", (2, 20)),
    ("dice_envs_shakes", {"num_players": 3, "mode": "maesters"}, "IDENTICAL", (1, 6)),
    ("dice_envs_shakes", {"num_players": 2, "mode": "maesters", "variant": "competitive"}, "ZERO_SUM", (1, 6)),
    ("dice_envs_shakes", {"num_players": 3, "mode": "maesters", "variant": "competitive"}, "GENERAL_SUM", (1, 6)),
])
def test_each_game_carries_the_type_its_parameters_make(name, params, utility, players):
    """Issue 26, defect 3: one GameType for all parameters declared two-player Zombie Dice, Closest
    Number and competitive Shakes general-sum (so OpenSpiel's exploitability refused them) and
    cooperative Shakes not identical.  OpenSpiel's random simulation checks the declared sums."""
    game = pyspiel.load_game(name, params)
    kind = game.get_type()
    assert kind.utility == getattr(pyspiel.GameType.Utility, utility)
    assert (kind.min_num_players, kind.max_num_players) == players
    if utility == "ZERO_SUM":
        assert game.utility_sum() == 0.0
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_games_and_states_pickle(name):
    """Issue 26, defect 4: the classes are made inside a function, so multiprocessing and Ray could
    not send a game or a state; both now pickle (a state by replaying its history)."""
    import pickle

    game = pyspiel.load_game(name, SMALL[name])
    again = pickle.loads(pickle.dumps(game))
    assert again.get_parameters() == game.get_parameters() and again.get_type().utility == game.get_type().utility
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(6):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history() and str(copy) == str(state)
    assert copy.current_player() == state.current_player()


def test_a_clone_shares_the_cached_chance_outcomes():
    """Issue 26, defect 2: OpenSpiel clones a Python state by deep-copying its attributes; the
    cached outcomes of a Zombie Dice chance node (165 here) were copied at every clone (1.9 ms;
    5.8 us shared)."""
    game = pyspiel.load_game("dice_envs_zombie_dice")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.is_chance_node() and len(state.chance_outcomes()) == 165
    clone = state.clone()
    assert clone._outcomes() is state._outcomes()
    clone.apply_action(0)
    assert state.is_chance_node() and not clone.is_chance_node()


def test_the_observer_obeys_the_observation_type():
    """Issue 26, defect 5: a public-only observer returned the player's own dice, and
    information_state_tensor() answered (with the observation) although the games did not declare it."""
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("dice_envs_liars_dice", {"faces": 3})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(1)
    kind = pyspiel.IIGObservationType
    public = make_observation(game, kind(perfect_recall=False, public_info=True,
                                         private_info=pyspiel.PrivateInfoType.NONE))
    for player in (0, 1):
        public.set_from(state, player)
        full = np.asarray(state.observation_tensor(player))
        own_dice = slice(2, 2 + 3)
        assert full[own_dice].sum() == 1 and public.tensor[own_dice].sum() == 0
        assert np.array_equal(np.delete(public.tensor, np.r_[own_dice]), np.delete(full, np.r_[own_dice]))
    assert state.information_state_string(0) != state.information_state_string(1)  # the dice differ
    # Liar's Dice's observation is an information state (the bids, increasing, give their order):
    # it declares the tensor, which OpenSpiel's Deep CFR, ESCHER and NFSP read; the others refuse it.
    assert game.get_type().provides_information_state_tensor
    state.apply_action(0)
    for player in (0, 1):
        assert state.information_state_tensor(player) == state.observation_tensor(player)
    zombie = pyspiel.load_game("dice_envs_zombie_dice")
    assert not zombie.get_type().provides_information_state_tensor
    with pytest.raises(Exception, match="no information-state tensor"):
        zombie.new_initial_state().information_state_tensor(0)
    with pytest.raises(Exception, match="no public-only observation"):
        make_observation(pyspiel.load_game("dice_envs_shakes", {"num_players": 3, "mode": "maesters"}),
                         kind(perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))


def test_openspiel_s_parameter_names_are_accepted():
    """Issue 26: where OpenSpiel has a game of the name, its parameter names work too."""
    ours = pyspiel.load_game("dice_envs_liars_dice", {"numdice": 2, "dice_sides": 4, "players": 2, "wild": True})
    theirs = pyspiel.load_game("liars_dice", {"numdice": 2, "dice_sides": 4, "players": 2})
    assert ours.get_parameters()["dice_per_player"] == 2 and ours.get_parameters()["faces"] == 4
    assert ours.num_distinct_actions() == theirs.num_distinct_actions() == 17
    assert pyspiel.load_game("dice_envs_pig", {"winscore": 20}).core.goal == 20
    with pytest.raises(Exception, match="name the same parameter"):
        pyspiel.load_game("dice_envs_liars_dice", {"numdice": 2, "dice_per_player": 3})


@pytest.mark.parametrize("params, message", [
    ({"dice_per_player": 2, "dice": "1,1"}, r"dice='1,1' and dice_per_player=2 conflict \(dice overrides dice_per_player\)"),
    ({"wild": True, "wild_rule": "aces"}, r"wild_rule='aces' and wild=True conflict"),
    ({"wild": True, "wild_rule": "none"}, r"wild_rule='none' and wild=True conflict"),
    ({"numdice": 2, "dice": "1,1"}, r"dice='1,1' and dice_per_player=2 conflict"),
    # OpenSpiel's names given at OpenSpiel's defaults: pyspiel fills every parameter in, so these were ignored
    ({"numdice": 1, "dice_per_player": 2}, r"numdice=1 and dice_per_player=2 name the same parameter"),
    ({"players": 2, "num_players": 3}, r"players=2 and num_players=3 name the same parameter"),
    ({"dice_sides": 6, "faces": 4}, r"dice_sides=6 and faces=4 name the same parameter"),
])
def test_conflicting_parameters_are_refused(params, message):
    """Issue 58 item 19: ``{"dice_per_player": 2, "dice": "1,1"}`` built one die each and reported two;
    issue 56 item 10: an OpenSpiel name given at its default (``numdice=1``) could not be told from one
    not given, so it lost silently to the parameter it names."""
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game("dice_envs_liars_dice", params)


def test_parameters_that_agree_are_accepted():
    """Two names for one game are not a conflict; OpenSpiel's names default to -1, "not given"."""
    assert pyspiel.load_game("dice_envs_liars_dice", {"dice_per_player": 2, "dice": "2,2"}).core.dice == (2, 2)
    assert pyspiel.load_game("dice_envs_liars_dice", {"wild": True, "wild_rule": "highest"}).core.wild == \
        pyspiel.load_game("dice_envs_liars_dice", {"wild": True}).core.wild
    assert pyspiel.load_game("dice_envs_liars_dice", {"numdice": 2, "dice_per_player": 2}).core.dice == (2, 2)
    assert pyspiel.load_game("dice_envs_liars_dice", {"numdice": 1}).core.dice == (1, 1)
    spec = pyspiel.load_game("dice_envs_pig").get_type().parameter_specification
    assert spec["winscore"] == spec["diceoutcomes"] == -1 and spec["goal"] == 100
    assert pyspiel.load_game("dice_envs_pig", {"winscore": 20, "goal": 20}).core.goal == 20


def test_a_parameter_that_overrides_another_leaves_it_out_of_the_game_s_name():
    """``wild_rule`` and ``dice`` override ``wild`` and ``dice_per_player`` (OpenSpiel's parameters have
    one type each): the game's name shows the rule played, not ``wild=False`` next to ``wild_rule=highest``."""
    import pickle

    highest = pyspiel.load_game("dice_envs_liars_dice", {"wild_rule": "highest", "dice_sides": 5, "numdice": 2})
    assert "wild=" not in str(highest) and "wild_rule=highest" in str(highest)
    assert highest.core.wild == pyspiel.load_game("dice_envs_liars_dice", {"wild": True}).core.wild
    uneven = pyspiel.load_game("dice_envs_liars_dice", {"dice": "2,1", "wild_rule": "aces"})
    assert "dice_per_player=" not in str(uneven) and uneven.core.dice == (2, 1)
    for game in (highest, uneven):
        assert str(pickle.loads(pickle.dumps(game))) == str(game)
    assert "wild=True" in str(pyspiel.load_game("dice_envs_liars_dice", {"wild": True}))


def _states_of_a_game(game, seed=0):
    """Every state of one random game of ``game``, from the initial state to the end."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    states = [state.clone()]
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
        states.append(state.clone())
    return states


@pytest.mark.parametrize("name", sorted(SMALL))
def test_current_player_is_an_int_as_a_cpp_game_s(name):
    """Issue 53: ``current_player()`` returned ``PlayerId`` members at chance and terminal nodes,
    where OpenSpiel's C++ games return ints."""
    for state in _states_of_a_game(pyspiel.load_game(name, SMALL[name])):
        assert type(state.current_player()) is int
    cpp = pyspiel.load_game("liars_dice").new_initial_state()
    assert type(cpp.current_player()) is int and cpp.current_player() == pyspiel.PlayerId.CHANCE


def test_a_pickled_game_loads_in_a_fresh_process(tmp_path):
    """Issue 53: a pickled game failed with "Unknown game" in a process that had not imported
    ``dice_envs.openspiel`` (a spawned multiprocessing worker, a Ray worker); unpickling it now
    imports the module, which registers the games."""
    import pickle
    import subprocess
    import sys

    game = pyspiel.load_game("dice_envs_liars_dice", {"faces": 3, "wild_rule": "aces"})
    path = tmp_path / "game.pickle"
    path.write_bytes(pickle.dumps(game))
    script = ("import pickle, sys, pyspiel; game = pickle.loads(open(sys.argv[1], 'rb').read()); "
              "print(str(game), game.num_distinct_actions())")
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f"{game} {game.num_distinct_actions()}"


def test_a_tensor_costs_one_write_and_agrees_with_pyspiel_s_own_methods(monkeypatch):
    """Issue 53: pyspiel's ``information_state_tensor`` asks the game for the tensor's shape, which
    writes a fresh initial state's tensor, before writing the state's: two writes a call.  The state's
    own methods write once, and answer as pyspiel's (C++) methods do, at every node."""
    from dice_envs.games.liars_dice.rules import LiarsDiceState

    game = pyspiel.load_game("dice_envs_liars_dice", {"dice_per_player": 2, "faces": 3, "wild_rule": "highest"})
    writes = []
    observation = LiarsDiceState.observation
    monkeypatch.setattr(LiarsDiceState, "observation", lambda self, player: writes.append(player) or
                        observation(self, player))
    for state in _states_of_a_game(game):
        for player in (0, 1):
            assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
            del writes[:]
            ours = state.information_state_tensor(player)
            assert writes == [player]
            assert ours == pyspiel.State.information_state_tensor(state, player)
            assert state.observation_tensor(player) == pyspiel.State.observation_tensor(state, player)
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        assert state.is_terminal() == pyspiel.State.is_terminal(state)
        assert state.rewards() == pyspiel.State.rewards(state)
    with pytest.raises(ValueError, match="player must be from 0 to 1"):
        state.information_state_tensor(2)


# -- OpenSpiel's agents of Liar's Dice, scored exactly (issue 53) ---------------------------------------


def _random_tabular_policy(game, seed=1):
    from open_spiel.python import policy as os_policy

    table = os_policy.TabularPolicy(game)
    x = np.random.default_rng(seed).random(table.action_probability_array.shape) * table.legal_actions_mask
    table.action_probability_array = x / x.sum(axis=1, keepdims=True)
    return table


def _actor(game, seed=0):
    import torch

    torch.manual_seed(seed)
    size = game.information_state_tensor_shape()[0]
    return torch.nn.Sequential(torch.nn.Linear(size, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32), torch.nn.Tanh(),
                               torch.nn.Linear(32, game.num_distinct_actions()))


def _actor_policy(game, actor):
    """OpenSpiel's tabular policy of ``actor`` (logits over the information-state tensor), one state at a time."""
    import torch
    from open_spiel.python import policy as os_policy

    def probabilities(state):
        with torch.no_grad():
            z = actor(torch.tensor([state.information_state_tensor(state.current_player())])).numpy()[0]
        legal = state.legal_actions()
        e = np.exp(z[legal].astype(np.float64) - z[legal].max())
        return dict(zip(legal, e / e.sum()))

    return os_policy.tabular_policy_from_callable(game, probabilities)


@pytest.mark.parametrize("numdice, sides", [(1, 6), (2, 5), (2, 3), (3, 2)])
def test_openspiel_s_liars_dice_tensors_are_ours_converted(numdice, sides):
    """OpenSpiel's ``liars_dice`` information-state tensor (33 floats for two dice of five faces, each
    player's dice sorted ascending) is ours converted, at every decision of 100 random games; its
    states read as ours have the same legal actions and returns."""
    from dice_envs.agents.liars_dice.openspiel_agents import (
        liars_dice_game,
        liars_dice_state,
        openspiel_tensor_size,
        openspiel_tensors,
    )

    game = pyspiel.load_game("liars_dice", {"numdice": numdice, "dice_sides": sides})
    core = liars_dice_game(game)
    assert openspiel_tensor_size(core) == game.information_state_tensor_shape()[0]
    rng = np.random.default_rng(0)
    decisions = 0
    for _ in range(100):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                player, ours = state.current_player(), liars_dice_state(state)
                assert ours.legal_actions() == tuple(state.legal_actions())
                converted = openspiel_tensors(core, ours.observation(player)[None])[0]
                assert converted.tolist() == state.information_state_tensor(player)
                decisions += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
        assert liars_dice_state(state).returns() == tuple(state.returns())
    assert decisions > 200
    assert openspiel_tensor_size(liars_dice_game(pyspiel.load_game("liars_dice", {"numdice": 2, "dice_sides": 5}))) == 33


def test_an_openspiel_policy_is_scored_as_openspiel_scores_it():
    """A TabularPolicy of OpenSpiel's ``liars_dice`` and one of ``dice_envs_liars_dice``: our exact
    exploitability and best responses' values are OpenSpiel's, by ``score`` and by the hook."""
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from dice_envs.agents.liars_dice.openspiel_agents import exploitability, liars_dice_game
    from dice_envs.agents.scoring import score

    for game in (pyspiel.load_game("liars_dice", {"numdice": 1, "dice_sides": 4}),
                 pyspiel.load_game("dice_envs_liars_dice", {"dice": "1,2", "faces": 2, "wild_rule": "aces"})):
        table = _random_tabular_policy(game)
        best = [os_exploitability.best_response(game, table, p)["best_response_value"] for p in (0, 1)]
        hook = exploitability(table)
        assert hook.best_response == pytest.approx(best, abs=1e-12)
        assert hook.exploitability == pytest.approx(sum(best) / 2, abs=1e-12)  # OpenSpiel's exploitability
        report = score("liars-dice", table)
        assert report["agent_type"] == "openspiel" and report["exploitability"] == pytest.approx(hook.exploitability)
        assert report["details"]["best_response_values"] == pytest.approx(best, abs=1e-12)
        assert report["config"]["faces"] == liars_dice_game(game).faces


def test_a_network_over_openspiel_s_tensors_is_scored_exactly_in_memory_and_streamed():
    """An actor over OpenSpiel's tensors (logits, as IIG-RL-Benchmark's): the hook's exploitability
    is OpenSpiel's of the actor's tabular policy; ``score`` gives the same through the in-memory
    tree; a pair of actors plays one seat each."""
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from dice_envs.agents.evaluate.observation_agents import FunctionAgent
    import torch

    from dice_envs.agents.liars_dice.openspiel_agents import exploitability
    from dice_envs.agents.scoring import score

    game = pyspiel.load_game("liars_dice", {"numdice": 1, "dice_sides": 3})
    actor, other = _actor(game, 0), _actor(game, 1)
    theirs = os_exploitability.exploitability(game, _actor_policy(game, actor))
    assert exploitability(actor, game).exploitability == pytest.approx(theirs, abs=1e-6)
    assert exploitability(actor, "liars_dice(numdice=1,dice_sides=3)", block_bits=3).exploitability == \
        pytest.approx(theirs, abs=1e-6)
    assert score("liars-dice", actor, input="openspiel", faces=3)["exploitability"] == pytest.approx(theirs, abs=1e-6)
    # one actor a seat: OpenSpiel's figure for the policy that plays each seat with its own actor
    p0, p1 = _actor_policy(game, actor), _actor_policy(game, other)
    for state, row in p1.state_lookup.items():
        if p1.states[row].current_player() == 1:
            p0.action_probability_array[p0.state_lookup[state]] = p1.action_probability_array[row]
    assert exploitability((actor, other), game).exploitability == \
        pytest.approx(os_exploitability.exploitability(game, p0), abs=1e-6)
    with pytest.raises(ValueError, match="OpenSpiel's liars_dice is two players"):
        score("liars-dice", actor, input="openspiel", faces=3, wild="aces")
    # over dice_envs_liars_dice's tensors (our observations): as a function over observations is scored
    ours = pyspiel.load_game("dice_envs_liars_dice", {"faces": 3, "wild_rule": "aces"})
    net = _actor(ours)

    def softmax_of_net(obs, masks):
        with torch.no_grad():
            z = np.where(masks, net(torch.tensor(np.array(obs))).double().numpy(), -np.inf)
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    as_function = FunctionAgent(softmax_of_net, "net")
    expected = score("liars-dice", as_function, faces=3, wild="aces")["exploitability"]
    assert exploitability(net, ours).exploitability == pytest.approx(expected, abs=1e-12)
    assert score("liars-dice", net, faces=3, wild="aces")["exploitability"] == pytest.approx(expected, abs=1e-12)
    with pytest.raises(ValueError, match="tensors are the 'dice-envs' layout, not 'openspiel'"):
        exploitability(net, ours, layout="openspiel")


def test_evaluate_reads_openspiel_agents_from_the_command_line(tmp_path, monkeypatch, capsys):
    """``dice-envs evaluate liars-dice module:attr`` with an OpenSpiel policy or an actor, and a bare
    weights file with ``--input openspiel``."""
    import json
    import sys

    import torch

    from dice_envs.agents.cli import main
    from dice_envs.agents.liars_dice.openspiel_agents import exploitability

    game = pyspiel.load_game("liars_dice", {"numdice": 1, "dice_sides": 3})
    actor = _actor(game)
    expected = exploitability(actor, game)
    module = type(sys)("field_agents")
    module.policy, module.actor = _random_tabular_policy(game), actor
    monkeypatch.setitem(sys.modules, "field_agents", module)

    def evaluate(*argv):
        assert main(["evaluate", "liars-dice", *argv, "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    by_policy = evaluate("field_agents:policy")
    assert by_policy["agent_type"] == "openspiel" and by_policy["config"]["faces"] == 3
    assert by_policy["exploitability"] == pytest.approx(exploitability(module.policy).exploitability)
    by_module = evaluate("field_agents:actor", "--input", "openspiel", "--faces", "3")
    assert by_module["exploitability"] == pytest.approx(expected.exploitability)
    path = tmp_path / "agent.pth"
    torch.save(actor.state_dict(), path)
    by_file = evaluate(str(path), "--input", "openspiel", "--faces", "3")
    assert by_file["exploitability"] == pytest.approx(expected.exploitability)
    assert by_file["details"]["best_response_values"] == pytest.approx(list(expected.best_response))
    for faces, bad, error in [("4", None, "its input has 15 values"),
                              ("3", {"0.weight": torch.full((4, 12), float("nan")), "0.bias": torch.zeros(4)},
                               "0.weight is not a tensor of finite numbers"),
                              ("3", {"0.weight": torch.zeros((4, 12)), "0.bias": torch.zeros(4)}, "4 outputs")]:
        if bad is not None:
            torch.save(bad, path)
        with pytest.raises(SystemExit):
            main(["evaluate", "liars-dice", str(path), "--input", "openspiel", "--faces", faces])
        assert error in capsys.readouterr().err
