"""ESCHER for two-player Liar's Dice: regret and average-policy networks learned from sampled games.

ESCHER (McAleer et al. 2023, "ESCHER: Eschewing Importance Sampling in Games by Computing a History
Value Function to Estimate Regret") is Deep CFR (Brown et al. 2019) without importance weights.  No
table is kept at any point: every quantity that carries over between iterations is a network, so
the same learner runs on one die each (24,576 information states) and on two dice each (352 M).

Every iteration (:meth:`Escher.iterate`) plays ``games`` games of the batched environment
(:class:`dice_envs.games.liars_dice.batched.LiarsDiceBatch`) to the end.  In game ``k`` player ``k % 2``
is the *traverser*: it draws its actions uniformly among the legal ones (a fixed sampling policy),
while the other player plays the current policy ``sigma_t``, regret matching on the regret network's
outputs.  Then three networks are fitted, each an MLP of
:func:`dice_envs.agents.liars_dice.learned.build_network`:

* the **history value network** ``Q(h, a)`` sees the mover's observation and the other player's
  dice (the whole history ``h``; centralised training, decentralised play) and estimates the mover's
  payoff of each action when both players play ``sigma_t`` afterwards.  Its targets are expected
  SARSA's: the payoff where the action ended the game (a call), else minus the next mover's value
  ``sum_b sigma_t(b | next) Q(next, b)``, which the game being deterministic after the deal makes
  exact given ``Q``.  It is fitted with ``value_steps`` Adam steps on the iteration's decisions;
* the **regret network** ``R(I, a)``: at every traverser decision the vector
  ``Q(h, a) - sum_b sigma_t(b | I) Q(h, b)`` over the legal actions is added, with weight ``t``
  (Linear CFR), to a reservoir sample of all iterations' such rows, and ``regret_steps`` Adam steps
  of weighted squared error on minibatches drawn from it fit ``R``.  Because the traverser's
  sampling policy is the same every iteration and the other player plays ``sigma_t``, an
  information state appears in the reservoir in proportion to the other player's reach (times a
  constant of its own), so ``R`` approaches each information state's cumulative counterfactual
  regret divided by a positive number: regret matching on it is CFR's policy, with no
  importance weight anywhere;
* the **average-policy network**: at every decision of the non-traverser, ``sigma_t`` there is
  added with weight ``t`` to a second reservoir (such decisions occur in proportion to the
  player's own reach under ``sigma_t``, the weight CFR's average needs), and ``average_steps`` Adam
  steps of weighted cross-entropy fit the network.  This network is the learner's output: it is
  what is scored and saved.

Two settings use what the rules make public, that dice are dealt independently and a player's
actions depend only on its own dice and the bids, to take the hidden dice out of the samples'
noise.  Both follow, game by game, the *posterior* of the non-traverser's rolls: each roll's chance
times the probability that ``sigma_t`` with that roll made the bids it made (Bayes' rule; the
regret network is run once per roll at that player's decisions):

* ``other_dice="posterior"``: a traverser decision's regrets are averaged over the other player's
  possible rolls, each weighted by its posterior, instead of taken at its dealt roll.  The
  expectation is the same, since the games reach a history in proportion to that same
  posterior, but the hidden roll no longer adds noise to the targets;
* ``own_dice="all"``: the traverser samples its actions uniformly, whatever its dice, so the same
  bids were as likely with any roll it might hold.  Each traverser decision adds one regret row
  per such roll (weighted by its chance), and each decision of the other player one
  average-policy row per roll it might hold (``sigma_t`` with that roll, weighted by its
  posterior, which is how often CFR's average counts it).

With ``merge=True`` the rows of an iteration with the same input (and the same dice of the other
player, where the targets are taken at them) become one row, weighted by their number: their
targets are the same, so every row's weight still reaches the fit, and the reservoirs keep far
more of the past (with the traverser bidding uniformly, most of an iteration's decisions fall on a
few public nodes).  Minibatches are then drawn in proportion to the rows' weights, with equal
weights in the loss (:meth:`Reservoir.sample`), so that the rows of often-visited nodes do not make
the gradient noisy.

Regret matching (:func:`regret_matching`) plays the positive part of the predicted regrets over the
legal actions, or the legal action of largest predicted regret where none is positive (Deep CFR's
rule).

With ``regret_plus=True`` the learner plays regret matching+ (Tammelin 2014; CFR+'s rule) instead:
the regret network holds each information state's *sum* of regrets, every iteration weighted
alike and the sum floored at 0 after each, which no reservoir of single iterations' rows can give
(the floor makes the sum depend on the order of the iterations).  So the network is fitted to
*bootstrapped* targets (:meth:`Escher._fit_plus`): at every row drawn from the regret reservoir,
the network's own output before this iteration's fit, plus the iteration's regrets at that
information state (none where no game visited it), floored at 0.  Each traverser decision's
regrets are weighted by ``1 / (games * rho)``, ``rho`` the traverser's reach by its uniform
draws so far (``1 / legal actions`` at each of its earlier decisions): summed over an iteration's
games, that is an unbiased estimate of the other player's and chance's reach, the weight CFR
gives the information state's regrets.  It also keeps the targets of rarely visited states out of
the network's noise floor: weighted by visits alone, states deep in the bidding have sums too small
for the network to hold.  An iteration costs more than with plain regret matching (the frozen
copy's forward pass on every minibatch).  The reservoir keeps the rows only for their inputs and
as the draw's weights; their stored regrets are the iteration's, for inspection.

``reach_floor = f`` floors ``rho`` at ``f`` in those weights.  Since ``rho`` depends only on the
traverser's own bids, which the information state holds, any function of it is a constant factor
of the information state's sum, and regret matching+ (the positive parts, normalised; the floor at
0) does not change under a positive factor: on a table the policy would be the same.  For the
network it bounds the weight of the rare deep decisions: without it, where a player holds more
dice (more actions), one decision can weigh orders of magnitude more than the median, and its
targets pull the network's outputs at other states far from theirs.

``regret_decay = d < 1`` multiplies the sums by ``d`` before each iteration's regrets are added
(the target is ``max(0, d * before + regrets)``), so iteration ``t``'s regrets weigh ``d ** -t``
and the sums remember about the last ``1 / (1 - d)`` iterations.  The sums are the network's own
outputs, so each fit's error is carried into every later target; with the decay an error made
``k`` iterations ago weighs ``d ** k`` and the errors' total stays bounded, where without it they
add up over the whole run.

``iteration_rows = s > 0`` draws that share of each regret minibatch from the iteration's own rows
(all of them, by weight), and the rest from the reservoir.  Once the reservoir is full it keeps an
iteration's rows with a probability that falls as ``1 / (rows seen)``, so without this share an
iteration's regrets reach the network only at information states where older rows stand, and in
proportion to those rows' weights, whatever the current policy now reaches.

With ``predictive_plus=True`` the learner plays *predictive* regret matching+ (Farina et al. 2021,
"Faster Game Solving via Predictive Blackwell Approachability"): regret matching on
``2 R_t - R_{t-1}``, the regret network's output plus its change in the last fit (``frozen_net``
keeps the network as it was before that fit).  On a table the change is the last iteration's
regret of an action wherever the floor did not bind, and where it did both rules give that action
no weight, so this plays exactly as predictive regret matching+ (whose prediction is the last
iteration's regrets), with the networks alone.

With ``average_ema = d > 0`` the learner's output (:attr:`Escher.output_net`, what is scored and
saved) is an exponential moving average of the average-policy network's weights, updated after
every Adam step of its fit (``ema <- d ema + (1 - d) w``).  Unlike the regret network's targets,
which change every iteration, the average policy's change slowly, so the average of the weights
over the last ``1 / (1 - d)`` steps smooths the fit's noise.

``average_power = p`` weights iteration ``t``'s policy ``t ** p`` in the average-policy
reservoir (1: linear, CFR's and Linear CFR's; 2: as Discounted CFR's ``gamma = 2`` and as CFR+
with a quadratic average).

With ``beliefs=True`` every network also takes both players' *ranges*: the probability of each
roll the mover may hold, and of each roll the other player may hold, given the bids so far
(:mod:`dice_envs.agents.liars_dice.beliefs`: Bayes' rule on a player's own policy, a function of
the public history alone).  The ranges are those of the policy the network serves: ``sigma_t``'s
for the regret and history value networks, the output policy's own for the average network.  The
batched play carries both pairs of ranges along every game, updated at each decision with the
policy had the mover held each of its rolls (one forward pass per roll at each public state); the
rows keep the ranges they were played with.  The output, a network whose inputs include ranges
computed from itself, is still a fixed function of (own dice, bids): scored, it computes them
itself, depth by depth (:class:`~dice_envs.agents.liars_dice.learned.LearnedLiarsDicePolicy`), so
its exploitability stays exact.

Both reservoirs keep their rows compactly (observations as bytes: every entry is a small count or
a flag) and are part of the learner's state (:meth:`Escher.state_dict`), so a run resumes exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterator, List, NamedTuple, Optional, Tuple

import numpy as np

from dice_envs.agents.liars_dice.beliefs import Hands, belief_features, beliefs_at
from dice_envs.agents.liars_dice.learned import NETWORK_CHUNK, LearnedLiarsDicePolicy, build_network
from dice_envs.core.resources import check_resources
from dice_envs.games.liars_dice.rules import LiarsDiceGame

__all__ = ["Escher", "EscherSettings", "OTHER_DICE", "OWN_DICE", "Reservoir", "SampledStep",
           "draw_by_weight", "expected_sarsa_targets", "regret_matching", "sampled_games", "unique_rows"]


#: where the regret targets take the other player's hidden dice: as dealt, or averaged over every roll
OTHER_DICE = ("sampled", "posterior")
#: which of the traverser's rolls get a regret row at each of its decisions: the dealt one, or all
OWN_DICE = ("dealt", "all")


@dataclass(frozen=True)
class EscherSettings:
    """What one :class:`Escher` iteration does (see the module docstring).  The defaults are the
    recommended settings: predictive regret matching+ with posterior targets, rows for every roll
    of the traverser, merged rows, the reach floored at 0.01, a quarter of each regret minibatch
    from the iteration's own rows, the average weighted by ``t ** 2`` and scored as a moving average
    of its weights; ``regret_plus=False, predictive_plus=False, reach_floor=0, iteration_rows=0`` is
    Deep CFR's regret matching on linearly weighted regrets."""

    games: int = 8192  # games played per iteration (half of them traversing each player)
    value_steps: int = 16  # Adam steps fitting the history value network per iteration
    regret_steps: int = 16  # Adam steps fitting the regret network per iteration
    average_steps: int = 16  # Adam steps fitting the average-policy network per iteration
    minibatch: int = 4096  # rows per Adam step
    value_learning_rate: float = 2e-3
    regret_learning_rate: float = 1e-3
    average_learning_rate: float = 1e-3
    buffer: int = 2_000_000  # rows each reservoir keeps
    other_dice: str = "posterior"  # regret targets averaged over the other player's rolls, or "sampled" (as dealt)
    own_dice: str = "all"  # regret rows for each of the traverser's possible rolls, or "dealt" (see Escher)
    merge: bool = True  # an iteration's equal rows become one, weighted by their number; minibatches by weight
    regret_plus: bool = True  # regret matching+: the regret network holds floored sums, fitted to bootstrapped targets
    average_power: float = 2.0  # iteration t's sigma_t is weighted t ** average_power in the average
    reach_floor: float = 0.01  # (regret_plus) the traverser's reach is floored at this in the rows' weights
    regret_decay: float = 1.0  # (regret_plus) the sums are multiplied by this before each iteration's regrets are added
    iteration_rows: float = 0.25  # (regret_plus) this share of each regret minibatch comes from the iteration's own rows
    predictive_plus: bool = True  # (regret_plus) sigma_t plays on the network plus its change in the last fit
    average_ema: float = 0.995  # the learner's output is a moving average of the average network's weights (0: off)
    beliefs: bool = False  # the networks also take both players' ranges over their hands (see Escher)

    def __post_init__(self):
        if self.other_dice not in OTHER_DICE:
            raise ValueError(f"other_dice must be one of {list(OTHER_DICE)}, got {self.other_dice!r}")
        if self.own_dice not in OWN_DICE:
            raise ValueError(f"own_dice must be one of {list(OWN_DICE)}, got {self.own_dice!r}")
        if not 0.0 <= self.average_ema < 1.0:
            raise ValueError(f"average_ema must be in [0, 1), got {self.average_ema}")
        if self.predictive_plus and not self.regret_plus:
            raise ValueError("predictive_plus is for regret_plus (it predicts with the last fit's change)")
        if not 0.0 <= self.reach_floor < 1.0:
            raise ValueError(f"reach_floor must be in [0, 1), got {self.reach_floor}")
        if not 0.0 <= self.average_power <= 4.0:
            raise ValueError(f"average_power must be in [0, 4], got {self.average_power}")
        if not 0.0 < self.regret_decay <= 1.0:
            raise ValueError(f"regret_decay must be in (0, 1], got {self.regret_decay}")
        if self.regret_decay < 1.0 and not self.regret_plus:
            raise ValueError("regret_decay is for regret_plus (it decays the sums the regret network holds)")
        if not 0.0 <= self.iteration_rows < 1.0:
            raise ValueError(f"iteration_rows must be in [0, 1), got {self.iteration_rows}")
        if self.iteration_rows and not self.regret_plus:
            raise ValueError("iteration_rows is for regret_plus (its fit adds the iteration's regrets to the sums); "
                             "give iteration_rows=0 with regret_plus=False")


def regret_matching(regrets, mask):
    """The policy regret matching plays on predicted ``regrets`` (torch, ``(n, A)``) over the legal
    actions ``mask`` (bool): the positive parts, normalised, or (where none is positive) the legal
    action of largest predicted regret."""
    import torch

    positive = torch.clamp(regrets, min=0.0) * mask
    total = positive.sum(-1, keepdim=True)
    best = regrets.masked_fill(~mask, -torch.inf).argmax(-1)
    greedy = torch.nn.functional.one_hot(best, regrets.shape[-1]).to(regrets.dtype)
    return torch.where(total > 0, positive / torch.where(total > 0, total, torch.ones_like(total)), greedy)


class Reservoir:
    """A uniform sample of every row ever added (reservoir sampling, Vitter's algorithm R), at most
    ``capacity`` rows: an observation (bytes), a legal-action mask, a target vector and a weight,
    and (``extra_dim`` > 0) that many more inputs of the network (float32: the ranges of
    ``EscherSettings.beliefs``)."""

    def __init__(self, capacity: int, obs_dim: int, num_actions: int, what: str = "a reservoir", extra_dim: int = 0):
        check_resources(f"{what} of {capacity:,} rows", capacity * self.row_bytes(obs_dim, num_actions, extra_dim))
        self.capacity = capacity
        self.seen = 0
        self.obs = np.zeros((capacity, obs_dim), np.uint8)
        self.mask = np.zeros((capacity, num_actions), bool)
        self.target = np.zeros((capacity, num_actions), np.float32)
        self.weight = np.zeros(capacity, np.float32)
        self.extra = np.zeros((capacity, extra_dim), np.float32)

    @staticmethod
    def row_bytes(obs_dim: int, num_actions: int, extra_dim: int = 0) -> int:
        """Bytes per row, twice over (the rows and their copy in a checkpoint)."""
        return 2 * (obs_dim + num_actions * 5 + 4 + 4 * extra_dim)

    def __len__(self) -> int:
        return min(self.seen, self.capacity)

    def add(self, obs: np.ndarray, mask: np.ndarray, target: np.ndarray, weight,
            rng: np.random.Generator, extra: Optional[np.ndarray] = None) -> None:
        """Add rows (each kept with probability ``capacity / rows seen so far``); ``weight`` one
        number for all of them or one per row; ``extra`` their more inputs (with ``extra_dim``)."""
        n = len(obs)
        weight = np.broadcast_to(np.asarray(weight, np.float32), (n,))
        number = self.seen + np.arange(n)  # each new row's number among all rows seen
        slot = np.where(number < self.capacity, number, -1)
        late = number >= self.capacity
        if late.any():
            draw = rng.integers(0, number[late] + 1)
            slot[late] = np.where(draw < self.capacity, draw, -1)
        keep = slot >= 0
        # A slot drawn twice in one call keeps the later row, as adding the rows one by one would.
        slot, rows = slot[keep], np.flatnonzero(keep)
        self.obs[slot] = obs[rows]
        self.mask[slot] = mask[rows]
        self.target[slot] = target[rows]
        self.weight[slot] = weight[rows]
        if self.extra.shape[1]:
            self.extra[slot] = np.asarray(extra)[rows]
        self.seen += n

    def sample(self, n: int, rng: np.random.Generator, by_weight=None) -> tuple:
        """``n`` rows drawn uniformly (with replacement), as torch tensors; or, given
        :meth:`by_weight`, each in proportion to its weight, with weights of 1 (the same expected
        weighted loss, without a few heavy rows making its gradient noisy)."""
        import torch

        i, weight = self.draw(n, rng, by_weight)
        return (torch.from_numpy(self.obs[i].astype(np.float32)), torch.from_numpy(self.mask[i]),
                torch.from_numpy(self.target[i]), torch.from_numpy(weight))

    def draw(self, n: int, rng: np.random.Generator, by_weight=None) -> Tuple[np.ndarray, np.ndarray]:
        """The rows :meth:`sample` draws, and their weights in the loss: ``(indices, weights)``."""
        if by_weight is None:
            i = rng.integers(0, len(self), n)
            return i, self.weight[i]
        return draw_by_weight(by_weight, n, rng), np.ones(n, np.float32)

    def inputs(self, i: np.ndarray) -> tuple:
        """The network inputs of rows ``i`` (torch): the observations, and the more inputs where
        the reservoir has them."""
        import torch

        obs = torch.from_numpy(self.obs[i].astype(np.float32))
        return (obs, torch.from_numpy(self.extra[i])) if self.extra.shape[1] else (obs,)

    def by_weight(self) -> np.ndarray:
        """The rows' cumulative weights, for :meth:`sample` in proportion to them."""
        return np.cumsum(self.weight[:len(self)], dtype=np.float64)

    def state_dict(self) -> dict:
        import torch

        n = len(self)
        return {"seen": torch.tensor(self.seen), "obs": torch.from_numpy(self.obs[:n].copy()),
                "mask": torch.from_numpy(self.mask[:n].copy()), "target": torch.from_numpy(self.target[:n].copy()),
                "weight": torch.from_numpy(self.weight[:n].copy()),
                **({"extra": torch.from_numpy(self.extra[:n].copy())} if self.extra.shape[1] else {})}

    def load_state_dict(self, state: dict) -> None:
        seen = int(state["seen"])
        n = min(seen, self.capacity)
        names = ("obs", "mask", "target", "weight") + (("extra",) if self.extra.shape[1] else ())
        if "extra" in state and not self.extra.shape[1]:
            raise ValueError("the reservoir holds more inputs than its network takes")
        parts = {name: state[name].numpy() for name in names}
        for name, array in parts.items():
            mine = getattr(self, name)
            if array.shape != (n,) + mine.shape[1:] or array.dtype != mine.dtype:
                raise ValueError(f"the reservoir's {name!r} is {array.dtype}{list(array.shape)}, expected "
                                 f"{mine.dtype}{[n, *mine.shape[1:]]}")
        if not all(np.isfinite(parts[name]).all() for name in names[2:]):
            raise ValueError("the reservoir holds numbers that are not finite")
        if (parts["weight"] < 0).any():
            raise ValueError("the reservoir holds negative weights")
        for name, array in parts.items():
            getattr(self, name)[:n] = array
        self.seen = seen


def _joined(parts: tuple, join):
    """``join(parts)``, or the one part itself (a minibatch drawn from one source is not copied again)."""
    return parts[0] if len(parts) == 1 else join(parts)


def draw_by_weight(cumulative: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` row indices drawn with replacement, each in proportion to its weight, given the rows'
    cumulative weights."""
    return np.minimum(np.searchsorted(cumulative, rng.random(n) * cumulative[-1], side="right"), len(cumulative) - 1)


class _Decisions:
    """The decisions of one iteration's games, step by step (one entry per step of the batch)."""

    def __init__(self) -> None:
        self.games: List[np.ndarray] = []  # the games still playing at each step
        self.obs: List[np.ndarray] = []
        self.other: List[np.ndarray] = []  # the other player's dice (counts per face)
        self.mask: List[np.ndarray] = []
        self.seat: List[np.ndarray] = []  # the mover
        self.sigma: List[np.ndarray] = []  # the current policy at the decision
        # (other_dice="posterior" or own_dice="all") the posterior of the non-traverser's rolls given the
        # bids so far, and (own_dice="all") at its own decisions sigma_t had it held each roll
        self.posterior: List[np.ndarray] = []
        self.sigma_by_roll: List[np.ndarray] = []
        self.action: List[np.ndarray] = []
        self.traverser: List[np.ndarray] = []  # the mover is the game's traverser
        self.explore: List[np.ndarray] = []  # the traverser's reach by its uniform draws so far
        self.payoff: List[np.ndarray] = []  # the mover's payoff from this step (0 unless it ended the game)
        self.ended: List[np.ndarray] = []
        # (beliefs) the ranges at the decision as network inputs: sigma_t's, and the output policy's
        self.features: List[np.ndarray] = []
        self.output_features: List[np.ndarray] = []

    def count(self) -> int:
        return sum(len(g) for g in self.games)


class Escher:
    """The ESCHER learner of a two-player Liar's Dice round game (see the module docstring).

    Args:
        game: a two-player :class:`~dice_envs.games.liars_dice.rules.LiarsDiceGame` (any dice per player, faces,
            wild rule and starting player).
        hidden: the regret and average-policy networks' hidden layers (``"128,128"``).
        value_hidden: the history value network's.
        settings: :class:`EscherSettings`.
        average_hidden: the average-policy network's, where it differs from ``hidden`` (``None``:
            ``hidden``).  The average network is the one scored, so on two dice each, where the
            scoring streams every information state through it, a narrower one scores faster.

    The networks (``regret_net``, ``value_net``, ``average_net``), their optimisers and the two
    reservoirs are the learner's state (:meth:`state_dict`); torch's generator draws the initial
    weights, the ``rng`` given to :meth:`iterate` the dice and the actions.
    """

    def __init__(self, game: LiarsDiceGame, hidden: str = "128,128", value_hidden: str = "128,128",
                 settings: EscherSettings = EscherSettings(), average_hidden: Optional[str] = None):
        import torch

        if game.num_players != 2:
            raise ValueError(f"ESCHER here is for two-player Liar's Dice, got {game.num_players} players")
        self.game, self.settings = game, settings
        config = game.config()
        # every player's possible rolls, as counts per face, and their log-probabilities (padded with
        # impossible rolls to the longest list, so that both seats' lists stack)
        self.hands = Hands(game)
        self.rolls, self.roll_log_prob = self.hands.counts, self.hands.log_prior
        extra = self.hands.features if settings.beliefs else 0  # (beliefs) both players' ranges
        # the regret and average networks start with every output 0 (the average one: the uniform policy)
        self.regret_net = build_network(config, hidden, extra, zero_output=True)
        self.value_net = build_network(config, value_hidden, extra_inputs=game.faces + extra)
        average_hidden = hidden if average_hidden is None else average_hidden
        self.average_net = build_network(config, average_hidden, extra, zero_output=True)
        # (regret_plus) the regret network as it was before the last fit: the fit's bootstrapped targets,
        # and (predictive_plus) the prediction, start from it
        self.frozen_net = _frozen_copy(self.regret_net, config, hidden, extra) if settings.regret_plus else None
        # (average_ema) the moving average of the average network's weights: the learner's output
        self.average_ema = (_frozen_copy(self.average_net, config, average_hidden, extra) if settings.average_ema
                            else None)
        self.optimisers = {
            "regret": torch.optim.Adam(self.regret_net.parameters(), lr=settings.regret_learning_rate),
            "value": torch.optim.Adam(self.value_net.parameters(), lr=settings.value_learning_rate),
            "average": torch.optim.Adam(self.average_net.parameters(), lr=settings.average_learning_rate)}
        obs_dim, A = game.observation_shape[0], game.num_actions
        self.regrets = Reservoir(settings.buffer, obs_dim, A, "the regret reservoir", extra)
        self.policies = Reservoir(settings.buffer, obs_dim, A, "the average-policy reservoir", extra)
        self.iterations = 0
        self._playing = False  # inside iterate(): sigma_t is that of self.iterations
        self._increments: _Increments | None = None  # (regret_plus) the iteration's weighted regrets
        self._iteration_rows: Reservoir | None = None  # (iteration_rows) the iteration's regret rows, all of them

    # -- the policy ------------------------------------------------------------------------------

    def current_policy(self, obs: np.ndarray, mask: np.ndarray, features: Optional[np.ndarray] = None) -> np.ndarray:
        """``sigma_t``: regret matching on the regret network (with ``predictive_plus``, plus the
        regret network's change in its last fit), ``(n, A)`` float64.  Between iterations it is the
        policy the next iteration will play.  Large batches run :data:`NETWORK_CHUNK` rows at a time
        (faster than one batch of all rows).

        With ``beliefs``, at the ranges ``features`` (:func:`~dice_envs.agents.liars_dice.beliefs.
        belief_features`) where given, else at those ``sigma_t``'s own play gives
        (:func:`~dice_envs.agents.liars_dice.beliefs.beliefs_at`): a fixed function of the
        observations, as the scoring needs."""
        import torch

        if self.settings.beliefs and features is None:
            features = self._beliefs_of(self.current_policy, obs)
        x = torch.from_numpy(np.array(obs, np.float32))  # (a copy: torch warns on read-only arrays)
        extra = None if features is None else torch.from_numpy(np.asarray(features, np.float32))
        legal = torch.from_numpy(np.array(mask, bool))
        out = torch.empty(legal.shape, dtype=torch.float64)
        with torch.inference_mode():
            for lo in range(0, len(x), NETWORK_CHUNK):
                rows = slice(lo, lo + NETWORK_CHUNK)
                inputs = (x[rows],) if extra is None else (x[rows], extra[rows])
                outputs = iter(self._infer([self.regret_net, self.prediction_net], *inputs))
                regrets = next(outputs).double()
                if self.prediction_net is not None:
                    regrets = 2.0 * regrets - next(outputs).double()
                out[rows] = regret_matching(regrets, legal[rows])
        return out.numpy()

    @property
    def prediction_net(self):
        """(``predictive_plus``) the regret network as it was before its last fit, from which
        :meth:`current_policy` predicts; ``None`` without ``predictive_plus``.  Only then is it part
        of the learner's state: otherwise the next fit overwrites it before any use."""
        return self.frozen_net if self.settings.predictive_plus else None

    @property
    def output_net(self):
        """The network that is scored and saved: the average-policy network, or (``average_ema``)
        the moving average of its weights."""
        return self.average_net if self.average_ema is None else self.average_ema

    def output_policy(self) -> LearnedLiarsDicePolicy:
        """The learner's output as a policy (with ``beliefs``, one that computes the ranges from
        its own play)."""
        return LearnedLiarsDicePolicy(self.game, self.output_net, self.settings.beliefs)

    def _beliefs_of(self, policy, obs: np.ndarray) -> np.ndarray:
        """(``beliefs``) The ranges ``policy`` (taking them as inputs) gives at these observations,
        as network inputs: ``(n, 2 K)``."""
        obs = np.asarray(obs, np.float32)
        seat = np.argmax(obs[:, :self.game.num_players], axis=1)
        return belief_features(beliefs_at(self.hands, policy, obs), seat)

    def _infer(self, nets, *inputs) -> list:
        """``[net(*inputs) for net in nets]`` for inference, skipping any net that is ``None``."""
        return [net(*inputs) for net in nets if net is not None]

    def networks(self) -> tuple:
        return (self.regret_net, self.value_net, self.average_net) + tuple(
            net for net in (self.frozen_net, self.average_ema) if net is not None)

    # -- one iteration ----------------------------------------------------------------------------

    def iterate(self, batch, rng: np.random.Generator) -> Tuple[int, Dict[str, float]]:
        """Play ``settings.games`` games of ``batch`` (a :class:`LiarsDiceBatch` of that many games of
        :attr:`game`) and fit the three networks.  Returns the agent steps played and the losses."""
        if batch.num_envs != self.settings.games or batch.game != self.game:
            raise ValueError(f"the batch must hold {self.settings.games} games of {self.game!r}")
        self.iterations += 1
        self._playing = True
        try:
            for net in self.networks():
                net.eval()
            decisions = self._play(batch, rng)
            losses = {"value_loss": self._fit_value(decisions, rng)}
            self._add_samples(decisions, rng)
            if self.settings.regret_plus:
                losses["regret_loss"] = self._fit_plus(rng)
            else:
                losses["regret_loss"] = self._fit(self.regret_net, self.optimisers["regret"], self.regrets,
                                                  self.settings.regret_steps, rng, _squared_error)
            losses["average_loss"] = self._fit(self.average_net, self.optimisers["average"], self.policies,
                                               self.settings.average_steps, rng, _cross_entropy,
                                               (self.average_ema, self.settings.average_ema))
        finally:
            self._playing = False
        return decisions.count(), losses

    def _play(self, batch, rng: np.random.Generator) -> _Decisions:
        if self.settings.beliefs:
            return self._play_with_beliefs(batch, rng)
        track_rolls = self.settings.other_dice == "posterior" or self.settings.own_dice == "all"
        # the log of each roll's chance times the non-traverser's reach with it, game by game
        log_reach = self.roll_log_prob[1 - np.arange(batch.num_envs) % 2].copy()
        out = _Decisions()
        explore = np.ones(batch.num_envs)
        for step in sampled_games(batch, rng, lambda obs, mask, games: self.current_policy(obs, mask)):
            games, traversing, action = step.games, step.traversing, step.action
            out.explore.append(explore[games])
            explore[games[traversing]] /= step.mask[traversing].sum(1)
            if track_rolls:
                out.posterior.append(_normalised(log_reach[games]))
                playing = np.flatnonzero(~traversing)  # the other player's decisions: its reach with each roll
                by_roll = self._policy_by_roll(step.obs[playing], step.mask[playing], step.seat[playing])
                with np.errstate(divide="ignore"):
                    log_reach[games[playing]] += np.log(by_roll[np.arange(len(playing)), :, action[playing]])
                if self.settings.own_dice == "all":
                    out.sigma_by_roll.append(by_roll.astype(np.float32))
            for name in ("games", "obs", "other", "mask", "seat", "sigma", "action", "payoff", "ended"):
                getattr(out, name).append(getattr(step, name))
            out.traverser.append(traversing)
        return out

    def _play_with_beliefs(self, batch, rng: np.random.Generator) -> _Decisions:
        """:meth:`_play` with ``beliefs``: each game carries both players' ranges under ``sigma_t``
        (the inputs of the regret and value networks, and the non-traverser's posterior) and under
        the output policy (the average network's inputs), updated at every decision by Bayes' rule
        with the policy had the mover held each of its rolls."""
        out = _Decisions()
        n = batch.num_envs
        other_seat = 1 - np.arange(n) % 2  # the non-traverser of each game
        played, scored = self.hands.prior(n), self.hands.prior(n)  # log-ranges: sigma_t's, the output's
        output = self.output_policy()
        explore = np.ones(n)

        def sigma(obs, mask, games):
            return self.current_policy(obs, mask, belief_features(played[games], self._seat(obs)))

        for step in sampled_games(batch, rng, sigma):
            games, traversing, action, seat = step.games, step.traversing, step.action, step.seat
            out.explore.append(explore[games])
            explore[games[traversing]] /= step.mask[traversing].sum(1)
            features, output_features = belief_features(played[games], seat), belief_features(scored[games], seat)
            out.posterior.append(_normalised(played[games, other_seat[games]]))
            for ranges, policy, inputs in ((played, self.current_policy, features),
                                           (scored, output.probabilities, output_features)):
                by_roll = self._policy_by_roll(step.obs, step.mask, seat, inputs, policy)
                after = ranges[games]
                self.hands.update(after, seat, by_roll, action)
                ranges[games] = after
                if ranges is played and self.settings.own_dice == "all":
                    out.sigma_by_roll.append(by_roll[~traversing].astype(np.float32))
            out.features.append(features)
            out.output_features.append(output_features)
            for name in ("games", "obs", "other", "mask", "seat", "sigma", "action", "payoff", "ended"):
                getattr(out, name).append(getattr(step, name))
            out.traverser.append(traversing)
        return out

    def _seat(self, obs: np.ndarray) -> np.ndarray:
        """The mover of each observation (its seat's one-hot)."""
        return np.argmax(obs[:, :self.game.num_players], axis=1)

    def _with_rolls(self, obs: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """``obs`` (``(n, D)``) once per possible roll of its ``seat``'s player: ``(n, K, D)``."""
        return self.hands.with_hands(obs, seat)

    def _policy_by_roll(self, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray,
                        features: Optional[np.ndarray] = None, policy=None) -> np.ndarray:
        """``sigma_t`` (or ``policy(obs, mask, features)``) at these decisions had the mover held
        each of its possible rolls: ``(n, K, A)`` (zeros past the mover's own rolls, where the
        players hold different numbers of dice); with ``beliefs``, at the ranges ``features``.

        The rows' own dice are replaced, so rows at the same public state (the seat and the bids)
        get the same answer: each public state is evaluated once (on two dice each, a sixth as many
        evaluations as decisions)."""
        n, K = len(obs), self.rolls.shape[1]
        if not n:
            return np.zeros((n, K, self.game.num_actions))
        public = obs.astype(np.uint8)
        public[:, self.game.num_players:self.game.num_players + self.game.faces] = 0
        first, inverse = unique_rows(public)
        obs, mask, seat = obs[first], mask[first], seat[first]
        out = np.zeros((len(first), K, self.game.num_actions))
        possible = np.isfinite(self.roll_log_prob[seat])
        policy = self.current_policy if policy is None else policy
        ranges = () if features is None else (np.repeat(features[first][:, None, :], K, axis=1)[possible],)
        out[possible] = policy(self._with_rolls(obs, seat)[possible],
                               np.repeat(mask[:, None, :], K, axis=1)[possible], *ranges)
        return out[inverse]

    def _values(self, obs, other, features: Optional[np.ndarray] = None):
        import torch

        extra = other.astype(np.float32) if features is None else np.concatenate([other, features], 1, dtype=np.float32)
        with torch.inference_mode():
            value, = self._infer([self.value_net], torch.from_numpy(obs), torch.from_numpy(extra))
            return value.double().numpy()

    def _fit_value(self, d: _Decisions, rng: np.random.Generator) -> float:
        import torch

        features = d.features if self.settings.beliefs else [None] * len(d.obs)
        state_value = [(self._values(o, x, f) * s * m).sum(1)
                       for o, x, f, s, m in zip(d.obs, d.other, features, d.sigma, d.mask)]
        obs = torch.from_numpy(np.concatenate(d.obs))
        extra = np.concatenate(d.other).astype(np.float32)
        if self.settings.beliefs:
            extra = np.concatenate([extra, np.concatenate(d.features)], 1)
        other = torch.from_numpy(extra)
        action = torch.from_numpy(np.concatenate(d.action))
        target = torch.from_numpy(expected_sarsa_targets(d.games, d.payoff, d.ended, state_value))
        net, opt = self.value_net, self.optimisers["value"]
        net.train()
        loss = torch.zeros(())
        for _ in range(self.settings.value_steps):
            i = torch.from_numpy(rng.integers(0, len(obs), self.settings.minibatch))
            predicted = net(obs[i], other[i]).gather(1, action[i, None])[:, 0]
            loss = torch.mean((predicted - target[i]) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        return float(loss.detach())

    def _add_samples(self, d: _Decisions, rng: np.random.Generator) -> None:
        """Offer the iteration's rows to the two reservoirs."""
        t = float(self.iterations)
        trav = np.concatenate(d.traverser)
        obs, other = np.concatenate(d.obs), np.concatenate(d.other)
        mask, sigma = np.concatenate(d.mask), np.concatenate(d.sigma)
        seat = np.concatenate(d.seat)
        all_rolls = self.settings.own_dice == "all"
        K = self.rolls.shape[1]
        # (beliefs) the rows' ranges: sigma_t's for the regret rows, the output policy's for the average ones
        beliefs = self.settings.beliefs
        features = np.concatenate(d.features) if beliefs else np.zeros((len(obs), 0), np.float32)
        average_features = np.concatenate(d.output_features) if beliefs else features
        # the average-policy rows: the other player's decisions, or (all) each of its rolls by its posterior
        if all_rolls:
            weight = np.concatenate(d.posterior)[~trav].reshape(-1)
            rows = self._with_rolls(obs[~trav], seat[~trav]).reshape(len(weight), -1)
            masks, targets = np.repeat(mask[~trav], K, axis=0), np.concatenate(d.sigma_by_roll).reshape(len(weight), -1)
            extra = np.repeat(average_features[~trav], K, axis=0)
        else:
            rows, masks, targets, weight = obs[~trav], mask[~trav], sigma[~trav], np.ones(int((~trav).sum()))
            extra = average_features[~trav]
        keep = self._kept(rows, weight)
        self.policies.add(rows[keep].astype(np.uint8), masks[keep], targets[keep].astype(np.float32),
                          t ** self.settings.average_power * weight[keep], rng, extra[keep])
        # the regret rows: the traverser's decisions, or (all) each of its rolls by its chance
        obs, other, mask, sigma, seat = obs[trav], other[trav], mask[trav], sigma[trav], seat[trav]
        features = features[trav]
        posterior = np.concatenate(d.posterior)[trav] if self.settings.other_dice == "posterior" else None
        weight = np.ones(len(obs))
        if self.settings.regret_plus:  # visits / (games * the traverser's reach) estimate the counterfactual reach
            rho = np.maximum(np.concatenate(d.explore)[trav], self.settings.reach_floor)
            weight = 1.0 / (self.settings.games * rho)
        if all_rolls:  # the same decision had the traverser held each roll
            weight = np.repeat(weight, K) * np.exp(self.roll_log_prob[seat]).reshape(-1) * K
            obs = self._with_rolls(obs, seat).reshape(len(weight), -1)
            other, mask, seat, features = (np.repeat(x, K, axis=0) for x in (other, mask, seat, features))
            posterior = None if posterior is None else np.repeat(posterior, K, axis=0)
        keep = self._kept(obs if posterior is not None else np.concatenate([obs, other], axis=1), weight)
        obs, other, mask, seat, features = obs[keep], other[keep], mask[keep], seat[keep], features[keep]
        ranges = features if beliefs else None
        # sigma_t at the rows kept (with every roll, computed for them only)
        sigma = self.current_policy(obs, mask, ranges) if all_rolls else sigma[keep]
        if posterior is not None:
            regret = self._posterior_regrets(obs, mask, sigma, seat, posterior[keep], ranges)
        else:
            q = self._values(obs, other, ranges)
            regret = (q - (q * sigma * mask).sum(1, keepdims=True)) * mask
        obs, regret = obs.astype(np.uint8), regret.astype(np.float32)
        if self.settings.regret_plus:
            self._increments = _Increments(obs, weight[keep, None] * regret)
            self.regrets.add(obs, mask, regret, weight[keep], rng, features)
            self._iteration_rows = None
            if self.settings.iteration_rows and len(obs):
                self._iteration_rows = Reservoir(len(obs), obs.shape[1], mask.shape[1], "the iteration's regret rows",
                                                 features.shape[1])
                self._iteration_rows.add(obs, mask, regret, weight[keep], rng, features)
            return
        self.regrets.add(obs, mask, regret, t * weight[keep], rng, features)

    def _kept(self, keys: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """The rows to add: those of positive weight, or (``merge``) the first of each set of equal
        ``keys`` rows, ``weight`` updated in place to the set's total (an iteration's targets are
        the same wherever the inputs are)."""
        keep = np.flatnonzero(weight > 0)
        if not self.settings.merge or not len(keep):
            return keep
        first, inverse = unique_rows(keys[keep].astype(np.uint8))
        weight[keep[first]] = np.bincount(inverse.reshape(-1), weight[keep], len(first))
        return keep[first]

    def _posterior_regrets(self, obs, mask, sigma, seat, posterior, features=None) -> np.ndarray:
        """The regrets at these traverser decisions averaged over the other player's possible rolls,
        each weighted by its ``posterior`` (``(n, K)``): ``(n, A)``; (``beliefs``) at the ranges
        ``features``."""
        n, K = posterior.shape
        regret = np.zeros(mask.shape)
        for k in range(K):
            held = posterior[:, k] > 0
            if not held.any():
                continue
            q = self._values(obs[held], self.rolls[1 - seat[held], k], None if features is None else features[held])
            r = (q - (q * sigma[held] * mask[held]).sum(1, keepdims=True)) * mask[held]
            regret[held] += posterior[held, k, None] * r
        return regret

    def _fit(self, net, opt, reservoir: Reservoir | None, steps: int, rng: np.random.Generator, loss_of,
             ema=(None, 0.0), target_of=None, recent=(None, 0.0)) -> float:
        """``steps`` Adam steps of ``net`` on minibatches of ``reservoir``'s rows (and, given
        ``ema = (copy, decay)`` with a copy, its moving average of the weights after each).  Given ``target_of``, the
        targets are ``target_of(*inputs)`` instead of the rows' own, and rows are always drawn by weight.
        Given ``recent = (rows, share)`` with rows (a :class:`Reservoir`), that share of each minibatch
        is drawn from them by weight."""
        import torch

        if reservoir is None or not len(reservoir):
            return 0.0
        net.train()
        loss = torch.zeros(())
        by_weight = reservoir.by_weight() if self.settings.merge or target_of is not None else None
        sources = [(reservoir, by_weight, self.settings.minibatch)]
        if recent[0] is not None and len(recent[0]):
            n = max(1, round(recent[1] * self.settings.minibatch))
            sources = [(reservoir, by_weight, self.settings.minibatch - n), (recent[0], recent[0].by_weight(), n)]
        for _ in range(steps):
            parts = [(rows, *rows.draw(n, rng, cumulative)) for rows, cumulative, n in sources]
            # the observations (and, with beliefs, the ranges), the masks, the targets and the weights
            inputs = tuple(_joined(x, torch.cat) for x in zip(*(rows.inputs(i) for rows, i, _ in parts)))
            mask, target, weight = (torch.from_numpy(_joined(x, np.concatenate)) for x in
                                    zip(*((rows.mask[i], rows.target[i], w) for rows, i, w in parts)))
            if target_of is not None:
                with torch.no_grad():
                    target = target_of(*inputs)
            loss = (loss_of(net(*inputs), mask, target) * weight).sum() / weight.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if ema[0] is not None:
                with torch.no_grad():
                    for mine, theirs in zip(ema[0].parameters(), net.parameters()):
                        mine.lerp_(theirs, 1.0 - ema[1])
        net.eval()
        return float(loss.detach())

    def _fit_plus(self, rng: np.random.Generator) -> float:
        """(``regret_plus``) ``regret_steps`` Adam steps of the regret network toward regret
        matching+'s sums: at every row drawn from the regret reservoir by weight, the network's
        output before this fit (times ``regret_decay``) plus this iteration's weighted regrets at
        that information state (none where it was not visited), floored at 0."""
        import torch

        increments, before, decay = self._increments, self.frozen_net, self.settings.regret_decay
        if increments is None or before is None:
            return 0.0
        before.load_state_dict(self.regret_net.state_dict())

        def target_of(obs, *ranges):
            added = torch.from_numpy(increments.at(obs.numpy().astype(np.uint8)))
            return torch.clamp(decay * before(obs, *ranges) + added, min=0.0)

        # (weights span orders of magnitude: the rows are always drawn by them)
        recent = (self._iteration_rows, self.settings.iteration_rows)
        return self._fit(self.regret_net, self.optimisers["regret"], self.regrets, self.settings.regret_steps, rng,
                         _squared_error, target_of=target_of, recent=recent)

    # -- checkpoints ------------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """The networks, the optimisers, the two reservoirs and the iteration count: what
        :meth:`load_state_dict` needs to continue exactly.  Save it (``torch.save``) before loading
        it into another learner: loaded unsaved, the optimisers' states are the same tensors in
        both learners (``torch.optim.Optimizer.load_state_dict`` keeps them), so each learner's
        steps move the other's Adam moments."""
        import torch

        return {"regret_net": self.regret_net.state_dict(), "value_net": self.value_net.state_dict(),
                "average_net": self.average_net.state_dict(),
                **({"frozen_net": self.prediction_net.state_dict()} if self.prediction_net is not None else {}),
                **({"average_ema": self.average_ema.state_dict()} if self.average_ema is not None else {}),
                **{f"opt_{name}": opt.state_dict() for name, opt in self.optimisers.items()},
                "regrets": self.regrets.state_dict(), "policies": self.policies.state_dict(),
                "iterations": torch.tensor(self.iterations)}

    def load_state_dict(self, state: dict) -> None:
        self.regret_net.load_state_dict(state["regret_net"])
        self.value_net.load_state_dict(state["value_net"])
        self.average_net.load_state_dict(state["average_net"])
        if self.prediction_net is not None:
            self.prediction_net.load_state_dict(state["frozen_net"])
        if self.average_ema is not None:
            self.average_ema.load_state_dict(state["average_ema"])
        for name, opt in self.optimisers.items():
            opt.load_state_dict(state[f"opt_{name}"])
        self.regrets.load_state_dict(state["regrets"])
        self.policies.load_state_dict(state["policies"])
        self.iterations = int(state["iterations"])


def unique_rows(rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The sets of equal rows of ``rows`` (``(n, D)`` uint8), as ``np.unique(rows, axis=0,
    return_index=True, return_inverse=True)`` gives them (the index of each set's first row, in
    the sets' lexicographic order, and each row's set), but 6-15x faster on 200,000-600,000 rows:
    the rows are grouped by a 64-bit hash of their bytes (:meth:`_Increments.keys`), and only the
    sets' first rows are sorted lexicographically.  (Two different rows would share a key only if
    their bytes' differences, times the key's random 62-bit weights, summed to a multiple of
    ``2 ** 64``.)"""
    _, first, inverse = np.unique(_Increments.keys(rows), return_index=True, return_inverse=True)
    order = np.lexsort(rows[first].T[::-1])  # (lexsort's last key is the primary one)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.reshape(-1)]


def _frozen_copy(net, config, hidden: str, extra_inputs: int = 0):
    """A copy of ``net`` (built as :func:`build_network` builds it) that no gradient reaches."""
    copy = build_network(config, hidden, extra_inputs)
    copy.load_state_dict(net.state_dict())
    copy.requires_grad_(False)
    return copy


class _Increments:
    """(``regret_plus``) One iteration's weighted regrets by information state, looked up by
    observation: rows with equal observations are summed, and an observation the iteration did not
    visit gets zeros."""

    #: the weights of the observation's bytes in its 64-bit key (fixed, so that keys agree across runs)
    _KEY = np.random.default_rng(20261126).integers(1, 2 ** 62, 256, dtype=np.int64) | 1

    def __init__(self, obs: np.ndarray, regret: np.ndarray):
        keys, inverse = np.unique(self.keys(obs), return_inverse=True)
        self.sorted_keys = keys
        self.regret = np.zeros((len(keys), regret.shape[1]), np.float32)
        np.add.at(self.regret, inverse.reshape(-1), regret)

    @classmethod
    def keys(cls, obs: np.ndarray) -> np.ndarray:
        """Each row's 64-bit key (a random linear hash of its bytes, wrapping around)."""
        if obs.shape[1] > len(cls._KEY):
            raise ValueError(f"observations of more than {len(cls._KEY)} entries are not keyed")
        return obs.astype(np.int64) @ cls._KEY[:obs.shape[1]]

    def at(self, obs: np.ndarray) -> np.ndarray:
        """The summed weighted regrets at each row's observation, ``(n, A)`` float32."""
        keys = self.keys(obs)
        if not len(self.sorted_keys):
            return np.zeros((len(obs), self.regret.shape[1]), np.float32)
        at = np.minimum(np.searchsorted(self.sorted_keys, keys), len(self.sorted_keys) - 1)
        found = self.sorted_keys[at] == keys
        return np.where(found[:, None], self.regret[at], np.float32(0.0))


class SampledStep(NamedTuple):
    """One step of a batch of games sampled as ESCHER samples them (:func:`sampled_games`), each
    array one entry per game still playing at that step."""

    games: np.ndarray  # the games' indices in the batch
    seat: np.ndarray  # the mover
    obs: np.ndarray  # the mover's observation
    other: np.ndarray  # the other player's dice, counts per face
    mask: np.ndarray  # the legal actions (bool)
    sigma: np.ndarray  # the policy given at the decision
    traversing: np.ndarray  # the mover is its game's traverser
    action: np.ndarray
    payoff: np.ndarray  # the mover's payoff from this step (0 unless it ended the game)
    ended: np.ndarray


def sampled_games(batch, rng: np.random.Generator, policy) -> Iterator[SampledStep]:
    """Play every game of ``batch`` (a :class:`~dice_envs.games.liars_dice.batched.LiarsDiceBatch`) to the
    end as ESCHER samples them: in game ``k`` player ``k % 2`` (the traverser) draws uniformly among
    the legal actions, the other player from ``policy(obs, mask, games)`` (``(n, A)``
    probabilities at the decisions of the games ``games``, the indices in the batch).
    Yields one :class:`SampledStep` per step, after it is played."""
    from dice_envs.envs.batched import categorical

    g = batch.game
    batch.reset(rng)
    traverser = np.arange(batch.num_envs) % 2
    faces = slice(g.num_players, g.num_players + g.faces)
    while True:
        games = np.flatnonzero(~batch.done)
        if not len(games):
            return
        mover = batch.current_player(games)
        obs = batch.observe_mover(games)
        mask = batch.action_mask(games).astype(bool)
        sigma = policy(obs, mask, games)
        traversing = mover == traverser[games]
        behaviour = np.where(traversing[:, None], mask / mask.sum(1, keepdims=True), sigma)
        action = categorical(rng.random(len(games)), np.cumsum(behaviour, axis=1))
        other = batch.observe(1 - mover, games)[:, faces]
        rewards, ended = batch.step(action, rng, where=games)
        yield SampledStep(games, mover, obs, other, mask, sigma, traversing, action,
                          rewards[np.arange(len(games)), mover], ended)


def expected_sarsa_targets(games: List[np.ndarray], payoff: List[np.ndarray], ended: List[np.ndarray],
                           state_value: List[np.ndarray]) -> np.ndarray:
    """The history value network's targets for every decision of a batch of two-player games,
    given step by step (``games[k]``: the games still playing at step ``k``, increasing; ``payoff``,
    ``ended`` and ``state_value`` (the mover's ``sum_b sigma(b) Q(h, b)``) one entry per such game):
    a decision's payoff where it ended its game, else minus the value of the same game's decision at
    the next step (the other player's, the game being deterministic after the deal).  One float32
    array, the steps concatenated."""
    targets = []
    for k in range(len(games)):
        y = np.asarray(payoff[k], np.float32).copy()
        going = ~np.asarray(ended[k], bool)
        if going.any():
            at = np.searchsorted(games[k + 1], games[k][going])
            y[going] = -state_value[k + 1][at]
        targets.append(y)
    return np.concatenate(targets) if targets else np.zeros(0, np.float32)


def _normalised(log_weights: np.ndarray) -> np.ndarray:
    """Each row of ``exp(log_weights)`` divided by its sum (rows of ``-inf`` and finite numbers)."""
    w = np.exp(log_weights - log_weights.max(1, keepdims=True))
    return w / w.sum(1, keepdims=True)


def _squared_error(output, mask, target):
    """Each row's squared error over its legal actions."""
    return (((output - target) * mask) ** 2).sum(-1)


def _cross_entropy(output, mask, target):
    """Each row's cross-entropy of the network's masked softmax against the target policy."""
    import torch

    log_p = torch.log_softmax(output.masked_fill(~mask, -1e9), dim=-1)
    return -(target * log_p).masked_fill(~mask, 0.0).sum(-1)
