"""add_rule, list_rules and confirm_rule: ids, scopes, evidence, dedupe and re-check hints."""

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient
from tests.hub.raw import count_rows
from tests.hub.tools.support import DAY_MS, execute, failure, now_ms, recalled, save, today

SAVED = re.compile(
    r"Rule saved \((r_[0-9a-f]{10})\)\. The owner syncs rules to tools from the Rules page\."
)


def add(mcp: McpHttpClient, **arguments: Any) -> str:
    """Add a rule that must be new; returns its id."""
    answer = mcp.text("add_rule", arguments)
    match = SAVED.fullmatch(answer)
    assert match, answer
    return match[1]


def rule_lines(client: McpHttpClient) -> list[str]:
    """list_rules' lines, taken out of the data block they must come in."""
    return recalled(client.text("list_rules"))


def day(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, tz=UTC).strftime("%Y-%m-%d")


def set_rule_times(http: TestClient, rule_id: str, created: int, confirmed: int) -> None:
    execute(
        http,
        "UPDATE rules SET created_at_ms = :created, confirmed_at_ms = :confirmed WHERE id = :id",
        created=created,
        confirmed=confirmed,
        id=rule_id,
    )


def test_add_rule_answers_with_a_new_rule_id(mcp: McpHttpClient) -> None:
    answer = mcp.text("add_rule", {"then": "Run the tests before you commit"})
    assert SAVED.fullmatch(answer), answer


def test_list_rules_shows_one_line_per_rule(mcp: McpHttpClient, http: TestClient) -> None:
    commit = add(mcp, then="Run the tests before you commit", when="you are about to commit")
    env = add(mcp, then="Never commit .env files")
    created, confirmed = now_ms() - 20 * DAY_MS, now_ms() - 3 * DAY_MS
    set_rule_times(http, commit, created, confirmed)
    set_rule_times(http, env, created + 1, confirmed)
    assert rule_lines(mcp) == [
        "- When you are about to commit: Run the tests before you commit  [everywhere]  "
        f"(id {commit}, added {day(created)}, source: tests, last confirmed {day(confirmed)})",
        "- Always: Never commit .env files  [everywhere]  "
        f"(id {env}, added {day(created)}, source: tests, last confirmed {day(confirmed)})",
    ]


def test_when_defaults_to_always(mcp: McpHttpClient) -> None:
    rule = add(mcp, then="Answer in English")
    assert rule_lines(mcp)[0].startswith(f"- Always: Answer in English  [everywhere]  (id {rule}")
    assert mcp.text("add_rule", {"then": "Answer in English", "when": "always"}) == (
        f"Rule already exists ({rule}); nothing was added."
    )


def test_an_identical_rule_is_not_added_twice(mcp: McpHttpClient, http: TestClient) -> None:
    rule = add(mcp, then="Run the tests before you commit", when="you commit")
    again = f"Rule already exists ({rule}); nothing was added."
    same = {"then": "Run the tests before you commit", "when": "you commit"}
    assert mcp.text("add_rule", same) == again
    spaced = {"then": "  run the TESTS before   you commit ", "when": "You commit"}
    assert mcp.text("add_rule", spaced) == again
    assert count_rows(http, "rules") == 1
    add(mcp, then="Run the tests before you commit", when="you push")
    add(mcp, then="Run the tests before you commit", when="you commit", scopeTier="project")
    assert count_rows(http, "rules") == 3


def test_scope_tiers_and_names(mcp: McpHttpClient) -> None:
    add(mcp, then="Everywhere rule", scopeName="ignored")
    add(mcp, then="Project rule for the caller", scopeTier="project")
    add(mcp, then="Project rule for billing", scopeTier="project", scopeName="billing")
    add(mcp, then="Situation rule", scopeTier="situation", scopeName="code review")
    lines = rule_lines(mcp)
    assert [line.split("  ")[1] for line in lines] == [
        "[everywhere]",
        "[project: shop]",
        "[project: billing]",
        "[situation: code review]",
    ]


def test_a_situation_rule_needs_a_scope_name(mcp: McpHttpClient, http: TestClient) -> None:
    assert failure(mcp, "add_rule", {"then": "x", "scopeTier": "situation"}) == (
        "scopeName is required when scopeTier is situation."
    )
    assert count_rows(http, "rules") == 0


def test_the_source_is_the_calling_tool(billing: McpHttpClient) -> None:
    add(billing, then="Prefer small pull requests")
    assert ", source: cursor, " in billing.text("list_rules")


def test_evidence_ids_must_exist(mcp: McpHttpClient, http: TestClient) -> None:
    memory = save(
        mcp,
        "We shipped a .env file once",
        facts=[{"subject": "a", "predicate": "b", "object": "c"}],
    )
    assert failure(mcp, "add_rule", {"then": "x", "evidence_memory_ids": [memory, 99]}) == (
        "Unknown evidence memory id: 99."
    )
    assert failure(mcp, "add_rule", {"then": "x", "evidence_fact_ids": [1, 7, 8]}) == (
        "Unknown evidence fact id: 7, 8."
    )
    assert count_rows(http, "rules") == 0
    add(mcp, then="x", evidence_memory_ids=[memory], evidence_fact_ids=[1])


def test_a_dismissed_evidence_memory_asks_for_a_re_check(mcp: McpHttpClient) -> None:
    memory = save(mcp, "We shipped a .env file once")
    add(mcp, then="Never commit .env files", evidence_memory_ids=[memory])
    assert "[re-check" not in mcp.text("list_rules")
    mcp.text("dismiss_memory", {"id": memory})
    assert rule_lines(mcp)[-1].endswith(f" [re-check: evidence #{memory} was dismissed]")
    mcp.text("restore_memory", {"id": memory})
    assert "[re-check" not in mcp.text("list_rules")


def test_a_rule_not_confirmed_for_90_days_asks_for_a_re_check(
    mcp: McpHttpClient, http: TestClient
) -> None:
    rule = add(mcp, then="Never commit .env files")
    created = now_ms() - 200 * DAY_MS
    set_rule_times(http, rule, created, now_ms() - 89 * DAY_MS)
    assert "[re-check" not in mcp.text("list_rules")
    set_rule_times(http, rule, created, now_ms() - 91 * DAY_MS)
    assert rule_lines(mcp)[-1].endswith(" [re-check: not confirmed for 90 days]")


def test_confirm_rule_changes_only_the_last_confirmed_date(
    mcp: McpHttpClient, http: TestClient
) -> None:
    rule = add(mcp, then="Never commit .env files", when="you stage files")
    created = now_ms() - 200 * DAY_MS
    set_rule_times(http, rule, created, created)
    [before] = rule_lines(mcp)
    assert before.endswith(" [re-check: not confirmed for 90 days]")
    confirmed = mcp.text("confirm_rule", {"id": rule})
    assert confirmed == (
        f"Confirmed rule {rule} on {today()}. It stays as it is; only the date it was last "
        "checked changed."
    )
    assert rule_lines(mcp) == [
        before.removesuffix(" [re-check: not confirmed for 90 days]").replace(
            f"last confirmed {day(created)})", f"last confirmed {today()})"
        )
    ]


def test_confirming_an_unknown_rule_is_an_error(mcp: McpHttpClient) -> None:
    assert failure(mcp, "confirm_rule", {"id": "r_0000000000"}).startswith(
        "No rule with id r_0000000000."
    )


def test_list_rules_without_rules_says_so(mcp: McpHttpClient) -> None:
    assert mcp.text("list_rules").startswith("No rules yet.")


@pytest.mark.parametrize(
    ("name", "arguments", "named"),
    [
        ("add_rule", {}, "then is required."),
        ("add_rule", {"then": "   "}, "then is required."),
        ("add_rule", {"then": "x" * 801}, "then: "),
        ("add_rule", {"then": "x", "when": 5}, "when: "),
        ("add_rule", {"then": "x", "scopeTier": "global"}, "scopeTier: "),
        ("add_rule", {"then": "x", "evidence_memory_ids": "1"}, "evidence_memory_ids: "),
        ("add_rule", {"then": "x", "evidence_fact_ids": [0]}, "evidence_fact_ids.0: "),
        ("add_rule", {"then": "x", "scope": "project"}, "Unknown argument: scope."),
        ("confirm_rule", {}, "id is required."),
        ("confirm_rule", {"id": 5}, "id: "),
        ("list_rules", {"project": "shop"}, "Unknown argument: project."),
    ],
)
def test_wrong_rule_arguments_are_errors_naming_them(
    mcp: McpHttpClient, name: str, arguments: dict[str, Any], named: str
) -> None:
    assert failure(mcp, name, arguments).startswith(named)


def test_a_rule_of_exactly_800_characters_is_accepted(mcp: McpHttpClient) -> None:
    add(mcp, then="x" * 800)
