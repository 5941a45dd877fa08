"""compose.yaml fits the Compose specification (check-jsonschema's vendored compose-spec schema)
and runs the hub from the image the Dockerfile builds, installing nothing at start."""

import importlib.metadata
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any, Final

import yaml

from tests.conftest import BIN

ROOT: Final = Path(__file__).resolve().parents[1]
COMPOSE: Final = ROOT / "compose.yaml"


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_compose_yaml_fits_the_compose_specification() -> None:
    done = validate(COMPOSE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_validator_refuses_a_service_key_the_specification_lacks(tmp_path: Path) -> None:
    broken = tmp_path / "compose.yaml"
    broken.write_text(
        COMPOSE.read_text().replace("  hub:\n", "  hub:\n    restart_policy: always\n")
    )
    done = validate(broken)
    assert done.returncode != 0
    assert "restart_policy" in done.stdout + done.stderr


def test_the_hub_service_runs_the_built_image_on_postgresql_and_redis() -> None:
    services: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())["services"]
    hub = services["hub"]
    assert hub["build"] == "."
    assert hub["command"][:2] == ["aletheia-sync", "--database-url"]
    assert hub["command"][2].startswith("postgresql://") and "@postgres:" in hub["command"][2]
    assert hub["environment"]["ALETHEIA_REDIS_URL"].startswith("redis://redis:")
    assert {"postgres", "redis"} <= set(hub["depends_on"])
    assert "pip" not in COMPOSE.read_text()


def compose_problems(text: str) -> list[str]:
    """Commands, options and ALETHEIA_* variables the compose file names that the installed
    packages do not have."""
    from aletheia_hub.settings import Settings
    from aletheia_shared import env

    scripts = {
        entry.name
        for name in ("aletheia-memhub", "aletheia-memhub-proxy")
        for entry in importlib.metadata.distribution(name).entry_points
        if entry.group == "console_scripts"
    }
    known_vars = {f"ALETHEIA_{field.upper()}" for field in Settings.model_fields} | {
        value for value in vars(env).values() if isinstance(value, str) and value.isupper()
    }
    document: dict[str, Any] = yaml.safe_load(text)
    commands = [
        service["command"]
        for service in document["services"].values()
        if service.get("command") and str(service["command"][0]).startswith("aletheia")
    ]
    commands += [
        shlex.split(line.split("docker compose exec hub ", 1)[1])
        for line in text.splitlines()
        if "docker compose exec hub " in line
    ]
    problems = []
    for command in commands:
        if command[0] not in scripts:
            problems.append(f"{command[0]} is not an installed command")
            continue
        words = [word for word in command[1:] if not word.startswith("-")][:2]
        subcommand = [w for w in words if not any(c in w for c in "/:@")]
        helped = subprocess.run(
            [str(BIN / command[0]), *subcommand, "--help"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        for option in (word.split("=")[0] for word in command[1:] if word.startswith("--")):
            if not re.search(rf"{re.escape(option)}(?![\w-])", helped.stdout):
                problems.append(f"{' '.join(command[:1] + subcommand)} takes no {option}")
    for service in document["services"].values():
        for name in service.get("environment", {}):
            if name.startswith("ALETHEIA_") and name not in known_vars:
                problems.append(f"{name} is read by no package")
    return problems


def test_every_command_option_and_variable_in_compose_exists_in_the_packages() -> None:
    assert compose_problems(COMPOSE.read_text()) == []


def test_a_misspelt_variable_or_option_in_compose_is_reported() -> None:
    text = (
        COMPOSE.read_text()
        .replace("ALETHEIA_REDIS_URL", "ALETHEIA_REDIS_ULR")
        .replace('"--database-url"', '"--database"')
    )
    assert compose_problems(text) == [
        "aletheia-sync takes no --database",
        "ALETHEIA_REDIS_ULR is read by no package",
    ]


def test_the_hub_waits_for_healthy_postgresql_and_redis_and_has_its_own_health_check() -> None:
    services: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())["services"]
    assert {name: dep["condition"] for name, dep in services["hub"]["depends_on"].items()} == {
        "postgres": "service_healthy",
        "redis": "service_healthy",
    }
    assert all("healthcheck" in services[name] for name in ("postgres", "redis", "hub"))
    assert "/readyz" in " ".join(services["hub"]["healthcheck"]["test"])
