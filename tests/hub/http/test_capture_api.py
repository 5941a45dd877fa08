"""POST /api/requests within the capture settings: a repeat answers 200 and is listed once,
a host whose capture is off is told so and nothing is kept, the project's count limit holds,
and <private> text reaches neither the SQLite file nor its WAL."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from tests.conftest import prefill_store
from tests.helpers import McpHttpClient


@pytest.fixture
def settings(store_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=store_url,
        data_dir=tmp_path,
        cwd=tmp_path,
        capture_max_per_project=3,
        capture_off_for=["cursor"],
    )


def episode_count(settings: Settings) -> int:
    db = Database(settings.resolved_database_url())
    try:
        with db.read_session() as session:
            return int(session.execute(text("SELECT count(*) FROM episodes")).scalar_one())
    finally:
        db.dispose()


def test_a_repeated_request_answers_200_and_is_listed_once(
    http: TestClient, mcp: McpHttpClient
) -> None:
    body = {"request": "Move staging behind the VPN", "project": "shop", "tool": "claude-code"}
    first = http.post("/api/requests", json=body)
    again = http.post("/api/requests", json={**body, "request": "Move staging  behind the VPN"})
    assert first.status_code == 201 and again.status_code == 200, again.text
    assert first.json() == {
        "id": first.json()["id"],
        "project": "shop",
        "captured": True,
        "times": 1,
        "note": None,
    }
    assert again.json() == {**first.json(), "times": 2}
    context = mcp.text("session_start_context", {})
    assert context.count("Move staging behind the VPN") == 1


def test_a_host_whose_capture_is_off_is_told_so_and_nothing_is_kept(
    http: TestClient, settings: Settings
) -> None:
    answer = http.post(
        "/api/requests", json={"request": "Rename the billing job", "tool": "cursor"}
    )
    assert answer.status_code == 200
    assert answer.json() == {
        "id": None,
        "project": "default",
        "captured": False,
        "times": 0,
        "note": "Capture is off for cursor (ALETHEIA_CAPTURE_OFF_FOR).",
    }
    assert episode_count(settings) == 0
    kept = http.post("/api/requests", json={"request": "Rename the billing job", "tool": "codex"})
    assert kept.status_code == 201
    assert episode_count(settings) == 1


@pytest.mark.parametrize("tool", ["Cursor", "CURSOR", "cursor ", " cUrSoR"])
def test_capture_off_for_a_host_holds_whatever_case_or_spacing_the_tool_is_sent_in(
    http: TestClient, settings: Settings, tool: str
) -> None:
    answer = http.post("/api/requests", json={"request": "Rename the billing job", "tool": tool})
    assert answer.status_code == 200
    assert answer.json()["captured"] is False
    assert answer.json()["note"] == "Capture is off for cursor (ALETHEIA_CAPTURE_OFF_FOR)."
    assert episode_count(settings) == 0


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_hosts_named_in_any_case_in_the_hubs_setting_switch_capture_off(
    store_url: str, tmp_path: Path, sqlite_template: Path
) -> None:
    settings = Settings(
        database_url=store_url, data_dir=tmp_path, cwd=tmp_path, capture_off_for=[" Cursor"]
    )
    prefill_store(sqlite_template, store_url)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        off = client.post("/api/requests", json={"request": "Deploy", "tool": "cursor"})
        kept = client.post("/api/requests", json={"request": "Deploy", "tool": "codex"})
    assert (off.json()["captured"], kept.json()["captured"]) == (False, True)
    assert episode_count(settings) == 1


def test_a_request_of_only_private_text_is_not_kept(http: TestClient, settings: Settings) -> None:
    answer = http.post("/api/requests", json={"request": "<private>salary: 1</private>\n"})
    assert answer.status_code == 200
    assert answer.json()["note"] == "Nothing to keep outside <private> tags."
    assert episode_count(settings) == 0


def test_a_project_keeps_only_its_newest_requests_within_the_count_setting(
    http: TestClient, mcp: McpHttpClient, settings: Settings
) -> None:
    for n in range(5):
        answer = http.post("/api/requests", json={"request": f"task {n}", "project": "shop"})
        assert answer.status_code == 201
    context = mcp.text("session_start_context", {})
    assert [f"task {n}" in context for n in range(5)] == [False, False, True, True, True]
    assert episode_count(settings) == 3


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_private_text_never_reaches_the_sqlite_file_or_its_wal(
    http: TestClient, mcp: McpHttpClient, tmp_path: Path
) -> None:
    hidden = ["PrivTaxId4471", "PrivNested8812", "PrivUnclosed5530", "PrivOnly9904"]
    statuses = [
        http.post("/api/requests", json={"request": request, "project": "shop"}).status_code
        for request in (
            f"File the taxes <private>id {hidden[0]}</private> by Friday",
            f"Call the bank <PRIVATE>about <private>{hidden[1]}</private> it</Private> today",
            f"Book the flight <private>passport {hidden[2]}\nand more",
            f"<private>{hidden[3]}</private>",
        )
    ]
    context = mcp.text("session_start_context", {})
    files = [tmp_path / "hub.db", tmp_path / "hub.db-wal"]
    stored = b"".join(path.read_bytes() for path in files if path.exists())
    for public in (b"File the taxes", b"by Friday", b"Call the bank", b"Book the flight"):
        assert public in stored
    for secret in hidden:
        assert secret.encode() not in stored, secret
        assert secret not in context, secret
    assert statuses == [201, 201, 201, 200]  # the last one had nothing to keep
