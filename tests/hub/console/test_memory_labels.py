"""What the memory page says of a memory: which word is its type and which its kind, and a
title made from the text that never ends inside a redaction marker."""

import re

from fastapi.testclient import TestClient

from aletheia_hub.redact import redact
from aletheia_hub.store.memory_rows import TITLE_FROM_TEXT_CHARS, default_title
from tests.helpers import McpHttpClient

SAVED = re.compile(r"#(\d+)")
MARKER = re.compile(r"\[REDACTED:[^\]]*\]")
SECRET = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8" * 6


def saved_id(answer: str) -> str:
    found = SAVED.search(answer)
    assert found is not None, answer
    return found.group(1)


def test_the_memory_page_says_which_is_the_type_and_which_the_kind(
    mcp: McpHttpClient, http: TestClient
) -> None:
    memory = saved_id(mcp.text("save_memory", {"text": "Run migrations first", "type": "gotcha"}))
    assert "· type gotcha · kind note ·" in http.get(f"/memories/{memory}").text


def test_a_title_from_the_text_never_ends_inside_a_redaction_marker(
    mcp: McpHttpClient, http: TestClient
) -> None:
    for lead in range(70, 100, 3):  # the marker straddles the cut at every offset
        title = default_title(redact("k" * lead + f" key {SECRET} and more after it").text)
        assert len(title) <= TITLE_FROM_TEXT_CHARS
        assert "[" not in MARKER.sub("", title), title  # every marker in it whole
    text = "x" * 90 + f" key {SECRET} is the deploy key"
    memory = saved_id(mcp.text("save_memory", {"text": text}))
    heading = re.search(r"<h1>#\d+ ([^<]*)</h1>", http.get(f"/memories/{memory}").text)
    assert heading is not None and heading.group(1) == "x" * 90 + " key"
