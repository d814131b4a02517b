"""Checks that take minutes, run beside the suite.

A test marked ``@pytest.mark.beside(args)`` needs the output of ``python -m dice_envs *args`` (the
``dice-envs`` command line), which takes minutes on one core, such as the exact re-score of a
model of the full Zombie Dice game.  The command starts in a second process as soon as the suite
is collected, runs on the machine's other core while the rest of the suite runs, and the marked
tests run last, reading its output (fixture ``beside_output``).  Nothing starts for
``--collect-only`` or when no marked test is selected.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_STARTED: dict = {}  # command arguments -> (process, stdout file, stderr file)


def pytest_configure(config):
    config.addinivalue_line("markers", "beside(args): the test reads the output of `python -m dice_envs *args`, "
                                       "started in a second process at collection; it runs last")


def pytest_collection_modifyitems(session, config, items):
    beside = [item for item in items if item.get_closest_marker("beside")]
    if not beside or config.option.collectonly:
        return
    items[:] = [item for item in items if not item.get_closest_marker("beside")] + beside
    for item in beside:
        args = tuple(item.get_closest_marker("beside").args[0])
        if args not in _STARTED:
            out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
            process = subprocess.Popen([sys.executable, "-m", "dice_envs", *args], cwd=ROOT, stdout=out, stderr=err,
                                       text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
            _STARTED[args] = (process, out, err)


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_in_the_session_directory(tmp_path_factory):
    """Stable-Baselines3 makes a folder for its logger at every ``learn`` (``/tmp/SB3-<time>``,
    empty when nothing is logged) unless ``SB3_LOGDIR`` names one: name the session's, so that
    the suite leaves nothing in ``/tmp`` (training processes the tests start inherit it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))
        yield


@pytest.fixture
def beside_output(request) -> str:
    """The standard output of the marked test's command, once it has ended (it must succeed)."""
    process, out, err = _STARTED[tuple(request.node.get_closest_marker("beside").args[0])]
    code = process.wait(timeout=3600)
    err.seek(0)
    assert code == 0, f"`python -m dice_envs {' '.join(process.args[3:])}` failed ({code}): {err.read()[-3000:]}"
    out.seek(0)
    return out.read()


def pytest_sessionfinish(session, exitstatus):
    for process, out, err in _STARTED.values():
        if process.poll() is None:
            process.kill()
            process.wait()
        out.close()
        err.close()
