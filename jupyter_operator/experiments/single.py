"""One run of a grid: a task, a model, a repeat, a dialect, in a fresh copy of the task's files.

``run_one`` is what a worker runs (a local process or a Dask worker): everything it needs comes
in its ``RunSpec`` (the task's files as bytes, the model's description, never a key: an
endpoint's key is read from the worker's own environment), and everything it made goes back in
the row it returns (the transcript's text included), so the parent is the only writer of the
results. It never raises: a fault of the model, the check or the harness is a row too. The
exceptions are runs it refuses to start: an endpoint model's run where bubblewrap is missing
(``SandboxUnavailable``), unless the spec says ``unsandboxed``, and any run where
``$JUPYTER_OPERATOR_EVAL_SCRATCH`` names no folder (``ScratchError``).
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import os
import queue
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .checks import run_check
from .tasks import Task, materialize

if TYPE_CHECKING:
    from ..agent import Model
    from ..agent.prices import Price
    from ..engine import DecidableRun
    from .review import Review

#: What a model is told when a change waits for a person in an unattended run.
UNATTENDED = ("nobody is watching this run (an unattended experiment); only what the task's "
              "rules allow is carried out")  # fmt: skip
#: Why an endpoint model's runs need the sandbox (the error names bubblewrap and the way out).
NO_SANDBOX = (
    "bubblewrap (bwrap) cannot run on this machine, so the sandbox is missing: the cells an "
    "endpoint model runs, and the task's check (which runs in the copy the model wrote, and "
    "often imports or runs what it wrote), would run as you, able to read your files and keys "
    "and to rewrite the task's check and the results. Install bubblewrap, or pass "
    "--unsandboxed (unsandboxed=True) to run them anyway"
)
#: Beyond the task's own time budget, how long a run may take before the worker gives up on it.
GRACE_S = 60.0
#: How many finished runs' folders may wait for their removal; past that, a run's end waits.
DISCARD_BACKLOG = 16
#: An existing folder where each run's folder is made, chosen by the person (``scratch_parent``).
SCRATCH_ENV = "JUPYTER_OPERATOR_EVAL_SCRATCH"
#: A memory-backed file system (tmpfs), where Linux has one.
MEMORY_FS = "/dev/shm"
#: The free space a memory file system needs to take a run: the larger of this and
#: ``SCRATCH_FACTOR`` times the task's files (Docker's default 64 MB ``/dev/shm`` is too small).
SCRATCH_MIN_FREE = 512 * 1024 * 1024
SCRATCH_FACTOR = 8


class SandboxUnavailable(RuntimeError):
    """A run that needs the sandbox where bubblewrap cannot run: refused before it starts."""

    def __init__(self) -> None:
        super().__init__(NO_SANDBOX)


class ScratchError(ValueError):
    """``$JUPYTER_OPERATOR_EVAL_SCRATCH`` names no existing folder: runs refused before they
    start."""


def scratch_parent(task_bytes: int = 0) -> str | None:
    """The folder where a run's folder is made, for a task of ``task_bytes`` bytes of files:
    ``$JUPYTER_OPERATOR_EVAL_SCRATCH`` when set (an existing folder, else ``ScratchError``),
    else a memory-backed file system that takes a run (``/dev/shm``: a folder, writable,
    executable, with ``SCRATCH_MIN_FREE`` or ``SCRATCH_FACTOR`` times the task free, whichever
    is more), else None (the temporary folder, ``tempfile``'s default).

    Why memory: a run's copy is a few dozen metadata operations (a ``mkdir`` a folder, a create
    a file), all on the run's path, and a disk makes each wait. Making a replayed run's copy
    (``bench/experiments.py``'s task) on an ext4 disk mounted with ``discard`` took 1.3-1.5 ms,
    swinging widely, against 0.47 ms on tmpfs, on a loaded machine; 0.53 against 0.18 ms on a
    quiet one. The file system is probed once a process; its free space (one ``statvfs``) is
    asked each run, as runs fill it."""
    explicit = os.environ.get(SCRATCH_ENV)
    if explicit:
        if not os.path.isdir(explicit):
            raise ScratchError(f"${SCRATCH_ENV} is {explicit!r}, which is not an existing "
                               "folder: make it, or unset it to use the default")  # fmt: skip
        return os.path.abspath(explicit)
    memory = _memory_fs()
    if memory is None:
        return None
    try:
        stat = os.statvfs(memory)
    except OSError:
        return None
    room = stat.f_bavail * stat.f_frsize
    return memory if room >= max(SCRATCH_MIN_FREE, SCRATCH_FACTOR * task_bytes) else None


@functools.cache
def _memory_fs() -> str | None:
    """``MEMORY_FS`` when it is a folder this process can write and run programs from (a
    ``noexec`` mount, as Docker's, would fail a check that runs a script of the copy)."""
    if not os.path.isdir(MEMORY_FS) or not os.access(MEMORY_FS, os.W_OK | os.X_OK):
        return None
    try:
        flags = os.statvfs(MEMORY_FS).f_flag
    except OSError:
        return None
    if flags & (os.ST_RDONLY | getattr(os, "ST_NOEXEC", 0)):
        return None
    return MEMORY_FS


def task_bytes(task: Task) -> int:
    """The size of a task's files, all together (what each run's folder gets a copy of)."""
    return sum(map(len, task.files.values())) + sum(map(len, task.support.values()))


@dataclass(frozen=True)
class ModelSpec:
    """A model as a worker builds it: an endpoint (``model`` at ``base_url``, key from the
    worker's ``OPENAI_API_KEY``), scripted replies per task (``replies``; ``"*"`` for every
    task), or each task's reference solution (``reference=True``). ``name`` labels results."""

    name: str
    model: str | None = None
    base_url: str | None = None
    replies: dict[str, list[str]] | None = field(default=None, repr=False)
    reference: bool = False
    context_window: int | None = None

    @classmethod
    def endpoint(cls, model: str, base_url: str | None = None, *,
                 name: str | None = None) -> ModelSpec:  # fmt: skip
        """An OpenAI-compatible endpoint's model."""
        return cls(name or model, model=model, base_url=base_url)

    @classmethod
    def scripted(cls, name: str, replies: dict[str, list[str]] | list[str]) -> ModelSpec:
        """Scripted replies, per task name (a list: the same replies for every task)."""
        return cls(name, replies=replies if isinstance(replies, dict) else {"*": list(replies)})

    @classmethod
    def references(cls, name: str = "reference") -> ModelSpec:
        """Each task's reference solution (``reference.json``)."""
        return cls(name, reference=True)

    @property
    def untrusted(self) -> bool:
        """True for an endpoint's model: its replies are not yours (scripted replies are, and
        a reference solution is the task's own), so what it writes runs only sandboxed."""
        return not self.reference and self.replies is None

    def build(self, task: Task) -> Model:
        from ..agent import OpenAIChat, ReplayModel

        if self.reference:
            return ReplayModel(task.reference or [], name=self.name, chunk=4096)
        if self.replies is not None:
            script = self.replies.get(task.name, self.replies.get("*", []))
            return ReplayModel(list(script), name=self.name, chunk=4096)
        return OpenAIChat(self.model, base_url=self.base_url)


@dataclass(frozen=True)
class RunSpec:
    """One cell of the grid."""

    task: Task
    model: ModelSpec
    repeat: int
    approve_all: bool = False
    check_timeout_s: float = 120.0
    #: Run an endpoint model's tasks even where the sandbox is missing (the person said so).
    unsandboxed: bool = False
    #: The grid's own budgets (the command line's): each run gets, for each, the lower of
    #: these and its task's (``limits``).
    max_tokens: int | None = None
    max_cost: float | None = None
    max_seconds: float | None = None
    #: The model's price (USD per million tokens): the run's ``cost``, and what ``max_cost``
    #: counts in.
    price: Price | None = None
    #: ``--approve ask``: where what the task's rules leave open is asked of a person.
    review: Review | None = None
    #: The grid's dialect (``eval --dialect``): replaces the task's own when given.
    dialect: str | None = None

    @property
    def run_dialect(self) -> str:
        """The dialect the run's model asks for work in: the grid's, else the task's."""
        return self.dialect or self.task.dialect

    def limits(self) -> dict[str, float]:
        """The run's budgets by name (``max_seconds`` always, ``max_tokens`` and ``max_cost``
        when the task or the grid gives one): the lower of the task's and the grid's."""
        task = self.task
        found: dict[str, float] = {}
        for name, own, grid in (("max_seconds", task.time_budget, self.max_seconds),
                                ("max_tokens", task.max_tokens, self.max_tokens),
                                ("max_cost", task.max_cost, self.max_cost)):  # fmt: skip
            given = [value for value in (own, grid) if value is not None]
            if given:
                found[name] = min(given)
        return found

    @property
    def needs_sandbox(self) -> bool:
        """Whether the run may only start inside the sandbox (see ``ModelSpec.untrusted``)."""
        return self.model.untrusted and not self.unsandboxed

    @property
    def key(self) -> tuple[str, str, int, str]:
        """The run's place in the grid: (task, model, repeat, dialect), as
        ``results.run_key`` reads it back from the run's row."""
        return (self.task.name, self.model.name, self.repeat, self.run_dialect)


def unattended(approve_all: bool) -> Callable[[DecidableRun], None]:
    """The decisions of a run with nobody watching: what waits is rejected with a reason the
    model sees (or, with ``approve_all``, approved: only the run's copy is at stake).

    A tool call in the model's own format, translated to the block it seemed to mean, is never
    approved, ``approve_all`` or not: the translation is a guess at the model's intent, which
    only a person may accept. It is rejected, so the model is told the block it meant.
    """

    def decide(run: DecidableRun) -> None:
        while run.pending:
            item = run.pending[0]
            if getattr(item, "foreign", None) is not None:
                run.reject(item.id)  # the model's result names the block it meant
            elif approve_all:
                run.approve(item.id)
            else:
                run.reject(item.id, reason=UNATTENDED)

    return decide


#: What the one request before a grid asks (any answer will do: it proves the way works).
PING = "Reply with the word OK."


class _NotChecked(Exception):
    """A run whose check is not run (the message says why)."""


def check_endpoint(model: ModelSpec) -> None:
    """One request to an endpoint model, before its runs: raise ``ModelError`` (one sentence,
    never the key) when there is no key, the endpoint cannot be reached or does not know the
    model. Nothing to do for scripted replies and reference solutions. The reply is cut after
    its first words."""
    if not model.untrusted:
        return
    from ..agent import OpenAIChat

    chat = OpenAIChat(model.model, base_url=model.base_url)

    async def ask() -> None:
        reply = chat.stream([{"role": "user", "content": PING}])
        try:
            async for _text in reply:
                break
        finally:
            await reply.aclose()
            await chat.aclose()

    asyncio.run(ask())


def _agent_run(spec: RunSpec, workspace: Path, scratch: Path,
               reviews: list[dict[str, Any]]) -> tuple[Any, Any]:  # fmt: skip
    from ..agent import Agent
    from ..engine import Policy

    task = spec.task
    limits = spec.limits()
    agent = Agent(spec.model.build(task), root=workspace, policy=Policy(list(task.policy)),
                  max_turns=task.max_turns, **limits, price=spec.price,
                  decide=unattended(spec.approve_all), transcripts=scratch / "runs",
                  journal_dir=scratch / "journal", extensions=task.extensions,
                  context_window=spec.model.context_window,
                  dialect=spec.run_dialect)  # fmt: skip
    if spec.review is not None:
        from .results import run_label
        from .review import asking

        def label() -> str:
            run_id = agent.transcript[0].get("run_id") if agent.transcript else None
            return (f"{spec.review.experiment} · {run_label(*spec.key)} · run {run_id} · turn "
                    f"{agent.turn}")  # fmt: skip

        def record(decision: dict[str, Any]) -> None:
            reviews.append({"turn": agent.turn, **decision})
            agent._transcript_add("review", turn=agent.turn, **decision)

        agent.decide = asking(spec.review, workspace, label, record)

    async def go() -> Any:
        return await asyncio.wait_for(agent.run(task.prompt), limits["max_seconds"] + GRACE_S)

    return agent, asyncio.run(go())


class _Discarder:
    """Removes the folders of finished runs on a thread of this process, off the runs' path.

    Each run still gets a folder of its own, made fresh and never reused; only its removal
    moves. Removing a folder waits on the disk (an ``rmdir`` on a file system mounted with
    ``discard`` waits milliseconds for the device, with the processor idle), so the next run
    goes on meanwhile. A finished run's folder is out of every later run's sight: a new random
    name, and the sandbox shows an empty ``/tmp`` and a ``/dev`` of its own. At most
    ``DISCARD_BACKLOG`` wait: past that, a run's end waits for the disk, so a slow disk sets the
    pace rather than filling up. ``settle()`` waits until every folder handed over is gone (at
    the process's exit too)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: queue.Queue[tempfile.TemporaryDirectory[str]] | None = None

    def _start(self) -> queue.Queue[tempfile.TemporaryDirectory[str]]:
        with self._lock:
            if self._queue is None:
                self._queue = queue.Queue(maxsize=DISCARD_BACKLOG)
                threading.Thread(target=self._remove, args=(self._queue,), daemon=True,
                                 name="jupyter-operator-eval-discard").start()  # fmt: skip
                atexit.register(self.settle)
            return self._queue

    def discard(self, folder: tempfile.TemporaryDirectory[str]) -> None:
        """Remove ``folder`` (all of it) soon, on the thread."""
        self._start().put(folder)

    def settle(self) -> None:
        """Wait until every folder handed over so far is removed."""
        if self._queue is not None:
            self._queue.join()

    def _forked(self) -> None:
        # a forked child has the queue but not the thread: it starts its own
        self._lock = threading.Lock()
        self._queue = None

    @staticmethod
    def _remove(folders: queue.Queue[tempfile.TemporaryDirectory[str]]) -> None:
        while True:
            folder = folders.get()
            try:
                folder.cleanup()  # what a run made unreadable is made writable, then removed
            except Exception:  # the thread outlives any one folder's fault
                pass  # (ignore_cleanup_errors: what cannot be removed stays in the temp folder)
            finally:
                folders.task_done()


_DISCARDER = _Discarder()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_DISCARDER._forked)


def settle() -> None:
    """Wait until the folders of the runs this process finished are removed."""
    _DISCARDER.settle()


def run_one(spec: RunSpec) -> dict[str, Any]:
    """Run ``spec`` and return its results row (with ``transcript_text``); never raises, but
    ``SandboxUnavailable`` and ``ScratchError`` before anything ran (checked here, on the
    worker that would run it)."""
    from ..agent.prices import cost_of
    from ..agent.transcript import summarize
    from ..shell import sandbox_available

    if spec.needs_sandbox and not sandbox_available():
        raise SandboxUnavailable()

    started = time.time()
    clock = time.perf_counter()
    row: dict[str, Any] = {"task": spec.task.name, "model": spec.model.name,
                           "repeat": spec.repeat, "dialect": spec.run_dialect,
                           "started_at": round(started, 3), "limits": spec.limits()}  # fmt: skip
    # on a memory file system where there is one with room: making the copy there costs a
    # third of what it does on a disk (``scratch_parent``)
    folder = tempfile.TemporaryDirectory(prefix="jupyter-operator-eval-",
                                         dir=scratch_parent(task_bytes(spec.task)),
                                         ignore_cleanup_errors=True)  # fmt: skip
    try:
        scratch = Path(folder.name)
        workspace, task_dir = scratch / "workspace", scratch / "task"
        workspace.mkdir()
        task_dir.mkdir()
        materialize(spec.task.files, workspace)
        materialize(spec.task.support, task_dir)
        row["setup_seconds"] = round(time.perf_counter() - clock, 4)
        agent_clock = time.perf_counter()
        agent = None
        reviews: list[dict[str, Any]] = []
        try:
            agent, result = _agent_run(spec, workspace, scratch, reviews)
            row.update(stop_reason=result.reason, stop_message=result.message,
                       budget=result.budget)  # fmt: skip
        except TimeoutError:
            row.update(stop_reason="timeout", stop_message="The run took longer than its "
                       f"time budget ({spec.limits()['max_seconds']:g} s) and more.")  # fmt: skip
        except Exception as exc:  # a harness fault is one failed run, never the grid's end
            row.update(stop_reason="harness_error", stop_message=f"{type(exc).__name__}: {exc}",
                       traceback=traceback.format_exc(limit=8))  # fmt: skip
        row["agent_seconds"] = round(time.perf_counter() - agent_clock, 4)
        if spec.review is not None:  # what the person decided, who and when
            row["reviews"] = reviews
        records = agent.transcript if agent is not None else []
        summary = summarize(records)
        row.update({key: summary[key] for key in (
            "turns", "commands", "valid_rate", "error_codes", "approvals", "rejections",
            "denied", "prompt_tokens", "completion_tokens", "tokens",
            "tokens_estimated")})  # fmt: skip
        if spec.price is not None:  # estimated counts are not priced as if an endpoint said so
            row["cost"] = None if row["tokens_estimated"] else cost_of(
                row["prompt_tokens"], row["completion_tokens"], spec.price)  # fmt: skip
        faults = [r for r in records if r.get("type") == "model_error"]
        if row["stop_reason"] == "model_error" and faults:
            # which fault, and how long the endpoint asked to wait: a grid retrying errors
            # waits that long before the run again (``grid.RATE_LIMIT``)
            row.update(error_kind=faults[-1].get("kind"),
                       retry_after_s=faults[-1].get("retry_after"))  # fmt: skip
        path = agent.transcript_path if agent is not None else None
        row["transcript_text"] = path.read_text(encoding="utf-8") if path and path.exists() else ""
        check_clock = time.perf_counter()
        try:
            if row["stop_reason"] == "harness_error":  # a fault of ours: nothing to judge
                raise _NotChecked("not run: the run ended in a harness error before its check")
            check = run_check(spec.task.check, workspace, task_dir,
                              timeout_s=spec.check_timeout_s)  # fmt: skip
            row.update(passed=check.passed, check_exit=check.exit_code,
                       check_output=check.output, check_sandboxed=check.sandboxed)  # fmt: skip
        except _NotChecked as exc:
            row.update(passed=False, check_exit=None, check_output=str(exc),
                       check_sandboxed=False)  # fmt: skip
        except Exception as exc:  # a check that cannot even start: failed, with the reason
            row.update(passed=False, check_exit=None, check_output=f"{type(exc).__name__}: {exc}",
                       check_sandboxed=False)  # fmt: skip
        row["check_seconds"] = round(time.perf_counter() - check_clock, 4)
    finally:
        _DISCARDER.discard(folder)
    row["wall_seconds"] = round(time.perf_counter() - clock, 4)
    return row
