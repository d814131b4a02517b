"""The batched rules against each rules core: the rules are written twice, so the copy is checked.

* Differential: a batch and one rules-core state per game go through the same games
  (the batch's chance outcomes applied to the core, the same actions, legal and
  illegal) and must agree on every current player, mask, observation of every seat,
  reward and termination, for at least 10^5 agent steps per headline configuration.
* Statistical: from fixed positions with many outcomes, the batch's chance draws
  follow the rules core's exact ``chance_outcomes()`` (chi-square).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from batched_checks import HEADLINE, chi_square, drive, outcomes_after_roll

from dice_envs.core.dice import d
from dice_envs.games.liars_dice.batched import LiarsDiceBatch
from dice_envs.games.liars_dice.match_batched import LiarsDiceMatchBatch
from dice_envs.games.liars_dice.rules import LiarsDiceGame
from dice_envs.games.pig.batched import PigBatch
from dice_envs.games.pig.rules import PigGame, PigState
from dice_envs.games.zombie_dice.batched import ZombieDiceBatch
from dice_envs.games.zombie_dice.rules import ZombieDiceGame

CONFIGS = {
    "zombie_dice official 2p": (lambda n: ZombieDiceBatch(n, 2, "official"), HEADLINE),
    "zombie_dice all_yellow 2p": (lambda n: ZombieDiceBatch(n, 2, "all_yellow"), HEADLINE),
    "zombie_dice official 4p goal 6": (lambda n: ZombieDiceBatch(n, 4, "official", goal=6), 40_000),
    "zombie_dice all_yellow 3p goal 4, official ending": (
        lambda n: ZombieDiceBatch(n, 3, "all_yellow", goal=4, stop_when_won=False), 40_000),
    "pig goal 100": (lambda n: PigBatch(n), HEADLINE),
    "pig goal 25, loaded d6": (lambda n: PigBatch(n, goal=25, die=d(6).loaded(1, Fraction(3, 2))), 40_000),
    "pig goal 30, d8": (lambda n: PigBatch(n, goal=30, die=d(8)), 20_000),
    "liars_dice 1x6 wild": (lambda n: LiarsDiceBatch(n, faces=6, wild=True), HEADLINE),
    "liars_dice 3 players, 2x4": (lambda n: LiarsDiceBatch(n, 3, 2, 4), 40_000),
    "liars_dice 2x3 wild, seed bids": (lambda n: LiarsDiceBatch(n, 2, 2, 3, wild=True, max_quantity=5), 20_000),
    "liars_dice 2v1 of 6, aces wild": (lambda n: LiarsDiceBatch(n, 2, (2, 1), 6, wild="aces"), 40_000),
    "liars_dice 3 players 1,3,2 of 4, aces wild, player 2 first": (
        lambda n: LiarsDiceBatch(n, 3, (1, 3, 2), 4, wild="aces", starting_player=2), 40_000),
    "liars_dice_match 2x2 of 6, aces wild": (lambda n: LiarsDiceMatchBatch(n, dice_per_player=2, wild="aces"),
                                            HEADLINE),
    "liars_dice_match 3 players 2,1,3 of 3, highest wild, the winner starts": (
        lambda n: LiarsDiceMatchBatch(n, num_players=3, dice_per_player=(2, 1, 3), faces=3, wild="highest",
                                      starting_player=1, next_starter="winner"), 40_000),
    "liars_dice_match 4 players 2 of 4, no wild": (
        lambda n: LiarsDiceMatchBatch(n, num_players=4, dice_per_player=2, faces=4), 40_000),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_batched_rules_equal_the_rules_core(name):
    make, steps = CONFIGS[name]
    finished, illegal = drive(make(500), steps, hold_bias=0.3)
    assert finished > 50 and illegal > 50  # both endings were exercised


def test_zombie_dice_tiebreaks_and_last_rounds_are_exercised():
    """A small goal and many players: tiebreak rounds happen, and the batch follows them."""
    batch = ZombieDiceBatch(300, 3, "all_yellow", goal=3)
    seen_tiebreak = False
    rng = np.random.default_rng(5)
    batch.reset(rng)
    for _ in range(200):
        active = batch.state["active"]
        seen_tiebreak |= bool((~active.all(axis=1) & ~batch.done).any())
        mask = batch.action_mask()
        actions = np.where(mask[:, 0] == 1, rng.integers(0, 2, batch.num_envs), 1)
        _, terminated = batch.step(actions, rng)
        batch.reset(rng, where=terminated)
    assert seen_tiebreak
    drive(ZombieDiceBatch(300, 3, "all_yellow", goal=3), 30_000, seed=3)


# -- chance draws follow chance_outcomes() ---------------------------------------------------------

def zombie_positions():
    game = ZombieDiceGame(2, "official")
    fresh = game.new_initial_state()
    # After some rolls: footprints kept, cup depleted, and a cup too short to draw from.
    mid = fresh._with(cup=(3, 3, 1), brain_dice=(2, 1, 0), shotgun_dice=(0, 0, 1), feet=(1, 0, 1),
                      turn_brains=3, rolled=True)
    short = fresh._with(cup=(0, 0, 0), brain_dice=(4, 4, 1), shotgun_dice=(1, 0, 1), feet=(1, 0, 1),
                        turn_brains=9, rolled=True)
    return [fresh, mid, short]


@pytest.mark.parametrize("index", range(3))
def test_zombie_dice_rolls_follow_chance_outcomes(index):
    state = zombie_positions()[index]
    exact = state.apply(1).chance_outcomes()
    assert len(exact) > 20
    observed = outcomes_after_roll(ZombieDiceBatch(20_000, game=state.game), state, 200_000, seed=index)
    assert chi_square(observed, exact) > 1e-3


@pytest.mark.parametrize("die", [d(6), d(6).loaded(6, Fraction(5, 4)), d(10)])
def test_pig_rolls_follow_chance_outcomes(die):
    game = PigGame(100, die)
    state = PigState(game, (10, 20), 0, 5, False, None)
    observed = outcomes_after_roll(PigBatch(20_000, game=game), state, 100_000, seed=1)
    assert chi_square(observed, state.apply(1).chance_outcomes()) > 1e-3


@pytest.mark.parametrize("config", [dict(faces=6), dict(num_players=2, dice_per_player=2, faces=4),
                                    dict(num_players=3, dice_per_player=2, faces=3),
                                    dict(num_players=3, dice_per_player=(1, 3, 2), faces=3)])
def test_liars_dice_rolls_follow_chance_outcomes(config):
    game = LiarsDiceGame(**config)
    batch = LiarsDiceBatch(50_000, game=game)
    batch.reset(np.random.default_rng(2))
    observed = Counter(batch.chance_outcome(k) for k in range(batch.num_envs))
    assert chi_square(observed, game.new_initial_state().chance_outcomes()) > 1e-3


def test_bad_configuration_and_actions_are_refused():
    with pytest.raises(ValueError, match="num_envs"):
        PigBatch(0)
    with pytest.raises(ValueError, match="num_envs"):
        ZombieDiceBatch(True)
    batch = PigBatch(4)
    batch.reset(np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape"):
        batch.step(np.ones(3, np.int64), np.random.default_rng(0))
    with pytest.raises(ValueError, match="integers"):
        batch.step(np.ones(4) * 0.5, np.random.default_rng(0))
