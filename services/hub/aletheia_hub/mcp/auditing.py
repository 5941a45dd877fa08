"""Audit rows for tools/call: the tool, its canonical operation, the project and the outcome;
never the arguments. Every call leaves one, a token's or the local user's (token_id NULL,
shown as "local"), committed before its reply is sent; a quick call answered on the event
loop commits its row right after (http/mcp_endpoint.py)."""

from collections.abc import Iterable, Sequence
from typing import Any

from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.mcp.call_state import CallState
from aletheia_hub.mcp.envelope import Call
from aletheia_hub.mcp.toolsets import ToolSet
from aletheia_hub.redact import redact, redact_name
from aletheia_hub.store import driver
from aletheia_hub.store.audit import CallRow, Outcome, record_call
from aletheia_hub.store.db import Database, StoreBusy


def audit_call(
    db: Database,
    tool_set: ToolSet,
    state: CallState,
    tool_name: Any,
    arguments: Any,
    outcome: Outcome,
) -> None:
    """One audit row for a tools/call, in a write transaction of its own; or, for a POST
    answered on the event loop (state.unwritten_audit), kept for write_rows."""
    row = _row(tool_set, state, tool_name, arguments, outcome)
    if state.unwritten_audit is not None:
        state.unwritten_audit.append(row)
        return
    with db.driver_write(one_statement=True) as connection:
        record_call(connection=connection, row=row)


def write_rows(db: Database, rows: Sequence[CallRow], *, wait: bool = True) -> bool:
    """Commit rows audit_call kept, in one transaction. With wait=False nothing waits: False
    (and nothing written) when another write holds the store."""
    if not rows:
        return True
    try:
        with db.driver_write(wait=wait, one_statement=len(rows) == 1) as connection:
            for row in rows:
                record_call(connection=connection, row=row)
    except StoreBusy:
        return False
    return True


def audit_in(
    session: Session,
    tool_set: ToolSet,
    state: CallState,
    tool_name: Any,
    arguments: Any,
    outcome: Outcome,
) -> None:
    """audit_call in a write session of the caller's, committed with its work."""
    record_call(
        connection=driver.of(session.connection()),
        row=_row(tool_set, state, tool_name, arguments, outcome),
    )


def _row(
    tool_set: ToolSet, state: CallState, tool_name: Any, arguments: Any, outcome: Outcome
) -> CallRow:
    requested = arguments.get("project") if isinstance(arguments, dict) else None
    project = _printable(requested, 200) if isinstance(requested, str) else ""
    # The row is kept for refused calls too: a project named by a secret is kept redacted.
    project = _printable(redact_name(project or state.project).text, 200)
    tool, operation = _names(tool_set, tool_name)
    return CallRow(
        at_ms=now_ms(),
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
