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
     "question_options", "conversation", "lexical", "lectures", "language", "citing",
     "sentences", "progress"),
    ("storage",),
    ("models",),
    ("llm",),
    ("ingest",),
    ("retrieval",),
    ("study",),
    ("indexes", "library", "library_contents", "library_embedder", "watch", "intake"),
    ("pack",),
    ("requests.words",),
    ("answer",),
    ("summary",),
    ("requests",),
    ("session",),
    ("asking",),
    ("evaluation",),
)  # fmt: skip


def part_of(module: str) -> str:
    """`lecturetui.core.retrieval.search` -> `retrieval`; a flat module is its own part, and so
    is a module LAYERS names on its own (`requests.words`, the front door's words, sits below
    the pipeline that uses them)."""
    names = module.removeprefix("lecturetui.core").lstrip(".").split(".")
    own = ".".join(names[:2])
    return own if any(own in layer for layer in LAYERS) else names[0]


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
    assert {"storage", "models", "ingest", "retrieval", "answer", "study", "summary"} <= parts


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


#: the files and folders a data home holds: core/paths.py names them (DataHome), and every
#: other module asks DataHome for them
HOME_NAMES = ("settings.toml", "llm_speed.json", "llm_prefix", "lecturetui.log",
              "library.sqlite3", "sentences.sqlite3")  # fmt: skip


def home_names_in(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of each data-home name in a string of the code; docstrings, which may say
    where a file lives, are passed over."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, name)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
        for name in HOME_NAMES
        if name in node.value
    ]  # fmt: skip


def test_only_the_data_home_names_its_files() -> None:
    paths = SRC / "core" / "paths.py"
    named = home_names_in(ast.parse(paths.read_text(encoding="utf-8")))
    assert {name for _line, name in named} == set(HOME_NAMES), "core/paths.py names them all"
    wrong = [
        f"{path.relative_to(SRC)}:{line}: {name}"
        for path in sorted(SRC.rglob("*.py"))
        if path != paths
        for line, name in home_names_in(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert wrong == [], "ask DataHome (core/paths.py) for the data home's files"


def test_the_name_finder_finds_one() -> None:
    code = '"""Kept in settings.toml."""\nfile = home.root / "llm_speed.json"\n'
    assert home_names_in(ast.parse(code)) == [(2, "llm_speed.json")]


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


def names_used(path: Path) -> set[str]:
    """Every name a module reads, calls or imports (bare or as an attribute)."""
    used: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            used |= {a.name for a in node.names}
    return used


def modules_using(names: set[str], root: Path = SRC) -> dict[str, set[str]]:
    """Which modules under `root` use any of `names`, and which."""
    return {
        str(p.relative_to(root)): found
        for p in sorted(root.rglob("*.py"))
        if (found := names_used(p) & names)
    }


#: what the verdict over a question rests on: its thresholds and margins
VERDICT_RULES = {
    "COVERAGE_THRESHOLD", "OTHER_LANGUAGE_THRESHOLD", "UNKNOWN_NAME_THRESHOLD", "DOUBT_MARGIN",
    "CHECK_MARGIN", "CHECK_LEAD", "NEAR_BAND", "NEAR_YES", "first_verdict", "read", "explained",
}  # fmt: skip


def test_why_a_question_is_answered_is_read_in_one_module() -> None:
    """The verdict (explain, refuse, two moments in doubt, read first) is decided in
    core/answer/verdict.py alone: its rules are named nowhere else but by the pipeline and the
    explanation, which call it."""
    answer = SRC / "core" / "answer"
    users = modules_using(VERDICT_RULES - {"read"}, SRC)
    users.pop("core/answer/verdict.py")
    assert users == {
        "core/answer/found.py": {"first_verdict"},
        "core/answer/explain.py": {"explained"},
    }
    assert "read" in names_used(answer / "question.py")
    # the check can fail: a rule named in another module is found
    assert modules_using({"NEAR_YES"}, answer) == {"verdict.py": {"NEAR_YES"}}


def test_the_question_s_language_is_told_in_one_place() -> None:
    """A question's language is told by Library.asked and carried with it (Asked): no other
    module tells a text's language but ingest (a lecture's), and the search never asks the
    library for it."""
    assert modules_using({"tell", "language_code"}) == {
        "core/language.py": {"tell", "language_code"},
        "core/library.py": {"tell", "language_code"},  # `asked`, and warming the identifier
        "core/ingest/lectureid.py": {"language_code"},  # a lecture's language, at ingest
    }
    tree = ast.parse((SRC / "core" / "retrieval" / "search.py").read_text(encoding="utf-8"))
    asks_library = [
        f"line {node.lineno}: library.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "library"
        and "language" in node.attr
    ]
    assert asks_library == []
    assert "asked" in names_used(SRC / "core" / "retrieval" / "search.py")


# -- where the models run, and the library: each decided or made in one place ----------------------
PLACEMENT = "lecturetui.core.models.placement"
#: the command line hands --device, as given, to the placement
DEVICE_TAKERS = {PLACEMENT, "lecturetui.cli.context"}
RAW_DEVICE_NAMES = {"device", "asked", "requested"}


def modules() -> dict[str, ast.Module]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = ast.parse(path.read_text(encoding="utf-8"))
    return out


def raw_devices(tree: ast.Module) -> list[str]:
    """The parameters and fields that take the --device choice as given: named like it and typed
    `str | None` (None: auto), as every model's loader took it before the placement."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
            found += [
                f"{node.name}({a.arg})"
                for a in named
                if a.arg in RAW_DEVICE_NAMES
                and a.annotation is not None
                and ast.unparse(a.annotation).replace(" ", "") in ("str|None", "None|str")
            ]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            annotation = ast.unparse(node.annotation).replace(" ", "")
            if node.target.id in RAW_DEVICE_NAMES and annotation in ("str|None", "None|str"):
                found.append(node.target.id)
    return found


def library_constructions(tree: ast.Module) -> int:
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "Library")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "Library")
        )
    )


def test_only_the_placement_takes_the_device_as_given() -> None:
    """--device is read in core/models/placement.py: every model is handed where it runs (a
    Placement, or what it settled), never the choice to read again."""
    takers = {m for m, tree in modules().items() if raw_devices(tree)}
    assert PLACEMENT in takers  # the check sees the rules
    assert takers - DEVICE_TAKERS == set()


def test_the_device_check_finds_a_second_reader() -> None:
    tree = ast.parse(
        "class Loader:\n    def __init__(self, device: str | None = None) -> None: ...\n"
        "class Settings:\n    asked: None | str = None\n"
    )
    assert raw_devices(tree) == ["__init__(device)", "asked"]
    assert raw_devices(ast.parse("def load(device: str = 'auto') -> None: ...")) == []


def test_the_library_is_made_in_one_place() -> None:
    """The session is the one door: every face gets its library from a ModelSession."""
    made = {m: n for m, tree in modules().items() if (n := library_constructions(tree))}
    assert made == {"lecturetui.core.session": 1}


def test_the_library_check_finds_a_second_construction() -> None:
    tree = ast.parse(
        "from lecturetui.core import library\n"
        "def open_it(home):\n    return library.Library(home), Library(home, placement=None)\n"
    )
    assert library_constructions(tree) == 2


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


def test_the_cli_asks_the_library_never_its_store() -> None:
    """The commands, like the app, read lectures, chapters and segments through `Library`."""
    found = [hit for path in sorted((SRC / "cli").rglob("*.py")) for hit in store_reads(path)]
    assert found == []


def test_commands_do_not_import_each_other() -> None:
    """What commands share lives in cli/shared.py (and the option, output and context modules);
    a module that defines a command imports no other such module, lazily or not."""
    cli = SRC / "cli"
    texts = {p.stem: p.read_text(encoding="utf-8") for p in cli.glob("*.py")}
    commands = {stem for stem, text in texts.items() if ".command(" in text}
    found = []
    for stem in sorted(commands):
        tree = ast.parse(texts[stem])
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                other = node.module.removeprefix("lecturetui.cli.")
                if node.module.startswith("lecturetui.cli.") and other in commands - {stem}:
                    found.append(f"{stem} -> {other}")
    assert "ask_cmds" in commands and "shared" not in commands
    assert found == []


def test_the_store_check_finds_a_read(tmp_path: Path) -> None:
    screen = tmp_path / "screen.py"
    screen.write_text(
        "from lecturetui.core.storage.store import Store\n"
        "def chapters(library):\n    return library.store.chapters('x')\n",
        encoding="utf-8",
    )
    assert store_reads(screen) == ["screen.py:1 import of core/storage", "screen.py:3 .store"]


#: rooms a newcomer reads: the most formatted lines a module of src/ may have (a function's
#: size is judged by ruff's complexity rules: C901, PLR0912, PLR0915 in pyproject.toml)
MODULE_LINES = 500


def oversized(root: Path = SRC) -> list[str]:
    """The modules over their size."""
    out = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MODULE_LINES:
            out.append(f"{path.relative_to(root)}: {text.count(chr(10))} lines")
    return out


def test_no_module_is_too_long_to_read(tmp_path: Path) -> None:
    assert oversized() == []
    long = tmp_path / "long.py"
    long.write_text("x = 1\n" * 501, encoding="utf-8")
    assert oversized(tmp_path) == ["long.py: 501 lines"]


def test_the_formatter_formats_everything_but_data_tables() -> None:
    """`# fmt: skip` only on data tables (a module's constant literal), at most ten."""
    skips = [
        f"{p.relative_to(SRC)}:{n}"
        for p in sorted(SRC.rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "# fmt: skip" in line
    ]
    assert len(skips) <= 10, skips


def question_imports(path: Path) -> list[str]:
    """Where a module imports the question pipeline (core/answer/question.py), lazily or not."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno}"
        for node in ast.walk(tree)
        if (isinstance(node, ast.ImportFrom) and node.module == "lecturetui.core.answer.question")
        or (
            isinstance(node, ast.ImportFrom)
            and node.module == "lecturetui.core.answer"
            and any(a.name == "question" for a in node.names)
        )
    ]


def test_every_face_asks_through_the_front_door() -> None:
    """The commands, the app, `eval` and the benchmarks reach a question through
    core/requests/door.py (one door: a question that asks for a summary is routed the same way
    everywhere), never the question pipeline."""
    bench = Path(__file__).parents[1] / "bench"
    paths = [
        *(SRC / "cli").rglob("*.py"),
        *(SRC / "tui").rglob("*.py"),
        *(SRC / "core" / "evaluation").rglob("*.py"),
        *bench.rglob("*.py"),
    ]
    found = [hit for path in sorted(paths) for hit in question_imports(path)]
    assert found == []
    assert question_imports(SRC / "core" / "requests" / "kinds.py")  # the check finds one


def test_a_summary_is_its_own_answer_folded_in_one_place() -> None:
    """No summary rides in a question's types (core/answer/ names nothing of core/summary/, and
    the answer's record holds no summary's), and a summary's steps are folded by the front door
    alone (core/summary/fold.py's `unfold`, called from core/summary/asked.py): the faces show what
    they receive."""
    from dataclasses import fields

    from lecturetui.core.records import AnswerRecord

    answer = SRC / "core" / "answer"
    summary_names = {"SummaryRecord", "PartRecord", "OverviewRecord", "summary", "overview"}
    assert modules_using(summary_names, answer) == {}
    assert not {f.name for f in fields(AnswerRecord)} & {"overview", "summary", "parts"}
    folders = modules_using({"unfold", "_Unfolding", "Unfolding"}, SRC)
    assert folders == {"core/summary/fold.py": {"_Unfolding"}, "core/summary/asked.py": {"unfold"}}
    # the check can fail: the module that folds is found
    assert modules_using({"_Unfolding"}, SRC / "core" / "summary") == {"fold.py": {"_Unfolding"}}


#: imports inside functions the package may keep: each waits for a measured reason (start-up
#: time, an optional or heavy library only some paths need), written beside it
MOST_LAZY_IMPORTS = 60


def lazy_imports(source: str, name: str = "module.py") -> list[tuple[str, bool]]:
    """Each import inside a function of `source` ("name:line"), and whether it gives its reason
    (a `# lazy: …` comment on one of its lines or the line above)."""
    lines = source.splitlines()
    found = {}
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    end = node.end_lineno or node.lineno
                    said = lines[max(node.lineno - 2, 0) : end]
                    found[node.lineno] = any("# lazy:" in line for line in said)
    return [(f"{name}:{line}", why) for line, why in sorted(found.items())]


def test_imports_wait_only_for_a_reason_given_beside_them() -> None:
    found = [
        hit
        for path in sorted(SRC.rglob("*.py"))
        for hit in lazy_imports(path.read_text(encoding="utf-8"), str(path.relative_to(SRC)))
    ]
    assert [where for where, why in found if not why] == []
    assert len(found) <= MOST_LAZY_IMPORTS, len(found)


def test_the_lazy_import_check_finds_them() -> None:
    source = (
        "import os\n"
        "def f():\n"
        "    import json  # lazy: a reason\n"
        "    def g():\n"
        "        from x import (\n"
        "            y,\n"
        "        )\n"
        "class C:\n"
        "    def m(self):\n"
        "        # lazy: said above\n"
        "        import torch\n"
    )
    assert lazy_imports(source) == [
        ("module.py:3", True),
        ("module.py:5", False),
        ("module.py:11", True),
    ]


#: the core modules the command line may import: the Library, the front door, the records and a
#: few modules that gather what the commands use
CLI_CORE_MODULES = 15
#: the longest a function may be, in lines
LONGEST_FUNCTION = 80


def test_the_command_line_reaches_the_core_through_a_few_modules() -> None:
    graph = import_graph()
    core = {
        dep
        for module, deps in graph.items()
        if module.startswith("lecturetui.cli")
        for dep in deps
        if dep.startswith("lecturetui.core.") and dep != "lecturetui.core"
    }
    assert "lecturetui.core.library" in core
    assert len(core) <= CLI_CORE_MODULES, sorted(core)


def test_no_two_classes_share_a_name() -> None:
    where: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(str(path.relative_to(SRC)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


def test_no_function_is_too_long() -> None:
    long = [
        f"{path.relative_to(SRC)}:{node.lineno} {node.name}"
        for path in sorted(SRC.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (node.end_lineno or node.lineno) - node.lineno + 1 > LONGEST_FUNCTION
    ]
    assert long == []
