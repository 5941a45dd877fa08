"""Every migration holds what it runs: none imports live hub code, so changing a store function
or a schema constant later never changes what an old migration does to a store."""

import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from aletheia_hub.store.migrate import MIGRATIONS_DIR

MIGRATIONS_PACKAGE: Final = "aletheia_hub.store.migrations"
# Besides the standard library: alembic and SQLAlchemy run the migrations, and numpy turns the
# stored vector bytes around in 0009 (its byte order and float checks are not ours to change).
ALLOWED_LIBRARIES: Final = frozenset({"alembic", "sqlalchemy", "numpy"})


def imported_modules(source: str) -> Iterator[tuple[str, int]]:
    """Every module an import names, with its line, wherever the import is (a function's
    body too). Migrations import absolutely; a relative import is reported as written."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            yield "." * node.level + (node.module or ""), node.lineno


def foreign_imports(source: str) -> list[str]:
    """The imports of `source` that reach beyond the migrations, the libraries that run them and
    the standard library, as `line: module`."""
    found = []
    for module, line in imported_modules(source):
        top = module.split(".")[0]
        if module == MIGRATIONS_PACKAGE or module.startswith(MIGRATIONS_PACKAGE + "."):
            continue
        if top in ALLOWED_LIBRARIES or top in sys.stdlib_module_names or top == "__future__":
            continue
        found.append(f"{line}: {module}")
    return found


def migration_sources() -> list[Path]:
    return sorted(MIGRATIONS_DIR.rglob("*.py"))


def test_the_migrations_are_read_from_their_folder() -> None:
    names = {path.name for path in migration_sources()}
    assert {"env.py", "m0001_initial_schema.py", "m0009_pgvector.py"} <= names
    assert sum(name.startswith("m0") for name in names) >= 16


def test_no_migration_imports_live_hub_code() -> None:
    violations = [
        f"{path.relative_to(MIGRATIONS_DIR)}:{found}"
        for path in migration_sources()
        for found in foreign_imports(path.read_text())
    ]
    assert violations == [], "copy what these use into the migration:\n" + "\n".join(violations)


def test_an_import_of_live_code_is_reported_wherever_it_is() -> None:
    source = (
        "import json\n"
        "import sqlalchemy as sa\n"
        "from alembic import op\n"
        "from aletheia_hub.store.migrations.versions import m0001_initial_schema\n"
        "from aletheia_hub.store.pgvector import enable_vectors\n"
        "def upgrade() -> None:\n"
        "    from aletheia_hub.store import extensions\n"
        "    import aletheia_shared\n"
        "    from ..models import Memory\n"
    )
    assert foreign_imports(source) == [
        "5: aletheia_hub.store.pgvector",
        "7: aletheia_hub.store",
        "8: aletheia_shared",
        "9: ..models",
    ]
