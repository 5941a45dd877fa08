"""The call pipeline: every request of every tool set, era and batch takes one way through the
hub (rate limit, reply cap, audit, metrics, handler), and audit rows start in one module."""

import ast
import re
from pathlib import Path
from typing import Any, Final

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

import aletheia_hub
from aletheia_hub.metrics import ERRORS, REQUESTS, Metrics
from aletheia_hub.store.db import Database
from aletheia_hub.store.tables import AUDIT_LOG
from aletheia_shared import headers, jsonrpc
from tests.helpers import McpHttpClient, StatelessClient, routing_headers, stateless_message
from tests.jsonrpc_messages import ping_request, tool_call_request

pytestmark = pytest.mark.any_store

ROOT: Final = Path(aletheia_hub.__file__).parent
# Calls that start an audit row, or make or write one, and the one module each may appear in.
AUDIT_STARTS: Final = {
    "CallAudit": "mcp/pipeline.py",
    "CallRow": "mcp/auditing.py",
    "record_call": "mcp/auditing.py",
}
_INSERT_AUDIT: Final = re.compile(r"insert\s+into\s+audit_log", re.IGNORECASE)


def called_names(path: Path) -> list[tuple[str, int]]:
    """Every name a call in this module calls (`f(...)` and `x.f(...)`), with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if isinstance(name, str):
                found.append((name, node.lineno))
    return found


def audit_start_sites() -> dict[str, list[str]]:
    sites: dict[str, list[str]] = {name: [] for name in AUDIT_STARTS}
    for path in sorted(ROOT.rglob("*.py")):
        for name, line in called_names(path):
            if name in sites:
                sites[name].append(f"{path.relative_to(ROOT)}:{line}")
    return sites


def test_audit_rows_start_in_the_call_pipeline_and_are_written_by_auditing_alone() -> None:
    sites = audit_start_sites()
    for name, home in AUDIT_STARTS.items():
        assert sites[name], f"no call of {name} found: the scan is broken"
        outside = [site for site in sites[name] if not site.startswith(f"{home}:")]
        assert outside == [], f"{name} is called outside {home}: {outside}"
    assert len(sites["CallAudit"]) == 1, sites["CallAudit"]  # CallPipeline._start_audit
    inserts = [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if _INSERT_AUDIT.search(path.read_text())
    ]
    assert inserts == ["store/audit.py"]


def imported_modules(tree: ast.AST) -> set[str]:
    """Every module an import names: `from a import b` names a and a.b."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_endpoint_and_batch_only_feed_calls_in() -> None:
    for module in ("http/mcp_endpoint.py", "mcp/batch.py"):
        tree = ast.parse((ROOT / module).read_text())
        imported = imported_modules(tree)
        assert not imported & {"aletheia_hub.mcp.auditing", "aletheia_hub.metrics"}, module
        calls = {name for name, _line in called_names(ROOT / module)}
        assert not calls & {"take", "count", "observe_request", "count_tool_call"}, module


def audit_rows(http: TestClient) -> list[tuple[Any, ...]]:
    db: Database = http.app.state.db  # type: ignore[attr-defined]
    columns = (AUDIT_LOG.c.token_id, AUDIT_LOG.c.tool, AUDIT_LOG.c.operation, AUDIT_LOG.c.result)
    with db.read_session() as session:
        rows = session.execute(select(*columns).order_by(AUDIT_LOG.c.id)).all()
    return [tuple(row) for row in rows]


def requests_of(recorder: Metrics, method: str, tool: str = "") -> float:
    return recorder.counter(REQUESTS).get((("method", method), ("tool", tool)), 0)


# (path, a tool of its set, that tool's operation)
TOOL_SETS: Final = [
    ("/mcp", "search", "search"),
    ("/mcp/open-mem", "mem-find", "search"),
    ("/mcp/all", "mem-find", "search"),
    ("/mcp/all", "list_rules", "list_rules"),
]


@pytest.mark.parametrize(("path", "tool", "operation"), TOOL_SETS)
def test_single_calls_batches_and_stateless_calls_are_audited_once_and_measured(
    http: TestClient, path: str, tool: str, operation: str
) -> None:
    recorder: Metrics = http.app.state.metrics  # type: ignore[attr-defined]
    arguments = {"query": "deploys"} if operation == "search" else {}
    session = McpHttpClient(http, path, project="shop", tool="host-a")
    session.initialize()
    assert session.call_tool(tool, arguments)[1] is False
    replies = session.post(
        [
            tool_call_request(tool, arguments, 10),
            ping_request(11),
            tool_call_request("no-such-tool", {}, 12),
            tool_call_request(tool, ["not", "an", "object"], 13),
        ]
    ).json()
    assert [reply["id"] for reply in replies] == [10, 11, 12, 13]
    assert replies[0]["result"]["isError"] is False
    assert replies[1]["result"] == {}
    assert {replies[2]["error"]["code"], replies[3]["error"]["code"]} == {jsonrpc.INVALID_PARAMS}
    stateless = StatelessClient(http, path, **{headers.CALLER_TOOL: "host-b"})
    assert stateless.request("tools/call", {"name": tool, "arguments": arguments}).is_success

    assert audit_rows(http) == [
        (None, tool, operation, "ok"),
        (None, tool, operation, "ok"),
        (None, "no-such-tool", "no-such-tool", "error"),
        (None, tool, operation, "error"),
        (None, tool, operation, "ok"),
    ]
    assert requests_of(recorder, "tools/call", tool) == 4
    assert requests_of(recorder, "tools/call", "unknown") == 1
    assert requests_of(recorder, "ping") == 1
    errors = recorder.counter(ERRORS)
    assert errors == {(("kind", "invalid_params"), ("method", "tools/call")): 2}


def test_a_write_commits_its_row_with_its_work_and_a_failed_one_leaves_an_error_row(
    mcp: McpHttpClient, http: TestClient
) -> None:
    assert mcp.text("save_memory", {"text": "Deploys are blue-green"}).startswith("Saved")
    text, is_error = mcp.call_tool("save_memory", {"text": ""})
    assert is_error and "text" in text
    assert audit_rows(http) == [
        (None, "save_memory", "save_memory", "ok"),
        (None, "save_memory", "save_memory", "error"),
    ]


def test_a_stateless_call_its_envelope_refuses_is_measured_but_never_ran_so_is_not_audited(
    http: TestClient,
) -> None:
    recorder: Metrics = http.app.state.metrics  # type: ignore[attr-defined]
    message = stateless_message("tools/call", {"name": "search", "arguments": {"query": "x"}})
    sent = {**routing_headers(message), "Mcp-Name": "list_rules"}
    response = http.post("/mcp", json=message, headers=sent)
    assert response.status_code == 400
    assert audit_rows(http) == []
    assert requests_of(recorder, "tools/call", "search") == 1
    assert recorder.counter(ERRORS) == {(("kind", "other_error"), ("method", "tools/call")): 1}


def test_an_audit_row_keeps_the_host_the_error_code_and_the_calls_duration(
    http: TestClient,
) -> None:
    session = McpHttpClient(http, project="shop", tool="host-a")
    session.initialize()
    assert session.call_tool("search", {"query": "deploys"})[1] is False
    assert session.call_tool("save_memory", {"text": ""})[1] is True
    session.post([tool_call_request("search", ["not", "an", "object"], 7)])
    stateless = StatelessClient(http, "/mcp", **{headers.CALLER_TOOL: "host-b"})
    assert stateless.request("tools/call", {"name": "list_rules", "arguments": {}}).is_success
    db: Database = http.app.state.db  # type: ignore[attr-defined]
    columns = (AUDIT_LOG.c.tool, AUDIT_LOG.c.host, AUDIT_LOG.c.result, AUDIT_LOG.c.error_code)
    with db.read_session() as read:
        rows = read.execute(select(*columns).order_by(AUDIT_LOG.c.id)).all()
        durations = read.execute(select(AUDIT_LOG.c.duration_us)).scalars().all()
    assert [tuple(row) for row in rows] == [
        ("search", "host-a", "ok", None),
        ("save_memory", "host-a", "error", None),  # a tool's isError: no JSON-RPC code
        ("search", "host-a", "error", jsonrpc.INVALID_PARAMS),
        ("list_rules", "host-b", "ok", None),
    ]
    assert all(isinstance(duration, int) and duration >= 0 for duration in durations)
