"""The package's import graph: no cycles, and dependencies that read one way,
core <- cli and tui (the app), with no screen importing the app module.

Every import counts, also those inside functions and under TYPE_CHECKING: a lazy import is
still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import lecturetui

SRC = Path(lecturetui.__file__).parent


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            deps |= {t for t in targets if t.startswith("lecturetui")}
        graph[name] = deps
    # `from lecturetui.core import x` names a module or a name in one: keep the modules
    return {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_graph_is_read() -> None:
    graph = import_graph()
    assert "lecturetui.core.store" in graph["lecturetui.core.service"]
    assert "lecturetui.tui.mainscreen" in graph["lecturetui.tui.app"]


def test_no_import_cycles() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_finds_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_dependencies_point_one_way() -> None:
    graph = import_graph()
    wrong = []
    for module, deps in graph.items():
        for dep in deps:
            if module.startswith("lecturetui.core") and dep.startswith(
                ("lecturetui.cli", "lecturetui.tui")
            ):
                wrong.append(f"{module} -> {dep} (the core serves both faces)")
            if module.startswith("lecturetui.tui") and dep.startswith("lecturetui.cli"):
                wrong.append(f"{module} -> {dep} (the app does not use the command line)")
            if (
                module.startswith("lecturetui.tui")
                and module != "lecturetui.tui.app"
                and dep == "lecturetui.tui.app"
            ):
                wrong.append(f"{module} -> {dep} (screens reach the app through tui/context.py)")
    assert wrong == []


#: the services on top of the core's parts: the library facade, the answer service (answering,
#: attribution, translation, the guess), the watched folder, and the evaluation service
SERVICES = (
    "lecturetui.core.service",
    "lecturetui.core.answering",
    "lecturetui.core.attribution",
    "lecturetui.core.translate",
    "lecturetui.core.guess",
    "lecturetui.core.watch",
    "lecturetui.core.evaluation",
)


def is_service(module: str) -> bool:
    return any(module == s or module.startswith(s + ".") for s in SERVICES)


def test_the_core_parts_do_not_reach_up_into_the_services() -> None:
    graph = import_graph()
    wrong = [
        f"{module} -> {dep}"
        for module, deps in graph.items()
        if module.startswith("lecturetui.core.") and not is_service(module)
        for dep in deps
        if is_service(dep)
    ]
    assert wrong == []


def test_the_answer_service_does_not_use_the_evaluation_service() -> None:
    graph = import_graph()
    answering = ("lecturetui.core.service", "lecturetui.core.answering",
                 "lecturetui.core.attribution", "lecturetui.core.translate")  # fmt: skip
    wrong = [
        f"{m} -> {d}"
        for m in answering
        for d in graph[m]
        if d.startswith("lecturetui.core.evaluation")
    ]
    assert wrong == []
