"""The batched environments as users reach them: gymnasium.make_vec, SB3's VecEnv, self-play.

The win rate of a fixed policy against the opponent played inside the batch must
match the exact head-to-head from the solvers (seats drawn at random), which checks
the opponent stepping, the seats, the rewards and the autoreset together.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

import dice_envs  # noqa: F401  (registers the ids)
from dice_envs.agents.closest_number.gym import ClosestNumberVectorEnv
from dice_envs.agents.evaluate.jeopardy_agents import BatchedPolicyAgent
from dice_envs.agents.liars_dice.gym import LiarsDiceVectorEnv
from dice_envs.agents.pig import solver as pig_solver
from dice_envs.agents.pig.gym import PigVectorEnv
from dice_envs.agents.shakes.gym import ShakesVectorEnv
from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
from dice_envs.agents.zombie_dice.gym import ZombieDiceVectorEnv
from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES
from dice_envs.core.game import IllegalActionError
from dice_envs.core.resources import LongRunWarning
from dice_envs.envs.vector import BatchedSelfPlayEnv
from dice_envs.games.zombie_dice.batched import ZombieDiceBatch

VECTOR_IDS = [
    ("dice_envs/ZombieDice-v0", dict(), ZombieDiceVectorEnv, (16,)),
    ("dice_envs/ZombieDice-v0", dict(observation="compact", opponent="llano"), ZombieDiceVectorEnv, (12,)),
    ("dice_envs/ZombieDice-v0", dict(variant="official", num_players=3, opponent="random"), ZombieDiceVectorEnv,
     (28,)),
    ("dice_envs/ZombieDice-v0", dict(variant="official", observation="scaled", opponent="minh"), ZombieDiceVectorEnv,
     (24,)),
    ("dice_envs/ZombieDice-v0", dict(variant="official", observation="fourier"), ZombieDiceVectorEnv, (64,)),
    ("dice_envs/Pig-v0", dict(), PigVectorEnv, (4,)),
    ("dice_envs/Pig-v0", dict(opponent="hold_at_20", goal=40, auto_forced=True), PigVectorEnv, (4,)),
    ("dice_envs/Pig-v0", dict(observation="scaled"), PigVectorEnv, (4,)),
    ("dice_envs/LiarsDice-v1", dict(faces=4, wild=True), LiarsDiceVectorEnv, (2 + 4 + 9 + 2,)),
    ("dice_envs/LiarsDice-v1", dict(num_players=3, opponent="random"), LiarsDiceVectorEnv, (3 + 6 + 19 + 3,)),
    ("dice_envs/ClosestNumber-v0", dict(), ClosestNumberVectorEnv, (10 * 5 + 6 + 4,)),
    ("dice_envs/Shakes-v0", dict(), ShakesVectorEnv, (10,)),
    ("dice_envs/Shakes-v0", dict(num_players=2, objective="saved"), ShakesVectorEnv, (6,)),
    ("dice_envs/ClosestNumber-v0", dict(num_players=3, numbers=7, round3="one_card"), ClosestNumberVectorEnv,
     (7 * 6 + 9 + 4,)),
]


def make(env_id, num_envs=64, **kwargs):
    return gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


@pytest.mark.parametrize("env_id, kwargs, cls, shape", VECTOR_IDS)
def test_make_vec_gives_the_batched_env(env_id, kwargs, cls, shape):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # (an opponent's solve that is not cached yet announces itself: whether it is depends on the tests
        # that ran before in this process, and the announcement is not a warning about make_vec)
        warnings.simplefilter("ignore", LongRunWarning)
        env = make(env_id, **kwargs)
    assert isinstance(env, cls) and env.num_envs == 64
    assert env.single_observation_space.shape == shape
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):
        assert env.observation_space.contains(obs)
        masks = env.action_masks()
        assert masks.shape == (64, env.single_action_space.n) and masks.dtype == bool and masks.any(axis=1).all()
        np.testing.assert_array_equal(info["action_mask"], masks)
        obs, reward, terminated, truncated, info = env.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
        assert reward.shape == (64,)
        if kwargs.get("objective") != "saved":  # the Shakes may pay the patients saved
            assert set(np.unique(reward)) <= {-1.0, 0.0, 1.0}
        assert (reward[~terminated] == 0).all()
        if env.game.num_players == 2 and cls is not ClosestNumberVectorEnv:  # Closest Number has draws
            assert (reward[terminated] != 0).all()
        if terminated.any():
            np.testing.assert_array_equal(info["_final_obs"], terminated | truncated)
            assert all(env.single_observation_space.contains(o) for o in info["final_obs"][terminated])
        episodes += int(terminated.sum())
    assert episodes > 50


def test_seeded_runs_repeat():
    def run(seed):
        env = make("dice_envs/ZombieDice-v0", opponent="neller")
        out = [env.reset(seed=seed)]
        rng = np.random.default_rng(1)
        for _ in range(50):
            masks = env.action_masks()
            out.append(env.step(np.argmax(rng.random(masks.shape) * masks, axis=1)))
        return out

    assert data_equivalence(run(7), run(7))
    assert not data_equivalence(run(7), run(8))


def play_policy(env, policy) -> float:
    """Win rate of ``policy`` (over the batch's positions) in the first game of every slot of ``env``.

    Only first games count: games that finish early are shorter ones, so counting every
    game finished by some time would favour short games."""
    agent = BatchedPolicyAgent(policy)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    rows = np.arange(env.num_envs)
    won = np.zeros(env.num_envs, bool)
    counted = np.zeros(env.num_envs, bool)
    while not counted.all():
        _, reward, terminated, _, _ = env.step(agent(env.unwrapped.batch, rows, rng))
        first = terminated & ~counted
        won[first] = reward[first] > 0
        counted |= first
    return won.mean(), env.num_envs


@pytest.mark.slow
def test_zombie_dice_win_rate_against_the_optimal_opponent_is_the_exact_one():
    minh = HUMAN_POLICIES["minh"]
    solution = ayzd.solve()
    exact = 0.5 * (ayzd.evaluate(minh, solution.as_policy()) + 1 - ayzd.evaluate(solution.as_policy(), minh))
    rate, games = play_policy(make("dice_envs/ZombieDice-v0", num_envs=30_000), minh)
    assert abs(rate - exact) < 4 * np.sqrt(exact * (1 - exact) / games)


def test_pig_win_rate_against_the_optimal_opponent_is_the_exact_one():
    # Goal 100: the opponent never wins before the agent's first move, so no game is dealt
    # again (with goal 30 the optimal first player often does, and the env deals such a game again).
    hold = pig_solver.hold_at(20)
    optimal = pig_solver.solve(100).as_policy()
    exact = 0.5 * (pig_solver.evaluate(hold, optimal) + 1 - pig_solver.evaluate(optimal, hold))
    rate, games = play_policy(make("dice_envs/Pig-v0", num_envs=20_000), hold)
    assert abs(rate - exact) < 4 * np.sqrt(exact * (1 - exact) / games)


def test_shakes_court_choosing_at_random_wins_with_the_exact_probability():
    """A court that picks treatments uniformly saves each patient with probability mean(e)/6,
    so it wins with P(Binomial(18, 1/3) >= 7) with four treatments (efficacies 4, 2, 1, 1)."""
    from scipy import stats

    env = make("dice_envs/Shakes-v0", num_envs=40_000)
    env.reset(seed=0)
    rng = np.random.default_rng(1)
    won, counted = np.zeros(env.num_envs, bool), np.zeros(env.num_envs, bool)
    while not counted.all():
        _, reward, terminated, _, _ = env.step(rng.integers(0, 4, env.num_envs))
        first = terminated & ~counted
        won[first] = reward[first] > 0
        counted |= first
    exact = stats.binom.sf(6, 18, 1 / 3)
    assert abs(won.mean() - exact) < 4 * np.sqrt(exact * (1 - exact) / env.num_envs)


def test_liars_dice_value_against_the_equilibrium_opponent_is_the_exact_one():
    """Uniform random play against the CFR+ equilibrium inside the batch, against the exact value."""
    from dice_envs.agents.liars_dice import solver as liars_dice_solver
    from dice_envs.agents.liars_dice.learned import equilibrium
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    game = LiarsDiceGame(faces=6, wild=True)
    tree = liars_dice_solver.PublicTree(game)
    eq = equilibrium(game).policy
    uniform = tree.uniform()
    exact = 0.5 * (liars_dice_solver.evaluate(tree, uniform, eq).value_first_player
                   - liars_dice_solver.evaluate(tree, eq, uniform).value_first_player)
    env = make("dice_envs/LiarsDice-v1", num_envs=40_000, wild=True)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    value = np.zeros(env.num_envs)
    counted = np.zeros(env.num_envs, bool)
    while not counted.all():  # the first game of every slot (see play_policy)
        mask = info["action_mask"]
        obs, reward, terminated, _, info = env.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
        first = terminated & ~counted
        value[first] = reward[first]
        counted |= first
    assert abs(value.mean() - exact) < 4 * value.std() / np.sqrt(env.num_envs)


def test_illegal_actions():
    env = make("dice_envs/Pig-v0", num_envs=4, seat=0)
    env.reset(seed=0)
    # A fresh turn: holding is illegal.
    obs, reward, terminated, truncated, info = env.step(np.array([0, 1, 1, 5]))
    np.testing.assert_array_equal(terminated, [True, False, False, True])
    np.testing.assert_array_equal(reward[[0, 3]], [-1.0, -1.0])
    np.testing.assert_array_equal(info["illegal_action"], [True, False, False, True])
    strict = make("dice_envs/Pig-v0", num_envs=4, seat=0, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="game 0, seat 0: action 0 is illegal; legal actions: \\[1\\]"):
        strict.step(np.array([0, 1, 1, 1]))
    with pytest.raises(IllegalActionError, match="4 integers"):
        strict.step(np.array([1.0, 1, 1, 1]))


def test_bad_configuration():
    with pytest.raises(ValueError, match="num_envs"):
        make("dice_envs/Pig-v0", num_envs=0)
    with pytest.raises(ValueError, match="seat"):
        make("dice_envs/Pig-v0", seat=2)
    with pytest.raises(ValueError, match="render_mode"):
        make("dice_envs/ZombieDice-v0", render_mode="human")
    with pytest.raises(ValueError, match="compact"):
        make("dice_envs/ZombieDice-v0", observation="compact", variant="official")
    with pytest.raises(ValueError, match="opponent"):
        make("dice_envs/Pig-v0", opponent="hold_at_twenty")
    with pytest.raises(ValueError, match="max_cycles"):
        make("dice_envs/Pig-v0", max_cycles=True)


def test_max_cycles_truncates():
    env = make("dice_envs/Pig-v0", num_envs=32, max_cycles=3, opponent="hold_at_100")
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step(np.ones(32, np.int64))
    _, _, terminated, truncated, info = env.step(np.ones(32, np.int64))
    assert truncated.any() and not (terminated & truncated).any()


def test_self_play_form():
    env = BatchedSelfPlayEnv(ZombieDiceBatch(256, 2, "all_yellow"), max_cycles=500)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        mover = info["current_player"]
        assert set(np.unique(mover)) <= {0, 1}
        np.testing.assert_array_equal(obs[:, 2], 1)  # the to-move flag of the seat observing: the mover
        masks = info["action_mask"]
        obs, rewards, terminated, truncated, info = env.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
        assert rewards.shape == (256, 2)
        np.testing.assert_array_equal(rewards.sum(axis=1), 0)
        assert (np.abs(rewards[terminated]).sum(axis=1) == 2).all() and (rewards[~terminated] == 0).all()
        finished += int(terminated.sum())
    assert finished > 100


def test_sb3_vec_env_trains_maskable_ppo():
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from dice_envs.envs.sb3_vec_env import SB3VecEnv

    torch.set_num_threads(1)
    venv = SB3VecEnv(make("dice_envs/ZombieDice-v0", num_envs=32, observation="compact"))
    venv.seed(0)
    obs = venv.reset()
    assert obs.shape == (32, 12) and get_action_masks(venv).shape == (32, 2)
    dones_seen = False
    returns, lengths = np.zeros(32), np.zeros(32, int)
    for _ in range(60):
        obs, rewards, dones, infos = venv.step(np.argmax(get_action_masks(venv), axis=1))
        returns, lengths = returns + rewards, lengths + 1
        for k in np.flatnonzero(dones):
            assert infos[k]["terminal_observation"].shape == (12,)
            # the game's return and length, as SB3's Monitor writes them
            assert infos[k]["episode"]["r"] == returns[k] and infos[k]["episode"]["l"] == lengths[k]
            dones_seen = True
        returns[dones], lengths[dones] = 0.0, 0
    assert dones_seen
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=256, n_epochs=1, seed=0, device="cpu")
    model.learn(2_000)
    assert model.num_timesteps >= 2_000
    assert len(model.ep_info_buffer) > 0  # what SB3 logs as ep_rew_mean, with no VecMonitor
