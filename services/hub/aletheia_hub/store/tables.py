"""Each model's Core table, typed once for the store's Core selects and updates."""

from typing import Final

from sqlalchemy import Table, inspect
from sqlmodel import SQLModel

from aletheia_hub.store.models import (
    ApiToken,
    AuditRow,
    BrowserSession,
    Dismissal,
    Embedding,
    EmbeddingClaim,
    Entry,
    Episode,
    Fact,
    McpSession,
    Memory,
    MemoryFile,
    MemoryMerge,
    MemoryMergePart,
    ProjectFolder,
    Rule,
    StoreMeta,
    WorkEvent,
    WorkStateList,
)


def _table_of(model: type[SQLModel]) -> Table:
    # SQLModel does not declare `__table__` and `inspect` returns Any: the table is checked
    # here once so that every use of it is typed.
    table = inspect(model).local_table
    assert isinstance(table, Table)
    return table


ENTRIES: Final = _table_of(Entry)
MEMORIES: Final = _table_of(Memory)
MEMORY_FILES: Final = _table_of(MemoryFile)
WORK_STATE_LISTS: Final = _table_of(WorkStateList)
FACTS: Final = _table_of(Fact)
RULES: Final = _table_of(Rule)
EPISODES: Final = _table_of(Episode)
DISMISSALS: Final = _table_of(Dismissal)
MCP_SESSIONS: Final = _table_of(McpSession)
API_TOKENS: Final = _table_of(ApiToken)
AUDIT_LOG: Final = _table_of(AuditRow)
STORE_META: Final = _table_of(StoreMeta)
EMBEDDINGS: Final = _table_of(Embedding)
EMBEDDING_CLAIMS: Final = _table_of(EmbeddingClaim)
BROWSER_SESSIONS: Final = _table_of(BrowserSession)
PROJECT_FOLDERS: Final = _table_of(ProjectFolder)
WORK_EVENTS: Final = _table_of(WorkEvent)
MEMORY_MERGES: Final = _table_of(MemoryMerge)
MEMORY_MERGE_PARTS: Final = _table_of(MemoryMergePart)
