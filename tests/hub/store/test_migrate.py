"""The quick check of a store's schema agrees with alembic's own view."""

from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import (
    MIGRATIONS_DIR,
    current_revision,
    head_revision,
    is_current,
    upgrade_to_head,
)


def test_the_head_read_from_the_files_is_alembics_head() -> None:
    assert head_revision() == ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head()


def test_a_new_store_is_not_current_until_migrated(store_url: str) -> None:
    db = Database(store_url)
    try:
        with db.engine.connect() as connection:
            assert current_revision(connection) is None
        assert not is_current(db.engine)
        upgrade_to_head(db.engine)
        assert is_current(db.engine)
        upgrade_to_head(db.engine)  # a second start finds nothing to do
        with db.engine.connect() as connection:
            assert current_revision(connection) == head_revision()
    finally:
        db.dispose()


def test_an_unreadable_version_table_counts_as_not_migrated(tmp_path: object) -> None:
    engine = create_engine(f"sqlite:///{tmp_path}/odd.db")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE alembic_version (other TEXT)")
    assert not is_current(engine)
    engine.dispose()
