"""Start a local hub when none answers, detached so it outlives this proxy."""

import logging
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

from aletheia_proxy.transport import HubClient
from aletheia_shared import env

logger = logging.getLogger("aletheia_proxy")

START_DEADLINE_SECONDS: Final = 20.0
POLL_SECONDS: Final = 0.05
OTHER_HUB_GRACE_SECONDS: Final = 3.0


def server_executable() -> str | None:
    """aletheia-server beside this interpreter, else on PATH."""
    beside = Path(sys.executable).with_name("aletheia-server")
    if beside.exists():
        return str(beside)
    return shutil.which("aletheia-server")


def data_dir(environ: dict[str, str]) -> Path:
    configured = environ.get(env.DATA_DIR)
    return Path(configured).expanduser() if configured else Path.home() / env.DEFAULT_DATA_DIR_NAME


def start_local_hub(hub: HubClient) -> bool:
    """Launch `aletheia-server` on loopback with the same store, and wait until it answers."""
    executable = server_executable()
    if executable is None:
        logger.error("aletheia-server is not installed next to aletheia-mcp or on PATH")
        return False
    folder = data_dir(hub.config.hub_environment)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "hub.log").open("ab") as log:
        process = subprocess.Popen(
            [executable, "--host", env.DEFAULT_HOST, "--port", str(hub.config.port), "--quiet"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=hub.config.hub_environment,
            cwd=folder,
            start_new_session=True,
        )
    logger.info("started a local hub (pid %s) on port %s", process.pid, hub.config.port)
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    while time.monotonic() < deadline:
        if _record_serving_hub(hub, folder):
            return True
        if process.poll() is not None:
            # It exited: most likely another proxy's hub took the port first. Use that one,
            # but do not wait long for a hub that may never come.
            grace = min(deadline, time.monotonic() + OTHER_HUB_GRACE_SECONDS)
            return _wait_for_other_hub(hub, folder, grace)
        time.sleep(POLL_SECONDS)
    logger.error("the local hub did not answer within %.0f s", START_DEADLINE_SECONDS)
    return False


def _record_serving_hub(hub: HubClient, folder: Path) -> bool:
    """When a hub answers, write the pid of the one that serves to hub.pid."""
    answer = hub.health()
    if answer is None:
        return False
    pid = answer.get("pid")
    if isinstance(pid, int):
        (folder / "hub.pid").write_text(f"{pid}\n")
    return True


def _wait_for_other_hub(hub: HubClient, folder: Path, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if _record_serving_hub(hub, folder):
            return True
        time.sleep(POLL_SECONDS)
    logger.error("the local hub exited; see hub.log in %s", folder)
    return False
