"""The layering of docs/architecture.md, checked on the source.

- imports point down only: protocol <- workspace <- engine <- fronts;
- no import circle between the package's modules, counting imports inside functions and under
  ``TYPE_CHECKING`` (a circle broken only at run time is still one);
- only workspace/ touches the file system (security rule D17), with named exceptions;
- the server never imports IPython or ipywidgets, the widgets never import the workspace;
- ``import jupyter_operator`` stays cheap.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "jupyter_operator"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "labextension" not in p.parts)

# What each part of the package may import from the package.
ALLOWED: dict[str, set[str]] = {
    "protocol": {"protocol"},
    # Dialects are pure parsers and formatters, beside protocol/.
    "dialects": {"protocol", "dialects"},
    # Notebooks seen as cells (cell diffs): pure functions of notebook text.
    "notebooks": {"notebooks", "sequences"},
    # A notebook's own policy is held on every file access (workspace/notebook_guard.py).
    "workspace": {"protocol", "workspace", "sequences", "notebooks"},
    # Pure sequence helpers (the longest run of pairs that did not move), a leaf.
    "sequences": set(),
    # The shell runner sits beside workspace/: it runs commands, the engine decides which.
    "shell": {"protocol", "shell"},
    # Kernels beside the shell: it runs approved cells, the engine decides which.
    "execution": {"protocol", "workspace", "shell", "execution"},
    "engine": {"protocol", "dialects", "workspace", "shell", "notebooks", "execution", "engine"},
    "agent": {"protocol", "dialects", "workspace", "engine", "agent"},
    "cli": {"protocol", "dialects", "engine", "agent", "terminal", "experiments", "cli_agent",
            "cli_options", "mcp_config"},
    # The MCP clients' configuration snippets (``jupyter-operator mcp config``); the relay
    # holds the endpoint and token variable both name.
    "mcp_config": {"mcp_relay", "mcp_standalone", "cli_options"},
    # ``jupyter-operator mcp --standalone``: the server's MCP tools over stdio, asking on a tty.
    "mcp_standalone": {"server", "terminal"},
    # ``jupyter-operator mcp``: the Jupyter server's MCP server relayed over stdio, a leaf.
    "mcp_relay": set(),
    # Beside cli.py: the agent command, and what the commands share (rules options, Operator).
    "cli_agent": {"protocol", "engine", "agent", "terminal", "cli_options"},
    "cli_options": {"engine"},
    # Experiments run the agent over task copies; the check runs through the shell. Their
    # results viewer draws each run's commands with the notebook cards' module (widgets/).
    "experiments": {"protocol", "engine", "agent", "shell", "experiments", "widgets"},
    # The command line's questions on a terminal (and the person's editor).
    "terminal": {"protocol", "engine"},
    "kernel": {"protocol", "dialects", "engine", "widgets", "kernel", "agent", "execution",
               "notebooks"},
    "widgets": {"protocol", "dialects", "engine", "widgets", "agent"},
    "server": {"protocol", "dialects", "workspace", "engine", "server", "agent", "execution",
               "notebooks"},
}
# What a pure part (a dialect) must not import: no file system, no processes, no network.
IMPURE_MODULES = {"os", "subprocess", "socket", "shutil", "pathlib", "io", "tempfile"}
# Calls that reach the file system or render raw HTML, allowed only where a reason is given.
FORBIDDEN_CALLS = ("open(", "os.path.realpath", "shutil.rmtree", "expanduser", "HTMLMath(")
EXCEPTIONS = {
    # The reply file the person names on the command line, and the terminal for questions.
    ("cli", "open("),
    # The terminal, and the private temporary file a person edits a change in (never a path
    # of the workspace: the edited bytes are written by the engine, through the jail).
    ("terminal", "open("),
    # Workspace roots typed by the person (%operator root ~/work) or set by the server's admin;
    # model paths never reach these.
    ("kernel", "expanduser"),
    ("server", "expanduser"),
    # The pids cgroup of a command (/sys/fs/cgroup): fixed host paths, never a model's path.
    ("shell", "open("),
    # Run transcripts, appended in the host's own folder (never the workspace).
    ("agent", "open("),
    # A headless kernel's private socket folder (made by mkdtemp, never a workspace path).
    ("shell", "shutil.rmtree"),
    # An experiment's results file and the task folders the person names; a run's copy is a
    # fresh temporary folder of the harness's own (the model's paths go through the engine).
    ("experiments", "open("),
}


def part_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def package_imports(path: Path) -> set[str]:
    """Top-level parts of jupyter_operator that a module imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    depth = len(path.relative_to(PACKAGE).parts) - 1
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and (node.module or "").startswith("jupyter_operator."):
                found.add(node.module.split(".")[1])
            elif node.level > 0:
                up = node.level - 1  # levels above the module's own package
                if up < depth:
                    own = path.relative_to(PACKAGE).parts[: depth - up]
                    found.add(own[0])
                elif node.module:
                    found.add(node.module.split(".")[0])
                else:
                    found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("jupyter_operator."):
                    found.add(alias.name.split(".")[1])
    return found


def module_name(path: Path) -> str:
    """``jupyter_operator.engine.items`` for ``engine/items.py`` (a package: its folder)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULE_NAMES = {module_name(p): p for p in MODULES}


def _known(name: str) -> str | None:
    """The package module ``name`` is, or is inside of (``pkg.module.Attr`` -> ``pkg.module``)."""
    while name and name not in MODULE_NAMES:
        name = name.rpartition(".")[0]
    return name or None


def module_imports(path: Path) -> dict[str, int]:
    """Every package module that ``path`` imports, at any depth (in functions, under
    ``TYPE_CHECKING``), with the line of the first such import."""
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # ``from . import x`` imports the module x; ``from .m import name`` the module m.
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in MODULE_NAMES else source
                       for a in node.names]  # fmt: skip
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        for target in targets:
            module = _known(target) if target.startswith("jupyter_operator") else None
            if module is not None and module != own:
                found.setdefault(module, node.lineno)
    return found


def import_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle (``[a, b, ..., a]``) per strongly connected group of modules (Tarjan)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in sorted(graph.get(node, {})):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return [_cycle_in(graph, set(group)) for group in groups]


def _cycle_in(graph: dict[str, dict[str, int]], group: set[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node]):
            if nxt == start:
                return [*paths[node], start]
            if nxt in group and nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    raise AssertionError(f"no cycle through {start}")  # a strongly connected group has one


def describe_cycle(graph: dict[str, dict[str, int]], cycle: list[str]) -> str:
    short = [name.removeprefix("jupyter_operator.") or "jupyter_operator" for name in cycle]
    steps = [f"{short[i]} (line {graph[cycle[i]][cycle[i + 1]]})" for i in range(len(cycle) - 1)]
    return " -> ".join([*steps, short[-1]])


def third_party_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    part = part_of(path)
    if part not in ALLOWED:
        return  # __init__, __main__: the package's own entry points
    imported = package_imports(path) - {"labextension", "__version__", "_version"}
    assert imported <= ALLOWED[part], f"{part} imports {sorted(imported - ALLOWED[part])}"


def test_no_import_circles() -> None:
    graph = {module_name(p): module_imports(p) for p in MODULES}
    cycles = import_cycles(graph)
    assert not cycles, "import circles: " + "; ".join(describe_cycle(graph, c) for c in cycles)


def test_the_circle_check_sees_lazy_and_type_only_imports() -> None:
    # Guard against a checker that finds nothing: a function-level import is an edge, so is a
    # TYPE_CHECKING one, and a circle made of them is reported.
    session = module_imports(PACKAGE / "engine" / "operator.py")
    assert "jupyter_operator.engine.file_api" in session  # imported inside write_file
    assert "jupyter_operator.engine.run" in session
    loop = module_imports(PACKAGE / "agent" / "loop.py")
    assert "jupyter_operator.engine" in loop  # under TYPE_CHECKING and in functions
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    assert import_cycles(graph) == [["a", "b", "c", "a"]]
    described = describe_cycle(graph, ["a", "b", "c", "a"])
    assert described == "a (line 1) -> b (line 2) -> c (line 3) -> a"
    assert import_cycles({"a": {"b": 1}, "b": {}}) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_file_access_stays_in_the_workspace_layer(path: Path) -> None:
    part = part_of(path)
    if part == "workspace":
        return
    source = path.read_text(encoding="utf-8")
    for call in FORBIDDEN_CALLS:
        if (part, call) not in EXCEPTIONS:
            assert call not in source.replace("urlopen(", ""), f"{call} in {part}"


@pytest.mark.parametrize("path", [p for p in MODULES if part_of(p) == "dialects"] or [None])
def test_dialect_modules_do_no_io(path: Path | None) -> None:
    assert path is not None, "the dialects package has no modules"
    assert not third_party_imports(path) & IMPURE_MODULES
    assert "open(" not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", [p for p in MODULES if part_of(p) == "notebooks"] or [None])
def test_notebook_modules_are_pure(path: Path | None) -> None:
    assert path is not None, "the notebooks package has no modules"
    assert not third_party_imports(path) & (IMPURE_MODULES | {"IPython", "ipywidgets", "tornado"})
    assert "open(" not in path.read_text(encoding="utf-8")


#: Not imported by the package: taskcheck runs inside a task's check, a process the shell runner
#: already started in its sandbox, and starts the model's code there as a child of its own.
CHECK_SIDE = PACKAGE / "experiments" / "checklib"


@pytest.mark.parametrize(
    "path", [p for p in MODULES if part_of(p) != "shell" and CHECK_SIDE not in p.parents]
)
def test_only_the_shell_runner_starts_processes(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert "subprocess.Popen(" not in source and "os.execv" not in source, part_of(path)


def test_the_checks_see_real_imports() -> None:
    # Guard against a checker that finds nothing: the engine does import the workspace.
    engine = PACKAGE / "engine" / "operator.py"
    assert {"protocol", "workspace"} <= package_imports(engine)
    assert "engine" in package_imports(PACKAGE / "cli.py")
    assert {"dialects", "shell"} <= package_imports(PACKAGE / "engine" / "shell_ops.py")
    assert "subprocess" in third_party_imports(PACKAGE / "shell" / "command_runner.py")


@pytest.mark.parametrize("path", [p for p in MODULES if part_of(p) == "server"] or [None])
def test_server_never_imports_the_kernel_side(path: Path | None) -> None:
    assert path is not None, "the server extension has no modules"
    assert not third_party_imports(path) & {"IPython", "ipywidgets", "ipykernel"}


@pytest.mark.parametrize("path", [p for p in MODULES if part_of(p) == "agent"] or [None])
def test_the_agent_is_no_front(path: Path | None) -> None:
    assert path is not None, "the agent has no modules"
    heavy = {"IPython", "ipywidgets", "ipykernel", "tornado", "jupyter_server"}
    assert not third_party_imports(path) & heavy


@pytest.mark.parametrize("path", [p for p in MODULES if part_of(p) == "widgets"] or [None])
def test_widgets_never_touch_files(path: Path | None) -> None:
    assert path is not None, "the widgets have no modules"
    assert "workspace" not in package_imports(path)


def test_dialects_are_pure() -> None:
    # Dialects only parse and format: no workspace, no engine, no file calls (checked above).
    modules = [p for p in MODULES if part_of(p) == "dialects"]
    assert modules, "no dialect modules found"
    for path in modules:
        assert package_imports(path) <= {"protocol", "dialects"}, path
        assert not third_party_imports(path) & {"IPython", "ipywidgets", "tornado", "os"}, path


def test_importing_the_package_is_cheap() -> None:
    code = (
        "import sys, jupyter_operator;"
        "heavy = [m for m in ('pydantic', 'IPython', 'ipywidgets', 'tornado', 'jupyter_server')"
        " if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# A model's text becomes a run through ``engine.plan`` only: the run classes of the dialects
# and their own entry points stay inside engine/, so no front can plan one dialect its own way.
DIALECT_RUNS = {"Run", "JsonRun", "CommandRun", "BashRun", "run_json", "run_commands"}
DIALECT_RUN_MODULES = {
    "jupyter_operator.engine.run", "jupyter_operator.engine.json_run",
    "jupyter_operator.engine.commands.command_run", "jupyter_operator.engine.commands.bash",
}  # fmt: skip
# The package's public names (``jupyter_operator.Run``, for annotations in users' code).
PUBLIC_API = PACKAGE / "__init__.py"


def dialect_run_uses(path: Path, source_text: str | None = None) -> list[str]:
    """Where the module ``path`` (its text: ``source_text``, else the file's) imports a
    dialect's run class (or module) or plans a reply itself: calls a run class or its entry
    point, or an operator's ``run(text)``."""
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    text = path.read_text(encoding="utf-8") if source_text is None else source_text
    found: list[str] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else [])) if node.level else (
                node.module or "")
            if not source.startswith("jupyter_operator.engine"):
                continue
            for alias in node.names:
                if alias.name in DIALECT_RUNS or f"{source}.{alias.name}" in DIALECT_RUN_MODULES \
                        or source in DIALECT_RUN_MODULES:
                    found.append(f"line {node.lineno}: imports {alias.name} from {source}")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: imports {alias.name}" for alias in node.names
                      if alias.name in DIALECT_RUN_MODULES]
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else "")
            named = [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
            if name in DIALECT_RUNS:
                found.append(f"line {node.lineno}: calls {name}")
            elif name in ("getattr", "import_module", "__import__") and any(
                    value in DIALECT_RUNS or value in DIALECT_RUN_MODULES for value in named):
                found.append(f"line {node.lineno}: looks up {named[-1]} by name")
            elif name == "run" and isinstance(func, ast.Attribute):
                owner = func.value
                owner_name = owner.id if isinstance(owner, ast.Name) else (
                    owner.attr if isinstance(owner, ast.Attribute) else "")
                if owner_name in ("operator", "op", "dry"):
                    found.append(f"line {node.lineno}: plans with {owner_name}.run(...)")
    return found


@pytest.mark.parametrize("path", [p for p in MODULES
                                  if part_of(p) != "engine" and p != PUBLIC_API])
def test_text_becomes_a_run_through_plan_only(path: Path) -> None:
    uses = dialect_run_uses(path)
    assert not uses, f"{path.relative_to(PACKAGE)} plans a reply without engine.plan: {uses}"


def test_the_plan_check_sees_each_way_around_it() -> None:
    # Each spelling of planning a reply without ``plan`` is seen (as if in a server module).
    front = PACKAGE / "server" / "command_runs.py"
    samples = {
        "from ..engine import Run": "imports Run",
        "from ..engine.json_run import JsonRun": "imports JsonRun",
        "from ..engine.commands import run_commands": "imports run_commands",
        "from ..engine.commands import command_run as runs": "imports command_run from",
        "import jupyter_operator.engine.json_run": "imports jupyter_operator.engine.json_run",
        "x = engine.run_json(operator, text)": "calls run_json",
        "x = CommandRun(session, batch)": "calls CommandRun",
        "x = self.operator.run(reply)": "plans with operator.run",
        "x = getattr(engine, 'run_json')(op, text)": "looks up run_json",
        "m = importlib.import_module('jupyter_operator.engine.json_run')": "looks up",
    }
    for source, expected in samples.items():
        uses = dialect_run_uses(front, source + "\n")
        assert any(expected in use for use in uses), (source, uses)
    assert not dialect_run_uses(front, "from ..engine import plan\nrun = plan(op, text)\n")
