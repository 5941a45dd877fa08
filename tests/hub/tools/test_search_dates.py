"""A question that names a time favours what was saved then."""

from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient
from tests.hub.tools.support import save, search_ids, set_created


def days_ago(days: int) -> int:
    moment = datetime.now(tz=UTC) - timedelta(days=days)
    return int(moment.timestamp() * 1000)


def test_last_week_puts_last_weeks_memory_first(mcp: McpHttpClient, http: TestClient) -> None:
    older = save(mcp, "Decided: keep the redis queue, redis streams later, redis queue, redis")
    recent = save(mcp, "Decided to keep the redis queue for the billing worker")
    today = datetime.now(tz=UTC).date()
    monday = today - timedelta(days=today.weekday())
    set_created(http, older, days_ago(60))
    set_created(
        http,
        recent,
        int(datetime(monday.year, monday.month, monday.day, tzinfo=UTC).timestamp() * 1000)
        - 3 * 86_400_000,
    )
    assert search_ids(mcp, {"query": "redis queue"})[0] == older
    assert search_ids(mcp, {"query": "what did we decide about the redis queue"})[0] == older
    assert (
        search_ids(mcp, {"query": "what did we decide about the redis queue last week?"})[0]
        == recent
    )


def test_a_question_that_is_only_a_time_phrase_still_searches_its_words(
    mcp: McpHttpClient,
) -> None:
    save(mcp, "Last week of the quarter: freeze deploys")
    assert search_ids(mcp, {"query": "last week"}) != []
