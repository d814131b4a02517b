"""A trainer killed with -9 leaves no process behind (dice_envs.agents.learn.process_reaper)."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from dice_envs.agents.learn import process_reaper

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the watchdog reads /proc")

#: a trainer with the shape of a local Ray run: a child that has a child of its own (raylet and
#: its agents), none of which ends when the trainer is killed; it prints both pids and waits
TRAINER = textwrap.dedent("""
    import subprocess, sys, time
    {start}
    child = subprocess.Popen([sys.executable, "-c",
        "import subprocess, sys, time; g = subprocess.Popen(['sleep', '300']); "
        "print(g.pid, flush=True); time.sleep(300)"],
        stdout=subprocess.PIPE, text=True)
    print(child.pid, child.stdout.readline().strip(), flush=True)
    time.sleep(300)
""")


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def kill_trainer(start: str):
    """Run the trainer, kill it with -9 once its descendants exist; return their pids."""
    trainer = subprocess.Popen([sys.executable, "-c", TRAINER.format(start=start)], stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in trainer.stdout.readline().split()]
    time.sleep(3 * process_reaper.POLL_SECONDS)  # the watchdog's look after they started
    trainer.send_signal(signal.SIGKILL)
    trainer.wait()
    return pids


def test_descendants_of_a_killed_trainer_are_ended():
    pids = kill_trainer("from dice_envs.agents.learn import process_reaper; process_reaper.start()")
    deadline = time.monotonic() + 10
    while any(running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(running(p) for p in pids)


def test_without_the_watchdog_they_outlive_it():
    """The failure the watchdog answers (so the test above can fail)."""
    pids = kill_trainer("")
    try:
        time.sleep(1)
        assert all(running(p) for p in pids)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGKILL)


def test_descendants_reads_the_process_tree():
    child = subprocess.Popen(["sleep", "30"])
    try:
        assert child.pid in {pid for pid, _ in process_reaper.descendants({os.getpid()})}
    finally:
        child.kill()
        child.wait()


# -- the test run itself: SIGTERM stops it and the processes it started (tests/stop_on_sigterm.py) -------

#: a test that starts a child that computes for minutes, notes its pid and waits on it
WAITING_TEST = textwrap.dedent("""
    import os, subprocess, sys

    def test_waits_on_a_child():
        child = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        with open(os.environ["CHILD_PID_FILE"], "w") as fh:
            fh.write(str(child.pid))
        child.wait()
""")


def run_pytest_and_terminate(tmp_path, plugin: bool, workers: str):
    """Run WAITING_TEST in a pytest of its own, SIGTERM it once the child runs; returns
    (pytest's exit code or None if it ran on, the child's pid)."""
    test = tmp_path / "test_waiting.py"
    test.write_text(WAITING_TEST)
    pid_file = tmp_path / "child.pid"
    config = tmp_path / "pytest.ini"  # an empty config of its own (pytest 9 refuses -c /dev/null)
    config.write_text("[pytest]\n")
    tests_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "CHILD_PID_FILE": str(pid_file),
           "PYTHONPATH": os.pathsep.join(filter(None, [tests_dir, os.environ.get("PYTHONPATH")]))}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers, "--rootdir", str(tmp_path),
            "-c", str(config), *(["-p", "stop_on_sigterm"] if plugin else []), str(test)]
    output = tmp_path / "pytest.out"
    with output.open("w") as out:
        run = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.1)
    if not (pid_file.exists() and pid_file.read_text()):
        run.kill()
        run.wait()
        pytest.fail(f"the inner test run never started its child; it printed:\n{output.read_text()}")
    child = int(pid_file.read_text())
    run.send_signal(signal.SIGTERM)
    try:
        code = run.wait(timeout=15)
    except subprocess.TimeoutExpired:
        code = None
    return code, child, run


@pytest.mark.parametrize("workers", ["0", "1"])
def test_sigterm_stops_the_test_run_and_the_children_it_started(tmp_path, workers):
    code, child, run = run_pytest_and_terminate(tmp_path, plugin=True, workers=workers)
    try:
        assert code is not None  # the run stopped
        deadline = time.monotonic() + 10
        while running(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not running(child)
    finally:
        for pid in (child, run.pid):
            if running(pid):
                os.kill(pid, signal.SIGKILL)


def test_without_the_plugin_a_child_outlives_the_test_run(tmp_path):
    """The failure the plugin answers (so the test above can fail): the child computes on after
    the test run is gone."""
    code, child, run = run_pytest_and_terminate(tmp_path, plugin=False, workers="0")
    try:
        time.sleep(1)
        assert running(child)
    finally:
        os.kill(child, signal.SIGKILL)
        run.wait()
