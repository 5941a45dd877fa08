"""Code outside store/search/ uses search through its surface alone: the names the package
lists in __all__, imported from the package itself. Who may see what is store/scope.py's,
and search imports it like everyone else."""

import ast
import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import aletheia_hub
import aletheia_hub.store.search as search_package

PACKAGE: Final = "aletheia_hub.store.search"
HUB_DIR: Final = Path(aletheia_hub.__file__).parent
SEARCH_DIR: Final = Path(search_package.__file__).parent


def reaching_inside(source: str, name: str) -> Iterator[str]:
    """Each import of a module's source that reaches past the search package's surface;
    function-level and TYPE_CHECKING imports count too."""
    for node in ast.walk(ast.parse(source, filename=name)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    yield f"{name}:{node.lineno} imports {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith(PACKAGE + "."):
                yield f"{name}:{node.lineno} imports {node.module}"
            elif node.module == PACKAGE:
                for alias in node.names:
                    if alias.name not in search_package.__all__:
                        yield f"{name}:{node.lineno} imports {alias.name}, which is not in __all__"


def outside_files() -> list[Path]:
    return [path for path in sorted(HUB_DIR.rglob("*.py")) if SEARCH_DIR not in path.parents]


def test_nothing_outside_search_imports_its_insides() -> None:
    found = [
        problem
        for path in outside_files()
        for problem in reaching_inside(path.read_text(), str(path.relative_to(HUB_DIR)))
    ]
    assert found == [], "\n".join(found)


def test_the_check_reads_every_kind_of_import() -> None:
    sources = {
        "from aletheia_hub.store.search.engine import search": "imports aletheia_hub.store.search",
        "import aletheia_hub.store.search.hybrid": "imports aletheia_hub.store.search.hybrid",
        "from aletheia_hub.store.search import engine": "imports engine, which is not in",
        "def f():\n    from aletheia_hub.store.search.model import SearchQuery": "model",
    }
    for source, problem in sources.items():
        (found,) = list(reaching_inside(source, "probe.py"))
        assert problem in found, found
    surface = "from aletheia_hub.store.search import SearchQuery, SearchService"
    assert list(reaching_inside(surface, "probe.py")) == []


def test_every_name_of_the_surface_is_what_it_names() -> None:
    for name in search_package.__all__:
        value = getattr(search_package, name)
        assert not inspect.ismodule(value), name  # a submodule of that name would shadow it


def test_search_takes_scope_from_the_scope_room() -> None:
    filters = (SEARCH_DIR / "filters.py").read_text()
    assert "from aletheia_hub.store.scope import" in filters
    assert not any(
        "USER_SCOPE: Final" in path.read_text() or "def scope_filter" in path.read_text()
        for path in SEARCH_DIR.glob("*.py")
    )
