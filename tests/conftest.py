"""Settings every test shares."""

import os
import sys

import pytest
from stop_on_sigterm import pytest_configure, pytest_unconfigure  # noqa: F401  (SIGTERM stops the run and its children)


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_in_the_session_directory(tmp_path_factory):
    """Stable-Baselines3 makes a folder for its logger at every ``learn`` (``/tmp/SB3-<time>``,
    empty when nothing is logged) unless ``SB3_LOGDIR`` names one: name the session's, so that
    the suite leaves nothing in ``/tmp`` (training processes the tests start inherit it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))
        yield


# One thread per process for torch and the BLAS libraries (OpenMP): pytest-xdist already runs one worker per
# core, and a worker whose torch also ran one thread per core slowed down several times over on a busy machine
# (experiments/notebook/2026-11-29-test-suite-time.md).  Before, the suite's order decided: a trainer sets one
# thread (--threads 1) for the rest of its worker.  Set before any test imports torch; the processes the tests
# start inherit it.
os.environ.setdefault("OMP_NUM_THREADS", "1")
if "torch" in sys.modules:  # imported by a plugin before this file: too late for the variable
    sys.modules["torch"].set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
