"""The PostgreSQL pool hands out no connection the server has ended, and finds one without a
round trip (store/db.py)."""

import time
from pathlib import Path

import pytest
from sqlalchemy import text

from aletheia_hub.store.db import Database, server_hung_up
from tests.conftest import POSTGRES_ADMIN
from tests.hub.store.bulk import store_on

pytestmark = pytest.mark.postgres

GONE_WAIT_S = 10.0


def backend_of_read(db: Database) -> int:
    with db.read_session() as session:
        return int(session.execute(text("SELECT pg_backend_pid()")).scalar_one())


def backend_of_statement(db: Database) -> int:
    with db.statement_connection() as connection:
        return int(connection.execute(text("SELECT pg_backend_pid()")).scalar_one())


def end_backend(pid: int) -> None:
    """Have the server end one connection's process, and wait until it is gone."""
    admin = POSTGRES_ADMIN.get()
    assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
    deadline = time.monotonic() + GONE_WAIT_S
    while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
        assert time.monotonic() < deadline, f"backend {pid} still running"


def test_a_connection_the_server_ended_is_replaced_before_a_read_uses_it(
    tmp_path: Path,
) -> None:
    with store_on("postgres", tmp_path) as db:
        first = backend_of_read(db)
        assert backend_of_read(db) == first  # the pool keeps it
        end_backend(first)
        second = backend_of_read(db)
        assert second != first
        assert backend_of_read(db) == second


def test_a_lookup_outside_a_transaction_gets_a_live_connection_too(tmp_path: Path) -> None:
    with store_on("postgres", tmp_path) as db:
        first = backend_of_statement(db)
        end_backend(first)
        assert backend_of_statement(db) != first


def test_an_idle_connection_is_live_until_the_server_ends_it(tmp_path: Path) -> None:
    with store_on("postgres", tmp_path) as db, db.engine.connect() as connection:
        pid = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
        connection.commit()
        driver = connection.connection.driver_connection
        assert not server_hung_up(driver)
        end_backend(pid)
        assert server_hung_up(driver)
        connection.invalidate()


def test_after_a_restart_every_pooled_connection_is_replaced_as_it_is_taken(
    tmp_path: Path,
) -> None:
    with store_on("postgres", tmp_path) as db:
        with db.read_session() as a, db.read_session() as b, db.read_session() as c:
            before = {
                int(s.execute(text("SELECT pg_backend_pid()")).scalar_one()) for s in (a, b, c)
            }
        for pid in before:  # as a restart of the server would
            end_backend(pid)
        with db.read_session() as a, db.read_session() as b, db.read_session() as c:
            after = {
                int(s.execute(text("SELECT pg_backend_pid()")).scalar_one()) for s in (a, b, c)
            }
        assert len(before) == len(after) == 3
        assert not before & after
