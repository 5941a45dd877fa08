"""The hub's layers and the import graph, read from every module's imports at run time: each
top room of aletheia_hub has a rank, every import goes to the same room or a lower rank, and
no modules of the hub, the proxy, the shared package or the benches import each other in a
circle."""

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final

import aletheia_hub
import aletheia_proxy
import aletheia_shared

PACKAGE: Final = "aletheia_hub"
ROOT: Final = Path(aletheia_hub.__file__).parent
BENCH: Final = Path(__file__).parents[2] / "bench"
BENCH_TEXT: Final = "redaction_corpus"  # text the redaction bench reads, never imported

# Every top room of the hub (a top-level module or package; "" is the package itself) and its
# rank. A module may import its own room and any room of a lower rank; a room of the same rank
# only where SIDEWAYS says so. A new room fails test_every_top_room_has_a_rank until ranked.
RANKS: Final = {
    # Shared modules that import no other room.
    "": 0,  # the package itself: its version
    "clock": 0,
    "cursors": 0,
    "heap": 0,
    "managed_block": 0,
    "private_files": 0,
    "private_tags": 0,
    "processes": 0,
    "ratelimit": 0,
    "token_budget": 0,  # the token estimate and the context budget's default
    # Shared modules built on those.
    "capture": 1,
    "work_capture": 1,  # events, test-run reading and digests: redaction at most
    "folder_context": 1,
    "metrics": 1,
    "redact": 1,
    "settings": 2,
    "store": 3,
    "auth": 4,
    "code_marks": 4,  # marks on recalled memories about code: git answers, pushed statuses
    "embed": 4,
    "mcp": 5,
    "http": 6,
    # Which hub serves which store: one per store, on this machine.
    "local_hubs": 7,
    "running_hubs": 7,
    "store_lock": 7,
    # The `aletheia` subcommands; host config files, hooks and rules files.
    "commands": 8,
    "hosts": 8,
    # The entry points that put the layers together.
    "app": 9,
    "cli": 9,
    "serving": 9,
}
RANK_NAMES: Final = {
    0: "shared (leaf)",
    1: "shared",
    2: "settings",
    3: "store",
    4: "auth/embed/code marks",
    5: "mcp",
    6: "http",
    7: "local hubs",
    8: "commands/hosts",
    9: "entry points",
}
# The imports between different rooms of one rank, each with its reason.
SIDEWAYS: Final = {
    ("commands", "hosts"): "a command writes the hosts' config files through hosts/",
    ("cli", "serving"): "`aletheia serve` runs the server",
    ("serving", "app"): "the server serves the app create_app builds",
}
# Rooms only the named rooms may import, whatever their rank.
IMPORTED_ONLY_BY: Final = {"commands": {"cli"}}
TRANSPORTS: Final = ("fastapi", "starlette")


def module_files(root: Path, package: str, skip: str | None = None) -> dict[str, Path]:
    """Every module under `root` by dotted name, `package` first ("" for a folder on sys.path,
    as the benches run), but those in the folder `skip`."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[0] == skip:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join((package, *parts) if package else parts)
        if name:
            modules[name] = path
    return modules


MODULES: Final = module_files(ROOT, PACKAGE)
ALL_MODULES: Final = {
    **MODULES,
    **module_files(Path(aletheia_proxy.__file__).parent, "aletheia_proxy"),
    **module_files(Path(aletheia_shared.__file__).parent, "aletheia_shared"),
}
BENCH_MODULES: Final = module_files(BENCH, "", skip=BENCH_TEXT)


def imports_of(module: str, path: Path, known: Mapping[str, Path]) -> Iterator[tuple[str, int]]:
    """Every module the import statements of `module` name, with the line, wherever they are:
    a function's body and `if TYPE_CHECKING:` too. `from a.b import c` names the module a.b.c
    when there is one, else a.b."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = ".".join(part for part in (anchor, base) if part)
            for alias in node.names:
                submodule = f"{base}.{alias.name}" if base else alias.name
                named = submodule if submodule in known else base
                yield named, node.lineno


def hub_imports(module: str) -> dict[str, int]:
    """The hub modules one module imports, with the first line that does."""
    found: dict[str, int] = {}
    for imported, line in imports_of(module, MODULES[module], MODULES):
        if imported in MODULES and imported != module:
            found.setdefault(imported, line)
    return found


def room_of(module: str) -> str:
    parts = module.split(".")[1:]
    return parts[0] if parts else ""


def where(module: str) -> str:
    return str(MODULES[module].relative_to(ROOT))


def test_every_top_room_has_a_rank() -> None:
    rooms = {room_of(module) for module in MODULES}
    assert rooms - RANKS.keys() == set(), f"rank these rooms in RANKS of {__name__}"
    assert RANKS.keys() - rooms == set(), "these ranked rooms are gone: drop them from RANKS"
    assert set(RANKS.values()) == RANK_NAMES.keys()


def test_every_import_goes_to_its_own_room_or_a_lower_rank() -> None:
    violations = []
    for module in MODULES:
        room = room_of(module)
        for imported, line in hub_imports(module).items():
            target = room_of(imported)
            if room not in RANKS or target not in RANKS:
                continue  # test_every_top_room_has_a_rank names the room
            if target == room or RANKS[target] < RANKS[room] or (room, target) in SIDEWAYS:
                continue
            how = "up" if RANKS[target] > RANKS[room] else "sideways"
            violations.append(
                f"{where(module)}:{line} ({RANK_NAMES[RANKS[room]]}) imports {imported} "
                f"({RANK_NAMES[RANKS[target]]}): {how}"
            )
    assert violations == [], "\n".join(violations)


def test_sideways_imports_allowed_are_between_rooms_of_one_rank() -> None:
    for room, target in SIDEWAYS:
        assert RANKS[room] == RANKS[target], (room, target)


def test_only_the_named_rooms_import_a_guarded_room() -> None:
    violations = [
        f"{where(module)}:{line} imports {imported}"
        for module in MODULES
        for imported, line in hub_imports(module).items()
        if room_of(imported) in IMPORTED_ONLY_BY
        and room_of(module) != room_of(imported)
        and room_of(module) not in IMPORTED_ONLY_BY[room_of(imported)]
    ]
    assert violations == [], "\n".join(violations)


def test_nothing_below_the_http_edge_imports_fastapi_or_starlette() -> None:
    violations = []
    for module, path in MODULES.items():
        if RANKS.get(room_of(module), 0) >= RANKS["http"]:
            continue
        for name, line in imports_of(module, path, MODULES):
            if name.split(".")[0] in TRANSPORTS:
                violations.append(f"{where(module)}:{line} imports {name}")
    assert violations == [], "\n".join(violations)


# Rooms of the top that sit beside the HTTP edge and the MCP tools, not above them: a type they
# share lives in the package that owns it (or is named as a Protocol by the user). Reaching the
# hub as its client belongs to the proxy package; only the entry points (commands/) put it
# together with the hosts' side of a hook.
BESIDE_THE_EDGES: Final = {
    "hosts": ("aletheia_hub.http", "aletheia_hub.mcp.tools", "aletheia_proxy"),
    "commands": ("aletheia_hub.http", "aletheia_hub.mcp.tools"),
}


def test_hosts_and_commands_import_nothing_from_the_edges_beside_them() -> None:
    violations = []
    for module, path in MODULES.items():
        forbidden = BESIDE_THE_EDGES.get(room_of(module), ())
        for name, line in imports_of(module, path, MODULES):
            if any(name == prefix or name.startswith(prefix + ".") for prefix in forbidden):
                violations.append(f"{where(module)}:{line} imports {name}")
    assert violations == [], "\n".join(violations)


# Circles, over every import statement. One inside a function counts: it runs on the first
# call and ties the two modules together as much as one at the top (it only hides the circle
# from the import order). One under `if TYPE_CHECKING:` counts too: it never runs, but the
# module still needs the other's type to be read, so the two still depend on each other; a
# module that needs a type of one that imports it names a Protocol of its own instead.


def import_graph(modules: Mapping[str, Path], strip: str = "") -> dict[str, list[str]]:
    """Each module's imports of modules in `modules`; `strip` is a prefix an import may carry
    that the names lack (`bench.`: the benches run with their folder on sys.path)."""
    graph = {}
    for module, path in modules.items():
        targets = set()
        for imported, _ in imports_of(module, path, modules):
            name = imported.removeprefix(strip) if strip else imported
            if name in modules and name != module:
                targets.add(name)
        graph[module] = sorted(targets)
    return graph


def circles(graph: Mapping[str, list[str]]) -> list[list[str]]:
    """Every group of modules that import each other in a circle (a strongly connected
    component of two or more), each as one circle through it: a path that ends where it
    starts."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in graph:
        if node not in index:
            visit(node)
    found = []
    for group in groups:
        inside = {node: [t for t in graph[node] if t in group] for node in sorted(group)}
        found.append(find_cycle(inside) or sorted(group))
    return found


def find_cycle(graph: Mapping[str, list[str]]) -> list[str] | None:
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


def test_hub_proxy_and_shared_modules_import_each_other_in_no_circle() -> None:
    assert len(ALL_MODULES) > 200
    found = circles(import_graph(ALL_MODULES))
    assert found == [], "\n".join(" -> ".join(circle) for circle in found)


def test_bench_modules_import_each_other_in_no_circle() -> None:
    assert {"retrieval", "retrieval_chat", "retrieval_data.corpus"} <= BENCH_MODULES.keys()
    found = circles(import_graph(BENCH_MODULES, strip="bench."))
    assert found == [], "\n".join(" -> ".join(circle) for circle in found)


def test_circles_reports_every_group_that_imports_itself() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a", "e"], "e": ["d"], "f": ["a"]}
    assert circles(graph) == [["a", "b", "c", "a"], ["d", "e", "d"]]
    assert circles({"a": ["b"], "b": [], "c": ["a", "b"]}) == []
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == ["a", "b", "c", "a"]


def test_imports_in_functions_and_under_type_checking_count(tmp_path: Path) -> None:
    source = tmp_path / "mod.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import pkg.a\n"
        "if TYPE_CHECKING:\n"
        "    from pkg import b\n"
        "else:\n"
        "    from pkg import c\n"
        "def f() -> None:\n"
        "    from . import d\n"
        "    try:\n"
        "        from .e import name\n"
        "    except ImportError:\n"
        "        import pkg.f\n"
    )
    known = {f"pkg.{name}": source for name in "abcdef"}
    found = sorted(imports_of("pkg.mod", source, known))
    assert found == [
        ("pkg.a", 2),
        ("pkg.b", 4),
        ("pkg.c", 6),
        ("pkg.d", 8),
        ("pkg.e", 10),
        ("pkg.f", 12),
        ("typing", 1),
    ]
