"""OpenSpiel's Liar's Dice agents, scored exactly: its policies, and networks over its tensors.

An agent trained with OpenSpiel, on OpenSpiel's own ``liars_dice`` or on this project's
``dice_envs_liars_dice`` (:mod:`dice_envs.openspiel`), is scored here as any Liar's Dice agent is
(:func:`dice_envs.agents.liars_dice.evaluation.score_round`): asked once at every information state,
and evaluated exactly on the public tree, in memory or streamed in blocks
(:func:`dice_envs.agents.liars_dice.streamed.streamed_evaluate`).  Three kinds of agent are read:

* an ``open_spiel.python.policy.Policy`` (a ``TabularPolicy``, or any policy whose
  ``action_probabilities(state, player_id)`` reads the acting player's information state): asked
  once per information state, at a state of its own game (:class:`SpielPolicyAgent`);
* a torch module (an actor: its outputs are logits, softmaxed over the legal actions) or a batched
  function ``fn(tensors, masks) -> probabilities`` over either game's information-state tensors
  (:class:`SpielTensorAgent`); a pair of them plays one seat each;
* a bare weights file (``torch.save(actor.state_dict())`` of a ``torch.nn.Sequential`` of linear
  layers), with its tensors' layout named (:func:`load_weights`).

:func:`exploitability` is the call for a training loop's evaluation hook: the exact value and both
best responses' values of a network, in one pass over the information states.

OpenSpiel's information-state tensor
------------------------------------
OpenSpiel's ``liars_dice(numdice=D, dice_sides=F)`` (two players) describes the information state of
the player to act in ``3 + 3 D F`` floats (33 for two dice of five faces):

| floats | count | meaning |
|---|---|---|
| ``0 .. 1`` | 2 | the player, one-hot |
| ``2 .. 1 + D F`` | ``D F`` | the player's dice, sorted ascending, each a one-hot of its face (``F`` floats a die: the ``k``-th smallest die at ``2 + k F``) |
| ``2 + D F ..`` | ``2 D F`` | one flag per bid made (bid ``(q - 1) F + (f - 1)`` for "at least ``q`` dice show ``f``", as this project numbers them) |
| last | 1 | the call ("Liar"), set only at the end |

Its game is this project's ``LiarsDiceGame(dice_per_player=D, faces=F, wild="highest")``: the same
bids and actions (the call is action ``2 D F``), the highest face wild.  This project's own tensor
(``dice_envs_liars_dice``'s, the observation of :mod:`dice_envs.liars_dice_v0`) holds the same
information: the player one-hot, the dice as counts per face, the bids and the call, and every
player's number of dice.  :func:`openspiel_tensors` turns the second into the first;
:func:`liars_dice_state` reads a pyspiel state of either game as a rules-core state.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Tuple

import numpy as np

from dice_envs.agents.evaluate.contract import check_probabilities
from dice_envs.agents.evaluate.observation_agents import Agent, greedy_choice, import_function
from dice_envs.agents.liars_dice.solver import Evaluation
from dice_envs.agents.liars_dice.streamed import streamed_evaluate
from dice_envs.core.validation import check_choice
from dice_envs.games.liars_dice.rules import LiarsDiceGame, LiarsDiceState

__all__ = ["LAYOUTS", "SpielPolicyAgent", "SpielTensorAgent", "exploitability", "liars_dice_game",
           "liars_dice_state", "load_weights", "openspiel_agent", "openspiel_tensor_size", "openspiel_tensors",
           "own_agent"]

#: The information-state tensors an agent may read: OpenSpiel's ``liars_dice``'s, or this project's
#: (``dice_envs_liars_dice``'s, the environments' observation).
LAYOUTS = ("openspiel", "dice-envs")

#: OpenSpiel's names of its Liar's Dice and of this project's.
_OPENSPIEL_NAME, _OUR_NAME = "liars_dice", "dice_envs_liars_dice"


# -- the games and their tensors -------------------------------------------------------------------


def liars_dice_game(spiel_game) -> LiarsDiceGame:
    """The rules-core game of a pyspiel game: OpenSpiel's ``liars_dice`` (two players, its default
    bidding rule) or this project's ``dice_envs_liars_dice``.

    Raises:
        ValueError: another game, or a ``liars_dice`` these rules do not play.
    """
    name = spiel_game.get_type().short_name
    if name == _OUR_NAME:
        return spiel_game.core
    if name != _OPENSPIEL_NAME:
        raise ValueError(f"the game must be OpenSpiel's {_OPENSPIEL_NAME} or {_OUR_NAME}, got {spiel_game}")
    params = spiel_game.get_parameters()
    if params.get("players", 2) != 2:
        raise ValueError(f"exact scores need two players; {spiel_game} has {params['players']}")
    if params.get("bidding_rule", "reset-face") != "reset-face":
        raise ValueError(f"{spiel_game}: only OpenSpiel's default bidding rule (reset-face) is this project's")
    return LiarsDiceGame(2, int(params["numdice"]), int(params["dice_sides"]), "highest")


def _check_openspiel_game(game: LiarsDiceGame) -> None:
    """``ValueError`` unless ``game`` is one of OpenSpiel's ``liars_dice`` games."""
    if (game.num_players != 2 or len(set(game.dice)) != 1 or game.wild_rule != "highest"
            or game.max_quantity != game.total_dice or game.starting_player != 0):
        raise ValueError(f"OpenSpiel's liars_dice is two players with the same dice each, the highest face wild and "
                         f"player 0 first; {game.describe()} ({game!r}) has no OpenSpiel tensor: score its agent "
                         f"over this project's tensors (input 'dice-envs')")


def openspiel_tensor_size(game: LiarsDiceGame) -> int:
    """The length of OpenSpiel's information-state tensor of ``game`` (``3 + 3 D F``)."""
    _check_openspiel_game(game)
    return game.num_players + game.dice[0] * game.faces + game.num_actions


def openspiel_tensors(game: LiarsDiceGame, observations: np.ndarray) -> np.ndarray:
    """OpenSpiel's information-state tensors (float32, ``(N, 3 + 3 D F)``) of the information
    states whose tensors in this project's layout are ``observations`` (``(N, d)``, as
    :meth:`~dice_envs.games.liars_dice.rules.LiarsDiceState.observation` gives them)."""
    size = openspiel_tensor_size(game)
    obs = np.asarray(observations)
    if obs.ndim != 2 or obs.shape[1] != game.observation_shape[0]:
        raise ValueError(f"observations must be (N, {game.observation_shape[0]}), got shape {obs.shape}")
    P, F, D = game.num_players, game.faces, game.dice[0]
    out = np.zeros((len(obs), size), np.float32)
    out[:, :P] = obs[:, :P]
    below = np.cumsum(np.rint(obs[:, P : P + F]).astype(np.int64), axis=1)  # dice at or below each face
    rows = np.arange(len(obs))
    for k in range(D):  # the k-th smallest die shows the first face with more than k dice at or below it
        out[rows, P + k * F + (below <= k).sum(axis=1)] = 1.0
    out[:, P + D * F :] = obs[:, P + F : game.prefix_size]  # the bids and the call
    return out


def liars_dice_state(spiel_state) -> LiarsDiceState:
    """The rules-core state of a pyspiel state of OpenSpiel's ``liars_dice`` (read from its history:
    each player's dice, dealt one die a chance node, player 0's first; then the bids and the call)
    or of ``dice_envs_liars_dice``."""
    game = spiel_state.get_game()
    if game.get_type().short_name == _OUR_NAME:
        return spiel_state.core
    core = liars_dice_game(game)
    history = spiel_state.history()
    deal = core.total_dice
    if len(history) < deal:
        return core.new_initial_state()
    n = core.dice[0]
    rolls = tuple(tuple(sorted(a + 1 for a in history[p * n : (p + 1) * n])) for p in range(core.num_players))
    state = core.new_initial_state().apply(rolls)
    for action in history[deal:]:
        state = state.apply(action)
    return state


def _decode(game: LiarsDiceGame, observations: np.ndarray):
    """Each row's acting player, roll (a sorted face tuple) and bids, from this project's tensors."""
    P, F = game.num_players, game.faces
    obs = np.asarray(observations)
    players = np.argmax(obs[:, :P], axis=1)
    counts = np.rint(obs[:, P : P + F]).astype(np.int64)
    bits = obs[:, P + F : P + F + game.num_bids] > 0.5
    for player, count, bid in zip(players, counts, bits):
        roll = tuple(f + 1 for f in range(F) for _ in range(count[f]))
        yield int(player), roll, tuple(int(b) for b in np.flatnonzero(bid))


# -- the agents ----------------------------------------------------------------------------------------


class SpielPolicyAgent(Agent):
    """An ``open_spiel.python.policy.Policy`` of OpenSpiel's ``liars_dice`` or of
    ``dice_envs_liars_dice``, as an agent over this project's tensors: at each information state it
    is asked ``action_probabilities(state, player)`` at a state of its own game where the player to
    act holds the roll and the bids were made (the other player's dice are a placeholder, its first
    roll: a policy must read only the acting player's information).  One pyspiel state is built per
    information state, so a large game is better scored through its network
    (:class:`SpielTensorAgent`)."""

    kind = "openspiel"

    def __init__(self, policy, name: Optional[str] = None):
        if not hasattr(policy, "action_probabilities") or not hasattr(policy, "game"):
            raise ValueError(f"{policy!r} is not an OpenSpiel policy (action_probabilities(state, player_id) and "
                             "game)")
        self.policy, self.spiel_game = policy, policy.game
        self.game = liars_dice_game(self.spiel_game)
        self.name = name or type(policy).__name__
        self.info = {"game": "liars_dice", **self.game.config()}
        self._dealt: Dict[Tuple[int, tuple], Any] = {}

    @property
    def observation_size(self) -> int:
        return int(self.game.observation_shape[0])

    def _state(self, player: int, roll: tuple, bids: tuple):
        """A pyspiel state where ``player`` holds ``roll`` after ``bids``."""
        key = (player, roll)
        if key not in self._dealt:
            game = self.game
            rolls = [game.roll_distribution(p)[0][0] for p in range(game.num_players)]
            rolls[player] = roll
            state = self.spiel_game.new_initial_state()
            for p, held in enumerate(rolls):
                if self.spiel_game.get_type().short_name == _OUR_NAME:  # one chance node per player's roll
                    state.apply_action([r for r, _ in game.roll_distribution(p)].index(held))
                else:  # one chance node per die, the die's face - 1
                    for face in held:
                        state.apply_action(face - 1)
            self._dealt[key] = state
        state = self._dealt[key].clone()
        for bid in bids:
            state.apply_action(bid)
        return state

    def __call__(self, observations, masks):
        masks = np.asarray(masks, bool)
        out = np.zeros(masks.shape)
        for i, (player, roll, bids) in enumerate(_decode(self.game, observations)):
            for action, p in self.policy.action_probabilities(self._state(player, roll, bids), player).items():
                if not 0 <= action < masks.shape[1]:
                    raise ValueError(f"{self.name} gave action {action}, outside 0..{masks.shape[1] - 1}")
                out[i, action] = p
        return check_probabilities(out, masks, self.name, observations)


class SpielTensorAgent(Agent):
    """A torch module or a batched function over a game's information-state tensors, as an agent
    over this project's tensors.

    Args:
        model: a ``torch.nn.Module`` called ``model(tensors)`` (a float32 ``(N, size)`` tensor), whose
            outputs are logits over the game's actions (as the actors of OpenSpiel's learners and of
            IIG-RL-Benchmark), or a function ``fn(tensors, masks)`` of numpy arrays returning
            probabilities (or logits, ``outputs="logits"``); or a pair of them, one per seat.
        game: the rules-core game.
        layout: the tensors the model reads: ``"openspiel"`` (OpenSpiel's ``liars_dice``; see the
            module docstring) or ``"dice-envs"`` (``dice_envs_liars_dice``'s, the environments' observation).
        outputs: ``"logits"`` or ``"probabilities"`` (default: logits from a module, probabilities from a
            function).
        greedy: play the most probable legal action (ties to the lowest), not the probabilities.
        name: how reports name it.

    Raises:
        ValueError: an unknown layout or outputs, or OpenSpiel's layout for a game OpenSpiel does not have.
    """

    def __init__(self, model, game: LiarsDiceGame, layout: str = "openspiel", outputs: Optional[str] = None,
                 greedy: bool = False, name: Optional[str] = None):
        self.layout = check_choice("input", layout, LAYOUTS)
        if self.layout == "openspiel":
            _check_openspiel_game(game)
        models = tuple(model) if isinstance(model, (tuple, list)) else (model,)
        if len(models) not in (1, game.num_players):
            raise ValueError(f"give one model, or one per seat ({game.num_players}); got {len(models)}")
        for m in models:
            if not callable(m):
                raise ValueError(f"{m!r} is neither a torch module nor a function of (tensors, masks)")
        self.models, self.game, self.greedy = models, game, greedy
        modules = [_is_module(m) for m in models]
        self.kind = "torch" if all(modules) else "function"
        self.outputs = [check_choice("outputs", outputs or ("logits" if is_module else "probabilities"),
                                     ("logits", "probabilities")) for is_module in modules]
        self.name = name or type(models[0]).__name__
        self.info = {"game": "liars_dice", **game.config()}

    @property
    def observation_size(self) -> int:
        return int(self.game.observation_shape[0])

    def tensors(self, observations) -> np.ndarray:
        """The model's input for this project's tensors ``observations``."""
        if self.layout == "openspiel":
            return openspiel_tensors(self.game, observations)
        return np.ascontiguousarray(observations, np.float32)

    def __call__(self, observations, masks):
        masks = np.asarray(masks, bool)
        tensors = self.tensors(observations)
        out = np.empty(masks.shape)
        players = np.argmax(np.asarray(observations)[:, : self.game.num_players], axis=1)
        for seat, (model, outputs) in enumerate(zip(self.models, self.outputs)):
            rows = slice(None) if len(self.models) == 1 else np.flatnonzero(players == seat)
            answer = _answer(model, tensors[rows], masks[rows])
            answer = np.asarray(answer, np.float64)
            if answer.shape != masks[rows].shape:
                raise ValueError(f"{self.name} returned shape {answer.shape}; expected {masks[rows].shape} (one row of "
                                 f"{masks.shape[1]} actions per information state)")
            out[rows] = _softmax(answer, masks[rows]) if outputs == "logits" else answer
        if self.greedy:
            out = greedy_choice(out, masks)
        return check_probabilities(out, masks, self.name, observations)


def _is_module(model) -> bool:
    try:
        import torch
    except ImportError:  # without torch no model is a module
        return False
    return isinstance(model, torch.nn.Module)


def _answer(model, tensors: np.ndarray, masks: np.ndarray):
    if _is_module(model):
        import torch

        parameter = next(iter(model.parameters()), None)
        with torch.no_grad():
            x = torch.as_tensor(np.require(tensors, np.float32, ["C", "W"]))  # agents are given read-only arrays
            if parameter is not None:
                x = x.to(parameter.device)
            return model(x).detach().cpu().double().numpy()
    return model(tensors, masks)


def _softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Probabilities from logits, over the legal actions only."""
    if not np.isfinite(np.where(masks, logits, 0.0)).all():
        raise ValueError("the model returned non-finite logits on legal actions")
    z = np.where(masks, logits, -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


# -- reading what a user names -------------------------------------------------------------------------


def load_weights(path: str, game: LiarsDiceGame, layout: str, activation: str = "tanh"):
    """A bare weights file, ``torch.save(actor.state_dict())`` of a ``torch.nn.Sequential`` of linear
    layers (``0.weight``, ``0.bias``, ``2.weight``, ...: IIG-RL-Benchmark's ``agent.pth``), rebuilt as
    that network with ``activation`` (``"tanh"`` or ``"relu"``) between its layers and read with
    ``torch.load(weights_only=True)``, which runs no code from the file.

    Raises:
        ValueError: a file that is not such a state dict (naming what does not fit: a missing or
            non-finite weight, shapes that do not chain, an input that is not the layout's size,
            outputs that are not the game's actions).
    """
    import torch

    layout = check_choice("input", layout, LAYOUTS)
    activation = check_choice("activation", activation, ("tanh", "relu"))
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - whatever the file is, in one line
        raise ValueError(f"{path} is not a weights file torch can read safely ({type(err).__name__}: {err})") from None
    if not isinstance(state, dict) or not state:
        raise ValueError(f"{path} is not a state dict of weights, got {type(state).__name__}")
    indices = sorted({int(key.split(".")[0]) for key in state if key.split(".")[0].isdigit()})
    keys = {f"{i}.{part}" for i in indices for part in ("weight", "bias")}
    if not indices or set(state) != keys:
        raise ValueError(f"{path} is not the state dict of a Sequential of linear layers: its keys are "
                         f"{sorted(state)[:8]}")
    size = openspiel_tensor_size(game) if layout == "openspiel" else int(game.observation_shape[0])
    layers, width = [], size
    for n, i in enumerate(indices):
        weight, bias = state[f"{i}.weight"], state[f"{i}.bias"]
        for key, tensor in ((f"{i}.weight", weight), (f"{i}.bias", bias)):
            if not isinstance(tensor, torch.Tensor) or not torch.isfinite(tensor).all():
                raise ValueError(f"{path}: {key} is not a tensor of finite numbers")
        if weight.ndim != 2 or weight.shape[1] != width or bias.shape != (weight.shape[0],):
            raise ValueError(f"{path}: layer {i} takes {tuple(weight.shape)} weights and {tuple(bias.shape)} biases; "
                             f"its input has {width} values" + (" (the layout's tensor)" if n == 0 else ""))
        linear = torch.nn.Linear(weight.shape[1], weight.shape[0])
        linear.load_state_dict({"weight": weight, "bias": bias})
        layers += [linear] + ([] if n == len(indices) - 1 else [torch.nn.Tanh() if activation == "tanh"
                                                                 else torch.nn.ReLU()])
        width = weight.shape[0]
    if width != game.num_actions:
        raise ValueError(f"{path}: the network has {width} outputs; {game.describe()} has {game.num_actions} actions")
    return torch.nn.Sequential(*layers).eval()


def openspiel_agent(agent, game: Any = None, layout: Optional[str] = None,
                    greedy: bool = False, outputs: Optional[str] = None, name: Optional[str] = None) -> Agent:
    """``agent`` as an agent over this project's tensors: an OpenSpiel policy (its own game), a torch
    module or function over ``layout``'s tensors of ``game``, or a pair of those, one per seat.

    ``game`` is a :class:`LiarsDiceGame` or a pyspiel game (or its name, ``"liars_dice(numdice=2,
    dice_sides=5)"``), which names the layout too; an already-made :class:`Agent` is returned as it is.

    Raises:
        ValueError: a policy of another game, a model without a game, or an unknown layout.
    """
    if isinstance(agent, Agent):
        return agent
    if hasattr(agent, "action_probabilities") and hasattr(agent, "game") and not _is_module(agent):
        return SpielPolicyAgent(agent, name)
    if game is None:
        raise ValueError("a model over information-state tensors needs its game: a LiarsDiceGame, or OpenSpiel's "
                         "liars_dice or dice_envs_liars_dice")
    if not isinstance(game, LiarsDiceGame):
        spiel_game = game
        if isinstance(game, str):
            import pyspiel

            if game.startswith(_OUR_NAME):
                import dice_envs.openspiel  # noqa: F401  (registers the game)
            spiel_game = pyspiel.load_game(game)
        game = liars_dice_game(spiel_game)
        named = "dice-envs" if spiel_game.get_type().short_name == _OUR_NAME else "openspiel"
        if layout is not None and check_choice("input", layout, LAYOUTS) != named:
            raise ValueError(f"{spiel_game}'s tensors are the {named!r} layout, not {layout!r}")
        layout = named
    return SpielTensorAgent(agent, game, layout or "openspiel", outputs, greedy, name)


def exploitability(agent, game: Any = None, layout: Optional[str] = None, greedy: bool = False,
                   outputs: Optional[str] = None, block_bits: Optional[int] = None) -> Evaluation:
    """The exact value, best responses and exploitability of ``agent`` playing both seats: the hook
    of a training loop.

    ``agent`` and ``game`` are as :func:`openspiel_agent` reads them (a torch actor and
    ``"liars_dice(numdice=2,dice_sides=5)"``, say; a pair of actors plays one seat each).  The agent
    is asked once per information state, in blocks of ``2 ** block_bits`` public nodes
    (:func:`~dice_envs.agents.liars_dice.streamed.streamed_evaluate`), so memory stays a block's.

    Returns:
        :class:`~dice_envs.agents.liars_dice.solver.Evaluation`: ``value`` (player 0's, the agent
        in both seats), ``best_response`` (each player's value best-responding to the agent),
        ``nash_conv`` and ``exploitability`` (NashConv / 2).

    Example (IIG-RL-Benchmark's hook, ``expl_callback(model_p0, model_p1, step)``)::

        from dice_envs.agents.liars_dice.openspiel_agents import exploitability

        def expl_callback(model_p0, model_p1, step):
            ev = exploitability((model_p0, model_p1), "liars_dice(numdice=2,dice_sides=5)")
            print(step, ev.exploitability, ev.best_response)
    """
    scored = openspiel_agent(agent, game, layout, greedy, outputs)
    return streamed_evaluate(_game_of(scored), scored, block_bits)


def _game_of(agent: Agent) -> LiarsDiceGame:
    game = getattr(agent, "game", None)
    if not isinstance(game, LiarsDiceGame):
        raise ValueError(f"{agent.name} does not say its game; give it as a LiarsDiceGame")
    return game


def own_agent(spec, greedy: bool, settings: dict) -> Optional[Agent]:
    """What ``dice-envs evaluate liars-dice`` (and :func:`dice_envs.agents.scoring.score`) reads as an
    OpenSpiel agent, before the generic loaders: an OpenSpiel policy, a torch module or (with
    ``input``) a function, given as an object or as ``module:attr``; or, with ``input``, a bare
    weights file (:func:`load_weights`).  ``None`` for anything else.

    The game is the settings' (``faces``, ``dice_per_player``, ``wild``), with OpenSpiel's highest
    face wild for ``input="openspiel"`` where ``wild`` is not given; a policy brings its own.
    """
    layout = settings.get("input")
    if isinstance(spec, str):
        if layout is not None and os.path.isfile(spec):
            game = _settings_game(settings, layout)
            return SpielTensorAgent(load_weights(spec, game, layout, settings.get("activation") or "tanh"), game,
                                    layout, "logits", greedy, os.path.basename(spec))
        if ":" not in spec or os.path.exists(spec):
            return None
        name, spec = spec, import_function(spec)
    else:
        name = None
    is_policy = hasattr(spec, "action_probabilities") and hasattr(spec, "game") and not _is_module(spec)
    if is_policy:
        return SpielPolicyAgent(spec, name)
    pair = isinstance(spec, (tuple, list)) and len(spec) == 2 and all(callable(m) for m in spec)
    if _is_module(spec) or (pair and any(_is_module(m) for m in spec)) or (layout is not None and (callable(spec) or pair)):
        layout = layout or "dice-envs"
        return SpielTensorAgent(spec, _settings_game(settings, layout), layout, None, greedy, name)
    return None


def _settings_game(settings: dict, layout: str) -> LiarsDiceGame:
    wild = settings.get("wild")
    if wild is None:
        wild = "highest" if layout == "openspiel" else False
    dice = settings.get("dice_per_player")
    return LiarsDiceGame(faces=settings.get("faces") or 6, dice_per_player=1 if dice is None else dice, wild=wild)

