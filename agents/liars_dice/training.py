"""What the Liar's Dice trainers share: the files of a run and their checks, the loop of a run,
and the exact scoring of a network's policy.  The trainers :mod:`dice_envs.agents.liars_dice.full_width`
(full-width optimistic MMD), :mod:`dice_envs.agents.liars_dice.play_training` (sampled self-play:
PPO, MMD with sampled returns, MCCFR, ESCHER; its learners are
:mod:`dice_envs.agents.liars_dice.play`) and :mod:`dice_envs.agents.liars_dice.belief_learner`
(the public-belief-state learner) use it, so that their runs train, evaluate, resume, refuse
damaged files and score in one way.

They keep a run in one directory (``--run-dir``) with the same files and the same rules:

* ``checkpoint.pt``: the whole state of the run in one ``torch.save`` file of tensors and
  plain containers, read back with ``torch.load(weights_only=True)`` (a crafted pickle is
  refused, never run): ``format``; the state dicts the script names (networks,
  optimisers); and ``state``, a JSON text with ``steps``, ``elapsed`` (seconds),
  ``history`` (the exact evaluations), ``args`` (the options), ``rng`` (the random
  generators' states) and, once the run is finished, ``report``.  The scripts write it
  through :func:`dice_envs.agents.learn.runs.atomic_file` (``checkpoint.tmp.pt`` renamed over
  the old one), so a kill leaves the old checkpoint or the new one, whole.
  :func:`read_checkpoint` validates it and :func:`load_state_dicts` puts its tensors in
  place; a damaged or foreign file is refused with a ``ValueError`` naming the file and
  ``remove <dir> to start over``, an option that differs from the checkpoint's with one
  naming the option (:func:`dice_envs.agents.learn.runs.check_resume_args`);
* ``model.pt``: the final policy (a network, or a table for ``--method mccfr``) in the
  format :func:`dice_envs.agents.liars_dice.learned.load_model` reads
  (``dice-envs evaluate liars-dice``); a ``model.pt`` without a ``checkpoint.pt`` is
  refused rather than overwritten (:func:`open_run`);
* ``tb/`` (TensorBoard), ``curve.json`` (the report) and ``exploitability.png``.

:class:`ExactScorer` evaluates a network's policy exactly over every information state:
exploitability and the value against the CFR+ equilibrium from both seats
(:func:`dice_envs.agents.liars_dice.learned.exact_scores`); :class:`StreamedScorer` streams
the exploitability where the public tree does not fit in memory.
:class:`TrainingLoop` is the run itself: the updates, the evaluations, the checkpoints and the
stop; :class:`SignalStop` turns Ctrl-C and SIGTERM into a flag it checks between updates.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import signal
import sys
import time
import zipfile
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from dice_envs.agents.learn.runs import (
    atomic_file,
    atomic_write_text,
    budget_spent,
    check_fields,
    check_resume_args,
    damaged,
    jsonable,
    log,
    note_signal,
    random_states,
    restore_random_states,
    save_torch,
)

#: the fields of one exact evaluation in a checkpoint's history
#: (the values against the equilibrium are None where the game is scored streamed, :class:`StreamedScorer`)
HISTORY_FIELDS = {"steps": int, "minutes": float, "exploitability": float, "value_vs_equilibrium": (float, None),
                  "value_vs_equilibrium_as_first": (float, None), "value_vs_equilibrium_as_second": (float, None)}
#: files a kill while writing may leave behind (removed when a run starts or resumes)
TEMPORARY = ("checkpoint.tmp.pt", "model.tmp.pt", "curve.tmp.json", "exploitability.tmp.png")


def read_checkpoint(path: Path, run: Path, args, fmt: int, changeable, tensors, upgrade=None) -> tuple:
    """``checkpoint.pt`` read with ``torch.load(weights_only=True)`` (the sizes its zip declares
    checked first, :func:`dice_envs.core.resources.check_archive`) and validated: format
    ``fmt``, the state dicts named in ``tensors`` present, a JSON state with an increasing
    history (empty only before a run's first evaluation, never in a finished run), and the
    options equal to ``args`` except ``changeable`` (after ``upgrade(options)``, which renames an
    older version's).
    Returns ``(blob, state)``; ``ValueError`` naming the file, or the option that differs."""
    import torch

    from dice_envs.core.resources import ResourceLimitError, check_archive

    try:
        if zipfile.is_zipfile(path):  # torch's format: its declared sizes, before torch inflates it
            check_archive(f"{path}", path)
    except ResourceLimitError:
        raise
    except ValueError as err:
        raise damaged(path, str(err), run) from None
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # not a torch file, truncated, or a pickle of anything but tensors and containers
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        reason = next((line for line in lines if "GLOBAL" in line or "Unsupported" in line), lines[0] if lines else "")
        raise damaged(path, f"torch cannot read it as tensors and plain data: {type(err).__name__}: "
                            f"{reason[:200]}", run) from None
    if isinstance(blob, dict) and "net" in blob and "format" not in blob:
        raise ValueError(f"checkpoint {path} was written by an older version of this script (without the random "
                         f"states and the curve in it); remove {run} to start over, or give another --run-dir")
    try:
        check_fields(blob, "checkpoint.pt", format=int, state=str)
        if blob["format"] != fmt:
            raise ValueError(f"format {blob['format']}, this script reads format {fmt}")
        try:
            state = json.loads(blob["state"])
        except ValueError as err:
            raise ValueError(f"its state is not JSON: {err}") from None
        check_fields(state, "its state", steps=int, elapsed=float, history=list, args=dict, rng=dict)
        if state["elapsed"] < 0:
            raise ValueError(f"'elapsed' is negative: {state['elapsed']}")
        if not state["history"] and "report" in state:  # a finished run was evaluated at its end
            raise ValueError("the history is empty")
        previous = -1
        for entry in state["history"]:
            check_fields(entry, "a history entry", **HISTORY_FIELDS)
            if entry["steps"] <= previous:
                raise ValueError("the history's steps do not increase")
            previous = entry["steps"]
        if previous > state["steps"]:
            raise ValueError(f"the history goes to {previous} steps, the checkpoint is at {state['steps']}")
        if "report" in state:
            check_fields(state["report"], "its report", steps=int)
            if state["report"]["steps"] != state["steps"]:
                raise ValueError("the stored report is not for the checkpoint's steps")
    except ValueError as err:
        raise damaged(path, str(err), run) from None
    check_resume_args(state["args"] if upgrade is None else upgrade(state["args"]), args, changeable, path)
    try:
        check_fields(blob, "checkpoint.pt", **dict.fromkeys(tensors, dict))
    except ValueError as err:
        raise damaged(path, str(err), run) from None
    return blob, state


def non_finite_tensor(state, where: str) -> Optional[str]:
    """The name (``where`` and the keys down to it) of the first floating-point tensor in the
    nested dicts and lists ``state`` (a state dict: a network's, an optimiser's, a learner's)
    that holds NaN or an infinity, or None."""
    import torch

    if isinstance(state, torch.Tensor):
        return where if state.is_floating_point() and not bool(torch.isfinite(state).all()) else None
    if isinstance(state, float):  # an optimiser's settings (its learning rate...)
        return None if math.isfinite(state) else where
    items = state.items() if isinstance(state, dict) else enumerate(state) if isinstance(state, (list, tuple)) else ()
    for key, value in items:
        found = non_finite_tensor(value, f"{where}[{key!r}]")
        if found is not None:
            return found
    return None


def load_state_dicts(blob: dict, path: Path, run: Path, **targets) -> None:
    """Load ``blob[name]`` into each module, optimiser or learner ``targets[name]``; every
    floating-point number of it (weights, optimiser moments, reservoirs) must be finite.
    ``ValueError`` naming the file otherwise."""
    try:
        for name in targets:
            bad = non_finite_tensor(blob[name], name)
            if bad is not None:
                raise ValueError(f"non-finite numbers in {bad}")
        for name, target in targets.items():
            target.load_state_dict(blob[name])
    except Exception as err:  # wrong shapes or names, a foreign optimiser state
        raise damaged(path, f"not this run's networks or tables: {type(err).__name__}: {str(err)[:200]}",
                      run) from None


def open_run(args, fmt: int, changeable, tensors, upgrade=None) -> tuple:
    """Check ``args.run_dir`` before a run starts or resumes.  Returns ``(blob, state,
    report)``: the validated checkpoint (``None, None`` for a new run) and, for a run whose
    budget is spent and whose report and model are written, that report (rerunning a
    finished run prints it and trains no more).  Refuses (``ValueError``) a ``state.json``
    (the older two-file checkpoint) and a ``model.pt`` without a ``checkpoint.pt``."""
    run = Path(args.run_dir)
    ckpt_path = run / "checkpoint.pt"
    if (run / "state.json").exists():
        raise ValueError(f"{run} holds a state.json: a checkpoint of an older version of this script "
                         f"(checkpoint.pt + state.json), which cannot be resumed exactly; remove {run} to start "
                         f"over, or give another --run-dir")
    if ckpt_path.exists():
        blob, state = read_checkpoint(ckpt_path, run, args, fmt, changeable, tensors, upgrade)
        if budget_spent(args, state["steps"], state["elapsed"]) and "report" in state and (run / "model.pt").is_file():
            log(args, f"{run} is finished ({state['steps']} steps): its report (a larger --steps or --minutes "
                      f"trains on)")
            return blob, state, state["report"]
        return blob, state, None
    if (run / "model.pt").exists():
        raise ValueError(f"{run} has a model.pt but no checkpoint.pt; remove {run} to start over, "
                         f"or give another --run-dir")
    return None, None, None


def start_run_dir(run: Path) -> None:
    """Create the run directory and remove the temporary files a kill may have left."""
    run.mkdir(parents=True, exist_ok=True)
    for name in TEMPORARY:
        (run / name).unlink(missing_ok=True)


def checkpoint_blob(fmt: int, state: dict, **state_dicts) -> dict:
    """What ``checkpoint.pt`` holds: the format, the JSON state and the state dicts."""
    return {"format": fmt, "state": json.dumps(jsonable(state)), **state_dicts}


class ExactScorer:
    """Exact scores of a network's policy for one game: the public tree and the CFR+ reference
    (solved to ``cfr_target``, from the solver's disk cache).  A network is asked a batch of public
    nodes at a time (:func:`~dice_envs.agents.liars_dice.learned.tree_policy_in_batches`); the
    table of every information state as network rows (:attr:`states`), which the tabular learners
    index, is built only when asked for."""

    def __init__(self, game, cfr_target: float):
        from dice_envs.agents.liars_dice.learned import equilibrium
        from dice_envs.agents.liars_dice.solver import PublicTree, exploitability

        self.game = game
        self.tree = PublicTree(game)
        self.eq = equilibrium(game, cfr_target)
        self.cfr_exploitability = exploitability(self.tree, self.eq.policy)

    @functools.cached_property
    def states(self):
        """Every information state as network rows
        (:class:`~dice_envs.agents.liars_dice.learned.InfoStates`), built on first use."""
        from dice_envs.agents.liars_dice.learned import InfoStates

        return InfoStates(self.tree)

    def scores(self, net, beliefs: bool = False) -> dict:
        """Exploitability, NashConv, self-play value and value against the CFR+ equilibrium
        (mean and per seat) of ``net``'s policy (plain Python numbers); with ``beliefs``, of a network
        that takes both players' ranges (:class:`~dice_envs.agents.liars_dice.learned.LearnedLiarsDicePolicy`)."""
        from dice_envs.agents.liars_dice.learned import LearnedLiarsDicePolicy

        net.eval()
        return self.scores_policy(LearnedLiarsDicePolicy(self.game, net, beliefs).probabilities)

    def scores_table(self, probs: np.ndarray) -> dict:
        """:meth:`scores` of a policy given as a table, ``(information states, actions)``
        in :class:`~dice_envs.agents.liars_dice.learned.InfoStates` order."""
        from dice_envs.agents.liars_dice.learned import exact_scores

        return jsonable(exact_scores(self.tree, self.states.to_tree_policy(probs), self.eq.policy))

    def scores_policy(self, policy) -> dict:
        """:meth:`scores` of ``policy``, a function ``(observations, masks) -> probabilities`` (an agent over
        observations), asked a batch of public nodes at a time."""
        from dice_envs.agents.liars_dice.learned import exact_scores, tree_policy_in_batches

        return jsonable(exact_scores(self.tree, tree_policy_in_batches(self.tree, policy), self.eq.policy))

    def policy_exploitability(self, policy) -> float:
        """The exploitability of ``policy``, a function ``(observations, masks) -> probabilities``
        (ESCHER's :meth:`~dice_envs.agents.liars_dice.escher.Escher.current_policy`)."""
        return self.scores_policy(policy)["exploitability"]

    def reference(self) -> dict:
        """The CFR+ reference's fields of a report."""
        return {"cfr_plus_exploitability": self.cfr_exploitability,
                "cfr_plus_value_first_player": self.eq.value_first_player}


class StreamedScorer:
    """Exact scores of a network's policy for a game whose public tree does not fit in memory (two
    dice each): the exploitability streamed over the tree in blocks
    (:func:`dice_envs.agents.liars_dice.streamed.streamed_evaluate`).  No equilibrium is compared
    with: the values against it are None."""

    cfr_exploitability = None

    def __init__(self, game):
        self.game = game

    def scores(self, net, beliefs: bool = False) -> dict:
        """Exploitability, NashConv, self-play value and the values against a best response (``beliefs``:
        as :meth:`ExactScorer.scores`)."""
        from dice_envs.agents.liars_dice.learned import LearnedLiarsDicePolicy

        return self.scores_policy(LearnedLiarsDicePolicy(self.game, net, beliefs).probabilities)

    def scores_policy(self, policy) -> dict:
        """:meth:`scores` of ``policy``, a function ``(observations, masks) -> probabilities`` (an agent over
        observations)."""
        from dice_envs.agents.liars_dice.learned import evaluation_scores
        from dice_envs.agents.liars_dice.streamed import streamed_evaluate

        ev = streamed_evaluate(self.game, policy)
        return jsonable({**evaluation_scores(ev), "value_vs_equilibrium": None, "value_vs_equilibrium_as_first": None,
                         "value_vs_equilibrium_as_second": None})

    def check_time(self, net, beliefs: bool = False) -> None:
        """Check the time of the scoring a run ends with before its training, not after it: the
        streamed evaluation of ``net`` is run to its first block's estimate (a network's weights do not
        change how long its answers take) and stopped there; a long one is announced (a
        :class:`~dice_envs.core.resources.LongRunWarning`) and one over the time limit refused (a
        :class:`~dice_envs.core.resources.ResourceLimitError` naming the limit), as :meth:`scores`
        would after the training."""
        from dice_envs.agents.liars_dice.learned import LearnedLiarsDicePolicy
        from dice_envs.agents.liars_dice.streamed import streamed_evaluate
        from dice_envs.core.resources import ResourceLimitError

        class Estimated(Exception):
            pass

        def stop_once_estimated(done: int, blocks: int) -> None:
            if done == 2:  # the estimate is checked after the first block
                raise Estimated

        try:
            streamed_evaluate(self.game, LearnedLiarsDicePolicy(self.game, net, beliefs).probabilities,
                              progress=stop_once_estimated)
        except Estimated:
            pass
        except ResourceLimitError as refused:
            raise ResourceLimitError(f"the run would end with a scoring over the time limit, so it is refused "
                                     f"before training: {refused}") from None

    def policy_exploitability(self, policy) -> float:
        """The exploitability of ``policy``, a function ``(observations, masks) -> probabilities``,
        streamed (ESCHER's current policy: regret matching on its regret network)."""
        from dice_envs.agents.liars_dice.streamed import streamed_evaluate

        return float(streamed_evaluate(self.game, policy).exploitability)

    def reference(self) -> dict:
        return {"cfr_plus_exploitability": None, "cfr_plus_value_first_player": None}


def make_scorer(game, cfr_target: float):
    """:class:`ExactScorer` where the public tree fits in memory, else :class:`StreamedScorer`."""
    from dice_envs.agents.liars_dice.streamed import fits_in_memory

    return ExactScorer(game, cfr_target) if fits_in_memory(game) else StreamedScorer(game)


class SignalStop:
    """While active (a ``with`` block), Ctrl-C and SIGTERM set :attr:`flag` instead of
    raising, so a training loop can finish its update and save a checkpoint; the signal is noted
    (:func:`dice_envs.agents.learn.runs.note_signal`), so that a SIGTERM reaches what runs the
    trainer once the run has saved."""

    def __init__(self):
        self.flag = False

    def _handle(self, signum, frame):
        self.flag = True
        note_signal(signum)  # a SIGTERM is passed on once the run has saved (run_script)

    def __enter__(self):
        self._old = {s: signal.signal(s, self._handle) for s in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc):
        for s, handler in self._old.items():
            signal.signal(s, handler)
        return False


def curve(history: list) -> list:
    """The report's curve: steps, minutes, exploitability, value against CFR+ (and the
    current iterate's exploitability where the history has it)."""
    return [{"steps": h["steps"], "minutes": round(h["minutes"], 3), "exploitability": h["exploitability"],
             "value_vs_equilibrium": h["value_vs_equilibrium"],
             **({"current_exploitability": h["current_exploitability"]} if "current_exploitability" in h else {})}
            for h in history]


def final_and_best(history: list) -> tuple:
    """The last evaluation of a run's curve and its best (lowest exploitability); for a run with no
    evaluation yet (a streamed run interrupted before its first scoring) both are the same entry of
    ``None`` values, which its report then says."""
    if not history:
        unscored = dict.fromkeys(("steps", "exploitability", "value_vs_equilibrium", "value_vs_equilibrium_as_first",
                                  "value_vs_equilibrium_as_second"))
        return unscored, unscored
    return history[-1], min(history, key=lambda h: h["exploitability"])


def run_report(game, args, history: list, final: dict, scorer, *, steps: int, start_steps: int, elapsed: float,
               run_seconds: float, interrupted: bool, resumed: bool, model_path, describe: dict, counts: dict) -> dict:
    """The final report of a Liar's Dice training run (the last line of its output and ``curve.json``),
    the same for every trainer: ``game``, then ``describe`` (the method, what is scored and its
    exploitability), the values against the equilibrium of ``final`` (the last evaluation), the
    scorer's references, the steps (and ``counts``, the trainer's other counters), the run's time
    and speed, whether it was interrupted or resumed, the model's path, the curve of ``history`` and
    the options; JSON-ready."""
    return jsonable({
        "game": game.config(),
        **describe,
        **{key: final[key] for key in ("value_vs_equilibrium", "value_vs_equilibrium_as_first",
                                       "value_vs_equilibrium_as_second")},
        **scorer.reference(),
        "steps": steps,
        **counts,
        "evaluated_at": final["steps"],
        "minutes": elapsed / 60,
        "steps_per_second": (steps - start_steps) / run_seconds if run_seconds > 0 else 0.0,
        "interrupted": interrupted,
        "resumed": resumed,
        "model": None if interrupted else str(model_path),
        "curve": curve(history),
        "args": dataclasses.asdict(args),
    })


#: seconds of training after which :class:`TrainingLoop` writes a checkpoint even without an evaluation
CHECKPOINT_SECONDS = 600.0


class TrainingLoop:
    """The loop of a Liar's Dice training run, the same for every trainer: updates until the budget
    (``minutes``, ``steps``) is spent or Ctrl-C / SIGTERM asks to stop, an exact evaluation every
    ``eval_every`` updates and at the end, and the checkpoint.  The trainer passes in what is its own:
    one update, the scoring of its policy, the state dicts to save and the words of its log lines.

    The rules it keeps:

    * an evaluation logs a line (``position``, the exploitability, the value against the CFR+
      equilibrium where there is one, ``note``), goes to TensorBoard (``exact/``), is added to
      :attr:`history` and is followed by a checkpoint;
    * the first evaluation is at update 0, or where the scoring is ``streamed`` (minutes at two dice
      each) at the first multiple of ``eval_every``; a streamed scoring is preceded by a checkpoint of
      the trained state (killed during the scoring, the run resumes there and owes only that scoring:
      a resume at a multiple of ``eval_every`` without its evaluation runs it first), and its time is
      not counted in the budget;
    * a checkpoint is also written after :data:`CHECKPOINT_SECONDS` without one;
    * an update whose numbers or networks stop being finite stops the run with a ``ValueError`` that
      names the update and the checkpoint kept;
    * Ctrl-C or SIGTERM (:class:`SignalStop`) finish the update in progress and save the checkpoint,
      not evaluated (the curve stays an uninterrupted run's); a run that ends otherwise ends with an
      evaluation at its last update, or, if it has one (a finished run rerun), with ``rerun``.

    Args:
        args: the run's options (``run_dir``, ``minutes``, ``steps``, ``eval_every``, ``quiet``; all of
            them are saved in the checkpoint).
        fmt: the checkpoint format written.
        state: the checkpoint's JSON state to resume from (:func:`open_run`), or None for a new run;
            its counters, curve and random states (of Python, numpy, torch and ``generators``) are
            taken from it.
        update: one update; returns the agent steps it added and the numbers it logs to TensorBoard
            (``train/``), its losses, which must be finite.  It may read :attr:`steps`,
            :attr:`updates` and :attr:`elapsed` (those before it).
        score: the exact scores of the policy the trainer scores (:meth:`ExactScorer.scores`), without
            the run's counters.
        tensors: the state dicts (and tensors) the checkpoint holds with its state.
        networks: the modules checked for finite weights after every update.
        generators: the numpy generators whose states the checkpoint holds (by name).
        more_state: the trainer's own fields of the checkpoint's state.
        streamed: the scoring is streamed (:class:`StreamedScorer`).
        steps_are_updates: the trainer's steps are its updates (the full-width trainer): the state
            and the evaluations hold no count of updates.
        unit: what an update is called in the messages (``"update"``, ``"iteration"``).
        counts: the resume line's counters, a format of ``steps`` and ``updates``.
        position: an evaluation line's start, a format of ``steps`` and ``updates``.
        note: the end of an evaluation's line, given its scores.
        log_every: updates between the ``train/`` numbers in TensorBoard.
        suspect: what the divergence error suspects of being too large (``"a rate"``, or the option
            and its value).
        rerun: what a run that ends with its last evaluation already made (a finished run rerun)
            still does, TensorBoard open (ESCHER's current policy scored on request).
    """

    def __init__(self, args, fmt: int, state: Optional[dict], *, update: Callable[[], Tuple[int, Dict[str, float]]],
                 score: Callable[[], dict], tensors: Callable[[], dict], networks: Sequence = (),
                 generators: Optional[Dict[str, np.random.Generator]] = None,
                 more_state: Optional[Callable[[], dict]] = None, streamed: bool = False,
                 steps_are_updates: bool = False, unit: str = "update",
                 counts: str = "{steps} agent steps, {updates} updates",
                 position: str = "steps {steps:10d}  updates {updates:6d}",
                 note: Optional[Callable[[dict], str]] = None, log_every: int = 1, suspect: str = "a rate",
                 rerun: Optional[Callable[[], None]] = None):
        self.args, self.fmt = args, fmt
        self.run_dir = Path(args.run_dir)
        self.checkpoint = self.run_dir / "checkpoint.pt"
        self._update, self._score, self._tensors, self._networks = update, score, tensors, tuple(networks)
        self._generators, self._more_state = generators or {}, more_state
        self.streamed, self.steps_are_updates, self.unit = streamed, steps_are_updates, unit
        self._counts, self._position, self._note = counts, position, note
        self.log_every, self._suspect, self._rerun = log_every, suspect, rerun
        #: agent steps, updates, seconds of training (total over resumes) and the exact evaluations
        self.steps, self.updates, self.elapsed, self.history = 0, 0, 0.0, []
        self.resumed, self.interrupted = state is not None, False
        self.writer: Any = None  # TensorBoard's, while the loop runs
        if state is not None:
            try:
                if not steps_are_updates:
                    check_fields(state, "its state", updates=int)
                restore_random_states(state["rng"], self._generators)
            except ValueError as err:
                raise damaged(self.checkpoint, str(err), self.run_dir) from None
            self.steps, self.elapsed, self.history = state["steps"], state["elapsed"], state["history"]
            self.updates = self.steps if steps_are_updates else state["updates"]
        #: the update of the last checkpoint written
        self.saved_updates, self._saved_at = self.updates, time.time()
        self.start_steps, self._clock, self._t0 = self.steps, 0.0, 0.0  # (set when the loop runs)

    def where(self) -> str:
        """The start of a log line at the run's current update (``position``)."""
        return self._position.format(steps=self.steps, updates=self.updates)

    def save(self, report: Optional[dict] = None) -> None:
        """The whole checkpoint (with ``report``, once the run is finished), one file, replaced atomically."""
        state = {"steps": self.steps, **({} if self.steps_are_updates else {"updates": self.updates}),
                 "elapsed": self.elapsed, "history": self.history, "args": dataclasses.asdict(self.args),
                 "rng": random_states(self._generators), **(self._more_state() if self._more_state else {})}
        if report is not None:
            state["report"] = report
        with atomic_file(self.checkpoint) as tmp:
            save_torch(checkpoint_blob(self.fmt, state, **self._tensors()), tmp)
        self.saved_updates, self._saved_at = self.updates, time.time()

    def unevaluated(self) -> bool:
        """No evaluation is on the curve at the current step yet."""
        return not self.history or self.history[-1]["steps"] != self.steps

    def evaluate(self) -> None:
        """Score the policy, add it to the curve, log it and save the checkpoint."""
        if self.streamed and self.saved_updates != self.updates:
            self.save()  # the trained state first: a kill during the scoring (minutes) resumes here and owes only it
        began = time.time()
        scores = self._score()
        if self.streamed:  # a streamed scoring (minutes) is not counted in the budget
            self._clock += time.time() - began
        scores.update(steps=self.steps, **({} if self.steps_are_updates else {"updates": self.updates}),
                      minutes=self.elapsed / 60)
        self.history.append(scores)
        scalars(self.writer, "exact", {k: scores[k] for k in ("exploitability", "value_vs_equilibrium",
                                                               "current_exploitability") if k in scores}, self.steps)
        self.writer.flush()
        versus = scores["value_vs_equilibrium"]
        log(self.args, f"{self.where()}  {self.elapsed / 60:6.2f} min  exploitability {scores['exploitability']:.5f}"
                       + ("" if versus is None else f"  vs CFR+ {versus:+.5f}")
                       + (self._note(scores) if self._note else ""))
        self.save()

    def run(self) -> bool:
        """Train to the end of the budget or a stop; returns whether the run was interrupted (then its
        checkpoint is saved and a line on stderr says so, even with ``quiet``)."""
        import torch
        from torch.utils.tensorboard import SummaryWriter

        args = self.args
        if self.resumed:
            log(args, f"resumed from {self.run_dir}: " + self._counts.format(steps=self.steps, updates=self.updates)
                      + f", {self.elapsed / 60:.1f} min")
        self.writer = SummaryWriter(str(self.run_dir / "tb"))
        self.saved_updates, self._saved_at = self.updates, time.time()
        self._clock = time.time() - self.elapsed
        self.start_steps = self.steps
        self._t0 = time.time()
        with SignalStop() as stop:
            try:
                owed = self.updates % args.eval_every == 0 and self.unevaluated()
                if owed and (self.updates or not self.streamed):  # the first (streamed: at --eval-every), or one owed
                    self.evaluate()
                while not stop.flag and not budget_spent(args, self.steps, self.elapsed):
                    added, losses = self._update()
                    if not all(np.isfinite(v) for v in losses.values()) or not all(
                            bool(torch.isfinite(p).all()) for m in self._networks for p in m.parameters()):
                        raise ValueError(f"training diverged at {self.unit} {self.updates + 1}: losses {losses} "
                                         f"({self._suspect} too large?); the checkpoint at {self.unit} "
                                         f"{self.saved_updates} is kept; try smaller rates with another --run-dir")
                    self.steps += added
                    self.updates += 1
                    self.elapsed = time.time() - self._clock
                    if self.updates % self.log_every == 0:
                        scalars(self.writer, "train", losses, self.steps)
                    if self.updates % args.eval_every == 0:
                        self.evaluate()
                    elif time.time() - self._saved_at >= CHECKPOINT_SECONDS:
                        self.save()  # not evaluated: a kill between rare (streamed) scorings loses minutes, not the run
                self.interrupted = stop.flag and not budget_spent(args, self.steps, self.elapsed)
                if self.interrupted:
                    self.save()  # the exact state at this update, not evaluated: the curve stays an uninterrupted run's
                elif self.unevaluated():
                    self.evaluate()
                elif self._rerun is not None:
                    self._rerun()
            finally:
                self.writer.close()
        if self.interrupted:  # said even with --quiet
            print(f"interrupted: checkpoint saved at {self.unit} {self.updates}; rerun the same command to resume "
                  f"from it", file=sys.stderr)
        return self.interrupted

    def report(self, game, scorer, final: dict, model_path, describe: dict, counts: dict) -> dict:
        """The run's report (:func:`run_report`) with the loop's counters, time and speed."""
        return run_report(game, self.args, self.history, final, scorer, steps=self.steps, start_steps=self.start_steps,
                          elapsed=self.elapsed, run_seconds=time.time() - self._t0, interrupted=self.interrupted,
                          resumed=self.resumed, model_path=model_path, describe=describe, counts=counts)


def plot_curve(history: list, path: Path, title: str, reference: Optional[float], label: str, xlabel: str = "updates",
               target: float = 0.05, also: Optional[Dict[str, str]] = None) -> None:
    """The exploitability curve (log scale) with the CFR+ reference (where there is one) and the
    target, as a PNG written atomically; ``also`` maps more history fields to their labels (drawn where the
    history has them)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot([h["steps"] for h in history], [h["exploitability"] for h in history], "o-", ms=3, label=label)
    for key, text in (also or {}).items():
        points = [(h["steps"], h[key]) for h in history if key in h]
        if points:
            ax.plot(*zip(*points), ".-", ms=2, lw=0.8, alpha=0.6, label=text)
    if reference is not None:
        ax.axhline(reference, color="tab:red", ls="--", lw=1, label=f"CFR+ reference ({reference:.1e})")
    ax.axhline(target, color="tab:gray", ls=":", lw=1, label=f"target {target:g}")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("exploitability (NashConv / 2)")
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_file(path) as tmp:
        fig.savefig(tmp, dpi=120)
    plt.close(fig)


def save_model(path: Path, game, hidden: str, net, file=atomic_file, activation: str = "relu",
               beliefs: bool = False) -> None:
    """The policy network as :func:`~dice_envs.agents.liars_dice.learned.load_model` reads it:
    ``game`` (its config), ``hidden`` (the layer sizes of
    :func:`~dice_envs.agents.liars_dice.learned.build_network`), ``net`` (the state dict), where it
    is not ReLU ``activation``, and ``beliefs: True`` for a network that takes both players' ranges
    (:class:`~dice_envs.agents.liars_dice.learned.LearnedLiarsDicePolicy`); written atomically."""
    blob = {"game": game.config(), "hidden": hidden, "net": net.state_dict()}
    if activation != "relu":  # (the files of ReLU networks stay as earlier versions read them)
        blob["activation"] = activation
    if beliefs:
        blob["beliefs"] = True
    with file(path) as tmp:
        save_torch(blob, tmp)


def save_table_model(path: Path, game, table: np.ndarray, file=atomic_file) -> None:
    """A policy table as :func:`~dice_envs.agents.liars_dice.learned.load_model` reads it:
    ``game`` (its config) and ``table`` (``(information states, actions)`` probabilities,
    float64, in :class:`~dice_envs.agents.liars_dice.learned.InfoStates` order); written
    atomically."""
    import torch

    with file(path) as tmp:
        save_torch({"game": game.config(), "table": torch.from_numpy(np.asarray(table, np.float64))}, tmp)


def write_outputs(run: Path, result: dict, history: list, plot: bool, title: str, label: str,
                  xlabel: str, reference: Optional[float], target: Optional[float] = None,
                  also: Optional[Dict[str, str]] = None) -> None:
    """``curve.json`` (the report) and, with ``plot``, ``exploitability.png`` (see
    :func:`plot_curve`)."""
    atomic_write_text(run / "curve.json", json.dumps(result, indent=1))
    if plot:
        plot_curve(history, run / "exploitability.png", title, reference, label, xlabel,
                   **({} if target is None else {"target": target}), also=also)


def game_title(game) -> str:
    if game.dice == (1, 1) and game.wild_rule != "aces":  # the titles of the committed figures
        return f"Liar's Dice 1 die, {game.faces} faces" + (" (wild)" if game.wild else "")
    return "Liar's Dice, " + game.describe()


def scalars(writer, prefix: str, values: Dict[str, float], step: int) -> None:
    """Log finite numbers to TensorBoard under ``prefix/``."""
    for name, value in values.items():
        if value is not None and np.isfinite(value):
            writer.add_scalar(f"{prefix}/{name}", value, step)
