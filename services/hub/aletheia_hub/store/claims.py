"""Embedding claims: several hubs serving one PostgreSQL store (replicas) each embed what the
others are not embedding, so every saved item is embedded once.

A worker claims the pending items it fetched before embedding them and releases its claims
with the vectors it saves. An item another hub holds is left to it; a claim outlives a hub
that stopped mid-batch by at most HOLD_MS, and a later look takes the item then. The claim
is written (and committed) before its holder embeds, and dropped only once the vectors are
saved: another hub that looks meanwhile either meets the claim or sees the vector.

A SQLite store has one hub (store_lock.py): nothing is claimed there, each pending item is
the hub's own.
"""

from collections.abc import Iterable, Sequence
from typing import Final

from sqlalchemy import ColumnElement, and_, delete, false, or_, select
from sqlmodel import Session

from aletheia_hub.store.db import Database
from aletheia_hub.store.tables import EMBEDDING_CLAIMS, EMBEDDINGS

# Longer than a batch of FETCH_SIZE items takes on a busy machine (128 notes at 30 a second),
# or a remote server's timeouts and retries: a claim that expires early costs only a vector
# made twice.
HOLD_MS: Final = 120_000

Key = tuple[str, int]  # item kind ("memory" or "fact") and id
_CLAIMS: Final = EMBEDDING_CLAIMS.c


def claim(
    *, session: Session, model: str, keys: Sequence[Key], owner: str, now_ms: int
) -> set[Key]:
    """Of these items (pending a vector of `model`), those `owner` embeds now: claimed until
    now_ms + HOLD_MS. Not those another owner holds, nor those that have their vector of
    `model` by now (done by a hub whose claim has gone)."""
    if not keys or not _shared(session):
        return set(keys)
    # Here: only a shared PostgreSQL store claims, and a SQLite hub never loads its dialect.
    from sqlalchemy.dialects import postgresql

    session.execute(delete(EMBEDDING_CLAIMS).where(_CLAIMS.expires_at_ms < now_ms))
    rows = [
        {"item_kind": kind, "item_id": item_id, "owner": owner, "expires_at_ms": now_ms + HOLD_MS}
        for kind, item_id in dict.fromkeys(keys)
    ]
    taken = session.execute(
        postgresql.insert(EMBEDDING_CLAIMS)
        .values(rows)
        .on_conflict_do_nothing()
        .returning(_CLAIMS.item_kind, _CLAIMS.item_id)
    )
    mine = {(str(kind), int(item_id)) for kind, item_id in taken}
    if not mine:
        return mine
    done = {
        (str(kind), int(item_id))
        for kind, item_id in session.execute(
            select(EMBEDDINGS.c.item_kind, EMBEDDINGS.c.item_id).where(
                EMBEDDINGS.c.model == model,
                _matching(EMBEDDINGS.c.item_kind, EMBEDDINGS.c.item_id, mine),
            )
        )
    }
    release(session=session, owner=owner, keys=done)
    return mine - done


def release(*, session: Session, owner: str, keys: Iterable[Key]) -> None:
    """Drop `owner`'s claims on these items (their vectors are saved, or it gave up)."""
    keys = set(keys)
    if keys and _shared(session):
        session.execute(
            delete(EMBEDDING_CLAIMS).where(
                _CLAIMS.owner == owner, _matching(_CLAIMS.item_kind, _CLAIMS.item_id, keys)
            )
        )


def shared(db: Database) -> bool:
    """Whether several hubs may serve this store and claims are kept (PostgreSQL)."""
    return not db.is_sqlite


def _shared(session: Session) -> bool:
    return session.get_bind().dialect.name != "sqlite"


def _matching(
    kind_column: ColumnElement[str], id_column: ColumnElement[int], keys: Iterable[Key]
) -> ColumnElement[bool]:
    by_kind: dict[str, list[int]] = {}
    for kind, item_id in keys:
        by_kind.setdefault(kind, []).append(item_id)
    if not by_kind:
        return false()
    return or_(*(and_(kind_column == kind, id_column.in_(ids)) for kind, ids in by_kind.items()))
