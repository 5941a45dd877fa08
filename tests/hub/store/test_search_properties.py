"""Property tests: no query text makes search fail, through the MCP tool or the store; both
backends (FTS5 MATCH syntax and to_tsquery syntax never leak through from user text)."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from aletheia_hub.store import memories
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import FactInput
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import SearchQuery, SearchResult, SearchService, engine
from aletheia_hub.store.search.terms import query_terms
from tests.helpers import McpHttpClient

# This module's search state: the postings of a large store, and the question threads.
SEARCH = SearchService()
search = SEARCH.search


MAX_QUERY_CHARS = 2000  # SearchArgs.query max_length

# Pieces of FTS5 and tsquery syntax, SQL, odd Unicode and words that are in the seeded store.
QUERY_PIECES = [
    '"',
    "'",
    "''",
    '""',
    "*",
    "(",
    ")",
    "{",
    "}",
    ":",
    "^",
    "-",
    "+",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(a b, 2)",
    "&",
    "|",
    "!",
    "<->",
    "<2>",
    ":*",
    "\\",
    "%",
    "_",
    "\x00",
    "project_term",
    "title:",
    "{title body}:",
    "memories_fts",
    "p73686f70",
    "--",
    ";",
    "/*",
    "*/",
    "DROP TABLE memories;",
    "' OR 1=1 --",
    "$1",
    "?",
    "ü",
    "日本語",
    "café",
    "İstanbul",
    "ﬁle",
    "ß",
    "ǅ",
    "²",
    "١٢٣",
    "😀",
    "\u200b",
    "\u0301",
    "\ufeff",
    "\u3000",
    "a" * 64,
    "b" * 65,
    "deploy",
    "deploys",
    "pnpm",
    "staging",
    "vpn",
    "the",
    "and",
    "of",
    "1",
    "0x1F",
]
QUERIES = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(st.sampled_from(QUERY_PIECES), st.text(max_size=8)), max_size=30).map(
        lambda parts: " ".join(parts)[:MAX_QUERY_CHARS]
    ),
    st.lists(st.sampled_from(QUERY_PIECES), max_size=12).map("".join),
)
NASTY = [
    '"',
    'deploy"',
    "NEAR(deploy pnpm)",
    "deploy AND",
    "OR",
    "*",
    "title:deploy",
    "{title}: x",
    "deploy & | ! <-> :*",
    "' OR 1=1 --",
    "\x00",
    "deploy\x00pnpm",
    "日本語 café İstanbul ǅ ²",
    "the and of",
    "   ",
    "\u3000\u2028",
    " ".join(f"w{i}" for i in range(40)),
    "x" * MAX_QUERY_CHARS,
]


def budget(store_url: str) -> int:
    return 150 if store_url.startswith("sqlite") else 60


def run_property(store_url: str, test: Callable[..., None]) -> None:
    """Run a @given property with an example budget that suits the backend."""
    settings(
        max_examples=budget(store_url),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )(test)()


def expected_tool_error(query: str) -> str | None:
    """The documented isError answers of search for a query, or None when it must succeed."""
    if "\x00" in query:
        return "query: must not contain NUL characters."
    if not query.strip():
        return "query is required."
    return None


SEEDED = [
    ("Staging deploys need the VPN", "Connect the VPN before deploying to staging.", "gotcha"),
    ("Use pnpm", "The shop uses pnpm, not npm; lockfile is pnpm-lock.yaml.", "decision"),
    ("日本語のメモ", "café İstanbul ǅ ² ١٢٣ — unicode words are indexed too.", "note"),
    ("Quotes", "He said \"deploy\" and 'NEAR' OR AND NOT * ^ : { } & | ! <->", "note"),
]


@pytest.fixture
def seeded_mcp(mcp: McpHttpClient) -> McpHttpClient:
    for title, text, kind in SEEDED:
        mcp.text(
            "save_memory",
            {
                "title": title,
                "text": text,
                "type": kind,
                "files": ["src/app.ts"],
                "facts": [{"subject": "shop", "predicate": "deploys with", "object": title}],
            },
        )
    mcp.text("save_memory", {"text": "Other project deploys nightly", "project": "warehouse"})
    return mcp


def test_search_tool_never_fails_on_any_query(seeded_mcp: McpHttpClient, store_url: str) -> None:
    assert "#1" in seeded_mcp.text("search", {"query": "staging deploy"})

    @given(
        query=QUERIES,
        project=st.sampled_from([None, "*", "shop", "nobody"]),
        order=st.sampled_from(["relevance", "date_desc", "date_asc"]),
    )
    @example(query='"', project=None, order="relevance")
    @example(query="NEAR(deploy pnpm)", project="*", order="relevance")
    @example(query="deploy & | ! <-> :*", project=None, order="date_asc")
    @example(query="\x00", project=None, order="relevance")
    @example(query="\u3000\u2028", project=None, order="relevance")
    @example(query="the and of", project=None, order="relevance")
    def search_never_fails(query: str, project: str | None, order: str) -> None:
        arguments: dict[str, Any] = {"query": query, "order": order}
        if project is not None:
            arguments["project"] = project
        text, is_error = seeded_mcp.call_tool("search", arguments)
        expected = expected_tool_error(query)
        if expected is None:
            assert not is_error, (query, text)
            assert text
        else:
            assert (text, is_error) == (expected, True)

    run_property(store_url, search_never_fails)


@pytest.mark.parametrize("query", NASTY)
def test_search_tool_answers_nasty_queries(
    seeded_mcp: McpHttpClient, query: str, store_url: str
) -> None:
    text, is_error = seeded_mcp.call_tool("search", {"query": query, "project": "*"})
    expected = expected_tool_error(query)
    if expected is None:
        assert not is_error, text
    else:
        assert (text, is_error) == (expected, True)


def test_search_tool_finds_seeded_words_through_operator_noise(seeded_mcp: McpHttpClient) -> None:
    text = seeded_mcp.text("search", {"query": '"pnpm" AND NOT (lockfile*) OR ^npm:'})
    assert "Use pnpm" in text
    text = seeded_mcp.text("search", {"query": "café & İstanbul | !"})
    assert "日本語のメモ" in text


SEEDED_FILES = ("src/app.ts", "docs/100%_done.md", "lib\\win\\path.c")


@pytest.fixture
def seeded_db(store_url: str) -> Iterator[Database]:
    db = Database(store_url)
    try:
        upgrade_to_head(db.engine)
        with db.write_session() as session:
            for project in ("shop", "warehouse"):
                for title, text, kind in SEEDED:
                    memories.save_memory(
                        session=session,
                        project=project,
                        text=text,
                        title=title,
                        type=kind,
                        kind="note",
                        tool="tests",
                        pinned=False,
                        files=list(SEEDED_FILES),
                        facts=[FactInput("shop", "deploys with", title)],
                    )
        yield db
    finally:
        db.dispose()


STORE_QUERIES = st.builds(
    SearchQuery,
    text=st.one_of(st.none(), QUERIES),
    projects=st.sampled_from([None, (), ("shop",), ("shop", "warehouse"), ("nobody",)]),
    type=st.sampled_from([None, "note", "gotcha"]),
    kind=st.sampled_from([None, "note", "summary"]),
    order=st.sampled_from(["relevance", "date_desc", "date_asc"]),
    limit=st.integers(min_value=1, max_value=100),
    offset=st.sampled_from([0, 0, 1, 5]),
)


@pytest.mark.parametrize("common_terms", ["default", "dropped"])
def test_store_search_never_raises(
    seeded_db: Database,
    store_url: str,
    common_terms: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if common_terms == "dropped":
        # A tiny corpus counts as large, so very common terms are dropped.
        monkeypatch.setattr(engine, "COMMON_MIN_CORPUS", 1)

    @given(query=STORE_QUERIES)
    @example(query=SearchQuery(text='"'))
    @example(query=SearchQuery(text="deploy* NEAR(a b) {title}: x ^ - AND OR NOT"))
    @example(query=SearchQuery(text="deploy & | ! <-> :* \\ ' %"))
    @example(query=SearchQuery(text="deploy\x00pnpm"))
    @example(query=SearchQuery(text=" ".join(f"w{i}" for i in range(40))))
    @example(query=SearchQuery(text="staging pnpm vpn deploy", projects=("shop",)))
    def store_search_never_raises(query: SearchQuery) -> None:
        with seeded_db.read_session() as session:
            result = search(session=session, query=query)
        assert isinstance(result, SearchResult)
        terms = query_terms(query.text or "")
        assert set(result.terms) <= set(terms)
        assert set(result.ignored_common) <= set(terms)
        if not terms:
            assert result.empty
        assert len(result.memories) <= query.limit
        if query.projects is not None:
            assert {hit.project for hit in result.memories} <= set(query.projects)
            assert {hit.project for hit in result.facts} <= set(query.projects)

    run_property(store_url, store_search_never_raises)


def test_store_search_finds_every_seeded_memory_by_its_words(seeded_db: Database) -> None:
    with seeded_db.read_session() as session:
        for title, text, _ in SEEDED:
            result = search(session=session, query=SearchQuery(text=f"{title} {text}"))
            assert title in {hit.title for hit in result.memories}


def test_store_file_lookup_never_raises(seeded_db: Database, store_url: str) -> None:
    @given(
        path=st.one_of(
            st.text(min_size=1, max_size=100).filter(lambda path: "\x00" not in path),
            st.sampled_from(
                ["%", "_", "\\", "100%_done.md", "%_done.md", "app.ts", "\\path.c", "'"]
            ),
        ),
        suffix=st.booleans(),
    )
    @example(path="%_done.md", suffix=True)
    @example(path="_", suffix=True)
    def file_lookup_never_raises(path: str, suffix: bool) -> None:
        query = SearchQuery(file=path, file_suffix=suffix, projects=("shop",))
        with seeded_db.read_session() as session:
            result = search(session=session, query=query)
        if suffix:
            matching = any(seeded.endswith(path) for seeded in SEEDED_FILES)
        else:
            matching = path in SEEDED_FILES
        assert len(result.memories) == (len(SEEDED) if matching else 0)
        assert {hit.project for hit in result.memories} <= {"shop"}

    run_property(store_url, file_lookup_never_raises)


def test_file_suffix_lookup_is_case_sensitive(seeded_db: Database) -> None:
    with seeded_db.read_session() as session:
        exact = search(session=session, query=SearchQuery(file="App.TS", projects=("shop",)))
        suffix = search(
            session=session,
            query=SearchQuery(file="App.TS", file_suffix=True, projects=("shop",)),
        )
        lower = search(
            session=session,
            query=SearchQuery(file="app.ts", file_suffix=True, projects=("shop",)),
        )
    assert exact.memories == []
    assert len(lower.memories) == len(SEEDED)
    assert suffix.memories == []
