"""mem-import on a team hub writes only what the token could write with the direct tools: rules
within its projects, replace touching only what it may change; on SQLite and PostgreSQL."""

import json
import re
from typing import Any

import pytest

from tests.helpers import McpHttpClient
from tests.hub.open_mem.conftest import OPEN_MEM_PATH, create
from tests.team.conftest import Team, issue_token, session_for, table_rows, token_session
from tests.team.test_rule_reach import added_rule, context_rules, rule_lines

CREATED: int = 1_700_000_000_000
SHOP_TABLES = ("memories", "facts", "rules", "work_state_lists", "dismissals", "entries")


def open_mem(team: Team, projects: list[str] | None, project: str = "shop") -> McpHttpClient:
    """An open-mem session of a new sync token (None: an unrestricted admin token)."""
    _id, secret = issue_token(team.url, "admin" if projects is None else "sync", projects)
    client = McpHttpClient(team.http, OPEN_MEM_PATH, project=project, tool="tests", token=secret)
    client.initialize()
    return client


def rule(rule_id: str, then: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": rule_id,
        "when": "",
        "then": then,
        "scopeTier": "project",
        "scopeName": "shop",
        "source": "mcp",
        "enabled": True,
        "createdAtMs": CREATED,
        "confirmedAtMs": CREATED,
        "reach": ["shop"],
        "evidenceObservations": [],
        "evidenceFacts": [],
        **extra,
    }


def payload(project: str = "shop", **parts: list[dict[str, Any]]) -> str:
    document: dict[str, Any] = {
        "format": "aletheia-export",
        "version": 1,
        "exportedAt": "2026-12-01T00:00:00.000Z",
        "project": project,
        "observations": [],
        "tombstones": [],
        "facts": [],
        "rules": [],
        "workState": [],
    }
    document.update(parts)
    return json.dumps(document)


def observation(number: int, title: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"obs-{number}",
        "title": title,
        "narrative": f"{title}: the details.",
        "createdAtMs": CREATED + number,
        **extra,
    }


def imported(client: McpHttpClient, document: str, mode: str = "skip") -> str:
    return client.text("mem-import", {"payload": document, "mode": mode})


def refused(client: McpHttpClient, document: str, mode: str = "skip") -> str:
    text, is_error = client.call_tool("mem-import", {"payload": document, "mode": mode})
    assert is_error, text
    return text


def rows(team: Team, table: str) -> list[dict[str, Any]]:
    return sorted(table_rows(team.url, table), key=repr)


def snapshot(team: Team) -> dict[str, list[dict[str, Any]]]:
    return {table: rows(team, table) for table in SHOP_TABLES}


def rule_row(team: Team, rule_id: str) -> dict[str, Any] | None:
    return next((row for row in rows(team, "rules") if row["id"] == rule_id), None)


# The findings of issue 23


def test_a_shop_token_cannot_import_a_project_rule_for_billing(team: Team) -> None:
    shop = open_mem(team, ["shop"])
    billing = token_session(team, ["billing"], header_project="billing")
    smuggled = rule(
        "r_deadbeef02",
        "IMPORTED RULE project billing",
        scopeName="billing",
        reach=["billing"],
    )
    assert refused(shop, payload(rules=[smuggled])) == (
        "Import refused: rules.0 (r_deadbeef02) reaches projects this token may not use; "
        "nothing was written."
    )
    assert rows(team, "rules") == []
    assert rule_lines(billing) == []
    assert context_rules(billing) == []
    imports = [row for row in rows(team, "audit_log") if row["tool"] == "mem-import"]
    assert [(row["project"], row["result"]) for row in imports] == [("shop", "refused")]


@pytest.mark.parametrize(
    ("tier", "name", "reach"),
    [
        ("everywhere", None, ["billing", "shop", "*"]),
        ("everywhere", None, ["*"]),
        ("situation", "deploys", ["billing"]),
        ("everywhere", None, None),  # every project, now and later
        ("everywhere", None, []),
        ("project", "billing", ["shop"]),
    ],
)
def test_a_shop_token_imports_no_rule_reaching_past_shop(
    team: Team, tier: str, name: str | None, reach: list[str] | None
) -> None:
    shop = open_mem(team, ["shop"])
    wide = rule("r_0000000001", "Reach too far", scopeTier=tier, scopeName=name, reach=reach)
    assert refused(shop, payload(rules=[wide])) == (
        "Import refused: rules.0 (r_0000000001) reaches projects this token may not use; "
        "nothing was written."
    )
    assert rows(team, "rules") == []


def test_replace_leaves_a_rule_the_token_cannot_change_enabled(team: Team) -> None:
    both = token_session(team, ["shop", "billing"])
    shared = added_rule(both, then="Feature flags are removed within a month")
    shop_only = added_rule(token_session(team, ["shop"]), then="Run the shop linter")
    _id, secret = issue_token(team.url, "sync", ["shop"])
    assert session_for(team.http, secret).call_tool("confirm_rule", {"id": shared}) == (
        f"This token cannot change rule {shared}: it reaches projects this token may not use.",
        True,
    )
    shop = McpHttpClient(team.http, OPEN_MEM_PATH, project="shop", tool="tests", token=secret)
    shop.initialize()
    assert imported(shop, payload(), "replace") == (
        "Imported into shop (mode replace): 0 added, 0 merged, 0 skipped, 1 replaced."
    )
    shared_row, own_row = rule_row(team, shared), rule_row(team, shop_only)
    assert shared_row is not None and own_row is not None
    assert bool(shared_row["enabled"]) is True
    assert bool(own_row["enabled"]) is False
    billing = token_session(team, ["billing"], header_project="billing")
    assert context_rules(billing) == ["- Always: Feature flags are removed within a month"]


# Rules within the token's projects


def test_a_shop_token_imports_rules_that_reach_only_shop(team: Team) -> None:
    shop = open_mem(team, ["shop"])
    rules = [
        rule("r_0000000001", "Keep the shop tests green"),
        rule(
            "r_0000000002",
            "Deploy on Tuesdays",
            scopeTier="everywhere",
            scopeName=None,
            createdAtMs=CREATED + 1,  # rules list oldest first; their new ids are random
        ),
    ]
    assert imported(shop, payload(rules=rules)) == (
        "Imported into shop (mode skip): 2 added, 0 merged, 0 skipped, 0 replaced."
    )
    shop_context = token_session(team, ["shop"])
    assert context_rules(shop_context) == [
        "- Always: Keep the shop tests green",
        "- Always: Deploy on Tuesdays",
    ]
    billing = token_session(team, ["billing"], header_project="billing")
    assert rule_lines(billing) == []


def test_an_imported_rule_id_never_takes_over_another_projects_rule(team: Team) -> None:
    billing = token_session(team, ["billing"], header_project="billing")
    theirs = added_rule(billing, then="Invoice numbers are never reused")
    before = rule_row(team, theirs)
    shop = open_mem(team, ["shop"])
    rules = [rule(theirs, "Shop owns this id now"), rule("r_00000000f1", "A free id")]
    assert imported(shop, payload(rules=rules)) == (
        "Imported into shop (mode skip): 2 added, 0 merged, 0 skipped, 0 replaced."
    )
    assert rule_row(team, theirs) == before
    # A free id is replaced too: which ids a token's import keeps tells nothing about the
    # rules of projects it may not use.
    ids = {row["then_text"]: row["id"] for row in rows(team, "rules")}
    assert ids.keys() == {"Invoice numbers are never reused", "Shop owns this id now", "A free id"}
    for then in ("Shop owns this id now", "A free id"):
        assert ids[then] not in (theirs, "r_00000000f1") and re.fullmatch(
            r"r_[0-9a-f]{10}", ids[then]
        )
    (mine,) = [row for row in rows(team, "rules") if row["then_text"] == "Shop owns this id now"]
    assert (mine["project"], json.loads(mine["reach_json"])) == ("shop", ["shop"])
    assert context_rules(billing) == ["- Always: Invoice numbers are never reused"]


def test_a_token_takes_its_own_export_back_with_a_rule_it_cannot_change(team: Team) -> None:
    both = token_session(team, ["shop", "billing"])
    shared = added_rule(both, then="Feature flags are removed within a month")
    shop = open_mem(team, ["shop"])
    create(shop, "Prefer SQLite", "For the cache.")
    exported = shop.text("mem-export")
    before = snapshot(team)
    for mode in ("skip", "merge", "replace"):
        assert imported(shop, exported, mode) == (
            f"Imported into shop (mode {mode}): 0 added, 0 merged, 2 skipped, 0 replaced."
        )
    assert snapshot(team) == before
    assert rule_row(team, shared) == before["rules"][0]


def test_a_refused_rule_refuses_the_whole_import(team: Team) -> None:
    shop = open_mem(team, ["shop"])
    kept = create(shop, "Kept as it is", "Not tombstoned by a refused replace.")
    before = snapshot(team)
    document = payload(
        observations=[observation(1, "Never written")],
        facts=[{"subject": "shop", "predicate": "uses", "object": "pnpm", "validFromMs": CREATED}],
        workState=[{"name": "todo", "items": ["never"], "updatedAtMs": CREATED}],
        rules=[
            rule("r_0000000001", "Fine in shop"),
            *(
                rule(f"r_000000001{n}", f"Too far {n}", scopeName="billing", reach=["billing"])
                for n in range(5)
            ),
        ],
    )
    for mode in ("skip", "merge", "replace"):
        assert refused(shop, document, mode) == (
            "Import refused: rules.1 (r_0000000010), rules.2 (r_0000000011), rules.3 "
            "(r_0000000012) and 2 more reach projects this token may not use; nothing was "
            "written."
        )
    assert snapshot(team) == before
    assert f"obs-{kept} " in shop.text("mem-history", {})


# Memories, facts, work state, revisions and tombstones stay in the caller's project


def billing_rows(team: Team) -> dict[str, list[dict[str, Any]]]:
    return {
        table: [row for row in rows(team, table) if row.get("project") == "billing"]
        for table in ("memories", "facts", "work_state_lists")
    }


def test_memories_facts_and_work_state_never_reach_a_foreign_project(team: Team) -> None:
    admin = open_mem(team, None, project="billing")
    create(admin, "Billing note", "Invoices go out monthly.")
    before = billing_rows(team)
    shop = open_mem(team, ["shop"])
    document = payload(
        project="billing",
        observations=[observation(1, "Labelled billing")],
        facts=[{"subject": "billing", "predicate": "uses", "object": "stripe", "validFromMs": 1}],
        workState=[{"name": "todo", "items": ["send invoices"], "updatedAtMs": CREATED}],
    )
    for mode in ("skip", "merge", "replace"):
        imported(shop, document, mode)
    assert billing_rows(team) == before
    landed = {
        table: {row["project"] for row in rows(team, table)}
        for table in ("facts", "work_state_lists")
    }
    assert landed == {"facts": {"shop"}, "work_state_lists": {"shop"}}
    assert "Labelled billing" in shop.text("mem-find", {"query": "Labelled billing"})


def test_revisions_and_tombstones_never_touch_another_projects_memory(team: Team) -> None:
    admin = open_mem(team, None, project="billing")
    create(admin, "Billing note", "Invoices go out monthly.")
    (held,) = [row for row in rows(team, "memories") if row["project"] == "billing"]
    copy = {
        "title": held["title"],
        "narrative": held["text"],
        "createdAtMs": held["created_at_ms"],
    }
    document = payload(
        project="billing",
        observations=[
            {"id": f"obs-{held['id']}", **copy},
            observation(
                900, "Billing note", revisionOf=f"obs-{held['id']}", revisionReason="takeover"
            ),
        ],
    )
    removed = payload(
        project="billing",
        observations=[{"id": f"obs-{held['id']}", **copy, "removedAtMs": CREATED}],
        tombstones=[{"id": f"obs-{held['id']}", "removedAtMs": CREATED}],
    )
    before = billing_rows(team)
    shop = open_mem(team, ["shop"])
    for mode in ("skip", "merge", "replace"):
        imported(shop, document, mode)
        imported(shop, removed, mode)
    assert billing_rows(team) == before
    assert [row for row in rows(team, "dismissals") if row["item_id"] == held["id"]] == []


def test_replace_retires_only_what_the_token_may_change(team: Team) -> None:
    billing = open_mem(team, None, project="billing")
    create(billing, "Billing note", "Invoices go out monthly.")
    _alice, alice_secret = issue_token(team.url, "sync", ["shop"])
    alice = McpHttpClient(team.http, OPEN_MEM_PATH, project="shop", tool="t", token=alice_secret)
    alice.initialize()
    alices = create(alice, "Alice prefers tabs", "Tabs everywhere.", scope="user")
    bob = open_mem(team, ["shop"])
    bobs = create(bob, "Bob's shop note", "Retired by his replace.")
    before = billing_rows(team)
    assert imported(bob, payload(), "replace") == (
        "Imported into shop (mode replace): 0 added, 0 merged, 0 skipped, 1 replaced."
    )
    assert billing_rows(team) == before
    dismissed = {row["id"] for row in rows(team, "memories") if row["dismissed_at_ms"]}
    assert dismissed == {bobs}
    assert alices not in dismissed


# A caller without project limits imports everything as given


def test_an_unrestricted_admin_imports_every_rule_as_given(team: Team) -> None:
    both = token_session(team, ["shop", "billing"])
    shared = added_rule(both, then="Feature flags are removed within a month")
    admin = open_mem(team, None)
    rules = [
        rule(
            "r_deadbeef02", "IMPORTED RULE project billing", scopeName="billing", reach=["billing"]
        ),
        rule(
            "r_0000000002",
            "Wide",
            scopeTier="everywhere",
            scopeName=None,
            reach=["billing", "shop", "*"],
        ),
        rule("r_0000000003", "Every project", scopeTier="everywhere", scopeName=None, reach=None),
    ]
    assert imported(admin, payload(rules=rules)) == (
        "Imported into shop (mode skip): 3 added, 0 merged, 0 skipped, 0 replaced."
    )
    stored = {row["id"]: row["reach_json"] for row in rows(team, "rules")}
    assert stored == {
        shared: json.dumps(["billing", "shop"]),
        "r_deadbeef02": json.dumps(["billing"]),
        "r_0000000002": json.dumps(["billing", "shop", "*"]),
        "r_0000000003": None,
    }
    billing = token_session(team, ["billing"], header_project="billing")
    assert "IMPORTED RULE project billing" in billing.text("list_rules")
    assert imported(admin, payload(), "replace") == (
        "Imported into shop (mode replace): 0 added, 0 merged, 0 skipped, 4 replaced."
    )
    assert [row["enabled"] for row in rows(team, "rules")] == [False] * 4
