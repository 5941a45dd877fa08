"""Fixtures for the open-mem suites: sessions at /mcp/open-mem, as hosts open them, beside an
aletheia session on the same in-process hub and store."""

import re
from typing import Final

import pytest
from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient

OPEN_MEM_PATH: Final = "/mcp/open-mem"
ID_PATTERN: Final = re.compile(r"^obs-(\d+) ", re.MULTILINE)
CURSOR_PATTERN: Final = re.compile(r"^nextCursor: (\S+)$", re.MULTILINE)


def open_mem_session(http: TestClient, project: str = "shop", tool: str = "tests") -> McpHttpClient:
    client = McpHttpClient(http, OPEN_MEM_PATH, project=project, tool=tool)
    client.initialize()
    return client


@pytest.fixture
def om(http: TestClient) -> McpHttpClient:
    """An open-mem session whose project is shop."""
    return open_mem_session(http)


def listed_ids(text: str) -> list[int]:
    """The obs-<n> ids an answer lists at the start of a line, in order."""
    return [int(found) for found in ID_PATTERN.findall(text)]


def next_cursor(text: str) -> str | None:
    found = CURSOR_PATTERN.search(text)
    return found.group(1) if found else None


def create(om: McpHttpClient, title: str, narrative: str, **extra: object) -> int:
    """mem-create with the type decision unless given; the new observation's id."""
    answer = om.text(
        "mem-create", {"title": title, "type": "decision", "narrative": narrative, **extra}
    )
    found = re.match(r"Created obs-(\d+) ", answer)
    assert found, answer
    return int(found.group(1))
