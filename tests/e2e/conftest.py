"""Fixtures for the end-to-end suites: the async backend and a git repository."""

from pathlib import Path

import pytest

from tests.proxy.process import make_git_repo


@pytest.fixture
def anyio_backend() -> str:
    """The SDK suites run on asyncio (pytest's anyio plugin, `@pytest.mark.anyio`)."""
    return "asyncio"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A git repository in a folder named shop: the proxy's default project."""
    return make_git_repo(tmp_path / "shop")
