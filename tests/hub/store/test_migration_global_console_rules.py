"""A rule the console made with no project was stored, by earlier versions, as made in project
"default", a project no one chose: the upgrade makes such rules global again, and leaves every
other rule, a real project "default"'s included, as it was."""

from collections.abc import Iterator

import pytest
from alembic import command
from sqlalchemy import text

from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from tests.hub.store.test_migrations_keep_rows import alembic_config

# (id, scope tier, scope name, source, made in): only c1 and c2 lose their project.
RULES = (
    ("c1", "everywhere", None, "console", "default"),
    ("c2", "situation", "editing SQL", "console", "default"),
    ("c3", "project", "default", "console", "default"),  # chosen: a project rule of "default"
    ("m1", "everywhere", None, "mcp", "default"),  # a host working in "default" made it
    ("c4", "everywhere", None, "console", "shop"),
)


@pytest.fixture
def store(store_url: str) -> Iterator[Database]:
    db = Database(store_url)
    yield db
    db.dispose()


def test_console_rules_stored_in_default_become_global_and_no_other_rule_moves(
    store: Database,
) -> None:
    with store.engine.connect() as connection:
        command.upgrade(alembic_config(connection), "0017")
        connection.commit()
    with store.engine.begin() as connection:
        for number, (rule_id, tier, name, source, project) in enumerate(RULES):
            connection.execute(
                text(
                    "INSERT INTO rules (id, when_text, then_text, scope_tier, scope_name, source,"
                    " content_hash, evidence_memory_ids, evidence_fact_ids, enabled,"
                    " created_at_ms, confirmed_at_ms, project, reach_json) VALUES (:id, '',"
                    " :then, :tier, :name, :source, :hash, '[]', '[]', :enabled, 1, 1,"
                    " :project, NULL)"
                ),
                {
                    "id": rule_id,
                    "then": f"rule {rule_id}",
                    "tier": tier,
                    "name": name,
                    "source": source,
                    "hash": f"h{number}",
                    "enabled": True,
                    "project": project,
                },
            )
    upgrade_to_head(store.engine)
    with store.engine.connect() as connection:
        rows = connection.execute(text("SELECT id, project FROM rules")).all()
    made_in = dict(rows)
    assert made_in == {"c1": None, "c2": None, "c3": "default", "m1": "default", "c4": "shop"}
