"""Every tool against every token scope, and project limits, on an in-process team hub."""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.mcp.tools.catalog import TOOLS
from aletheia_hub.settings import Settings
from tests.team.conftest import Team, issue_token, session_for, token_session

SCOPES: Final = ("mcp", "read", "sync", "admin")
READ_TOOLS: Final = frozenset(
    {
        "search",
        "timeline",
        "get_observations",
        "session_start_context",
        "fact_history",
        "list_rules",
        "work_state_read",
    }
)
WRITE_TOOLS: Final = frozenset(
    {
        "save_memory",
        "add_rule",
        "confirm_rule",
        "dismiss_memory",
        "restore_memory",
        "work_state_write",
    }
)
WRITE_SCOPES: Final = frozenset({"sync", "admin"})
TOOL_NAMES: Final = [tool.name for tool in TOOLS]


@dataclass(frozen=True)
class Matrix:
    http: TestClient
    secrets: dict[str, str]
    memory_id: int
    dismissable_id: int
    restorable_id: int
    rule_id: str
    shop_only: str
    shop_and_billing: str


def minimal_arguments(matrix: Matrix, tool: str, scope: str) -> dict[str, Any]:
    """Valid arguments for one call of `tool` (unique text per scope where it matters)."""
    arguments: dict[str, dict[str, Any]] = {
        "search": {"query": "x"},
        "timeline": {},
        "get_observations": {"ids": [matrix.memory_id]},
        "session_start_context": {},
        "fact_history": {"subject": "x"},
        "list_rules": {},
        "work_state_read": {"list": "todo"},
        "save_memory": {"text": f"matrix note saved by a {scope} token"},
        "add_rule": {"then": f"matrix rule added by a {scope} token"},
        "confirm_rule": {"id": matrix.rule_id},
        "dismiss_memory": {"id": matrix.dismissable_id},
        "restore_memory": {"id": matrix.restorable_id},
        "work_state_write": {"list": "todo", "items": ["a"]},
    }
    return arguments[tool]


def saved_id(text: str) -> int:
    found = re.fullmatch(r"Saved as #(\d+) in shop\.(?:\nSimilar to #\d+ .+)*", text)
    assert found, text
    return int(found.group(1))


@pytest.fixture(scope="module")
def matrix(module_store_url: str) -> Iterator[Matrix]:
    """One team hub per backend with a shop-only token of every scope and seeded items."""
    token_secrets = {
        scope: issue_token(module_store_url, scope, ["shop"], name=scope)[1] for scope in SCOPES
    }
    shop_only = issue_token(module_store_url, "sync", ["shop"])[1]
    shop_and_billing = issue_token(module_store_url, "sync", ["shop", "billing"])[1]
    settings = Settings(database_url=module_store_url, team_mode=True, rate_limit_per_minute=10_000)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        seeder = session_for(http, token_secrets["sync"])
        memory_id = saved_id(seeder.text("save_memory", {"text": "Matrix memory to read"}))
        dismissable_id = saved_id(seeder.text("save_memory", {"text": "Matrix memory to dismiss"}))
        restorable_id = saved_id(seeder.text("save_memory", {"text": "Matrix memory to restore"}))
        seeder.text("dismiss_memory", {"id": restorable_id})
        added = seeder.text("add_rule", {"then": "Matrix rule to confirm"})
        rule = re.search(r"\((r_[0-9a-f]+)\)", added)
        assert rule, added
        yield Matrix(
            http,
            token_secrets,
            memory_id,
            dismissable_id,
            restorable_id,
            rule.group(1),
            shop_only,
            shop_and_billing,
        )


def test_the_matrix_covers_every_tool_with_its_declared_access() -> None:
    assert set(TOOL_NAMES) == READ_TOOLS | WRITE_TOOLS
    assert len(TOOL_NAMES) == 13
    for tool in TOOLS:
        assert tool.access == ("read" if tool.name in READ_TOOLS else "write"), tool.name


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_every_tool_for_every_scope(matrix: Matrix, tool: str, scope: str) -> None:
    client = session_for(matrix.http, matrix.secrets[scope])
    text, is_error = client.call_tool(tool, minimal_arguments(matrix, tool, scope))
    refusal = f"This token cannot call {tool}."
    if tool in READ_TOOLS or scope in WRITE_SCOPES:
        assert text != refusal
        assert "cannot call" not in text
        assert is_error is False, text
    else:
        assert (text, is_error) == (refusal, True)


@pytest.mark.parametrize("scope", ["mcp", "read"])
def test_a_refused_write_changes_nothing(matrix: Matrix, scope: str) -> None:
    client = session_for(matrix.http, matrix.secrets[scope])
    secret_words = f"refusedwrite{scope}"
    assert client.call_tool("save_memory", {"text": secret_words}) == (
        "This token cannot call save_memory.",
        True,
    )
    assert client.call_tool("work_state_write", {"list": secret_words, "items": ["b"]}) == (
        "This token cannot call work_state_write.",
        True,
    )
    reader = session_for(matrix.http, matrix.secrets["admin"])
    assert reader.text("search", {"query": secret_words}).startswith("No matches.")
    assert (
        reader.text("work_state_read", {"list": secret_words}) == f'No list named "{secret_words}".'
    )


# --- project limits -----------------------------------------------------------------------------

PROJECT_TOOLS: Final[dict[str, dict[str, Any]]] = {
    "search": {"query": "kiwi"},
    "timeline": {"query": "kiwi"},
    "session_start_context": {},
    "fact_history": {"subject": "db"},
    "work_state_read": {"list": "todo"},
    "save_memory": {"text": "A note about kiwi"},
    "work_state_write": {"list": "todo", "items": ["a"]},
}
REFUSED_BILLING: Final = 'Project "billing" is not allowed for this token.'
REFUSED_VAULT: Final = 'Project "vault" is not allowed for this token.'


def test_project_tools_cover_every_tool_with_a_project_argument() -> None:
    with_project = {
        tool.name for tool in TOOLS if "project" in tool.definition["inputSchema"]["properties"]
    }
    assert with_project == set(PROJECT_TOOLS)


@pytest.mark.parametrize("tool", list(PROJECT_TOOLS))
def test_another_project_is_refused_for_a_project_limited_token(matrix: Matrix, tool: str) -> None:
    client = session_for(matrix.http, matrix.shop_only)
    arguments = {**PROJECT_TOOLS[tool], "project": "billing"}
    assert client.call_tool(tool, arguments) == (REFUSED_BILLING, True)


def test_a_refused_project_write_leaves_the_other_project_untouched(team: Team) -> None:
    client = token_session(team, ["shop"])
    assert client.call_tool("save_memory", {"text": "kiwi", "project": "billing"}) == (
        REFUSED_BILLING,
        True,
    )
    assert client.call_tool(
        "work_state_write", {"list": "todo", "items": ["x"], "project": "billing"}
    ) == (REFUSED_BILLING, True)
    assert team.admin.text("search", {"query": "kiwi", "project": "*"}).startswith("No matches.")
    assert team.admin.text("work_state_read", {"list": "todo", "project": "billing"}) == (
        'No list named "todo".'
    )


@pytest.mark.parametrize("tool", list(PROJECT_TOOLS))
def test_an_allowed_project_is_served(matrix: Matrix, tool: str) -> None:
    client = session_for(matrix.http, matrix.shop_and_billing)
    for project in ("shop", "billing"):
        text, is_error = client.call_tool(tool, {**PROJECT_TOOLS[tool], "project": project})
        assert "not allowed" not in text
        assert is_error is False, text


def test_timeline_without_an_anchor_still_refuses_another_project(team: Team) -> None:
    client = token_session(team, ["shop"])
    assert client.call_tool("timeline", {"project": "billing"}) == (REFUSED_BILLING, True)


def seed_shop_and_billing(team: Team) -> tuple[int, int]:
    """A kiwi memory (with a db fact) and a todo list in shop and in billing."""
    shop_id = saved_id(
        team.admin.text(
            "save_memory",
            {
                "text": "kiwi checkout in the shop",
                "project": "shop",
                "facts": [{"subject": "db", "predicate": "uses", "object": "postgres"}],
            },
        )
    )
    billing = team.admin.text(
        "save_memory",
        {
            "text": "kiwi invoices in billing",
            "project": "billing",
            "facts": [{"subject": "db", "predicate": "uses", "object": "mysql"}],
        },
    )
    found = re.fullmatch(r"Saved as #(\d+) in billing\.(?:\nSimilar to #\d+ .+)*", billing)
    assert found, billing
    team.admin.text("work_state_write", {"list": "todo", "items": ["shop item"], "project": "shop"})
    team.admin.text(
        "work_state_write", {"list": "todo", "items": ["billing item"], "project": "billing"}
    )
    return shop_id, int(found.group(1))


def test_save_memory_without_project_saves_in_the_first_allowed_project(team: Team) -> None:
    client = token_session(team, ["shop", "billing"], header_project="billing")
    assert client.text("save_memory", {"text": "Deploys go through CI"}) == "Saved as #1 in shop."
    reversed_order = token_session(team, ["billing", "shop"], header_project="shop")
    assert reversed_order.text("save_memory", {"text": "Invoices are monthly"}) == (
        "Saved as #2 in billing."
    )


def test_work_state_write_without_project_writes_the_first_allowed_project(team: Team) -> None:
    client = token_session(team, ["shop", "billing"], header_project="billing")
    assert client.text("work_state_write", {"list": "todo", "items": ["ship"]}).startswith(
        'Saved list "todo" with 1 item(s)'
    )
    assert "ship" in team.admin.text("work_state_read", {"list": "todo", "project": "shop"})
    assert team.admin.text("work_state_read", {"list": "todo", "project": "billing"}) == (
        'No list named "todo".'
    )


def test_reads_without_project_read_the_first_allowed_project(team: Team) -> None:
    shop_id, billing_id = seed_shop_and_billing(team)
    client = token_session(team, ["shop", "billing"], header_project="billing")

    found = client.text("search", {"query": "kiwi"})
    assert f"#{shop_id}" in found and f"#{billing_id}" not in found

    anchored = client.text("timeline", {"query": "kiwi"})
    assert f"→ #{shop_id}" in anchored and f"#{billing_id}" not in anchored

    context = client.text("session_start_context", {})
    assert "kiwi checkout" in context and "kiwi invoices" not in context

    facts = client.text("fact_history", {"subject": "db"})
    assert "postgres" in facts and "mysql" not in facts

    todo = client.text("work_state_read", {"list": "todo"})
    assert "shop item" in todo and "billing item" not in todo


def test_every_project_means_only_the_allowed_ones(team: Team) -> None:
    shop_id, billing_id = seed_shop_and_billing(team)
    vault_id = saved_id_in(
        team.admin.text(
            "save_memory",
            {
                "text": "kiwi vault combination",
                "project": "vault",
                "facts": [{"subject": "db", "predicate": "uses", "object": "oracle"}],
            },
        ),
        "vault",
    )
    team.admin.text(
        "add_rule", {"then": "Vault rule only", "scopeTier": "project", "scopeName": "vault"}
    )
    team.admin.text(
        "add_rule", {"then": "Billing rule only", "scopeTier": "project", "scopeName": "billing"}
    )
    client = token_session(team, ["shop", "billing"])

    found = client.text("search", {"query": "kiwi", "project": "*"})
    assert f"#{shop_id}" in found and f"#{billing_id}" in found
    assert f"#{vault_id}" not in found and "vault" not in found

    facts = client.text("fact_history", {"subject": "db", "project": "*"})
    assert "postgres" in facts and "mysql" in facts and "oracle" not in facts

    assert client.text("get_observations", {"ids": [vault_id]}) == (
        "No memories found for those ids."
    )
    both = client.text("get_observations", {"ids": [shop_id, billing_id, vault_id]})
    assert "kiwi checkout" in both and "kiwi invoices" in both and "vault" not in both

    assert client.text("timeline", {"anchor": vault_id}) == "Nothing to anchor on."
    assert client.text("timeline", {"query": "combination", "project": "*"}) == (
        "Nothing to anchor on."
    )

    rules = client.text("list_rules", {})
    assert "Billing rule only" in rules and "Vault rule only" not in rules


def saved_id_in(text: str, project: str) -> int:
    found = re.fullmatch(rf"Saved as #(\d+) in {project}\.(?:\nSimilar to #\d+ .+)*", text)
    assert found, text
    return int(found.group(1))


def test_dismiss_and_restore_of_an_item_in_a_disallowed_project_look_like_a_missing_id(
    team: Team,
) -> None:
    vault_id = saved_id_in(
        team.admin.text("save_memory", {"text": "vault memory", "project": "vault"}), "vault"
    )
    hidden_id = saved_id_in(
        team.admin.text("save_memory", {"text": "hidden vault memory", "project": "vault"}),
        "vault",
    )
    team.admin.text("dismiss_memory", {"id": hidden_id})
    client = token_session(team, ["shop"])

    assert client.call_tool("dismiss_memory", {"id": vault_id}) == (f"No memory #{vault_id}.", True)
    assert client.call_tool("restore_memory", {"id": hidden_id}) == (
        f"No memory #{hidden_id}.",
        True,
    )
    # Nothing changed: the first is still visible, the second still hidden.
    shown = team.admin.text("get_observations", {"ids": [vault_id, hidden_id]})
    assert "vault memory" in shown and "hidden vault memory" not in shown


def test_add_rule_for_a_disallowed_project_is_refused(team: Team) -> None:
    client = token_session(team, ["shop"])
    arguments = {"then": "Never deploy on Fridays", "scopeTier": "project", "scopeName": "vault"}
    assert client.call_tool("add_rule", arguments) == (REFUSED_VAULT, True)
    project_rule = {"then": "Run the shop linter", "scopeTier": "project"}
    assert client.text("add_rule", project_rule).startswith("Rule saved (r_")
    assert "[project: shop]" in team.admin.text("list_rules", {})


def test_confirm_rule_of_a_disallowed_project_rule_looks_like_a_missing_rule(team: Team) -> None:
    added = team.admin.text(
        "add_rule", {"then": "Vault rule", "scopeTier": "project", "scopeName": "vault"}
    )
    rule = re.search(r"\((r_[0-9a-f]+)\)", added)
    assert rule, added
    client = token_session(team, ["shop"])
    assert "Vault rule" not in client.text("list_rules", {})
    assert client.call_tool("confirm_rule", {"id": rule.group(1)}) == (
        f"No rule with id {rule.group(1)}. list_rules shows the ids.",
        True,
    )
