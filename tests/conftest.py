"""Shared fixtures: a store on SQLite and on PostgreSQL, in-process apps and real hub processes."""

import compileall
import os
import secrets
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import httpx
import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from tests.helpers import McpHttpClient
from tests.postgres_template import AdminConnection, PostgresTemplate

POSTGRES_DSN = "host=127.0.0.1 port=5432 dbname=test user=postgres connect_timeout=3"
POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
# The suite's own schema work (create, fill, drop) shares one connection per test process.
POSTGRES_ADMIN: Final = AdminConnection(POSTGRES_DSN)
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
BIN = Path(sys.executable).parent
_postgres_state: dict[str, str | None] = {}


# Suites compare exact search answers: meaning-based search (whose model loads in the
# background) is off unless a test asks for it, in process and in every child process.
os.environ["ALETHEIA_EMBEDDER"] = "off"


@pytest.fixture(scope="session", autouse=True)
def runtime_folder_of_the_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every hub the suite starts lists itself in a runtime folder of the suite's own: the
    user's `aletheia status` and `stop --all` never see them, nor a test the user's hubs."""
    folder = tmp_path_factory.mktemp("run")
    os.environ["XDG_RUNTIME_DIR"] = str(folder)
    return folder


ROOT: Final = Path(__file__).resolve().parents[1]


def pytest_unconfigure(config: pytest.Config) -> None:
    """The process's schema connection ends with its tests."""
    del config
    if postgres_problem() is None:
        POSTGRES_TEMPLATE.close()
    POSTGRES_ADMIN.close()


def pytest_configure(config: pytest.Config) -> None:
    """Compile the packages' sources to bytecode once, before any worker starts: the suite
    starts hundreds of hub, proxy and CLI processes, and where PYTHONDONTWRITEBYTECODE is set
    each of them would otherwise compile every module of the hub again (about a tenth of a
    hub's start). Python reads what is compiled here even then; an edited module's stale
    bytecode is ignored, as always."""
    if not hasattr(config, "workerinput"):  # the controller (or a run without -n)
        for folder in ("shared", "services"):
            compileall.compile_dir(ROOT / folder, quiet=2, workers=1)


# The system catalogs every schema a test makes and drops leaves dead rows in.
_CATALOGS: Final = (
    "pg_attribute", "pg_depend", "pg_class", "pg_index", "pg_type", "pg_constraint",
    "pg_trigger", "pg_attrdef", "pg_sequence", "pg_statistic", "pg_description",
)  # fmt: skip


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The suite makes and drops hundreds of PostgreSQL schemas: on a server without
    autovacuum their dead catalog rows pile up run after run, and every later CREATE and DROP
    reads through them (dropping one schema took five times as long). The controller vacuums
    the catalogs once the workers are done, so the next run starts as this one did."""
    if hasattr(session.config, "workerinput") or postgres_problem() is not None:
        return
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
        for catalog in _CATALOGS:
            connection.execute(f"VACUUM pg_catalog.{catalog}")


def process_env() -> dict[str, str]:
    """This environment for a hub, proxy or CLI child: no ALETHEIA_* setting but the
    embedder switched off."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ALETHEIA_")}
    env["ALETHEIA_EMBEDDER"] = "off"
    return env


def postgres_problem() -> str | None:
    """Why PostgreSQL cannot be used here, or None when it can (checked once)."""
    if "problem" not in _postgres_state:
        try:
            with psycopg.connect(POSTGRES_DSN):
                _postgres_state["problem"] = None
        except psycopg.Error as error:
            _postgres_state["problem"] = f"PostgreSQL at 127.0.0.1:5432/test unreachable: {error}"
    return _postgres_state["problem"]


def require_service(problem: str | None, service: str) -> None:
    """Skip when a service is missing; with CI=true fail instead, so CI always runs the suite."""
    if problem is None:
        return
    if IN_CI:
        pytest.fail(f"{problem} (CI=true: the {service} suites must run)")
    pytest.skip(problem)


def require_postgres() -> None:
    require_service(postgres_problem(), "PostgreSQL")


@contextmanager
def fresh_postgres_schema() -> Iterator[str]:
    """The URL of a new, empty PostgreSQL schema in database `test`, dropped afterwards."""
    require_postgres()
    schema = f"t_{secrets.token_hex(6)}"
    POSTGRES_ADMIN.get().execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    finally:
        if not POSTGRES_TEMPLATE.keep(schema):
            POSTGRES_ADMIN.get().execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def postgres_schema_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL schema in database `test`, dropped afterwards."""
    with fresh_postgres_schema() as url:
        yield url


# The longest files (pytest -n runs each file on one worker, --dist loadfile) go first, so
# they never start last and keep one worker busy after the others are done.
FIRST_FILES: Final = (
    "tests/packaging/test_wheel_install.py",
    "tests/packaging/test_registry_install.py",
    "tests/durability/test_concurrent_saves.py",
    "tests/hub/test_hub_lifecycle.py",
    "tests/e2e/test_autostart.py",
    "tests/browser/test_console.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules marked any_store test protocol behaviour that no store changes: their
    PostgreSQL copies are deselected (not skipped), so the time goes to the store suites.
    The longest files come first, longest first (FIRST_FILES)."""
    first = {name: rank for rank, name in enumerate(FIRST_FILES)}
    items.sort(key=lambda item: first.get(item.nodeid.split("::")[0], len(first)))
    dropped = [
        item
        for item in items
        if item.get_closest_marker("any_store") is not None and "postgres" in _store_params(item)
    ]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        chosen = set(map(id, dropped))
        items[:] = [item for item in items if id(item) not in chosen]


def _store_params(item: pytest.Item) -> set[str]:
    """The stores a test runs on: its store_url and module_store_url parameters."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return {params[name] for name in ("store_url", "module_store_url") if name in params}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Every store test runs once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'hub.db'}"
    url: str = request.getfixturevalue("postgres_schema_url")
    return url


@pytest.fixture
def settings(store_url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=store_url, data_dir=tmp_path, cwd=tmp_path)


# --- one migrated SQLite template per session, copied per test ----------------------------------

# Values a migration draws at random for each store (store_meta key: how it is drawn). Every
# copy of the template gets its own, as a store migrated from scratch would.
PER_STORE_RANDOM: dict[str, Callable[[], str]] = {
    "store_id": lambda: uuid.uuid4().hex,
    "cursor_secret": lambda: secrets.token_hex(32),
}


def _migrate_sqlite(path: Path) -> None:
    """Migrate a new SQLite file to head and fold its WAL back in: one self-contained file."""
    db = Database(f"sqlite:///{path}")
    try:
        upgrade_to_head(db.engine)
        with db.engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.dispose()
    sidecars = [p.name for p in path.parent.iterdir() if p.name != path.name]
    assert not sidecars, f"the migrated SQLite file left {sidecars} beside it"


def _redraw_per_store_values(path: Path, values: dict[str, str] | None = None) -> None:
    """Give the store at `path` new per-store values (drawn afresh unless given)."""
    connection = sqlite3.connect(path)
    try:
        tables = connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'store_meta'"
        ).fetchall()
        if tables:
            with connection:
                for key, draw in PER_STORE_RANDOM.items():
                    value = draw() if values is None else values[key]
                    connection.execute(
                        "UPDATE store_meta SET value = ? WHERE key = ?", (value, key)
                    )
    finally:
        connection.close()


def _dump(path: Path) -> list[str]:
    connection = sqlite3.connect(path)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One SQLite store migrated to head for the whole session, for tests to copy.

    Two stores are migrated and compared first: apart from PER_STORE_RANDOM they must be
    identical, so a copy stands for a freshly migrated store.
    """
    folders = [tmp_path_factory.mktemp("sqlite-template") for _ in range(2)]
    template, twin = (folder / "hub.db" for folder in folders)
    for path in (template, twin):
        _migrate_sqlite(path)
    fixed = dict.fromkeys(PER_STORE_RANDOM, "same")
    scratch = [folder / "compare.db" for folder in folders]
    for path, copy in zip((template, twin), scratch, strict=True):
        shutil.copy(path, copy)
        _redraw_per_store_values(copy, fixed)
    assert _dump(scratch[0]) == _dump(scratch[1]), (
        "two fresh migrations differ beyond PER_STORE_RANDOM: add the new per-store value there"
    )
    return template


def prefill_store(template: Path, url: str) -> None:
    """Give the store `url` names the migrated tables, as a fresh migration would, each with its
    own per-store values: a copy of the SQLite template, or the recorded migration replayed into
    a test's empty PostgreSQL schema. Nothing happens to a store that already exists."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        if POSTGRES_TEMPLATE.is_empty(url):
            POSTGRES_TEMPLATE.fill(url)
        return
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return
    target = Path(parsed.database)
    if target.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(template, target)
    _redraw_per_store_values(target)


# The PostgreSQL counterpart of the SQLite template: recorded on first use in each process.
POSTGRES_TEMPLATE: Final = PostgresTemplate(POSTGRES_ADMIN, fresh_postgres_schema, PER_STORE_RANDOM)


@pytest.fixture
def http(settings: Settings, sqlite_template: Path) -> Iterator[TestClient]:
    """The app in-process, addressed as loopback; on SQLite its store starts as a copy of the
    migrated template, so the lifespan's migration finds nothing to do."""
    prefill_store(sqlite_template, settings.resolved_database_url())
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        yield client


@pytest.fixture
def mcp(http: TestClient) -> McpHttpClient:
    """An initialized MCP session against the in-process app."""
    client = McpHttpClient(http, "/mcp", project="shop", tool="tests")
    client.initialize()
    return client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until_ready(base_url: str, process: subprocess.Popen[bytes] | None = None) -> None:
    """Poll /readyz until it answers 200, with a deadline."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"hub exited early with code {process.returncode}")
        try:
            if httpx.get(f"{base_url}/readyz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"hub at {base_url} not ready in 30 s")


class HubProcess:
    """A real `aletheia-server` (or other hub command) subprocess on a free loopback port."""

    def __init__(
        self,
        env: dict[str, str],
        command: str = "aletheia-server",
        *extra: str,
        bin_dir: Path = BIN,
    ) -> None:
        # Test processes run side by side: a port found free may be taken before the hub binds
        # it. A hub that exits saying so is started again on another port.
        for attempt in range(3):
            self.port = free_port()
            self.base_url = f"http://127.0.0.1:{self.port}"
            self.mcp_url = f"{self.base_url}/mcp"
            self.process = subprocess.Popen(
                [str(bin_dir / command), *extra, "--port", str(self.port)],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            try:
                wait_until_ready(self.base_url, self.process)
                if self._answers_itself():
                    return
                self.stop()  # another test's hub holds the port and answered for it
                continue
            except RuntimeError as error:
                said = (
                    self.process.stderr.read().decode(errors="replace")
                    if self.process.stderr
                    else ""
                )
                self.stop()
                if "address already in use" not in said.lower() or attempt == 2:
                    raise RuntimeError(f"{error}; the hub said: {said[-2000:]}") from None
        raise RuntimeError("no free port held long enough for the hub to bind it in 3 tries")

    def _answers_itself(self) -> bool:
        """Whether the hub on the port is this process (its /healthz names its pid)."""
        health = httpx.get(f"{self.base_url}/healthz", timeout=5).json()
        return bool(health.get("pid") == self.process.pid)

    def stop(self) -> None:
        stop_process(self.process)
        if self.process.stderr is not None:
            self.process.stderr.close()


def stop_process(process: "subprocess.Popen[bytes]", timeout: float = 10) -> None:
    """Terminate a child process, and kill it if it does not exit in time."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)


@pytest.fixture
def store_db(store_url: str, sqlite_template: Path) -> Iterator[Database]:
    """The test's store, migrated (prefill_store), opened in this process."""
    prefill_store(sqlite_template, store_url)
    database = Database(store_url)
    yield database
    database.dispose()


@pytest.fixture
def hub_env(store_url: str, tmp_path: Path, sqlite_template: Path) -> dict[str, str]:
    """Environment for hub and proxy subprocesses, pointing at this test's store, which starts
    migrated (prefill_store): a hub finds it at head and skips loading alembic."""
    prefill_store(sqlite_template, store_url)
    env = process_env()
    env["ALETHEIA_DATABASE_URL"] = store_url
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    return env


@pytest.fixture
def hub(hub_env: dict[str, str]) -> Iterator[HubProcess]:
    """A running hub process on this test's store."""
    process = HubProcess(hub_env)
    try:
        yield process
    finally:
        process.stop()


# --- one hub process per module and store ------------------------------------------------------


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def module_store_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """One store per module and backend (SQLite file, or a fresh PostgreSQL schema)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('module-store') / 'hub.db'}"
        return
    with fresh_postgres_schema() as url:
        yield url


@pytest.fixture(scope="module")
def shared_hub_env(
    module_store_url: str, tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> dict[str, str]:
    """Environment for a module's shared hub and the proxies in front of it (hub_env's
    counterpart): the module's store, migrated, and a data dir of the module's own."""
    prefill_store(sqlite_template, module_store_url)
    env = process_env()
    env["ALETHEIA_DATABASE_URL"] = module_store_url
    env["ALETHEIA_DATA_DIR"] = str(tmp_path_factory.mktemp("shared-hub") / "data")
    return env


@pytest.fixture(scope="module")
def shared_hub(shared_hub_env: dict[str, str]) -> Iterator[HubProcess]:
    """One running hub process for all of a module's tests on each store: for tests that prove
    nothing about the process itself (its start, exit, store lock or environment). Tests share
    its store, so each works in a project of its own (`project`) or looks only at the rows it
    made (the ids its saves return)."""
    process = HubProcess(shared_hub_env)
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def project() -> str:
    """A project name no other test uses: a test's own corner of a shared store."""
    return f"p-{secrets.token_hex(4)}"
