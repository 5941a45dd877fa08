"""Tables. Times are UTC epoch milliseconds (`*_at_ms`), identical on SQLite and PostgreSQL."""

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel


class Entry(SQLModel, table=True):
    """The one id sequence shared by memories and work-state lists."""

    __tablename__ = "entries"
    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True))
    kind: str = Field(max_length=20)
    created_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))


class Memory(SQLModel, table=True):
    __tablename__ = "memories"
    __table_args__ = (
        UniqueConstraint("project", "content_hash", name="uq_memories_project_hash"),
        Index("ix_memories_project_created", "project", "created_at_ms", "id"),
        Index("ix_memories_created", "created_at_ms", "id"),
        Index("ix_memories_scope_owner", "scope", "owner"),
        Index("ix_memories_type_created", "type", "created_at_ms", "id"),
    )
    id: int = Field(
        sa_column=Column(Integer, ForeignKey("entries.id", ondelete="CASCADE"), primary_key=True)
    )
    project: str = Field(max_length=200)
    title: str = Field(sa_column=Column(Text, nullable=False))
    text: str = Field(sa_column=Column(Text, nullable=False))
    type: str = Field(default="note", max_length=20)
    kind: str = Field(default="note", max_length=40)
    tool: str = Field(default="mcp", max_length=100)
    pinned: bool = False
    content_hash: str = Field(max_length=64)
    session_id: str | None = Field(default=None, max_length=64)
    created_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    dismissed_at_ms: int | None = Field(default=None, sa_column=Column(BigInteger))
    # The revision this one replaces; the replaced one records when it was superseded.
    revision_of: int | None = Field(
        default=None,
        sa_column=Column(
            Integer,
            ForeignKey("memories.id", name="fk_memories_revision_of", ondelete="SET NULL"),
            index=True,
        ),
    )
    superseded_at_ms: int | None = Field(default=None, sa_column=Column(BigInteger))
    revision_reason: str | None = Field(default=None, sa_column=Column(Text))
    # 'project', or 'user': visible from every project of its owner (the token id on a team
    # hub, None on the local server).
    scope: str = Field(
        default="project",
        sa_column=Column(String(10), nullable=False, server_default="project"),
    )
    owner: str | None = Field(default=None, max_length=40)
    importance: int = Field(
        default=3, sa_column=Column(Integer, nullable=False, server_default="3")
    )
    concepts_json: str = Field(
        default="[]", sa_column=Column(Text, nullable=False, server_default="[]")
    )
    # The caller's checkout when it was saved: HEAD's commit and branch (None when unknown,
    # outside git, or detached for the branch).
    git_commit: str | None = Field(default=None, sa_column=Column(String(64)))
    git_branch: str | None = Field(default=None, sa_column=Column(String(255)))


class MemoryFile(SQLModel, table=True):
    __tablename__ = "memory_files"
    memory_id: int = Field(
        sa_column=Column(Integer, ForeignKey("memories.id", ondelete="CASCADE"), primary_key=True)
    )
    path: str = Field(sa_column=Column(Text, primary_key=True, index=True))
    # The git blob of the file's working-tree content at save time; None when not read.
    blob: str | None = Field(default=None, sa_column=Column(String(64)))


class WorkStateList(SQLModel, table=True):
    __tablename__ = "work_state_lists"
    __table_args__ = (UniqueConstraint("project", "name", name="uq_work_state_project_name"),)
    id: int = Field(
        sa_column=Column(Integer, ForeignKey("entries.id", ondelete="CASCADE"), primary_key=True)
    )
    project: str = Field(max_length=200)
    name: str = Field(max_length=200)
    items_json: str = Field(sa_column=Column(Text, nullable=False))
    tool: str = Field(default="mcp", max_length=100)
    updated_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))


class Fact(SQLModel, table=True):
    __tablename__ = "facts"
    __table_args__ = (Index("ix_facts_subject", "project", "subject", "predicate"),)
    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True))
    project: str = Field(max_length=200)
    subject: str = Field(sa_column=Column(Text, nullable=False))
    predicate: str = Field(sa_column=Column(Text, nullable=False))
    object: str = Field(sa_column=Column(Text, nullable=False))
    memory_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("memories.id", ondelete="SET NULL"))
    )
    valid_from_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    valid_to_ms: int | None = Field(default=None, sa_column=Column(BigInteger))
    dismissed_at_ms: int | None = Field(default=None, sa_column=Column(BigInteger))


class Rule(SQLModel, table=True):
    __tablename__ = "rules"
    id: str = Field(primary_key=True, max_length=12)
    when_text: str = Field(sa_column=Column(Text, nullable=False))
    then_text: str = Field(sa_column=Column(Text, nullable=False))
    scope_tier: str = Field(default="everywhere", max_length=20)
    scope_name: str | None = Field(default=None, max_length=200)
    source: str = Field(default="mcp", max_length=100)
    content_hash: str = Field(max_length=64, unique=True)
    evidence_memory_ids: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    evidence_fact_ids: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    enabled: bool = True
    created_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    confirmed_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    project: str | None = Field(default=None, max_length=200)  # where it was made
    reach_json: str | None = Field(default=None, sa_column=Column(Text))  # None: every project


class Episode(SQLModel, table=True):
    """A request a user made in a host session, shown in session-start context. The same
    request asked again in the project is one row: `repeat_count` and `last_seen_at_ms` move."""

    __tablename__ = "episodes"
    __table_args__ = (
        Index("ix_episodes_project_last_seen", "project", "last_seen_at_ms"),
        Index("ix_episodes_project_hash", "project", "request_hash"),
    )
    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True))
    project: str = Field(max_length=200)
    tool: str = Field(default="mcp", max_length=100)
    request: str = Field(sa_column=Column(Text, nullable=False))
    created_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    dismissed_at_ms: int | None = Field(default=None, sa_column=Column(BigInteger))
    # sha256 of the request with whitespace runs as one space; NULL in rows from before 0008.
    request_hash: str | None = Field(default=None, max_length=64)
    request_bytes: int = Field(sa_column=Column(Integer, nullable=False))
    repeat_count: int = Field(default=1, sa_column=Column(Integer, nullable=False))
    last_seen_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))


class Dismissal(SQLModel, table=True):
    """The trail of dismiss and restore actions, with their reasons."""

    __tablename__ = "dismissals"
    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True))
    item_type: str = Field(max_length=20)
    item_id: int
    action: str = Field(max_length=10)
    reason: str | None = Field(default=None, max_length=300)
    tool: str = Field(default="mcp", max_length=100)
    at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))


class McpSession(SQLModel, table=True):
    __tablename__ = "mcp_sessions"
    id: str = Field(primary_key=True, max_length=64)
    protocol_version: str = Field(max_length=20)
    client_name: str | None = Field(default=None, max_length=200)
    tool: str = Field(max_length=100)
    project: str = Field(max_length=200)
    token_id: str | None = Field(default=None, max_length=40)
    tool_set: str = Field(
        default="aletheia",
        sa_column=Column(String(40), nullable=False, server_default="aletheia"),
    )
    created_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    ended_at_ms: int | None = Field(default=None, sa_column=Column(BigInteger))


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_tokens"
    id: str = Field(primary_key=True, max_length=40)
    name: str | None = Field(default=None, max_length=200)
    scope: str = Field(max_length=10)
    projects_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    token_hash: str = Field(max_length=64, unique=True)
    created_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    last_used_at_ms: int | None = Field(default=None, sa_column=Column(BigInteger))
    revoked_at_ms: int | None = Field(default=None, sa_column=Column(BigInteger))


class AuditRow(SQLModel, table=True):
    """One row per tools/call: who, what, where, how it ended; never the arguments."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_operation_at", "operation", "at_ms"),)
    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True))
    at_ms: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    token_id: str | None = Field(default=None, max_length=40)
    tool: str = Field(max_length=100)
    operation: str = Field(
        default="", sa_column=Column(String(100), nullable=False, server_default="")
    )
    project: str | None = Field(default=None, max_length=200)
    result: str = Field(max_length=20)
    # The calling host (X-Aletheia-Tool, else the client's name), redacted like every name.
    host: str = Field(default="", sa_column=Column(String(100), nullable=False, server_default=""))
    error_code: int | None = None  # the JSON-RPC error code a call was answered with
    duration_us: int | None = Field(default=None, sa_column=Column(BigInteger))


class StoreMeta(SQLModel, table=True):
    """Facts about the store itself, such as the id that names it."""

    __tablename__ = "store_meta"
    key: str = Field(primary_key=True, max_length=40)
    value: str = Field(sa_column=Column(Text, nullable=False))


class Embedding(SQLModel, table=True):
    """The vector one embedding model made of a memory or a fact (float32, little-endian)."""

    __tablename__ = "embeddings"
    __table_args__ = (
        UniqueConstraint("item_kind", "item_id", name="uq_embeddings_item"),
        Index("ix_embeddings_model_seq", "model", "seq"),
        # Which items have a vector of a model, from the index alone (store/vectors.py).
        Index("ix_embeddings_item_model", "item_kind", "model", "item_id"),
    )
    seq: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True))
    item_kind: str = Field(max_length=10)  # memory or fact
    item_id: int
    model: str = Field(max_length=100)
    dimension: int
    vector: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))


class EmbeddingClaim(SQLModel, table=True):
    """A hub embedding an item until `expires_at_ms`: replicas of one PostgreSQL store each
    embed what the others have not claimed (store/claims.py)."""

    __tablename__ = "embedding_claims"
    item_kind: str = Field(
        sa_column=Column(String(10), primary_key=True, autoincrement=False, nullable=False)
    )
    item_id: int = Field(
        sa_column=Column(Integer, primary_key=True, autoincrement=False, nullable=False)
    )
    owner: str = Field(max_length=40)
    expires_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))


class BrowserSession(SQLModel, table=True):
    """A signed-in browser of the web console: kept in the store so every replica knows it.
    The cookie's value is never stored, only its SHA-256."""

    __tablename__ = "browser_sessions"
    id_hash: str = Field(primary_key=True, max_length=64)
    token_id: str | None = Field(default=None, max_length=40)  # None: the local user
    csrf_secret: str = Field(max_length=64)
    created_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    last_seen_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))


class ProjectFolder(SQLModel, table=True):
    """A folder a project's tools called from (X-Aletheia-Cwd, heard by the local hub only):
    where the console offers to write the rules files."""

    __tablename__ = "project_folders"
    project: str = Field(sa_column=Column(String(200), primary_key=True))
    folder: str = Field(sa_column=Column(Text, primary_key=True))
    last_seen_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))


class WorkEvent(SQLModel, table=True):
    """What a hook reported an agent did in a host session: an edit (file, lines added and
    removed, an excerpt in `detail`) or a command (line, exit code, duration, output tail in
    `detail`, the test run read from it in `test_json`). The same event again, right after
    itself, is one row: `repeat_count` and `last_seen_at_ms` move. Secrets and <private> spans
    are out of every text column."""

    __tablename__ = "work_events"
    __table_args__ = (
        Index("ix_work_events_session", "project", "host", "session_key", "id"),
        Index("ix_work_events_project_created", "project", "created_at_ms", "id"),
    )
    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True))
    project: str = Field(max_length=200)
    host: str = Field(max_length=100)
    session_key: str = Field(max_length=200)
    kind: str = Field(max_length=10)  # edit or command
    tool: str = Field(max_length=100)
    file: str | None = Field(default=None, sa_column=Column(Text))
    added: int | None = None
    removed: int | None = None
    command: str | None = Field(default=None, sa_column=Column(Text))
    exit_code: int | None = None
    duration_ms: int | None = Field(default=None, sa_column=Column(BigInteger))
    detail: str = Field(sa_column=Column(Text, nullable=False))
    test_json: str | None = Field(default=None, sa_column=Column(Text))
    fingerprint: str = Field(max_length=64)
    repeat_count: int = Field(sa_column=Column(Integer, nullable=False))
    bytes: int = Field(sa_column=Column(Integer, nullable=False))
    created_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    last_seen_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))


class MemoryMerge(SQLModel, table=True):
    """Near-duplicates merged on request: `kept_id` got the new revision `revision_id`, and
    the memories of its parts were dismissed; `undone_at_ms` once the merge was undone."""

    __tablename__ = "memory_merges"
    __table_args__ = (Index("ix_memory_merges_project_at", "project", "merged_at_ms"),)
    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True))
    project: str = Field(max_length=200)
    kept_id: int = Field(sa_column=Column(Integer, nullable=False))
    revision_id: int = Field(sa_column=Column(Integer, nullable=False))
    tool: str = Field(max_length=100)  # who asked: cli, console
    merged_at_ms: int = Field(sa_column=Column(BigInteger, nullable=False))
    undone_at_ms: int | None = Field(default=None, sa_column=Column(BigInteger))


class MemoryMergePart(SQLModel, table=True):
    """A memory a merge dismissed: its lineage to the merge's new revision."""

    __tablename__ = "memory_merge_parts"
    __table_args__ = (Index("ix_memory_merge_parts_memory", "memory_id"),)
    merge_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("memory_merges.id", ondelete="CASCADE"), primary_key=True
        )
    )
    memory_id: int = Field(sa_column=Column(Integer, primary_key=True))
