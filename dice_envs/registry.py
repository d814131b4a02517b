"""The one list of games: every consumer finds the games here.

Each :class:`GameEntry` says where a game's parts live, as ``"module"`` or ``"module:attribute"``
strings, so reading the list imports nothing: PettingZoo's and Gymnasium's registries
(``import dice_envs``), the pictures (:mod:`dice_envs.envs.rendering`) and the command line
(:mod:`dice_envs.agents.cli`) load a game's module only when it is used.  Adding a game is its
rooms (``dice_envs/games/<room>/`` for the rules, environment and picture,
``dice_envs/agents/<room>/`` for its solver, opponents and commands) and one entry here.

Example::

    >>> from dice_envs.registry import GAMES
    >>> GAMES["pig"].pettingzoo_id, GAMES["pig"].gymnasium_id
    ('dice_envs/pig-v0', 'dice_envs/Pig-v0')
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

__all__ = ["GameEntry", "GAMES", "load", "entry_for_rules", "plain_name"]


@dataclass(frozen=True)
class GameEntry:
    """Where one game's parts live.

    Attributes:
        name: the game's name, PettingZoo's spelling (``liars_dice_match``); its module is
            ``dice_envs.<name>_v<version>`` and its id ``dice_envs/<name>-v<version>``.
        title: the game's name for people (``"Liar's Dice Match"``), at the top of its pictures.
        room: the folder of the game's parts, ``dice_envs/games/<room>/`` and
            ``dice_envs/agents/<room>/`` (the whole game of Liar's Dice shares the round's).
        env: the module of its PettingZoo AEC environment (``env()``, ``raw_env``), or ``None``
            for a game that is not played (Tatham's dice).
        version: the environment's version, as in PettingZoo's ids.
        earlier_versions: earlier versions of its PettingZoo environment that stay registered, for
            the models trained on them (module ``dice_envs.<name>_v<k>``, id ``dice_envs/<name>-v<k>``).
        gymnasium: ``(Gymnasium name, entry point, vector entry point)`` of its single-agent
            version, the other seats played by a chosen opponent, or ``None``.
        earlier_gymnasium: the same triples for earlier Gymnasium versions that stay registered
            (Gymnasium itself says that a newer version exists when one of them is made).
        rules_names: the ``Game.name`` of each of its rules cores (The Shakes has two).
        picture: the module that draws its table (``draw(table, game, state, agents, moves)``).
        commands: the module that adds its ``dice-envs`` sub-commands (``add_commands(verbs)``).
        agent_files: ``(suffix, "module:function")`` of the model files its own learners save: the
            function, ``load(path, greedy)``, loads one as an agent over observations playing its
            probabilities or (``greedy``) its most probable legal action (``dice-envs evaluate``).
        evaluations: ``"module:attribute"`` of the tuple of its
            :class:`~dice_envs.agents.evaluate.report.Evaluation` objects: how ``dice-envs evaluate`` and
            :func:`dice_envs.agents.scoring.score` score its agents exactly.
        openspiel: ``"module:attribute"`` of its :class:`~dice_envs.core.spiel.SpielGame`, the
            description :mod:`dice_envs.openspiel` registers it with (``dice_envs_<name>``), or ``None``.
    """

    name: str
    title: str
    room: str
    env: Optional[str]
    version: int = 0
    earlier_versions: Tuple[int, ...] = ()
    gymnasium: Optional[Tuple[str, str, str]] = None
    earlier_gymnasium: Tuple[Tuple[str, str, str], ...] = ()
    rules_names: Tuple[str, ...] = ()
    picture: Optional[str] = None
    commands: Optional[str] = None
    agent_files: Tuple[Tuple[str, str], ...] = ()
    evaluations: Optional[str] = None
    openspiel: Optional[str] = None

    @property
    def module_name(self) -> str:
        """``liars_dice_v0``: the name of its module in ``dice_envs`` (and of ``all_environments``' key)."""
        return f"{self.name}_v{self.version}"

    @property
    def pettingzoo_id(self) -> str:
        return f"dice_envs/{self.name}-v{self.version}"

    @property
    def earlier_module_names(self) -> Tuple[str, ...]:
        """``("liars_dice_v0",)``: the modules of the earlier versions that stay registered."""
        return tuple(f"{self.name}_v{k}" for k in self.earlier_versions)

    @property
    def gymnasium_id(self) -> Optional[str]:
        return None if self.gymnasium is None else f"dice_envs/{self.gymnasium[0]}"


def _game(name: str, title: str, room: str = "", gym_class: str = "", gym_module: str = "gym",
          env: str = "env", picture: str = "picture", rules_names: Tuple[str, ...] = (),
          agent_files: Tuple[Tuple[str, str], ...] = (), evaluations: str = "EVALUATIONS",
          openspiel: bool = True, version: int = 0, earlier_versions: Tuple[int, ...] = (), gym_version: int = 0,
          earlier_gym_versions: Tuple[int, ...] = ()) -> GameEntry:
    """An entry by the rooms' conventions: Gymnasium's ``<gym_class>-v<k>`` is ``<gym_class>Env`` (the
    current version) or ``<gym_class>V<k>Env`` (an earlier one) in the agents' room, with its ``...VectorEnv``."""
    room = room or name
    agents = f"dice_envs.agents.{room}"

    def gym(k: int, current: bool) -> Tuple[str, str, str]:
        cls = gym_class if current else f"{gym_class}V{k}"
        return (f"{gym_class}-v{k}", f"{agents}.{gym_module}:{cls}Env", f"{agents}.{gym_module}:{cls}VectorEnv")

    return GameEntry(
        name=name, title=title, room=room, env=f"dice_envs.games.{room}.{env}", version=version,
        earlier_versions=earlier_versions, gymnasium=gym(gym_version, True),
        earlier_gymnasium=tuple(gym(k, False) for k in earlier_gym_versions),
        rules_names=rules_names or (name,), picture=f"dice_envs.games.{room}.{picture}", commands=f"{agents}.cli",
        agent_files=agent_files, evaluations=f"{agents}.cli:{evaluations}",
        openspiel=f"dice_envs.games.{room}.{env}:OPENSPIEL" if openspiel else None)


#: Every game, by name, in the order the documentation lists them.
GAMES: Dict[str, GameEntry] = {entry.name: entry for entry in (
    _game("zombie_dice", "Zombie Dice", gym_class="ZombieDice"),
    _game("shakes", "The Shakes", gym_class="Shakes",
          rules_names=("shakes_court", "shakes_maesters")),
    _game("pig", "Pig", gym_class="Pig"),
    _game("liars_dice", "Liar's Dice", gym_class="LiarsDice",
          agent_files=((".pt", "dice_envs.agents.liars_dice.evaluation:load_agent"),),
          version=1, earlier_versions=(0,), gym_version=1, earlier_gym_versions=(0,)),
    _game("liars_dice_match", "Liar's Dice Match", room="liars_dice", gym_class="LiarsDiceMatch",
          gym_module="match_gym", env="match_env", picture="match_picture", evaluations="MATCH_EVALUATIONS",
          openspiel=False, gym_version=1, earlier_gym_versions=(0,)),
    _game("closest_number", "Closest Number", gym_class="ClosestNumber"),
    GameEntry(name="tatham", title="Tatham's dice", room="tatham", env=None, commands="dice_envs.agents.tatham.cli"),
)}


def load(target: str) -> Any:
    """The object a ``"module:attribute"`` string names (the module itself for ``"module"``)."""
    module, _, attribute = target.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


def entry_for_rules(rules_name: str) -> GameEntry:
    """The entry of the game whose rules core is called ``rules_name`` (``Game.name``);
    ``ValueError`` naming the known ones for another."""
    for entry in GAMES.values():
        if rules_name in entry.rules_names:
            return entry
    known = sorted(name for entry in GAMES.values() for name in entry.rules_names)
    raise ValueError(f"no game has the rules core {rules_name!r}; rules cores: {known}")


def plain_name(name: str) -> str:
    """A game's name in PettingZoo's spelling from any of the project's others: the module or id
    (``liars_dice_v0``, ``dice_envs/liars_dice-v0``), the Gymnasium id (``dice_envs/LiarsDice-v0``),
    the OpenSpiel name (``dice_envs_liars_dice``) or the command line's (``liars-dice``) all give
    ``liars_dice``.  Names of no game come back in the same spelling, for the caller to refuse."""
    text = name.strip()
    for prefix in ("dice_envs/", "dice_envs_"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    text = re.sub(r"[-_]v\d+$", "", text)
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)  # CamelCase -> snake_case
    return text.lower().replace("-", "_")
