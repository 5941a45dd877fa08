"""The machine's runtime folder of hubs: where it is, what an entry holds, and which entries a
reader keeps."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from aletheia_hub.running_hubs import (
    RuntimeEntry,
    RuntimeEntryFile,
    entry_for,
    live_entries,
    runtime_folder,
)
from aletheia_hub.settings import Settings
from aletheia_shared import __version__


def an_entry(pid: int, port: int, process_start: str | None) -> RuntimeEntry:
    return {
        "pid": pid,
        "port": port,
        "host": "127.0.0.1",
        "scheme": "http",
        "kind": "sqlite",
        "location": "/x/hub.db",
        "team": False,
        "data_dir": "/x",
        "started_by": "user",
        "version": __version__,
        "process_start": process_start,
    }


def test_the_runtime_folder_is_under_xdg_runtime_dir_else_under_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert runtime_folder({"XDG_RUNTIME_DIR": str(tmp_path / "run")}) == (
        tmp_path / "run" / "aletheia" / "hubs"
    )
    assert runtime_folder({"XDG_RUNTIME_DIR": ""}) == (
        tmp_path / "home" / ".aletheia" / "run" / "hubs"
    )


def test_an_entry_names_the_store_and_never_its_password(tmp_path: Path) -> None:
    url = "postgresql://aletheia:s3cret-word@db.internal:6543/memory?options=-csearch_path%3Dteam"
    settings = Settings(database_url=url, data_dir=tmp_path, team_mode=True, port=7793)
    entry = entry_for(settings, 7793)
    text = RuntimeEntryFile(tmp_path, entry).text
    assert "s3cret-word" not in text and "aletheia:" not in text
    assert (entry["kind"], entry["location"], entry["team"], entry["scheme"]) == (
        "postgresql",
        "db.internal:6543/memory?search_path=team",
        True,
        "http",
    )
    assert (entry["pid"], entry["port"], entry["data_dir"]) == (
        os.getpid(),
        7793,
        str(tmp_path.resolve()),
    )


def test_a_reader_keeps_the_entry_of_a_running_hub_and_removes_one_whose_process_is_gone(
    tmp_path: Path,
) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait(timeout=30)
    mine = RuntimeEntryFile(tmp_path, entry_for(Settings(data_dir=tmp_path), 7411))
    mine.write()
    dead = RuntimeEntryFile(tmp_path, an_entry(gone.pid, 7412, None))
    dead.write()
    assert [item.entry["pid"] for item in live_entries(tmp_path)] == [os.getpid()]
    assert sorted(path.name for path in tmp_path.iterdir()) == [f"{os.getpid()}.json"]


def test_a_reader_removes_an_entry_whose_pid_now_names_a_process_started_at_another_time(
    tmp_path: Path,
) -> None:
    reused = RuntimeEntryFile(tmp_path, an_entry(os.getpid(), 7411, "another-boot:12345"))
    reused.write()
    assert live_entries(tmp_path) == []
    assert list(tmp_path.iterdir()) == []


def test_a_reader_skips_a_file_that_is_no_entry(tmp_path: Path) -> None:
    (tmp_path / "1.json").write_text(json.dumps({"pid": 1}))
    assert live_entries(tmp_path) == []
