"""``render_mode="rgb_array"``: every AEC env and every Gymnasium id draws a picture of the table,
a fixed-size RGB frame, and declares ``render_fps`` (Gymnasium's checker and RecordVideo need both)."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dice_envs
from dice_envs.rendering import FRAME_SIZE

pytest.importorskip("matplotlib")

SHAPE = (FRAME_SIZE[1], FRAME_SIZE[0], 3)
GYM_KWARGS = {"ClosestNumber-v0": dict(numbers=6, opponent="random"), "LiarsDice-v0": dict(faces=3),
              "LiarsDiceMatch-v0": dict(faces=3)}


@pytest.mark.parametrize("name", sorted(dice_envs.all_environments))
def test_every_aec_env_draws_frames(name):
    env = dice_envs.all_environments[name].env(render_mode="rgb_array")
    assert env.metadata["render_fps"] > 0 and "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=0)
    frames = [env.render()]
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(max_iter=8):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        frames.append(env.render())
    assert all(f.shape == SHAPE and f.dtype == np.uint8 for f in frames)
    assert any(not np.array_equal(frames[0], f) for f in frames[1:])  # the picture follows the game


@pytest.mark.parametrize("env_id", sorted(dice_envs.single_agent_environments))
def test_every_gymnasium_id_renders_and_passes_the_render_check(env_id):
    env = gymnasium.make(f"dice_envs/{env_id}", render_mode="rgb_array", **GYM_KWARGS.get(env_id, {}))
    check_env(env.unwrapped)  # includes Gymnasium's render check
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == SHAPE and frame.dtype == np.uint8


def test_unknown_render_mode_is_refused():
    with pytest.raises(ValueError, match="render_mode"):
        dice_envs.pig_v0.env(render_mode="rgb")
