"""Fixtures for the end-to-end suites: the async backend, a git repository and proxies."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.proxy.process import StartProxy, make_git_repo, started_proxies


@pytest.fixture
def anyio_backend() -> str:
    """The SDK suites run on asyncio (pytest's anyio plugin, `@pytest.mark.anyio`)."""
    return "asyncio"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A git repository in a folder named shop: the proxy's default project."""
    return make_git_repo(tmp_path / "shop")


@pytest.fixture
def proxies() -> Iterator[StartProxy]:
    """Start proxies with a given environment; every one is stopped afterwards (a module that
    ends the hubs they start asks for its cleanup before this fixture, so it runs after)."""
    with started_proxies() as start:
        yield start
