"""OpenSpiel's learners on our Liar's Dice (``experiments/benchmark_liars_dice_learners.py``): they run on
the registered game, and the batched scoring answers as their own ``action_probabilities``."""

from __future__ import annotations


import numpy as np
import pytest

pytest.importorskip("torch")
pyspiel = pytest.importorskip("pyspiel")

from experiments import benchmark_liars_dice_learners as bench  # noqa: E402

#: small settings, so that a few units of each run in seconds
SMALL = {"nfsp": ({"reservoir_buffer_capacity": 20_000, "replay_buffer_capacity": 5_000,
                   "min_buffer_size_to_learn": 100}, 400),
         "deep_cfr": ({"num_traversals": 20, "memory_capacity": 5_000}, 2),
         "escher": ({"value_traversals": 32, "regret_traversals": 32, "value_batch_steps": 16,
                     "regret_batch_steps": 16, "avg_policy_batch_steps": 16, "value_memory_capacity": 5_000,
                     "regret_memory_capacity": 5_000, "avg_policy_memory_capacity": 5_000, "value_batch_size": 16,
                     "regret_batch_size": 16, "avg_policy_batch_size": 16}, 2)}


@pytest.mark.parametrize("algorithm", bench.ALGORITHMS)
def test_each_algorithm_runs_and_is_scored_as_its_own_policy_answers(algorithm):
    overrides, units = SMALL[algorithm]
    report = bench.run(algorithm, (1, 2), 3, "aces", 0, 0, 0, iterations=units, overrides=overrides)
    assert 0 <= report["exploitability"] <= 2 and report["game"]["wild"] == "aces"
    assert report["curve"][-1]["exploitability"] == report["exploitability"]
    # The batch answers each information state as the algorithm's own action_probabilities does.
    game, ours = bench.load_game((1, 2), 3, "aces")
    learner = bench.LEARNERS[algorithm](game, 0, overrides)
    for _ in range(units):
        learner.iterate()
    learner.prepare()
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            player = state.current_player()
            obs = np.array(state.information_state_tensor(player), np.float32)[None]
            mask = np.array(state.legal_actions_mask(player), bool)[None]
            batch = learner.probabilities(obs, mask)[0]
            own = learner.action_probabilities(state)
            assert sorted(own) == list(np.flatnonzero(mask[0]))
            assert [batch[a] for a in sorted(own)] == pytest.approx([own[a] for a in sorted(own)], abs=1e-6)
            assert batch.sum() == pytest.approx(1.0)
            checked += 1
            state.apply_action(int(rng.choice(list(own), p=np.array(list(own.values())) / sum(own.values()))))
    assert checked >= 30
