"""Rules across projects: a rule reaches only the projects its maker may use."""

import re

from tests.helpers import McpHttpClient
from tests.hub.tools.support import recalled
from tests.team.conftest import Team, issue_token, session_for, token_session


def added_rule(client: McpHttpClient, **arguments: str) -> str:
    answer = client.text("add_rule", arguments)
    found = re.fullmatch(r"Rule saved \((r_[0-9a-f]{10})\)\. .*", answer)
    assert found, answer
    return found.group(1)


def rule_lines(client: McpHttpClient) -> list[str]:
    answer = client.text("list_rules", {})
    return [] if answer.startswith("No rules yet.") else recalled(answer)


def context_rules(client: McpHttpClient, project: str | None = None) -> list[str]:
    arguments = {} if project is None else {"project": project}
    lines = recalled(client.text("session_start_context", arguments))
    if "## Rules" not in lines:
        return []
    start = lines.index("## Rules") + 1
    return [line for line in lines[start:] if line.startswith("- ")]


def read_session(team: Team, projects: list[str], project: str) -> McpHttpClient:
    _id, secret = issue_token(team.url, "read", projects)
    return session_for(team.http, secret, project=project)


def test_a_billing_tokens_rules_never_reach_shop(team: Team) -> None:
    billing = token_session(team, ["billing"], header_project="billing")
    shop_reader = read_session(team, ["shop"], "shop")
    added_rule(billing, then="Invoice numbers are never reused")
    added_rule(billing, then="Ask finance first", scopeTier="situation", scopeName="billing")

    assert rule_lines(shop_reader) == []
    assert context_rules(shop_reader) == []
    assert context_rules(billing) == [
        "- Always: Invoice numbers are never reused",
        "- Always: Ask finance first",
    ]
    assert len(rule_lines(billing)) == 2


def test_a_shop_tokens_everywhere_rule_stays_in_shop(team: Team) -> None:
    shop = token_session(team, ["shop"])
    billing = token_session(team, ["billing"], header_project="billing")
    rule = added_rule(shop, then="Run the shop linter before pushing")

    assert context_rules(billing) == []
    assert rule_lines(billing) == []
    assert billing.call_tool("confirm_rule", {"id": rule}) == (
        f"No rule with id {rule}. list_rules shows the ids.",
        True,
    )
    assert context_rules(shop) == ["- Always: Run the shop linter before pushing"]
    assert context_rules(team.admin, "billing") == []
    assert [line.split("  ")[1] for line in rule_lines(team.admin)] == ["[everywhere in shop]"]


def test_a_token_cannot_confirm_another_projects_rules(team: Team) -> None:
    billing = token_session(team, ["billing"], header_project="billing")
    shop = token_session(team, ["shop"])
    everywhere = added_rule(billing, then="Round amounts half to even")
    project_rule = added_rule(billing, then="Keep invoices for ten years", scopeTier="project")
    for rule in (everywhere, project_rule):
        assert shop.call_tool("confirm_rule", {"id": rule}) == (
            f"No rule with id {rule}. list_rules shows the ids.",
            True,
        )
        assert billing.text("confirm_rule", {"id": rule}).startswith(f"Confirmed rule {rule} on ")


def test_an_unrestricted_callers_rule_reaches_every_project(team: Team) -> None:
    rule = added_rule(team.admin, then="Write commit messages in English")
    shop = token_session(team, ["shop"])
    billing = token_session(team, ["billing"], header_project="billing")
    for client in (shop, billing):
        assert context_rules(client) == ["- Always: Write commit messages in English"]
        assert [line.split("  ")[1] for line in rule_lines(client)] == ["[everywhere]"]
        # Seen everywhere, but changed only by a caller that may use every project it reaches.
        assert client.call_tool("confirm_rule", {"id": rule}) == (
            f"This token cannot change rule {rule}: it reaches projects this token may not use.",
            True,
        )
    assert team.admin.text("confirm_rule", {"id": rule}).startswith(f"Confirmed rule {rule} on ")


def test_a_rule_of_a_two_project_token_reaches_both_and_shows_only_what_the_viewer_may_see(
    team: Team,
) -> None:
    both = token_session(team, ["shop", "billing"])
    rule = added_rule(both, then="Feature flags are removed within a month")
    shop = token_session(team, ["shop"])
    billing = token_session(team, ["billing"], header_project="billing")
    vault = token_session(team, ["vault"], header_project="vault")

    assert context_rules(shop) == ["- Always: Feature flags are removed within a month"]
    assert context_rules(billing) == ["- Always: Feature flags are removed within a month"]
    assert rule_lines(vault) == [] and context_rules(vault) == []
    assert [line.split("  ")[1] for line in rule_lines(team.admin)] == [
        "[everywhere in billing, shop]"
    ]
    assert [line.split("  ")[1] for line in rule_lines(shop)] == ["[everywhere in shop]"]
    assert shop.call_tool("confirm_rule", {"id": rule})[1] is True
    assert both.text("confirm_rule", {"id": rule}).startswith(f"Confirmed rule {rule} on ")


def test_the_same_rule_from_two_projects_is_two_rules_and_tells_neither_of_the_other(
    team: Team,
) -> None:
    shop = token_session(team, ["shop"])
    billing = token_session(team, ["billing"], header_project="billing")
    first = added_rule(shop, then="Never commit .env files")
    second = added_rule(billing, then="Never commit .env files")
    assert first != second
    assert shop.text("add_rule", {"then": "Never commit .env files"}) == (
        f"Rule already exists ({first}); nothing was added."
    )


def test_re_check_hints_name_only_evidence_the_viewer_may_see(team: Team) -> None:
    saved = team.admin.text("save_memory", {"text": "A billing incident", "project": "billing"})
    found = re.search(r"#(\d+)", saved)
    assert found, saved
    memory = int(found.group(1))
    added_rule(team.admin, then="Page the on-call first", evidence_memory_ids=[memory])
    team.admin.text("dismiss_memory", {"id": memory})
    shop = token_session(team, ["shop"])

    assert rule_lines(shop)[0].endswith(" [re-check: evidence was dismissed]")
    assert rule_lines(team.admin)[0].endswith(f" [re-check: evidence #{memory} was dismissed]")
