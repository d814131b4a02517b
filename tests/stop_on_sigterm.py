"""The test run stops on SIGTERM and takes the processes it started with it (a pytest plugin,
loaded by ``conftest.py``).

``kill -TERM`` of pytest (the controller of ``-n`` workers, or a single process) sends SIGTERM on to
every process the run started and theirs (its workers, and the scripts, trainers and tools the
tests start), then stops the run as ``pytest.exit`` does; each worker does the same with its own.
A test waiting on a child through ``subprocess.run`` kills it as the run stops, and a trainer
running in the test's process, which stops on SIGTERM as on Ctrl-C, passes the signal on here
once it has saved (:func:`dice_envs.agents.learn.runs.run_script`), so the run does not go on.
"""

from __future__ import annotations

import os
import signal
import threading

import pytest

from dice_envs.agents.learn.process_reaper import descendants

_previous: list = []


def _stop(signum, frame):
    try:
        started = descendants({os.getpid()})
    except OSError:  # no /proc to read (not Linux)
        started = set()
    for pid, _ in started:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:  # ended meanwhile
            pass
    pytest.exit(f"SIGTERM: the test run stops (sent on to {len(started)} processes it started)",
                returncode=128 + signum)


def pytest_configure(config):
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        _previous[:] = [signal.signal(signal.SIGTERM, _stop)]


def pytest_unconfigure(config):
    if _previous:
        signal.signal(signal.SIGTERM, _previous.pop())
