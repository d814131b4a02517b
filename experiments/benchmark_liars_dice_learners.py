"""OpenSpiel's own sampled-play learners on our Liar's Dice, scored exactly.

Runs one of OpenSpiel's PyTorch implementations on the registered game ``dice_envs_liars_dice``
(:mod:`dice_envs.openspiel`) for a wall-clock budget and scores its average policy exactly with our
evaluator, as ``train_liars_dice_play.py`` scores ours (README: the benchmark table beside ESCHER):

* ``nfsp``: Neural Fictitious Self-Play (Heinrich and Silver 2016), ``open_spiel.python.pytorch.nfsp``,
  with the settings of OpenSpiel's ``nfsp_leduc_pytorch.py`` example (one hidden layer of 128,
  reservoir of 2 M, anticipatory parameter 0.1, SGD at 0.01, ...), one episode at a time through
  ``rl_environment``; scored: the average-policy network;
* ``deep_cfr``: Deep CFR (Brown et al. 2019), ``open_spiel.python.pytorch.deep_cfr.DeepCFRSolver``,
  with its defaults and its example's 375 traversals per iteration, external-sampling traversals of
  the game tree (it clones states, which sampled play of the batched environment cannot); the
  iterations of ``solve()`` run until the budget, then the policy network is trained once, as
  ``solve()`` ends (that time is reported apart, ``final_fit_seconds``); scored: the policy network;
* ``escher``: ESCHER (McAleer et al. 2023), ``open_spiel.python.pytorch.escher``, with its
  ``Config`` defaults; its iterations (``train``'s loop, without the games against a random
  player it plays for its log) until the budget, then the average-policy network is trained
  (``final_fit_seconds``); scored: the average-policy network.

R-NaD (``open_spiel.python.algorithms.rnad``) needs JAX and Haiku, which the ``[openspiel]`` extra
does not install; MMD in OpenSpiel (``mmd_dilated``) is a full-width tabular method, not a sampled
learner.  Both are left out (the README says so).

Scoring: the game's information-state tensor is our observation (:mod:`dice_envs.openspiel`), so
each algorithm's network answers the information states in batches of public nodes
(:func:`~dice_envs.agents.liars_dice.learned.tree_policy_in_batches`), with the rule its own
``action_probabilities`` applies (a softmax over the legal actions; Deep CFR's network ends in a
softmax over all actions, renormalised here over the legal ones: its ``action_probabilities``
leaves the illegal share out, so its probabilities do not sum to 1).  A test checks the batch
against ``action_probabilities`` state by state.  Where the tree fits in memory (up to three
dice in play) the exploitability and the value against the CFR+ equilibrium are exact
(:class:`dice_envs.agents.liars_dice.training.ExactScorer`).

Every ``--eval-minutes`` (and at the end) the policy is scored; the evaluations (and for Deep CFR
and ESCHER the fit of the network scored) are not counted in ``--minutes``.  The last line of
stdout is one JSON object: ``algorithm``, ``game``, ``exploitability`` (final), ``best_exploitability``,
``curve``, ``iterations`` (episodes for NFSP), ``minutes``, ``final_fit_seconds`` and the settings.

Run: ``.venv/bin/python experiments/benchmark_liars_dice_learners.py --algorithm nfsp --wild highest
--minutes 30`` (or ``--dice 1 2 --wild aces``, or a named game, ``--game LD2D5F``).  NFSP also takes
IIG-RL-Benchmark's protocol, a budget of agent steps with an evaluation every so many (``--steps
10000000 --eval-steps 1000000``).  Needs the ``[openspiel]`` and ``[train]`` extras.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from dice_envs.agents.liars_dice.learned import NETWORK_CHUNK, LearnedLiarsDicePolicy
from dice_envs.agents.learn.runs import jsonable

ALGORITHMS = ("nfsp", "deep_cfr", "escher")


def load_game(dice, faces: int, wild: str):
    """``(pyspiel game, our LiarsDiceGame)`` for the same rules."""
    import pyspiel

    from dice_envs.openspiel import register

    register()
    dice = tuple(dice)
    game = pyspiel.load_game("dice_envs_liars_dice", {"dice": ",".join(map(str, dice)), "faces": faces,
                                                      "wild_rule": wild})
    return game, game.core


class Learner:
    """One OpenSpiel algorithm: :meth:`iterate` runs one unit of its training, :meth:`prepare`
    fits what is scored (nothing for NFSP), :meth:`probabilities` answers a batch of information
    states as the algorithm's ``action_probabilities`` would, :meth:`action_probabilities` is that
    function itself (for the test).  ``game`` is the registered pyspiel game."""

    unit = "iterations"

    def __init__(self, game):
        self.game = game.core  # our LiarsDiceGame

    def iterate(self) -> int:
        """One unit of training; returns the agent steps it played (0 where it walks the tree)."""
        raise NotImplementedError

    def prepare(self) -> None:
        pass

    def network(self):
        raise NotImplementedError

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """A network of logits over the observation: a softmax over the legal actions, in chunks
        (:class:`~dice_envs.agents.liars_dice.learned.LearnedLiarsDicePolicy`)."""
        return LearnedLiarsDicePolicy(self.game, self.network()).probabilities(obs, mask)

    def action_probabilities(self, state) -> dict:
        raise NotImplementedError


class NFSPLearner(Learner):
    unit = "episodes"

    def __init__(self, game, seed: int, overrides=None):
        from open_spiel.python import rl_environment
        from open_spiel.python.pytorch import nfsp

        super().__init__(game)
        self.env = rl_environment.Environment(game)
        size = self.env.observation_spec()["info_state"][0]
        actions = self.env.action_spec()["num_actions"]
        settings = dict(replay_buffer_capacity=int(2e5), reservoir_buffer_capacity=int(2e6),
                        min_buffer_size_to_learn=1000, anticipatory_param=0.1, batch_size=128, learn_every=64,
                        rl_learning_rate=0.01, sl_learning_rate=0.01, optimizer_str="sgd", loss_str="mse",
                        update_target_network_every=19200, discount_factor=1.0, epsilon_decay_duration=int(20e6),
                        epsilon_start=0.06, epsilon_end=0.001)
        settings.update(overrides or {})
        self.agents = [nfsp.NFSP(p, size, actions, [128], seed=seed + 10 * p, **settings) for p in range(2)]
        self.mode = nfsp.MODE.AVERAGE_POLICY
        self.settings = dict(settings, hidden_layers_sizes=[128])

    def iterate(self):
        time_step = self.env.reset()
        steps = 0
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = self.env.step([self.agents[player].step(time_step).action])
            steps += 1
        for agent in self.agents:
            agent.step(time_step)
        return steps

    def probabilities(self, obs, mask):
        # Each player's own average network at its information states (the seat is in the observation).
        seat = np.asarray(obs)[:, 1] > 0.5
        out = np.zeros(np.shape(mask))
        for p, rows in ((0, ~seat), (1, seat)):
            if rows.any():
                policy = LearnedLiarsDicePolicy(self.game, self.agents[p]._avg_network)
                out[rows] = policy.probabilities(np.asarray(obs)[rows], np.asarray(mask)[rows])
        return out

    def action_probabilities(self, state):
        from open_spiel.python import rl_environment

        player = state.current_player()
        legal = state.legal_actions(player)
        obs = {"info_state": [None, None], "legal_actions": [None, None], "current_player": player}
        obs["info_state"][player] = state.information_state_tensor(player)
        obs["legal_actions"][player] = legal
        step = rl_environment.TimeStep(observations=obs, rewards=None, discounts=None, step_type=None)
        with self.agents[player].temp_mode_as(self.mode):
            p = self.agents[player].step(step, is_evaluation=True).probs
        return {a: float(p[a]) for a in legal}


class DeepCFRLearner(Learner):
    def __init__(self, game, seed: int, overrides=None):
        from open_spiel.python.pytorch import deep_cfr

        super().__init__(game)
        self.settings = {"num_traversals": 375, **(overrides or {})}
        self.solver = deep_cfr.DeepCFRSolver(game, seed=seed, **self.settings)

    def iterate(self):
        s = self.solver  # one iteration of DeepCFRSolver.solve()
        for p in range(s._num_players):
            for _ in range(s._num_traversals):
                s._traverse_game_tree(s._root_node, p)
            if s._reinitialize_advantage_networks:
                s._reinitialize_advantage_network(p)
            s._learn_advantage_network(p)
        s._iteration += 1
        return 0

    def prepare(self):
        self.solver._reinitialize_policy_network()
        self.solver._learn_strategy_network()

    def network(self):
        return self.solver._policy_network

    def probabilities(self, obs, mask):
        import torch

        out = []
        with torch.no_grad():  # the network ends in a softmax over all actions: renormalised over the legal ones
            for lo in range(0, len(obs), NETWORK_CHUNK):
                x = torch.from_numpy(np.asarray(obs[lo:lo + NETWORK_CHUNK], np.float32))
                legal = np.asarray(mask[lo:lo + NETWORK_CHUNK], bool)
                out.append(_legal_share(self.network()(x).double().numpy(), legal))
        return np.concatenate(out)

    def action_probabilities(self, state):
        p = self.solver.action_probabilities(state)
        legal = sorted(p)
        share = _legal_share(np.array([[p[a] for a in legal]], np.float64), np.ones((1, len(legal)), bool))[0]
        return dict(zip(legal, share.tolist()))


def _legal_share(p: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Probabilities over all actions restricted to the legal ones and renormalised (uniform over the
    legal ones where the network gives them no probability at all)."""
    p = p * mask
    total = p.sum(1, keepdims=True)
    return np.where(total > 0, p / np.where(total > 0, total, 1.0), mask / mask.sum(1, keepdims=True))


class EscherLearner(Learner):
    def __init__(self, game, seed: int, overrides=None):
        import torch
        from open_spiel.python.pytorch import escher

        super().__init__(game)
        np.random.seed(seed)
        torch.manual_seed(seed)
        self.cfg = escher.Config()
        for name, value in (overrides or {}).items():
            setattr(self.cfg, name, value)
        self.agent = escher.Agent(game, self.cfg)
        self.train_cfg = escher.TrainConfig(game)
        self.escher = escher
        self.settings = {k: v for k, v in vars(self.cfg).items() if isinstance(v, (int, float, list))}

    def iterate(self):
        self.escher._train_regret(self.train_cfg, self.agent)
        self.agent.t += 1
        return 0

    def prepare(self):
        self.escher._train_avg_policy(self.agent)

    def network(self):
        return self.agent.avg_policy_net

    def action_probabilities(self, state):
        p = self.agent.action_probabilities(state)
        return {a: float(p[a]) for a in state.legal_actions()}


LEARNERS = {"nfsp": NFSPLearner, "deep_cfr": DeepCFRLearner, "escher": EscherLearner}


def run(algorithm: str, dice, faces: int, wild: str, minutes: float, eval_minutes: float, seed: int,
        cfr_target: float = 1e-4, iterations: int = 0, log=None, overrides=None, steps: int = 0,
        eval_steps: int = 0) -> dict:
    """Train ``algorithm`` for ``minutes`` (or ``iterations`` units, or ``steps`` agent steps, if given)
    and score it every ``eval_minutes`` (or ``eval_steps``) and at the end; the report.  ``overrides``
    changes the algorithm's settings (keyword arguments of its OpenSpiel class)."""
    import torch

    from dice_envs.agents.liars_dice.training import ExactScorer

    torch.set_num_threads(1)
    np.random.seed(seed)
    torch.manual_seed(seed)
    game, ours = load_game(dice, faces, wild)
    scorer = ExactScorer(ours, cfr_target)
    learner = LEARNERS[algorithm](game, seed, overrides)
    history, trained, done, fit_seconds, played = [], 0.0, 0, 0.0, 0

    def evaluate():
        nonlocal fit_seconds
        began = time.time()
        learner.prepare()
        fit_seconds = time.time() - began
        scores = scorer.scores_policy(learner.probabilities)  # (a batch of public nodes at a time)
        scores.update(minutes=trained / 60, steps=played, **{learner.unit: done})
        history.append(scores)
        if log:
            log(f"{algorithm}: {done} {learner.unit}, {trained / 60:.1f} min, exploitability "
                f"{scores['exploitability']:.4f}")

    def finished() -> bool:
        return played >= steps if steps else done >= iterations if iterations else trained >= minutes * 60

    def progress() -> float:  # where the evaluations are placed: agent steps, else seconds of training
        return played if eval_steps else trained

    every = eval_steps or eval_minutes * 60
    next_eval = every
    while not finished():
        began = time.time()
        played += learner.iterate()
        trained += time.time() - began
        done += 1
        if not iterations and progress() >= next_eval and not finished():
            evaluate()
            next_eval += every
    evaluate()
    final = history[-1]
    return jsonable({
        "algorithm": algorithm, "implementation": f"open_spiel.python.pytorch ({algorithm})",
        "game": ours.config(), "exploitability": final["exploitability"],
        "best_exploitability": min(h["exploitability"] for h in history),
        "value_vs_equilibrium": final["value_vs_equilibrium"], learner.unit: done, "steps": played,
        "minutes": trained / 60,
        "final_fit_seconds": fit_seconds, "seed": seed, "settings": learner.settings,
        "curve": [{k: h[k] for k in ("minutes", learner.unit, "steps", "exploitability", "value_vs_equilibrium")}
                  for h in history]})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algorithm", choices=ALGORITHMS, required=True,
                        help="the OpenSpiel learner to run: nfsp, deep_cfr or escher (required)")
    parser.add_argument("--game", help="a named game (LD2D5F, ...: dice_envs.games.liars_dice.named), in place of "
                                       "--dice, --faces and --wild")
    parser.add_argument("--dice", type=int, nargs="+", default=None, help="dice per player: one count or two (1)")
    parser.add_argument("--faces", type=int, default=None, help="sides of each die (6)")
    parser.add_argument("--wild", choices=("none", "highest", "aces"), default=None,
                        help="the wild face: highest (the highest face, OpenSpiel's liars_dice), aces (face 1) or "
                             "none (highest)")
    parser.add_argument("--minutes", type=float, default=30.0, help="training budget (evaluations not counted)")
    parser.add_argument("--eval-minutes", type=float, default=5.0, help="minutes of training between evaluations")
    parser.add_argument("--steps", type=int, default=0,
                        help="nfsp: a budget of agent steps instead of --minutes (IIG-RL-Benchmark's: 10000000)")
    parser.add_argument("--eval-steps", type=int, default=0,
                        help="nfsp: agent steps between evaluations instead of --eval-minutes (1000000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--out", help="also write the report (JSON) here")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.eval_minutes <= 0:
        parser.error("--minutes and --eval-minutes must be positive")
    if args.steps < 0 or args.eval_steps < 0:
        parser.error("--steps and --eval-steps must not be negative")
    if (args.steps or args.eval_steps) and args.algorithm != "nfsp":
        parser.error(f"--steps and --eval-steps count agent steps of sampled play: for nfsp, not {args.algorithm}, "
                     f"which walks the game tree")
    if args.dice is not None and len(args.dice) not in (1, 2):
        parser.error("--dice takes one count or two")
    from dice_envs.games.liars_dice.named import rules_arguments

    given = {"dice_per_player": None if args.dice is None else args.dice[0] if len(args.dice) == 1
             else tuple(args.dice), "faces": args.faces, "wild": args.wild}
    try:
        rules = rules_arguments(args.game, **given)
    except ValueError as err:
        parser.error(str(err))
    if args.game is None and args.wild is None:
        rules["wild"] = "highest"  # (this script's default: OpenSpiel's rule)
    dice = rules["dice_per_player"]
    dice = (dice, dice) if isinstance(dice, int) else tuple(dice)
    report = run(args.algorithm, dice, rules["faces"], rules["wild"], args.minutes, args.eval_minutes, args.seed,
                 log=lambda text: print(text, file=sys.stderr, flush=True), steps=args.steps,
                 eval_steps=args.eval_steps)
    text = json.dumps(report)
    if args.out:
        Path(args.out).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
