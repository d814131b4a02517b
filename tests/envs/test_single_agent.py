"""Single-agent Gymnasium Zombie Dice: env checker, registry, seeding, masks, opponents, bad input,
and Monte Carlo play of the environment against the exact evaluation."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dice_envs
from dice_envs.agents.evaluate.jeopardy_agents import PolicyAgent
from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
from dice_envs.agents.zombie_dice.gym import ZombieDiceEnv
from dice_envs.agents.zombie_dice.opponents import TableAgent, solved
from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES
from dice_envs.core.game import IllegalActionError
from dice_envs.envs.single_agent import SingleAgentEnv
from dice_envs.games.zombie_dice.rules import COMPACT_SIZE, HOLD, ROLL, compact_observation

pytestmark = pytest.mark.filterwarnings("ignore:.*Box observation space m")

ID = "dice_envs/ZombieDice-v0"


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"observation": "compact"},
        {"observation": "compact", "auto_forced": True, "opponent": "random", "seat": 1},
        {"variant": "official", "opponent": "minh"},
        {"variant": "official", "num_players": 3, "opponent": "random"},
        {"variant": "official", "observation": "fourier", "opponent": "random", "auto_forced": True},
    ],
)
def test_check_env(kwargs):
    env = gymnasium.make(ID, **kwargs)
    assert isinstance(env.unwrapped, ZombieDiceEnv)
    check_env(env.unwrapped, skip_render_check=True)
    assert "ZombieDice-v0" in dice_envs.single_agent_environments


def play(env, seed, choose, episodes=3):
    """Play ``episodes`` games; returns the whole trajectory."""
    out = []
    obs, info = env.reset(seed=seed)
    for _ in range(episodes):
        done = False
        while not done:
            action = choose(env, obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            out.append((obs.tobytes(), reward, terminated, info["seat"]))
            done = terminated or truncated
        obs, info = env.reset()
    return out


def sample_legal(env, obs, info):
    mask = env.action_masks()
    legal = np.flatnonzero(mask)
    return int(legal[(int(obs.sum() * 1000)) % len(legal)])


@pytest.mark.parametrize("opponent", ["optimal", "random", "neller"])
def test_seeded_runs_repeat(opponent):
    runs = [play(gymnasium.make(ID, opponent=opponent, observation="compact").unwrapped, 7, sample_legal)
            for _ in range(2)]
    assert runs[0] == runs[1]
    other = play(gymnasium.make(ID, opponent=opponent, observation="compact").unwrapped, 8, sample_legal)
    assert other != runs[0]


def test_masks_and_forced_moves():
    env = ZombieDiceEnv(observation="compact")
    obs, info = env.reset(seed=1)
    state = env.game_state
    assert state.current_player == info["seat"] and not state.rolled
    assert env.action_masks().tolist() == [False, True] and info["action_mask"].tolist() == [0, 1]
    assert obs[11] == 0  # not rolled yet
    auto = ZombieDiceEnv(observation="compact", auto_forced=True)
    for seed in range(20):
        obs, info = auto.reset(seed=seed)
        assert auto.action_masks().all() and obs[11] == 1


def test_compact_observation_matches_the_vectorised_one():
    env = ZombieDiceEnv(observation="compact", opponent="random")
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    for _ in range(3000):
        state = env.game_state
        if not state.is_terminal():
            p, i, j, b, s = state.two_player_view()
            np.testing.assert_array_equal(obs, compact_observation(p, i, j, b, s, 13, state.rolled))
        legal = np.flatnonzero(env.action_masks())
        obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            obs, info = env.reset()
    assert compact_observation(np.arange(3), 1, 2, 3, 1).shape == (3, COMPACT_SIZE)


@pytest.mark.parametrize("num_players", [2, 3])
def test_fourier_observation_is_the_scaled_one_with_its_waves(num_players):
    """observation="fourier": the scaled vector, then sin and cos of pi f x / goal for the scores,
    the turn's brains and the own score plus them; the single and the batched env agree."""
    from dice_envs.core.encodings import FOURIER_FREQUENCIES

    kwargs = dict(variant="official", num_players=num_players, opponent="random", seat=0)
    env = ZombieDiceEnv(observation="fourier", **kwargs)
    scaled_env = ZombieDiceEnv(observation="scaled", **kwargs)
    obs, _ = env.reset(seed=5)
    scaled, _ = scaled_env.reset(seed=5)
    n, rng = num_players, np.random.default_rng(1)
    for _ in range(200):
        game = env.game_state.game
        raw = env.game_state.observation(0)
        signals = [raw[k] / game.goal for k in range(n)] + [raw[4 * n] / game.goal, (raw[0] + raw[4 * n]) / game.goal]
        waves = [f(np.pi * freq * x) for f in (np.sin, np.cos) for freq in FOURIER_FREQUENCIES for x in signals]
        np.testing.assert_allclose(obs, np.concatenate([scaled, waves]), atol=1e-5)
        assert env.observation_space.contains(obs) and obs.shape == (4 * n + 16 + 10 * (n + 2),)
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, _, done, _, _ = env.step(action)
        scaled, *_ = scaled_env.step(action)
        if done:
            seed = int(rng.integers(1000))
            obs, _ = env.reset(seed=seed)
            scaled, _ = scaled_env.reset(seed=seed)
    vec = gymnasium.make_vec(ID, num_envs=8, vectorization_mode="vector_entry_point", observation="fourier", **kwargs)
    batch_obs, _ = vec.reset(seed=0)
    raw = vec.unwrapped.batch.observe(np.zeros(8, int))
    np.testing.assert_array_equal(batch_obs, env.game_state.game.fourier_observation(raw))
    assert vec.single_observation_space == env.observation_space


def test_illegal_action():
    env = ZombieDiceEnv(observation="compact", seat=0)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(HOLD)  # must roll first
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(ROLL)
    strict = ZombieDiceEnv(illegal_action="raise", seat=1)
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions: 1=roll"):
        strict.step(HOLD)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(observation="compact", variant="official"), "compact"),
        (dict(observation="compact", num_players=3, opponent="random"), "compact"),
        (dict(observation="pixels"), "observation"),
        (dict(opponent="nobody"), "policy must be one of"),
        (dict(opponent=3), "opponent"),
        (dict(num_players=3, opponent="optimal"), "two-player"),
        (dict(seat=2), "seat"),
        (dict(illegal_action="ignore"), "illegal_action"),
        (dict(render_mode="rgb"), "render_mode"),
        (dict(goal=0), "goal"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ZombieDiceEnv(**kwargs)


def test_generic_wrapper_arguments():
    from dice_envs import zombie_dice_v0

    with pytest.raises(ValueError, match="RulesCoreEnv"):
        SingleAgentEnv(zombie_dice_v0.env(), lambda s: ROLL)
    with pytest.raises(ValueError, match="every other seat"):
        SingleAgentEnv(zombie_dice_v0.raw_env(num_players=3), {1: lambda s: ROLL}, seat=0)
    env = SingleAgentEnv(zombie_dice_v0.raw_env(), {1: lambda s: ROLL if not s.rolled else HOLD}, seat=0)
    check_env(env, skip_render_check=True)


def test_render_ansi():
    env = ZombieDiceEnv(render_mode="ansi", seat=0)
    env.reset(seed=0)
    env.step(ROLL)
    assert "player_0 rolled" in env.render()


@pytest.mark.slow
def test_monte_carlo_play_matches_exact_evaluation():
    """Minh (the agent, seat drawn per game) against the optimal opponent: the env's win rate
    over 2000 games agrees with the exact seat-averaged win rate (4 standard errors)."""
    minh = HUMAN_POLICIES["minh"]
    exact = ayzd.head_to_head(minh, solved().as_policy()).win_rate
    env = ZombieDiceEnv(opponent="optimal", auto_forced=True)
    agent = PolicyAgent(minh)
    wins, games = 0, 2000
    env.reset(seed=11)
    for _ in range(games):
        while True:
            _, reward, terminated, truncated, _ = env.step(agent.act(env.game_state))
            if terminated or truncated:
                break
        wins += reward > 0
        env.reset()
    rate = wins / games
    assert abs(rate - exact) < 4 * np.sqrt(exact * (1 - exact) / games)


def test_table_agent_is_the_solution():
    solution = solved()
    agent = TableAgent(solution.roll)
    env = ZombieDiceEnv(opponent="random", auto_forced=True)
    env.reset(seed=5)
    for _ in range(500):
        state = env.game_state
        assert agent.act(state) == (ROLL if solution.should_roll(*state.two_player_view()) else HOLD)
        _, _, term, trunc, _ = env.step(agent.act(state))
        if term or trunc:
            env.reset()


@pytest.mark.parametrize("env_id", sorted(dice_envs.single_agent_environments))
def test_every_game_has_a_checked_gymnasium_id(env_id):
    """Every single-agent id is registered with Gymnasium's passive env checker on, and has a
    batched vector entry point."""
    kwargs = {"ClosestNumber": dict(numbers=6, opponent="random"), "LiarsDice": dict(faces=3),
              "LiarsDiceMatch": dict(faces=3)}.get(env_id.rsplit("-v", 1)[0], {})
    env = gymnasium.make(f"dice_envs/{env_id}", **kwargs)
    assert "PassiveEnvChecker" in str(env)
    assert gymnasium.spec(f"dice_envs/{env_id}").vector_entry_point is not None
