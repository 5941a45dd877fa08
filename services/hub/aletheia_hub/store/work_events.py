"""Captured work: the edits and commands hooks report, one row per event of a host session.
Every text is redacted and out of <private> spans before it is stored; an event that repeats
the last one of its file or command with the same outcome is counted on that row, not stored
again; after each report the project's oldest events beyond the ceilings are deleted. Capture
never deletes a memory: the session digest is one (store/work_digest.py)."""

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import delete, func, or_, select, update
from sqlmodel import Session

from aletheia_hub.capture import host_key
from aletheia_hub.clock import DAY_MS, now_ms
from aletheia_hub.redact import redact, redact_name
from aletheia_hub.store.tables import WORK_EVENTS
from aletheia_hub.work_capture.events import (
    COMMAND_MAX_CHARS,
    EXCERPT_MAX_CHARS,
    FILE_MAX_CHARS,
    OUTPUT_TAIL_MAX_CHARS,
    CommandEvent,
    EditEvent,
    WorkEvent,
)
from aletheia_hub.work_capture.limits import WorkLimits
from aletheia_hub.work_capture.test_runs import TestRun, read_test_run

NAME_MAX_CHARS: Final = 100  # a host's or a tool's name
SESSION_MAX_CHARS: Final = 200
NO_SESSION: Final = "-"  # a name or session id left empty once <private> spans are out
W: Final = WORK_EVENTS


@dataclass(frozen=True, slots=True)
class WorkRecorded:
    kept: int  # new rows
    repeats: int  # events counted on an earlier row
    skipped: int  # events with nothing left outside <private> tags
    pruned: int  # older events deleted to keep within the ceilings
    redacted: int  # secrets taken out


@dataclass(frozen=True, slots=True)
class _Clean:
    event: WorkEvent
    test_run: TestRun | None
    redacted: int


def host_name(host: str) -> tuple[str, int]:
    """A host's name as stored, and the secrets taken out of it: redacted, out of <private>
    spans, in the one form host names are compared in (`Cursor` and `cursor` are one)."""
    clean = redact_name(host)
    return host_key(clean.text)[:NAME_MAX_CHARS] or NO_SESSION, clean.count


def session_key(session_id: str) -> tuple[str, int]:
    """A host's session id as stored, and the secrets taken out of it: redacted and out of
    <private> spans; `-` when nothing is left."""
    clean = redact(session_id)
    return clean.text.strip()[:SESSION_MAX_CHARS] or NO_SESSION, clean.count


def _clean(event: WorkEvent) -> _Clean | None:
    """The event with every text redacted and out of <private> spans, cut to its cap; None
    when nothing is left of its file or command."""
    tool = redact_name(event.tool)
    if isinstance(event, EditEvent):
        file, excerpt = redact(event.file), redact(event.excerpt)
        path = file.text.strip()[:FILE_MAX_CHARS]
        if not path:
            return None
        edit = EditEvent(
            file=path,
            added=max(event.added, 0),
            removed=max(event.removed, 0),
            tool=tool.text.strip()[:NAME_MAX_CHARS],
            excerpt=excerpt.text[:EXCERPT_MAX_CHARS],
        )
        return _Clean(edit, None, tool.count + file.count + excerpt.count)
    line, tail = redact(event.command), redact(event.output_tail)
    command = line.text.strip()[:COMMAND_MAX_CHARS]
    if not command:
        return None
    output = tail.text[-OUTPUT_TAIL_MAX_CHARS:]
    kept = CommandEvent(
        command=command,
        exit_code=event.exit_code,
        duration_ms=event.duration_ms,
        tool=tool.text.strip()[:NAME_MAX_CHARS],
        output_tail=output,
    )
    return _Clean(kept, read_test_run(command, output), tool.count + line.count + tail.count)


def test_run_json(run: TestRun | None) -> str | None:
    if run is None:
        return None
    return json.dumps(
        {"runner": run.runner, "passed": run.passed, "failed": run.failed, "failing": run.failing}
    )


def test_run_of(stored: str | None) -> TestRun | None:
    if stored is None:
        return None
    value = json.loads(stored)
    return TestRun(
        runner=str(value["runner"]),
        passed=int(value["passed"]),
        failed=int(value["failed"]),
        failing=tuple(str(name) for name in value["failing"]),
    )


def fingerprint(clean: _Clean) -> str:
    """What makes two events the same: an edit's file, counts and excerpt; a command's line,
    exit code and test outcome (its duration and output may differ)."""
    event = clean.event
    if isinstance(event, EditEvent):
        parts: list[Any] = ["edit", event.file, event.added, event.removed, event.excerpt]
    else:
        run = clean.test_run
        outcome = None if run is None else [run.passed, run.failed, list(run.failing)]
        parts = ["command", event.command, event.exit_code, outcome]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _row(clean: _Clean) -> dict[str, Any]:
    event = clean.event
    if isinstance(event, EditEvent):
        row: dict[str, Any] = {
            "kind": "edit",
            "file": event.file,
            "added": event.added,
            "removed": event.removed,
            "detail": event.excerpt,
        }
    else:
        row = {
            "kind": "command",
            "command": event.command,
            "exit_code": event.exit_code,
            "duration_ms": event.duration_ms,
            "detail": event.output_tail,
            "test_json": test_run_json(clean.test_run),
        }
    row["tool"] = event.tool
    texts = (row.get("file"), row.get("command"), row["detail"], row.get("test_json"), event.tool)
    row["bytes"] = sum(len(text.encode()) for text in texts if text)
    return row


def record_work(
    *,
    session: Session,
    project: str,
    host: str,
    session_id: str,
    events: Sequence[WorkEvent],
    limits: WorkLimits,
    at_ms: int | None = None,
) -> WorkRecorded:
    """Store a host session's events in order, then delete the project's oldest events
    beyond the ceilings."""
    moment = now_ms() if at_ms is None else at_ms
    (host_text, in_host), (key, in_key) = host_name(host), session_key(session_id)
    where = {"project": project, "host": host_text, "session_key": key}
    kept = repeats = skipped = 0
    redacted = in_host + in_key
    for event in events:
        clean = _clean(event)
        if clean is None:
            skipped += 1
            continue
        redacted += clean.redacted
        mark = fingerprint(clean)
        if _count_repeat(session, where, clean, mark, moment):
            repeats += 1
            continue
        session.execute(
            W.insert().values(
                **where,
                **_row(clean),
                fingerprint=mark,
                repeat_count=1,
                created_at_ms=moment,
                last_seen_at_ms=moment,
            )
        )
        kept += 1
    pruned = prune_work(session=session, limits=limits, at_ms=moment, project=project)
    return WorkRecorded(kept, repeats, skipped, pruned, redacted)


def _count_repeat(
    session: Session, where: dict[str, str], clean: _Clean, mark: str, at_ms: int
) -> bool:
    """Count the event on the session's last event of the same file or command when that
    one had the same outcome; whether it did."""
    event = clean.event
    same = W.c.file == event.file if isinstance(event, EditEvent) else W.c.command == event.command
    last = session.execute(
        select(W.c.id, W.c.fingerprint)
        .where(*(W.c[name] == value for name, value in where.items()), W.c.kind == event.kind, same)
        .order_by(W.c.id.desc())
        .limit(1)
    ).first()
    if last is None or last.fingerprint != mark:
        return False
    session.execute(
        update(W)
        .where(W.c.id == last.id)
        .values(repeat_count=W.c.repeat_count + 1, last_seen_at_ms=at_ms)
    )
    return True


def prune_work(
    *, session: Session, limits: WorkLimits, at_ms: int, project: str | None = None
) -> int:
    """Delete the events of `project` (else of every project) last seen longer ago than the
    age limit, then the oldest beyond a session's count, a project's count within the last
    24 hours, or a project's bytes; how many."""
    in_project: list[Any] = [] if project is None else [W.c.project == project]
    connection = session.connection()  # its results count the rows a DELETE took
    aged = connection.execute(
        delete(W).where(*in_project, W.c.last_seen_at_ms < at_ms - limits.max_age_ms)
    )
    newest_first = (W.c.created_at_ms.desc(), W.c.id.desc())
    in_session = (W.c.project, W.c.host, W.c.session_key)
    ranked = (
        select(
            W.c.id,
            func.row_number().over(partition_by=in_session, order_by=newest_first).label("nth"),
            func.sum(W.c.bytes)
            .over(partition_by=W.c.project, order_by=newest_first, rows=(None, 0))
            .label("running_bytes"),
        )
        .where(*in_project)
        .subquery()
    )
    beyond = select(ranked.c.id).where(
        or_(
            ranked.c.nth > limits.max_per_session,
            ranked.c.running_bytes > limits.max_bytes_per_project,
        )
    )
    over = connection.execute(delete(W).where(W.c.id.in_(beyond)))
    today = (
        select(
            W.c.id,
            func.row_number().over(partition_by=W.c.project, order_by=newest_first).label("nth"),
        )
        .where(*in_project, W.c.created_at_ms > at_ms - DAY_MS)
        .subquery()
    )
    busy = connection.execute(
        delete(W).where(
            W.c.id.in_(select(today.c.id).where(today.c.nth > limits.max_per_project_day))
        )
    )
    return sum(int(result.rowcount or 0) for result in (aged, over, busy))
