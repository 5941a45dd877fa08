"""Audit rows for tools/call: the tool, its canonical operation, the project and the outcome;
never the arguments. Every call leaves one, a token's or the local user's (token_id NULL,
shown as "local")."""

from collections.abc import Iterable
from typing import Any

from sqlmodel import Session

from aletheia_hub.mcp.call_state import CallState
from aletheia_hub.mcp.envelope import Call
from aletheia_hub.mcp.toolsets import ToolSet
from aletheia_hub.redact import redact
from aletheia_hub.store import driver
from aletheia_hub.store.audit import Outcome, record_call
from aletheia_hub.store.db import Database


def audit_call(
    db: Database,
    tool_set: ToolSet,
    state: CallState,
    tool_name: Any,
    arguments: Any,
    outcome: Outcome,
) -> None:
    """One audit row for a tools/call, in a write transaction of its own."""
    with db.driver_write() as connection:
        _record(connection, tool_set, state, tool_name, arguments, outcome)


def audit_in(
    session: Session,
    tool_set: ToolSet,
    state: CallState,
    tool_name: Any,
    arguments: Any,
    outcome: Outcome,
) -> None:
    """audit_call in a write session of the caller's, committed with its work."""
    _record(driver.of(session.connection()), tool_set, state, tool_name, arguments, outcome)


def _record(
    connection: driver.Driver,
    tool_set: ToolSet,
    state: CallState,
    tool_name: Any,
    arguments: Any,
    outcome: Outcome,
) -> None:
    requested = arguments.get("project") if isinstance(arguments, dict) else None
    project = _printable(requested, 200) if isinstance(requested, str) else ""
    if not project:
        project = state.project
    tool, operation = _names(tool_set, tool_name)
    record_call(
        connection=connection,
        token_id=state.principal.token_id,
        tool=tool or "?",
        operation=operation or "?",
        project=project or None,
        result=outcome,
    )


def audit_refused(
    db: Database, tool_set: ToolSet, calls: Iterable[Call], state: CallState, outcome: Outcome
) -> None:
    """An audit row for every tools/call that was refused before it could run."""
    for call in calls:
        if call.method == "tools/call":
            audit_call(
                db, tool_set, state, call.params.get("name"), call.params.get("arguments"), outcome
            )


def _names(tool_set: ToolSet, tool_name: Any) -> tuple[str, str]:
    """The tool as called and its operation, fit for the audit table. A tool of the set is
    named as it is; a caller may name anything else, a pasted secret too: that is redacted."""
    if not isinstance(tool_name, str):
        return "", ""
    if tool_name in tool_set.tool_names:
        return tool_name, tool_set.operation(tool_name)
    tool = _printable(redact(tool_name).text, 100)
    return tool, _printable(redact(tool_set.operation(tool_name)).text, 100) if tool else ""


def _printable(value: str, limit: int) -> str:
    """A name fit for the audit table: no control characters, bounded length."""
    return "".join(char for char in value if char.isprintable())[:limit]
