"""The learners of Liar's Dice from sampled self-play: they see only the games they play (the
decisions made and the payoff each player got), never the game's tree.

:func:`play` plays a batch of games from fresh deals to the end with a policy network, one
exploratory deviation per game with ``explore``, and returns every decision with its payoff
(:class:`Rollout`).  The updates learn from it: :class:`Critics` fits action values to the
sampled payoffs; :func:`ppo_update` takes a PPO step;
:func:`mmd_update` takes magnetic mirror descent's closed-form step at every decision and
fits the policy network to it (:func:`mmd_fit`); :class:`AverageBuffer` and
:func:`average_update` keep the average-policy network (``--average``); :func:`scheduled`
gives the options at a point of the budget (learning rates and ``alpha`` decayed).
:class:`CFRTables` holds outcome-sampling MCCFR's tables as a checkpoint entry, and
:func:`new_modules` builds a new run's networks and optimisers, tables or ESCHER learner
(:mod:`dice_envs.agents.liars_dice.escher`) under the names :func:`tensor_names` lists.

Everywhere here ``args`` (:data:`Options`) is the options of the trainer
(:class:`dice_envs.agents.liars_dice.play_training.Args`; each field's comment says what it does),
of which each learner reads the fields it needs.  The trainer holds the training loop; the learners
live here so that diagnostics and the tests run the very pieces it trains with.  Needs torch (the
``[train]`` extra).
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import numpy as np

from dice_envs.agents.learn.runs import cosine_decay
from dice_envs.agents.liars_dice.escher import Escher, EscherSettings
from dice_envs.agents.liars_dice.learned import build_network, masked_kl, masked_log_probs

#: the options of the trainer (:class:`dice_envs.agents.liars_dice.play_training.Args`)
Options = Any


# -- sampled self-play --------------------------------------------------------------------------


class Rollout(NamedTuple):
    """The decisions of a batch of finished games, one row each, as torch tensors."""

    obs: Any  # (n, obs_dim) float32: the mover's observation
    mask: Any  # (n, A) bool: legal actions
    action: Any  # (n,) int64
    log_prob: Any  # (n,) float32: log pi(action) under the policy that played
    ret: Any  # (n,) float32: the payoff the mover got at the end of the game
    weight: Any  # (n,) float32: the decision's weight in the critic's fit (below)
    policy: Any  # (n, A) float32: the policy network's probabilities at the decision
    own_reach: Any  # (n,) bool: the mover reached the decision playing its policy (no own deviation before)
    game: Any  # (n,) int64: the game of the batch the decision was made in
    depth: Any  # (n,) int64: the decisions made before it in its game (the rows are in order of depth, then game)


def play(batch, net, rng: np.random.Generator, explore: float = 0.0, sharpness: float = 0.0) -> Rollout:
    """Play every game of ``batch`` from a fresh deal to the end, every seat choosing
    by ``net`` (actions drawn with ``rng``); returns all decisions with their payoffs.

    With ``explore`` > 0, in each game the first decision at which a coin with that
    probability comes up (if any) is made uniformly at random among the legal actions:
    one exploratory deviation per game, so the states and actions the policy avoids are
    still played, and every later decision is on-policy.  ``weight`` says how much each
    payoff tells about the policy's action value: 0 before the deviation (a uniform move
    follows), 1 for the deviating player's own decisions from it on, and for the other
    player's later decisions the importance ratio ``pi(a) / uniform(a)`` of the deviation
    (capped at 1): the deviation does not depend on the deviator's die, so unweighted its
    games would teach the other player that such bids are random bluffs, while the
    policy's own bids (which the exploitability judges) carry information.

    ``policy`` holds the network's probabilities at every decision (before a deviation
    replaces them); ``own_reach`` is False at the decisions of a player after its own
    deviation, which its policy would have reached less often (``--average`` learns only
    from the others)."""
    import torch

    from dice_envs.envs.batched import categorical

    batch.reset(rng)
    n = batch.num_envs
    payoff = np.zeros((n, batch.num_players), np.float32)
    explored_at = np.full(n, np.iinfo(np.int64).max)  # the decision number of each game's deviation
    deviator = np.full(n, -1)
    ratio = np.ones(n)  # pi(a) / uniform(a) of each game's deviation
    parts = []
    depth = 0
    while True:
        idx = np.flatnonzero(~batch.done)
        if not len(idx):
            break
        obs = batch.observe_mover(where=idx)
        mask = batch.action_mask(where=idx).astype(bool)
        mover = batch.current_player(where=idx)
        with torch.no_grad():
            lp = masked_log_probs(net, torch.from_numpy(obs), torch.from_numpy(mask)).numpy()
        p = np.exp(lp.astype(np.float64)) * mask
        policy = p.astype(np.float32)
        if explore > 0:
            deviate = (rng.random(len(idx)) < explore) & (explored_at[idx] > depth)
            explored_at[idx[deviate]] = depth
            deviator[idx[deviate]] = mover[deviate]
            pi = p[deviate]
            mu = np.exp(sharpness * lp[deviate].astype(np.float64)) * mask[deviate]
            mu /= mu.sum(1, keepdims=True)
            p[deviate] = mu
        cum = np.cumsum(p, axis=1)
        cum /= cum[:, -1:]
        action = categorical(rng.random(len(idx)), cum)
        if explore > 0:
            rows = np.arange(len(mu))
            ratio[idx[deviate]] = pi[rows, action[deviate]] / mu[rows, action[deviate]]
        rewards, _ = batch.step(action, rng, where=idx)
        payoff[idx] += rewards
        parts.append((obs, mask, action, lp[np.arange(len(idx)), action], idx, mover, np.full(len(idx), depth),
                      policy))
        depth += 1
    obs, mask, action, log_prob, game, mover, when, policy = (np.concatenate(p) for p in zip(*parts))
    capped = np.minimum(ratio[game], 1.0)
    weight = np.where(when < explored_at[game], 0.0, np.where(mover == deviator[game], 1.0, capped))
    weight[explored_at[game] == np.iinfo(np.int64).max] = 1.0
    own_reach = (mover != deviator[game]) | (when <= explored_at[game])
    return Rollout(torch.from_numpy(obs), torch.from_numpy(mask), torch.from_numpy(action.astype(np.int64)),
                   torch.from_numpy(log_prob.astype(np.float32)), torch.from_numpy(payoff[game, mover]),
                   torch.from_numpy(weight.astype(np.float32)), torch.from_numpy(policy),
                   torch.from_numpy(own_reach), torch.from_numpy(game.astype(np.int64)),
                   torch.from_numpy(when.astype(np.int64)))


def minibatches(n: int, size: int, epochs: int):
    """Index tensors: ``epochs`` shuffled passes (torch's generator) over ``n`` rows."""
    import torch

    for _ in range(epochs):
        perm = torch.randperm(n)
        yield from perm.split(size)


def fit_critic(args: Options, critic, opt, ro: Rollout) -> float:
    """Regress ``Q(s, a_taken)`` on the sampled payoffs, MSE weighted by ``ro.weight`` (rows of
    weight 0 left out); returns the last loss."""
    import torch

    loss = torch.zeros(())
    rows = (ro.weight > 0).nonzero()[:, 0]
    for mb in minibatches(len(rows), args.minibatch, args.epochs):
        mb = rows[mb]
        q = critic(ro.obs[mb]).gather(1, ro.action[mb, None])[:, 0]
        w = ro.weight[mb]
        loss = (w * (q - ro.ret[mb]) ** 2).sum() / w.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return float(loss.detach())


class Critics:
    """The action values the updates use: ``critic``, ``Q(s, a)`` on the mover's observation,
    fitted to the payoffs of the actions taken."""

    def __init__(self, critic, opt):
        self.critic, self.opt = critic, opt

    def values(self, ro: Rollout):
        """``Q(s, a)`` at every decision of ``ro``, 0 on illegal actions."""
        import torch

        with torch.no_grad():
            return self.critic(ro.obs).masked_fill(~ro.mask, 0.0)

    def fit(self, args: Options, ro: Rollout) -> dict:
        """Fit to the batch; returns the last loss by name."""
        return {"critic_loss": fit_critic(args, self.critic, self.opt, ro)}


def gae(ro: Rollout, values, gamma: float, lam: float) -> tuple:
    """Generalised advantage estimates (Schulman et al. 2016) of every decision of ``ro``, and the
    returns the state-value critic is fitted to (``advantage + value``), from the state values
    ``values`` (``(n,)``, each the mover's).

    The players alternate, and the payoff is zero-sum and paid when a call ends the game, so from
    the mover's side the next decision's value is minus the next mover's: ``delta_t = -gamma
    V(s_{t+1}) - V(s_t)``, or ``payoff - V(s_t)`` at the decision that ended the game, and
    ``A_t = delta_t - gamma lam A_{t+1}``.  This is the same estimate as IIG-RL-Benchmark's, which
    keeps the values on player 0's side and turns the sign of the advantage by the mover."""
    import torch

    n_games = int(ro.game.max()) + 1 if len(ro.game) else 0
    next_value = torch.zeros(n_games)
    next_adv = torch.zeros(n_games)
    alive = torch.zeros(n_games, dtype=torch.bool)  # the game has a decision after the current depth
    adv = torch.zeros(len(ro.game))
    for d in range(int(ro.depth.max()) if len(ro.depth) else -1, -1, -1):
        rows = (ro.depth == d).nonzero()[:, 0]
        g = ro.game[rows]
        later = alive[g]
        delta = torch.where(later, -gamma * next_value[g], ro.ret[rows]) - values[rows]
        adv[rows] = delta - gamma * lam * torch.where(later, next_adv[g], torch.zeros(()))
        next_value[g], next_adv[g] = values[rows], adv[rows]
        alive[:] = False
        alive[g] = True
    return adv, adv + values


def _clip_gradients(args: Options, *nets) -> None:
    import torch

    if args.max_grad_norm > 0:
        torch.nn.utils.clip_grad_norm_([p for net in nets for p in net.parameters()], args.max_grad_norm)


def _ppo_policy_loss(args: Options, net, ro: Rollout, mb, adv) -> tuple:
    """PPO's clipped surrogate on minibatch ``mb`` with advantages ``adv`` (normalised), the
    policy's entropy, and with ``--kl`` the sampled KL from the policy that played (the term that
    makes the loss magnetic mirror descent's, in IIG-RL-Benchmark's form)."""
    import torch

    lp = masked_log_probs(net, ro.obs[mb], ro.mask[mb])
    log_ratio = lp.gather(1, ro.action[mb, None])[:, 0] - ro.log_prob[mb]
    ratio = log_ratio.exp()
    pg = -torch.min(ratio * adv, ratio.clamp(1 - args.clip, 1 + args.clip) * adv).mean()
    ent = -(lp.exp() * lp).masked_fill(~ro.mask[mb], 0.0).sum(-1).mean()
    kl = (ratio * log_ratio - (ratio - 1)).mean()  # KL(new || played), estimated on the played actions
    return pg - args.entropy * ent + args.kl * kl, pg, ent, kl


def ppo_update(args: Options, net, opt, critics: Critics, magnet, ro: Rollout) -> dict:
    """One PPO update on the batch (clipped ratio, entropy bonus, ``--kl``), with the baseline of
    ``--advantage``: ``q``, the Q critic's state value under the policy (then the critic is fitted
    to the payoffs), or ``gae``, a state-value critic and :func:`gae`, fitted with the policy in one
    loss (``--value-coef``, ``--clip-value``), as CleanRL's PPO."""
    import torch

    if args.advantage == "gae":
        return _ppo_gae_update(args, net, opt, critics, ro)
    with torch.no_grad():
        p_old = masked_log_probs(net, ro.obs, ro.mask).exp()
    adv = ro.ret - (p_old * critics.values(ro)).sum(-1)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    for mb in minibatches(len(ro.ret), args.minibatch, args.epochs):
        loss, pg, ent, kl = _ppo_policy_loss(args, net, ro, mb, adv[mb])
        opt.zero_grad()
        loss.backward()
        _clip_gradients(args, net)
        opt.step()
    return {"policy_loss": float(pg.detach()), "entropy": float(ent.detach()), "kl": float(kl.detach()),
            **critics.fit(args, ro)}


def _ppo_gae_update(args: Options, net, opt, critics: Critics, ro: Rollout) -> dict:
    import torch

    critic, opt_critic = critics.critic, critics.opt
    with torch.no_grad():
        v_old = critic(ro.obs)[:, 0]
        adv, returns = gae(ro, v_old, args.gamma, args.gae_lambda)
    for mb in minibatches(len(ro.ret), args.minibatch, args.epochs):
        a = adv[mb]
        a = (a - a.mean()) / (a.std() + 1e-8) if len(a) > 1 else a
        loss, pg, ent, kl = _ppo_policy_loss(args, net, ro, mb, a)
        v = critic(ro.obs[mb])[:, 0]
        value_loss = (v - returns[mb]) ** 2
        if args.clip_value:
            clipped = v_old[mb] + (v - v_old[mb]).clamp(-args.clip, args.clip)
            value_loss = torch.max(value_loss, (clipped - returns[mb]) ** 2)
        value_loss = 0.5 * value_loss.mean()
        opt.zero_grad()
        opt_critic.zero_grad()
        (loss + args.value_coef * value_loss).backward()
        _clip_gradients(args, net, critic)  # (one norm over both networks, as over CleanRL's one agent)
        opt.step()
        opt_critic.step()
    return {"policy_loss": float(pg.detach()), "entropy": float(ent.detach()), "kl": float(kl.detach()),
            "critic_loss": float(value_loss.detach())}


def mmd_update(args: Options, net, opt, critics: Critics, magnet, ro: Rollout) -> dict:
    """One MMD step with sampled returns: fit the critics, take the closed-form step at
    every decision of the batch, fit the policy network to it (:func:`mmd_fit`)."""
    q_prev = critics.values(ro)
    losses = critics.fit(args, ro)
    return {"fit_kl": mmd_fit(args, net, opt, magnet, ro, critics.values(ro), q_prev), **losses}


def mmd_fit(args: Options, net, opt, magnet, ro: Rollout, q, q_prev) -> float:
    """The closed-form MMD step at every decision of the batch on the action values
    ``q`` (``(n, A)``, optimistic with ``q_prev``), and the policy network fitted to it
    (KL(target || network)); returns the last loss."""
    import torch

    q_hat = q + args.optimism * (q - q_prev)
    a_eta = args.alpha * args.eta
    with torch.no_grad():
        lp_old = masked_log_probs(net, ro.obs, ro.mask).masked_fill(~ro.mask, 0.0)
        lp_mag = masked_log_probs(magnet, ro.obs, ro.mask).masked_fill(~ro.mask, 0.0)
        logits = (lp_old + a_eta * lp_mag + args.eta * q_hat) / (1.0 + a_eta)
        target = torch.log_softmax(logits.masked_fill(~ro.mask, -1e9), dim=-1)
        target_p = target.exp()
    for mb in minibatches(len(ro.ret), args.minibatch, args.epochs):
        lp = masked_log_probs(net, ro.obs[mb], ro.mask[mb])
        loss = masked_kl(target_p[mb], target[mb], lp, ro.mask[mb]).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return float(loss.detach())


UPDATES = {"ppo": ppo_update, "mmd": mmd_update}


def scheduled(args: Options, done: float, updates: int = 0) -> Options:
    """The options of update number ``updates`` (from 0), made at ``done`` (0 to 1) of the budget
    (:func:`~dice_envs.agents.learn.runs.budget_fraction`): every learning rate decays
    from its start to ``--lr-floor`` times it, by the cosine or linearly (``--lr-decay``;
    linearly to 0 is CleanRL's ``anneal_lr``), over the budget or, with ``--lr-hold h``, over
    its last ``1 - h`` (the rates stay at their start until then).  With ``--lr-updates n`` the
    decay runs over the first ``n`` updates instead of the budget (held for ``h n`` of them),
    then stays at the floor, whatever the budget.  ``alpha`` decays geometrically from
    ``--alpha`` to ``--alpha-final`` (when that is positive), and with ``--entropy-anneal`` PPO's
    entropy bonus linearly from ``--entropy`` to 0, both over the whole budget; the rest as given."""
    lr_done = min(1.0, updates / args.lr_updates) if args.lr_updates > 0 else done
    decayed = max(0.0, lr_done - args.lr_hold) / (1.0 - args.lr_hold)
    if args.lr_decay == "linear":
        lr_scale = args.lr_floor + (1.0 - args.lr_floor) * (1.0 - decayed)
    else:
        lr_scale = cosine_decay(1.0, args.lr_floor, decayed)
    alpha = args.alpha * (args.alpha_final / args.alpha) ** done if args.alpha_final > 0 else args.alpha
    entropy = args.entropy * (1.0 - done) if args.entropy_anneal else args.entropy
    return dataclasses.replace(args, alpha=alpha, entropy=entropy, learning_rate=args.learning_rate * lr_scale,
                               value_learning_rate=args.value_learning_rate * lr_scale,
                               average_learning_rate=args.average_learning_rate * lr_scale)


def set_learning_rate(opt, rate: float) -> None:
    """Set an Adam optimiser's rate (every parameter group) for the next steps."""
    for group in opt.param_groups:
        group["lr"] = rate


# -- the average policy (--average) ---------------------------------------------------------------


class AverageBuffer:
    """The decisions the average-policy network learns from: observation, legal actions
    and the probabilities the policy network played there, ``capacity`` rows first in,
    first out (so the network fits the average of the recent policies, each decision
    weighted by how often play reached it, as NFSP's average network does).  Stored
    compactly (observations and probabilities as float16); :meth:`state_dict` /
    :meth:`load_state_dict` put the filled rows in a checkpoint and back."""

    def __init__(self, capacity: int, obs_dim: int, num_actions: int):
        import torch

        self.capacity = capacity
        self.obs = torch.zeros((capacity, obs_dim), dtype=torch.float16)
        self.mask = torch.zeros((capacity, num_actions), dtype=torch.bool)
        self.policy = torch.zeros((capacity, num_actions), dtype=torch.float16)
        self.size = 0
        self.next = 0

    def add(self, obs, mask, policy) -> None:
        """Append rows, overwriting the oldest once full."""
        n = min(len(obs), self.capacity)
        obs, mask, policy = obs[-n:], mask[-n:], policy[-n:]
        first = min(n, self.capacity - self.next)
        for lo, hi, at in ((0, first, self.next), (first, n, 0)):
            self.obs[at:at + hi - lo] = obs[lo:hi]
            self.mask[at:at + hi - lo] = mask[lo:hi]
            self.policy[at:at + hi - lo] = policy[lo:hi]
        self.next = (self.next + n) % self.capacity
        self.size = min(self.size + n, self.capacity)

    def sample(self, n: int, linear: bool = True) -> tuple:
        """``n`` rows drawn with torch's generator, with chances that grow linearly from the
        oldest row kept to the newest (``linear``, as CFR+ weights its average) or are
        equal; returns observations, masks and the played probabilities renormalised over
        the legal actions, as float32."""
        import torch

        u = torch.rand(n)
        age_rank = (self.size * (u.sqrt() if linear else u)).long().clamp_max(self.size - 1)  # 0: the oldest
        rows = (self.next - self.size + age_rank) % self.capacity if self.size == self.capacity else age_rank
        policy = self.policy[rows].float() * self.mask[rows]
        return self.obs[rows].float(), self.mask[rows], policy / policy.sum(1, keepdim=True).clamp_min(1e-12)

    def state_dict(self) -> dict:
        import torch

        return {"obs": self.obs[:self.size].clone(), "mask": self.mask[:self.size].clone(),
                "policy": self.policy[:self.size].clone(), "next": torch.tensor(self.next)}

    def load_state_dict(self, state: dict) -> None:
        size = len(state["obs"])
        nxt = int(state["next"])
        # Filled in order from row 0 until full, so: not full, the next row is the size; full, any row.
        fits = nxt == size < self.capacity or (size == self.capacity and 0 <= nxt < size)
        if not fits or not len(state["mask"]) == len(state["policy"]) == size:
            raise ValueError(f"an average buffer of {size} rows (next {nxt}) does not fit capacity {self.capacity}")
        self.obs[:size] = state["obs"]
        self.mask[:size] = state["mask"]
        self.policy[:size] = state["policy"]
        self.size, self.next = size, nxt
        if not bool(self.policy[:size].float().isfinite().all()):
            raise ValueError("non-finite probabilities in the average buffer")


def average_update(args: Options, avg_net, opt, buffer: AverageBuffer, ro: Rollout) -> float:
    """Add ``--average-rows`` of the batch's decisions reached by their mover's own policy
    to the buffer, then take ``--average-steps`` Adam steps of cross-entropy between the
    played probabilities and the average network on buffer minibatches; returns the
    last loss."""
    import torch

    rows = ro.own_reach.nonzero()[:, 0]
    rows = rows[torch.randperm(len(rows))[:args.average_rows]]
    buffer.add(ro.obs[rows], ro.mask[rows], ro.policy[rows])
    loss = torch.zeros(())
    for _ in range(args.average_steps):
        obs, mask, target = buffer.sample(args.minibatch, linear=args.average_weighting == "linear")
        lp = masked_log_probs(avg_net, obs, mask)
        loss = -(target * lp).masked_fill(~mask, 0.0).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return float(loss.detach())


# -- a new run: its networks and optimisers, or its tables, by checkpoint name ----------------


class CFRTables:
    """:class:`~dice_envs.agents.liars_dice.mccfr.OutcomeSamplingCFR` (``--method mccfr``)
    as a checkpoint entry: its tables as torch tensors (what ``torch.load(weights_only=True)``
    reads back), validated on load."""

    def __init__(self, cfr):
        self.cfr = cfr

    def state_dict(self) -> dict:
        import torch

        return {name: torch.from_numpy(np.asarray(value)) for name, value in self.cfr.state_dict().items()}

    def load_state_dict(self, state: dict) -> None:
        self.cfr.load_state_dict({name: value.numpy() for name, value in state.items()})


def tensor_names(args: Options) -> tuple:
    if args.method == "mccfr":
        return ("tables",)
    if args.method == "escher":
        return ("escher",)
    return (("net", "critic", "opt", "opt_critic") + (("magnet",) if args.method == "mmd" else ())
            + (("average_net", "opt_average", "average_buffer") if args.average else ()))


def new_modules(args: Options, game, states) -> dict:
    """The networks, optimisers and (``--average``) buffer of a new run, by checkpoint
    name: the policy network starts at the uniform policy, the magnet and the average
    network as copies of it (torch's generator draws the initial weights).  For
    ``--method mccfr``, the tables (:class:`CFRTables`) over ``states`` instead; for ``--method
    escher``, the learner (:class:`~dice_envs.agents.liars_dice.escher.Escher`)."""
    import torch

    if args.method == "mccfr":
        from dice_envs.agents.liars_dice.mccfr import OutcomeSamplingCFR

        return {"tables": CFRTables(OutcomeSamplingCFR(states, args.explore, args.regret_discount))}
    if args.method == "escher":
        settings = EscherSettings(
            games=args.games, value_steps=args.value_steps, regret_steps=args.regret_steps,
            average_steps=args.average_steps, minibatch=args.minibatch, value_learning_rate=args.value_learning_rate,
            regret_learning_rate=args.learning_rate, average_learning_rate=args.average_learning_rate,
            buffer=args.average_buffer, other_dice=args.other_dice, own_dice=args.own_dice,
            merge=args.merge_rows, regret_plus=args.regret_plus, average_power=args.average_power,
            reach_floor=args.reach_floor, regret_decay=args.regret_decay, iteration_rows=args.iteration_rows,
            predictive_plus=args.predictive_plus, average_ema=args.average_ema, beliefs=args.beliefs)
        return {"escher": Escher(game, args.hidden, args.critic_hidden, settings, args.average_hidden)}

    activation = args.activation
    net = build_network(game.config(), args.hidden, zero_output=True, activation=activation)  # the uniform policy
    # (--advantage gae: a state-value critic, one output)
    critic = build_network(game.config(), args.critic_hidden, activation=activation,
                           outputs=1 if args.advantage == "gae" else 0)
    magnet = build_network(game.config(), args.hidden, activation=activation)
    magnet.load_state_dict(net.state_dict())
    avg_net = build_network(game.config(), args.hidden, activation=activation)
    avg_net.load_state_dict(net.state_dict())
    return {"net": net, "critic": critic, "magnet": magnet, "average_net": avg_net,
            "opt": torch.optim.Adam(net.parameters(), lr=args.learning_rate),
            "opt_critic": torch.optim.Adam(critic.parameters(), lr=args.value_learning_rate),
            "opt_average": torch.optim.Adam(avg_net.parameters(), lr=args.average_learning_rate),
            "average_buffer": AverageBuffer(args.average_buffer, game.observation_shape[0], game.num_actions)
            if args.average else None}
