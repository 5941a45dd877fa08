"""compose.yaml fits the Compose specification (check-jsonschema's vendored compose-spec schema)
and runs the hub from the image the Dockerfile builds, installing nothing at start."""

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
