"""The package ships ``py.typed`` (PEP 561): mypy, with its default settings, passes on it.

mypy checks the package in the layout the wheel installs: ``agents/`` is ``dice_envs/agents``
there (pyproject's ``package-dir``).  In the repository that mapping is an import hook of the
editable install, which mypy cannot follow: ``mypy dice_envs agents`` checks ``agents/`` under
its own name and leaves its ``dice_envs.agents`` imports unresolved (pyproject's mypy section
says so), so a copy in the installed layout is what lets every import be checked.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_passes_on_the_package(tmp_path):
    pytest.importorskip("mypy")
    package = tmp_path / "dice_envs"
    shutil.copytree(ROOT / "dice_envs", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "agents", package / "agents", ignore=shutil.ignore_patterns("__pycache__"))
    # A cache of the test's own: nothing written in the checkout (a cold run, about 30 s).
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "mypy_cache"), "-p", "dice_envs"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    report = result.stdout.replace("dice_envs/agents/", "agents/")  # the repository's paths
    assert result.returncode == 0, report + result.stderr
