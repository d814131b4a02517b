"""``observation="flat"`` on every AEC env: a ``Box`` observation with the mask in ``infos``, which
PettingZoo's API test accepts and SuperSuit's observation wrappers take (issue 26: ``dtype_v0``,
``normalize_obs_v0`` and ``frame_stack_v1`` failed on the ``Dict`` observation)."""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

from dice_envs import all_environments

NAMES = sorted(all_environments)


@pytest.mark.parametrize("name", NAMES)
def test_the_flat_observation_passes_the_api_test(name):
    env = all_environments[name].env(observation="flat")
    api_test(env, num_cycles=200)
    env.reset(seed=0)
    agent = env.agent_selection
    obs, _, _, _, info = env.last()
    dict_env = all_environments[name].env()
    dict_env.reset(seed=0)
    same = dict_env.observe(agent)
    assert np.array_equal(obs, same["observation"]) and np.array_equal(info["action_mask"], same["action_mask"])


def _wrappers():
    ss = pytest.importorskip("supersuit", reason="SuperSuit is the [supersuit] extra")
    return {"dtype_v0": lambda e: ss.dtype_v0(e, np.float64),
            "normalize_obs_v0": lambda e: ss.normalize_obs_v0(ss.dtype_v0(e, np.float32)),
            "frame_stack_v1": lambda e: ss.frame_stack_v1(e, 3)}


@pytest.mark.parametrize("wrapper", ["dtype_v0", "normalize_obs_v0", "frame_stack_v1"])
@pytest.mark.parametrize("name", NAMES)
def test_supersuit_s_observation_wrappers_play_whole_games(name, wrapper):
    if wrapper == "normalize_obs_v0" and name == "zombie_dice_v0":
        pytest.skip("Zombie Dice's scores have no upper bound, and normalize_obs_v0 needs finite ones")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = _wrappers()[wrapper](all_environments[name].env(observation="flat"))
        env.reset(seed=0)
        games = 0
        for _ in env.agent_iter(400):
            obs, _, terminated, truncated, info = env.last()
            assert env.observation_space(env.agent_selection).contains(obs.astype(env.observation_space(
                env.agent_selection).dtype))
            if terminated or truncated:
                env.step(None)
                if not env.agents:
                    games += 1
                    env.reset(seed=games)
            else:
                env.step(int(np.flatnonzero(info["action_mask"])[-1]))


def test_bad_observation_format_is_refused():
    with pytest.raises(ValueError, match="observation"):
        all_environments["pig_v0"].env(observation="flattened")
