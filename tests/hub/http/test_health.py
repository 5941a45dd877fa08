"""Liveness and readiness probes."""

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.identity import store_id
from aletheia_shared import __version__
from tests.conftest import prefill_store
from tests.team.conftest import issue_token


def test_healthz_answers_ok_with_the_version_the_serving_pid_and_the_store(
    http: TestClient, settings: Settings, tmp_path: Path
) -> None:
    app_db: Database = http.app.state.db  # type: ignore[attr-defined]
    with app_db.read_session() as session:
        expected_id = store_id(session=session)
    response = http.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    store = body.pop("store")
    assert body.pop("search") == {"embedder": "off", "model": None, "vectors": None}
    started_at = datetime.fromisoformat(body.pop("started_at"))
    assert abs(datetime.now(UTC) - started_at) < timedelta(minutes=5)
    assert 0 <= body.pop("uptime_seconds") < 300
    assert body == {
        "status": "ok",
        "version": __version__,
        "pid": os.getpid(),
        "started_by": "user",
        "idle_exit_seconds": None,
    }
    assert store["id"] == expected_id
    if settings.resolved_database_url().startswith("sqlite"):
        assert store == {
            "id": expected_id,
            "kind": "sqlite",
            "location": str((tmp_path / "hub.db").resolve()),
        }
    else:
        schema = settings.resolved_database_url().rpartition("%3D")[2]
        assert store == {
            "id": expected_id,
            "kind": "postgresql",
            "location": f"127.0.0.1:5432/test?search_path={schema}",
        }


def test_healthz_never_shows_a_postgresql_password(tmp_path: Path) -> None:
    url = "postgresql://aletheia:s3cret@127.0.0.1:1/memory?options=-csearch_path%3Dteam"
    app = create_app(Settings(database_url=url, cwd=tmp_path))
    try:
        # Without `with`, the lifespan never runs: the store's id is not known yet.
        response = TestClient(app, base_url="http://127.0.0.1").get("/healthz")
    finally:
        app.state.db.dispose()
    assert response.status_code == 200
    assert "s3cret" not in response.text and "aletheia@" not in response.text
    assert response.json()["store"] == {
        "id": None,
        "kind": "postgresql",
        "location": "127.0.0.1:1/memory?search_path=team",
    }


def test_readyz_is_ready_after_startup(http: TestClient) -> None:
    response = http.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "version": __version__}


def test_readyz_is_503_when_the_schema_is_behind(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'fresh.db'}", cwd=tmp_path)
    app = create_app(settings)
    try:
        # Without `with`, the lifespan never runs, so no migration is applied.
        client = TestClient(app, base_url="http://127.0.0.1")
        response = client.get("/readyz")
        assert response.status_code == 503
        assert response.json() == {
            "status": "unavailable",
            "reason": "the database schema is not at the newest migration",
        }
        assert client.get("/healthz").status_code == 200
    finally:
        app.state.db.dispose()


def test_readyz_is_503_when_the_database_is_unreachable(tmp_path: Path) -> None:
    unreachable = "postgresql+psycopg://postgres@127.0.0.1:1/test?connect_timeout=2"
    app = create_app(Settings(database_url=unreachable, cwd=tmp_path))
    try:
        response = TestClient(app, base_url="http://127.0.0.1").get("/readyz")
        assert response.status_code == 503
        body = response.json()
        assert body["status"] == "unavailable"
        assert body["reason"].startswith("the database is not reachable")
        assert "127.0.0.1" not in body["reason"]
    finally:
        app.state.db.dispose()


def test_readyz_turns_ready_once_startup_has_migrated(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'hub.db'}", cwd=tmp_path)
    before = create_app(settings)
    try:
        assert TestClient(before, base_url="http://127.0.0.1").get("/readyz").status_code == 503
    finally:
        before.state.db.dispose()
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        assert http.get("/readyz").status_code == 200


def test_a_team_hub_tells_a_remote_caller_only_that_it_is_healthy_unless_a_store_wide_admin(
    settings: Settings, sqlite_template: Path
) -> None:
    url = settings.resolved_database_url()
    prefill_store(sqlite_template, url)
    team = settings.model_copy(update={"team_mode": True})
    _id, admin = issue_token(url, "admin", None)
    _id, limited_admin = issue_token(url, "admin", ["shop"])
    _id, sync = issue_token(url, "sync", None)
    remote = ("203.0.113.9", 40000)
    with TestClient(create_app(team), base_url="http://127.0.0.1", client=remote) as http:
        assert http.get("/healthz").json() == {"status": "ok"}
        for secret in (sync, limited_admin, "not-a-token"):
            answer = http.get("/healthz", headers={"Authorization": f"Bearer {secret}"})
            assert (answer.status_code, answer.json()) == (200, {"status": "ok"})
        full = http.get("/healthz", headers={"Authorization": f"Bearer {admin}"}).json()
        assert full["pid"] == os.getpid() and full["store"]["kind"] in ("sqlite", "postgresql")


def test_a_team_hub_answers_a_caller_on_this_machine_in_full_but_not_one_a_proxy_passed_on(
    settings: Settings, sqlite_template: Path
) -> None:
    prefill_store(sqlite_template, settings.resolved_database_url())
    team = settings.model_copy(update={"team_mode": True})
    local = ("127.0.0.1", 40000)
    with TestClient(create_app(team), base_url="http://127.0.0.1", client=local) as http:
        full = http.get("/healthz").json()
        assert full["pid"] == os.getpid() and "location" in full["store"] and "search" in full
        for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
            passed_on = http.get("/healthz", headers={header: "198.51.100.4"})
            assert passed_on.json() == {"status": "ok"}, header
