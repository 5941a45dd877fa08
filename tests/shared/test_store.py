"""Hub and proxy name the store a configuration points at the same way, without credentials."""

from pathlib import Path

import pytest

from aletheia_hub.settings import Settings
from aletheia_proxy.config import load_config
from aletheia_shared.store import (
    StoreLocation,
    parse_record,
    record_path,
    record_text,
    served_store,
    store_location,
)

PG = "postgresql://aletheia:s3cret@db.example:6543/memory?options=-csearch_path%3Dteam"


def environments(tmp_path: Path) -> dict[str, dict[str, str]]:
    data = str(tmp_path / "data")
    return {
        "data-dir": {"ALETHEIA_DATA_DIR": data},
        "relative-data-dir": {"ALETHEIA_DATA_DIR": "data"},
        "hub-db-wins-over-data-dir": {
            "ALETHEIA_DATA_DIR": data,
            "ALETHEIA_HUB_DB": str(tmp_path / "b" / "x.db"),
        },
        "database-url-wins-over-both": {
            "ALETHEIA_DATA_DIR": data,
            "ALETHEIA_HUB_DB": str(tmp_path / "b" / "x.db"),
            "ALETHEIA_DATABASE_URL": PG,
        },
        "empty-values-count-as-unset": {
            "ALETHEIA_DATA_DIR": data,
            "ALETHEIA_HUB_DB": "",
            "ALETHEIA_DATABASE_URL": "",
        },
        "sqlite-database-url": {"ALETHEIA_DATABASE_URL": f"sqlite:///{tmp_path / 'c.db'}"},
    }


@pytest.mark.parametrize(
    "case",
    [
        "data-dir",
        "relative-data-dir",
        "hub-db-wins-over-data-dir",
        "database-url-wins-over-both",
        "empty-values-count-as-unset",
        "sqlite-database-url",
    ],
)
def test_the_proxy_names_the_store_the_hub_settings_resolve(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    environ = environments(tmp_path)[case]
    for key in ("ALETHEIA_DATA_DIR", "ALETHEIA_HUB_DB", "ALETHEIA_DATABASE_URL"):
        monkeypatch.delenv(key, raising=False)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    config = load_config(environ)
    settings = Settings()
    assert config.store == settings.served_store()
    assert record_path(config.store, config.data_dir) == settings.hub_record_path()


def test_the_default_store_is_hub_db_in_the_data_dir_and_records_itself_in_hub_json(
    tmp_path: Path,
) -> None:
    config = load_config({"ALETHEIA_DATA_DIR": str(tmp_path)})
    assert config.store == StoreLocation("sqlite", str(tmp_path.resolve() / "hub.db"))
    assert record_path(config.store, config.data_dir) == tmp_path.resolve() / "hub.json"


def test_other_stores_in_one_data_dir_get_records_of_their_own(tmp_path: Path) -> None:
    stores = [
        store_location(f"sqlite:///{tmp_path / 'hub.db'}"),
        store_location(f"sqlite:///{tmp_path / 'other.db'}"),
        store_location(PG),
        store_location(PG.replace("team", "ops")),
    ]
    paths = {record_path(store, tmp_path) for store in stores}
    assert len(paths) == 4
    assert all(path.parent == tmp_path and path.suffix == ".json" for path in paths)


def test_a_postgresql_location_names_host_port_database_and_search_path_never_the_password() -> (
    None
):
    location = store_location(PG)
    assert location == StoreLocation("postgresql", "db.example:6543/memory?search_path=team")
    assert "s3cret" not in str(location) and "aletheia" not in str(location)
    plain = store_location("postgresql+psycopg://u@127.0.0.1/test")
    assert plain == StoreLocation("postgresql", "127.0.0.1:5432/test")


def test_the_proxy_hands_a_hub_it_starts_absolute_store_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config({"ALETHEIA_DATA_DIR": "data", "ALETHEIA_HUB_DB": "b/x.db"})
    assert config.hub_environment["ALETHEIA_DATA_DIR"] == str(tmp_path.resolve() / "data")
    assert config.hub_environment["ALETHEIA_HUB_DB"] == str(tmp_path.resolve() / "b" / "x.db")


def test_a_record_reads_back_and_anything_else_is_no_record() -> None:
    store = StoreLocation("sqlite", "/data/hub.db")
    record = parse_record(record_text(pid=42, port=7411, store=store))
    assert record == {"pid": 42, "port": 7411, "kind": "sqlite", "location": "/data/hub.db"}
    for text in ("", "{", "[]", '{"pid": "42", "port": 7411}', "42\n"):
        assert parse_record(text) is None


def test_a_health_answer_without_a_store_names_none() -> None:
    assert served_store({"status": "ok"}) is None
    answer = {"store": {"id": "ab", "kind": "sqlite", "location": "/x.db"}}
    assert served_store(answer) == StoreLocation("sqlite", "/x.db")
