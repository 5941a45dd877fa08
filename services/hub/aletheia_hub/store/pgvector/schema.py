"""The pgvector extension, the table of vector copies, and one HNSW index per model.

Every name the extension brings (the `vector` type, the `<=>` operator, the operator class)
is qualified with the extension's schema: a store may live in a schema whose search_path does
not reach the one the extension was made in.
"""

import hashlib
import logging
import re
import time
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, Engine, text

from aletheia_hub.store.extensions import add_extension
from aletheia_hub.store.pgvector.rows import VECTOR_TABLE, fill_vector_table, vector_table_ready

logger = logging.getLogger(__name__)

# pgvector's HNSW indexes `vector` up to 2,000 dimensions and `halfvec` up to 4,000; a model
# with more is searched exactly.
MAX_VECTOR_DIMENSIONS: Final = 2_000
MAX_HALFVEC_DIMENSIONS: Final = 4_000
# HNSW build parameters. With pgvector's defaults (m = 16, ef_construction = 64) the 60
# nearest of 2 in 100 of bench/scale.py's questions at a million vectors lay in a part of the
# graph the search never reached, whatever hnsw.ef_search (recall 0.952); with these none did
# (0.993, every question at least 0.95), for a build 2.4 times as long (17 min on 2 cores).
HNSW_WITH: Final = "m = 24, ef_construction = 128"
MIN_VERSION: Final = (0, 8)
LOCK_POLL_SECONDS: Final = 1.0
_CREATE_LOCK_KEY: Final = 7_411_028  # any constant, the same for every replica
# A model name is written into the index predicate as a literal, so only plain names qualify
# (every model name so far does); another is searched exactly, without an index.
_PLAIN_NAME: Final = re.compile(r"[A-Za-z0-9._:/@+-]{1,100}")


@dataclass(frozen=True, slots=True)
class VectorColumn:
    """How the vectors of one model are found in SQL: `v` names the vector table."""

    schema: str  # where the extension lives
    model: str
    dimension: int

    @property
    def type_name(self) -> str:
        """The dimensioned type the index is built on (half precision past 2,000)."""
        kind = "vector" if self.dimension <= MAX_VECTOR_DIMENSIONS else "halfvec"
        return f"{_quote(self.schema)}.{kind}({self.dimension})"

    @property
    def indexable(self) -> bool:
        return self.dimension <= MAX_HALFVEC_DIMENSIONS and bool(_PLAIN_NAME.fullmatch(self.model))

    @property
    def distance(self) -> str:
        """The cosine distance operator."""
        return f"OPERATOR({_quote(self.schema)}.<=>)"

    @property
    def plain_type(self) -> str:
        return f"{_quote(self.schema)}.vector"

    @property
    def index_name(self) -> str:
        digest = hashlib.sha256(f"{self.model}\n{self.dimension}".encode()).hexdigest()[:16]
        return f"ix_{VECTOR_TABLE}_hnsw_{digest}"

    def indexed_distance(self, query_mark: str) -> str:
        """The distance to the query vector as the model's HNSW index orders by it."""
        return f"(v.embedding::{self.type_name} {self.distance} {query_mark}::{self.type_name})"

    def exact_distance(self, query_mark: str) -> str:
        """The same distance in a form no index matches: a scan computes every one."""
        return f"(v.embedding {self.distance} {query_mark}::{self.plain_type})"

    def predicate(self, alias: str = "v.") -> str:
        """The rows of this model's memory vectors, in literals (as the partial index has it,
        so the planner can prove that the index covers the query)."""
        return (
            f"{alias}model = '{self.model}' AND {alias}item_kind = 'memory'"
            f" AND {alias}dimension = {int(self.dimension)}"
        )


def extension_schema(connection: Connection) -> str | None:
    """The schema the `vector` extension lives in; None without it (or before 0.8, which has
    no iterative index scans), off PostgreSQL, or under a driver other than psycopg 3 (vectors
    are copied in its binary COPY format)."""
    if connection.dialect.name != "postgresql" or connection.dialect.driver != "psycopg":
        return None
    found = connection.execute(
        text(
            "SELECT n.nspname, e.extversion FROM pg_extension e"
            " JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
        )
    ).first()
    if found is None:
        return None
    if _version(found[1]) < MIN_VERSION:
        logger.warning("pgvector %s is older than 0.8: vectors are searched in memory", found[1])
        return None
    return str(found[0])


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def create_extension(connection: Connection) -> str | None:
    """Make the extension when this role may (extensions.py), and the schema it lives in (None
    when it is not there)."""
    if connection.dialect.name != "postgresql" or connection.dialect.driver != "psycopg":
        return None
    found = extension_schema(connection)
    if found is not None:
        return found
    add_extension(connection, "vector")
    return extension_schema(connection)


def enable_vectors(connection: Connection, schema: str) -> int:
    """Make the table of vector copies and fill it from the stored vectors, once; the number
    of vectors copied. Inside the caller's transaction, under a lock that holds every writer
    of `embeddings` back, so that a vector saved meanwhile is either copied here or saved
    after the table is there (save_vectors copies it then)."""
    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _CREATE_LOCK_KEY})
    if vector_table_ready(connection):
        return 0
    connection.execute(text("LOCK TABLE embeddings IN SHARE MODE"))
    connection.execute(text(f"DROP TABLE IF EXISTS {VECTOR_TABLE}"))
    connection.execute(
        text(
            f"CREATE TABLE {VECTOR_TABLE} ("
            " seq integer PRIMARY KEY REFERENCES embeddings (seq) ON DELETE CASCADE,"
            " item_kind varchar(10) NOT NULL,"
            " item_id integer NOT NULL,"
            " model varchar(100) NOT NULL,"
            " dimension integer NOT NULL,"
            f" embedding {_quote(schema)}.vector NOT NULL)"
        )
    )
    # Kept in the row where it fits (a 384-dimension row is 1.6 kB): a scan reads no TOAST.
    connection.execute(text(f"ALTER TABLE {VECTOR_TABLE} ALTER COLUMN embedding SET STORAGE MAIN"))
    connection.execute(
        text(f"CREATE UNIQUE INDEX ix_{VECTOR_TABLE}_item ON {VECTOR_TABLE} (item_kind, item_id)")
    )
    copied = fill_vector_table(connection)
    logger.info("copied %d stored vectors into %s", copied, VECTOR_TABLE)
    return copied


def hnsw_state(connection: Connection, column: VectorColumn) -> str:
    """The model's index: "valid", "building" (or a build that died) or "missing"."""
    valid = connection.execute(
        text("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(:name)"),
        {"name": column.index_name},
    ).scalar()
    return "missing" if valid is None else "valid" if valid else "building"


def ensure_hnsw(
    engine: Engine,
    column: VectorColumn,
    *,
    concurrently: bool = True,
    maintenance_work_mem: str | None = None,
) -> bool:
    """Build the model's HNSW index unless it is there; whether it is there afterwards.

    One replica builds while the others wait on an advisory lock; an index a build left
    invalid (its hub died) is dropped and built again. `concurrently` keeps writers going
    meanwhile (a bulk load builds without it, faster)."""
    if not column.indexable:
        return False
    key = int.from_bytes(
        hashlib.sha256(column.index_name.encode()).digest()[:8], "big", signed=True
    )
    ops = "halfvec_cosine_ops" if column.dimension > MAX_VECTOR_DIMENSIONS else "vector_cosine_ops"
    how = "CONCURRENTLY " if concurrently else ""
    with engine.connect() as plain:
        connection = plain.execution_options(isolation_level="AUTOCOMMIT")
        # Asked again and again rather than waited for in one statement: a build running
        # CONCURRENTLY waits for every statement older than its phases, this one too.
        while not connection.execute(
            text("SELECT pg_try_advisory_lock(:key)"), {"key": key}
        ).scalar():
            time.sleep(LOCK_POLL_SECONDS)
        try:
            state = hnsw_state(connection, column)
            if state == "valid":
                return True
            if state == "building":  # the lock is ours: whoever built it is gone
                connection.execute(text(f"DROP INDEX {how}IF EXISTS {column.index_name}"))
            if maintenance_work_mem is not None:
                connection.execute(
                    text("SELECT set_config('maintenance_work_mem', :size, false)"),
                    {"size": maintenance_work_mem},
                )
            logger.info("building the HNSW index of %s vectors", column.model)
            connection.execute(
                text(
                    f"CREATE INDEX {how}IF NOT EXISTS {column.index_name} ON {VECTOR_TABLE}"
                    f" USING hnsw ((embedding::{column.type_name}) {_quote(column.schema)}.{ops})"
                    f" WITH ({HNSW_WITH}) WHERE {column.predicate('')}"
                )
            )
            return hnsw_state(connection, column) == "valid"
        finally:
            connection.execute(text("RESET maintenance_work_mem"))
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
