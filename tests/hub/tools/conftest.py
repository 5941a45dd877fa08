"""Fixtures for the tool suites: a second caller with another default project."""

import pytest
from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient


@pytest.fixture
def billing(http: TestClient) -> McpHttpClient:
    """A second MCP session on the same app, whose default project is billing (tool cursor)."""
    client = McpHttpClient(http, project="billing", tool="cursor")
    client.initialize()
    return client
