"""A memory keeps the git commit, branch and file blobs it was saved with; a revision keeps
them unless it brings new ones; on SQLite and PostgreSQL alike."""

import json

import pytest

from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import CodeState, MemoryRecord, get_memories, save_memory
from aletheia_hub.store.portable import (
    PayloadError,
    build_document,
    dump_document,
    import_document,
    parse_document,
)
from aletheia_hub.store.portable.document import GIT_FIELDS
from aletheia_hub.store.revisions import RevisionChange, revise_memory

COMMIT = "1" * 40
LATER = "2" * 40
BLOB = "a" * 40
NEW_BLOB = "b" * 40


def save(store_db: Database, text: str, files: list[str], code: CodeState | None) -> int:
    with store_db.write_session() as session:
        saved = save_memory(
            session=session,
            project="shop",
            text=text,
            title=None,
            type="note",
            kind="note",
            tool="test",
            pinned=False,
            files=files,
            code=code,
        )
    return saved.id


def read(store_db: Database, memory_id: int) -> MemoryRecord:
    with store_db.read_session() as session:
        [record] = get_memories(session=session, ids=[memory_id])
    return record


def revise(store_db: Database, memory_id: int, change: RevisionChange) -> int:
    with store_db.write_session() as session:
        return revise_memory(
            session=session, memory_id=memory_id, change=change, tool="test", session_id=None
        ).new_id


def test_a_save_keeps_commit_branch_and_blobs_and_adds_cited_files(store_db: Database) -> None:
    code = CodeState(COMMIT, "feature-x", (("src/up.py", BLOB), ("src/cited.py", NEW_BLOB)))
    memory_id = save(store_db, "up.py retries twice", ["src/up.py", "README"], code)
    record = read(store_db, memory_id)
    assert (record.git_commit, record.git_branch) == (COMMIT, "feature-x")
    assert record.files == ("README", "src/cited.py", "src/up.py")
    assert record.file_blobs == (
        ("README", None),
        ("src/cited.py", NEW_BLOB),
        ("src/up.py", BLOB),
    )


def test_a_save_outside_git_keeps_nothing_of_git(store_db: Database) -> None:
    record = read(store_db, save(store_db, "no checkout here", ["a.py"], None))
    assert (record.git_commit, record.git_branch, record.file_blobs) == (
        None,
        None,
        (("a.py", None),),
    )


def test_malformed_ids_are_dropped_and_a_secret_in_a_branch_is_redacted(
    store_db: Database,
) -> None:
    secret = "ghp_" + "x1Y2z3" * 6
    code = CodeState("not-a-commit", f"fix/{secret}", (("a.py", "zz"), ("b.py", BLOB)))
    record = read(store_db, save(store_db, "odd checkout", [], code))
    assert record.git_commit is None
    assert record.git_branch is not None
    assert secret not in record.git_branch
    assert record.file_blobs == (("b.py", BLOB),)


def test_a_revision_keeps_the_saved_state_unless_it_reads_new_blobs(store_db: Database) -> None:
    first = save(
        store_db, "up.py retries", ["src/up.py", "src/down.py"],
        CodeState(COMMIT, "main", (("src/up.py", BLOB), ("src/down.py", BLOB))),
    )  # fmt: skip
    retitled = revise(store_db, first, RevisionChange(title="Retries", code=CodeState(LATER)))
    record = read(store_db, retitled)
    assert (record.git_commit, record.git_branch) == (COMMIT, "main")
    assert record.file_blobs == (("src/down.py", BLOB), ("src/up.py", BLOB))
    reread = revise(
        store_db,
        retitled,
        RevisionChange(
            text="up.py retries three times",
            files=["src/up.py"],
            code=CodeState(LATER, "feature-x", (("src/up.py", NEW_BLOB),)),
        ),
    )
    record = read(store_db, reread)
    assert (record.git_commit, record.git_branch) == (LATER, "feature-x")
    assert record.file_blobs == (("src/up.py", NEW_BLOB),)


def test_export_and_import_carry_the_git_state_and_omit_it_where_there_is_none(
    store_db: Database,
) -> None:
    code = CodeState(COMMIT, "feature-x", (("src/up.py", BLOB),))
    with_git = save(store_db, "up.py retries", ["src/up.py", "README"], code)
    save(store_db, "no checkout", [], None)
    with store_db.read_session() as session:
        dumped = dump_document(build_document(session=session, project="shop"))
    observations = {o["narrative"]: o for o in json.loads(dumped)["observations"]}
    assert "gitCommit" not in observations["no checkout"]
    assert "fileBlobs" not in observations["no checkout"]
    assert {key: observations["up.py retries"][key] for key in GIT_FIELDS} == {
        "gitCommit": COMMIT,
        "gitBranch": "feature-x",
        "fileBlobs": {"src/up.py": BLOB},
    }
    with store_db.write_session() as session:
        import_document(
            session=session,
            document=parse_document(dumped),
            mode="skip",
            project="copy",
            tool="test",
        )
    with store_db.read_session() as session:
        [copied] = [
            record
            for record in get_memories(session=session, ids=range(with_git, with_git + 10))
            if record.project == "copy" and record.text == "up.py retries"
        ]
    assert (copied.git_commit, copied.git_branch) == (COMMIT, "feature-x")
    assert copied.file_blobs == (("README", None), ("src/up.py", BLOB))


def test_an_import_refuses_a_malformed_blob() -> None:
    document = {
        "format": "aletheia-export",
        "version": 1,
        "exportedAt": "2026-12-01",
        "project": "shop",
        "observations": [
            {"id": "obs-1", "title": "t", "narrative": "n", "createdAtMs": 1,
             "fileBlobs": {"a.py": "not-a-blob"}}
        ],
    }  # fmt: skip
    with pytest.raises(PayloadError, match=r"observations\.0\.fileBlobs"):
        parse_document(json.dumps(document))
