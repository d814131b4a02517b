"""Training throughput on the batched AYZD env: Stable-Baselines3's MaskablePPO against a compact
CleanRL-style masked PPO loop, with the same network, hyperparameters and environment, in one run.

Both collect from ``ZombieDiceVectorEnv(1024, opponent="optimal", observation="compact",
auto_forced=True)`` (the opponent is a table look-up inside the batch) with rollouts of 32
steps, 4 epochs of minibatches of 4,096, policy net 64-64 and value net 128-128 (ReLU), one
torch thread.  Each is timed for ``--seconds`` of wall-clock time after a warm-up rollout;
agent steps per second include the updates.  This answers whether SB3's per-step overhead
dominates (the batched-environments issue asked to measure both before choosing).

Run: ``.venv/bin/python experiments/benchmark_training_loops.py [--seconds 60] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import time


N_ENVS, N_STEPS, BATCH, EPOCHS = 1024, 32, 4096, 4
LR, GAMMA, LAMBDA, CLIP, ENT, VF = 3e-4, 1.0, 0.5, 0.2, 0.001, 0.5


def make_env():
    from dice_envs.agents.zombie_dice.gym import ZombieDiceVectorEnv

    return ZombieDiceVectorEnv(N_ENVS, opponent="optimal", observation="compact", auto_forced=True,
                               illegal_action="raise")


def sb3_steps_per_second(seconds: float) -> float:
    from sb3_contrib import MaskablePPO

    from dice_envs.envs.sb3_vec_env import SB3VecEnv

    env = SB3VecEnv(make_env())
    env.seed(0)
    import torch

    model = MaskablePPO("MlpPolicy", env, learning_rate=LR, n_steps=N_STEPS, batch_size=BATCH, n_epochs=EPOCHS,
                        gamma=GAMMA, gae_lambda=LAMBDA, ent_coef=ENT, seed=0, device="cpu", verbose=0,
                        policy_kwargs={"net_arch": {"pi": [64, 64], "vf": [128, 128]},
                                       "activation_fn": torch.nn.ReLU})
    model.learn(N_ENVS * N_STEPS)  # warm-up
    steps, t0 = model.num_timesteps, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        model.learn(N_ENVS * N_STEPS * 4, reset_num_timesteps=False)
    return (model.num_timesteps - steps) / (time.perf_counter() - t0)


def compact_steps_per_second(seconds: float) -> float:
    """A masked PPO in the CleanRL style: rollout tensors, GAE, clipped objective."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    env = make_env()
    obs, info = env.reset(seed=0)
    d = obs.shape[1]

    def mlp(out, hidden):
        layers, width = [], d
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        return nn.Sequential(*layers, nn.Linear(width, out))

    pi, vf = mlp(2, (64, 64)), mlp(1, (128, 128))
    opt = torch.optim.Adam(list(pi.parameters()) + list(vf.parameters()), lr=LR, eps=1e-5)
    buf_obs = torch.zeros(N_STEPS, N_ENVS, d)
    buf_mask = torch.zeros(N_STEPS, N_ENVS, 2, dtype=torch.bool)
    buf_act, buf_logp, buf_val, buf_rew, buf_done = (torch.zeros(N_STEPS, N_ENVS) for _ in range(5))
    steps, t0, started = 0, None, time.perf_counter()
    while True:
        for t in range(N_STEPS):
            o = torch.from_numpy(obs)
            m = torch.from_numpy(env.action_masks())
            with torch.no_grad():
                logits = pi(o).masked_fill(~m, -1e8)
                dist = torch.distributions.Categorical(logits=logits)
                a = dist.sample()
                buf_logp[t], buf_val[t] = dist.log_prob(a), vf(o).squeeze(1)
            buf_obs[t], buf_mask[t], buf_act[t] = o, m, a
            obs, reward, terminated, truncated, info = env.step(a.numpy())
            buf_rew[t] = torch.from_numpy(reward)
            buf_done[t] = torch.from_numpy(terminated | truncated)
        with torch.no_grad():
            next_val = vf(torch.from_numpy(obs)).squeeze(1)
            adv = torch.zeros_like(buf_rew)
            last = torch.zeros(N_ENVS)
            for t in reversed(range(N_STEPS)):
                nxt = next_val if t == N_STEPS - 1 else buf_val[t + 1]
                live = 1.0 - buf_done[t]
                delta = buf_rew[t] + GAMMA * nxt * live - buf_val[t]
                last = delta + GAMMA * LAMBDA * live * last
                adv[t] = last
            ret = adv + buf_val
        flat = [x.reshape(N_STEPS * N_ENVS, *x.shape[2:]) for x in (buf_obs, buf_mask, buf_act, buf_logp, adv, ret)]
        for _ in range(EPOCHS):
            for idx in torch.randperm(N_STEPS * N_ENVS).split(BATCH):
                o, m, a, logp_old, ad, rt = (x[idx] for x in flat)
                dist = torch.distributions.Categorical(logits=pi(o).masked_fill(~m, -1e8))
                ratio = (dist.log_prob(a) - logp_old).exp()
                ad = (ad - ad.mean()) / (ad.std() + 1e-8)
                loss_pi = -torch.min(ratio * ad, ratio.clamp(1 - CLIP, 1 + CLIP) * ad).mean()
                loss = loss_pi + VF * (vf(o).squeeze(1) - rt).pow(2).mean() - ENT * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(list(pi.parameters()) + list(vf.parameters()), 0.5)
                opt.step()
        if t0 is None:  # the first rollout and update are the warm-up
            t0 = time.perf_counter()
            continue
        steps += N_STEPS * N_ENVS
        if time.perf_counter() - t0 >= seconds or time.perf_counter() - started > 10 * seconds:
            return steps / (time.perf_counter() - t0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="wall-clock seconds timed per loop")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    sb3 = sb3_steps_per_second(args.seconds)
    compact = compact_steps_per_second(args.seconds)
    result = {"sb3_maskable_ppo_steps_per_s": sb3, "compact_ppo_steps_per_s": compact, "ratio": compact / sb3,
              "baseline_one_game_at_a_time_steps_per_s": 8200}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"SB3 MaskablePPO {sb3:,.0f} agent steps/s; compact PPO loop {compact:,.0f} ({compact / sb3:.2f}x); "
              f"{sb3 / 8200:.1f}x and {compact / 8200:.1f}x the 8.2k of the one-game-at-a-time trainer")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
