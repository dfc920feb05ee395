"""The scripted 5-turn file-editing task of ``bench/experiments.py`` as an Inspect AI eval.

Run by ``bench/experiments.py`` with the Python of a virtualenv that has ``inspect-ai`` (never
this project's own): ``PYTHON bench/inspect_file_task.py SPEC.json``. SPEC names the runs, the
workers (Inspect's ``max_samples``), the check command, the task's files and the log folder.
Each sample runs in Inspect's ``local`` sandbox (a fresh temporary folder with the task's files);
a scripted model (a ``ModelAPI`` that answers by the number of turns so far, so samples running
at once do not share one script) asks for the same five steps as the replayed model of our
grid: read ``notes.txt``, edit it, write ``summary.md``, read it back, then stop. The scorer runs
the same check command in the sample's folder. Prints one JSON line: the eval's wall time (after
the imports), the number of passing samples and the time to import Inspect.
"""

from __future__ import annotations

import json
import sys
import time

started = time.perf_counter()
from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, get_model, modelapi  # noqa: E402
from inspect_ai.scorer import CORRECT, INCORRECT, Score, accuracy, scorer  # noqa: E402
from inspect_ai.solver import Generate, TaskState, solver, use_tools  # noqa: E402
from inspect_ai.tool import tool  # noqa: E402
from inspect_ai.util import sandbox  # noqa: E402

imported = time.perf_counter() - started

STEPS = [
    ("read_file", {"path": "notes.txt"}),
    ("edit_file", {"path": "notes.txt", "find": "status: draft", "text": "status: final"}),
    ("write_file", {"path": "summary.md", "content": "# Summary\n\nfinal\n"}),
    ("read_file", {"path": "summary.md"}),
]
DONE = "Done: notes.txt says final and summary.md is written."


class Scripted(ModelAPI):
    """The five replies, chosen by how many the sample has had."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **kwargs: object) -> None:  # fmt: skip
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    async def generate(self, input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        turn = sum(1 for message in input if message.role == "assistant")
        if turn < len(STEPS):
            name, arguments = STEPS[turn]
            return ModelOutput.for_tool_call(self.model_name, name, dict(arguments))
        return ModelOutput.from_content(self.model_name, DONE)


@modelapi(name="scripted")
def scripted() -> type[ModelAPI]:
    return Scripted


@tool
def read_file():  # type: ignore[no-untyped-def]
    async def execute(path: str) -> str:
        """Read a text file.

        Args:
            path: The file's path.
        """
        return await sandbox().read_file(path)

    return execute


@tool
def write_file():  # type: ignore[no-untyped-def]
    async def execute(path: str, content: str) -> str:
        """Write a text file.

        Args:
            path: The file's path.
            content: The new text.
        """
        await sandbox().write_file(path, content)
        return f"wrote {path}"

    return execute


@tool
def edit_file():  # type: ignore[no-untyped-def]
    async def execute(path: str, find: str, text: str) -> str:
        """Replace the first occurrence of a string in a file.

        Args:
            path: The file's path.
            find: The text to replace.
            text: Its replacement.
        """
        box = sandbox()
        old = await box.read_file(path)
        if find not in old:
            return f"not found in {path}"
        await box.write_file(path, old.replace(find, text, 1))
        return f"edited {path}"

    return execute


@solver
def loop():  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await generate(state, tool_calls="loop")

    return solve


def check_scorer(command: str):  # type: ignore[no-untyped-def]
    @scorer(metrics=[accuracy()])
    def check():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: object) -> Score:
            result = await sandbox().exec(["sh", "-c", command])
            return Score(value=CORRECT if result.success else INCORRECT)

        return score

    return check()


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as file:
        spec = json.load(file)
    samples = [Sample(input=spec["prompt"], id=n, files=spec["files"])
               for n in range(spec["runs"])]  # fmt: skip
    task = Task(dataset=samples, solver=[use_tools(read_file(), edit_file(), write_file()),
                                         loop()],
                scorer=check_scorer(spec["check"]), sandbox="local")  # fmt: skip
    clock = time.perf_counter()
    logs = eval(task, model=get_model("scripted/replay"), max_samples=spec["workers"],
                max_subprocesses=spec["workers"], log_dir=spec["log_dir"],
                display="none")  # fmt: skip
    wall = time.perf_counter() - clock
    samples_done = logs[0].samples or []
    passed = sum(1 for s in samples_done
                 if s.scores and next(iter(s.scores.values())).value == CORRECT)  # fmt: skip
    turns = [sum(1 for m in s.messages if m.role == "assistant") for s in samples_done]
    print(json.dumps({"wall": wall, "passed": passed, "runs": len(samples_done),
                      "turns": sorted(set(turns)), "import": imported,
                      "status": logs[0].status}))  # fmt: skip


if __name__ == "__main__":
    main()
