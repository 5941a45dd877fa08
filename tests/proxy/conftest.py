"""Fixtures for driving a real `aletheia-mcp` against a real hub."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import HubProcess
from tests.proxy.process import ProxyProcess, StartProxy, make_git_repo, started_proxies


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A git repository in a folder named shop: the proxy's default project."""
    return make_git_repo(tmp_path / "shop")


@pytest.fixture
def start_proxy() -> Iterator[StartProxy]:
    """Start proxies with a given environment; every one is stopped afterwards."""
    with started_proxies() as start:
        yield start


@pytest.fixture
def proxy_env(shared_hub_env: dict[str, str], shared_hub: HubProcess, shop: Path) -> dict[str, str]:
    """The proxy's environment: the module's hub, the shop repository, no ALETHEIA_TOOL."""
    return {**shared_hub_env, "ALETHEIA_HUB_URL": shared_hub.mcp_url, "ALETHEIA_CWD": str(shop)}


@pytest.fixture
def proxy(start_proxy: StartProxy, proxy_env: dict[str, str]) -> ProxyProcess:
    return start_proxy(proxy_env)
