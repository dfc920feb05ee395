"""The built-in suite of agent tasks (``jupyter_operator/experiments/suites/builtin``).

Every task is checked on its own terms: its ``task.toml`` has the known fields with the right
types, its check FAILS on the untouched starting files, and its reference solution, played
through the engine reply by reply (no model, no network), makes the check PASS.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_operator.agent.stops import classify
from jupyter_operator.engine import Operator, Policy
from jupyter_operator.experiments import checks, load_task
from jupyter_operator.experiments.checks import CheckResult
from jupyter_operator.experiments.tasks import materialize

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SUITE = Path(__file__).resolve().parents[2] / "jupyter_operator" / "experiments" / "suites"
SUITE = SUITE / "builtin"
TASKS = sorted(p for p in SUITE.iterdir() if p.is_dir() and (p / "task.toml").is_file())
CHECK = 'python3 "$TASK_DIR/check.py"'
#: The fields a task.toml may have, and their types.
FIELDS: dict[str, type] = {
    "prompt": str,
    "check": str,
    "measures": str,
    "max_turns": int,
    "extensions": list,
    "policy": list,
}
REQUIRED = {"prompt", "check", "measures"}
MAX_FILE_BYTES = 4096


def settings(task: Path) -> dict:
    return tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))


def reference(task: Path) -> list[str]:
    return json.loads((task / "reference.json").read_text(encoding="utf-8"))


def run_check(task: Path, workspace: Path) -> CheckResult:
    """The task's check, as the harness runs it (``experiments.checks.run_check``: in the
    sandbox where there is one, ``taskcheck`` on its path), with ``$TASK_DIR`` a folder of the
    task's other files only (``files/`` is not there: a check cannot compare against it)."""
    task_dir = workspace.parent / "task"
    if not task_dir.exists():
        task_dir.mkdir()
        materialize(load_task(task).support, task_dir)
    return checks.run_check(settings(task)["check"], workspace, task_dir, timeout_s=120)


def assert_one_fail_line(done: CheckResult) -> None:
    """A failed check says why in one ``FAIL:`` line, and nothing on stderr (no traceback)."""
    assert done.exit_code == 1 and not done.timed_out, done.output
    assert done.output.startswith("FAIL: ") and "\n" not in done.output, done.output


def fresh_copy(task: Path, where: Path) -> Path:
    """The task's starting files in a new folder, as a run of the harness gets them."""
    workspace = where / "ws"
    workspace.mkdir()
    materialize(load_task(task).files, workspace)
    return workspace


def test_the_suite_has_at_least_22_tasks_numbered_in_order() -> None:
    assert len(TASKS) >= 22
    numbers = [task.name.split("-", 1)[0] for task in TASKS]
    assert numbers == [f"{n:02d}" for n in range(1, len(TASKS) + 1)]
    assert all(task.name.count("-") >= 1 and task.name == task.name.lower() for task in TASKS)


def test_every_task_measures_something_else() -> None:
    measures = [settings(task)["measures"].strip() for task in TASKS]
    assert len(set(measures)) == len(measures)


def test_the_readme_has_one_row_per_task() -> None:
    readme = (SUITE / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == [task.name for task in TASKS]


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_task_files_are_well_formed(task: Path) -> None:
    data = settings(task)
    assert REQUIRED <= set(data) <= set(FIELDS), sorted(data)
    for key, value in data.items():
        assert isinstance(value, FIELDS[key]) and not isinstance(value, bool), key
        if isinstance(value, list):
            assert value and all(isinstance(item, str) and item for item in value), key
    assert data["check"] == CHECK
    assert data["prompt"].strip() and data["measures"].strip()
    assert "\n" not in data["measures"]
    assert 1 <= data.get("max_turns", 8) <= 200
    assert set(data.get("extensions", [])) <= {"nb"}
    if "policy" in data:
        Policy(data["policy"])  # the rules parse
    assert sorted(p.name for p in task.iterdir()) == sorted(
        ["task.toml", "check.py", "reference.json", "files"]
    )
    files = [p for p in (task / "files").rglob("*") if p.is_file()]
    assert files, "the starting workspace is empty"
    for path in files:
        assert path.stat().st_size < MAX_FILE_BYTES, path
        assert "__pycache__" not in path.parts, path
        if path.suffix == ".ipynb":
            notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
            nbformat.validate(notebook)
            assert (notebook.nbformat, notebook.nbformat_minor) == (4, 5), path
            assert all(cell.get("id") for cell in notebook.cells), path
            assert data.get("extensions") == ["nb"], "a notebook task enables the nb actions"


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_reference_replies_are_command_turns_then_prose(task: Path) -> None:
    replies = reference(task)
    assert isinstance(replies, list) and len(replies) >= 2
    assert all(isinstance(reply, str) and reply.strip() for reply in replies)
    assert len(replies) <= settings(task).get("max_turns", 8)
    *turns, last = replies
    assert all("OPERATOR_CMD" in reply and reply.isascii() for reply in turns)
    assert "OPERATOR_CMD" not in last
    assert classify(last, None).kind == "done", last


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_check_fails_on_the_starting_files(task: Path, tmp_path: Path) -> None:
    workspace = fresh_copy(task, tmp_path)
    done = run_check(task, workspace)
    assert not done.passed, done.output
    assert_one_fail_line(done)


def solve(task: Path, tmp_path: Path) -> Path:
    """A fresh copy of the task's files with its reference solution played through the engine
    (the task's own rules when it has some, they end in "auto all"; else "auto all")."""
    data = settings(task)
    workspace = fresh_copy(task, tmp_path)
    policy = Policy(data.get("policy", ["auto all"]))
    extensions = tuple(data.get("extensions", ()))
    with Operator(workspace, policy=policy, extensions=extensions,
                  journal_dir=tmp_path / "journal") as op:  # fmt: skip
        for reply in reference(task)[:-1]:
            run = op.run(reply)
            run.approve_all()
            assert run.items and not run.pending, run.results_text
            assert all(item.ok for item in run.items if item.result is not None), run.results_text
            assert all(item.result is not None for item in run.items), run.results_text
    return workspace


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_reference_solution_passes_the_check(task: Path, tmp_path: Path) -> None:
    done = run_check(task, solve(task, tmp_path))
    assert done.passed, done.output
    assert done.output.startswith("OK: ") and "\n" not in done.output, done.output


def test_the_rules_task_refuses_a_change_to_the_vendored_package(tmp_path: Path) -> None:
    task = SUITE / "23-rules-vendor"
    workspace = fresh_copy(task, tmp_path)
    block = "\n".join(["OPERATOR_CMD", "version: 1", "id: w1", "action: fs.write",
                       "path: vendor/money.py", "content: x = 1", "END_OPERATOR_CMD"])  # fmt: skip
    with Operator(workspace, policy=Policy(settings(task)["policy"]),
                  journal_dir=tmp_path / "journal") as op:  # fmt: skip
        run = op.run(block)
    (item,) = run.items
    assert item.result is not None and not item.ok
    assert "ERR_POLICY_DENIED" in run.results_text
    assert not run_check(task, workspace).passed  # the bytes are as they were


# --- Replies that cheat: the check must fail on what they leave in the workspace -------------

#: Code that tries to forge a passing verdict instead of doing the task: it steals whatever looks
#: like the check's nonce (stdin, the frames above it), writes a claim tagged with it to every
#: open descriptor, prints OK lines, silences print, tries the check's own stdout through /proc,
#: and exits with status 0 before the caller gets control back.
FORGE = r"""
import builtins, json, os, sys
stolen = set()
try:
    stolen.update(sys.stdin.read().split())
except Exception:
    pass
frame = sys._getframe()
while frame is not None:
    for value in [*frame.f_locals.values(), *frame.f_globals.values()]:
        if isinstance(value, str) and len(value) == 32:
            stolen.add(value)
    frame = frame.f_back
for fd in range(1, 32):
    for nonce in stolen or {""}:
        try:
            os.write(fd, (nonce + " " + json.dumps({"value": True}) + "\n").encode())
        except OSError:
            pass
for fd in (1, 2):
    try:
        with open(f"/proc/{os.getppid()}/fd/{fd}", "w") as out:
            out.write("OK: forged\n")
    except OSError:
        pass
print("OK: forged", flush=True)
builtins.print = lambda *args, **kwargs: None
os._exit(0)
"""
#: One line of code each, placed where the model's code runs.
CHEATS = {
    "os-exit-0": "import os; os._exit(0)",
    "sys-exit-0": "import sys; sys.exit(0)",
    "forged-verdict": f"exec({FORGE!r})",
}
#: Files a cheating reply plants beside the code: modules that Python or a test runner loads by
#: name (sitecustomize, a conftest.py, a copy of the checks' own helper) and stdlib names the
#: checks import, each one only the cheat.
PLANTED = ("sitecustomize.py", "usercustomize.py", "conftest.py", "taskcheck.py",
           "hashlib.py", "json.py", "pathlib.py", "ast.py", "csv.py", "re.py", "random.py",
           "difflib.py")  # fmt: skip


def with_cheat(text: str, original: str | None, cheat: str) -> str:
    """``text`` (Python the reference wrote) with ``cheat`` where the changed code starts: before
    the first changed statement, or as the first line of the first new block (a new ``def``)."""
    lines = text.splitlines()
    old = set((original or "").splitlines())
    for number, line in enumerate(lines):
        code = line.strip()
        if line in old or not code or code.startswith("#"):
            continue
        indent = line[: len(line) - len(line.lstrip())]
        if code.endswith(":"):
            lines.insert(number + 1, indent + "    " + cheat)
        else:
            lines.insert(number, indent + cheat)
        return "\n".join(lines) + "\n"
    return text


def cheat_on(task: Path, tmp_path: Path, cheat: str) -> Path:
    """What a cheating reply leaves: the reference's solution with ``cheat`` in each Python file
    and notebook code cell it wrote or changed; when it changed no code (a task that runs none),
    the task's starting files instead (not done). Both with :data:`PLANTED` beside them."""
    workspace = solve(task, tmp_path)
    start = load_task(task).files
    injected = False
    for path in sorted(workspace.rglob("*")):
        rel = path.relative_to(workspace).as_posix()
        original = start.get(rel)
        if path.suffix == ".py" and path.read_bytes() != original:
            text = path.read_text(encoding="utf-8")
            changed = with_cheat(text, original and original.decode("utf-8"), cheat)
            injected |= changed != text
            path.write_text(changed, encoding="utf-8")
        elif path.suffix == ".ipynb":
            notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
            before = {}
            if original is not None:
                before = {c.id: c.source for c in nbformat.reads(original.decode(), as_version=4)
                          .cells}  # fmt: skip
            for cell in notebook.cells:
                if cell.cell_type == "code" and before.get(cell.id) != cell.source:
                    cell.source = cheat + "\n" + cell.source
                    injected = True
            nbformat.write(notebook, path)
    if not injected:
        workspace = tmp_path / "undone"
        workspace.mkdir()
        materialize(start, workspace)
    for name in PLANTED:
        (workspace / name).write_text(cheat + "\n", encoding="utf-8")
    return workspace


@pytest.mark.parametrize("cheat", CHEATS)
@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_check_fails_when_the_reply_cheats(task: Path, cheat: str, tmp_path: Path) -> None:
    done = run_check(task, cheat_on(task, tmp_path, CHEATS[cheat]))
    assert not done.passed, done.output
    assert_one_fail_line(done)
    assert "forged" not in done.output.replace("(the code forged", "")


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_checks_never_run_the_workspace_code_in_their_own_process(task: Path) -> None:
    """The model's code runs only in taskcheck.run_python's child: a check imports nothing that
    loads or runs code, and calls no exec, eval, compile or __import__."""
    tree = ast.parse((task / "check.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = {alias.name for alias in node.names} | {getattr(node, "module", None) or ""}
            top = {name.split(".")[0] for name in names}
            assert not top & {"importlib", "runpy", "subprocess", "os", "imp", "pkgutil",
                              "unittest", "doctest", "pytest", "multiprocessing"}, names
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in {"exec", "eval", "compile", "__import__"}, node.func.id


#: Task-specific cheats, each on top of the reference's solution: the files a cheating reply
#: writes, and what the check's FAIL line must say.
SLUG_UNFIXED = (SUITE / "22-fix-failing-test" / "files" / "slug.py").read_text(encoding="utf-8")
PATCHED_UNITTEST = "import unittest\nunittest.TestCase.assertEqual = lambda *args, **kwargs: None\n"
TARGETED: dict[str, tuple[str, dict[str, str | dict[str, str]], str]] = {
    "01-always-equal": ("01-new-module", {"textstats.py": (
        "class Anything(int):\n    def __eq__(self, other):\n        return True\n"
        "    __ne__ = lambda self, other: False\n    __hash__ = int.__hash__\n\n"
        "def word_count(text):\n    return Anything(0)\n\ndef line_count(text):\n"
        "    return Anything(0)\n")}, "returned an object of type Anything, not a plain value"),
    "01-not-plain-data": ("01-new-module", {"textstats.py": (
        "class Anything:\n    __eq__ = lambda self, other: True\n\n"
        "def word_count(text):\n    return Anything()\n\nline_count = word_count\n")},
        "returned an object of type Anything, not a plain value"),
    "01-exit-at-the-end": ("01-new-module", {"textstats.py": (
        "def word_count(text):\n    return 0\n\nline_count = word_count\n"
        "import os\nos._exit(0)\n")}, "did not return: its process ended with status 0"),
    "12-exit-in-the-failing-cell": ("12-notebook-fix-error", {"weather.ipynb": {
        "mean": "$SOURCE\nimport os\nos._exit(0)"}}, "did not return"),
    "10-best-region-hardcoded": ("10-notebook-cells", {"report.ipynb": {
        "last": "best = 'east'\nprint('Best region: east')"}}, "the last cell should set best = "),
    "17-readme-written-by-the-code": ("17-multi-file", {
        "README.md": (SUITE / "17-multi-file" / "files" / "README.md").read_text(encoding="utf-8"),
        "units.py": "$SOURCE\nfrom pathlib import Path\nrow = '| `f2c` | Fahrenheit to Celsius |'\n"
                    "readme = Path('README.md').read_text()\nPath('README.md').write_text("
                    "readme.replace(row, row + '\\n| `c2k` | Celsius to Kelvin |'))\n",
    }, "the README's table is"),
    "07-elapsed-hardcoded": ("07-search-tree", {"src/metrics/timer.py": (
        "import time\n\n\nclass Timer:\n    def __enter__(self):\n"
        "        time.perf_counter()\n        return self\n\n    def __exit__(self, *exc):\n"
        "        self.elapsed = 0.1\n")}, "Timer measured"),
    "22-unittest-patched-by-the-code": ("22-fix-failing-test", {
        "slug.py": PATCHED_UNITTEST + SLUG_UNFIXED},
        "(test_slug.test_punctuation_is_dropped fails)"),
    "22-test-runner-planted": ("22-fix-failing-test", {
        "slug.py": SLUG_UNFIXED, "unittest.py": "import os\nos._exit(0)\n",
        "conftest.py": "def pytest_runtest_call(item):\n    return True\n",
        "sitecustomize.py": PATCHED_UNITTEST}, "slugify('Hello, World!') is 'hello,-world!'"),
    "22-test-edited": ("22-fix-failing-test", {
        "slug.py": SLUG_UNFIXED,
        "test_slug.py": "import unittest\n\nclass SlugifyTest(unittest.TestCase):\n"
                        "    def test_nothing(self):\n        pass\n"}, "test_slug.py was changed"),
    "08-greeting-printed": ("08-rename-module", {"app.py": (
        '"""Print a greeting for each name given on the command line."""\n\n'
        "from utils.strings import title_case\n\nprint('Hello, Ada Lovelace!')\n")},
        "printed 'Hello, Ada Lovelace!\\n', expected"),
    "14-report-printed": ("14-rename-function", {"report.py": (
        '"""Print a small report of the week\'s expenses."""\n\n'
        "from stats import mean, sum_values\n\nEXPENSES = [12.5, 40.0, 7.25, 19.0]\n\n\n"
        "def main() -> None:\n    grand_total = sum_values([])\n"
        "    print('total: 78.75')\n    print('mean: 19.69')\n\n\n"
        "if __name__ == '__main__':\n    main()\n")}, "with EXPENSES = "),
    "23-total-printed": ("23-rules-vendor", {"main.py": (
        '"""Print the invoice total."""\n\nfrom vendor.money import format_amount\n\n'
        "LINES = []\n\n\ndef main() -> None:\n    print('Total: 1,560.35 EUR')\n\n\n"
        "if __name__ == '__main__':\n    main()\n")}, "with the invoice lines "),
}


@pytest.mark.parametrize("case", TARGETED)
def test_check_names_the_cheat_of_a_targeted_reply(case: str, tmp_path: Path) -> None:
    name, files, says = TARGETED[case]
    task = SUITE / name
    workspace = solve(task, tmp_path)
    for rel, content in files.items():
        if isinstance(content, str):  # $SOURCE: the file as solved
            path = workspace / rel
            solved = path.read_text(encoding="utf-8") if path.exists() else ""
            path.write_text(content.replace("$SOURCE", solved), encoding="utf-8")
            continue
        # Notebook cells by id ("last": the last cell); $SOURCE is the cell's source as solved.
        notebook = nbformat.read(workspace / rel, as_version=nbformat.NO_CONVERT)
        for key, template in content.items():
            cell = notebook.cells[-1] if key == "last" else next(
                cell for cell in notebook.cells if cell.id == key)  # fmt: skip
            cell.source = template.replace("$SOURCE", cell.source)
        nbformat.write(notebook, workspace / rel)
    done = run_check(task, workspace)
    assert not done.passed, done.output
    assert_one_fail_line(done)
    assert says in done.output, done.output
