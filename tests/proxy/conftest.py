"""Fixtures for driving a real `aletheia-mcp` against a real hub."""

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import HubProcess
from tests.proxy.process import ProxyProcess, make_git_repo


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A git repository in a folder named shop: the proxy's default project."""
    return make_git_repo(tmp_path / "shop")


@pytest.fixture
def start_proxy() -> Iterator[Callable[[dict[str, str]], ProxyProcess]]:
    """Start proxies with a given environment; every one is stopped afterwards."""
    started: list[ProxyProcess] = []

    def start(env: dict[str, str]) -> ProxyProcess:
        proxy = ProxyProcess(env)
        started.append(proxy)
        return proxy

    try:
        yield start
    finally:
        for proxy in reversed(started):
            proxy.stop()


@pytest.fixture
def proxy_env(hub_env: dict[str, str], hub: HubProcess, shop: Path) -> dict[str, str]:
    """The proxy's environment: the test's hub, the shop repository, no ALETHEIA_TOOL."""
    return {**hub_env, "ALETHEIA_HUB_URL": hub.mcp_url, "ALETHEIA_CWD": str(shop)}


@pytest.fixture
def proxy(
    start_proxy: Callable[[dict[str, str]], ProxyProcess], proxy_env: dict[str, str]
) -> ProxyProcess:
    return start_proxy(proxy_env)
