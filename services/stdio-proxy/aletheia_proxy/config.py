"""The proxy's configuration, read once from the environment."""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from aletheia_shared import env
from aletheia_shared.project import project_key


@dataclass(frozen=True, slots=True)
class ProxyConfig:
    hub_url: str
    hub_url_given: bool
    token: str | None
    tool: str | None
    project: str
    port: int
    hub_environment: dict[str, str]


def load_config(environ: Mapping[str, str] | None = None) -> ProxyConfig:
    """Read ALETHEIA_* variables; the default project comes from ALETHEIA_CWD or the cwd."""
    environ = os.environ if environ is None else environ
    port = _port(environ.get(env.PORT))
    given_url = environ.get(env.HUB_URL, "").strip()
    cwd = environ.get(env.CWD) or os.getcwd()
    return ProxyConfig(
        hub_url=given_url or env.local_hub_url(port),
        hub_url_given=bool(given_url),
        token=environ.get(env.TOKEN) or None,
        tool=environ.get(env.TOOL) or None,
        project=project_key(Path(cwd)),
        port=port,
        hub_environment=dict(environ),
    )


def _port(value: str | None) -> int:
    if value and value.strip().isdigit():
        return int(value.strip())
    return env.DEFAULT_PORT
