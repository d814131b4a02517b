"""Griffe extension for the documentation site (``mkdocs.yml`` lists it).

* ``agents/`` as ``dice_envs.agents``.  The repository keeps ``agents/`` at its top level and
  installs it as ``dice_envs.agents`` (``package-dir`` in ``pyproject.toml``).  Griffe reads
  ``dice_envs`` from the source tree, where there is no ``dice_envs/agents`` folder, so once
  the ``dice_envs`` package is loaded this loads ``agents/`` as that submodule:
  ``::: dice_envs.agents.pig.solver`` then works statically, importing nothing.
* reStructuredText literal blocks.  The docstrings introduce code with ``::`` and an
  indented block, which Markdown shows as ``::`` and, inside a list item, as plain text.
  Each such block becomes a fenced code block, and so does each simple table
  (``===== =====``).
* Lists.  Python-Markdown, unlike GitHub and reStructuredText, needs a blank line before a
  list and nests by 4 spaces; :func:`python_markdown_lists` rewrites them so (the pages get
  the same from ``mkdocs_hooks.py``).

All three change what the site shows, not the sources.
"""

from __future__ import annotations

import re
from pathlib import Path

import griffe

AGENTS = Path(__file__).resolve().parents[2] / "agents" / "__init__.py"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def literal_blocks_to_fences(text: str) -> str:
    """``text`` with every reST literal block (a line ending in ``::``, then an indented block)
    as a fenced code block, indented to sit inside the list item it belongs to."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if (line.rstrip().endswith("::") and j > i + 1 and j < len(lines)
                and _indent(lines[j]) > _indent(line)):
            block_end = j
            while block_end < len(lines) and (not lines[block_end].strip()
                                              or _indent(lines[block_end]) > _indent(line)):
                block_end += 1
            while not lines[block_end - 1].strip():
                block_end -= 1
            body = lines[j:block_end]
            depth = min(_indent(b) for b in body if b.strip())
            # Python-Markdown nests a block in a list item at 4 spaces; the docstrings indent by 2.
            pad = " " * (-(-_indent(line) // 4) * 4)
            lead = line.rstrip()[:-1]  # "text::" -> "text:"; a bare "::" goes
            if lead.strip() != ":":
                out += [lead, ""]
            out.append(pad + "```")
            out += [pad + b[depth:] if b.strip() else "" for b in body]
            out += [pad + "```"]
            i = block_end
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


RST_TABLE_BORDER = re.compile(r"\s*=+( +=+)+\s*$")


def rst_tables_to_fences(text: str) -> str:
    """``text`` with every reStructuredText simple table (``===== =====`` borders) in a fenced
    block, shown as it is written."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if RST_TABLE_BORDER.match(lines[i]):
            borders = [j for j in range(i, len(lines)) if RST_TABLE_BORDER.match(lines[j])][:3]
            end = borders[-1]
            pad = " " * _indent(lines[i])
            out += [pad + "```", *lines[i:end + 1], pad + "```"]
            i = end + 1
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


LIST_ITEM = re.compile(r"(\s*)([*+-]|\d+\.)( +)\S")


def python_markdown_lists(text: str) -> str:
    """``text`` with its lists written as Python-Markdown reads them (outside fenced code).

    GitHub and reStructuredText start a list right after a paragraph line and nest by the
    width of the marker (``* `` nests by 2); Python-Markdown needs a blank line before a list
    (and before an item that comes back out of a nested list) and 4 spaces per level.  So the
    blank lines are added, and the lines of each list item are indented by 4 per level,
    keeping their indent relative to the item's text.
    """
    out = []
    stack = []  # per open item: (its text's indent in the source, in the output)
    fence = False
    previous_blank = True
    last_depth = None  # the depth of the last item, while its list goes on
    loose = False  # a blank line since the last item started
    for line in text.split("\n"):
        opens_fence = line.lstrip().startswith("```")
        if fence or opens_fence:
            if opens_fence:
                fence = not fence
            if stack and line.strip():  # a fence inside an item moves with it
                line = " " * max(_indent(line) + stack[-1][1] - stack[-1][0], 0) + line.lstrip(" ")
            out.append(line)
            previous_blank = not line.strip()
            loose = loose or previous_blank
            continue
        if not line.strip():
            out.append(line)
            previous_blank = loose = True
            continue
        indent = _indent(line)
        item = LIST_ITEM.match(line)
        if not previous_blank and not item and stack:  # a continuation line of the item
            out.append(" " * stack[-1][1] + line.lstrip(" "))
            continue
        while stack and indent < stack[-1][0]:
            stack.pop()
        if item:
            if not previous_blank and (loose or last_depth != len(stack) + 1):
                out.append("")
            marker_at = stack[-1][1] if stack else indent
            out.append(" " * marker_at + line.lstrip(" "))
            stack.append((indent + len(item[2]) + len(item[3]), marker_at + 4))
            last_depth = len(stack)
            loose = False
        elif stack:
            out.append(" " * (stack[-1][1] + indent - stack[-1][0]) + line.lstrip(" "))
        else:
            out.append(line)
            last_depth = None
        previous_blank = False
    return "\n".join(out)


def _convert(obj) -> None:
    if obj.is_alias:
        return
    if obj.docstring is not None:
        text = obj.docstring.value
        if "==" in text:
            text = rst_tables_to_fences(text)
        text = python_markdown_lists(text)
        if "::" in text:
            text = literal_blocks_to_fences(text)
        obj.docstring.value = text
    for member in obj.members.values():
        if not member.is_alias:
            _convert(member)


class DocsExtension(griffe.Extension):
    def on_package(self, *, pkg, loader, **kwargs) -> None:
        if pkg.name == "dice_envs" and "agents" not in pkg.members:
            # Griffe has no public call for "load this folder as a submodule of that package".
            module = loader._load_module("agents", AGENTS, parent=pkg)
            pkg.set_member("agents", module)
        _convert(pkg)

    on_package_loaded = on_package  # the same event's name in griffe 1.x
