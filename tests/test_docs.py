"""The documentation site (``mkdocs.yml``, ``docs/``) builds with ``mkdocs build --strict``.

Strict mode turns every warning into an error: a broken link or anchor, a page missing from
the nav, a ``::: module`` that mkdocstrings cannot find, a docstring griffe cannot parse.  The
site is built into a temporary folder, so nothing is written to the repository.  Needs the
``[docs]`` extra; skipped without it.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("material")
pytest.importorskip("mkdocstrings_handlers.python")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    return out


def test_the_site_builds_strictly_with_a_page_per_game(site):
    for game in ("zombie_dice", "pig", "liars_dice", "liars_dice_match", "shakes", "closest_number", "tatham"):
        assert (site / "games" / game / "index.html").is_file(), game


def test_the_game_pages_render_the_module_docstrings(site):
    pig = (site / "games" / "pig" / "index.html").read_text(encoding="utf-8")
    # The PettingZoo table of dice_envs.pig_v0's docstring (its module is dice_envs.games.pig.env), and the solver's
    # API (dice_envs.agents is agents/ in the repository: the griffe extension in docs/hooks/ finds it).
    assert "Observation Values" in pig and "Legal Actions Mask" in pig
    assert 'id="dice_envs.agents.pig.solver.solve"' in pig
    liars_dice = (site / "games" / "liars_dice" / "index.html").read_text(encoding="utf-8")
    assert 'id="dice_envs.games.liars_dice.env"' in liars_dice and "Action Values" in liars_dice
    # Sphinx roles became links or plain code, not ":mod:" text.
    for page in site.rglob("*.html"):
        assert not re.search(r":(mod|func|class|meth|attr|data):<", page.read_text(encoding="utf-8")), page


def test_the_cli_page_holds_every_commands_help(site):
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("dice-envs solve pig", "dice-envs evaluate liars-dice", "dice-envs play zombie-dice",
                    "dice-envs export-efg liars-dice", "dice-envs dice tatham"):
        assert f"usage: {command}" in cli, command


def test_the_readme_links_to_pages_that_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).is_file(), link
    assert "./run main" in readme and "./run test" in readme  # what CI runs stays documented


# -- notebook words: the site and the package's docstrings read as a manual -------------------------------------------

#: Words of a lab notebook, not of a manual: run-by-run asides, numbered issues and stops, the machine a figure was
#: measured on, and "the seed" meaning a game's source document (a reader takes "seed" for a random seed).
NOTEBOOK_WORDS = re.compile(
    r"\bbeside\b|\bprob(?:e|es|ed|ing)\b|\bissues?\s+#?\d+|\bstops?\s+\d+|\bseed documents?\b"
    r"|\bthe seed(?:'s)?\b(?!\s*\d)|\b(?:2|two)-core\b|\bdevelopment machine\b"
    r"|\b(?:Xeon|EPYC|Ryzen|Core i[3579])\b",
    re.IGNORECASE,
)

def _notebook_words(text: str, where: str, first_line: int = 1) -> list:
    return [f"{where}:{first_line + text[:m.start()].count(chr(10))}: {m.group()!r}" for m in NOTEBOOK_WORDS.finditer(text)]


def _docstrings(tree: ast.AST):
    """``(line, text)`` of every module, class and function docstring, and of every attribute docstring (a string
    right after an assignment, which griffe renders)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield node.body[0].lineno, text
            for before, after in zip(node.body, node.body[1:]):
                if (isinstance(before, (ast.Assign, ast.AnnAssign)) and isinstance(after, ast.Expr)
                        and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
                    yield after.lineno, after.value.value


def test_the_scan_finds_notebook_words():
    for text in ("beside the suite", "a probe run", "issue 25's target", "stop 3", "the seed document",
                 "the seed's dice rule", "on the 2-core machine", "an AMD EPYC", "Intel Xeon", "Core i7"):
        assert NOTEBOOK_WORDS.search(text), text
    for text in ("seed 0", "the seed 1 run", "--seed 1", "random seed", "probability", "issues", "stops at 52"):
        assert not NOTEBOOK_WORDS.search(text), text


def test_the_site_pages_carry_no_notebook_words():
    found = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        found += _notebook_words(page.read_text(encoding="utf-8"), str(page.relative_to(ROOT)))
    assert not found, "\n".join(found)


def test_the_package_docstrings_carry_no_notebook_words():
    found, scanned = [], 0
    for package in ("dice_envs", "agents"):  # agents/ installs as dice_envs.agents
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            scanned += 1
            for line, text in _docstrings(ast.parse(path.read_text(encoding="utf-8"))):
                found += _notebook_words(text, where, line)
    assert scanned > 100
    assert not found, "\n".join(found)


# -- the learner pages: CleanRL's form ---------------------------------------------------------------------------------

LEARNERS = ("maskable_ppo", "escher", "pbs", "mmd_full_width", "mccfr", "mmd", "ppo", "rllib_ppo")


@pytest.mark.parametrize("learner", LEARNERS)
def test_a_learner_page_has_cleanrls_sections_and_one_results_table_of_presets(learner):
    page = (ROOT / "docs" / "learners" / f"{learner}.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", page, flags=re.M)
    assert headings[:4] == ["Overview", "Usage", "Implementation details", "Results"], headings
    assert "dice-envs train " in page.split("## Usage")[1].split("## ")[0]
    results = page.split("## Results")[1].split("\n## ")[0]
    tables = re.findall(r"(?:^\|.*\|\n)+", results, flags=re.M)
    assert len(tables) == 1, f"{learner}: one Results table"
    rows = tables[0].splitlines()[2:]
    assert rows and all(re.match(r"\| `[a-z0-9-]+`", row) and "preset" in tables[0].splitlines()[0] for row in rows)
    for image in re.findall(r"\]\((\.\./images/learners/[^)]+)\)", results):
        path = (ROOT / "docs" / "learners" / image).resolve()
        assert path.is_file() and path.stat().st_size < 100_000, image


def test_the_learner_figures_are_small():
    figures = list((ROOT / "docs" / "images" / "learners").glob("*.png"))
    assert len(figures) >= 16
    assert all(figure.stat().st_size < 100_000 for figure in figures)
