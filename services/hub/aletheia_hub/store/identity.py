"""The store's own identity: an id written once by the migration that created it."""

from typing import Final

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.store.tables import STORE_META

STORE_ID_KEY: Final = "store_id"


def store_id(*, session: Session) -> str:
    """The id that names this store, the same for every hub that serves it."""
    value = session.execute(
        select(STORE_META.c.value).where(STORE_META.c.key == STORE_ID_KEY)
    ).scalar_one()
    return str(value)
