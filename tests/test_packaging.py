"""The wheel as a user gets it: built, installed non-editable into a fresh venv, used from elsewhere.

The repository keeps ``agents/`` at its top level, but it installs as
``dice_envs.agents``: the wheel's only top-level name is ``dice_envs`` (a generic
name such as ``agents`` would collide with other packages).  The fresh venv gets the
wheel alone; its dependencies come from the test's own environment through a
``.pth`` line, so the test needs no network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

import dice_envs

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # Built from a copy of the sources: setuptools' build/ folder in the checkout could
    # hold stale modules that would end up in the wheel.
    source = tmp_path_factory.mktemp("source")
    for name in ("dice_envs", "agents"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-w", str(out), str(source)],
        check=True, capture_output=True, text=True,
    )
    (path,) = out.glob("dice_envs-*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed (not editable); returns its ``bin`` folder."""
    home = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(home)
    python = home / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
         "--no-index", "--disable-pip-version-check", str(wheel)],
        check=True, capture_output=True, text=True,
    )
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # Dependencies (numpy, gymnasium, ...) from this environment, after the venv's own packages.
    # A plain path line: the editable install's own .pth hooks there are not run.
    Path(site, "zz_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return home / "bin"


def test_the_wheel_installs_one_top_level_name_and_every_module(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"dice_envs"}
    for folder, package in ((ROOT / "dice_envs", "dice_envs"), (ROOT / "agents", "dice_envs/agents")):
        for source in folder.rglob("*.py"):
            assert f"{package}/{source.relative_to(folder).as_posix()}" in names, source
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "dice_envs/py.typed" in names  # PEP 561: type checkers read the package's annotations
    for room in ("pig", "zombie_dice", "liars_dice"):  # the trainers' presets (dice-envs train GAME --preset NAME)
        assert f"dice_envs/agents/{room}/presets.toml" in names, room


def test_the_installed_wheel_runs_from_outside_the_repository(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    cli = subprocess.run([str(installed / "dice-envs"), "--version"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, check=True)
    assert cli.stdout.strip() == f"dice-envs {dice_envs.__version__}"
    solve = subprocess.run([str(installed / "dice-envs"), "solve", "pig", "--goal", "10", "--json"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert '"first_player_win"' in solve.stdout
    for game, preset in (("pig", "maskable-ppo"), ("liars-dice", "escher-1v2-aces")):  # the presets ship as data
        train = subprocess.run([str(installed / "dice-envs"), "train", game, "--help"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, check=True)
        assert "--preset NAME" in train.stdout and preset in train.stdout, train.stdout
    script = (
        "import importlib.util, gymnasium, pettingzoo, dice_envs\n"
        "from dice_envs.agents import zombie_dice_ayzd_solver\n"
        "assert importlib.util.find_spec('agents') is None\n"
        "env = pettingzoo.make('aec', 'dice_envs/liars_dice-v0')\n"
        "env.reset(seed=0)\n"
        "env.step(int(env.observe(env.agent_selection)['action_mask'].argmax()))\n"
        "g = gymnasium.make('dice_envs/ZombieDice-v0', opponent='minh', goal=6)\n"
        "obs, info = g.reset(seed=0)\n"
        "obs, r, term, trunc, info = g.step(1)\n"
        "print(dice_envs.__file__)\n"
    )
    run = subprocess.run([str(installed / "python"), "-c", script], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert Path(run.stdout.strip()).resolve().is_relative_to(installed.parent.resolve())


def test_the_extras_take_a_torch_range_and_the_run_pin_admits_the_cpu_build():
    """A project with its own torch can add ``[train]``, ``[torchrl]`` or ``[rllib]``; ``./run``'s exact pin
    (``constraints.txt``) is met by the CPU build's local version, ``2.13.0+cpu``, which PyTorch's CPU index
    serves and which pip prefers to PyPI's ``2.13.0`` (a CUDA build)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11
    from packaging.requirements import Requirement
    from packaging.version import Version

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for name in ("train", "torchrl", "rllib"):
        torch = [Requirement(r) for r in extras[name] if Requirement(r).name == "torch"]
        assert torch and all(not any(s.operator in ("==", "===") for s in r.specifier) for r in torch), name
        assert all(r.specifier.contains("2.13.0") and r.specifier.contains("2.15.0") for r in torch), name
    pins = [Requirement(line) for line in (ROOT / "constraints.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    (torch,) = [r for r in pins if r.name == "torch"]
    assert torch.specifier.contains("2.13.0+cpu") and Version("2.13.0+cpu") > Version("2.13.0")
