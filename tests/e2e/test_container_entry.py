"""The image's entry point and health check, run as plain processes (no Docker engine here).

The commands are parsed from the Dockerfile's final stage: CMD and HEALTHCHECK as written,
with its ENV, its volume at a temporary folder and ALETHEIA_PORT on a free port.
"""

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import httpx
import pytest

from tests.conftest import BIN, free_port, process_env, stop_process

pytestmark = pytest.mark.e2e

DOCKERFILE: Final = Path(__file__).resolve().parents[2] / "Dockerfile"
READY_SECONDS: Final = 30.0


@dataclass
class FinalStage:
    env: dict[str, str] = field(default_factory=dict)
    volumes: list[str] = field(default_factory=list)
    cmd: list[str] = field(default_factory=list)
    healthcheck: list[str] = field(default_factory=list)


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction, continuation lines joined, comments left out."""
    joined: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in joined]


def final_stage(text: str) -> FinalStage:
    stage = FinalStage()
    for instruction, arguments in instructions(text):
        if instruction == "FROM":
            stage = FinalStage()
        elif instruction == "ENV":
            for pair in arguments.split():
                key, _, value = pair.partition("=")
                stage.env[key] = value
        elif instruction == "VOLUME":
            stage.volumes += arguments.split()
        elif instruction == "CMD":
            stage.cmd = json.loads(arguments)
        elif instruction == "HEALTHCHECK":
            stage.healthcheck = json.loads(arguments[arguments.index("CMD ") + 4 :])
    return stage


STAGE: Final = final_stage(DOCKERFILE.read_text())


def local(command: list[str], volume: Path) -> list[str]:
    """The command as this machine runs it: the venv's programs, the volume at `volume`."""
    program = sys.executable if command[0] == "python" else str(BIN / command[0])
    (mount,) = STAGE.volumes
    return [program, *(arg.replace(mount, str(volume), 1) for arg in command[1:])]


def image_env(volume: Path, port: int) -> dict[str, str]:
    env = process_env()
    env.update(STAGE.env)
    env["ALETHEIA_DATA_DIR"] = str(volume)
    env["ALETHEIA_PORT"] = str(port)
    return env


def health_check(env: dict[str, str], volume: Path) -> int:
    done = subprocess.run(
        local(STAGE.healthcheck, volume), env=env, capture_output=True, timeout=30, check=False
    )
    return done.returncode


def test_the_dockerfile_runs_the_team_hub_on_its_volume_as_a_non_root_user() -> None:
    assert STAGE.cmd[0] == "aletheia-sync"
    assert STAGE.volumes == ["/data"]
    assert STAGE.env["ALETHEIA_DATA_DIR"] == "/data"
    assert any(arg.startswith("/data/") for arg in STAGE.cmd)
    assert "python" in STAGE.healthcheck[0] and "/readyz" in " ".join(STAGE.healthcheck)
    users = [args for name, args in instructions(DOCKERFILE.read_text()) if name == "USER"]
    assert users and users[-1] not in ("root", "0")


def test_the_health_check_fails_while_no_hub_answers(tmp_path: Path) -> None:
    assert health_check(image_env(tmp_path, free_port()), tmp_path) != 0


def test_the_image_command_serves_the_team_hub_and_passes_the_health_check(
    tmp_path: Path,
) -> None:
    port = free_port()
    env = image_env(tmp_path, port)
    hub = subprocess.Popen(
        local(STAGE.cmd, tmp_path),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + READY_SECONDS
        while health_check(env, tmp_path) != 0:
            assert hub.poll() is None, hub.stderr.read().decode() if hub.stderr else ""
            assert time.monotonic() < deadline, (
                f"the health check did not pass in {READY_SECONDS} s"
            )
        assert (tmp_path / "team.db").exists()
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        refused = httpx.post(f"http://127.0.0.1:{port}/mcp", json=ping, timeout=10)
        assert refused.status_code == 401  # team mode: every /mcp call needs a token
    finally:
        stop_process(hub)
        if hub.stderr is not None:
            hub.stderr.close()
    assert os.path.getsize(tmp_path / "team.db") > 0
