"""What a package's source imports, read with ast: each import's top module and how it runs.

An import runs at module level, lazily (inside a function, or guarded by `except
ImportError`), or never (under `if TYPE_CHECKING:`).
"""

import ast
import functools
import importlib.metadata
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from packaging.requirements import Requirement

When = Literal["module", "lazy", "typing"]


@dataclass(frozen=True, slots=True)
class Import:
    file: Path
    line: int
    top: str
    when: When


def normalized(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _guards_import_error(handlers: list[ast.ExceptHandler]) -> bool:
    names = {"ImportError", "ModuleNotFoundError"}
    for handler in handlers:
        caught = handler.type
        if isinstance(caught, ast.Name) and caught.id in names:
            return True
        if isinstance(caught, ast.Tuple) and any(
            isinstance(item, ast.Name) and item.id in names for item in caught.elts
        ):
            return True
    return False


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk_body(statements: list[ast.stmt], when: When, file: Path) -> Iterator[Import]:
    yield from _walk(ast.Module(body=statements, type_ignores=[]), when, file)


def _walk(node: ast.AST, when: When, file: Path) -> Iterator[Import]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import):
            for alias in child.names:
                yield Import(file, child.lineno, alias.name.split(".")[0], when)
        elif isinstance(child, ast.ImportFrom):
            if child.level == 0 and child.module:
                yield Import(file, child.lineno, child.module.split(".")[0], when)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _walk(child, "typing" if when == "typing" else "lazy", file)
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            yield from _walk_body(child.body, "typing", file)
            yield from _walk_body(child.orelse, when, file)
        elif isinstance(child, ast.Try) and _guards_import_error(child.handlers):
            yield from _walk_body(child.body, "lazy" if when == "module" else when, file)
            for part in (*child.handlers, *child.orelse, *child.finalbody):
                yield from _walk(part, when, file)
        else:
            yield from _walk(child, when, file)


def imports_of(folder: Path) -> list[Import]:
    """Every absolute import in the .py files below folder."""
    found: list[Import] = []
    for file in sorted(folder.rglob("*.py")):
        if "__pycache__" in file.parts:
            continue
        found.extend(_walk(ast.parse(file.read_text(), str(file)), "module", file))
    return found


def third_party(found: list[Import], own: set[str]) -> list[Import]:
    """The imports that are neither the standard library nor the given top modules."""
    return [item for item in found if item.top not in sys.stdlib_module_names | own]


@functools.cache
def _providers() -> dict[str, list[str]]:
    return dict(importlib.metadata.packages_distributions())


def distributions_of(top: str) -> set[str]:
    """The (normalized) distributions that provide an importable top module."""
    return {normalized(name) for name in _providers().get(top, [])}


@dataclass(frozen=True, slots=True)
class Declared:
    base: set[str]
    extras: dict[str, set[str]]


def declared(distribution: str) -> Declared:
    """What a distribution's metadata requires, without and with each extra."""
    base: set[str] = set()
    extras: dict[str, set[str]] = {}
    for line in importlib.metadata.requires(distribution) or []:
        requirement = Requirement(line)
        marker = str(requirement.marker or "")
        extra = re.search(r'extra == "([^"]+)"', marker)
        if extra is None:
            base.add(normalized(requirement.name))
        else:
            extras.setdefault(extra.group(1), set()).add(normalized(requirement.name))
    return Declared(base, extras)
