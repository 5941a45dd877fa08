"""The hub's layers, read from every module's imports: http -> mcp -> auth, embed -> store."""

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import aletheia_hub

PACKAGE: Final = "aletheia_hub"
ROOT: Final = Path(aletheia_hub.__file__).parent

# Higher layers may import lower ones, never the reverse. Shared modules (rank 0) import no
# layer, so every layer may use them; the entry points (top) put the layers together.
SHARED: Final = 0
LAYERS: Final = {
    "": SHARED,  # the package itself: its version
    "settings": SHARED,
    "redact": SHARED,
    "capture": SHARED,
    "private_tags": SHARED,
    "clock": SHARED,
    "cursors": SHARED,
    "folder_context": SHARED,
    "managed_block": SHARED,
    "ratelimit": SHARED,
    "metrics": SHARED,
    "heap": SHARED,
    "private_files": SHARED,
    "processes": SHARED,
    "store": 1,
    "auth": 2,
    "embed": 2,
    "mcp": 3,
    "http": 4,
    "commands": 5,
    "hosts": 5,
    "cli": 5,
    "app": 5,
    "serving": 5,
    "local_hubs": 5,
    "store_lock": 5,
    "running_hubs": 5,
}
LAYER_NAMES: Final = {0: "shared", 1: "store", 2: "auth/embed", 3: "mcp", 4: "http", 5: "top"}
TRANSPORTS: Final = ("fastapi", "starlette")


def module_files() -> dict[str, Path]:
    """Every module of the hub package by dotted name."""
    modules = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join((PACKAGE, *parts))] = path
    return modules


MODULES: Final = module_files()


def imported_names(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every module name an import statement names, with its line; function-level and
    TYPE_CHECKING imports count too, since they tie the modules together all the same."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                # `from aletheia_hub.mcp import formats` imports the module formats.
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in MODULES else base), node.lineno


def hub_imports(module: str) -> dict[str, int]:
    """The hub modules one module imports, with the first line that does."""
    found: dict[str, int] = {}
    for name, line in imported_names(module, MODULES[module]):
        if name in MODULES and name != module:
            found.setdefault(name, line)
    return found


def layer_of(module: str) -> int | None:
    parts = module.split(".")[1:]
    return LAYERS.get(parts[0] if parts else "")


def test_every_hub_module_belongs_to_a_layer() -> None:
    unplaced = [module for module in MODULES if layer_of(module) is None]
    assert unplaced == [], f"add these modules to LAYERS in {__name__}: {unplaced}"


def test_no_hub_module_imports_a_higher_layer() -> None:
    violations = []
    for module, path in MODULES.items():
        rank = layer_of(module)
        for imported, line in hub_imports(module).items():
            imported_rank = layer_of(imported)
            if rank is None or imported_rank is None or imported_rank <= rank:
                continue
            violations.append(
                f"{path.relative_to(ROOT)}:{line} ({LAYER_NAMES[rank]}) imports {imported} "
                f"({LAYER_NAMES[imported_rank]})"
            )
    assert violations == [], "\n".join(violations)


def test_nothing_below_the_http_edge_imports_fastapi_or_starlette() -> None:
    violations = []
    for module, path in MODULES.items():
        rank = layer_of(module)
        if rank is None or rank >= LAYERS["http"]:
            continue
        for name, line in imported_names(module, path):
            if name.split(".")[0] in TRANSPORTS:
                violations.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert violations == [], "\n".join(violations)


def test_hub_modules_import_each_other_without_a_cycle() -> None:
    graph = {module: sorted(hub_imports(module)) for module in MODULES}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One cycle of the graph as a path that ends where it starts, or None."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for target in graph[node]:
            if target in on_path:
                return [*path[path.index(target) :], target]
            if target not in done:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for node in graph:
        if node not in done:
            cycle = visit(node)
            if cycle is not None:
                return cycle
    return None


def test_find_cycle_reports_the_modules_that_import_each_other() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ["b"], "b": [], "c": ["a", "b"]}) is None


# Rooms of the top layer that sit beside the HTTP edge and the MCP tools, not above them: a
# type they share lives in the package that owns it (or is named as a Protocol by the user).
# Reaching the hub as its client belongs to the proxy package; only the entry points
# (commands/) put it together with the hosts' side of a hook.
SIDEWAYS: Final = {
    "hosts": ("aletheia_hub.http", "aletheia_hub.mcp.tools", "aletheia_proxy"),
    "commands": ("aletheia_hub.http", "aletheia_hub.mcp.tools"),
}


def test_hosts_and_commands_import_nothing_from_the_edges_beside_them() -> None:
    violations = []
    for module, path in MODULES.items():
        room = module.split(".")[1] if "." in module else ""
        forbidden = SIDEWAYS.get(room, ())
        for name, line in imported_names(module, path):
            if any(name == prefix or name.startswith(prefix + ".") for prefix in forbidden):
                violations.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert violations == [], "\n".join(violations)
