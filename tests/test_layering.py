"""The package's layering, held by walking its imports: no circles, and the companion's
runtime never reaching the simulated table (the world's cameras, players and benches)."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"

# what runs on the Pi beside a real table: none of it may import the world
RUNTIME = ("companion.service", "companion.table", "companion.reconcile", "companion.store",
           "companion.web", "companion.sensors", "companion.vision", "companion.games",
           "companion.config", "companion.profile", "companion.watchdog", "companion.seats")
WORLD = ("companion.sim", "companion.bench", "companion.calibration.rehearsal")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """Every module of the package and the package modules it imports, anywhere in its body
    (an import inside a function is a dependency too, only a later one): a copy of the graph
    parsed once a session, for a test to change (parsing every module took a second a test)."""
    return {name: set(targets) for name, targets in _parsed_graph().items()}


@functools.cache
def _parsed_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, path.name == "__init__.py", node)
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.add(full if full in modules else base)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_planted_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_companion_imports_itself_round_a_circle() -> None:
    graph = import_graph()
    assert len(graph) > 100  # the walk found the package
    assert cycles(graph) == [], "import circles (each a set of modules importing each other)"


def _reach(graph: dict[str, set[str]], start: str) -> dict[str, str]:
    """Every module ``start`` reaches, with the module that imports it on the way."""
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        node = todo.pop()
        for nxt in graph.get(node, ()):
            if nxt not in seen and nxt != start:
                seen[nxt] = node
                todo.append(nxt)
    return seen


@pytest.mark.parametrize("layer", RUNTIME)
def test_the_runtime_never_imports_the_world(layer: str) -> None:
    graph = import_graph()
    starts = [m for m in graph if m == layer or m.startswith(layer + ".")]
    assert starts, layer
    for start in starts:
        reached = _reach(graph, start)
        world = sorted(m for m in reached if m.startswith(WORLD))
        assert not world, f"{start} reaches the simulated table: {world[0]} (through {reached[world[0]]})"


def test_a_planted_world_import_in_the_runtime_is_caught() -> None:
    graph = import_graph()
    graph["companion.table"] = set(graph.get("companion.table", ())) | {"companion.sim.world"}
    reached = _reach(graph, "companion.service")
    assert "companion.sim.world" in reached


def test_the_service_loads_without_the_world_in_memory() -> None:
    code = ("import sys, companion.service, companion.web.app, companion.vision.reader; "
            "print(sorted(m for m in sys.modules if m.startswith(('companion.sim', 'companion.bench'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=True)
    assert done.stdout.strip() == "[]"
