"""Start a local hub, detached so it outlives this proxy, and the checks that decide to.

The proxy never records a hub itself: a hub writes its own record (pid, port, store) once it
serves, so a record never names a process that did not write it.
"""

import contextlib
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

from aletheia_proxy.config import ProxyConfig
from aletheia_shared import env

logger = logging.getLogger("aletheia_proxy")

START_DEADLINE_SECONDS: Final = 20.0
POLL_SECONDS: Final = 0.05
OTHER_HUB_GRACE_SECONDS: Final = 3.0
LOG_NAME: Final = "hub.log"


def server_executable() -> str | None:
    """aletheia-server beside this interpreter, else on PATH."""
    beside = Path(sys.executable).with_name("aletheia-server")
    if beside.exists():
        return str(beside)
    return shutil.which("aletheia-server")


def nothing_listens(port: int) -> bool:
    """Whether a connection to the loopback port is refused: the one sign that no hub is there.

    A timeout, a reset or an HTTP error comes from something that holds the port; a hub
    started beside it could only die on the taken port.
    """
    try:
        with socket.create_connection((env.DEFAULT_HOST, port), timeout=1.0):
            return False
    except ConnectionRefusedError:
        return True
    except OSError:
        return False


def spawn_hub(config: ProxyConfig, port: int) -> "subprocess.Popen[bytes] | None":
    """Launch `aletheia-server` on loopback for the proxy's store; port 0 takes a free one."""
    executable = server_executable()
    if executable is None:
        logger.error("aletheia-server is not installed next to aletheia-mcp or on PATH")
        return None
    folder = config.data_dir
    _make_private_folder(folder)
    # Started on demand, so it stops by itself once no host has used it for a while.
    command = [executable, "--host", env.DEFAULT_HOST, "--port", str(port), "--quiet"]
    command += ["--started-by", "proxy"]
    with open(folder / LOG_NAME, "ab", opener=_private_opener) as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=config.hub_environment,
            cwd=folder,
            start_new_session=True,
        )
    logger.info("started a local hub (pid %s) for %s", process.pid, config.store)
    return process


def _make_private_folder(path: Path) -> None:
    """Create the data dir (and missing folders above it) 0700, as the hub does: the store it
    will hold is the user's alone. One that exists keeps its mode."""
    missing = []
    for folder in (path, *path.parents):
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)


def _private_opener(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_CLOEXEC, 0o600)  # the hub's log and lock: the user's


def wait_for(
    ready: Callable[[], bool], process: "subprocess.Popen[bytes]", *, others_may_win: bool
) -> bool:
    """Poll `ready` until it holds, within the start deadline.

    When the started hub exits (most likely another proxy's hub took the port first), go on
    polling a short while for that other hub if `others_may_win`.
    """
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    exited = False
    while time.monotonic() < deadline:
        if ready():
            return True
        if not exited and process.poll() is not None:
            exited = True
            if not others_may_win:
                break
            deadline = min(deadline, time.monotonic() + OTHER_HUB_GRACE_SECONDS)
        time.sleep(POLL_SECONDS)
    if exited:
        logger.error("the local hub exited; see %s in the data dir", LOG_NAME)
    else:
        logger.error("the local hub did not answer within %.0f s", START_DEADLINE_SECONDS)
    return False


@contextlib.contextmanager
def exclusive(lock_file: Path) -> Iterator[None]:
    """Hold a lock on `lock_file` while finding or starting the hub of one store, so that
    proxies starting at once do not each start a hub. Best effort: after the start deadline,
    or where there is no flock, go on without it."""
    if sys.platform == "win32":
        yield
        return
    import fcntl

    _make_private_folder(lock_file.parent)
    with open(lock_file, "a", opener=_private_opener) as handle:
        deadline = time.monotonic() + START_DEADLINE_SECONDS + OTHER_HUB_GRACE_SECONDS
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(POLL_SECONDS)
        yield  # closing the file releases the lock
