"""The Closest Number rules core and environment: PettingZoo API, rules, hidden decoys, bad input."""

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import dice_envs
from dice_envs import closest_number_v0
from dice_envs.core.game import IllegalActionError
from dice_envs.games.closest_number.rules import ClosestNumberGame, score_board


@pytest.mark.parametrize(
    "kwargs",
    [dict(), dict(numbers=4), dict(num_players=3, numbers=7, round3="one_card"), dict(num_players=5),
     dict(starting_player=1, numbers=5)],
)
def test_api(kwargs):
    api_test(closest_number_v0.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", [dict(), dict(num_players=4, numbers=9)])
def test_seed(kwargs):
    seed_test(lambda: closest_number_v0.env(**kwargs), num_cycles=300)


def test_registry_and_module_forms():
    env = pettingzoo.make("aec", "dice_envs/closest_number-v0", numbers=6, round3="one_card")
    assert isinstance(env.unwrapped, closest_number_v0.raw_env)
    assert env.unwrapped.game.numbers == 6 and env.unwrapped.game.round3 == "one_card"
    assert dice_envs.all_environments["closest_number_v0"] is closest_number_v0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(numbers=3), "numbers must be an integer from 4 to 40"),
        (dict(numbers=41), "numbers must be an integer from 4 to 40"),
        (dict(numbers=10.0), "numbers must be an integer"),
        (dict(num_players=1), "num_players must be an integer from 2 to 5"),
        (dict(num_players=6), "num_players must be an integer from 2 to 5"),
        (dict(num_players=3, numbers=5), "num_players must be an integer from 2 to 2"),
        (dict(starting_player=2), "starting_player must be an integer from 0 to 1"),
        (dict(starting_player=True), "starting_player must be an integer"),
        (dict(round3="three_cards"), "round3 must be one of"),
        (dict(render_mode="rgb"), "render_mode"),
        (dict(max_cycles=0), "max_cycles"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        closest_number_v0.raw_env(**kwargs)


@settings(max_examples=40, deadline=None)
@given(numbers=st.integers(-5, 60), players=st.integers(-2, 30))
def test_bad_configuration_is_a_value_error_naming_the_argument(numbers, players):
    ok = 4 <= numbers <= 40 and 2 <= players <= numbers // 2
    if ok:
        assert ClosestNumberGame(players, numbers).num_actions == 2 * numbers
    else:
        with pytest.raises(ValueError, match="numbers|num_players"):
            ClosestNumberGame(players, numbers)


@pytest.mark.parametrize(
    "cards, n, points",
    [
        ([(0, 5), (1, 6)], 10, (5, 5)),  # the halves
        ([(0, 5), (1, 3)], 5, (1, 3)),  # 4 is equally far from 3 and 5: nobody scores it
        ([(0, 8), (1, 3), (2, 2)], 10, (5, 3, 2)),
        ([(0, 1), (0, 10), (1, 5)], 10, (5, 4)),  # two scoring cards: the nearest counts (round 3)
        ([(0, 4)], 6, (6, 0)),  # an opponent with no scoring card (decoy only)
        ([], 4, (0, 0)),
    ],
)
def test_scoring_by_hand(cards, n, points):
    assert score_board(cards, len(points), n) == points


def _play(state, *moves):
    for m in moves:
        number, decoy = (m, False) if isinstance(m, int) else m
        state = state.apply(state.game.action(number, decoy))
    return state


def test_round_flow_decoys_and_rotation():
    game = ClosestNumberGame(numbers=6, starting_player=1)
    s = game.new_initial_state()
    assert s.current_player == 1 and s.round == 1
    s = _play(s, 3, 4)  # player 1 on 3 (1, 2, 3), player 0 on 4 (4, 5, 6)
    assert s.round == 2 and s.scores == (3, 3) and s.current_player == 0  # the starter rotates
    assert set(s.legal_actions()) == set(range(12))  # first card: scoring or decoy, anywhere
    s = _play(s, (1, True), 2)  # player 0's decoy on 1, player 1's card on 2
    assert s.current_player == 0 and set(s.legal_actions()) == {game.action(k) for k in (3, 4, 5, 6)}
    s = _play(s, 5)
    assert s.current_player == 1 and set(s.legal_actions()) == {game.action(k, True) for k in (3, 4, 6)}
    s = _play(s, (6, True))
    # scoring cards 5 (player 0) and 2 (player 1): 1, 2, 3 -> player 1; 4, 5, 6 -> player 0
    assert s.scores == (6, 6) and s.round == 3 and s.active == (0, 1) and not s.is_terminal()
    assert s.current_player == 1  # round 3 is started by round 1's starter again
    assert s.rules.cards == 2 and not s.rules.decoy


def test_illegal_placements_give_clear_errors():
    env = closest_number_v0.raw_env(numbers=6, starting_player=0)
    env.reset(seed=0)
    game = env.game
    with pytest.raises(IllegalActionError, match="round 1 has no decoys"):
        env.step(game.action(2, decoy=True))
    env.step(game.action(3))
    with pytest.raises(IllegalActionError, match=r"number 3 is already taken.*legal actions: 0=card on 1"):
        env.step(game.action(3))
    env.step(game.action(4))  # round 2, player 1 starts
    env.step(game.action(1, decoy=True))
    env.step(game.action(2))
    with pytest.raises(IllegalActionError, match="player 1 has already placed a decoy this round"):
        env.step(game.action(5, decoy=True))
    env.step(game.action(5))
    with pytest.raises(IllegalActionError, match="player 0's last card this round must be the decoy"):
        env.step(game.action(6))
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(99)
    with pytest.raises(IllegalActionError, match="must be an integer"):
        env.game_state.check_action("six")


def test_wrapped_env_punishes_illegal_action():
    env = closest_number_v0.env(starting_player=0)
    env.reset(seed=0)
    env.step(env.unwrapped.game.action(5, decoy=True))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1, "player_1": 0}


def test_opponents_decoys_are_hidden_until_the_round_is_scored():
    game = ClosestNumberGame(numbers=6, starting_player=1)
    start = _play(game.new_initial_state(), 3, 4)
    a = _play(start, (1, True), 2)
    b = _play(start, 1, 2)
    assert np.array_equal(a.observation(1), b.observation(1))
    assert a.information_state(1) == b.information_state(1)
    assert not np.array_equal(a.observation(0), b.observation(0))
    assert "P0?" in a.describe(1) and "P0d" in a.describe(0) and "P0d" in str(a)
    # after the round, every card is face up in the history
    end = _play(a, 5, (6, True))
    assert end.history[-1] == ((0, 1, True), (1, 2, False), (0, 5, False), (1, 6, True))


def test_tiebreak_rounds_shrink_the_board_and_end_when_full():
    game = ClosestNumberGame(numbers=5, starting_player=0)
    s = game.state_at_round(4, (7, 7), first=0)
    assert s.rules.numbers == 4 and s.rules.decoy and s.current_player == 1  # round 4 rotates to seat 1
    assert max(game.decode(a)[0] for a in s.legal_actions()) == 4
    with pytest.raises(IllegalActionError, match=r"number 5 is not on the board in round 4 \(numbers 1..4\)"):
        s.check_action(game.action(5))
    last = game.state_at_round(game.last_round, (9, 9), first=0)
    assert last.rules.numbers == 1 and game.last_round == 7
    # one number: the starter's decoy fills the board, nobody scores, still tied after the last round: draw
    end = _play(last, (1, True))
    assert end.is_terminal() and end.returns() == (0.0, 0.0) and end.winner is None
    won = _play(last, 1)
    assert won.is_terminal() and won.winner == last.current_player
    # three numbers under round 2's rules: the fourth card has no room, the round ends at once
    s5 = game.state_at_round(5, (2, 2), first=0)
    assert s5.rules.numbers == 3 and s5.current_player == 0
    after = _play(s5, 1, (2, True), (3, True))
    assert after.is_terminal() and after.scores == (5, 2) and after.returns() == (1.0, -1.0)


@pytest.mark.parametrize("round3, cards", [("two_cards", 2), ("one_card", 1)])
def test_round3_readings(round3, cards):
    game = ClosestNumberGame(numbers=8, round3=round3)
    rules = game.round_rules(3)
    assert rules == type(rules)(8, cards, False)
    assert game.round_rules(4).numbers == 7 and game.round_rules(4).decoy


def test_three_players_only_tied_leaders_play_on():
    game = ClosestNumberGame(num_players=3, numbers=8, starting_player=0)
    s = game.state_at_round(2, (3, 2, 4), first=0)
    assert s.turn_order() == (1, 2, 0)
    s = _play(s, 8, 1, (4, True), (7, True), (2, True), 5)
    # scoring cards 5 (seat 0: 4, 5, 6), 8 (seat 1: 7, 8), 1 (seat 2: 1, 2); 3 is a tie
    assert s.scores == (6, 4, 6) and s.round == 3 and s.active == (0, 2)
    assert s.turn_order() == (2, 0)  # round 3 would start at seat 2, which is in contention
    s = _play(s, 1, 8, 2, 7)  # round 3 (two scoring cards each): seat 2 gets 1..4, seat 0 gets 5..8
    assert s.scores == (10, 4, 10) and s.round == 4 and s.rules.numbers == 7 and s.turn_order() == (0, 2)
    s = _play(s, 4, (3, True), (5, True), 2)
    assert s.is_terminal() and s.winner == 0 and s.returns() == (1.0, -1.0, -1.0)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), players=st.integers(2, 4), numbers=st.integers(8, 12),
       round3=st.sampled_from(["two_cards", "one_card"]))
def test_random_play_follows_the_rules(seed, players, numbers, round3):
    env = closest_number_v0.raw_env(num_players=players, numbers=numbers, round3=round3)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    space = env.observation_space("player_0")["observation"]
    for agent in env.agent_iter(max_iter=10_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.game_state
        seat = env.agent_name_mapping[agent]
        assert space.contains(obs["observation"])
        assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(state.legal_actions())
        mine = [d for s, _, d in state.placements if s == seat]
        if state.rules.decoy and mine:
            assert all(state.game.decode(a)[1] != mine[0] for a in state.legal_actions())
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    final = env.game_state
    assert final.is_terminal()
    # the scores are the rules' scoring of every finished round, face up
    totals = [0] * players
    for r, placements in enumerate(final.history, start=1):
        n = final.game.round_rules(r).numbers
        for s, q in enumerate(score_board(((s, k) for s, k, d in placements if not d), players, n)):
            totals[s] += q
        assert len({k for _, k, _ in placements}) == len(placements)
    assert tuple(totals) == final.scores
    returns = final.returns()
    if final.winner is not None:
        assert returns[final.winner] == 1.0 and sorted(returns)[:-1] == [-1.0] * (players - 1)
        assert final.scores[final.winner] == max(final.scores[s] for s in final.active)
    else:
        assert final.round == final.game.last_round


def test_render_ansi_and_human(capsys):
    env = closest_number_v0.raw_env(render_mode="ansi", numbers=5, starting_player=0)
    env.reset(seed=3)
    env.step(2)
    text = env.render()
    assert "player_0: card on 3" in text and "round 1" in text
    human = closest_number_v0.raw_env(render_mode="human", numbers=5)
    human.reset(seed=3)
    human.step(0)
    assert "card on 1" in capsys.readouterr().out


def test_single_agent_id_against_the_equilibrium():
    """dice_envs/ClosestNumber-v0: Gymnasium's checker passes, and random play loses to the
    equilibrium far more often than it wins (its value for any agent is at most 0)."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("dice_envs/ClosestNumber-v0", numbers=6)
    check_env(env.unwrapped, skip_render_check=True)
    rng = np.random.default_rng(0)
    total = 0.0
    for game in range(200):
        obs, info = env.reset(seed=game)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        total += reward
    assert total / 200 < -0.3
    with pytest.raises(ValueError, match="two players"):
        gymnasium.make("dice_envs/ClosestNumber-v0", num_players=3, numbers=8)
    with pytest.raises(ValueError, match="opponent"):
        gymnasium.make("dice_envs/ClosestNumber-v0", opponent="optimal")
    with pytest.raises(ValueError, match="no equilibrium opponent yet"):
        gymnasium.make_vec("dice_envs/ClosestNumber-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           opponent="equilibrium")
