"""The store's own identity and keys: values written once by the migrations that made them."""

from typing import Final

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.store.tables import STORE_META

STORE_ID_KEY: Final = "store_id"
CURSOR_SECRET_KEY: Final = "cursor_secret"


def store_id(*, session: Session) -> str:
    """The id that names this store, the same for every hub that serves it."""
    value = session.execute(
        select(STORE_META.c.value).where(STORE_META.c.key == STORE_ID_KEY)
    ).scalar_one()
    return str(value)


def cursor_secret(*, session: Session) -> str:
    """The key that signs pagination cursors, shared by every hub that serves this store."""
    value = session.execute(
        select(STORE_META.c.value).where(STORE_META.c.key == CURSOR_SECRET_KEY)
    ).scalar_one()
    return str(value)
