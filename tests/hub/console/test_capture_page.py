"""The console's Capture page: per project the prompts kept, how often they were asked, their
bytes, oldest and newest, beside the limits; a token limited to projects sees only theirs."""

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.http.console.security import CSP
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.episodes import record_request
from tests.conftest import prefill_store
from tests.hub.console.helpers import CSRF
from tests.team.conftest import issue_token

NOW = 1_800_000_000_000  # 2027-01-15 08:00 UTC


@pytest.fixture
def settings(store_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=store_url,
        data_dir=tmp_path,
        cwd=tmp_path,
        capture_max_age_days=7,
        capture_max_per_project=50,
        capture_max_bytes_per_project=2048,
        capture_off_for=["Cursor", "codex "],  # shown as host keys
    )


def seed_capture(settings: Settings) -> None:
    db = Database(settings.resolved_database_url())
    limits = settings.capture_limits()
    try:
        with db.write_session() as session:
            for project, request, at_ms in (
                ("shop", "Fix the checkout total", NOW - 3_600_000),
                ("shop", "Ship the release", NOW),
                ("shop", "Fix the checkout  total", NOW + 60_000),
                ("billing", "Rerun invoices", NOW + 120_000),
            ):
                record_request(
                    session=session,
                    project=project,
                    tool="claude-code",
                    request=request,
                    limits=limits,
                    at_ms=at_ms,
                )
    finally:
        db.dispose()


def row_of(page: str, project: str) -> list[str]:
    found = re.search(rf'<tr data-project="{project}">(.*?)</tr>', page, re.DOTALL)
    assert found is not None, f"no row for {project}"
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in found.group(1).split("</td>")][:-1]


def test_the_capture_page_shows_each_projects_numbers_and_the_limits(
    http: TestClient, settings: Settings
) -> None:
    seed_capture(settings)
    page = http.get("/capture")
    assert page.status_code == 200
    assert page.headers["content-security-policy"] == CSP
    assert page.headers["cache-control"] == "no-store"
    text = page.text
    # shop: 2 prompts (one asked twice), 22 + 16 bytes, last asked at 08:00 and 08:01.
    assert row_of(text, "shop") == [
        "shop",
        "2",
        "3",
        "38 B",
        "2027-01-15 08:00 UTC",
        "2027-01-15 08:01 UTC",
    ]
    assert row_of(text, "billing")[:4] == ["billing", "1", "1", "14 B"]
    assert '<strong id="limit-count">50</strong>' in text
    assert '<strong id="limit-bytes">2.0 KB</strong>' in text
    assert '<strong id="limit-age">7 days</strong>' in text
    assert '<strong id="limit-prompt">2.0 KB</strong>' in text
    assert '<strong id="off-for">cursor, codex</strong>' in text
    assert '<a href="/capture" aria-current="page">Capture</a>' in text


def test_the_capture_page_with_nothing_captured_says_so(http: TestClient) -> None:
    text = http.get("/capture").text
    assert "No prompts captured." in text
    assert "<table>" not in text


def test_a_token_limited_to_shop_sees_only_shops_capture(
    settings: Settings, sqlite_template: Path, store_url: str
) -> None:
    team = settings.model_copy(update={"team_mode": True})
    prefill_store(sqlite_template, team.resolved_database_url())
    seed_capture(team)
    _, secret = issue_token(store_url, scope="read", projects=["shop"])
    with TestClient(create_app(team), base_url="http://127.0.0.1") as client:
        form = CSRF.search(client.get("/sign-in").text)
        assert form is not None
        signed = client.post(
            "/sign-in", data={"secret": secret, "csrf": form.group(1)}, follow_redirects=False
        )
        assert signed.status_code == 303
        text = client.get("/capture").text
    assert row_of(text, "shop")[1] == "2"
    assert "billing" not in text


def test_a_ceiling_of_one_reads_in_the_singular(settings: Settings, sqlite_template: Path) -> None:
    one = settings.model_copy(update={"capture_max_age_days": 1, "capture_max_per_project": 1})
    prefill_store(sqlite_template, one.resolved_database_url())
    with TestClient(create_app(one), base_url="http://127.0.0.1") as client:
        text = client.get("/capture").text
    assert '<strong id="limit-count">1</strong> prompt,' in text
    assert '<strong id="limit-age">1 day</strong>' in text
    assert '<strong id="limit-work-age">1 day</strong>' in text
