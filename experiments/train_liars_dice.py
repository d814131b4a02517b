"""Train a neural policy for two-player Liar's Dice (one die each) toward equilibrium,
scoring it EXACTLY with the CFR+ solver's evaluator.

Method: magnetic mirror descent (MMD, Sokota et al. 2023) in behavioural form, with a
small torch MLP as the policy.  Every update

1. runs the network once over every information state (public bid set x own roll;
   ``2 ** B x R`` states, one batch) to get the current policy ``pi``;
2. computes, exactly on the public tree, each information state's action values
   ``q(a)`` for the acting player against ``pi`` (counterfactual values divided by
   the opponent's and chance's reach, so expected payoffs in ``[-1, 1]``): the
   full-width expectation of what a batch of self-play games would estimate;
3. forms the closed-form MMD target in every information state,
   ``log pi_target = (log pi + alpha eta log rho + eta q) / (1 + alpha eta)`` (normalised
   over the legal actions): the mirror-descent step on the payoff regularised by
   ``alpha KL(pi || rho)`` toward the magnet ``rho``;
4. takes ``--inner-steps`` Adam steps fitting the network to it (KL(target || pi),
   every depth of the bid history given the same total weight, so the few early
   information states that decide most of the value count as much as the many deep ones);
5. every ``--magnet-every`` updates moves the magnet ``rho`` to the current policy
   (a moving magnet makes the fixed point a Nash equilibrium rather than the
   regularised one).

So the agent learns from exact expected feedback, full width over the information
states (no sampled games, hence no sampling noise); a "step" is one such update
(``info_states_per_step`` network rows each).

Every ``--eval-every`` updates, and at the end, the network's policy is tabulated over
all information states (one batch) into a :class:`agents.liars_dice_solver.TreePolicy`
and evaluated exactly: exploitability (NashConv / 2) and the value of the learned
policy against the CFR+ equilibrium from both seats.

Outputs, in ``--run-dir`` (default ``runs/liars_dice_6`` or ``..._6_wild``):

* ``tb/``: TensorBoard logs (``exact/exploitability``, ``exact/value_vs_equilibrium``, losses);
* ``checkpoint.pt`` + ``state.json``: network, optimiser, magnet, curve; written
  atomically after every evaluation; rerunning the same command resumes;
* ``model.pt``: the final network, for ``dice-envs evaluate liars-dice``;
* ``exploitability.png`` and ``curve.json``.

The last line of stdout is one JSON object.

Run: ``.venv/bin/python experiments/train_liars_dice.py --minutes 30 [--wild]``
(needs torch, the ``[train]`` extra).  ``--minutes`` and ``--steps`` are totals over resumes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.learned_liars_dice import (  # noqa: E402
    InfoStates,
    LearnedLiarsDicePolicy,
    action_values,
    build_network,
    equilibrium,
    exact_scores,
    masked_log_probs,
)
from experiments.train_ayzd import args_from_dataclass, atomic_write_text  # noqa: E402


@dataclass
class Args:
    run_dir: str = ""
    faces: int = 6
    wild: bool = False
    minutes: float = 30.0  # wall-clock budget (total over resumes; evaluations included)
    steps: int = 0  # stop after this many updates in total (0: no limit)
    eval_every: int = 20
    hidden: str = "128,128"
    learning_rate: float = 3e-3
    inner_steps: int = 10
    eta: float = 0.2  # mirror-descent step size (1 / weight of the KL to the previous policy)
    alpha: float = 0.05  # weight of the KL to the magnet
    magnet_every: int = 20
    cfr_target: float = 1e-4  # exploitability the CFR+ reference is solved to
    seed: int = 0
    threads: int = 1
    plot: bool = True
    quiet: bool = False


def parse_args(argv=None) -> Args:
    args = args_from_dataclass(Args, __doc__.splitlines()[0], argv)
    for name in ("eval_every", "inner_steps", "magnet_every", "threads"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    for name in ("eta", "learning_rate"):
        if getattr(args, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.alpha < 0:
        raise ValueError(f"--alpha must be >= 0, got {args.alpha}")
    if args.minutes <= 0 and args.steps <= 0:
        raise ValueError("give a positive --minutes or --steps")
    if not args.run_dir:
        args.run_dir = f"runs/liars_dice_{args.faces}" + ("_wild" if args.wild else "")
    return args


def log(args: Args, *parts) -> None:
    if not args.quiet:
        print(*parts, file=sys.stderr, flush=True)


def plot_curve(history: list, path: Path, title: str, reference: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot([h["steps"] for h in history], [h["exploitability"] for h in history], "o-", ms=3,
            label="learned policy (MMD, torch MLP), exact")
    ax.axhline(reference, color="tab:red", ls="--", lw=1, label=f"CFR+ reference ({reference:.1e})")
    ax.axhline(0.05, color="tab:gray", ls=":", lw=1, label="target 0.05")
    ax.set_yscale("log")
    ax.set_xlabel("updates")
    ax.set_ylabel("exploitability (NashConv / 2)")
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.replace(tmp, path)


# -- training -------------------------------------------------------------------------------


def train(args: Args) -> dict:
    import torch

    from agents.liars_dice_solver import PublicTree
    from dice_envs.liars_dice import LiarsDiceGame

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    game = LiarsDiceGame(faces=args.faces, wild=args.wild)
    tree = PublicTree(game)
    states = InfoStates(tree)
    eq = equilibrium(game, args.cfr_target)
    from agents.liars_dice_solver import exploitability as exact_exploitability

    cfr_expl = exact_exploitability(tree, eq.policy)

    run = Path(args.run_dir)
    run.mkdir(parents=True, exist_ok=True)
    ckpt_path, state_path = run / "checkpoint.pt", run / "state.json"
    net = build_network(game.config(), args.hidden)
    magnet = build_network(game.config(), args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    steps, elapsed, history = 0, 0.0, []
    if ckpt_path.exists() and state_path.exists():
        blob = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        if blob["game"] != game.config() or blob["hidden"] != args.hidden:
            raise ValueError(f"checkpoint in {run} is for {blob['game']} / hidden {blob['hidden']}; use another --run-dir")
        net.load_state_dict(blob["net"])
        magnet.load_state_dict(blob["magnet"])
        opt.load_state_dict(blob["opt"])
        st = json.loads(state_path.read_text())
        steps, elapsed, history = st["steps"], st["elapsed"], st["history"]
        log(args, f"resumed from {run}: {steps} updates, {elapsed / 60:.1f} min")
    else:
        magnet.load_state_dict(net.state_dict())
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run / "tb"))
    obs_t = torch.from_numpy(states.obs)
    mask_t = torch.from_numpy(states.mask)
    # Fit weights: every depth (number of bids made) gets the same total weight, so the
    # few early information states, which decide most of the value, are not drowned
    # out by the thousands of deep ones.
    depth = np.array([bin(m).count("1") for m in range(tree.N)])
    per_depth = np.bincount(depth, minlength=tree.B + 1)
    row_weight = np.repeat(1.0 / per_depth[depth], tree.R)
    weight_t = torch.from_numpy((row_weight / row_weight.sum()).astype(np.float32))
    # Rows where the acting player's values are computed: all of them (each row's acting player).
    acting = np.repeat(tree.player.astype(np.int64), tree.R)

    def policy_now():
        return LearnedLiarsDicePolicy(game, net).tree_policy(tree, states)

    def save():
        tmp = ckpt_path.with_name("checkpoint.tmp.pt")
        torch.save({"game": game.config(), "hidden": args.hidden, "net": net.state_dict(),
                    "magnet": magnet.state_dict(), "opt": opt.state_dict()}, tmp)
        os.replace(tmp, ckpt_path)
        atomic_write_text(state_path, json.dumps({"steps": steps, "elapsed": elapsed, "history": history, "args": dataclasses.asdict(args)}))

    def evaluate_now():
        net.eval()
        scores = exact_scores(tree, policy_now(), eq.policy)
        scores.update(steps=steps, minutes=elapsed / 60)
        history.append(scores)
        writer.add_scalar("exact/exploitability", scores["exploitability"], steps)
        writer.add_scalar("exact/value_vs_equilibrium", scores["value_vs_equilibrium"], steps)
        writer.flush()
        log(args, f"updates {steps:6d}  {elapsed / 60:6.2f} min  exploitability {scores['exploitability']:.5f}"
                  f"  vs CFR+ {scores['value_vs_equilibrium']:+.5f}  fit KL {last_fit['kl']:.2e}")
        save()

    stop = {"flag": False}
    last_fit = {"kl": float("nan")}

    def on_signal(signum, frame):
        stop["flag"] = True

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    if not history:
        evaluate_now()
    budget = args.minutes * 60 if args.minutes > 0 else float("inf")
    start = time.time() - elapsed
    start_steps = steps
    t0 = time.time()
    try:
        while not stop["flag"] and elapsed < budget and (args.steps <= 0 or steps < args.steps):
            net.eval()
            pi = policy_now()
            q = np.zeros((tree.N * tree.R, game.num_actions))
            for p in (0, 1):
                q_edge, q_call, _ = action_values(tree, pi, p)
                qp = states.to_action_table(q_edge, q_call)
                rows = acting == p
                q[rows] = qp[rows]
            q_t = torch.from_numpy(q.astype(np.float32))
            with torch.no_grad():
                old_lp = masked_log_probs(net, obs_t, mask_t)
                mag_lp = masked_log_probs(magnet, obs_t, mask_t)
            # The closed-form MMD step from the current policy, then fit the network to it.
            a_eta = args.alpha * args.eta
            target = (old_lp + a_eta * mag_lp + args.eta * q_t) / (1.0 + a_eta)
            target = torch.log_softmax(target.masked_fill(~mask_t, -1e9), dim=-1)
            target_p = target.exp()
            net.train()
            for _ in range(args.inner_steps):
                lp = masked_log_probs(net, obs_t, mask_t)
                loss = ((target_p * (target - lp)).masked_fill(~mask_t, 0.0).sum(-1) * weight_t).sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
            steps += 1
            last_fit["kl"] = float(loss.detach())
            if steps % args.magnet_every == 0:
                magnet.load_state_dict(net.state_dict())
            elapsed = time.time() - start
            if steps % 10 == 0:
                writer.add_scalar("train/fit_kl", float(loss.detach()), steps)
            if steps % args.eval_every == 0:
                evaluate_now()
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if history[-1]["steps"] != steps:
        evaluate_now()
    else:
        save()
    writer.close()
    model_path = run / "model.pt"
    tmp = model_path.with_name("model.tmp.pt")
    torch.save({"game": game.config(), "hidden": args.hidden, "net": net.state_dict()}, tmp)
    os.replace(tmp, model_path)
    curve = [{"steps": h["steps"], "minutes": round(h["minutes"], 3), "exploitability": h["exploitability"],
              "value_vs_equilibrium": h["value_vs_equilibrium"]} for h in history]
    final = history[-1]
    run_seconds = time.time() - t0
    result = {
        "game": game.config(),
        "method": "MMD (behavioural form, exact action values, moving magnet), torch MLP " + args.hidden,
        "exploitability": final["exploitability"],
        "value_vs_equilibrium": final["value_vs_equilibrium"],
        "value_vs_equilibrium_as_first": final["value_vs_equilibrium_as_first"],
        "value_vs_equilibrium_as_second": final["value_vs_equilibrium_as_second"],
        "cfr_plus_exploitability": cfr_expl,
        "cfr_plus_value_first_player": eq.value_first_player,
        "steps": steps,
        "info_states_per_step": int(states.obs.shape[0]),
        "minutes": elapsed / 60,
        "steps_per_second": (steps - start_steps) / run_seconds if run_seconds > 0 else 0.0,
        "model": str(model_path),
        "curve": curve,
        "args": dataclasses.asdict(args),
    }
    atomic_write_text(run / "curve.json", json.dumps(result, indent=1))
    if args.plot:
        title = f"Liar's Dice 1 die, {game.faces} faces" + (" (wild)" if game.wild else "")
        plot_curve(history, run / "exploitability.png", title, cfr_expl)
    return result


def main(argv=None) -> int:
    args = parse_args(argv)
    result = train(args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
