"""Team hub fixtures: tokens, in-process team apps, real `aletheia-sync` processes, Redis."""

import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
import redis
import sqlalchemy
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store import tokens
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_shared import headers, jsonrpc
from tests.conftest import (
    BIN,
    free_port,
    prefill_store,
    process_env,
    require_service,
    stop_process,
    wait_until_ready,
)
from tests.helpers import McpHttpClient
from tests.jsonrpc_messages import initialize_request

REDIS_URL: Final = "redis://127.0.0.1:6379/0"
CLI_SECONDS: Final = 60
EXIT_SECONDS: Final = 15
_redis_state: dict[str, str | None] = {}


def redis_problem() -> str | None:
    """Why Redis cannot be used here, or None when it can (checked once)."""
    if "problem" not in _redis_state:
        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3, socket_timeout=3)
        try:
            client.ping()
            _redis_state["problem"] = None
        except redis.RedisError as error:
            _redis_state["problem"] = f"Redis at {REDIS_URL} unreachable: {error}"
        finally:
            client.close()
    return _redis_state["problem"]


def require_redis() -> None:
    """Skip without Redis; with CI=true a missing Redis fails the test instead."""
    require_service(redis_problem(), "Redis")


# --- tokens and stores -------------------------------------------------------------------------


def issue_token(
    url: str, scope: str = "sync", projects: list[str] | None = None, name: str | None = None
) -> tuple[str, str]:
    """(token id, secret) of a new token in the store at `url` (migrated first)."""
    db = Database(url)
    try:
        upgrade_to_head(db.engine)
        with db.write_session() as session:
            new = tokens.create_token(session=session, scope=scope, projects=projects, name=name)
    finally:
        db.dispose()
    return new.record.id, new.secret


def revoke(url: str, token_id: str) -> bool:
    db = Database(url)
    try:
        with db.write_session() as session:
            return tokens.revoke_token(session=session, token_id=token_id)
    finally:
        db.dispose()


def table_rows(url: str, table: str) -> list[dict[str, Any]]:
    """Every column of every row of a table, as dicts."""
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as connection:
            result = connection.execute(sqlalchemy.text(f"SELECT * FROM {table}"))
            return [dict(row._mapping) for row in result]
    finally:
        engine.dispose()


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


# --- in-process team apps ----------------------------------------------------------------------

TeamApp = Callable[..., TestClient]


@pytest.fixture
def team_app() -> Iterator[TeamApp]:
    """Start in-process team hubs: team_app(url, **settings); each is closed afterwards."""
    with ExitStack() as stack:

        def start(url: str, **overrides: Any) -> TestClient:
            values: dict[str, Any] = {
                "database_url": url,
                "team_mode": True,
                "rate_limit_per_minute": 10_000,
            }
            values.update(overrides)
            client = TestClient(create_app(Settings(**values)), base_url="http://127.0.0.1")
            return stack.enter_context(client)

        yield start


def session_for(http: Any, token: str, project: str | None = "shop") -> McpHttpClient:
    """An initialized MCP session made with `token`."""
    client = McpHttpClient(http, "/mcp", project=project, tool="tests", token=token)
    client.initialize()
    return client


def raw_session(http: Any, secret: str) -> McpHttpClient:
    """A session opened with exactly one request (no initialized notification)."""
    client = McpHttpClient(http, "/mcp", project="shop", tool="tests", token=secret)
    response = client.post(initialize_request())
    assert response.status_code == 200, response.text
    client.session_id = response.headers[headers.SESSION_ID]
    return client


def assert_unauthorized(response: Any) -> None:
    """A 401 with a Bearer challenge and a JSON-RPC error body."""
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith("Bearer"), response.headers
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["id"] is None
    assert body["error"]["code"] == jsonrpc.UNAUTHORIZED
    assert body["error"]["message"].startswith("Unauthorized"), body


# --- subprocesses --------------------------------------------------------------------------------


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This environment without any ALETHEIA_* variable, plus `extra`."""
    env = process_env()
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    env.update(extra)
    return env


def run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run `aletheia ARGS...` to completion (bounded), capturing stdout and stderr."""
    return subprocess.run(
        [str(BIN / "aletheia"), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_SECONDS,
        check=False,
    )


class SyncHub:
    """A real `aletheia-sync` on a free loopback port; stdout and stderr go to a log file."""

    def __init__(self, env: dict[str, str], *store_args: str) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.mcp_url = f"{self.base_url}/mcp"
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by start_sync)
        self.process = subprocess.Popen(
            [str(BIN / "aletheia-sync"), *store_args, "--port", str(self.port)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self) -> None:
        """Poll /readyz (bounded); a hub that does not come up is stopped and its log shown."""
        try:
            wait_until_ready(self.base_url, self.process)
        except (RuntimeError, TimeoutError) as error:
            self.stop()
            raise RuntimeError(f"aletheia-sync did not start: {error}\n{self.output}") from None

    @property
    def output(self) -> str:
        """Everything the process wrote so far (stdout and stderr)."""
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> None:
        stop_process(self.process, EXIT_SECONDS)


class StartSync:
    """start_sync(env, *store_args) starts one hub; .replicas(...) starts two at once."""

    def __init__(self) -> None:
        self.started: list[SyncHub] = []

    def __call__(self, env: dict[str, str], *store_args: str) -> SyncHub:
        (hub,) = self._start(1, env, store_args)
        return hub

    def replicas(self, env: dict[str, str], *store_args: str) -> tuple[SyncHub, SyncHub]:
        """Two hubs on one store, launched together (their migrations race, as in a deploy)."""
        first, second = self._start(2, env, store_args)
        return first, second

    def _start(self, count: int, env: dict[str, str], store_args: tuple[str, ...]) -> list[SyncHub]:
        hubs = []
        for _ in range(count):
            hub = SyncHub(env, *store_args)
            self.started.append(hub)
            hubs.append(hub)
        for hub in hubs:
            hub.wait_ready()
        return hubs

    def stop_all(self) -> None:
        for hub in reversed(self.started):
            hub.stop()
            hub.log.close()


@pytest.fixture
def start_sync() -> Iterator[StartSync]:
    """Real team hubs; every one is stopped (and its log closed) afterwards."""
    starter = StartSync()
    try:
        yield starter
    finally:
        starter.stop_all()


@dataclass(frozen=True)
class Team:
    http: TestClient
    admin: McpHttpClient
    url: str


@pytest.fixture
def team(team_app: TeamApp, store_url: str, sqlite_template: Path) -> Team:
    """A team hub with an unrestricted admin session for seeding and checking."""
    prefill_store(sqlite_template, store_url)
    _id, admin = issue_token(store_url, "admin", None, name="owner")
    http = team_app(store_url)
    return Team(http, session_for(http, admin, project="shop"), store_url)


def token_session(team: Team, projects: list[str], header_project: str = "shop") -> McpHttpClient:
    _id, secret = issue_token(team.url, "sync", projects)
    return session_for(team.http, secret, project=header_project)
