"""One corpus on SQLite and on PostgreSQL: every query finds the same memories and facts."""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from tests.helpers import McpHttpClient
from tests.hub.tools.support import (
    DAY_MS,
    FACT_LINE,
    INDEX_LINE,
    ms,
    now_ms,
    recalled,
    set_created,
)

pytestmark = pytest.mark.postgres

# (project, type, title, text, files); saved in this order, one hour apart from BASE.
CORPUS: list[tuple[str, str, str, str, list[str]]] = [
    ("shop", "decision", "Use pnpm, not npm", "The shop repo uses pnpm workspaces.", []),
    ("shop", "gotcha", "Staging deploys need the VPN", "Connect the VPN before deploying.", []),
    ("shop", "note", "Staging moved behind the VPN in March", "Ops moved staging.", []),
    ("shop", "bugfix", "C++ build fails without clang", "Install clang 17 for C++.", []),
    ("shop", "note", "Import node:fs in scripts", "Prefer node:fs to fs-extra.", ["scripts/a.ts"]),
    ("shop", "gotcha", "JSON-RPC -32601 on unknown methods", "Method not found is -32601.", []),
    ("shop", "bugfix", "Flaky test in checkout", 'The "flaky test" was a race.', ["src/app.ts"]),
    ("shop", "change", "Deploy script rewritten", "Deploying now uses one script.", []),
    ("shop", "feature", "Deployed the new search", "Search deployed on Monday.", []),
    ("shop", "refactor", "Docker compose for local dev", "docker compose up starts it.", []),
    ("shop", "discovery", "Naïve café résumé parser", "Unicode names break the parser.", []),
    ("shop", "note", "Postgres or SQLite", "Both backends must match.", []),
    ("shop", "gotcha", "api_key rotation", "Rotate the api_key monthly.", ["config/keys.yml"]),
    ("shop", "change", "Release v2.3.1", "v2.3.1 fixed the cart.", ["CHANGELOG.md"]),
    ("shop", "note", "The of and", "the of and a an", []),
    ("shop", "decision", "Deploys freeze on Fridays", "No deploys on Friday afternoons.", []),
    ("shop", "note", "Cache warmup", "Warm the cache after deploys.", ["src/cache.ts"]),
    ("shop", "gotcha", "Timezones are UTC", "Store times in UTC epoch ms.", []),
    ("shop", "feature", "Dark mode", "Dark mode toggles with the OS.", ["src/theme.ts"]),
    ("shop", "bugfix", "Cart total rounding", "Round at the end, not per line.", ["src/cart.ts"]),
    ("shop", "note", "Staging database is small", "Staging uses a tiny Postgres.", []),
    ("shop", "note", "VPN client restart", "Restart the VPN client after sleep.", []),
    ("shop", "decision", "Deploy from main only", "Deploys come from main.", []),
    ("shop", "note", "Deployment checklist", "Checklist for every deployment.", []),
    ("billing", "decision", "Billing uses pnpm too", "pnpm in billing as well.", []),
    ("billing", "gotcha", "Invoices deploy nightly", "Invoice deploys run at 2am.", ["src/app.ts"]),
    ("billing", "note", "Stripe webhooks behind the VPN", "Webhooks reach staging by VPN.", []),
    ("billing", "bugfix", "Refund rounding", "Refunds round like the cart.", []),
    ("shop", "note", "Dismissed deploy note", "This deploy note is dismissed.", []),
    ("shop", "note", "Old pnpm lockfile note", "pnpm lockfile v6 to v9.", ["pnpm-lock.yaml"]),
]
DISMISSED = 29
BASE = "2026-01-05T09:00:00Z"
FACTS = [
    ("shop", {"subject": "shop", "predicate": "uses", "object": "npm"}),
    ("shop", {"subject": "shop", "predicate": "uses", "object": "pnpm"}),
    ("shop", {"subject": "staging", "predicate": "needs", "object": "VPN"}),
    ("billing", {"subject": "billing", "predicate": "deploys", "object": "nightly"}),
]
QUERIES: list[dict[str, Any]] = [
    {"query": "pnpm"},
    {"query": "staging vpn"},
    {"query": "when did we move staging behind the VPN?"},
    {"query": "C++ build"},
    {"query": "node:fs"},
    {"query": "-32601"},
    {"query": '"flaky test"'},
    {"query": "deploy deploys deployed deploying"},
    {"query": "naïve café résumé"},
    {"query": "postgres OR sqlite"},
    {"query": "api_key rotation"},
    {"query": "v2.3.1 release"},
    {"query": "AND"},
    {"query": "the of and"},
    {"query": "deploy", "type": "gotcha"},
    {"query": "deploy", "project": "*"},
    {"query": "vpn", "project": "billing"},
    {"query": "deploy", "since": "2026-01-05T20:00:00Z", "until": "2026-01-06"},
    {"query": "deploy", "older_than_days": 0.5},
    {"query": "deploy", "kind": "note"},
    {"file": "src/app.ts"},
    {"file": "src/app.ts", "project": "*"},
    {"file": ".ts", "file_suffix": True},
]
DATE_ORDERED: list[dict[str, Any]] = [
    {"query": "deploy", "order": "date_desc"},
    {"query": "deploy", "order": "date_asc"},
    {"query": "deploy staging vpn", "order": "date_desc", "project": "*"},
    {"query": "deploy", "order": "date_asc", "limit": 3, "offset": 2},
    {"query": "deploy", "order": "date_desc", "until": "2026-01-05"},
]


@dataclass
class Backend:
    name: str
    mcp: McpHttpClient

    def answer(self, arguments: dict[str, Any]) -> str:
        return self.mcp.text("search", {"limit": 100, **arguments})


def build(http: TestClient, recent: int) -> McpHttpClient:
    """The corpus on one app, with creation times one hour apart (the last one at `recent`)."""
    clients = {}
    for project in ("shop", "billing"):
        clients[project] = McpHttpClient(http, project=project, tool="tests")
        clients[project].initialize()
    for position, (project, kind, title, text, files) in enumerate(CORPUS, start=1):
        answer = clients[project].text(
            "save_memory", {"text": text, "title": title, "type": kind, "files": files}
        )
        assert answer == f"Saved as #{position} in {project}.", answer
        set_created(http, position, ms(BASE) + position * 3_600_000)
    set_created(http, len(CORPUS), recent)
    clients["shop"].text("dismiss_memory", {"id": DISMISSED})
    for project, fact in FACTS:
        clients[project].text("save_memory", {"text": f"fact {fact['object']}", "facts": [fact]})
    return clients["shop"]


@pytest.fixture
def backends(postgres_schema_url: str, tmp_path: Path) -> Iterator[list[Backend]]:
    """The same corpus saved on a SQLite file and on a PostgreSQL schema."""
    urls = {"sqlite": f"sqlite:///{tmp_path / 'parity.db'}", "postgres": postgres_schema_url}
    clients = [
        TestClient(
            create_app(Settings(database_url=url, data_dir=tmp_path, cwd=tmp_path)),
            base_url="http://127.0.0.1",
        )
        for url in urls.values()
    ]
    recent = now_ms() - DAY_MS // 4
    for client in clients:
        client.__enter__()
    try:
        yield [
            Backend(name, build(client, recent)) for name, client in zip(urls, clients, strict=True)
        ]
    finally:
        for client in clients:
            client.__exit__(None, None, None)


def hit_lines(answer: str) -> tuple[set[str], set[int]]:
    """The set of memory index lines and the set of fact ids of one search answer."""
    if answer.startswith("No matches. "):
        return set(), set()
    lines = recalled(answer)
    memories = {line for line in lines if INDEX_LINE.match(line)}
    facts = {int(m["id"]) for line in lines if (m := FACT_LINE.match(line))}
    return memories, facts


def test_every_query_finds_the_same_hits_on_both_backends(backends: list[Backend]) -> None:
    sqlite, postgres = backends
    differences = []
    for arguments in QUERIES:
        expected = hit_lines(sqlite.answer(arguments))
        found = hit_lines(postgres.answer(arguments))
        if found != expected:
            differences.append((arguments, expected, found))
    assert not differences, differences


def test_the_corpus_makes_the_queries_meaningful(backends: list[Backend]) -> None:
    sqlite, _ = backends
    empty = [arguments for arguments in QUERIES if not hit_lines(sqlite.answer(arguments))[0]]
    assert empty == [{"query": "AND"}, {"query": "the of and"}]
    memories, facts = hit_lines(sqlite.answer({"query": "pnpm"}))
    assert facts == {2}
    assert {int(line[1:].split(" ")[0]) for line in memories} == {1, 30, 32}


def test_date_ordered_answers_are_identical_on_both_backends(backends: list[Backend]) -> None:
    sqlite, postgres = backends
    for arguments in DATE_ORDERED:
        expected = sqlite.answer(arguments)
        assert not expected.startswith("No matches. "), arguments
        assert postgres.answer(arguments) == expected, arguments


def test_no_match_answers_are_identical_on_both_backends(backends: list[Backend]) -> None:
    sqlite, postgres = backends
    for arguments in (
        {"query": "kubernetes"},
        {"query": "*"},
        {"query": "deploy", "type": "refactor"},
        {"file": "nowhere.py"},
        {"query": "dismissed"},
    ):
        expected = sqlite.answer(arguments)
        assert expected.startswith("No matches. "), (arguments, expected)
        assert postgres.answer(arguments) == expected
