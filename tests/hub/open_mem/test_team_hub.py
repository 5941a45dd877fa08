"""On a team hub the mem-* tools obey token scopes and project limits, and a user-wide memory
belongs to the token that made it; on SQLite and PostgreSQL."""

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from aletheia_hub.app import create_app
from aletheia_hub.mcp.formats import unwrap_recalled
from aletheia_hub.settings import Settings
from aletheia_hub.store import tokens
from aletheia_hub.store.db import Database
from aletheia_hub.store.portable import build_document
from aletheia_hub.store.tables import AUDIT_LOG
from tests.helpers import McpHttpClient
from tests.hub.open_mem.conftest import OPEN_MEM_PATH, create, listed_ids

READ_CALLS = {
    "mem-find": {"query": "deploys"},
    "mem-history": {},
    "mem-get": {"ids": ["obs-1"]},
    "mem-help": {},
}
WRITE_CALLS = {
    "mem-create": {"title": "Refused", "type": "decision", "narrative": "Never stored."},
    "mem-revise": {"id": "obs-1", "title": "Refused"},
    "mem-remove": {"id": "obs-1"},
}


@pytest.fixture
def team(store_url: str, tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=store_url,
        team_mode=True,
        rate_limit_per_minute=10_000,
        data_dir=tmp_path,
        cwd=tmp_path,
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        yield http


def token(http: TestClient, scope: str, projects: list[str]) -> str:
    db: Database = http.app.state.db  # type: ignore[attr-defined]
    with db.write_session() as session:
        return tokens.create_token(
            session=session, scope=scope, projects=projects, name=None
        ).secret


def session(http: TestClient, secret: str, project: str = "shop") -> McpHttpClient:
    client = McpHttpClient(http, OPEN_MEM_PATH, project=project, tool="tests", token=secret)
    client.initialize()
    return client


def test_read_scopes_read_and_only_write_scopes_write(team: TestClient) -> None:
    writer = session(team, token(team, "sync", ["shop"]))
    create(writer, "Deploys", "Deploys are blue-green.")
    for scope in ("mcp", "read"):
        reader = session(team, token(team, scope, ["shop"]))
        for name, arguments in READ_CALLS.items():
            assert reader.call_tool(name, arguments)[1] is False, name
        for name, arguments in WRITE_CALLS.items():
            assert reader.call_tool(name, arguments) == (f"This token cannot call {name}.", True)
    assert listed_ids(writer.text("mem-find", {"query": "deploys"})) == [1]
    assert "Refused" not in writer.text("mem-get", {"ids": ["obs-1"]})
    admin = session(team, token(team, "admin", ["shop"]))
    assert admin.text("mem-revise", {"id": "obs-1", "title": "Deploys, revised"}).startswith(
        "Revised obs-1 as obs-2"
    )


def test_project_limits_apply_to_every_mem_tool(team: TestClient) -> None:
    billing_writer = session(team, token(team, "sync", ["billing"]), project="billing")
    hidden = create(billing_writer, "Invoices", "Invoices are sent monthly.")
    shop = session(team, token(team, "sync", ["shop"]))
    assert shop.text("mem-find", {"query": "invoices"}).startswith("No observations matched")
    assert shop.text("mem-get", {"ids": [f"obs-{hidden}"]}) == f"Not found: obs-{hidden}."
    for name, arguments in (
        ("mem-history", {"anchor": f"obs-{hidden}"}),
        ("mem-revise", {"id": f"obs-{hidden}", "title": "Taken"}),
        ("mem-remove", {"id": f"obs-{hidden}"}),
    ):
        assert shop.call_tool(name, arguments) == (f"No observation obs-{hidden}.", True), name
    # A shop-only token opening a session in billing works in its own project.
    elsewhere = session(team, token(team, "sync", ["shop"]), project="billing")
    landed = create(elsewhere, "Lands in shop", "Saved by a shop-only token.")
    assert listed_ids(shop.text("mem-find", {"query": "lands"})) == [landed]


def test_a_user_wide_memory_is_its_tokens_alone(team: TestClient) -> None:
    alice_secret = token(team, "sync", ["shop", "billing"])
    alice = session(team, alice_secret)
    mine = create(alice, "Alice prefers tabs", "Tabs everywhere.", scope="user")
    assert listed_ids(
        session(team, alice_secret, "billing").text("mem-find", {"query": "tabs", "scope": "user"})
    ) == [mine]
    bob_secret = token(team, "sync", ["shop", "billing"])
    bob = session(team, bob_secret)
    for scope in ("project", "user", "all"):
        assert listed_ids(bob.text("mem-find", {"query": "tabs", "scope": scope})) == []
    assert bob.text("mem-get", {"ids": [f"obs-{mine}"]}) == f"Not found: obs-{mine}."
    assert bob.call_tool("mem-remove", {"id": mine}) == (f"No observation obs-{mine}.", True)
    assert f"obs-{mine} " not in bob.text("mem-history", {})
    assert bob.call_tool("mem-history", {"anchor": mine}) == (f"No observation obs-{mine}.", True)
    bob_main = McpHttpClient(team, "/mcp", project="shop", tool="tests", token=bob_secret)
    bob_main.initialize()
    assert f"#{mine} " not in bob_main.text("search", {"query": "tabs"})
    assert bob_main.text("timeline", {"anchor": mine}) == "Nothing to anchor on."
    alice_main = McpHttpClient(team, "/mcp", project="billing", tool="tests", token=alice_secret)
    alice_main.initialize()
    assert f"#{mine} " in alice_main.text("search", {"query": "tabs"})
    assert f"#{mine} " in alice_main.text("timeline", {"anchor": mine})


def test_mem_export_shows_another_tokens_session_by_its_history_label(team: TestClient) -> None:
    alice = session(team, token(team, "sync", ["shop"]))
    create(alice, "Alice's deploy note", "Deploys are blue-green.")
    bob = session(team, token(team, "sync", ["shop"]))
    create(bob, "Bob's deploy note", "Deploys run at noon.")
    assert alice.session_id is not None and bob.session_id is not None
    answer = bob.text("mem-export")
    assert alice.session_id not in answer
    sessions = [o["sessionId"] for o in json.loads(unwrap_recalled(answer))["observations"]]
    label = re.search(r"^Session (s-[0-9a-f]{16}) · ", bob.text("mem-history", {}), re.M)
    assert label is not None
    assert sessions == [label.group(1), bob.session_id]  # the caller's own, by its id
    assert alice.session_id in alice.text("mem-export")
    db: Database = team.app.state.db  # type: ignore[attr-defined]
    with db.read_session() as read:  # what `aletheia export`, a local admin's backup, writes
        backup = build_document(session=read, project="shop")
    assert [o.session_id for o in backup.observations] == [alice.session_id, bob.session_id]


def test_audit_rows_name_the_canonical_operation_of_each_mem_tool(team: TestClient) -> None:
    client = session(team, token(team, "sync", ["shop"]))
    created = create(client, "Audited", "Saved for the audit.")
    client.text("mem-find", {"query": "audited"})
    client.text("mem-get", {"ids": [f"obs-{created}"]})
    client.text("mem-revise", {"id": created, "importance": 4})
    client.text("mem-remove", {"id": created + 1})
    db: Database = team.app.state.db  # type: ignore[attr-defined]
    with db.read_session() as read:
        rows = read.execute(
            select(AUDIT_LOG.c.tool, AUDIT_LOG.c.operation).order_by(AUDIT_LOG.c.id)
        ).all()
    assert [tuple(row) for row in rows] == [
        ("mem-create", "save_memory"),
        ("mem-find", "search"),
        ("mem-get", "get_observations"),
        ("mem-revise", "mem-revise"),
        ("mem-remove", "dismiss_memory"),
    ]
