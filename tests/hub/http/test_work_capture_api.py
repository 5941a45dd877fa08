"""POST /api/work and /api/work/session-end: a session's edits and commands are kept (a repeat
counted, not stored again), its digest becomes one summary memory that `search` finds and the
next session's context shows under "Last sessions"; capture off for a host, a project or
everything keeps nothing; every field is redacted and free of <private> text on disk; tokens
keep to their scope and projects; a malformed report is a 422."""

from pathlib import Path
from typing import Any, Final

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store import tokens
from aletheia_hub.store.db import Database
from tests.conftest import prefill_store
from tests.helpers import McpHttpClient

FAILED: Final = (
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_upload.py::test_upload_retry - AssertionError: no retry\n"
    "========================= 1 failed, 4 passed in 0.12s =========================="
)
PASSED: Final = "========================= 5 passed in 0.10s =========================="
SECRET: Final = "ghp_" + "a1B2" * 9


def edit(file: str, added: int = 3, removed: int = 1, **extra: Any) -> dict[str, Any]:
    base = {"kind": "edit", "file": file, "added": added, "removed": removed, "tool": "Edit"}
    return base | extra


def command(line: str, exit_code: int = 0, **extra: Any) -> dict[str, Any]:
    return {"kind": "command", "command": line, "exit_code": exit_code, "tool": "Bash"} | extra


def report(
    http: TestClient, events: list[dict[str, Any]], session: str = "s-1", **extra: Any
) -> dict[str, Any]:
    body = {"project": "shop", "tool": "claude-code", "session": session, "events": events}
    answer = http.post("/api/work", json=body | extra)
    assert answer.status_code in (200, 201), answer.text
    assert answer.status_code == (201 if answer.json()["kept"] else 200)
    found: dict[str, Any] = answer.json()
    return found


def end(http: TestClient, session: str = "s-1", **extra: Any) -> dict[str, Any]:
    body = {"project": "shop", "tool": "claude-code", "session": session}
    answer = http.post("/api/work/session-end", json=body | extra)
    assert answer.status_code in (200, 201), answer.text
    found: dict[str, Any] = answer.json()
    return found


def rows(settings: Settings, sql: str) -> list[tuple[Any, ...]]:
    db = Database(settings.resolved_database_url())
    try:
        with db.read_session() as session:
            return [tuple(row) for row in session.execute(text(sql)).all()]
    finally:
        db.dispose()


def fixing_session(http: TestClient) -> None:
    """Write the uploader, run the tests (fail, twice), fix it, run them again (pass)."""
    answer = report(
        http,
        [
            edit("src/uploader.py", 12, 2, excerpt="def upload():"),
            command("pytest -q", 1, duration_ms=900, output_tail=FAILED),
            command("pytest -q", 1, duration_ms=950, output_tail=FAILED),
            edit("src/uploader.py", 3, 1, excerpt="retry()"),
            command("pytest -q", 0, duration_ms=800, output_tail=PASSED),
        ],
    )
    assert answer == {"kept": 4, "repeats": 1, "skipped": 0, "pruned": 0, "note": None}


def test_a_sessions_digest_is_found_by_search_and_shown_under_last_sessions(
    http: TestClient, mcp: McpHttpClient, settings: Settings
) -> None:
    fixing_session(http)
    ended = end(http, first_request="Make the uploader retry on timeouts")
    assert ended["digest_id"] is not None and ended["chars"] > 0
    stored = rows(settings, "SELECT type, kind, tool, title, text FROM memories")
    assert len(stored) == 1
    kind, title, digest = stored[0][:3], stored[0][3], stored[0][4]
    assert kind == ("summary", "session-digest", "claude-code")
    assert title == "Session digest (claude-code): Make the uploader retry on timeouts"
    assert "src/uploader.py +15 -3" in digest and "Fixed: test_upload_retry" in digest
    assert len(digest) == ended["chars"] <= settings.capture_digest_max_chars
    assert f"#{ended['digest_id']} " in mcp.text("search", {"query": "uploader"})
    context = mcp.text("session_start_context", {})
    assert "## Last sessions" in context and "Fixed: test_upload_retry" in context
    assert "## Recent\n" not in context  # the digest is not listed twice


def test_a_session_that_ends_again_replaces_its_digest(
    http: TestClient, mcp: McpHttpClient, settings: Settings
) -> None:
    fixing_session(http)
    first = end(http, first_request="Make the uploader retry")
    assert end(http, first_request="Make the uploader retry") == first  # nothing new
    report(http, [command("ruff check src", 0)])
    second = end(http)  # no first request this time: the digest keeps no stale one
    assert second["digest_id"] != first["digest_id"]
    current = rows(
        settings, "SELECT id, text FROM memories WHERE superseded_at_ms IS NULL ORDER BY id"
    )
    assert [row[0] for row in current] == [second["digest_id"]]
    assert "`ruff check src`: ok" in current[0][1]
    context = mcp.text("session_start_context", {})
    assert context.count("Fixed: test_upload_retry") == 1


def test_a_session_end_takes_the_prompt_recorded_before_its_first_event(
    http: TestClient, settings: Settings
) -> None:
    asked = http.post(
        "/api/requests",
        json={"request": "Speed up the uploader", "project": "shop", "tool": "Claude-Code"},
    )
    assert asked.status_code == 201
    report(http, [edit("src/uploader.py")])
    assert end(http)["digest_id"] is not None
    assert rows(settings, "SELECT title FROM memories") == [
        ("Session digest (claude-code): Speed up the uploader",)
    ]


def test_a_session_without_captured_work_gets_no_digest(
    http: TestClient, settings: Settings
) -> None:
    assert end(http, first_request="Hello") == {
        "digest_id": None,
        "chars": 0,
        "note": "No work captured in this session.",
        "similar": [],
    }
    assert rows(settings, "SELECT count(*) FROM memories") == [(0,)]


def test_repeats_are_counted_on_their_row_and_a_changed_outcome_is_kept(
    http: TestClient, settings: Settings
) -> None:
    for _ in range(3):
        report(http, [command("make build", 2, output_tail="error: missing header")])
    assert report(http, [command("make build", 0)])["kept"] == 1
    # Failing again after passing is news, not a repeat of the first failure.
    assert report(http, [command("make build", 2, output_tail="error: again")])["kept"] == 1
    assert report(http, [command("make build", 2, output_tail="error: again")]) == {
        "kept": 0,
        "repeats": 1,
        "skipped": 0,
        "pruned": 0,
        "note": None,
    }
    # Another session's same command is its own.
    assert report(http, [command("make build", 0)], session="s-2")["kept"] == 1
    kept = rows(
        settings, "SELECT session_key, exit_code, repeat_count FROM work_events ORDER BY id"
    )
    assert kept == [("s-1", 2, 3), ("s-1", 0, 1), ("s-1", 2, 2), ("s-2", 0, 1)]


def test_every_field_is_redacted_and_free_of_private_text_on_disk(
    http: TestClient, settings: Settings
) -> None:
    hidden = "<private>hunter2-tax-id</private>"
    leak = f"{SECRET}{hidden}"
    answer = report(
        http,
        [
            edit(f"src/{leak}.py", tool=f"Edit {leak}", excerpt=f"key = {leak}"),
            command(f"deploy --token {leak}", 1, tool=f"Bash {leak}", output_tail=f"got {leak}"),
            edit(hidden),  # nothing left of the file: skipped
            command(hidden),
        ],
        session=f"s-{leak}",
        tool=f"claude-code{hidden}",
    )
    assert answer["kept"] == 2 and answer["skipped"] == 2
    assert answer["note"].startswith("Skipped 2 events with nothing outside <private> tags; ")
    assert end(http, session=f"s-{leak}", tool=f"claude-code{hidden}", first_request=leak)[
        "digest_id"
    ]
    kept = rows(settings, "SELECT * FROM work_events") + rows(
        settings, "SELECT title, text, tool, session_id FROM memories"
    )
    assert len(kept) == 3
    everything = repr(kept)
    assert SECRET not in everything and "hunter2" not in everything
    assert "[REDACTED:github-token]" in everything
    assert rows(settings, "SELECT DISTINCT host, session_key FROM work_events") == [
        ("claude-code", "s-[REDACTED:github-token]")
    ]
    if settings.resolved_database_url().startswith("sqlite"):
        folder = Path(settings.resolved_database_url().removeprefix("sqlite:///")).parent
        for path in folder.glob("hub.db*"):
            assert b"hunter2" not in path.read_bytes(), path.name
            assert SECRET.encode() not in path.read_bytes(), path.name


@pytest.mark.parametrize(
    ("off", "tool", "project", "note"),
    [
        ({"capture_off_for": ["cursor"]}, "Cursor", "shop", "Capture is off for cursor"),
        ({"capture_off_projects": ["shop"]}, "codex", "shop", "Capture is off for project shop"),
        ({"capture_off_for": ["*"]}, "codex", "billing", "Capture is off for codex"),
    ],
)
def test_capture_off_for_a_host_a_project_or_everything_keeps_nothing(
    store_url: str,
    tmp_path: Path,
    sqlite_template: Path,
    off: dict[str, list[str]],
    tool: str,
    project: str,
    note: str,
) -> None:
    settings = Settings(database_url=store_url, data_dir=tmp_path, cwd=tmp_path, **off)
    prefill_store(sqlite_template, settings.resolved_database_url())
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        body = {"project": project, "tool": tool, "session": "s"}
        answer = http.post("/api/work", json=body | {"events": [edit("a.py")]})
        assert answer.status_code == 200
        assert answer.json()["kept"] == 0 and answer.json()["note"].startswith(note)
        ended = http.post("/api/work/session-end", json=body)
        assert ended.status_code == 200 and ended.json()["digest_id"] is None
        other = http.post(
            "/api/work",
            json={"project": "elsewhere", "tool": "gemini", "session": "s"}
            | {"events": [edit("a.py")]},
        )
        kept_elsewhere = 0 if off.get("capture_off_for") == ["*"] else 1
        assert other.json()["kept"] == kept_elsewhere
    assert rows(settings, "SELECT project FROM work_events") == [("elsewhere",)] * kept_elsewhere
    assert rows(settings, "SELECT count(*) FROM memories") == [(0,)]


def test_team_tokens_need_write_scope_and_an_allowed_project(tmp_path: Path) -> None:
    settings = Settings(hub_db=tmp_path / "team.db", team_mode=True)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        with http.app.state.db.write_session() as session:  # type: ignore[attr-defined]
            reader = tokens.create_token(
                session=session, scope="read", projects=["shop"], name=None
            )
            writer = tokens.create_token(
                session=session, scope="sync", projects=["shop"], name=None
            )
        work = {"tool": "codex", "session": "s", "events": [edit("a.py")]}
        ending = {"tool": "codex", "session": "s"}
        for path, body in (("/api/work", work), ("/api/work/session-end", ending)):
            assert http.post(path, json=body).status_code == 401
            refused = http.post(
                path, json=body, headers={"Authorization": f"Bearer {reader.secret}"}
            )
            assert refused.status_code == 403
            assert refused.json()["detail"] == "This token cannot call record_work."
            elsewhere = http.post(
                path,
                json=body | {"project": "billing"},
                headers={"Authorization": f"Bearer {writer.secret}"},
            )
            assert elsewhere.status_code == 403
            assert elsewhere.json()["detail"] == 'Project "billing" is not allowed for this token.'
            allowed = http.post(
                path, json=body, headers={"Authorization": f"Bearer {writer.secret}"}
            )
            assert allowed.status_code == 201, allowed.text
    assert rows(settings, "SELECT project FROM work_events") == [("shop",)]
    assert rows(settings, "SELECT project FROM memories") == [("shop",)]


GOOD: Final = {"tool": "codex", "session": "s", "events": [{"kind": "edit", "file": "a.py",
    "added": 1, "removed": 0, "tool": "Edit"}]}  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"tool": "codex", "session": "s"},
        GOOD | {"events": []},
        GOOD | {"events": [edit("a.py")] * 51},
        GOOD | {"events": [{"kind": "read", "file": "a.py", "tool": "Read"}]},
        GOOD | {"events": [edit("a.py") | {"content": "x"}]},
        GOOD | {"events": [edit("a.py", added=-1)]},
        GOOD | {"events": [edit("a.py") | {"added": "3"}]},
        GOOD | {"events": [edit("a.py") | {"added": 2**40}]},
        GOOD | {"events": [edit("x" * 501)]},
        GOOD | {"events": [edit("")]},
        GOOD | {"events": [edit("a.py", excerpt="x" * 401)]},
        GOOD | {"events": [command("ls\x00rm")]},
        GOOD | {"events": [command("ls", output_tail="x" * 4_001)]},
        GOOD | {"events": [command("ls", exit_code=2**40)]},
        GOOD | {"events": [command("ls", duration_ms=-5)]},
        GOOD | {"events": [command("x" * 2_001)]},
        GOOD | {"events": [command("ls") | {"tool": ""}]},
        GOOD | {"events": {"kind": "edit"}},
        GOOD | {"events": [None]},
        GOOD | {"tool": "a\nb"},
        GOOD | {"session": ""},
        GOOD | {"session": 7},
        GOOD | {"project": ""},
        GOOD | {"bogus": 1},
    ],
)
def test_a_malformed_work_report_is_a_client_error(http: TestClient, body: Any) -> None:
    assert http.post("/api/work", json=body).status_code == 422


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"tool": "codex"},
        {"tool": "codex", "session": "s", "events": []},
        {"tool": "codex", "session": "s", "first_request": 3},
        {"tool": "codex", "session": "s", "first_request": "a\x00b"},
        {"tool": "codex", "session": "s" * 201},
    ],
)
def test_a_malformed_session_end_is_a_client_error(http: TestClient, body: Any) -> None:
    assert http.post("/api/work/session-end", json=body).status_code == 422


def test_a_body_that_is_not_json_is_a_client_error(http: TestClient) -> None:
    for path in ("/api/work", "/api/work/session-end"):
        assert http.post(path, content=b"{oops").status_code == 422
        assert http.post(path, json=[GOOD]).status_code == 422
    assert http.post("/api/work", json=GOOD).status_code == 201


def test_last_sessions_show_the_newest_digests_within_half_the_context(
    http: TestClient, mcp: McpHttpClient
) -> None:
    for n in (1, 2, 3):
        files = [edit(f"src/area_{n}/module_{i:02}_{'x' * 40}.py", i + 1, 0) for i in range(50)]
        report(http, files, session=f"s-{n}")
        assert end(http, session=f"s-{n}", first_request=f"Task number {n}")["chars"] > 1_500
    context = mcp.text("session_start_context", {})
    last = context.split("## Last sessions\n")[1].split("\n## ")[0]
    assert "Asked first: Task number 3" in last
    assert "Task number 2" not in context and "Task number 1" not in context
    assert len(last) <= 3_000
    assert "2 more left out to stay short (2 sessions)" in context


def test_a_project_whose_capture_is_off_keeps_no_prompt_either(
    store_url: str, tmp_path: Path, sqlite_template: Path
) -> None:
    settings = Settings(
        database_url=store_url, data_dir=tmp_path, cwd=tmp_path, capture_off_projects=["shop"]
    )
    prefill_store(sqlite_template, settings.resolved_database_url())
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        for project, status in (("shop", 200), ("billing", 201)):
            answer = http.post(
                "/api/requests", json={"request": "Ship it", "project": project, "tool": "codex"}
            )
            assert answer.status_code == status
    assert answer.json()["captured"] is True
    assert rows(settings, "SELECT project FROM episodes") == [("billing",)]
