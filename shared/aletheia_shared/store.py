"""Which store a configuration names, worked out the same way by the hub and the proxy.

A store is told by its kind and a location that never holds a credential: the absolute path
of a SQLite file, or `host:port/database[?search_path=...]` of a PostgreSQL database.
"""

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypedDict
from urllib.parse import parse_qs, unquote, urlsplit

from aletheia_shared import env

POSTGRES_DEFAULT_PORT: Final = 5432
RECORD_NAME: Final = "hub.json"
_SEARCH_PATH: Final = re.compile(r"search_path\s*=\s*(\S+)")


@dataclass(frozen=True, slots=True)
class StoreLocation:
    """A store as `/healthz` names it: `sqlite` or `postgresql`, and where it lives."""

    kind: str
    location: str

    def __str__(self) -> str:
        return f"{self.kind} {self.location}"


class HubRecord(TypedDict):
    """What a running local hub writes about itself into its data dir."""

    pid: int
    port: int
    kind: str
    location: str


def default_data_dir() -> Path:
    return Path.home() / env.DEFAULT_DATA_DIR_NAME


def database_url(*, database_url: str | None, hub_db: str | Path | None, data_dir: Path) -> str:
    """ALETHEIA_DATABASE_URL, else the SQLite file ALETHEIA_HUB_DB, else data_dir/hub.db."""
    if database_url:
        return database_url
    path = Path(hub_db) if hub_db is not None else data_dir / env.DB_FILE_NAME
    return f"sqlite:///{path.expanduser().resolve()}"


def environment_data_dir(environ: Mapping[str, str]) -> Path:
    """The data dir ALETHEIA_DATA_DIR names (an empty value counts as unset), made absolute."""
    configured = environ.get(env.DATA_DIR) or None
    folder = Path(configured) if configured else default_data_dir()
    return folder.expanduser().resolve()


def environment_database_url(environ: Mapping[str, str]) -> str:
    """The store ALETHEIA_* variables name, exactly as the hub's settings resolve it."""
    return database_url(
        database_url=environ.get(env.DATABASE_URL) or None,
        hub_db=environ.get(env.HUB_DB) or None,
        data_dir=environment_data_dir(environ),
    )


def store_location(url: str) -> StoreLocation:
    """The kind and credential-free location of the store a SQLAlchemy URL names."""
    parts = urlsplit(url)
    kind = parts.scheme.split("+", 1)[0]
    if kind == "sqlite":
        return StoreLocation("sqlite", _sqlite_path(parts.path))
    if kind == "postgres":
        kind = "postgresql"
    query = parse_qs(parts.query)
    host = parts.hostname or _first(query, "host") or "localhost"
    try:
        port = parts.port or POSTGRES_DEFAULT_PORT
    except ValueError:
        port = POSTGRES_DEFAULT_PORT
    shown_host = f"[{host}]" if ":" in host else host
    location = f"{shown_host}:{port}/{unquote(parts.path.lstrip('/'))}"
    found = _SEARCH_PATH.search(_first(query, "options") or "")
    if found:
        search_path = found.group(1).strip("'\"")
        location += f"?search_path={search_path}"
    return StoreLocation(kind, location)


def _sqlite_path(path: str) -> str:
    # sqlite:///relative.db and sqlite:////absolute.db: the database follows the third slash.
    database = unquote(path[1:] if path.startswith("/") else path)
    if database in ("", ":memory:"):
        return ":memory:"
    return str(Path(database).expanduser().resolve())


def _first(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


def record_path(store: StoreLocation, data_dir: Path) -> Path:
    """Where a local hub of `store` records itself: hub.json for data_dir/hub.db, else a name
    made from the store's location, so hubs of different stores never share a record."""
    if store == store_location(database_url(database_url=None, hub_db=None, data_dir=data_dir)):
        return data_dir / RECORD_NAME
    digest = hashlib.sha256(str(store).encode()).hexdigest()[:12]
    return data_dir / f"hub-{digest}.json"


def record_text(*, pid: int, port: int, store: StoreLocation) -> str:
    record: HubRecord = {
        "pid": pid,
        "port": port,
        "kind": store.kind,
        "location": store.location,
    }
    return json.dumps(record) + "\n"


def parse_record(text: str) -> HubRecord | None:
    """A hub record, or None when the text is not one (half-written, foreign, empty)."""
    try:
        value: Any = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    fields = (("pid", int), ("port", int), ("kind", str), ("location", str))
    if not all(isinstance(value.get(name), kind) for name, kind in fields):
        return None
    return {
        "pid": value["pid"],
        "port": value["port"],
        "kind": value["kind"],
        "location": value["location"],
    }


def served_store(health: Mapping[str, Any]) -> StoreLocation | None:
    """The store a hub's `/healthz` answer names, or None when it names none."""
    store = health.get("store")
    if not isinstance(store, dict):
        return None
    kind, location = store.get("kind"), store.get("location")
    if isinstance(kind, str) and isinstance(location, str):
        return StoreLocation(kind, location)
    return None
