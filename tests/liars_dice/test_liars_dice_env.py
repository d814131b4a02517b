"""The Liar's Dice rules core and environment: PettingZoo API, rules, bad input."""

from fractions import Fraction

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import dice_envs
from dice_envs import liars_dice_v1
from dice_envs.core.game import IllegalActionError
from dice_envs.games.liars_dice.rules import SEED_TREE_SIZES, LiarsDiceGame, seed_game, tree_size


@pytest.mark.parametrize(
    "kwargs",
    [dict(), dict(faces=2), dict(wild=True), dict(num_players=3, dice_per_player=2, faces=4, wild=True),
     dict(faces=4, max_quantity=4), dict(dice_per_player=(2, 1), wild="aces"),
     dict(num_players=3, dice_per_player=(1, 3, 2), faces=4, wild="aces", starting_player=1)],
)
def test_api(kwargs):
    api_test(liars_dice_v1.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", [dict(), dict(num_players=4, dice_per_player=2),
                                    dict(dice_per_player=(1, 2), wild="aces", starting_player=1)])
def test_seed(kwargs):
    seed_test(lambda: liars_dice_v1.env(**kwargs), num_cycles=300)


def test_registry_and_module_forms():
    env = pettingzoo.make("aec", "dice_envs/liars_dice-v1", faces=4, wild=True)
    assert isinstance(env.unwrapped, liars_dice_v1.raw_env)
    assert env.unwrapped.game.faces == 4 and env.unwrapped.game.wild
    assert dice_envs.all_environments["liars_dice_v1"] is liars_dice_v1


def test_version_0_stays_with_its_observation_and_version_1_appends_the_dice_counts():
    """PettingZoo bumps the version when an observation changes: v1 appends the dice counts, v0
    (which the models saved by dice_envs 0.1 read) is the same game without them."""
    from dice_envs import liars_dice_v0

    assert dice_envs.earlier_environments["liars_dice_v0"] is liars_dice_v0
    kwargs = dict(dice_per_player=(2, 1), faces=4, wild="aces")
    old = pettingzoo.make("aec", "dice_envs/liars_dice-v0", **kwargs)
    new = liars_dice_v1.env(**kwargs)
    api_test(liars_dice_v0.env(**kwargs), num_cycles=100)
    game = new.unwrapped.game
    assert old.unwrapped.metadata["name"] == "liars_dice_v0" and new.unwrapped.metadata["name"] == "liars_dice_v1"
    assert old.observation_space("player_0")["observation"].shape == (game.prefix_size,) == (2 + 4 + 12 + 1,)
    assert new.observation_space("player_0")["observation"].shape == (game.prefix_size + 2,)
    old.reset(seed=3)
    new.reset(seed=3)
    for agent in new.agent_iter(4):
        v0, v1 = old.observe(agent)["observation"], new.observe(agent)["observation"]
        np.testing.assert_array_equal(v0, v1[: game.prefix_size])
        np.testing.assert_array_equal(v1[game.prefix_size:], [2, 1])
        action = int(np.flatnonzero(new.observe(agent)["action_mask"])[0])
        old.step(action)
        new.step(action)
    flat = liars_dice_v0.raw_env(observation="flat")
    flat.reset(seed=0)
    assert flat.observe("player_0").shape == flat.observation_space("player_0").shape == (2 + 6 + 12 + 1,)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(num_players=1), "num_players must be an integer from 2 to 6"),
        (dict(num_players=7), "num_players"),
        (dict(num_players=2.0), "num_players must be an integer"),
        (dict(dice_per_player=0), "dice_per_player must be an integer from 1 to 5"),
        (dict(dice_per_player=6), "dice_per_player"),
        (dict(faces=1), "faces must be an integer from 2 to 6"),
        (dict(faces=7), "faces"),
        (dict(faces=True), "faces must be an integer"),
        (dict(wild="yes"), "wild must be one of"),
            (dict(wild="twos"), "wild must be one of"),
            (dict(dice_per_player=(0, 2)), r"dice_per_player\[0\] must be an integer from 1 to 5"),
            (dict(dice_per_player=(1, 2, 3)), "one count per player"),
        (dict(max_quantity=0), "max_quantity"),
        (dict(render_mode="rgb"), "render_mode"),
        (dict(max_cycles=0), "max_cycles"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        liars_dice_v1.raw_env(**kwargs)


def test_action_numbering_follows_the_seed_order():
    game = LiarsDiceGame(faces=3)
    assert [game.bid(a) for a in range(game.num_bids)] == [(q, f) for q in (1, 2) for f in (1, 2, 3)]
    assert game.bid_action(2, 1) == 3 and game.call_action == 6
    assert game.action_name(4) == "bid 2x2" and game.action_name(6) == "call"
    with pytest.raises(ValueError, match="face must be an integer from 1 to 3"):
        game.bid_action(1, 4)


def test_call_only_after_a_bid_and_bids_must_go_up():
    env = liars_dice_v1.raw_env(faces=3)
    env.reset(seed=0)
    mask = env.observe("player_0")["action_mask"]
    assert mask.tolist() == [1, 1, 1, 1, 1, 1, 0]  # every bid, no call
    assert env.observe("player_1")["action_mask"].sum() == 0
    with pytest.raises(IllegalActionError, match=r"action 6 \(call\) is illegal.*legal actions: 0=bid 1x1"):
        env.step(6)
    env.step(4)  # bid 2x2
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0, 0, 0, 0, 1, 1]
    with pytest.raises(IllegalActionError, match=r"action 3 \(bid 2x1\) is illegal.*5=bid 2x3, 6=call"):
        env.step(3)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(9)


def test_wrapped_env_punishes_illegal_action():
    env = liars_dice_v1.env()
    env.reset(seed=0)
    env.step(env.unwrapped.game.call_action)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1, "player_1": 0}


@pytest.mark.parametrize(
    "rolls, bid, true",
    [
        (((1,), (6,)), (2, 6), True),  # the ace counts for sixes
        (((1,), (6,)), (2, 1), False),  # a bid on aces counts only aces
        (((1,), (1,)), (2, 1), True),
        (((1, 1), (3,)), (3, 3), True),
        (((1, 2), (3,)), (2, 2), True),
        (((6, 6), (6,)), (1, 1), False),
        (((2, 4), (5,)), (1, 3), False),
    ],
)
def test_aces_wild(rolls, bid, true):
    game = LiarsDiceGame(dice_per_player=tuple(map(len, rolls)), wild="aces")
    assert game.bid_is_true(game.bid_action(*bid), rolls) is true
    assert game.wild_face == 1 and game.wild
    state = game.new_initial_state().apply(rolls).apply(game.bid_action(*bid)).apply(game.call_action)
    assert state.returns() == ((1.0, -1.0) if true else (-1.0, 1.0))


def test_wild_rules_and_dice_per_player_spellings():
    assert LiarsDiceGame(wild=True).wild_rule == "highest" and LiarsDiceGame(wild=False).wild_rule == "none"
    assert LiarsDiceGame(wild=True) == LiarsDiceGame(wild="highest")
    assert LiarsDiceGame(dice_per_player=(2, 2)) == LiarsDiceGame(dice_per_player=2)
    game = LiarsDiceGame(dice_per_player=[1, 2], wild="aces", starting_player=1)
    assert game.dice == (1, 2) and game.total_dice == 3 and game.num_bids == 18
    assert LiarsDiceGame(**game.config()) == game and hash(LiarsDiceGame(**game.config())) == hash(game)
    assert game.describe() == "1 and 2 six-sided dice, aces wild"
    # The observation is 0.1's (seat, own dice, bids, call) followed by the dice counts.
    state = game.new_initial_state().apply(((3,), (1, 5))).apply(4)
    obs = state.observation(0)
    assert obs.shape == game.observation_shape == (game.prefix_size + 2,)
    assert obs[game.prefix_size:].tolist() == [1.0, 2.0] and obs[:2].tolist() == [1.0, 0.0]
    assert state.current_player == 0 and state.bidder == 1  # player 1 bid first


@pytest.mark.parametrize(
    "rolls, bid, wild, true",
    [
        (((1,), (6,)), (2, 1), True, True),  # the six is wild
        (((1,), (6,)), (2, 1), False, False),
        (((6,), (1,)), (2, 6), True, False),  # a bid on the wild face counts sixes only
        (((6,), (6,)), (2, 6), True, True),
        (((6,), (6,)), (2, 3), True, True),
        (((3,), (5,)), (1, 3), False, True),
        (((2, 6), (2, 4)), (3, 2), True, True),
        (((2, 6), (2, 4)), (3, 2), False, False),
    ],
)
def test_bid_truth_and_wild_face(rolls, bid, wild, true):
    game = LiarsDiceGame(dice_per_player=len(rolls[0]), faces=6, wild=wild)
    assert game.bid_is_true(game.bid_action(*bid), rolls) is true
    state = game.new_initial_state().apply(rolls).apply(game.bid_action(*bid)).apply(game.call_action)
    bidder_wins = 1.0 if true else -1.0
    assert state.returns() == (bidder_wins, -bidder_wins)
    assert state.winner == (0 if true else 1)


def test_seed_tree_sizes():
    """The seed's node counts: 125 / 9,208 / 2,097,137 for 2/3/4-sided dice, quantities up to the faces."""
    from dice_envs.agents.solve.game_tree import build_tree

    for faces, size in SEED_TREE_SIZES.items():
        assert tree_size(seed_game(faces)) == size
    for faces in (2, 3):
        assert len(build_tree(seed_game(faces))) == SEED_TREE_SIZES[faces]
    # The proper game (quantities up to the 2 dice in play) is smaller.
    assert tree_size(LiarsDiceGame(faces=4)) == len(build_tree(LiarsDiceGame(faces=4))) == 8_177


def test_chance_is_exact():
    game = LiarsDiceGame(dice_per_player=2, faces=3)
    dist = dict(game.roll_distribution())
    assert dist == {(1, 1): Fraction(1, 9), (1, 2): Fraction(2, 9), (1, 3): Fraction(2, 9), (2, 2): Fraction(1, 9),
                    (2, 3): Fraction(2, 9), (3, 3): Fraction(1, 9)}
    joint = game.chance_distribution()
    assert len(joint) == 36 and sum(p for _, p in joint) == 1


def _count_true(rolls, quantity, face, faces, wild):
    """An independent reading of the rules: does the bid hold?"""
    joker = {"none": None, "highest": faces, "aces": 1}[wild]
    dice = [f for roll in rolls for f in roll]
    n = sum(1 for f in dice if f == face or (f == joker and face != joker))
    return n >= quantity


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    num_players=st.integers(2, 4),
    dice=st.lists(st.integers(1, 3), min_size=4, max_size=4),
    same_dice=st.booleans(),
    faces=st.integers(2, 6),
    wild=st.sampled_from(["none", "highest", "aces"]),
    first=st.integers(0, 3),
)
def test_random_play_follows_the_rules(seed, num_players, dice, same_dice, faces, wild, first):
    dice = dice[0] if same_dice else tuple(dice[:num_players])
    first %= num_players
    env = liars_dice_v1.raw_env(num_players=num_players, dice_per_player=dice, faces=faces, wild=wild,
                                starting_player=first)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    game = env.game
    space = env.observation_space("player_0")["observation"]
    last = -1
    for agent in env.agent_iter(max_iter=1000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.game_state
        seat = env.agent_name_mapping[agent]
        assert space.contains(obs["observation"])
        own = obs["observation"][num_players : num_players + faces]
        assert own.tolist() == [state.rolls[seat].count(f) for f in range(1, faces + 1)]
        assert obs["observation"][-num_players:].tolist() == [len(r) for r in state.rolls]
        assert seat == (first + len(state.bids)) % num_players
        mask = obs["action_mask"]
        assert np.flatnonzero(mask).tolist() == list(state.legal_actions())
        assert mask[game.call_action] == (last >= 0)
        legal = np.flatnonzero(mask)
        if rng.random() < 0.3 and mask.sum() < game.num_actions:
            with pytest.raises(IllegalActionError):
                env.step(int(np.flatnonzero(mask == 0)[0]))
        action = int(rng.choice(legal))
        assert action > last
        if action != game.call_action:
            last = action
        env.step(action)
    state = env.game_state
    assert state.is_terminal() and state.bids == tuple(sorted(set(state.bids)))
    quantity, face = game.bid(state.bids[-1])
    true = _count_true(state.rolls, quantity, face, faces, wild)
    returns = state.returns()
    assert returns[state.bidder] == (1.0 if true else -1.0)
    assert returns[state.caller] == -returns[state.bidder]
    assert sorted(returns) == [-1.0] + [0.0] * (num_players - 2) + [1.0]


def test_observation_is_the_information_state():
    """Perfect recall: the observation determines own dice and the bid history."""
    game = LiarsDiceGame(faces=4)
    a = game.new_initial_state().apply(((2,), (3,))).apply(1).apply(5)
    b = game.new_initial_state().apply(((2,), (1,))).apply(1).apply(5)
    c = game.new_initial_state().apply(((2,), (3,))).apply(5)
    assert np.array_equal(a.observation(0), b.observation(0))
    assert not np.array_equal(a.observation(1), b.observation(1))
    assert not np.array_equal(a.observation(0), c.observation(0))
    assert a.information_state(0) == b.information_state(0)


def test_render_ansi_and_human(capsys):
    env = liars_dice_v1.raw_env(render_mode="ansi", faces=3)
    env.reset(seed=3)
    env.step(2)
    env.step(env.game.call_action)
    text = env.render()
    assert "calls bid 1x3" in text and "wins" in text
    human = liars_dice_v1.raw_env(render_mode="human")
    human.reset(seed=3)
    human.step(0)
    assert "player_0: bid 1x1" in capsys.readouterr().out


def test_env_pickles_and_copies():
    import copy
    import pickle

    env = liars_dice_v1.env(faces=4, wild=True)
    env.reset(seed=5)
    env.step(2)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.game_state.bids == env.unwrapped.game_state.bids == (2,)
    assert clone.unwrapped.game_state.rolls == env.unwrapped.game_state.rolls
    assert copy.deepcopy(env).unwrapped.game == env.unwrapped.game
