"""store/search/ keeps no state of its own at module level: what search keeps between calls
(postings, question threads) lives in a SearchService its owner builds and stops. Read from
the source: every module-level value is immutable, and no function rebinds a global."""

import ast
from pathlib import Path
from typing import Final

import pytest

import aletheia_hub.store.search

SEARCH_DIR: Final = Path(aletheia_hub.store.search.__file__).parent

# Calls whose result cannot change after the module is imported.
IMMUTABLE_CALLS: Final = frozenset(
    {
        "MappingProxyType",
        "Reading",  # a frozen dataclass (pg_reading)
        "TypeVar",
        "frozenset",
        "insert",  # a SQLAlchemy statement, copied on every change
        "logging.getLogger",
        "re.compile",
        "text",  # a SQLAlchemy statement
        "timedelta",
    }
)
CACHES: Final = frozenset({"cache", "lru_cache", "functools.cache", "functools.lru_cache"})
# Caches of functions whose result depends on their arguments alone, never on a store.
PURE_CACHES: Final = frozenset(
    {("terms.py", "_stem"), ("postgres_backend.py", "_insert_with_words")}
)


def dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return dotted(node.func)
    return ""


def mutable_part(node: ast.expr) -> ast.expr | None:
    """The first part of a module-level value that could change after import, or None."""
    if isinstance(node, ast.Constant | ast.Name | ast.Attribute | ast.Subscript):
        return None  # constants, other constants, modules, type aliases
    if isinstance(node, ast.JoinedStr):
        return None
    if isinstance(node, ast.Tuple):
        return next((part for part in map(mutable_part, node.elts) if part is not None), None)
    if isinstance(node, ast.BinOp):
        return mutable_part(node.left) or mutable_part(node.right)
    if isinstance(node, ast.UnaryOp):
        return mutable_part(node.operand)
    if isinstance(node, ast.Call) and dotted(node.func) in IMMUTABLE_CALLS:
        # What a frozenset or a mapping proxy is made of is reachable through it alone.
        if dotted(node.func) in {"MappingProxyType", "frozenset"}:
            return None
        parts = [*node.args, *(keyword.value for keyword in node.keywords)]
        return next((part for part in map(mutable_part, parts) if part is not None), None)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        # "...".join(...), "...".format(...): methods of a string make strings.
        if isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
            return None
        if node.func.attr in {"count", "format", "join"} and mutable_part(node.func.value) is None:
            return None
    return node


def problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in tree.body:
        value: ast.expr | None = None
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            value = node.value
        if value is not None:
            part = mutable_part(value)
            if part is not None:
                found.append(f"{path.name}:{node.lineno} holds {ast.unparse(part)[:60]}")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                name = dotted(decorator)
                if name in CACHES and (path.name, node.name) not in PURE_CACHES:
                    found.append(f"{path.name}:{node.lineno} caches {node.name} for the process")
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.append(f"{path.name}:{node.lineno} rebinds {', '.join(node.names)}")
    return found


def test_no_search_module_keeps_state_at_module_level() -> None:
    found = [problem for path in sorted(SEARCH_DIR.glob("*.py")) for problem in problems(path)]
    assert found == [], "\n".join(found)


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("_STORES: dict[str, int] = {}", "holds {}"),
        ("POOL: Final = ThreadPoolExecutor(max_workers=2)", "holds ThreadPoolExecutor"),
        ("LOCK = threading.Lock()", "holds threading.Lock()"),
        ("NAMES: Final = [name for name in 'ab']", "holds [name for name"),
        ("SEEN = (1, set())", "holds set()"),
        ("@lru_cache\ndef frequency(term): ...", "caches frequency"),
        ("def count():\n    global TOTAL\n    TOTAL = 1", "rebinds TOTAL"),
        ("__all__ = ['search']", "holds ['search']"),
    ],
)
def test_the_check_finds_state_in_any_form(tmp_path: Path, source: str, problem: str) -> None:
    path = tmp_path / "module.py"
    path.write_text(source + "\n")
    (found,) = problems(path)
    assert found.split(" ", 1)[1].startswith(problem), found


def test_the_check_lets_constants_through(tmp_path: Path) -> None:
    path = tmp_path / "module.py"
    path.write_text(
        "MIN: Final = 20_000\nWORD: Final = re.compile(r'\\w+')\nT = TypeVar('T')\n"
        "CODES: Final = MappingProxyType({'memory': 0})\nSQL = f'{MIN} rows'\n"
        "STOP: Final = frozenset('a b'.split())\n__all__ = ('search',)\n"
    )
    assert problems(path) == []
