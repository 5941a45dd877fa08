"""Audit rows for tools/call: the tool, its canonical operation, the project, the calling host,
the outcome with its error code and how long the call took; never the arguments. The call
pipeline (mcp/pipeline.py) starts one CallAudit per tools/call, and the row is written once:
with the call's work when it writes, else on its own when the call ends, committed before its
reply is sent; a quick call answered on the event loop keeps its row for write_rows, committed
right after the reply (http/mcp_endpoint.py)."""

import time
from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.mcp.toolsets import ToolSet
from aletheia_hub.redact import redact, redact_name
from aletheia_hub.store import driver
from aletheia_hub.store.audit import CallRow, Outcome, record_call
from aletheia_hub.store.db import Database, StoreBusy


class CallAudit:
    """The audit row of one tools/call, from its start to the one write of it.

    `outcome` is "error" until the tool says otherwise. A write tool puts the row into its
    own transaction (write_in); the row then commits with the work, and end() leaves it be
    when the call ended "ok". Any other call's row is written by end().
    """

    def __init__(
        self,
        *,
        db: Database,
        tool_set: ToolSet,
        token_id: str | None,
        project: str,
        tool_name: Any,
        arguments: Any,
        kept: list[CallRow] | None,
        host: str = "",
    ) -> None:
        self.outcome: Outcome = "error"
        self._started = time.perf_counter()
        self._host = host
        self._db = db
        self._tool_set = tool_set
        self._token_id = token_id
        self._project = project
        self._tool_name = tool_name
        self._arguments = arguments
        self._kept = kept
        self._in_work = False
        self._ended = False

    def write_in(self, session: Session) -> None:
        """Put the row, as "ok", into the caller's write transaction: it commits with the
        work, or rolls back with it (and end() then writes the call's row on its own)."""
        record_call(connection=driver.of(session.connection()), row=self._row("ok"))
        self._in_work = True

    def end(self, outcome: Outcome | None = None, error_code: int | None = None) -> None:
        """Write the row, with `outcome` or the one the call reached and the JSON-RPC error
        code it was answered with, unless its work committed it already; a second end()
        writes nothing."""
        if self._ended:
            return
        self._ended = True
        if outcome is not None:
            self.outcome = outcome
        if self._in_work and self.outcome == "ok":
            return
        row = self._row(self.outcome, error_code)
        if self._kept is not None:
            self._kept.append(row)
            return
        with self._db.driver_write(one_statement=True) as connection:
            record_call(connection=connection, row=row)

    def _row(self, outcome: Outcome, error_code: int | None = None) -> CallRow:
        arguments = self._arguments
        requested = arguments.get("project") if isinstance(arguments, dict) else None
        project = _printable(requested, 200) if isinstance(requested, str) else ""
        # The row is kept for refused calls too: a project named by a secret is kept redacted.
        project = _printable(redact_name(project or self._project).text, 200)
        tool, operation = _names(self._tool_set, self._tool_name)
        return CallRow(
            at_ms=now_ms(),
            token_id=self._token_id,
            tool=tool or "?",
            operation=operation or "?",
            project=project or None,
            result=outcome,
            # A host names itself: one that holds a secret is kept redacted.
            host=_printable(redact_name(self._host).text, 100),
            error_code=error_code,
            duration_us=round((time.perf_counter() - self._started) * 1_000_000),
        )


def write_rows(db: Database, rows: Sequence[CallRow], *, wait: bool = True) -> bool:
    """Commit rows kept for later (a quick call's), in one transaction. With wait=False
    nothing waits: False (and nothing written) when another write holds the store."""
    if not rows:
        return True
    try:
        with db.driver_write(wait=wait, one_statement=len(rows) == 1) as connection:
            for row in rows:
                record_call(connection=connection, row=row)
    except StoreBusy:
        return False
    return True


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
