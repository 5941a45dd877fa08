"""Commands that only read a store refuse one that does not exist (a mistyped --hub-db, an empty
PostgreSQL schema) in one line, and create nothing. (Commands that write, such as import and
mcp-link create, still make a new store: see test_portable_command and test_tokens.)"""

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from aletheia_hub.cli import main

# Each command that reads a store, with the arguments it needs besides the store.
READ_COMMANDS: dict[str, list[str]] = {
    "export": ["export", "--project", "shop"],
    "audit": ["audit"],
    "mcp-link list": ["mcp-link", "list"],
    "mcp-link revoke": ["mcp-link", "revoke", "tok_1"],
    "rules write": ["rules", "write", "--root", "{root}"],
    "context dry-run": ["context", "dry-run", "--root", "{root}"],
    "backup": ["backup", "{root}/out.bak"],
    "maintain": ["maintain"],
    "reindex": ["reindex"],
}


def run(capsys: pytest.CaptureFixture[str], arguments: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(arguments)
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def tables(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return inspect(connection).get_table_names()
    finally:
        engine.dispose()


@pytest.mark.parametrize("command", READ_COMMANDS)
def test_a_read_command_refuses_a_store_that_does_not_exist(
    command: str, store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    arguments = [word.replace("{root}", str(root)) for word in READ_COMMANDS[command]]
    if store_url.startswith("sqlite"):
        typo = tmp_path / "nowhere" / "typo.db"
        code, out, err = run(capsys, [*arguments, "--hub-db", str(typo)])
        assert err == f"aletheia: no Aletheia store at {typo}\n"
        assert not typo.parent.exists()
    else:
        code, out, err = run(capsys, [*arguments, "--database-url", store_url])
        assert err.startswith("aletheia: no Aletheia store at postgresql+psycopg://")
        assert err.count("\n") == 1
        assert tables(store_url) == []
    assert (code, out) == (1, "")
    assert [path.name for path in root.iterdir()] == []


def test_a_read_command_never_migrates_a_sqlite_file_of_something_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE t(x)")
    connection.commit()
    connection.close()
    code, _out, err = run(capsys, ["export", "--project", "shop", "--hub-db", str(other)])
    assert (code, err) == (1, f"aletheia: no Aletheia store at {other}\n")
    assert tables(f"sqlite:///{other}") == ["t"]
