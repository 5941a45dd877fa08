"""The Capture page's work half: per project and host what was captured (prompts, edits,
commands, digests), each readable, searchable and deletable, and every ceiling with how full
it is; a token limited to one project reaches nothing else."""

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.clock import now_ms
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.episodes import record_request
from aletheia_hub.store.memories import save_memory
from aletheia_hub.store.work_events import record_work
from aletheia_hub.work_capture.events import CommandEvent, EditEvent
from tests.conftest import prefill_store
from tests.hub.console.helpers import CSRF, csrf_of
from tests.team.conftest import issue_token

FAILING_TAIL = (
    "FAILED tests/test_upload.py::test_upload_retry - assert 2 == 3\n"
    "==== 1 failed, 12 passed in 0.40s ====\n"
)


@pytest.fixture
def settings(store_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=store_url,
        data_dir=tmp_path,
        cwd=tmp_path,
        capture_max_events_per_session=4,
        capture_max_events_per_project_day=10,
        capture_off_projects=["secret-lab"],
    )


def seed_work(settings: Settings) -> None:
    db = Database(settings.resolved_database_url())
    at = now_ms()
    try:
        with db.write_session() as session:
            record_request(
                session=session,
                project="shop",
                tool="claude-code",
                request="Make the upload retry",
                limits=settings.capture_limits(),
                at_ms=at,
            )
            for project, host, events in (
                (
                    "shop",
                    "claude-code",
                    [
                        EditEvent("src/upload.py", 12, 3, "Edit", "+ retries = 3"),
                        CommandEvent("pytest -q", 1, 400, "Bash", FAILING_TAIL),
                        CommandEvent("pytest -q", 1, 380, "Bash", FAILING_TAIL),  # a repeat
                    ],
                ),
                ("shop", "cursor", [EditEvent("README.md", 1, 0, "afterFileEdit")]),
                ("billing", "gemini", [CommandEvent("make invoices", 0, 90, "run_shell_command")]),
            ):
                record_work(
                    session=session,
                    project=project,
                    host=host,
                    session_id=f"{project}-{host}-1",
                    events=events,
                    limits=settings.work_limits(),
                    at_ms=at,
                )
            save_memory(
                session=session,
                project="shop",
                text="Asked first: Make the upload retry\nFixed: test_upload_retry",
                title="Session claude-code: Make the upload retry",
                type="summary",
                kind="session-digest",
                tool="claude-code",
                pinned=False,
            )
    finally:
        db.dispose()


def items_of(page: str) -> list[str]:
    return re.findall(r'<li data-item="([a-z]+/\d+)">', page)


def cells(page: str, attribute: str, key: str) -> list[str]:
    found = re.search(rf'<tr {attribute}="{re.escape(key)}">(.*?)</tr>', page, re.DOTALL)
    assert found is not None, f"no row {key}"
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in found.group(1).split("</td>")][:-1]


def test_the_page_shows_each_hosts_capture_and_how_full_each_ceiling_is(
    http: TestClient, settings: Settings
) -> None:
    seed_work(settings)
    text = http.get("/capture").text
    assert cells(text, "data-host", "shop/claude-code") == [
        "shop",
        "claude-code",
        "1",
        "1",
        "1",
        "1",
    ]
    assert cells(text, "data-host", "shop/cursor") == ["shop", "cursor", "0", "1", "0", "1"]
    assert cells(text, "data-host", "billing/gemini") == ["billing", "gemini", "0", "0", "1", "1"]
    # shop holds 3 events today (the repeat is counted on its row) of 10, 2 in its fullest
    # session of 4.
    assert cells(text, "data-ceiling", "shop/events in 24 hours")[2:] == ["3", "10", "30% 30%"]
    assert cells(text, "data-ceiling", "shop/events of the fullest session")[2:] == [
        "2",
        "4",
        "50% 50%",
    ]
    assert '<strong id="limit-session">4</strong>' in text
    assert '<strong id="off-projects">secret-lab</strong>' in text
    kinds = [item.split("/")[0] for item in items_of(text)]
    assert sorted(kinds) == ["command", "command", "digest", "edit", "edit", "prompt"]
    assert "×2" in text  # the repeated pytest run


def test_search_host_and_kind_narrow_the_list(http: TestClient, settings: Settings) -> None:
    seed_work(settings)
    found = http.get("/capture", params={"q": "TEST_UPLOAD_RETRY"}).text
    assert sorted(item.split("/")[0] for item in items_of(found)) == ["command", "digest"]
    cursor = http.get("/capture", params={"host": "Cursor"}).text
    assert [item.split("/")[0] for item in items_of(cursor)] == ["edit"]
    assert "README.md +1 -0" in cursor
    commands = http.get("/capture", params={"kind": "command", "project": "billing"}).text
    assert len(items_of(commands)) == 1
    assert "make invoices (exit 0)" in commands
    assert "Nothing matched." in http.get("/capture", params={"q": "no such words"}).text


def test_a_captured_command_reads_whole_and_deletes_with_the_form(
    http: TestClient, settings: Settings
) -> None:
    seed_work(settings)
    listed = http.get("/capture", params={"kind": "command", "project": "shop"}).text
    (item,) = items_of(listed)
    read = http.get(f"/capture/{item}")
    assert read.status_code == 200
    assert "assert 2 == 3" in read.text and "seen 2 times" in read.text
    refused = http.post(f"/capture/{item}/delete", data={"csrf": "wrong"})
    assert refused.status_code == 403
    token = csrf_of(http, "/capture")
    done = http.post(f"/capture/{item}/delete", data={"csrf": token}, follow_redirects=False)
    assert done.status_code == 303
    assert http.get(f"/capture/{item}").status_code == 404
    assert items_of(http.get("/capture", params={"kind": "command", "project": "shop"}).text) == []


def test_a_digest_is_read_here_and_deleting_it_dismisses_its_memory(
    http: TestClient, settings: Settings
) -> None:
    seed_work(settings)
    text = http.get("/capture", params={"kind": "digest"}).text
    (item,) = items_of(text)
    memory_id = item.split("/")[1]
    assert f'<a href="/capture/{item}">' in text
    read = http.get(f"/capture/{item}").text
    assert "Fixed: test_upload_retry" in read and f'<a href="/memories/{memory_id}">' in read
    token = csrf_of(http, "/capture")
    done = http.post(f"/capture/{item}/delete", data={"csrf": token}, follow_redirects=False)
    assert done.status_code == 303
    assert items_of(http.get("/capture", params={"kind": "digest"}).text) == []
    memory = http.get(f"/memories/{memory_id}").text  # dismissed, with its trail: restorable
    assert "Deleted from Capture." in memory and "Restore" in memory
    again = http.post(f"/capture/{item}/delete", data={"csrf": token})
    assert again.status_code == 404


def test_a_token_limited_to_billing_neither_sees_nor_deletes_shops_capture(
    settings: Settings, sqlite_template: Path, store_url: str
) -> None:
    team = settings.model_copy(update={"team_mode": True})
    prefill_store(sqlite_template, team.resolved_database_url())
    seed_work(team)
    _, secret = issue_token(store_url, scope="admin", projects=["billing"])
    with TestClient(create_app(team), base_url="http://127.0.0.1") as client:
        form = CSRF.search(client.get("/sign-in").text)
        assert form is not None
        client.post("/sign-in", data={"secret": secret, "csrf": form.group(1)})
        text = client.get("/capture").text
        assert [item.split("/")[0] for item in items_of(text)] == ["command"]
        assert "shop" not in text
        assert client.get("/capture", params={"project": "shop"}).status_code == 403
        token = csrf_of(client, "/capture")
        for kind, item_id in (("edit", 1), ("prompt", 1), ("command", 2)):
            assert client.get(f"/capture/{kind}/{item_id}").status_code == 404
            deleted = client.post(f"/capture/{kind}/{item_id}/delete", data={"csrf": token})
            assert deleted.status_code == 404
