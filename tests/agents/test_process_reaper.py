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
