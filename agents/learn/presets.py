"""Presets: the settings of a learner's recorded results, as data, and the ``dice-envs train`` command
that runs them.

A game's room ships a TOML file of presets, in the manner of RL Baselines3 Zoo's hyperparameter
files: one table per recorded result, named by the preset, holding the learner that produced it,
the seeds it was run with, the result it recorded and where its record is, and the learner's
options that differ from their defaults (its budget among them)::

    [escher-1v1]
    learner = "escher"
    seeds = [0, 1]
    result = "what the recorded runs reached"
    recorded = ["experiments/figures/....json"]
    minutes = 30.0
    dice = "1"
    wild = "none"

A preset may also carry a ``title``: what the learner is called where its code's name alone would
mislead (the field's MMD is our ``ppo`` learner with a KL term: ``title = "IIG-RL-Benchmark's MMD
(PPO with a KL term)"``); the leaderboard and ``--list-presets`` show it.

A preset that differs from another in a few options names it (:data:`BASE_KEY`) and lists only
those: ``base = "escher-1v1"`` starts from that preset's learner and options (not its seeds, result
or record), and the entry's own keys replace them.

A :class:`Learner` describes one trainer to the command: its options (a dataclass whose defaults
are the learner's recommended settings, one field per option, the comment on a field's line its
help), the fields it does not read (where several learners share one dataclass), what it fixes
(``method``), the check its options go through and the function that trains.  ``--help`` shows
the options every learner of the game has flat, and each learner's own in a group of its own.

:func:`resolve` turns a preset (or a ``--config`` file of the same keys) and the options given on
the command line into the learner's options: the dataclass defaults, then the preset's keys, then
the command line's.  Where the room names games (Liar's Dice's ``LD2D5F``), a preset's ``game`` key
or ``--game NAME`` sets the options of the game's rules.
A preset name, key or value that the learner does not know is a
``ValueError`` naming it.  :func:`add_train_command` adds a game's ``dice-envs train GAME``
parser; the command line's ``train`` verb runs it.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Collection, Dict, Mapping, Optional, Sequence, Tuple

from dice_envs.agents.learn.runs import add_renamed_options, field_comments, flag, renamed

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with tomli, the same parser
    import tomli as tomllib

__all__ = ["Learner", "META_KEYS", "BASE_KEY", "GAME_KEY", "NamedGames", "budget_of", "load_presets", "read_config",
           "resolve", "settings_of", "to_toml", "add_train_command", "describe_presets"]

#: The keys of a preset that are not options: which learner, its seeds, its result, its record and
#: the learner's title where its name alone would mislead.
META_KEYS = ("learner", "seeds", "result", "recorded", "title")
#: The key of a preset (and ``--game``) that names a game the room names (Liar's Dice's ``"LD2D5F"``): it
#: sets the learner's options for the game's rules (:data:`NamedGames`).
GAME_KEY = "game"
#: The key of a preset that names another preset of the same file whose learner and options it starts
#: from (:func:`load_presets` expands it).
BASE_KEY = "base"

#: A room's named games for its learners: ``named(name, options, given) -> settings``, the options (of
#: the names ``options``, a learner's) that the game ``name`` sets; ``ValueError`` for an unknown name,
#: a game the learner cannot play, or an option in ``given`` (set alongside the name) that disagrees.
NamedGames = Callable[[str, Collection[str], Mapping[str, Any]], Dict[str, Any]]
#: The options shown flat by ``--help`` whenever a learner has them: the budget, the run, the machine.
COMMON = ("minutes", "steps", "seed", "run_dir", "eval_every", "threads", "plot", "quiet")


@dataclass(frozen=True)
class Learner:
    """One trainer, as ``dice-envs train`` sees it.

    Attributes:
        name: the preset files' ``learner`` (``"escher"``, ``"maskable-ppo"``).
        description: one line for ``--help``.
        options: the dataclass of its options; its defaults are the recommended settings.
        check: ``check(options) -> options``, the options checked (``ValueError`` naming a bad one) and
            the defaults that depend on others filled in.
        train: ``train(options) -> report`` (imports torch, or ray, only when it runs).
        ignores: the fields of ``options`` this learner does not read (they are other learners'): not
            its options.
        fixed: fields the learner sets itself (``{"method": "escher"}``): not options of the command.
        defaults: the learner's recommended values where they differ from the dataclass defaults
            (several learners sharing one dataclass).
        extra: the extra of ``dice-envs`` its training needs, named when it is missing.
        scored_by: the ``dice-envs evaluate`` game whose exact scorer the trainer is handed
            (``train(options, score)``), for trainers that score through it (RLlib's); empty for the
            others.
    """

    name: str
    description: str
    options: type
    check: Callable[[Any], Any]
    train: Callable[..., dict]
    ignores: Tuple[str, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    extra: str = "train"
    scored_by: str = ""

    def option_fields(self) -> Dict[str, dataclasses.Field]:
        """The options of the command for this learner, by field name (the fixed and ignored ones left out)."""
        return {f.name: f for f in dataclasses.fields(self.options)
                if f.name not in self.fixed and f.name not in self.ignores}


# -- preset files ---------------------------------------------------------------------------------


def load_presets(path, section: str = "") -> Dict[str, dict]:
    """The presets of a TOML file (of its table ``section``, for a room whose file holds several
    games'), by name, in the file's order (``ValueError`` naming the file for one that is not a
    table with a ``learner``)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ValueError(f"cannot read the presets {path}: {err}") from None
    if section:
        if not isinstance(data.get(section), dict):
            raise ValueError(f"{path} has no presets of {section!r}")
        data = data[section]
    for name, entry in data.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: preset {name!r} must be a table with a learner = \"...\"")
    presets = {name: _expanded(data, name, path, ()) for name in data}
    for name, entry in presets.items():
        if not isinstance(entry.get("learner"), str):
            raise ValueError(f"{path}: preset {name!r} must be a table with a learner = \"...\"")
        if not isinstance(entry.get("title", ""), str):
            raise ValueError(f"{path}: preset {name!r} has title = {entry['title']!r}; a title is a string")
    return presets


def _expanded(data: Mapping[str, dict], name: str, path: Path, chain: Tuple[str, ...]) -> dict:
    """Preset ``name`` of ``data`` with its :data:`BASE_KEY` expanded: the base's learner and options,
    then the entry's own keys (``ValueError`` for a base that is not a preset of the file, or a cycle)."""
    entry = dict(data[name])
    base = entry.pop(BASE_KEY, None)
    if base is None:
        return entry
    if not isinstance(base, str) or not isinstance(data.get(base), dict):
        raise ValueError(f"{path}: preset {name!r} has {BASE_KEY} = {base!r}, which is not a preset of this file")
    if base in chain + (name,):
        raise ValueError(f"{path}: presets {' -> '.join(chain + (name, base))} name each other as {BASE_KEY}")
    inherited = {key: value for key, value in _expanded(data, base, path, chain + (name,)).items()
                 if key not in META_KEYS or key == "learner"}
    return {**inherited, **entry}


def read_config(path) -> dict:
    """A ``--config`` file: one preset entry's keys at the top level of a TOML file."""
    path = Path(path)
    try:
        entry = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ValueError(f"--config {path}: {err}") from None
    if not isinstance(entry.get("learner"), str):
        raise ValueError(f"--config {path}: it must name its learner (learner = \"...\")")
    return entry


def _typed(kind, value, where: str):
    """``value`` as the option's ``kind`` (``int``, ``float``, ``str``, ``bool``), or a ``ValueError``
    naming ``where``."""
    kind = kind if isinstance(kind, str) else kind.__name__
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "float":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        value = float(value) if ok else value
    else:
        ok = isinstance(value, str)
    if not ok:
        wanted = {"bool": "true or false", "int": "an integer", "float": "a finite number"}.get(kind, "a string")
        raise ValueError(f"{where} must be {wanted}, got {value!r}")
    return value


def settings_of(learner: Learner, entry: Mapping[str, Any], where: str) -> Dict[str, Any]:
    """The options a preset (or config) ``entry`` sets, typed; a key that is not an option of
    ``learner`` or a value of the wrong kind is a ``ValueError`` naming ``where`` and the key."""
    fields = learner.option_fields()
    settings = {}
    for key, value in renamed({k: v for k, v in entry.items() if k not in META_KEYS}, where).items():
        if key in META_KEYS or key == GAME_KEY:
            continue
        if key not in fields:
            raise ValueError(f"{where}: {key!r} is not an option of the {learner.name} learner; its options: "
                             f"{', '.join(sorted(fields))}")
        settings[key] = _typed(fields[key].type, value, f"{where}: {key}")
    seeds = entry.get("seeds", [])
    if not (isinstance(seeds, list) and all(isinstance(s, int) and not isinstance(s, bool) for s in seeds)):
        raise ValueError(f"{where}: seeds must be a list of integers, got {seeds!r}")
    return settings


def _named_settings(games: Optional[NamedGames], name, learner: Learner, given: Mapping[str, Any],
                    where: str) -> Dict[str, Any]:
    """The options the named game ``name`` sets for ``learner`` (``given``: the options set with it)."""
    if games is None:
        raise ValueError(f"{where}: this game has no named games ({GAME_KEY} = {name!r})")
    if not isinstance(name, str):
        raise ValueError(f"{where}: {GAME_KEY} must be a name (a string), got {name!r}")
    try:
        return games(name, tuple(learner.option_fields()), given)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


def resolve(learners: Mapping[str, Learner], entry: Mapping[str, Any], where: str,
            overrides: Optional[Mapping[str, Any]] = None, check: bool = True,
            games: Optional[NamedGames] = None) -> Tuple[Learner, Any]:
    """The learner of a preset ``entry`` and its options: the dataclass defaults, then the entry's
    keys, then ``overrides`` (the command line's, by field name), then (``check``) the learner's
    checks.  ``ValueError`` for an unknown learner, key or override, or a value of the wrong kind.
    (The learner's own ``defaults`` come before the entry's keys.)

    A named game (:data:`GAME_KEY`, the room's ``games``) sets the options of its rules: the entry's
    must agree with the entry's other keys; the overrides' replaces the entry's, and must agree with
    the other overrides."""
    name = str(entry.get("learner"))
    if name not in learners:
        raise ValueError(f"{where}: learner {name!r} is not one of this game's: {', '.join(learners)}")
    learner = learners[name]
    settings = settings_of(learner, entry, where)
    if entry.get(GAME_KEY) is not None:
        settings.update(_named_settings(games, entry[GAME_KEY], learner, settings, where))
    fields = learner.option_fields()
    overrides = dict(overrides or {})
    named = overrides.pop(GAME_KEY, None)
    for key, value in overrides.items():
        if key not in fields:
            raise ValueError(f"{flag(key)} is not an option of the {learner.name} learner (preset {where}); its "
                             f"options: {', '.join(flag(k) for k in sorted(fields))}")
        settings[key] = _typed(fields[key].type, value, flag(key))
    if named is not None:
        given = {key: settings[key] for key in overrides}
        settings.update(_named_settings(games, named, learner, given, f"--{GAME_KEY} {named}"))
    options = learner.options(**{**learner.defaults, **settings, **learner.fixed})
    return learner, (learner.check(options) if check else options)


def to_toml(entry: Mapping[str, Any]) -> str:
    """A preset entry (or resolved options) as TOML text that :func:`read_config` reads back: one
    ``key = value`` line each (strings, numbers, booleans and lists of them)."""

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        raise ValueError(f"{v!r} has no TOML spelling here")

    return "".join(f"{key} = {value(v)}\n" for key, v in entry.items())


def budget_of(entry: Mapping[str, Any]) -> str:
    """A preset's budget in words: its agent steps where it sets them (``minutes = 0`` then), else its
    minutes, else the learner's default."""
    if entry.get("steps"):
        return f"{entry['steps']:,} steps"
    return f"{entry['minutes']:g} min" if "minutes" in entry else "the learner's default budget"


def describe_presets(presets: Mapping[str, dict]) -> str:
    """One paragraph per preset: its learner, budget, seeds, result and its settings."""
    lines = []
    for name, entry in presets.items():
        budget = budget_of(entry)
        seeds = ", ".join(map(str, entry.get("seeds", []))) or "-"
        learner = f"{entry['learner']} ({entry['title']})" if "title" in entry else entry["learner"]
        lines.append(f"{name}: {learner}, {budget}, seeds {seeds}")
        lines.append(f"    result: {entry.get('result', '-')}")
        settings = [f"{key} = {entry[key]!r}" for key in entry if key not in META_KEYS]
        if settings:
            lines.append("    settings: " + ", ".join(settings))
    return "\n".join(lines)


# -- the command ----------------------------------------------------------------------------------


def add_train_command(train_verbs, game: str, help_text: str, learners: Mapping[str, Learner], presets_file,
                      section: str = "", games: Optional[NamedGames] = None, game_names: Sequence[str] = ()) -> None:
    """Add ``dice-envs train GAME`` to the ``train`` verb's subparsers: ``--preset`` (default: the
    file's first), ``--config``, ``--list-presets``, ``--print-config``, ``--game NAME`` where the room
    names games (``games``, its names ``game_names``), the options shared by the game's learners, and
    each learner's own options in a group of its own.  Every option's default is the preset's (argparse
    leaves an option not given out of the namespace)."""
    presets = load_presets(presets_file, section)
    first = next(iter(presets))
    epilog = "presets (--list-presets for their settings and results):\n" + "\n".join(
        f"  {name:24s} {entry['learner']}: {entry.get('result', '')}" for name, entry in presets.items())
    parser = train_verbs.add_parser(game, help=help_text, description=help_text, epilog=epilog,
                                    formatter_class=argparse.RawDescriptionHelpFormatter,
                                    argument_default=argparse.SUPPRESS)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--preset", metavar="NAME", help=f"the preset to run (default: {first})")
    which.add_argument("--config", metavar="FILE", help="a TOML file with the keys of a preset entry")
    parser.add_argument("--list-presets", action="store_true", help="print each preset's budget, seeds and result")
    parser.add_argument("--print-config", action="store_true",
                        help="print the resolved options as a --config file and exit without training")
    if games is not None:
        parser.add_argument("--game", dest="named_game", metavar="NAME",
                            help="a named game, in place of the preset's game: it sets the options of its rules "
                                 "(given too, they must agree): " + ", ".join(game_names))
    users: Dict[str, list] = {}
    for learner in learners.values():
        for name in learner.option_fields():
            users.setdefault(name, []).append(learner.name)
    comments: Dict[str, str] = {}
    for learner in learners.values():
        comments.update({k: v for k, v in field_comments(learner.options).items() if k not in comments})
    shared = parser.add_argument_group("options (default: the preset's; [the learners that read one])")
    groups: Dict[str, Any] = {}
    added = set()
    for learner in learners.values():
        for name, f in learner.option_fields().items():
            if name in added:
                continue
            added.add(name)
            if len(users[name]) == 1 and name not in COMMON:
                if learner.name not in groups:
                    groups[learner.name] = parser.add_argument_group(f"{learner.name}: {learner.description}")
                group = groups[learner.name]
                text = comments.get(name, " ")
            else:
                group = shared
                text = comments.get(name, " ") + (f" [{', '.join(users[name])}]"
                                                  if len(users[name]) < len(learners) else "")
            text = text.replace("%", "%%")
            kind = f.type if isinstance(f.type, str) else f.type.__name__
            if kind == "bool":
                group.add_argument(flag(name), action=argparse.BooleanOptionalAction, help=text)
            else:
                group.add_argument(flag(name), type={"int": int, "float": float, "str": str}[kind], help=text)
                add_renamed_options(group, (name,), {name: {"int": int, "float": float, "str": str}[kind]})
    parser.set_defaults(train_game=game, learners=learners, presets=presets, presets_file=str(presets_file),
                        default_preset=first, named_games=games)


def command_options(args: argparse.Namespace) -> Tuple[Learner, Any, str]:
    """The learner, its checked options and the preset's name (or the config file's) of a parsed
    ``dice-envs train GAME`` command line (``ValueError`` naming a bad preset, key or value)."""
    skip = {"verb", "game", "handler", "train_game", "learners", "presets", "presets_file", "default_preset",
            "preset", "config", "list_presets", "print_config", "max_memory", "max_seconds", "max_disk",
            "named_games", "named_game"}
    overrides = {key: value for key, value in vars(args).items() if key not in skip}
    if getattr(args, "named_game", None) is not None:
        overrides[GAME_KEY] = args.named_game
    games = getattr(args, "named_games", None)
    if getattr(args, "config", None):
        entry, where = read_config(args.config), f"--config {args.config}"
        label = Path(args.config).stem
    else:
        label = getattr(args, "preset", None) or args.default_preset
        if label not in args.presets:
            raise ValueError(f"--preset {label!r} is not a preset of {args.train_game}; its presets: "
                             f"{', '.join(args.presets)}")
        entry, where = args.presets[label], label
    learner, _ = resolve(args.learners, entry, where, overrides, check=False, games=games)
    if "run_dir" in learner.option_fields() and "run_dir" not in overrides and not entry.get("run_dir"):
        seed = overrides.get("seed", entry.get("seed", getattr(learner.options, "seed", 0)))
        overrides["run_dir"] = f"runs/{args.train_game}/{label}-seed{seed}"
    return (*resolve(args.learners, entry, where, overrides, games=games), label)


def resolved_config(learner: Learner, options) -> Dict[str, Any]:
    """Every option of ``learner`` as ``options`` hold it, ``learner`` first: a ``--config`` entry
    that gives the same options back."""
    return {"learner": learner.name, **{name: getattr(options, name) for name in learner.option_fields()}}
