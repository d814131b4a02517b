"""TorchRL's PettingZoo wrapper on every environment (the ``[torchrl]`` extra; skipped where it is
not installed).  Issue 26: ``check_env_specs(PettingZooWrapper(liars_dice_v0.env(), use_mask=True))``
failed on 14 of 30 seeds with "invalid multinomial distribution": after the last step the acting
agent's mask was empty, and TorchRL draws one more random action from it."""

import logging
import warnings

import pytest

pytest.importorskip("torchrl", reason="TorchRL is the [torchrl] extra: pip install 'dice-envs[torchrl]'")

from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from dice_envs import all_environments  # noqa: E402


@pytest.mark.parametrize("name", sorted(all_environments))
def test_check_env_specs_and_a_random_rollout(name):
    logging.getLogger("torchrl").setLevel(logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchRL warns that it is tested with another PettingZoo version
        for seed in range(8):
            env = PettingZooWrapper(all_environments[name].env(), use_mask=True, seed=seed)
            check_env_specs(env, seed=seed)
            rollout = env.rollout(200, break_when_any_done=True)
            assert rollout.batch_size[0] >= 1


def test_a_done_agent_s_mask_is_not_empty():
    """PettingZoo's dead step takes None whatever the mask says; a sampler needs a mask to draw from."""
    from dice_envs import pig_v0

    env = pig_v0.env(goal=3)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert obs["action_mask"].all()
            env.step(None)
        else:
            assert obs["action_mask"].sum() >= 1
            env.step(int(obs["action_mask"].nonzero()[0][-1]))
