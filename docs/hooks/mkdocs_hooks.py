"""MkDocs hooks for the documentation site (listed under ``hooks:`` in ``mkdocs.yml``).

* The module docstrings use Sphinx roles (``:mod:`dice_envs.games.pig.rules```), which Markdown shows as
  ``:mod:`` before the code.  Each becomes an optional cross-reference: a link where the
  object is documented on the site, plain code elsewhere (never a warning).
* Lists are rewritten as Python-Markdown reads them (a blank line before a list, 4 spaces
  per level), as the docstrings are in ``griffe_extension.py``.
* ``<!-- dice-envs help -->`` in a page becomes the ``--help`` of every ``dice-envs``
  command, taken from the parser itself, so the CLI page cannot drift from the code.
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import os
import re
from pathlib import Path


def _sibling(name: str):
    """The module ``name`` beside this file (MkDocs loads a hook by its path: its folder is not on sys.path)."""
    spec = importlib.util.spec_from_file_location(f"docs_hooks_{name}", Path(__file__).resolve().parent / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


python_markdown_lists = _sibling("griffe_extension").python_markdown_lists

ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|obj|exc|const):<code>([^<]*)</code>")
HELP_MARKER = "<!-- dice-envs help -->"


def _reference(match: re.Match) -> str:
    target = html.unescape(match[1]).strip()
    short = target.startswith("~")
    target = target.lstrip("~").rstrip("()")
    shown = match[1].lstrip("~")
    if short:
        shown = html.escape(target.rsplit(".", 1)[-1])
    if not re.fullmatch(r"[A-Za-z_][\w.]*", target):
        return f"<code>{shown}</code>"
    return f'<autoref identifier="{target}" optional><code>{shown}</code></autoref>'


def on_page_content(html_text: str, page, config, files) -> str:
    return ROLE.sub(_reference, html_text)


def _help_sections() -> str:
    from dice_envs.agents.cli import build_parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal's width
    try:
        parser = build_parser()
        parts = ["### `dice-envs --help`", "", "```", parser.format_help().rstrip(), "```", ""]
        verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for verb, verb_parser in verbs.choices.items():
            games = parser.games[verb]
            for game, game_parser in games.choices.items():
                parts += [f"### `dice-envs {verb} {game}`", "", "```", game_parser.format_help().rstrip(), "```", ""]
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if HELP_MARKER in markdown:
        markdown = markdown.replace(HELP_MARKER, _help_sections())
    return python_markdown_lists(markdown)
