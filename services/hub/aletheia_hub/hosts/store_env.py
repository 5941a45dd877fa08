"""What an installed entry (and its hooks) carries so that aletheia-mcp, started by a host from
its own menu without the user's shell, reaches the same hub and store as the user's own:
ALETHEIA_HUB_URL as given (with its token), else the store (ALETHEIA_DATABASE_URL or
ALETHEIA_HUB_DB, and ALETHEIA_DATA_DIR, made absolute) and a port other than the default.
Defaults are left out, so a plain setup writes nothing but ALETHEIA_TOOL."""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import parse_qs, urlsplit, urlunsplit

from aletheia_shared import env
from aletheia_shared.store import (
    StoreLocation,
    default_data_dir,
    environment_data_dir,
    environment_database_url,
    store_location,
)

# The variables an entry may carry, in the order they are written.
NAMES: Final = (
    env.HUB_URL,
    env.TOKEN,
    env.CA_BUNDLE,
    env.DATABASE_URL,
    env.HUB_DB,
    env.DATA_DIR,
    env.PORT,
)
MASK: Final = "****"
LOOPBACK_HOSTS: Final = ("localhost", "::1")


@dataclass(frozen=True, slots=True)
class Carried:
    """The variables to write, and what the user should be told about them."""

    environment: dict[str, str]
    notes: tuple[str, ...] = ()


def carried(environ: Mapping[str, str]) -> Carried:
    """What an entry needs from `environ` to reach the hub and store `environ` names."""
    hub_url = environ.get(env.HUB_URL, "").strip()
    if hub_url:
        written = {env.HUB_URL: hub_url}
        notes: tuple[str, ...] = ()
        if environ.get(env.TOKEN):
            written[env.TOKEN] = environ[env.TOKEN]
            notes = (f"{env.TOKEN} goes into the entry as you set it.",)
        if environ.get(env.CA_BUNDLE, "").strip():
            bundle = Path(environ[env.CA_BUNDLE].strip()).expanduser().resolve()
            written[env.CA_BUNDLE] = str(bundle)
        return Carried(written, notes)
    written, notes = _store(environ)
    port = environ.get(env.PORT, "").strip()
    if port.isdigit() and int(port) != env.DEFAULT_PORT:
        written[env.PORT] = str(int(port))
    return Carried(written, notes)


def _store(environ: Mapping[str, str]) -> tuple[dict[str, str], tuple[str, ...]]:
    written: dict[str, str] = {}
    notes: tuple[str, ...] = ()
    data_dir = environment_data_dir(environ)
    store = store_location(environment_database_url(environ))
    url = environ.get(env.DATABASE_URL) or None
    if url and store.kind == "sqlite":
        written[env.DATABASE_URL] = f"sqlite:///{store.location}"
    elif url:
        written[env.DATABASE_URL] = url  # as given: a password only where the user put one
        notes = (_password_note(url, environ),)
    elif environ.get(env.HUB_DB):
        written[env.HUB_DB] = store.location
    if data_dir != default_data_dir().expanduser().resolve():
        written[env.DATA_DIR] = str(data_dir)
    return written, tuple(note for note in notes if note)


def _password_note(url: str, environ: Mapping[str, str]) -> str:
    if has_password(url):
        return (
            f"{env.DATABASE_URL} holds a password, so the entry does too; keep it "
            "in ~/.pgpass instead and take it out of the URL to keep it out of host files."
        )
    if environ.get("PGPASSWORD"):
        return (
            "PGPASSWORD is not written into host files: a hub that aletheia-mcp starts for a "
            "host finds the password only in ~/.pgpass."
        )
    return ""


def has_password(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.password) or "password" in parse_qs(parts.query)


def masked(url: str) -> str:
    """The URL with its password shown as ****, for printing."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:{MASK}@{host}"))


def destination(environ: Mapping[str, str]) -> str:
    """Where aletheia-mcp with this environment (and no other) goes: the hub at
    ALETHEIA_HUB_URL, else the store it names (`sqlite /path`, `postgresql host:port/db`)."""
    hub_url = environ.get(env.HUB_URL, "").strip()
    if hub_url:
        return f"the hub at {hub_url}"
    return str(served(environ))


def served(environ: Mapping[str, str]) -> StoreLocation:
    return store_location(environment_database_url(environ))


def port(environ: Mapping[str, str]) -> int:
    """The port of the local hub aletheia-mcp with this environment uses, as it reads
    ALETHEIA_PORT (not a number: the default)."""
    value = environ.get(env.PORT, "").strip()
    return int(value) if value.isdigit() else env.DEFAULT_PORT


def local_port(hub_url: str) -> int | None:
    """The port of a hub URL that names this machine; None for a hub elsewhere."""
    parts = urlsplit(hub_url)
    host = parts.hostname or ""
    if not (host in LOOPBACK_HOSTS or host.startswith("127.")):
        return None
    try:
        given = parts.port
    except ValueError:
        return None
    return given or (443 if parts.scheme == "https" else 80)
