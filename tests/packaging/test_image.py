"""What the image is built from and which store its commands use, read from the Dockerfile and
.dockerignore as Docker reads them (CI has no Docker engine: test_wheel_install.py runs the
image's commands from the built wheels)."""

import argparse
import os
import subprocess
from pathlib import Path
from typing import Final

import pytest

from aletheia_hub.commands.store_access import store_url
from aletheia_hub.settings import Settings
from aletheia_shared import env
from aletheia_shared.store import environment_database_url, store_location
from tests.packaging.build_context import context_files, is_left_out, read_patterns
from tests.packaging.dockerfile import DOCKERFILE, copied_sources, final_stage, instructions

ROOT: Final = DOCKERFILE.parent
IGNORED: Final = read_patterns((ROOT / ".dockerignore").read_text())
STAGE: Final = final_stage(DOCKERFILE.read_text())
LEFT_OUT: Final = (
    ".venv/bin/python",
    ".venv/lib/python3.11/site-packages/numpy/__init__.py",
    ".git/HEAD",
    "build/lib/aletheia_hub/app.py",
    "services/hub/build/lib/aletheia_hub/stale_mod.py",
    "shared/dist/aletheia_memhub_shared-0.1.0-py3-none-any.whl",
    "dist/wheels/aletheia_memhub-0.1.0-py3-none-any.whl",
    "services/hub/aletheia_memhub.egg-info/PKG-INFO",
    "services/hub/aletheia_hub/__pycache__/app.cpython-311.pyc",
    "services/stdio-proxy/aletheia_proxy/cli.pyc",
    ".pytest_cache/v/cache/nodeids",
    ".mypy_cache/3.11/aletheia_hub/app.meta.json",
    ".ruff_cache/0.6.0/123",
    ".hypothesis/examples/abc",
    ".cache/judges/node_modules/x/index.js",
    "test-artifacts/trace.zip",
    "team.db",
    "data/hub.db-wal",
    "shared/hub.db-shm",
)
KEPT: Final = (
    "Dockerfile",
    "requirements-hub.lock",
    "tools/install_user.py",
    "shared/pyproject.toml",
    "shared/aletheia_shared/env.py",
    "services/stdio-proxy/aletheia_proxy/cli.py",
    "services/hub/aletheia_hub/app.py",
    "services/hub/aletheia_hub/embed/tokenizer/vocab.txt",
    "services/hub/aletheia_hub/store/migrations/versions/0001_initial.py",
    "docs/install.md",
)


def test_the_build_context_leaves_out_venvs_git_build_leftovers_caches_and_stores(
    tmp_path: Path,
) -> None:
    for name in (*LEFT_OUT, *KEPT):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    assert context_files(tmp_path, IGNORED) == set(KEPT)


def tracked(source: str) -> set[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--", source],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return {line for line in listed.stdout.splitlines() if (ROOT / line).exists()}


def test_the_build_context_holds_what_the_dockerfile_copies_and_none_of_the_leftovers() -> None:
    sent = context_files(ROOT, IGNORED)
    sources = copied_sources(DOCKERFILE.read_text())
    assert "tools/install_user.py" in sources
    for source in sources:
        files = tracked(source)
        assert files, f"COPY {source}: no such file in the checkout"
        assert files <= sent, f"COPY {source}: left out of the context: {sorted(files - sent)}"
    leftovers = {"build", "dist", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
    for path in sent:
        parts = path.split("/")
        assert parts[0] not in (".venv", ".git", ".cache"), path
        assert not set(parts) & leftovers and ".egg-info" not in path, path
        assert not path.endswith((".pyc", ".db", ".db-wal", ".db-shm")), path


@pytest.mark.parametrize(
    ("patterns", "left_out", "kept"),
    [
        # Docker's own examples (the .dockerignore file, in the build reference)
        (
            "# comment\n*/temp*\n*/*/temp*\ntemp?\n",
            [
                "somedir/temporary.txt",
                "somedir/temp",
                "somedir/temp/x",
                "a/b/temporary.txt",
                "tempa",
            ],
            ["temporary.txt", "a/b/c/temp", "README.md"],
        ),
        ("*.md\n!README*.md\nREADME-secret.md\n", ["notes.md", "README-secret.md"], ["README.md"]),
        ("**/*.go\n", ["a.go", "x/y/z.go"], ["a.golang", "x/go"]),
        # a leading slash is the context's root; `**/` also matches no folder at all
        ("/build\n", ["build/lib/x.py"], ["a/build/x.py"]),
        ("**/build\n", ["build/x.py", "a/b/build/lib/x.py"], ["rebuild/x.py", "a/build.py"]),
    ],
)
def test_patterns_leave_out_what_docker_leaves_out(
    patterns: str, left_out: list[str], kept: list[str]
) -> None:
    read = read_patterns(patterns)
    assert [path for path in left_out if not is_left_out(path, read)] == []
    assert [path for path in kept if is_left_out(path, read)] == []


def test_the_image_builds_the_wheels_from_copies_without_build_leftovers() -> None:
    # tools/install_user.py --wheel-dir copies the package folders without build leftovers
    # first (test_install_user.py builds a wheel so from a folder holding a stale build/lib).
    runs = [arguments for kind, arguments in instructions(DOCKERFILE.read_text()) if kind == "RUN"]
    builds = [run for run in runs if "tools/install_user.py" in run]
    assert builds == ["python tools/install_user.py --wheel-dir /wheels"]
    assert not any("pip wheel" in run and "services" in run for run in runs)


def image_stores(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The store each command in the image resolves under the image's ENV (and its CMD's
    flags), as the code resolves it."""
    for name in [name for name in os.environ if name.startswith("ALETHEIA_")]:
        monkeypatch.delenv(name)
    for name, value in STAGE.env.items():
        monkeypatch.setenv(name, value)
    program, *args = STAGE.cmd
    assert program == "aletheia-sync"
    served = dict(zip(args[::2], args[1::2], strict=True))
    cmd = Settings(hub_db=served.get("--hub-db"), database_url=served.get("--database-url"))
    no_flags = argparse.Namespace(hub_db=None, database_url=None)
    urls = {
        "CMD": cmd.resolved_database_url(),
        "aletheia (mcp-link, export, backup, ...)": store_url(no_flags),
        "aletheia-server": Settings().resolved_database_url(),
        "aletheia-mcp and hooks": environment_database_url(STAGE.env),
    }
    return {who: str(store_location(url)) for who, url in urls.items()}


def test_every_command_in_the_image_uses_the_store_its_cmd_serves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stores = image_stores(monkeypatch)
    assert set(stores.values()) == {"sqlite /data/team.db"}, stores
    assert STAGE.env[env.DATA_DIR] == "/data"
