"""The proxy's configuration, read once from the environment."""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from aletheia_shared import dialects, env
from aletheia_shared.project import project_key
from aletheia_shared.store import (
    StoreLocation,
    environment_data_dir,
    environment_database_url,
    store_location,
)


@dataclass(frozen=True, slots=True)
class ProxyConfig:
    hub_url: str
    hub_url_given: bool
    mcp_path: str  # the path of the chosen dialect (ALETHEIA_DIALECT) on the hub
    token: str | None
    tool: str | None
    project: str
    cwd: str
    port: int
    store: StoreLocation
    data_dir: Path
    hub_environment: dict[str, str]
    ca_bundle: Path | None = None  # CAs trusted for an https hub, besides the system's


class ConfigError(Exception):
    """A setting the proxy cannot start with; the message names it and the choices."""


def load_config(environ: Mapping[str, str] | None = None) -> ProxyConfig:
    """Read ALETHEIA_* variables; the default project comes from ALETHEIA_CWD or the cwd.

    ALETHEIA_DIALECT picks the tools: aletheia (default), open-mem or all; an unknown value is
    a ConfigError.
    """
    environ = os.environ if environ is None else environ
    port = _port(environ.get(env.PORT))
    try:
        mcp_path = dialects.dialect_path(environ.get(env.DIALECT))
    except dialects.UnknownDialect as error:
        raise ConfigError(f"{env.DIALECT}: {error}") from None
    given_url = environ.get(env.HUB_URL, "").strip()
    cwd = environ.get(env.CWD) or os.getcwd()
    data_dir = environment_data_dir(environ)
    store = store_location(environment_database_url(environ))
    return ProxyConfig(
        hub_url=(
            dialects.dialect_url(given_url, mcp_path)
            if given_url
            else env.local_hub_url(port, mcp_path)
        ),
        hub_url_given=bool(given_url),
        mcp_path=mcp_path,
        token=environ.get(env.TOKEN) or None,
        tool=environ.get(env.TOOL) or None,
        project=project_key(Path(cwd)),
        cwd=str(Path(cwd).resolve()),
        port=port,
        store=store,
        data_dir=data_dir,
        hub_environment=_hub_environment(environ, data_dir, store),
        ca_bundle=_ca_bundle(environ.get(env.CA_BUNDLE)),
    )


def _hub_environment(
    environ: Mapping[str, str], data_dir: Path, store: StoreLocation
) -> dict[str, str]:
    """The environment of a hub this proxy starts, with the store's paths made absolute:
    the hub runs in the data dir, where a relative path would name another file."""
    hub_env = dict(environ)
    hub_env[env.DATA_DIR] = str(data_dir)
    # The proxy reaches a hub it starts over plain http on loopback.
    hub_env.pop(env.TLS_CERT_FILE, None)
    hub_env.pop(env.TLS_KEY_FILE, None)
    if store.kind == "sqlite" and store.location != ":memory:":
        if environ.get(env.DATABASE_URL):
            hub_env[env.DATABASE_URL] = f"sqlite:///{store.location}"
        elif environ.get(env.HUB_DB):
            hub_env[env.HUB_DB] = store.location
    return hub_env


def _ca_bundle(value: str | None) -> Path | None:
    return Path(value.strip()).expanduser() if value and value.strip() else None


def _port(value: str | None) -> int:
    if value and value.strip().isdigit():
        return int(value.strip())
    return env.DEFAULT_PORT
