"""A process on this machine: whether it runs, when it started, whether it holds a port, and
ending it within a deadline. Read by the runtime entries of running hubs and by the commands
that list and stop them."""

import os
import signal
import sys
import time
from pathlib import Path
from typing import Final

POLL_SECONDS: Final = 0.05
KILL_WAIT_SECONDS: Final = 5.0
_LISTEN: Final = "0A"  # the LISTEN state in /proc/net/tcp


def is_running(pid: int) -> bool:
    """Whether `pid` is a live process; a zombie counts as gone. Where that cannot be asked
    without a signal (Windows, where signal 0 is Ctrl+C), every pid counts as running."""
    if sys.platform == "win32":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (macOS): it answered the signal
    return stat.rpartition(")")[2].split()[0] != "Z"


def process_start(pid: int) -> str | None:
    """When `pid` started, as `<boot id>:<clock ticks since boot>` (read from /proc), or None
    where there is no /proc or no such process: a pid seen again with another start is
    another process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    return f"{boot}:{fields[19]}" if len(fields) > 19 else None


def holds_port(pid: int, port: int) -> bool | None:
    """Whether `pid` holds a listening TCP socket on `port` (read from /proc), or None where
    there is no /proc to tell. A hub in a container names a pid of its own namespace: this is
    what keeps that number from being signalled on the host."""
    inodes = _listening_sockets(port)
    if inodes is None:
        return None
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for descriptor in descriptors:
        try:
            target = os.readlink(descriptor)
        except OSError:
            continue
        if target.startswith("socket:[") and target[len("socket:[") : -1] in inodes:
            return True
    return False


def _listening_sockets(port: int) -> set[str] | None:
    """The inodes of this network namespace's listening sockets on `port`; None without /proc."""
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        return None
    inodes = set()
    for table in tables:
        try:
            rows = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            listening = len(fields) > 9 and fields[3] == _LISTEN
            if listening and int(fields[1].rpartition(":")[2], 16) == port:
                inodes.add(fields[9])
    return inodes


def end_process(pid: int, timeout: float) -> bool:
    """SIGTERM `pid` and wait for it to go, polling until `timeout`; past it, SIGKILL.

    True when it stopped by itself, False when it had to be killed. PermissionError when the
    process is not ours to signal.
    """
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    if _gone_within(pid, timeout):
        return True
    try:
        os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    except ProcessLookupError:
        return True
    _gone_within(pid, KILL_WAIT_SECONDS)
    return False


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while is_running(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_SECONDS)
    return True
