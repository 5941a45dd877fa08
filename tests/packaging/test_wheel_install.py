"""The hub, the team hub and the proxy run from the built wheels in a fresh venv.

Nothing here comes from the development venv: the wheels are built as the Dockerfile builds
them and installed with `--no-index`, once with the `embed` extra and once without, and every
command runs from that venv as a real process.
"""

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from tests.conftest import (
    HubProcess,
    free_port,
    fresh_postgres_schema,
    process_env,
    stop_process,
)
from tests.helpers import McpHttpClient
from tests.jsonrpc_messages import initialize_request, tool_call_request
from tests.packaging.dockerfile import DOCKERFILE, final_stage
from tests.packaging.wheelhouse import (
    Installed,
    UserInstall,
    assert_pip_check_is_clean,
    fresh_venv,
    pip_env,
    user_install,
)
from tests.proxy.process import ProxyProcess, tool_text

# The first run on a machine builds every wheel, two venvs and a user install (about a minute
# alone, several beside the rest of the suite); later runs find them built.
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

READY_SECONDS: Final = 60.0
CLI_SECONDS: Final = 60.0
STAGE: Final = final_stage(DOCKERFILE.read_text())


@pytest.fixture(scope="module")
def with_embed() -> Installed:
    return fresh_venv("aletheia-memhub[embed]")


@pytest.fixture(scope="module")
def keyword_only() -> Installed:
    return fresh_venv("aletheia-memhub")


def run(installed: Installed, command: str, *args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(installed.bin / command), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def wheel_env(tmp_path: Path) -> dict[str, str]:
    env = process_env()
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    env.pop("VIRTUAL_ENV", None)
    return env


def save_and_find(client: McpHttpClient, text: str) -> None:
    client.initialize()
    tools = client.request("tools/list")["result"]["tools"]
    assert len(tools) == 13
    assert client.text("save_memory", {"text": text, "project": "shop"}).startswith("Saved as #")
    assert text.split()[0] in client.text("search", {"query": text, "project": "shop"})


@pytest.fixture
def hub_from_wheels(with_embed: Installed, tmp_path: Path) -> Iterator[HubProcess]:
    env = wheel_env(tmp_path)
    env["ALETHEIA_EMBEDDER"] = "auto"  # the model must load from the installed wheels
    hub = HubProcess(env, bin_dir=with_embed.bin)
    try:
        yield hub
    finally:
        hub.stop()


def test_pip_check_is_clean_with_and_without_the_embed_extra(
    with_embed: Installed, keyword_only: Installed
) -> None:
    for installed in (with_embed, keyword_only):
        assert_pip_check_is_clean(installed)


def test_the_fresh_venv_holds_no_development_requirement(with_embed: Installed) -> None:
    listed = subprocess.run(
        with_embed.pip("list", "--format", "json"),
        env=pip_env(isolated=True),
        capture_output=True,
        text=True,
        timeout=CLI_SECONDS,
        check=True,
    )
    names = {item["name"].lower() for item in json.loads(listed.stdout)}
    ours = {"aletheia-memhub", "aletheia-memhub-proxy", "aletheia-memhub-shared"}
    assert {*ours, "onnxruntime"} <= names
    assert not names & {"mcp", "pytest", "hypothesis", "ruff", "mypy", "playwright", "uv"}


def test_the_server_from_the_wheels_serves_mcp_and_loads_the_model(
    hub_from_wheels: HubProcess,
) -> None:
    with httpx.Client(base_url=hub_from_wheels.base_url, timeout=30) as http:
        save_and_find(McpHttpClient(http), "Wheels hold every module the hub imports")
        deadline = time.monotonic() + READY_SECONDS
        while (search := http.get("/healthz").json()["search"])["embedder"] == "loading":
            assert time.monotonic() < deadline, "the model did not load from the wheels"
            time.sleep(0.1)
        assert search["embedder"] == "ready", search


def test_the_proxy_from_the_wheels_forwards_a_line(
    with_embed: Installed, hub_from_wheels: HubProcess, tmp_path: Path
) -> None:
    env = wheel_env(tmp_path)
    env["ALETHEIA_HUB_URL"] = hub_from_wheels.mcp_url
    proxy = ProxyProcess(env, program=with_embed.bin / "aletheia-mcp")
    try:
        reply = proxy.request(initialize_request(1))
        assert reply["result"]["serverInfo"]["name"]
        saved = proxy.request(tool_call_request("save_memory", {"text": "Through the proxy"}, 2))
        assert tool_text(saved).startswith("Saved as #")
    finally:
        stop_process(proxy.process)


def team_hub_serves_a_token(installed: Installed, env: dict[str, str], store: list[str]) -> None:
    created = run(
        installed,
        "aletheia",
        "mcp-link",
        "create",
        "--projects",
        "shop",
        "--scope",
        "sync",
        *store,
        env=env,
    )
    secret = created.strip().splitlines()[-1]
    hub = HubProcess(env, "aletheia-sync", *store, bin_dir=installed.bin)
    try:
        with httpx.Client(base_url=hub.base_url, timeout=30) as http:
            assert (
                McpHttpClient(http).post({"jsonrpc": "2.0", "id": 1, "method": "ping"}).status_code
                == 401
            )
            save_and_find(McpHttpClient(http, token=secret), "Team hub from the wheels")
    finally:
        hub.stop()


def test_the_team_hub_from_the_wheels_serves_a_token_on_sqlite(
    with_embed: Installed, tmp_path: Path
) -> None:
    team_hub_serves_a_token(
        with_embed, wheel_env(tmp_path), ["--hub-db", str(tmp_path / "team.db")]
    )


@pytest.mark.postgres
def test_the_team_hub_from_the_wheels_serves_a_token_on_postgresql(
    with_embed: Installed, tmp_path: Path
) -> None:
    with fresh_postgres_schema() as url:
        team_hub_serves_a_token(with_embed, wheel_env(tmp_path), ["--database-url", url])


def test_without_the_embed_extra_the_hub_serves_and_says_search_is_keyword_only(
    keyword_only: Installed, tmp_path: Path
) -> None:
    env = wheel_env(tmp_path)
    env["ALETHEIA_EMBEDDER"] = "auto"
    hub = HubProcess(env, bin_dir=keyword_only.bin)
    try:
        with httpx.Client(base_url=hub.base_url, timeout=30) as http:
            client = McpHttpClient(http)
            save_and_find(client, "Keyword search needs no model")
            search = http.get("/healthz").json()["search"]
            assert search["embedder"] == "unavailable", search
            assert "onnxruntime" in search["problem"]
            answer = client.text("search", {"query": "keyword model", "project": "shop"})
            assert "keyword-only" in answer
    finally:
        hub.stop()


def image_command(installed: Installed, command: list[str], volume: Path) -> list[str]:
    """A Dockerfile command as this machine runs it: the venv's programs, the volume at
    `volume`."""
    program = installed.python if command[0] == "python" else installed.bin / command[0]
    (mount,) = STAGE.volumes
    return [str(program), *(arg.replace(mount, str(volume), 1) for arg in command[1:])]


def image_env(volume: Path, port: int) -> dict[str, str]:
    """The image's ENV, its paths in the volume at `volume`."""
    (mount,) = STAGE.volumes
    env = process_env()
    for name, value in STAGE.env.items():
        inside = value == mount or value.startswith(mount + "/")
        env[name] = str(volume) + value[len(mount) :] if inside else value
    env["ALETHEIA_PORT"] = str(port)
    return env


def health_check(installed: Installed, env: dict[str, str], volume: Path) -> int:
    done = subprocess.run(
        image_command(installed, STAGE.healthcheck, volume),
        env=env,
        capture_output=True,
        timeout=30,
        check=False,
    )
    return done.returncode


def test_the_dockerfile_runs_the_team_hub_on_its_volume_as_a_non_root_user() -> None:
    assert STAGE.cmd[0] == "aletheia-sync"
    assert STAGE.volumes == ["/data"]
    assert STAGE.env["ALETHEIA_DATA_DIR"] == "/data"
    assert any(arg.startswith("/data/") for arg in STAGE.cmd)
    assert "python" in STAGE.healthcheck[0] and "/readyz" in " ".join(STAGE.healthcheck)
    assert STAGE.user not in ("", "root", "0")


def test_the_image_command_passes_its_health_check_and_serves_the_tokens_aletheia_creates(
    with_embed: Installed, tmp_path: Path
) -> None:
    port = free_port()
    env = image_env(tmp_path, port)
    assert health_check(with_embed, env, tmp_path) != 0  # nothing answers yet
    hub = subprocess.Popen(
        image_command(with_embed, STAGE.cmd, tmp_path),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + READY_SECONDS
        while health_check(with_embed, env, tmp_path) != 0:
            assert hub.poll() is None, hub.stderr.read().decode() if hub.stderr else ""
            assert time.monotonic() < deadline, f"no passing health check in {READY_SECONDS} s"
        assert (tmp_path / "team.db").stat().st_size > 0
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        refused = httpx.post(f"http://127.0.0.1:{port}/mcp", json=ping, timeout=10)
        assert refused.status_code == 401  # team mode: every /mcp call needs a token
        # `docker exec <container> aletheia mcp-link create ...`: the image's ENV alone names
        # the store, and the hub its CMD started accepts the token.
        created = run(
            with_embed,
            "aletheia",
            "mcp-link",
            "create",
            "--projects",
            "shop",
            "--scope",
            "sync",
            env=env,
        )
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            client = McpHttpClient(http, token=created.strip().splitlines()[-1])
            save_and_find(client, "One store for every command in the image")
        assert sorted(path.name for path in tmp_path.glob("*.db")) == ["team.db"]
    finally:
        stop_process(hub)
        if hub.stderr is not None:
            hub.stderr.close()


@pytest.fixture(scope="module")
def for_a_user() -> UserInstall:
    return user_install()


def test_install_user_puts_the_commands_on_path_and_hosts_get_its_proxy(
    for_a_user: UserInstall, tmp_path: Path
) -> None:
    # Installed into a HOME of its own from the wheels built above, offline (--find-links);
    # the commands then run with a HOME of the test's own.
    assert "is not on PATH" in for_a_user.printed
    for name in ("aletheia", "aletheia-server", "aletheia-sync", "aletheia-mcp"):
        assert (for_a_user.bin_dir / name).resolve() == (for_a_user.venv / "bin" / name).resolve()
    home = tmp_path / "home"
    home.mkdir()
    user_env = process_env()
    user_env.update(HOME=str(home), PATH=f"{for_a_user.bin_dir}:/usr/bin:/bin")
    version = subprocess.run(
        ["aletheia", "--version"], env=user_env, capture_output=True, text=True, timeout=60
    )
    assert version.returncode == 0 and version.stdout.startswith("aletheia "), version
    wrote = subprocess.run(
        ["aletheia", "install", "claude-code", "--write"],
        env=user_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    entry: dict[str, Any] = json.loads((home / ".claude.json").read_text())["mcpServers"][
        "aletheia"
    ]
    assert entry["command"] == str(for_a_user.venv / "bin" / "aletheia-mcp")
