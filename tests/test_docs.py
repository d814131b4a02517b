"""The documentation site (``mkdocs.yml``, ``docs/``) builds with ``mkdocs build --strict``.

Strict mode turns every warning into an error: a broken link or anchor, a page missing from
the nav, a ``::: module`` that mkdocstrings cannot find, a docstring griffe cannot parse.  The
site is built into a temporary folder, so nothing is written to the repository.  Needs the
``[docs]`` extra; skipped without it.
"""

from __future__ import annotations

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
