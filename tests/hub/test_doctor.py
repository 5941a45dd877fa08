"""aletheia doctor reports what works and what to fix, against a real hub and store."""

import subprocess
from pathlib import Path

from tests.conftest import BIN, HubProcess, free_port, process_env


def doctor(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "aletheia"), "doctor"], env=env, capture_output=True, text=True, timeout=60
    )


def clean_env(tmp_path: Path) -> dict[str, str]:
    env = process_env()
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    env["HOME"] = str(tmp_path / "home")  # doctor also reads hosts' configs there
    return env


def test_doctor_is_happy_with_a_running_hub_on_its_store(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    hub = HubProcess(env)
    try:
        env["ALETHEIA_PORT"] = str(hub.port)
        done = doctor(env)
    finally:
        hub.stop()
    assert done.returncode == 0, done.stdout
    assert "ok   store: " in done.stdout and "schema current" in done.stdout
    assert f"ok   hub: answering on port {hub.port}" in done.stdout
    assert f"ok   proxy: {BIN / 'aletheia-mcp'}" in done.stdout


def test_doctor_says_how_to_fix_a_missing_hub_and_creates_nothing(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    env["ALETHEIA_PORT"] = str(free_port())
    done = doctor(env)
    assert done.returncode == 1
    assert "FIX  hub: nothing answers on" in done.stdout and "aletheia-server" in done.stdout
    assert "not created yet" in done.stdout
    assert not (tmp_path / "data").exists()


def test_doctor_names_an_unreachable_redis(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    env["ALETHEIA_PORT"] = str(free_port())
    env["ALETHEIA_REDIS_URL"] = f"redis://127.0.0.1:{free_port()}/0"
    done = doctor(env)
    assert "FIX  redis: redis://127.0.0.1:" in done.stdout


def test_doctor_reports_a_hub_on_the_port_that_serves_another_store(tmp_path: Path) -> None:
    env_a = clean_env(tmp_path)
    hub = HubProcess(env_a)
    try:
        env_b = {**env_a, "ALETHEIA_DATA_DIR": str(tmp_path / "b"), "ALETHEIA_PORT": str(hub.port)}
        done = doctor(env_b)
    finally:
        hub.stop()
    assert done.returncode == 1, done.stdout
    a_db, b_db = (tmp_path / "data" / "hub.db").resolve(), (tmp_path / "b" / "hub.db").resolve()
    assert (
        f"FIX  hub: the hub on port {hub.port} serves another store (sqlite {a_db}), "
        f"not this setup's store (sqlite {b_db}); stop that hub, or set ALETHEIA_PORT to a "
        "free port for this store (aletheia-mcp then starts a hub for it there)"
    ) in done.stdout
