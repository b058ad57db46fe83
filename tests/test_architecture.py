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
    assert "lecturetui.core.storage.store" in graph["lecturetui.core.library_contents"]
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
            if module.startswith("lecturetui.tui") and dep.startswith(
                ("lecturetui.core.storage", "lecturetui.core.answer.found")
            ):
                wrong.append(f"{module} -> {dep} (the app uses the library and the pipeline)")
            if (
                module.startswith("lecturetui.tui")
                and module != "lecturetui.tui.app"
                and dep == "lecturetui.tui.app"
            ):
                wrong.append(f"{module} -> {dep} (screens reach the app through tui/context.py)")
    assert wrong == []


#: the core's parts, lowest first: a module may import its own part and those below it, never
#: one above (a flat module is its own part; "" is the package itself)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("", "i18n", "errors", "timefmt", "paths", "settings", "hashing", "atomic", "links", "records",
     "question_options", "conversation", "lexical", "lectures", "language", "citing"),
    ("storage",),
    ("models",),
    ("ingest",),
    ("retrieval",),
    ("study",),
    ("indexes", "library", "library_contents", "library_embedder", "watch"),
    ("answer",),
    ("session",),
    ("evaluation",),
)  # fmt: skip


def part_of(module: str) -> str:
    """`lecturetui.core.retrieval.search` -> `retrieval`; a flat module is its own part."""
    return module.removeprefix("lecturetui.core").lstrip(".").split(".")[0]


def layer_of(module: str) -> int:
    part = part_of(module)
    return next(i for i, parts in enumerate(LAYERS) if part in parts)


def part_graph() -> dict[str, set[str]]:
    """The import graph between the core's parts (subpackages and flat modules)."""
    graph: dict[str, set[str]] = {}
    for module, deps in import_graph().items():
        if module.startswith("lecturetui.core"):
            here = part_of(module)
            graph.setdefault(here, set()).update(
                part_of(d) for d in deps if d.startswith("lecturetui.core") and part_of(d) != here
            )
    return graph


def test_every_part_of_the_core_has_a_layer() -> None:
    parts = set(part_graph())
    placed = {p for layer in LAYERS for p in layer}
    assert parts - placed == set(), "place the new part in LAYERS"
    assert {"storage", "models", "ingest", "retrieval", "answer", "study"} <= parts


def test_no_cycles_between_the_parts_of_the_core() -> None:
    cycle = find_cycle(part_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_parts_import_only_their_own_layer_and_those_below() -> None:
    wrong = [
        f"{module} -> {dep}"
        for module, deps in import_graph().items()
        if module.startswith("lecturetui.core")
        for dep in deps
        if dep.startswith("lecturetui.core") and layer_of(dep) > layer_of(module)
    ]
    assert wrong == []


def test_the_layer_check_finds_a_part_reaching_up() -> None:
    assert layer_of("lecturetui.core.storage.store") < layer_of("lecturetui.core.answer.question")
    assert layer_of("lecturetui.core.errors") == 0
    assert find_cycle({"storage": {"answer"}, "answer": {"storage"}}) is not None


BENCH = SRC.parents[1] / "bench"


def bench_graph() -> dict[str, set[str]]:
    """The imports between bench/'s scripts and shared modules (each imports the others by their
    bare name: the folder is on sys.path when a script runs)."""
    names = {p.stem for p in BENCH.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in BENCH.glob("*.py"):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                deps.add(node.module.split(".")[0])
            elif isinstance(node, ast.Import):
                deps |= {a.name.split(".")[0] for a in node.names}
        graph[path.stem] = {d for d in deps if d in names and d != path.stem}
    return graph


def test_no_import_cycles_in_bench() -> None:
    graph = bench_graph()
    assert "_realistic" in graph["rerank"]  # the graph is read
    cycle = find_cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_bench_readme_names_every_script() -> None:
    readme = (BENCH / "README.md").read_text(encoding="utf-8")
    missing = [
        p.name
        for p in sorted(BENCH.glob("*.py"))
        if f"`{p.name}`" not in readme and f"`{p.name} " not in readme
    ]
    assert missing == [], "describe them in bench/README.md"


def test_the_tests_mirror_the_package() -> None:
    """tests/ has the package's layout: a test folder for a package that does not exist (or an
    old name) fails here."""
    tests = Path(__file__).parent
    skip = {"fixtures", "__snapshots__", "__pycache__"}
    folders = [
        d.relative_to(tests)
        for d in tests.rglob("*")
        if d.is_dir() and not skip & set(d.relative_to(tests).parts)
    ]
    assert Path("core") / "answer" in folders
    missing = [str(f) for f in folders if not (SRC / f).is_dir()]
    assert missing == [], "name test folders after the package they test"


def store_reads(path: Path) -> list[str]:
    """Where a module reads the library's store: an attribute named `store` (`library.store`)
    or an import of core/storage/."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "store":
            found.append(f"{path.name}:{node.lineno} .store")
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        if any(n.startswith("lecturetui.core.storage") for n in names):
            found.append(f"{path.name}:{node.lineno} import of core/storage")
    return found


def test_the_app_asks_the_library_never_its_store() -> None:
    """The app reads lectures, chapters and segments through core/library.py's `Library`, so
    no screen depends on the store's tables."""
    found = [hit for path in sorted((SRC / "tui").rglob("*.py")) for hit in store_reads(path)]
    assert found == []


def test_the_store_check_finds_a_read(tmp_path: Path) -> None:
    screen = tmp_path / "screen.py"
    screen.write_text(
        "from lecturetui.core.storage.store import Store\n"
        "def chapters(library):\n    return library.store.chapters('x')\n",
        encoding="utf-8",
    )
    assert store_reads(screen) == ["screen.py:1 import of core/storage", "screen.py:3 .store"]
