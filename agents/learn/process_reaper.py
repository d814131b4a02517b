"""No process outlives its run: a watchdog that ends a killed trainer's descendants (Linux).

A local Ray instance is started by the training process itself (``ray.init``): its GCS server,
raylet and their agents are the trainer's descendants.  Killed with ``kill -9``, the trainer
cannot call ``ray.shutdown()``; Ray's dashboard and runtime-env agents then run on for a while
after it before noticing.  The RLlib trainer (:mod:`dice_envs.agents.learn.rllib_training`) starts
one; it knows no game.

:func:`start` launches a small watchdog process (this file run as a script) in a session of its
own, so that a Ctrl-C sent to the trainer's terminal does not reach it.  Every half second it
notes the trainer's descendants from ``/proc`` (pid and start time, so a recycled pid is never
signalled).  As soon as the trainer is gone, however it ended, it sends SIGTERM to every noted
process still running, and to their own descendants; SIGKILL to what is left two seconds later;
then exits.  After a normal exit there is nothing left to end and it exits at once.

Only what was a descendant at the last look (up to half a second before the trainer died) is
ended, and only on Linux (elsewhere :func:`start` does nothing and returns ``None``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Dict, Optional, Set, Tuple

#: seconds between two looks at the trainer's descendants
POLL_SECONDS = 0.5
#: seconds between SIGTERM and SIGKILL
GRACE_SECONDS = 2.0

Process = Tuple[int, str]  # (pid, start time in clock ticks since boot)


def _processes() -> Dict[int, Tuple[int, str]]:
    """pid -> (parent pid, start time) of every running process, from ``/proc``."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:  # ended while we read
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after the command name, which may hold spaces
        table[int(name)] = (int(fields[1]), fields[19])
    return table


def descendants(roots: Set[int], table: Optional[Dict[int, Tuple[int, str]]] = None) -> Set[Process]:
    """The descendants of the pids ``roots`` (not the roots), as (pid, start time)."""
    table = _processes() if table is None else table
    children: Dict[int, list] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), list(roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if (child, table[child][1]) not in found:
                found.add((child, table[child][1]))
                todo.append(child)
    return found


def _signal_all(noted: Set[Process], sig: int) -> Set[Process]:
    """Send ``sig`` to each noted process still running as itself, and to its descendants;
    return those signalled."""
    table = _processes()
    alive = {(pid, start) for pid, start in noted if table.get(pid, (0, None))[1] == start}
    alive |= descendants({pid for pid, _ in alive}, table)
    for pid, _ in alive:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    return alive


def watch(trainer: int) -> None:
    """Note ``trainer``'s descendants until it is gone, then end them (the watchdog's loop)."""
    me = os.getpid()
    noted: Set[Process] = set()
    while os.getppid() == trainer:  # re-parented once the trainer is gone
        noted = {p for p in descendants({trainer}) if p[0] != me}
        time.sleep(POLL_SECONDS)
    if _signal_all(noted, signal.SIGTERM):
        time.sleep(GRACE_SECONDS)
        _signal_all(noted, signal.SIGKILL)


def start() -> Optional[subprocess.Popen]:
    """Start the watchdog for the calling process (Linux; elsewhere ``None``)."""
    if not sys.platform.startswith("linux") or not os.path.isdir("/proc"):
        return None
    return subprocess.Popen([sys.executable, os.path.abspath(__file__), str(os.getpid())],
                            start_new_session=True, stdin=subprocess.DEVNULL)


if __name__ == "__main__":
    watch(int(sys.argv[1]))
