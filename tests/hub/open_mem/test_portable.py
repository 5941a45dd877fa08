"""Export and import of a project's memory, on SQLite and PostgreSQL."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from aletheia_hub.store import dismissals, memories, revisions, rules, work_state
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import FactInput
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.portable import (
    PayloadError,
    build_document,
    dump_document,
    import_document,
    parse_document,
)
from aletheia_hub.store.portable.importer import ImportCounts, ImportMode
from tests.conftest import fresh_postgres_schema


@contextmanager
def opened(url: str) -> Iterator[Database]:
    database = Database(url)
    upgrade_to_head(database.engine)
    try:
        yield database
    finally:
        database.dispose()


@pytest.fixture
def db(store_url: str) -> Iterator[Database]:
    with opened(store_url) as database:
        yield database


@pytest.fixture
def other_db(store_url: str, tmp_path: Path) -> Iterator[Database]:
    """A second, empty store on the same backend."""
    if store_url.startswith("sqlite"):
        with opened(f"sqlite:///{tmp_path / 'other.db'}") as database:
            yield database
        return
    with fresh_postgres_schema() as url, opened(url) as database:
        yield database


def save(db: Database, title: str, *, project: str = "shop", **extra: Any) -> int:
    with db.write_session() as session:
        return memories.save_memory(
            session=session,
            project=project,
            text=extra.pop("text", f"{title}: the details."),
            title=title,
            type=extra.pop("type", "decision"),
            kind="observation",
            tool="tests",
            pinned=False,
            **extra,
        ).id


def revise(db: Database, memory_id: int, **change: Any) -> int:
    with db.write_session() as session:
        return revisions.revise_memory(
            session=session,
            memory_id=memory_id,
            change=revisions.RevisionChange(**change),
            tool="tests",
            session_id=None,
        ).new_id


def remove(db: Database, memory_id: int, reason: str) -> None:
    with db.write_session() as session:
        dismissals.set_dismissed(
            session=session,
            item_type="memory",
            item_id=memory_id,
            dismissed=True,
            reason=reason,
            tool="tests",
        )


def fill(db: Database) -> dict[str, int]:
    """A project with a revised line, a tombstone, facts, a rule and a list; and another
    project that must stay out of the export."""
    first = save(
        db,
        "Prefer SQLite for the cache",
        files=["src/db/store.py"],
        concepts=["storage"],
        importance=4,
        facts=[FactInput("cache", "uses", "SQLite")],
    )
    second = revise(db, first, text="SQLite keeps it local-first.", reason="clearer")
    gone = save(db, "An idea we dropped", type="discovery")
    remove(db, gone, "wrong idea")
    plain = save(db, "Use pnpm", type="change", facts=[FactInput("shop", "uses", "pnpm")])
    save(db, "Billing note", project="billing")
    with db.write_session() as session:
        rules.add_rule(
            session=session,
            then="run make test",
            when="before committing",
            scope_tier="project",
            scope_name="shop",
            source="tests",
            project="shop",
            reach=["shop"],
            evidence_memory_ids=[plain],
        )
        work_state.write_list(
            session=session, project="shop", name="todo", items=["a", {"b": 1}], tool="tests"
        )
    return {"first": first, "second": second, "gone": gone, "plain": plain}


def export(db: Database, project: str = "shop", **filters: Any) -> dict[str, Any]:
    with db.read_session() as session:
        document = build_document(session=session, project=project, **filters)
    loaded: dict[str, Any] = json.loads(dump_document(document))
    return loaded


def run_import(db: Database, payload: str, mode: ImportMode, project: str = "shop") -> ImportCounts:
    with db.write_session() as session:
        return import_document(
            session=session,
            document=parse_document(payload),
            project=project,
            mode=mode,
            tool="tests",
            keep_owners=True,
        )


def without_time(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key != "exportedAt"}


def snapshot(db: Database) -> list[tuple[Any, ...]]:
    with db.read_session() as session:
        rows = []
        for table in ("entries", "memories", "memory_files", "facts", "rules", "dismissals"):
            rows += [(table, *row) for row in session.execute(text(f"SELECT * FROM {table}"))]
        rows += [
            ("lists", *row)
            for row in session.execute(text("SELECT * FROM work_state_lists ORDER BY id"))
        ]
    return sorted(rows, key=repr)


def test_the_export_holds_revisions_tombstones_facts_rules_and_lists(db: Database) -> None:
    ids = fill(db)
    document = export(db)
    assert document["format"] == "aletheia-export" and document["version"] == 1
    assert document["project"] == "shop"
    by_id = {o["id"]: o for o in document["observations"]}
    assert list(by_id) == [f"obs-{ids[k]}" for k in ("first", "second", "gone", "plain")]
    first, second = by_id[f"obs-{ids['first']}"], by_id[f"obs-{ids['second']}"]
    assert first["supersededAtMs"] is not None and first["revisionOf"] is None
    assert second["revisionOf"] == f"obs-{ids['first']}"
    assert second["revisionReason"] == "clearer"
    assert second["files"] == ["src/db/store.py"] and second["concepts"] == ["storage"]
    assert second["importance"] == 4 and second["narrative"] == "SQLite keeps it local-first."
    assert document["tombstones"] == [
        {
            "id": f"obs-{ids['gone']}",
            "removedAtMs": by_id[f"obs-{ids['gone']}"]["removedAtMs"],
            "trail": [
                {
                    "action": "dismiss",
                    "reason": "wrong idea",
                    "tool": "tests",
                    "atMs": by_id[f"obs-{ids['gone']}"]["removedAtMs"],
                }
            ],
        }
    ]
    assert [(f["subject"], f["observation"]) for f in document["facts"]] == [
        ("cache", f"obs-{ids['first']}"),
        ("shop", f"obs-{ids['plain']}"),
    ]
    assert [r["evidenceObservations"] for r in document["rules"]] == [[f"obs-{ids['plain']}"]]
    assert document["workState"][0]["name"] == "todo"
    assert document["workState"][0]["items"] == ["a", {"b": 1}]
    assert "Billing note" not in json.dumps(document)


def test_type_and_limit_filter_the_observations(db: Database) -> None:
    ids = fill(db)
    decisions = export(db, type="decision")
    assert [o["id"] for o in decisions["observations"]] == [
        f"obs-{ids['first']}",
        f"obs-{ids['second']}",
    ]
    assert decisions["filter"] == {"type": "decision", "limit": None}
    assert [f["subject"] for f in decisions["facts"]] == ["cache"]
    newest = export(db, limit=2)
    assert [o["id"] for o in newest["observations"]] == [
        f"obs-{ids['gone']}",
        f"obs-{ids['plain']}",
    ]


def test_export_import_export_round_trips_into_an_empty_store(
    db: Database, other_db: Database
) -> None:
    fill(db)
    first = export(db)
    counts = run_import(other_db, json.dumps(first), "skip")
    assert counts == ImportCounts(added=4 + 2 + 1 + 1, merged=0, skipped=0, replaced=0)
    second = export(other_db)
    assert without_time(second) == without_time(first)
    # New writes after the import take ids past the imported ones.
    assert save(other_db, "After the import") > max(
        int(o["id"].removeprefix("obs-")) for o in first["observations"]
    )


def test_an_imported_store_searches_and_dedupes_like_a_saved_one(
    db: Database, other_db: Database
) -> None:
    ids = fill(db)
    run_import(other_db, json.dumps(export(db)), "skip")
    assert save(other_db, "Use pnpm") == ids["plain"]  # the same memory: dedupe holds


def test_skip_keeps_what_the_store_holds_and_adds_the_rest(
    db: Database, other_db: Database
) -> None:
    ids = fill(db)
    payload = json.dumps(export(db))
    run_import(other_db, payload, "skip")
    local = save(other_db, "Only here")
    newer = revise(other_db, ids["plain"], text="pnpm 9 everywhere.")
    counts = run_import(other_db, payload, "skip")
    assert counts == ImportCounts(added=0, merged=0, skipped=8, replaced=0)
    document = export(other_db)
    current = [o["id"] for o in document["observations"] if o["supersededAtMs"] is None]
    assert f"obs-{local}" in current and f"obs-{newer}" in current


def test_merge_adds_the_newer_revisions_and_keeps_both_histories(
    db: Database, other_db: Database
) -> None:
    ids = fill(db)
    run_import(other_db, json.dumps(export(db)), "skip")
    theirs = revise(other_db, ids["plain"], text="Their revision.", reason="theirs")
    revise(db, ids["plain"], text="Our later revision.", reason="ours")
    counts = run_import(other_db, json.dumps(export(db)), "merge")
    assert counts.merged == 1 and counts.added == 0
    merged = {o["narrative"]: o for o in export(other_db)["observations"]}
    assert merged["Their revision."]["supersededAtMs"] is not None
    head = merged["Our later revision."]
    assert head["supersededAtMs"] is None and head["revisionReason"] == "ours"
    assert head["revisionOf"] == f"obs-{theirs}"  # on top of the store's line: both kept
    assert merged["Their revision."]["revisionOf"] == f"obs-{ids['plain']}"


def test_merge_keeps_an_older_revision_as_history(db: Database, other_db: Database) -> None:
    ids = fill(db)
    run_import(other_db, json.dumps(export(db)), "skip")
    revise(db, ids["plain"], text="Our earlier revision.")
    payload = json.dumps(export(db))
    theirs = revise(other_db, ids["plain"], text="Their later revision.")
    assert run_import(other_db, payload, "merge").merged == 1
    merged = {o["narrative"]: o for o in export(other_db)["observations"]}
    assert merged["Our earlier revision."]["supersededAtMs"] is not None
    assert merged["Their later revision."]["supersededAtMs"] is None
    assert merged["Their later revision."]["id"] == f"obs-{theirs}"


def test_replace_makes_the_projects_memory_the_documents(db: Database, other_db: Database) -> None:
    ids = fill(db)
    payload = json.dumps(export(db))
    run_import(other_db, payload, "skip")
    local = save(other_db, "Only here", facts=[FactInput("local", "is", "extra")])
    with other_db.write_session() as session:
        work_state.write_list(
            session=session, project="shop", name="todo", items=["changed"], tool="t"
        )
        work_state.write_list(session=session, project="shop", name="extra", items=[], tool="t")
    billing = save(other_db, "Billing stays", project="billing")
    counts = run_import(other_db, payload, "replace")
    # the local memory and its fact retire; todo takes the document's items; extra goes.
    assert counts == ImportCounts(added=0, merged=0, skipped=7, replaced=4)
    after = export(other_db)
    assert without_time(after)["workState"] == export(db)["workState"]
    removed = {o["id"] for o in after["observations"] if o["removedAtMs"] is not None}
    assert removed == {f"obs-{ids['gone']}", f"obs-{local}"}
    trail = next(t for t in after["tombstones"] if t["id"] == f"obs-{local}")["trail"]
    assert [(t["action"], t["reason"]) for t in trail] == [("dismiss", "replaced by import")]
    with other_db.read_session() as session:
        fact_trail = session.execute(
            text(
                "SELECT d.action, d.reason, d.tool, f.dismissed_at_ms IS NOT NULL FROM dismissals d"
                " JOIN facts f ON f.id = d.item_id WHERE d.item_type = 'fact'"
                " AND f.subject = 'local'"
            )
        ).all()
    assert [tuple(row) for row in fact_trail] == [("dismiss", "replaced by import", "tests", True)]
    assert [o["title"] for o in export(other_db, project="billing")["observations"]] == [
        "Billing stays"
    ]
    assert billing


def test_a_malformed_import_changes_nothing(db: Database, other_db: Database) -> None:
    ids = fill(db)
    good = export(db)
    run_import(other_db, json.dumps(good), "skip")
    save(other_db, "Only here")
    before = snapshot(other_db)
    broken = json.loads(json.dumps(good))
    broken["observations"].append(dict(broken["observations"][-1], id="obs-999999"))
    broken["observations"][-1]["importance"] = 9
    cases = {
        "not json": "{",
        "wrong format": json.dumps({**good, "format": "other"}),
        "bad field": json.dumps(broken),
        "unknown key": json.dumps({**good, "extra": 1}),
        "dangling fact": json.dumps(
            {**good, "facts": [{**good["facts"][0], "observation": "obs-424242"}]}
        ),
        "cycle": json.dumps(
            {
                **good,
                "observations": [
                    {**good["observations"][0], "id": "obs-1", "revisionOf": "obs-2"},
                    {**good["observations"][1], "id": "obs-2", "revisionOf": "obs-1"},
                ],
                "tombstones": [],
                "facts": [],
                "rules": [],
            }
        ),
    }
    for name, payload in cases.items():
        for mode in ("skip", "merge", "replace"):
            with pytest.raises(PayloadError, match="Invalid payload"):
                run_import(other_db, payload, mode)  # type: ignore[arg-type]
        assert snapshot(other_db) == before, name
    assert ids


def test_a_failure_while_writing_rolls_the_whole_import_back(
    db: Database, other_db: Database
) -> None:
    fill(db)
    document = parse_document(json.dumps(export(db)))
    before = snapshot(other_db)

    def fail_after_the_first(done: int) -> None:
        if done == 2:
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError), other_db.write_session() as session:
        import_document(
            session=session,
            document=document,
            project="shop",
            mode="skip",
            tool="tests",
            progress=fail_after_the_first,
        )
    assert snapshot(other_db) == before
