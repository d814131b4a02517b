"""The Shakes, batched (:mod:`dice_envs.games.shakes.batched`) against the rules core.

* Differential: a batch and one rules-core state per game go through the same games
  (the batch's chance outcomes, deal, every argument round and the treatment roll,
  applied to the core; the same actions, legal and illegal) and must agree on every
  current player, mask, observation of every seat, reward and termination: 10^5
  agent steps for the court and the cooperative maesters game with 4 players, fewer
  for the other configurations (objective "saved", competitive with and without
  ``until_winner``, 2 and 6 players).
* Statistical: the deal, an argument among contenders with different records (its
  first round, and who wins it after the tie re-rolls) and the treatment roll follow
  the rules core's exact ``chance_outcomes()`` (chi-square).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from batched_checks import HEADLINE, chi_square, drive, outcomes_after_roll

from dice_envs.games.shakes.batched import ShakesCourtBatch, ShakesMaestersBatch
from dice_envs.games.shakes.rules import (
    ARGUE,
    ARGUMENT,
    DECIDE,
    TREAT,
    CourtGame,
    CourtState,
    MaestersGame,
    MaestersState,
)

# name -> (batch factory, games, agent steps, drive's illegal-action rate).  A maesters round is
# one step per seat, so a 6-player game lasts 108 steps: fewer games, so that some finish.
CONFIGS = {
    "court 4p": (lambda n: ShakesCourtBatch(n), 200, HEADLINE, 0.05),
    "maesters 4p cooperative": (lambda n: ShakesMaestersBatch(n), 200, HEADLINE, 0.01),
    "court 2p saved": (lambda n: ShakesCourtBatch(n, 2, "saved"), 200, 20_000, 0.05),
    "court 6p saved": (lambda n: ShakesCourtBatch(n, 6, "saved"), 200, 20_000, 0.05),
    "maesters 3p competitive": (lambda n: ShakesMaestersBatch(n, 3, "competitive"), 200, 20_000, 0.01),
    "maesters 3p competitive until_winner": (
        lambda n: ShakesMaestersBatch(n, 3, "competitive", until_winner=True), 200, 20_000, 0.01),
    "maesters 6p cooperative saved": (lambda n: ShakesMaestersBatch(n, 6, objective="saved"), 60, 20_000, 0.01),
}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.slow) if steps >= HEADLINE else name
    for name, (_, _, steps, _) in CONFIGS.items()
])
def test_batched_shakes_equals_the_rules_core(name):
    make, games, steps, illegal_rate = CONFIGS[name]
    finished, illegal = drive(make(games), steps, seed=7, illegal_rate=illegal_rate)
    # Both endings were exercised: games played to the end, and games ended by an illegal action.
    assert finished - illegal > 50 and illegal > 20


# -- chance draws follow chance_outcomes() ---------------------------------------------------------

def test_deal_follows_chance_outcomes():
    game = CourtGame(6)
    batch = ShakesCourtBatch(30_000, game=game)
    batch.reset(np.random.default_rng(1))
    observed = Counter(batch.drawn_outcomes(k)[0] for k in range(batch.num_envs))
    exact = game.new_initial_state().chance_outcomes()
    assert len(exact) == 60 and len(observed) == 60
    assert chi_square(observed, exact) > 1e-3


def argument_position(game=None, treated=(3, 5, 2, 1), saved=(1, 4, 0, 0), efficacies=(4, 2, 1, 1)):
    """Seats 0 and 1 argued, seat 2 yielded, seat 3 is to declare (argue: three contenders
    with different records)."""
    game = game or MaestersGame(4)
    return MaestersState(game, efficacies=efficacies, treated=treated, saved=saved, phase=DECIDE,
                         declared=(ARGUE, ARGUE, 0))


def winner_distribution(state):
    """Exact P(each contender wins the argument at ``state``), ties re-rolled, from the rules core."""
    stay, win = Fraction(0), Counter()
    for outcome, p in state.chance_outcomes():
        after = state.apply(outcome)
        if after.phase == TREAT:
            win[after.patient_to] += p
        elif after.contenders == state.contenders:
            stay += p
        else:
            for seat, q in winner_distribution(after).items():
                win[seat] += p * q
    return {seat: p / (1 - stay) for seat, p in win.items()}


def argue_in_every_game(batch, state, rng):
    """Load ``state`` (seat 3 to declare) into every game and let seat 3 argue; returns the
    seat treated in each game and the batch's drawn outcomes."""
    batch.load_states([state] * batch.num_envs)
    batch.step(np.full(batch.num_envs, ARGUE), rng)
    who = np.argmax(batch.state["treated"] - np.array(state.treated), axis=1)
    return who, [batch.drawn_outcomes(k) for k in range(batch.num_envs)]


def test_argument_follows_chance_outcomes():
    state = argument_position()
    arguing = state.apply(ARGUE)
    assert arguing.phase == ARGUMENT and arguing.contenders == (0, 1, 3)
    batch = ShakesMaestersBatch(20_000, game=state.game)
    rng = np.random.default_rng(3)
    first, winners = Counter(), Counter()
    for _ in range(3):
        who, drawn = argue_in_every_game(batch, state, rng)
        first.update(outcomes[0] for outcomes in drawn)
        winners.update(who.tolist())
        assert all(len(outcomes) >= 2 for outcomes in drawn)  # argument round(s), then the treatment
    assert chi_square(first, arguing.chance_outcomes()) > 1e-3
    exact = winner_distribution(arguing)
    assert set(winners) == set(exact) == {0, 1, 3}
    assert chi_square(winners, sorted(exact.items())) > 1e-3


def test_argument_table_grows_past_the_table_with_until_winner():
    game = MaestersGame(4, "competitive", until_winner=True)
    state = argument_position(game, treated=(40, 37, 2, 3), saved=(2, 2, 0, 0), efficacies=(3, 3, 3, 3))
    batch = ShakesMaestersBatch(20_000, game=game)
    assert len(batch._table) < 41
    who, drawn = argue_in_every_game(batch, state, np.random.default_rng(4))
    assert len(batch._table) > 40
    arguing = state.apply(ARGUE)
    assert chi_square(Counter(outcomes[0] for outcomes in drawn), arguing.chance_outcomes()) > 1e-3
    assert chi_square(Counter(who.tolist()), sorted(winner_distribution(arguing).items())) > 1e-3


@pytest.mark.parametrize("efficacies", [(4, 2, 1, 1), (1, 1, 2, 4)])
def test_treatment_roll_follows_chance_outcomes(efficacies):
    game = CourtGame(4)
    state = CourtState(game, efficacies=efficacies, treated=(2, 1, 0, 0), saved=(1, 1, 0, 0), phase=DECIDE)
    batch = ShakesCourtBatch(20_000, game=game)
    observed = outcomes_after_roll(batch, state, 100_000, seed=5)  # action 1: treatment 1
    assert chi_square(observed, state.apply(1).chance_outcomes()) > 1e-3
    saved = batch.state["saved"][:, 1] - state.saved[1]
    assert np.array_equal(saved, np.array([batch.chance_outcome(k) for k in range(batch.num_envs)])
                          <= efficacies[1])


def test_drawn_outcomes_survive_steps_of_other_games():
    """A game left out of many steps (``where``) still reports the outcomes of its own last step."""
    batch = ShakesMaestersBatch(40)
    rng = np.random.default_rng(6)
    batch.reset(rng)
    for _ in range(4):  # a whole round: everyone argues
        batch.step(np.full(40, ARGUE), rng)
    kept = batch.drawn_outcomes(0)
    assert len(kept) >= 2
    others = np.arange(1, 40)
    for _ in range(200):
        _, terminated = batch.step(np.full(39, ARGUE), rng, where=others)
        batch.reset(rng, where=others[terminated])
    assert len(batch._log) <= batch._log_size + 1
    assert batch.drawn_outcomes(0) == kept
    batch.step(np.full(40, -1), rng)  # illegal everywhere: nothing drawn
    assert batch.drawn_outcomes(0) == [] and batch.done.all()


# -- configuration ---------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: ShakesCourtBatch(4, num_players=7),
    lambda: ShakesCourtBatch(4, num_players=1),
    lambda: ShakesCourtBatch(4, objective="lives"),
    lambda: ShakesCourtBatch(0),
    lambda: ShakesCourtBatch(4, game=MaestersGame(4)),
    lambda: ShakesMaestersBatch(4, num_players=True),
    lambda: ShakesMaestersBatch(4, variant="solo"),
    lambda: ShakesMaestersBatch(4, until_winner=True),
    lambda: ShakesMaestersBatch(4, variant="competitive", objective="saved"),
    lambda: ShakesMaestersBatch(4, variant="competitive", until_winner="yes"),
    lambda: ShakesMaestersBatch(True),
    lambda: ShakesMaestersBatch(4, game=CourtGame(4)),
])
def test_bad_configuration_raises(make):
    with pytest.raises(ValueError):
        make()


def test_game_argument_is_used():
    game = MaestersGame(5, "competitive", until_winner=True)
    batch = ShakesMaestersBatch(3, game=game)
    assert batch.game is game and batch.num_players == 5 and batch.observation_shape == (13,)
    assert ShakesCourtBatch(3, 6, "saved").game.objective == "saved"
