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


def test_nfsp_on_a_step_budget_is_scored_every_eval_steps(capsys):
    """IIG-RL-Benchmark's protocol: a budget of agent steps, an evaluation every so many; a named game."""
    overrides, _ = SMALL["nfsp"]
    report = bench.run("nfsp", (1, 1), 3, "none", 0, 0, 0, overrides=overrides, steps=600, eval_steps=250)
    assert report["steps"] >= 600 and all(h["steps"] >= 250 * k for k, h in enumerate(report["curve"][:-1], 1))
    assert len(report["curve"]) == 3 and report["curve"][-1]["steps"] == report["steps"]
    assert all(a["steps"] < b["steps"] for a, b in zip(report["curve"], report["curve"][1:]))


@pytest.mark.parametrize("argv,message", [
    (["--algorithm", "deep_cfr", "--steps", "100"], "walks the game tree"),
    (["--algorithm", "nfsp", "--game", "LD9D9F"], "LD2D5F"),
    (["--algorithm", "nfsp", "--game", "LD2D5F", "--faces", "6"], "conflicts"),
    (["--algorithm", "nfsp", "--steps", "-1"], "must not be negative"),
])
def test_bad_options_are_named(capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        bench.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err
