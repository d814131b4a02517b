"""Exact scoring of learned policies: the "learned policy" path (compact observation ->
network -> greedy decision in every grid state -> exact evaluation) pinned to known policies."""

import numpy as np
import pytest

from dice_envs.agents.zombie_dice import ayzd_solver as ayzd
from dice_envs.agents.zombie_dice.learned import ModelPolicy, exact_score, greedy_table, resolve_policy, table_policy
from dice_envs.agents.zombie_dice.opponents import solved
from dice_envs.agents.zombie_dice.policies import HUMAN_POLICIES, PUBLISHED_DIFFERENCES, random_policy
from dice_envs.games.zombie_dice.rules import COMPACT_SIZE, compact_observation

torch = pytest.importorskip("torch")
from gymnasium import spaces  # noqa: E402


class _Dist:
    def __init__(self, probs):
        self.distribution = type("Categorical", (), {"probs": probs})()


class DecodingNet:
    """A stand-in for an SB3 policy network: it recovers ``(p, i, j, b, s)`` from the compact
    observation alone and answers with a known policy's decision, as logits would."""

    def __init__(self, policy, goal=13):
        self.known, self.goal = policy, goal
        self.observation_space = spaces.Box(-np.inf, np.inf, (COMPACT_SIZE,), np.float32)
        self.calls = 0

    def get_distribution(self, obs):
        self.calls += 1
        o = obs.numpy().astype(np.float64)
        p = 1 + o[:, 0].astype(int)
        i, j, b = (np.rint(o[:, k] * self.goal).astype(int) for k in (1, 2, 3))
        s = (o[:, 4] + 2 * o[:, 5]).astype(int)
        assert (o[:, 11] == 1).all(), "the grid states are all after a roll"
        roll = np.asarray(self.known(p, i, j, b, s), dtype=np.float64)
        probs = np.stack([1 - roll, roll], axis=1) * 0.98 + 0.01  # never exactly 0/1, like a softmax
        return _Dist(torch.as_tensor(probs))


def test_optimal_through_the_learned_path_scores_zero():
    solution = solved()
    net = DecodingNet(solution.as_policy())
    result = exact_score(ModelPolicy(net))
    assert abs(result["difference"]) < 1e-12
    assert result["win_as_first"] == pytest.approx(solution.first_player_win, abs=1e-12)
    assert all(result["reached"].values())
    assert net.calls >= 7  # the whole grid (843,648 states) in batches of 2**17


@pytest.mark.parametrize("name", sorted(HUMAN_POLICIES))
def test_human_policies_through_the_learned_path_score_their_published_gaps(name):
    result = exact_score(ModelPolicy(DecodingNet(HUMAN_POLICIES[name])))
    assert result["difference"] == pytest.approx(PUBLISHED_DIFFERENCES[name], abs=5e-4)
    direct = ayzd.head_to_head(HUMAN_POLICIES[name], solved().as_policy()).difference
    assert result["difference"] == pytest.approx(direct, abs=1e-12)
    assert result["reached"]["fixed_hold_at"] is True


def test_stochastic_path_and_greedy_table():
    net = DecodingNet(random_policy)
    p = ModelPolicy(net, greedy=False)(1, 3, 4, np.arange(3), 1)
    assert np.allclose(p, 0.5)
    assert greedy_table(np.array([0.2, 0.5, 0.51])).tolist() == [0.0, 0.0, 1.0]
    assert exact_score(random_policy)["difference"] < -0.5


def test_table_policy_round_trip():
    table = ayzd.policy_table(HUMAN_POLICIES["neller"], 52)
    assert np.array_equal(ayzd.policy_table(table_policy(table), 52), table)


def test_resolve_policy():
    assert resolve_policy("minh") is HUMAN_POLICIES["minh"]
    assert resolve_policy("random") is random_policy
    assert resolve_policy("dice_envs.agents.zombie_dice.policies:llano") is HUMAN_POLICIES["llano"]
    assert resolve_policy("optimal")(1, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="policy must be one of"):
        resolve_policy("nobody")
    with pytest.raises(ValueError, match="cannot import"):
        resolve_policy("dice_envs.agents.zombie_dice.policies:nobody")
    with pytest.raises(ValueError, match="does not exist"):
        resolve_policy("missing-model.zip")


def test_model_with_another_observation_is_refused():
    net = DecodingNet(random_policy)
    net.observation_space = spaces.Box(0, 1, (16,), np.float32)
    with pytest.raises(ValueError, match="compact"):
        ModelPolicy(net)


def test_compact_observation_is_invertible_on_the_grid():
    """Distinct grid states give distinct observations (the network can tell them apart)."""
    M = solved().score_cap
    p, i, j, b, s = np.meshgrid([1, 2], np.arange(M), np.arange(M), np.arange(M), [0, 1, 2], indexing="ij")
    obs = compact_observation(p, i, j, b, s).reshape(-1, COMPACT_SIZE)
    assert len(np.unique(obs, axis=0)) == obs.shape[0]
