"""aletheia export and aletheia import on SQLite and PostgreSQL."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia_hub.cli import main
from aletheia_hub.store import memories
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from tests.conftest import fresh_postgres_schema


@pytest.fixture
def second_url(store_url: str, tmp_path: Path) -> Iterator[str]:
    if store_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'second.db'}"
        return
    with fresh_postgres_schema() as url:
        yield url


def save_many(url: str, count: int, project: str = "shop") -> None:
    db = Database(url)
    try:
        upgrade_to_head(db.engine)
        with db.write_session() as session:
            for index in range(count):
                memories.save_memory(
                    session=session,
                    project=project,
                    text=f"Memory number {index}.",
                    title=None,
                    type="note" if index % 2 else "decision",
                    kind="note",
                    tool="tests",
                    pinned=False,
                )
    finally:
        db.dispose()


def run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(list(arguments))
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def test_export_to_a_file_and_import_into_another_store_and_project(
    store_url: str, second_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_many(store_url, 3)
    out_file = tmp_path / "shop.json"
    code, out, err = run(
        capsys, "export", "--project", "shop", "-o", str(out_file), "--database-url", store_url
    )
    assert (code, out) == (0, "")
    assert err == f"Exported 3 observation(s) of shop to {out_file}.\n"
    document = json.loads(out_file.read_text())
    assert document["project"] == "shop" and len(document["observations"]) == 3

    code, out, err = run(
        capsys, "import", str(out_file), "--project", "copy", "--database-url", second_url
    )
    assert (code, out, err) == (
        0,
        "Imported into copy (mode skip): 3 added, 0 merged, 0 skipped, 0 replaced.\n",
        "",
    )
    code, out, _ = run(
        capsys, "export", "--project", "copy", "--type", "decision", "--database-url", second_url
    )
    copied = json.loads(out)
    assert [o["narrative"] for o in copied["observations"]] == [
        "Memory number 0.",
        "Memory number 2.",
    ]
    assert copied["filter"] == {"type": "decision", "limit": None}


def test_a_large_import_shows_a_progress_bar(
    store_url: str, second_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_many(store_url, 210)
    out_file = tmp_path / "big.json"
    run(capsys, "export", "--project", "shop", "-o", str(out_file), "--database-url", store_url)
    code, out, err = run(
        capsys, "import", str(out_file), "--mode", "merge", "--database-url", second_url
    )
    assert code == 0
    assert out == "Imported into shop (mode merge): 210 added, 0 merged, 0 skipped, 0 replaced.\n"
    assert err.startswith("\rimporting [")
    assert err.endswith(f"\rimporting [{'#' * 30}] 210/210\n")


def test_a_malformed_file_is_refused_and_nothing_is_written(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_many(store_url, 2)
    good = tmp_path / "good.json"
    run(capsys, "export", "--project", "shop", "-o", str(good), "--database-url", store_url)
    document = json.loads(good.read_text())
    document["observations"][1]["revisionOf"] = document["observations"][1]["id"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    code, out, err = run(
        capsys, "import", str(bad), "--project", "other", "--database-url", store_url
    )
    assert (code, out) == (1, "")
    assert err.startswith("aletheia: import: Invalid payload: revisionOf makes a cycle")
    assert err.endswith("Nothing was written.\n")
    code, out, _ = run(capsys, "export", "--project", "other", "--database-url", store_url)
    assert json.loads(out)["observations"] == []


def test_an_import_whose_observation_is_all_private_is_refused_and_nothing_is_written(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_many(store_url, 2)
    path = tmp_path / "private.json"
    run(capsys, "export", "--project", "shop", "-o", str(path), "--database-url", store_url)
    document = json.loads(path.read_text())
    document["observations"][1]["narrative"] = "<private reason='hr'>AllPrivImport</private>"
    path.write_text(json.dumps(document))
    code, out, err = run(
        capsys, "import", str(path), "--project", "other", "--database-url", store_url
    )
    assert (code, out) == (1, "")
    assert err == (
        "aletheia: import: Nothing saved: all of the text is inside <private> tags. "
        "Nothing was written.\n"
    )
    code, out, _ = run(capsys, "export", "--project", "other", "--database-url", store_url)
    assert json.loads(out)["observations"] == []


def test_aletheia_import_gives_an_id_at_the_columns_end_a_new_one_and_refuses_one_past_it(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_many(store_url, 1, project="billing")
    edge, past = tmp_path / "edge.json", tmp_path / "past.json"
    for path, number in ((edge, 2**31 - 1), (past, 2**31)):
        observation = {"id": f"obs-{number}", "title": "Edge", "narrative": "At the edge."}
        document = {"format": "aletheia-export", "version": 1, "exportedAt": "2026-12-01"}
        path.write_text(
            json.dumps(
                {**document, "project": "shop", "observations": [{**observation, "createdAtMs": 1}]}
            )
        )
    code, out, _ = run(capsys, "import", str(edge), "--database-url", store_url)
    assert (code, out) == (
        0,
        "Imported into shop (mode skip): 1 added, 0 merged, 0 skipped, 0 replaced.\n",
    )
    code, out, err = run(capsys, "import", str(past), "--database-url", store_url)
    assert (code, out) == (1, "")
    assert err == (
        "aletheia: import: Invalid payload: observations.0.id: obs-2147483648 is out of range: "
        "observation ids run from obs-1 to obs-2147483647. Nothing was written.\n"
    )
    save_many(store_url, 2, project="billing")  # the first is held: the second is new
    code, out, _ = run(capsys, "export", "--project", "shop", "--database-url", store_url)
    assert [o["id"] for o in json.loads(out)["observations"]] == ["obs-2"]
    code, out, _ = run(capsys, "export", "--project", "billing", "--database-url", store_url)
    assert [o["id"] for o in json.loads(out)["observations"]] == ["obs-1", "obs-3"]


def test_export_and_import_take_the_project_as_they_are_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'hub.db'}"
    save_many(url, 2)
    out_file = tmp_path / "shop.json"
    code, out, err = run(capsys, "export", "shop", "-o", str(out_file), "--database-url", url)
    assert (code, out, err) == (0, "", f"Exported 2 observation(s) of shop to {out_file}.\n")
    code, out, _ = run(capsys, "import", str(out_file), "copy", "--database-url", url)
    assert (code, out) == (
        0,
        "Imported into copy (mode skip): 2 added, 0 merged, 0 skipped, 0 replaced.\n",
    )
    code, out, _ = run(capsys, "export", "--project", "copy", "copy", "--database-url", url)
    assert code == 0 and len(json.loads(out)["observations"]) == 2  # the same name twice: fine


@pytest.mark.parametrize(
    "arguments",
    [
        ("export", "shop", "--project", "cafe"),
        ("export", "--project", "cafe", "shop"),
        ("import", "shop.json", "shop", "--project", "cafe"),
    ],
)
def test_a_project_typed_and_a_different_project_option_are_refused(
    arguments: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *arguments, "--hub-db", str(tmp_path / "hub.db"))
    assert (code, out) == (2, "")
    assert err.endswith(
        f"aletheia {arguments[0]}: error: PROJECT shop and --project cafe name two projects: "
        "name one\n"
    )
    assert not (tmp_path / "hub.db").exists()
