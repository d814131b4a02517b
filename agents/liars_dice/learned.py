"""Learned policies (a torch network, or a table) for two-player Liar's Dice, and their exact evaluation.

* :func:`build_network`: the policy network (an MLP on ``liars_dice_v0``'s
  observation, plus a one-hot of the last bid derived from it);
* :class:`LearnedLiarsDicePolicy`: a trained network as a policy
  (``action_probabilities(state)`` for :func:`dice_envs.agents.liars_dice.solver.evaluate`,
  ``act(observation, rng)`` for the environment, :meth:`~LearnedLiarsDicePolicy.tree_policy`
  for all information states in one batch), and :class:`TabularLiarsDicePolicy`, the same
  for a table over the information states; :func:`load_model` reads the ``model.pt``
  written by :mod:`dice_envs.agents.liars_dice.full_width` (full width, a network) and
  :mod:`dice_envs.agents.liars_dice.play_training` (sampled play: a network, or a table for
  ``--method mccfr``);
* :class:`InfoStates`: every information state as network input rows;
* :func:`action_values`: exact action values of a player against a policy profile,
  :func:`action_value_table` the same for every information state's acting player;
* :func:`masked_kl`: the loss that fits a network to a target policy;
* :func:`mmd_step` and :class:`OptimisticMMD`: the magnetic-mirror-descent update
  the trainer fits its network to;
* :func:`exact_scores`: exploitability and value against the CFR+ equilibrium.

torch is imported only when a network is built or run.
"""

from __future__ import annotations

import os
import zipfile
from typing import TYPE_CHECKING, Optional

import numpy as np

from dice_envs.agents.evaluate.observation_agents import Agent, greedy_choice

if TYPE_CHECKING:
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

# -- exact action values on the public tree ------------------------------------------------


def action_values(tree, policy, player: int):
    """Exact action values of ``player`` against ``policy`` at its information states.

    Returns ``(q_edge, q_call, reach)``, all ``(N, R)``: ``q_edge[c, r]`` is the
    expected payoff of bidding ``highbit(c)`` at ``parent(c)`` holding roll ``r``,
    ``q_call[m, r]`` that of calling at ``m``, conditional on reaching the
    information state (counterfactual value / (chance x opponent reach)), and
    ``reach[m]`` that normaliser (0 where the opponent never plays to ``m``; the
    values there are then 0).  Entries at the opponent's nodes are meaningless.
    """
    from dice_envs.agents.liars_dice.solver import counterfactual_values

    reach, q_call, v = counterfactual_values(tree, policy, player)
    # Opponent reach x chance, summed over the opponent's rolls (independent of ours).
    norm = reach.sum(axis=1)
    inv = np.divide(1.0, norm, out=np.zeros_like(norm), where=norm > 1e-300)
    q_call = q_call * inv[:, None]
    q_edge = v * tree.to_children(inv[:, None].repeat(tree.R, 1))
    return q_edge, q_call, norm


def action_value_table(states: "InfoStates", probs: np.ndarray) -> np.ndarray:
    """Exact action values, ``(N * R, A)``, of every information state's acting
    player against the policy ``probs`` (``(N * R, A)`` rows, as :class:`InfoStates`
    orders them); 0 for illegal actions."""
    tree = states.tree
    policy = states.to_tree_policy(probs)
    q = np.zeros(probs.shape)
    for player in (0, 1):
        q_edge, q_call, _ = action_values(tree, policy, player)
        rows = states.acting == player
        q[rows] = states.to_action_table(q_edge, q_call)[rows]
    return q


def masked_log_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Log-probabilities over the legal actions (``-inf`` elsewhere)."""
    x = np.where(mask, logits, -np.inf)
    x = x - x.max(axis=1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=1, keepdims=True))


def mmd_step(log_pi: np.ndarray, log_magnet: np.ndarray, q: np.ndarray, mask: np.ndarray,
             eta: float, alpha: float) -> np.ndarray:
    """One behavioural magnetic-mirror-descent step in every information state:
    ``argmax_pi <pi, q> - alpha KL(pi || magnet) - KL(pi || pi_old) / eta``, whose
    closed form is ``log pi_new = (log pi_old + alpha eta log magnet + eta q) / (1 + alpha eta)``,
    normalised over the legal actions.  All arguments are ``(rows, A)`` arrays."""
    a_eta = alpha * eta
    legal_lp = np.where(mask, log_pi, 0.0)
    legal_mag = np.where(mask, log_magnet, 0.0)
    return masked_log_softmax((legal_lp + a_eta * legal_mag + eta * q) / (1.0 + a_eta), mask)


class OptimisticMMD:
    """Optimistic magnetic mirror descent on a table of information states.

    Each :meth:`step` computes the exact action values ``q_t`` against the current
    policy and takes :func:`mmd_step` with the predicted values
    ``q_t + optimism (q_t - q_{t-1})``.  Plain behavioural MMD (``optimism=0``) cycles
    in Liar's Dice with wild ones; the optimistic step converges.  The trainer
    (:mod:`dice_envs.agents.liars_dice.full_width`) starts it from the network's policy and
    fits the network to where it ends up.
    """

    def __init__(self, states: "InfoStates", eta: float, alpha: float, optimism: float = 1.0, prev_q=None):
        self.states, self.eta, self.alpha, self.optimism = states, eta, alpha, optimism
        self.prev_q = prev_q

    def step(self, log_pi: np.ndarray, log_magnet: np.ndarray) -> np.ndarray:
        mask = self.states.mask
        q = action_value_table(self.states, np.where(mask, np.exp(log_pi), 0.0))
        q_hat = q if self.prev_q is None else q + self.optimism * (q - self.prev_q)
        self.prev_q = q
        return mmd_step(log_pi, log_magnet, q_hat, mask, self.eta, self.alpha)


# -- the learned policy -------------------------------------------------------------------


def _roll_counts(tree) -> np.ndarray:
    """``(2, R, faces)`` float32: each player's rolls as counts per face (rows past a player's own
    rolls repeat its first)."""
    counts = np.zeros((2, tree.R, tree.game.faces), np.float32)
    for p, rolls in enumerate(tree.player_rolls):
        for r, roll in enumerate(rolls):
            for f in roll:
                counts[p, r, f - 1] += 1.0
        counts[p, len(rolls):] = counts[p, 0]
    return counts


def node_rows(tree, lo: int, hi: int, counts: Optional[np.ndarray] = None):
    """``(observations, masks)`` of the public nodes ``lo`` to ``hi - 1`` of ``tree``, one row per
    (node, roll), ``(hi - lo) * R`` rows ordered as :class:`InfoStates` orders them (``counts``:
    :func:`_roll_counts`, computed if not given)."""
    game = tree.game
    R, B, n = tree.R, tree.B, hi - lo
    counts = _roll_counts(tree) if counts is None else counts
    nodes = np.arange(lo, hi, dtype=np.int64)
    player = tree.player[lo:hi].astype(np.int64)
    obs = np.zeros((n, R) + tuple(game.observation_shape), np.float32)
    obs[np.arange(n), :, player] = 1.0
    base = game.num_players
    obs[:, :, base : base + game.faces] = counts[player]
    bits = ((nodes[:, None] >> np.arange(B)[None, :]) & 1).astype(np.float32)
    obs[:, :, base + game.faces : base + game.faces + B] = bits[:, None, :]
    obs[:, :, game.prefix_size :] = game.dice
    mask = np.zeros((n, game.num_actions), bool)
    mask[:, :B] = np.arange(B)[None, :] > tree.highbit[lo:hi, None]  # the bids above the last
    mask[:, game.call_action] = nodes > 0
    return obs.reshape(n * R, -1), np.repeat(mask, R, axis=0)


def fill_tree_policy(edge: np.ndarray, call: np.ndarray, tree, lo: int, probs: np.ndarray) -> None:
    """Write the action probabilities ``probs`` at the rows of the public nodes ``lo`` onward
    (``(n * R, A)``, as :func:`node_rows` gives them) into a :class:`TreePolicy`'s ``edge`` and
    ``call`` arrays (``(N, R)``): node ``m``'s bid ``k`` is the edge into node ``m + 2**k``."""
    R, B = tree.R, tree.B
    p = probs.reshape(-1, R, probs.shape[-1])
    hi = lo + len(p)
    call[lo:hi] = p[:, :, tree.game.call_action]
    if lo == 0:
        call[0] = 0.0  # no call before the first bid
    for k in range(B):
        top = min(hi, 1 << k)  # the nodes m with bid k still open (m < 2**k)
        if top > lo:
            edge[lo + (1 << k) : top + (1 << k)] = p[: top - lo, :, k]


class InfoStates:
    """Every information state of a two-player game, as network inputs and masks.

    Row ``m * R + r`` is public node ``m`` with the player to act holding roll ``r``;
    ``obs`` is exactly ``state.observation(player)`` of the environment there.  Where the
    players hold different numbers of dice, the rows past the acting player's own rolls
    (``valid`` False) repeat its first roll's observation; they are never reached.
    """

    def __init__(self, tree):
        from dice_envs.core.resources import check_resources

        game = tree.game
        self.tree = tree
        N, R, B = tree.N, tree.R, tree.B
        check_resources(f"every information state of {game!r} as network rows ({N * R:,} rows)",
                        N * R * (4 * int(game.observation_shape[0]) + game.num_actions + 9))
        player = tree.player.astype(np.int64)
        base = game.num_players
        counts = _roll_counts(tree)
        self.obs, self.mask = node_rows(tree, 0, N, counts)
        self.acting = np.repeat(player, R)  # each row's player to act
        self.valid = (tree.priors[player] > 0).reshape(-1)  # rows of a roll the acting player can hold
        # Decoding observations back to rows: a roll's face counts as one integer, per player.
        self._bits = slice(base + game.faces, base + game.faces + B)
        self._counts = slice(base, base + game.faces)
        self._count_base = (max(game.dice) + 1) ** np.arange(game.faces)
        self._roll_of_key = []
        for p, rolls in enumerate(tree.player_rolls):
            keys = counts[p, : len(rolls)].astype(np.int64) @ self._count_base
            order = np.argsort(keys)
            self._roll_of_key.append((keys[order], order))

    def rows(self, observations: np.ndarray) -> np.ndarray:
        """The row (``m * R + r``) of each observation of the player to act, ``(n, obs_dim)``
        as the environment gives them: the inverse of :attr:`obs`."""
        obs = np.asarray(observations)
        node = (obs[:, self._bits] > 0.5) @ (1 << np.arange(self.tree.B))
        keys = np.rint(obs[:, self._counts]).astype(np.int64) @ self._count_base
        roll = np.zeros(len(obs), np.int64)
        player = self.tree.player[node]
        for p, (sorted_keys, order) in enumerate(self._roll_of_key):
            here = player == p
            roll[here] = order[np.searchsorted(sorted_keys, keys[here])]
        return node * self.tree.R + roll

    def to_tree_policy(self, probs: np.ndarray):
        """``(N * R, A)`` action probabilities -> :class:`TreePolicy`."""
        from dice_envs.agents.liars_dice.solver import TreePolicy

        tree = self.tree
        edge, call = np.zeros((tree.N, tree.R)), np.zeros((tree.N, tree.R))
        fill_tree_policy(edge, call, tree, 0, probs)
        return TreePolicy(tree, edge, call)

    def to_action_table(self, q_edge: np.ndarray, q_call: np.ndarray) -> np.ndarray:
        """Per-edge ``(N, R)`` arrays -> ``(N * R, A)`` per-action table (0 where illegal)."""
        tree = self.tree
        N, R, B = tree.N, tree.R, tree.B
        out = np.zeros((N, R, tree.game.num_actions))
        for k in range(B):
            lo, hi = 1 << k, 1 << (k + 1)
            out[:lo, :, k] = q_edge[lo:hi]
        out[:, :, tree.game.call_action] = q_call
        out[0, :, tree.game.call_action] = 0.0
        return out.reshape(N * R, -1) * self.mask


def agent_tree_policy_bytes(game: "LiarsDiceGame") -> int:
    """The peak memory of :func:`agent_tree_policy` on ``game`` (a Python integer): per (public
    node, roll), the public tree
    (:data:`~dice_envs.agents.liars_dice.solver.PUBLIC_TREE_BYTES_PER_STATE`) and the
    :class:`TreePolicy` (16 bytes); once, a batch of rows (float32 observations and a mask byte
    per action) and the agent's answers (float64 per action), eight copies of them: the batch's,
    the answer's checks, and a wrapper's such as
    :class:`~dice_envs.agents.liars_dice.match_solver.RoundAgent`, which rewrites the batch and
    checks the answer of the agent it wraps.  The agent's own working memory on a batch is not
    counted (a network runs in chunks of :data:`NETWORK_CHUNK` rows)."""
    from dice_envs.agents.evaluate.contract import DEFAULT_BATCH
    from dice_envs.agents.liars_dice.compiled_solver import state_count
    from dice_envs.agents.liars_dice.solver import PUBLIC_TREE_BYTES_PER_STATE

    obs, actions = int(game.observation_shape[0]), game.num_actions
    states = state_count(game)
    return states * (PUBLIC_TREE_BYTES_PER_STATE + 16) + 8 * min(states, DEFAULT_BATCH) * (4 * obs + 9 * actions)


def observation_width(agent, game: "LiarsDiceGame") -> int:
    """The length of the observations ``agent`` is given in ``game``: the environment's, or
    dice_envs 0.1's shorter one (without the dice counts, :attr:`LiarsDiceGame.prefix_size`) for an
    agent whose ``observation_size`` says it was trained on that.  An agent that records no size
    is given the environment's.

    Raises:
        ValueError: an agent whose ``observation_size`` is neither of the game's.
    """
    from dice_envs.agents.evaluate.report import check_size

    full, size = int(game.observation_shape[0]), getattr(agent, "observation_size", None)
    if size == game.prefix_size:
        return size
    if size is not None:
        check_size(agent, full, repr(game))
    return full


def agent_tree_policy(game: "LiarsDiceGame", agent, what: str):
    """``(tree, policy)``: the in-memory :class:`~dice_envs.agents.liars_dice.solver.PublicTree`
    of ``game`` and the :class:`~dice_envs.agents.liars_dice.solver.TreePolicy` that ``agent``
    (``agent(observations, masks)`` over the environment's observations) plays at every
    information state, asked a batch of public nodes at a time (:func:`node_rows`, about
    :data:`~dice_envs.agents.evaluate.contract.DEFAULT_BATCH` rows) and checked
    (:func:`~dice_envs.agents.evaluate.contract.ask_agent`): only the tree and the policy are held
    for every information state.  An agent trained on dice_envs 0.1's shorter observation is
    given that (:func:`observation_width`).

    The peak memory (:func:`agent_tree_policy_bytes`) is checked against the limit before
    anything is built; ``what`` names the request in a refusal.

    Raises:
        ResourceLimitError: over the memory limit.
        ValueError: an agent whose observation size is neither of the game's.
    """
    from dice_envs.agents.evaluate.contract import ask_agent
    from dice_envs.agents.liars_dice.solver import PublicTree
    from dice_envs.core.resources import check_resources

    width = observation_width(agent, game)
    check_resources(what, agent_tree_policy_bytes(game))
    tree = PublicTree(game)
    name = getattr(agent, "name", None) or getattr(agent, "__name__", type(agent).__name__)
    return tree, tree_policy_in_batches(tree, lambda obs, mask: ask_agent(agent, obs[:, :width], mask,
                                                                          what=f"agent {name}"))


def tree_policy_in_batches(tree, probabilities):
    """The :class:`~dice_envs.agents.liars_dice.solver.TreePolicy` that ``probabilities``
    (``(observations, masks) -> (n, A)`` action probabilities, over the environment's
    observations) plays at every information state of ``tree``, asked a batch of public nodes at a
    time (:func:`node_rows`, about :data:`~dice_envs.agents.evaluate.contract.DEFAULT_BATCH` rows):
    only the policy (16 bytes) is held for every information state, where the whole table of rows
    (:class:`InfoStates`) holds 4 bytes per observation entry and one per action."""
    from dice_envs.agents.evaluate.contract import DEFAULT_BATCH
    from dice_envs.agents.liars_dice.solver import TreePolicy

    counts = _roll_counts(tree)
    edge, call = np.zeros((tree.N, tree.R)), np.zeros((tree.N, tree.R))
    step = max(1, DEFAULT_BATCH // tree.R)  # public nodes per batch
    for lo in range(0, tree.N, step):
        obs, mask = node_rows(tree, lo, min(tree.N, lo + step), counts)
        fill_tree_policy(edge, call, tree, lo, probabilities(obs, mask))
    return TreePolicy(tree, edge, call)


#: the hidden layers' activations :func:`build_network` offers, by name
ACTIVATIONS = ("relu", "tanh")


def build_network(game_config: dict, hidden: str, extra_inputs: int = 0, zero_output: bool = False,
                  activation: str = "relu", outputs: int = 0):
    """MLP on the observation plus one derived feature: a one-hot of the last bid
    (the highest bid flag set), which the rules make decisive and which an MLP
    would otherwise have to extract from the bid flags itself.

    It reads the observation's first ``game.prefix_size`` entries (seat, own dice, bids,
    call): the dice counts after them are the same in every state of a round game, and
    the networks saved by dice_envs 0.1 were built on that prefix.

    With ``extra_inputs`` > 0 the network also takes ``forward(obs, extra)``, an
    ``(n, extra_inputs)`` tensor appended to its input (a critic that sees more than
    the mover's observation, as ESCHER's history value network, which also sees the other player's dice).

    With ``zero_output`` the last layer's weights and biases start at 0: every output is 0 (under
    a softmax, the uniform policy; no random numbers are drawn for it, so the networks built
    after it start as they would without it).

    ``activation`` is the hidden layers' (``"relu"``, or ``"tanh"`` as CleanRL's and
    IIG-RL-Benchmark's PPO networks); ``outputs`` is the number of outputs (0: one per action;
    1 for a state-value critic)."""
    import torch
    import torch.nn as nn

    from dice_envs.core.resources import check_network
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    game = LiarsDiceGame(**game_config)
    lo = game.num_players + game.faces
    hi = lo + game.num_bids
    obs_dim = game.prefix_size
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    if not isinstance(outputs, int) or outputs < 0:
        raise ValueError(f"outputs must be a count of outputs (0: one per action), got {outputs!r}")
    outputs = outputs or game.num_actions
    check_network(f"a Liar's Dice network of hidden layers {hidden!r}",
                  [obs_dim + game.num_bids + extra_inputs, *hidden_sizes(hidden), outputs], NETWORK_CHUNK)
    nonlinearity = {"relu": nn.ReLU, "tanh": nn.Tanh}[activation]

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            sizes = [obs_dim + game.num_bids + extra_inputs] + hidden_sizes(hidden)
            layers = []
            for a, b in zip(sizes, sizes[1:]):
                layers += [nn.Linear(a, b), nonlinearity()]
            layers.append(nn.Linear(sizes[-1], outputs))
            self.mlp = nn.Sequential(*layers)

        def forward(self, obs, extra=None):
            obs = obs[:, :obs_dim]
            bits = obs[:, lo:hi]
            after = torch.flip(torch.cumsum(torch.flip(bits, [1]), 1), [1]) - bits
            last = bits * (after < 0.5).float()
            return self.mlp(torch.cat([obs, last] + ([extra] if extra_inputs else []), dim=1))

    net = Net()
    if zero_output:
        with torch.no_grad():
            net.mlp[-1].weight.zero_()
            net.mlp[-1].bias.zero_()
    return net


def masked_log_probs(net, obs, mask):
    import torch

    logits = net(obs).masked_fill(~mask, -1e9)
    return torch.log_softmax(logits, dim=-1)


def masked_kl(target_p, log_target, log_probs, mask):
    """``KL(target || policy)`` of each row over its legal actions (torch tensors, ``(n, A)``):
    the loss that fits a network's ``log_probs`` to a target policy (probabilities
    ``target_p``, their logarithms ``log_target``)."""
    return (target_p * (log_target - log_probs)).masked_fill(~mask, 0.0).sum(-1)


class _ObservationPolicy:
    """What both kinds of saved policy offer on top of ``probabilities(observations, masks)``:
    ``action_probabilities(state)`` for the solver's evaluator and agents, :meth:`act` for
    ``liars_dice_v0`` observations and :meth:`tree_policy` (all information states in one
    batch)."""

    game: Optional[LiarsDiceGame] = None  # set by the subclasses

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def probabilities_from_observation(self, observation) -> np.ndarray:
        obs = np.asarray(observation, np.float32).reshape(1, -1)
        g = self.game
        assert g is not None
        bits = obs[0, g.num_players + g.faces : g.num_players + g.faces + g.num_bids] > 0.5
        made = np.flatnonzero(bits)
        mask = np.zeros((1, g.num_actions), bool)
        mask[0, (made.max() + 1 if made.size else 0) : g.num_bids] = True
        mask[0, g.call_action] = made.size > 0
        return self.probabilities(obs, mask)[0]

    def action_probabilities(self, state):
        p = self.probabilities_from_observation(state.observation(state.current_player))
        return {int(a): float(p[a]) for a in state.legal_actions()}

    def act(self, observation, rng: np.random.Generator) -> int:
        if isinstance(observation, dict):
            observation = observation["observation"]
        p = self.probabilities_from_observation(observation)
        return int(rng.choice(len(p), p=p))

    def tree_policy(self, tree, states: "InfoStates | None" = None):
        """The :class:`~dice_envs.agents.liars_dice.solver.TreePolicy` this policy plays on
        ``tree``: over the rows of ``states`` where given, else asked in batches
        (:func:`tree_policy_in_batches`)."""
        if states is None:
            return tree_policy_in_batches(tree, self.probabilities)
        return states.to_tree_policy(self.probabilities(states.obs, states.mask))


#: Rows a network is run on at once when it answers a large batch (chunks of this size run faster than
#: one batch of a million rows).
NETWORK_CHUNK = 4096


class LearnedLiarsDicePolicy(_ObservationPolicy):
    """A trained network as a policy (see :class:`_ObservationPolicy` for what it offers).

    With ``beliefs`` the network also takes both players' ranges over their hands
    (:func:`dice_envs.agents.liars_dice.beliefs.belief_features`, ``forward(obs, features)``), and
    the policy computes them itself, from its own play at the earlier decisions of each
    observation's history (:func:`~dice_envs.agents.liars_dice.beliefs.beliefs_at`): it is still a
    fixed function of the observation, which any exact evaluation scores.
    """

    def __init__(self, game, net, beliefs: bool = False):
        from dice_envs.agents.liars_dice.beliefs import Hands

        self.game = game
        self.net = net.eval()
        self.beliefs = bool(beliefs)
        self.hands = Hands(game) if self.beliefs else None

    @classmethod
    def load(cls, path):
        """The network of a ``model.pt`` (:func:`load_model` reads either kind of model)."""
        policy = load_model(path)
        if not isinstance(policy, cls):
            raise ValueError(f"{os.fspath(path)!r} holds a table, not a network")
        return policy

    def probabilities(self, observations: np.ndarray, masks: np.ndarray, features=None) -> np.ndarray:
        """``(N, A)`` action probabilities at a batch of observations and legal-action masks; with
        ``beliefs``, at the ranges ``features`` (``(N, 2 K)``) where given, else at those the
        policy's own play gives (:func:`~dice_envs.agents.liars_dice.beliefs.beliefs_at`)."""
        import torch

        if self.hands is not None and features is None:  # (beliefs) the ranges of its own play
            from dice_envs.agents.liars_dice.beliefs import belief_features, beliefs_at

            observations = np.asarray(observations, np.float32)
            seat = np.argmax(observations[:, :self.hands.game.num_players], axis=1)
            features = belief_features(beliefs_at(self.hands, self.probabilities, observations), seat)
        obs = torch.from_numpy(np.array(observations, np.float32))
        extra = None if features is None else torch.from_numpy(np.asarray(features, np.float32))
        illegal = torch.from_numpy(~np.asarray(masks, bool))
        out = torch.empty(illegal.shape, dtype=torch.float64)
        with torch.inference_mode():  # in chunks whose activations stay in cache (1.5-2x faster than one batch)
            for lo in range(0, len(obs), NETWORK_CHUNK):
                hi = lo + NETWORK_CHUNK
                inputs = (obs[lo:hi],) if extra is None else (obs[lo:hi], extra[lo:hi])
                logits = self.net(*inputs).double().masked_fill_(illegal[lo:hi], -np.inf)
                torch.softmax(logits, dim=-1, out=out[lo:hi])  # normalised in float64
        return out.numpy()


class TabularLiarsDicePolicy(_ObservationPolicy):
    """A policy given as a table: one row of action probabilities per information state,
    in :class:`InfoStates` order (what tabular learners such as
    ``dice-envs train liars-dice --preset mccfr`` save).

    Raises:
        ValueError: the table is not ``(information states, actions)`` of ``game``, holds
            negative or non-finite numbers or probability on illegal actions, or a row's
            probabilities do not sum to 1.
    """

    def __init__(self, game, table: np.ndarray):
        from dice_envs.agents.liars_dice.solver import PublicTree

        self.game = game
        self.states = InfoStates(PublicTree(game))
        table = np.asarray(table, np.float64)
        mask = self.states.mask
        if table.shape != mask.shape:
            raise ValueError(f"a policy table of {game!r} has shape {mask.shape}, got {table.shape}")
        if not np.isfinite(table).all() or (table < 0).any():
            raise ValueError("a policy table holds negative or non-finite probabilities")
        if (table[~mask] != 0).any():
            raise ValueError("a policy table gives probability to illegal actions")
        sums = np.where(mask, table, 0.0).sum(1)
        if not np.allclose(sums, 1.0, atol=1e-6):
            row = int(np.argmax(np.abs(sums - 1.0)))
            raise ValueError(f"row {row} of the policy table sums to {sums[row]:.6g} over its legal actions, not 1")
        self.table = table

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(N, A)`` action probabilities at a batch of observations and legal-action masks."""
        p = self.table[self.states.rows(np.asarray(observations, np.float32))] * np.asarray(masks, bool)
        return p / p.sum(axis=1, keepdims=True)


def load_model(path):
    """The policy in a ``model.pt`` of ``dice-envs train liars-dice``: a :class:`LearnedLiarsDicePolicy` (keys ``game``,
    ``hidden``, ``net``, ``activation`` where it is not ReLU, and ``beliefs`` where the network takes both
    players' ranges) or a :class:`TabularLiarsDicePolicy` (keys ``game``, ``table``).
    Read with ``torch.load(weights_only=True)``: a crafted pickle cannot run code; the sizes its
    zip declares are checked first (:func:`dice_envs.core.resources.check_archive`).

    Raises:
        ValueError: naming the file, if it is not such a model (a model of a ``kind`` of its own, the ``pbs``
            learner's, is refused: :func:`dice_envs.agents.liars_dice.evaluation.load_agent` reads every
            learner's) or declares more than it can hold."""
    return model_from(read_model(path), path)


def model_from(blob: dict, path):
    """:func:`load_model`'s policy from the contents ``blob`` of the ``model.pt`` ``path``
    (:func:`read_model` reads them).

    Raises:
        ValueError: naming the file, as :func:`load_model`."""
    from dice_envs.core.resources import ResourceLimitError, check_network
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    if "kind" in blob:
        raise ValueError(f"{os.fspath(path)!r} holds a model of kind {blob['kind']!r}, not a network over observations "
                         f"or a table")
    try:
        game = LiarsDiceGame(**blob["game"])
        if "table" in blob:
            return TabularLiarsDicePolicy(game, blob["table"].numpy())
        beliefs = bool(blob.get("beliefs", False))
        extra = belief_inputs(game) if beliefs else 0
        check_network(f"the network of {os.fspath(path)!r}",
                      [game.prefix_size + game.num_bids + extra, *hidden_sizes(blob["hidden"]), game.num_actions])
        net = build_network(blob["game"], blob["hidden"], extra_inputs=extra,
                            activation=blob.get("activation", "relu"))
        net.load_state_dict(blob["net"])
    except ResourceLimitError:
        raise
    except Exception as err:  # not a torch file, a crafted pickle, missing keys, wrong shapes
        raise ValueError(f"{os.fspath(path)!r} is not a Liar's Dice model saved by "
                         f"dice-envs train liars-dice ({type(err).__name__}: "
                         f"{str(err)[:200]})") from None
    check_finite(net, path)
    return LearnedLiarsDicePolicy(game, net, beliefs)


def read_model(path) -> dict:
    """The contents of a ``model.pt`` of ``dice-envs train liars-dice``, read with
    ``torch.load(weights_only=True)`` (a crafted pickle cannot run code) after the sizes its zip
    declares are checked (:func:`dice_envs.core.resources.check_archive`): what :func:`load_model`
    and the ``pbs`` learner's loader build their policies from (a ``kind`` key names the ``pbs``
    learner's).

    Raises:
        ValueError: naming the file, if torch cannot read it as a dict of tensors and plain data, or
            it declares more than it can hold."""
    import torch

    from dice_envs.core.resources import check_archive

    if os.path.isfile(path) and zipfile.is_zipfile(path):  # torch's format: its declared sizes, before torch inflates it
        check_archive(f"model file {os.fspath(path)!r}", path)
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(blob, dict):
            raise TypeError(f"it holds a {type(blob).__name__}, not a dict")
    except Exception as err:  # not a torch file, a crafted pickle
        raise ValueError(f"{os.fspath(path)!r} is not a Liar's Dice model saved by "
                         f"dice-envs train liars-dice ({type(err).__name__}: "
                         f"{str(err)[:200]})") from None
    return blob


def check_finite(net, path) -> None:
    """``ValueError`` naming the file ``path`` and the parameter, if ``net`` (loaded from it) holds NaN or an
    infinity."""
    import torch

    for name, tensor in net.state_dict().items():
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{os.fspath(path)!r}: parameter {name!r} holds non-finite numbers (NaN or inf)")


def belief_inputs(game) -> int:
    """The inputs a network that takes both players' ranges has besides the observation
    (:func:`dice_envs.agents.liars_dice.beliefs.belief_features`)."""
    from dice_envs.agents.liars_dice.beliefs import Hands

    return Hands(game).features


def hidden_sizes(hidden: str):
    """The hidden layer sizes of a ``"256,256"`` string, checked to be positive integers."""
    if not isinstance(hidden, str):
        raise ValueError(f"hidden must be a string such as '256,256', got {type(hidden).__name__}")
    sizes = [h.strip() for h in hidden.split(",") if h.strip()]
    if not all(h.isdigit() and int(h) > 0 for h in sizes):
        raise ValueError(f"hidden must be positive layer sizes such as '256,256', got {hidden!r}")
    return [int(h) for h in sizes]


def equilibrium(game, target: float = 1e-4, cache_dir=None):
    """The CFR+ reference, from (or into) the solver's disk cache; a warning says so if
    the iteration cap stopped it above ``target``."""
    from dice_envs.agents.liars_dice.solver import default_cache_dir, solve

    return _announce_capped(solve(game, target, cache_dir=cache_dir or default_cache_dir()), target)


def _announce_capped(result, target: float):
    """``result``, with a warning if the iteration cap stopped its solve above ``target``."""
    import warnings

    if result.exploitability > target:
        warnings.warn(f"the equilibrium of {result.game!r} reached an exploitability of {result.exploitability:.3g} "
                      f"in {result.iterations} iterations, above the {target:g} asked for", RuntimeWarning,
                      stacklevel=3)
    return result


#: Public nodes x rolls up to which :func:`equilibrium_if_cheap` solves an equilibrium that is not
#: cached (one six-sided die each is 24,576 and solves in about a second; one against two dice is
#: 5.5 M and takes minutes).
CHEAP_EQUILIBRIUM = 1 << 20


def equilibrium_if_cheap(game, target: float = 1e-4, cache_dir=None):
    """The CFR+ reference (:func:`equilibrium`) if it is cached (or shipped) or its public tree is at most
    :data:`CHEAP_EQUILIBRIUM` nodes x rolls, else None: scoring never waits on a long solve."""
    from dice_envs.agents.liars_dice.compiled_solver import state_count
    from dice_envs.agents.liars_dice.solver import default_cache_dir, load_cached_or_shipped

    cached = load_cached_or_shipped(game, target, "cfr+", cache_dir or default_cache_dir())
    if cached is not None:
        return _announce_capped(cached, target)
    return equilibrium(game, target, cache_dir) if state_count(game) <= CHEAP_EQUILIBRIUM else None


def evaluation_scores(ev) -> dict:
    """An :class:`~dice_envs.agents.liars_dice.solver.Evaluation` (in memory or streamed) as scores:
    exploitability, NashConv, the self-play value and the values against a best response from each seat."""
    return {
        "exploitability": ev.exploitability,
        "nash_conv": ev.nash_conv,
        "value_self_play_first_player": ev.value_first_player,
        "value_vs_best_response_as_first": -ev.best_response[1],
        "value_vs_best_response_as_second": -ev.best_response[0],
    }


def exact_scores(tree, policy, eq_policy=None) -> dict:
    """Exploitability of ``policy``, its values against a best response from each seat, and,
    given ``eq_policy``, its value against the equilibrium (mean of both seats)."""
    from dice_envs.agents.liars_dice.solver import evaluate

    out = evaluation_scores(evaluate(tree, policy))
    if eq_policy is not None:
        as_first = evaluate(tree, policy, eq_policy).value_first_player
        as_second = -evaluate(tree, eq_policy, policy).value_first_player
        out.update(value_vs_equilibrium=0.5 * (as_first + as_second), value_vs_equilibrium_as_first=as_first,
                   value_vs_equilibrium_as_second=as_second)
    return out


class LiarsDiceNetworkAgent(Agent):
    """A model saved by ``dice-envs train liars-dice`` (``model.pt``: a network,
    :class:`dice_envs.agents.liars_dice.learned.LearnedLiarsDicePolicy`, or a table,
    ``TabularLiarsDicePolicy``); its probabilities (it was trained as a mixed strategy), or with
    ``greedy`` its most probable legal action
    (:func:`~dice_envs.agents.evaluate.observation_agents.greedy_choice`)."""

    kind = "torch"

    def __init__(self, learned, name: str = "model", greedy: bool = False):
        self.learned, self.name, self.greedy = learned, name, greedy
        self.info = {"game": "liars_dice", **learned.game.config()}

    @property
    def observation_size(self) -> int:
        return int(self.learned.game.observation_shape[0])

    def __call__(self, observations, masks):
        masks = np.asarray(masks, bool)
        probs = self.learned.probabilities(np.asarray(observations, np.float32), masks)
        return greedy_choice(probs, masks) if self.greedy else probs


def load_agent(path: str) -> LiarsDiceNetworkAgent:
    """The model file ``path`` (``.pt``, a network over observations or a table, :func:`load_model`) as an agent
    over observations (:func:`dice_envs.agents.liars_dice.evaluation.load_agent`, what ``dice-envs evaluate
    liars-dice MODEL.pt`` reads, also reads the ``pbs`` learner's)."""
    return LiarsDiceNetworkAgent(load_model(path), os.path.basename(path))
