"""Single-agent Gymnasium Liar's Dice: env checker, registry, seeding, opponents, bad input,
and Monte Carlo play against the equilibrium matching the exact value."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dice_envs
from dice_envs.agents.liars_dice.gym import LiarsDiceEnv
from dice_envs.agents.liars_dice.learned import equilibrium
from dice_envs.agents.liars_dice.solver import PublicTree, evaluate
from dice_envs.core.game import IllegalActionError
from dice_envs.games.liars_dice.rules import LiarsDiceGame

pytestmark = pytest.mark.filterwarnings("ignore:.*Box observation space m")

ID = "dice_envs/LiarsDice-v1"


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DICE_ENVS_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"faces": 4},
        {"faces": 3, "wild": True, "seat": 1},
        {"opponent": "random", "num_players": 3, "dice_per_player": 2},
    ],
)
def test_check_env(kwargs):
    env = gymnasium.make(ID, **kwargs)
    assert isinstance(env.unwrapped, LiarsDiceEnv)
    check_env(env.unwrapped, skip_render_check=True)
    assert "LiarsDice-v1" in dice_envs.single_agent_environments


@pytest.mark.parametrize("vector", [False, True], ids=["single", "batched"])
def test_version_0_keeps_the_observation_without_the_dice_counts(vector):
    """``LiarsDice-v0`` (the models trained on it) sees seat, own dice, bids and call; ``-v1``
    appends the dice counts; Gymnasium says that v0 is out of date."""
    from dice_envs.agents.liars_dice.gym import LiarsDiceV0Env, LiarsDiceV0VectorEnv

    kwargs = dict(faces=3, dice_per_player=(1, 2), wild="aces", opponent="random")
    with pytest.warns(DeprecationWarning, match="out of date"):
        old = (gymnasium.make_vec("dice_envs/LiarsDice-v0", num_envs=3, vectorization_mode="vector_entry_point",
                                  **kwargs) if vector else gymnasium.make("dice_envs/LiarsDice-v0", **kwargs))
    new = (gymnasium.make_vec(ID, num_envs=3, vectorization_mode="vector_entry_point", **kwargs) if vector
           else gymnasium.make(ID, **kwargs))
    assert isinstance(old.unwrapped if not vector else old, LiarsDiceV0VectorEnv if vector else LiarsDiceV0Env)
    prefix = LiarsDiceGame(2, (1, 2), 3, "aces").prefix_size
    space = old.single_observation_space if vector else old.observation_space
    assert space.shape == (prefix,)
    (o0, _), (o1, _) = old.reset(seed=4), new.reset(seed=4)
    assert o0.shape[-1] == prefix and o1.shape[-1] == prefix + 2
    np.testing.assert_array_equal(o0, o1[..., :prefix])
    np.testing.assert_array_equal(o1[..., prefix:], np.broadcast_to([1, 2], o1[..., prefix:].shape))
    if not vector:
        check_env(old.unwrapped, skip_render_check=True)


def uniform_choice(env, rng):
    return int(rng.choice(np.flatnonzero(env.action_masks())))


def mean_reward(env, episodes, seed):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    total = 0.0
    for _ in range(episodes):
        done = False
        while not done:
            _, reward, terminated, truncated, _ = env.step(uniform_choice(env, rng))
            done = terminated or truncated
        total += reward
        env.reset()
    return total / episodes


@pytest.mark.parametrize("seat", [0, 1])
def test_monte_carlo_play_matches_exact_value(seat):
    """A uniformly random agent against the equilibrium opponent earns, on average, what
    the solver's exact evaluation says (within 4.5 standard errors)."""
    game = LiarsDiceGame(faces=4, wild=True)
    tree = PublicTree(game)
    eq = equilibrium(game, 1e-4).policy
    uniform = tree.uniform()
    exact = (evaluate(tree, uniform, eq).value_first_player if seat == 0
             else -evaluate(tree, eq, uniform).value_first_player)
    episodes = 6000
    measured = mean_reward(LiarsDiceEnv(faces=4, wild=True, seat=seat), episodes, seed=seat)
    assert abs(measured - exact) < 4.5 / np.sqrt(episodes)
    assert exact < -0.1  # the random agent is clearly exploited


def test_seeded_runs_repeat():
    rewards = [mean_reward(LiarsDiceEnv(faces=4), 50, seed=3) for _ in range(2)]
    assert rewards[0] == rewards[1]


def test_model_and_policy_opponents(tmp_path):
    torch = pytest.importorskip("torch")
    from dice_envs.agents.liars_dice.learned import build_network

    game = LiarsDiceGame(faces=3)
    path = tmp_path / "model.pt"
    torch.save({"game": game.config(), "hidden": "8", "net": build_network(game.config(), "8").state_dict()}, path)
    env = LiarsDiceEnv(opponent=str(path), faces=3)
    assert mean_reward(env, 20, seed=0) <= 1.0
    with pytest.raises(ValueError, match="is for"):
        LiarsDiceEnv(opponent=str(path), faces=4)
    tree = PublicTree(game)
    env = LiarsDiceEnv(opponent=tree.uniform(), faces=3)  # anything with action_probabilities(state)
    assert mean_reward(env, 20, seed=0) <= 1.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"opponent": "nobody"}, "opponent must be"),
        ({"opponent": "missing.pt"}, "no such model file"),
        ({"opponent": "equilibrium", "num_players": 3}, "two players"),
        ({"faces": 9}, "faces"),
        ({"seat": 2}, "seat"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LiarsDiceEnv(**kwargs)


def test_illegal_action():
    env = LiarsDiceEnv(faces=3, opponent="random", seat=0)
    env.reset(seed=0)
    call = env.game.call_action
    _, reward, terminated, _, info = env.step(call)  # calling before any bid
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    env = LiarsDiceEnv(faces=3, opponent="random", seat=0, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal"):
        env.step(call)
