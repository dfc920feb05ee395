"""``Agent``: a model in the loop. Ask, run its commands through the engine, feed results back.

The loop is async and never waits by blocking: while the person decides, it awaits an event
that the run's subscription sets, so a kernel or a server keeps serving (nbclient's pattern:
an async core with small sync wrappers). Decisions come from the person (cards, the panel, the
terminal), from the policy, or from a ``decide`` callback given to the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import events as ev
from . import transcript_records as records
from .block_tracker import BlockTracker
from .budgets import BUDGET, check_limits, used_up
from .compaction import compact, window_for
from .guards import RepeatGuard
from .models import Message, Model, ModelError, ReplayModel, Usage
from .prices import Price, cost_of
from .prompt import CONTINUE_REQUEST, DUPLICATES_NOTE, system_prompt
from .result import AgentResult
from .stops import TurnEnd
from .transcript import Transcript, default_directory

if TYPE_CHECKING:
    from ..engine import DecidableRun, Item, Operator, Policy

log = logging.getLogger(__name__)

Decide = Callable[["DecidableRun"], "Awaitable[None] | None"]
EngineCall = Callable[[Callable[[], Any]], Awaitable[Any]]


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # a folder not made yet is no workspace root
        return False


STOP_REASON_TEXT = "the person stopped the run"
#: Why what still waits is rejected when the run's time budget runs out.
OUT_OF_TIME_TEXT = "the run's time budget ran out before a decision"


class _Stop(Exception):
    """Ends a run: ``reason`` (``events.STOP_REASONS``), ``message``, and for a ``budget``
    stop the limit it reached (``budgets.LIMITS``)."""

    def __init__(self, reason: str, message: str, budget: str | None = None) -> None:
        super().__init__(message)
        self.reason, self.message, self.budget = reason, message, budget


class Agent:
    """Runs a task: the model proposes commands, the engine runs them, results go back.

    ``model`` is any ``Model`` (default: an empty ``ReplayModel``). ``root`` the workspace,
    ``policy`` what runs without asking (a ``Policy`` or its text), ``max_turns`` the number of
    model replies, ``system`` a system prompt replacing the default (the host preamble and the
    interface spec). Budgets (``budgets.py``): ``max_tokens`` (reported usage, all turns),
    ``max_cost`` (USD, needs the model's ``price`` per million tokens) and ``max_seconds``; a
    run that reaches one stops with the reason ``budget`` and the limit it reached.
    ``decide(run)`` (sync or async) may decide pending items itself; whatever it leaves pending
    waits for the person. ``transcripts`` is the folder of the JSONL transcripts (default
    ``runs/`` in the undo journal's folder, ``journal_dir`` or the default one), or None to keep
    them in memory only; the run's workspace reserves the folder, as it does the journal.

    ``extensions`` are the protocol's host extensions its sessions run (the notebook cell
    actions by default; ``()`` for the bare spec).

    ``dialect`` is how the model asks for work: ``operator`` (``OPERATOR_CMD`` blocks, the
    default), ``json`` (JSON operations), ``commands`` (string commands) or ``auto`` (each
    reply's own, detected); every reply is planned in it (``engine.plan``) and the default
    system prompt describes its format.

    Hosts may pass ``operator_factory()`` (the engine session to use, e.g. with the server's
    protected paths) and ``engine_call(work)`` (runs a blocking engine call, e.g. in a worker
    thread under the workspace's lock); by default the engine is called directly.
    """

    # Set per reply and per run (class defaults until the first reply).
    _last_finish: str | None = None
    _last_usage: dict[str, Any] | None = None
    replies = 0
    prompt_tokens = 0
    completion_tokens = 0
    tokens_estimated = False
    #: ``time.monotonic()`` when the run's time budget runs out (None: no time budget).
    _deadline: float | None = None

    def __init__(
        self,
        model: Model | None = None,
        *,
        root: str | os.PathLike[str] = ".",
        policy: Policy | str | None = None,
        max_turns: int = 10,
        system: str | None = None,
        max_tokens: int | None = None,
        max_seconds: float | None = None,
        max_cost: float | None = None,
        price: Price | None = None,
        decide: Decide | None = None,
        transcripts: str | os.PathLike[str] | bool | None = True,
        journal_dir: str | os.PathLike[str] | None = None,
        operator_factory: Callable[[], Operator] | None = None,
        engine_call: EngineCall | None = None,
        extensions: Iterable[str] = ("nb",),
        context_window: int | None = None,
        dialect: str = "operator",
    ) -> None:
        from ..engine import Policy as _Policy
        from ..engine.dialect_runs import CHOICES

        self.model: Model = model if model is not None else ReplayModel([])
        self.root = Path(root)
        if not self.root.is_dir():
            raise NotADirectoryError(f"workspace root is not a directory: {os.fspath(root)}")
        self.policy = _Policy.parse(policy) if isinstance(policy, str) else (policy or _Policy())
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        self.max_turns = max_turns
        if dialect not in CHOICES:
            raise ValueError(f"unknown dialect {dialect!r}; choose one of {', '.join(CHOICES)}")
        #: How the model asks for work (``engine.plan``'s dialect for every reply).
        self.dialect = dialect
        self.system = system
        check_limits(max_tokens=max_tokens, max_cost=max_cost, max_seconds=max_seconds,
                     price=price, model=self.model.name)  # fmt: skip
        self.max_tokens = max_tokens
        self.max_seconds = max_seconds
        self.max_cost = max_cost
        #: USD per million tokens (``prices.Price``): what ``cost`` and ``max_cost`` count in.
        self.price = price
        #: Tokens the model can take (the conversation is compacted before it outgrows them;
        #: None: a default for the model's family, ``compaction.window_for``).
        self.context_window = context_window
        self.decide = decide
        self.journal_dir = journal_dir
        #: Host extensions the agent's sessions run (default: the notebook cell actions).
        self.extensions = tuple(extensions)
        self._operator_factory = operator_factory
        self._engine_call = engine_call
        if transcripts is True:  # by the journal: in its folder
            transcripts = default_directory(journal_dir)
        self.transcripts_dir: Path | None = Path(transcripts) if transcripts else None
        if self.transcripts_dir is not None and _same_folder(self.transcripts_dir, self.root):
            raise ValueError("the transcripts folder cannot be the workspace root")
        self._subscribers: list[Callable[[ev.Event], None]] = []
        self._stop_requested = False
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stream_task: asyncio.Future[Any] | None = None
        self._task: asyncio.Task[AgentResult] | None = None
        self._tick: asyncio.Event | None = None  # set (and replaced) on every event
        self._settling = False
        self._transcript: Transcript | None = None
        self._messages: list[Message] = []  # the conversation (kept for an answer)
        self.operator: Operator | None = None
        #: The engine run of the latest turn, the turn number, the model's replies and the
        #: tokens used so far (``tokens_estimated``: some were estimated, not reported).
        self.run_now: DecidableRun | None = None
        self.turn = 0
        self.replies = 0
        self.tokens = 0
        self.prompt_tokens = self.completion_tokens = 0
        self.tokens_estimated = False
        self.result: AgentResult | None = None

    def __repr__(self) -> str:
        state = "running" if self.running else (self.result.reason if self.result else "idle")
        return f"<Agent model={self.model.name!r} turn={self.turn}/{self.max_turns} {state}>"

    # -- public API ----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True while a run is under way."""
        return self._loop is not None

    @property
    def transcript(self) -> list[dict[str, Any]]:
        """The records of the current (or last) run, as saved in its JSONL file."""
        return self._transcript.records if self._transcript is not None else []

    @property
    def transcript_path(self) -> Path | None:
        """The JSONL file of the current (or last) run (None when kept in memory only)."""
        return self._transcript.path if self._transcript is not None else None

    @property
    def cost(self) -> float | None:
        """USD spent so far (current or last run), from the tokens and ``price``; None without
        a price. Estimated tokens are priced too (an estimate, ``tokens_estimated``), so a
        ``max_cost`` budget holds for a model that reports no usage."""
        if self.price is None:
            return None
        return cost_of(self.prompt_tokens, self.completion_tokens, self.price)

    def _turn_cost(self, usage: dict[str, Any] | None) -> float | None:
        """One reply's cost by the rule of ``cost``: estimated tokens are priced too."""
        if self.price is None or not usage:
            return None
        return cost_of(usage["prompt_tokens"], usage["completion_tokens"], self.price)

    @property
    def limits(self) -> dict[str, float]:
        """The budgets in force, by name (``max_tokens``, ``max_cost``, ``max_seconds``)."""
        named = {"max_tokens": self.max_tokens, "max_cost": self.max_cost,
                 "max_seconds": self.max_seconds}  # fmt: skip
        return {name: value for name, value in named.items() if value is not None}

    def subscribe(self, callback: Callable[[ev.Event], None]) -> None:
        """Call ``callback(event)`` for every event of every run (see ``agent.events``)."""
        self._subscribers.append(callback)

    def default_system_prompt(self, operator: Operator | None = None) -> str:
        """The system prompt used when ``system`` is None (preamble plus the format of the
        agent's dialect)."""
        if operator is not None:
            return system_prompt(operator, dialect=self.dialect)
        from ..engine import Operator as _Operator

        with _Operator(self.root, policy=self.policy, journal_dir=self.journal_dir,
                       extensions=self.extensions) as op:  # fmt: skip
            return system_prompt(op, dialect=self.dialect)

    async def run(self, task: str, earlier: Sequence[Message] = ()) -> AgentResult:
        """Run ``task`` to its end and return how it ended (never raises for endpoint faults).

        ``earlier`` is the conversation the task follows up (a thread's messages after its
        system prompt): the model reads it before the task, under this run's system prompt,
        and it is compacted with the run's own turns when the window needs it.
        """
        return await self._drive(task, None, earlier)

    @property
    def conversation(self) -> list[Message]:
        """The messages of the current (or last) run after the system prompt, compacted as the
        model last saw them: what a follow-up in the same thread passes as ``earlier``."""
        return [dict(m) for m in self._messages if m.get("role") != "system"]

    async def _drive(self, user: str, messages: list[Message] | None,
                     earlier: Sequence[Message] = ()) -> AgentResult:  # fmt: skip
        """A new run of the task ``user`` (``messages`` None) after the conversation
        ``earlier``, or the answer ``user`` to the question that ended ``messages``."""
        from ..engine import Operator as _Operator

        if self.running:
            raise RuntimeError("this agent is already running; stop() it or use another Agent")
        self._loop = asyncio.get_running_loop()
        self._stop_requested = False
        first = 1 if messages is None else self.turn + 1
        if messages is None:
            self.turn = self.tokens = self.replies = 0
            self.prompt_tokens = self.completion_tokens = 0
            self.tokens_estimated = False
        self.result = None
        started = time.monotonic()
        self._deadline = None if self.max_seconds is None else started + self.max_seconds
        if messages is None or self._transcript is None:
            self._transcript = Transcript(self.transcripts_dir)
        else:
            self._transcript.reopen()
        transcript = self._transcript
        own = self._operator_factory is None
        try:
            if own:
                operator = _Operator(self.root, policy=self.policy, journal_dir=self.journal_dir,
                                     extensions=self.extensions)  # fmt: skip
            else:
                operator = self._operator_factory()  # type: ignore[misc]
        except BaseException:
            self._loop = None
            transcript.close()
            raise
        self.operator = operator
        if transcript.path is not None:
            # Out of the model's reach by its real location, wherever it is (as the journal).
            operator.workspace.reserve(transcript.path.parent)
        if messages is None:
            transcript.add("start", run_id=transcript.run_id, task=user, model=self.model.name,
                           endpoint=self.model.endpoint, policy=self.policy.summary(),
                           max_turns=self.max_turns, root=self.root.resolve().name,
                           dialect=self.dialect,
                           time=time.time(), **({"budgets": self.limits} if self.limits
                                                else {}))  # fmt: skip
        else:
            transcript.add("answer", turn=first, text=user, time=time.time())
        try:
            if messages is None:
                system = self.system
                if system is None:
                    system = await self._engine(lambda: self.default_system_prompt(operator))
                messages = [{"role": "system", "content": system}]
                transcript.add("message", turn=0, role="system", content=system)
                for said in earlier:  # a thread's conversation so far, as the model saw it
                    if said.get("role") in ("user", "assistant"):
                        messages.append({"role": said["role"], "content": str(said["content"])})
                        transcript.add("message", turn=0, role=said["role"],
                                       content=str(said["content"]))  # fmt: skip
            self._messages = messages
            reason, message = await self._turns(user, messages, started, first)
            budget = None
        except _Stop as stop:
            reason, message, budget = stop.reason, stop.message, stop.budget
        finally:
            self._loop = None
            if own:
                operator.close()
            closer = getattr(self.model, "aclose", None)
            if closer is not None:  # connections belong to this loop; the next run may have another
                with contextlib.suppress(Exception):
                    await closer()
        wall = round(time.monotonic() - started, 4)
        transcript.add(
            "stop",
            reason=reason,
            message=message,
            turns=self.turn,
            replies=self.replies,
            tokens=self.tokens,
            tokens_estimated=self.tokens_estimated,
            wall_seconds=wall,
            **({"budget": budget} if budget else {}),
            **({"cost": self.cost} if self.price is not None else {}),
        )
        transcript.close()
        self.result = AgentResult(reason, message, self.turn, self.tokens, transcript.path,
                                  self.replies, self.tokens_estimated, budget,
                                  self.cost)  # fmt: skip
        self._emit(ev.Stopped(reason, message, self.turn, self.tokens))
        return self.result

    # -- the loop ------------------------------------------------------------------------------
    async def _turns(self, user: str, messages: list[Message], started: float,
                     first: int = 1) -> tuple[str, str]:  # fmt: skip
        guard = RepeatGuard()
        self._turn_end = TurnEnd(self._transcript_add, lambda turn, text: self._emit(
            ev.Notice(turn, text)))  # fmt: skip
        corrected = False  # the last turn was a corrective one (an unexpected stop)
        for turn in range(first, first + self.max_turns):
            self._check_budgets(started)
            self.turn = turn
            messages.append({"role": "user", "content": user})
            self._transcript_add("message", turn=turn, role="user", content=user)
            self._emit(ev.TurnStarted(turn, self.max_turns))
            self._compact(turn, messages)
            reply = await self._reply(turn, messages, started)
            repeated = guard.same_reply(reply)
            if repeated is not None:
                raise _Stop("repeated_failure", repeated)
            run = await self._engine(functools.partial(self._plan, turn, reply))
            self._turn_end.planned(turn, run)
            self._emit(ev.TurnPlanned(turn, run, tokens=self.tokens, usage=self._last_usage,
                                      turn_cost=self._turn_cost(self._last_usage)))
            if not run.items:
                if run.skipped_duplicates:
                    user = DUPLICATES_NOTE
                    continue
                if run.unread_markers:  # its commands were all in the cut part
                    user = run.results_text  # the note asking for them again
                    continue
                answer = self._turn_end.without_blocks(turn, reply, self._last_finish, corrected,
                                                       self.replies)  # fmt: skip
                if isinstance(answer, tuple):
                    return answer
                user, corrected = answer, True
                continue
            await self._settle(turn, run)
            self._record_results(turn, run)
            self._emit(ev.TurnFinished(turn, self.tokens, self._last_usage, run.results_text))
            stop = guard.check(run)
            if stop is not None:
                raise _Stop("repeated_failure", stop)
            leaked = self._turn_end.settled(run)  # only calls in its own format: corrective
            if isinstance(leaked, tuple):
                return leaked
            user, corrected = run.results_text, leaked
        return "max_turns", f"Stopped after {self.max_turns} turns (the turn limit)."

    def _check_budgets(self, started: float) -> None:
        """Before a turn asks the model: stop when the person did, or a budget is used up
        (the reply that used it up was carried out: its tokens were already spent)."""
        if self._stop_requested:
            raise _Stop("stopped", "Stopped by the person.")
        spent = {"tokens": (self.max_tokens, self.tokens),
                 "cost": (self.max_cost, self.cost or 0.0),
                 "seconds": (self.max_seconds, time.monotonic() - started)}  # fmt: skip
        for limit, (value, used) in spent.items():
            if value is not None and used >= value:
                raise _Stop(BUDGET, used_up(limit, value, used), limit)

    def _plan(self, turn: int, reply: str) -> DecidableRun:
        from ..engine import plan

        assert self.operator is not None
        run = plan(self.operator, reply, self._dialect_of(reply))
        self.run_now = run
        for record in records.commands(run):
            self._transcript_add("command", turn=turn, **record)
        return run

    def _dialect_of(self, reply: str) -> str:
        """The dialect ``reply`` is planned in: the agent's. But a reply that is not written in
        JSON operations or string commands at all is the model's prose (its summary when
        done): read as a reply without blocks, not as malformed JSON or as bash lines (a script
        starts with a slash command or a ``$ `` bash line). Leaked tool calls in it are still
        seen; OPERATOR_CMD blocks are not run outside their dialect.
        """
        from ..dialects import detect

        if self.dialect == "commands" and reply.lstrip().startswith("$ "):
            return "commands"  # a bash line, marked as one
        if (self.dialect in ("json", "commands") and "OPERATOR_CMD" not in reply
                and detect(reply) != self.dialect):  # fmt: skip
            return "operator"  # no OPERATOR_CMD marker: no block runs
        return self.dialect

    # -- plumbing ------------------------------------------------------------------------------
    async def _engine(self, work: Callable[[], Any]) -> Any:
        if self._engine_call is not None:
            return await self._engine_call(work)
        return work()

    def _transcript_add(self, record_type: str, /, **fields: Any) -> None:
        if self._transcript is not None:
            self._transcript.add(record_type, **fields)

    def _poke(self) -> None:
        tick, self._tick = self._tick, None
        if tick is not None:
            tick.set()

    def _emit(self, event: ev.Event) -> None:
        self._poke()
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # a broken display must not end the run
                log.exception("agent subscriber failed")

    # How hosts drive a run: start it on the running loop, wait for a decision or the end,
    # stop it from any thread, answer the question a run ended with.

    def stop(self) -> None:
        """End the run: the reply being streamed is dropped, pending changes are rejected.

        Safe to call from any thread and when nothing runs.
        """
        self._stop_requested = True
        loop = self._loop
        if loop is None:
            return

        def _interrupt() -> None:
            if self._stream_task is not None and not self._stream_task.done():
                self._stream_task.cancel()
            if self._wake is not None:
                self._wake.set()

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            _interrupt()
        else:
            loop.call_soon_threadsafe(_interrupt)

    def start(self, task: str) -> asyncio.Task[AgentResult]:
        """Start ``run(task)`` on the running event loop and return at once (for notebooks).

        A notebook cell must not await a run that waits for clicks: the kernel handles widget
        messages only between cells. ``%%operator_agent`` uses this.
        """
        self.result = None
        self._task = asyncio.get_running_loop().create_task(self.run(task))
        return self._task

    async def waiting(self) -> DecidableRun | None:
        """The turn's run once it waits for a person's decision; None when the run has ended.

        For notebooks and scripts that decide from Python: ``run = await agent.waiting()``,
        then ``run.approve(...)`` / ``run.reject(..., reason=...)``.
        """
        while True:
            run = self.run_now
            if self._settling and run is not None and run.pending:
                return run
            starting = self._task is not None and not self._task.done()
            if self.result is not None or not (self.running or starting):
                return None
            self._tick = self._tick or asyncio.Event()
            await self._tick.wait()

    async def wait(self) -> AgentResult:
        """The result of the run started with ``start`` (waits for its end)."""
        if self._task is None:
            raise RuntimeError("no run was started with start()")
        return await self._task

    def run_sync(self, task: str) -> AgentResult:
        """``run(task)`` for scripts without an event loop (the CLI)."""
        return asyncio.run(self.run(task))

    @property
    def question(self) -> str | None:
        """The model's question when the last run ended with one (``answer`` continues it)."""
        result = self.result
        if result is None or result.reason != "question" or not self._messages:
            return None
        return result.message.removeprefix("The model asks: ")

    def _answerable(self, text: str) -> str:
        if self.question is None:
            raise RuntimeError("the last run did not end with a question to answer")
        if not text.strip():
            raise ValueError("the answer is empty")
        return text

    async def answer(self, text: str) -> AgentResult:
        """Continue a run that ended with a question to the person (``result.reason ==
        "question"``): ``text`` is the answer, the model's next message. The conversation, the
        turn numbers, the token count and the transcript go on; the run gets ``max_turns``
        more turns."""
        return await self._drive(self._answerable(text), self._messages)

    def start_answer(self, text: str) -> asyncio.Task[AgentResult]:
        """``answer(text)`` started on the running event loop (a notebook's Answer button)."""
        text = self._answerable(text)
        self.result = None
        self._task = asyncio.get_running_loop().create_task(self._drive(text, self._messages))
        return self._task

    # The model's side of a turn: streaming a reply, asking once to go on from an open
    # block, keeping the conversation inside the model's window.

    def _compact(self, turn: int, messages: list[Message]) -> None:
        """Keep the conversation inside the model's window (``compaction.py``)."""
        window = self.context_window or window_for(getattr(self.model, "name", None))
        done = compact(messages, window)
        if done is not None:
            self._transcript_add("compaction", turn=turn, **done)
            self._emit(ev.Notice(turn, f"The conversation was compacted to fit the model's "
                                 f"window ({done['before_tokens']} -> {done['after_tokens']} "
                                 "estimated tokens)."))  # fmt: skip

    async def _reply(self, turn: int, messages: list[Message], started: float) -> str:
        """Stream one reply; once, ask the model to go on when it stopped inside a block."""
        text, tracker, finish = await self._stream(turn, messages, started, BlockTracker())
        self._last_finish = finish
        open_at = tracker.open_block_start
        if open_at is None:
            messages.append({"role": "assistant", "content": text})
            return text
        # Cut off inside a block (usually the length limit): keep the complete part, ask once.
        self._emit(
            ev.Notice(
                turn,
                "The reply stopped inside an open command block; "
                "asking the model to continue from it.",
            )
        )
        messages.append({"role": "assistant", "content": text})
        messages.append({"role": "user", "content": CONTINUE_REQUEST})
        self._transcript_add("continue", turn=turn, finish_reason=finish, open_at=open_at)
        self._transcript_add("message", turn=turn, role="user", content=CONTINUE_REQUEST)
        self._check_budgets(started)  # the rest is another request: within the budgets only
        self._emit(ev.TextDelta(turn, "\n"))
        head = text[:open_at]
        rest, _tracker, _finish = await self._stream(
            turn, messages, started, BlockTracker(), offset=len(head)
        )
        messages.append({"role": "assistant", "content": rest})
        return head + rest

    async def _stream(
        self,
        turn: int,
        messages: list[Message],
        started: float,
        tracker: BlockTracker,
        offset: int = 0,
    ) -> tuple[str, BlockTracker, str | None]:
        """One model call: deltas to the displays, complete blocks announced as they close."""
        t0 = time.monotonic()
        first: float | None = None
        parts: list[str] = []
        reply: Any = None

        async def consume() -> None:
            nonlocal first, reply
            reply = self.model.stream(list(messages))
            async for delta in reply:
                if not delta:
                    continue
                if first is None:
                    first = time.monotonic()
                parts.append(delta)
                self._emit(ev.TextDelta(turn, delta))
                for block in tracker.feed(delta):
                    self._emit(ev.BlockReady(turn, block.index, block.text))

        timeout = None
        if self.max_seconds is not None:
            timeout = max(0.0, self.max_seconds - (time.monotonic() - started))
        self._stream_task = asyncio.ensure_future(consume())
        try:
            await asyncio.wait_for(self._stream_task, timeout)
        except asyncio.CancelledError:
            if not self._stop_requested:
                raise  # our caller was cancelled, not the stream
            raise _Stop("stopped", "Stopped by the person while the model was replying.") from None
        except asyncio.TimeoutError:
            assert self.max_seconds is not None
            raise _Stop(BUDGET, used_up("seconds", self.max_seconds,
                                        time.monotonic() - started,
                                        while_doing="while the model was replying"),
                        "seconds") from None  # fmt: skip
        except ModelError as exc:
            wait = {} if exc.retry_after is None else {"retry_after": exc.retry_after}
            self._transcript_add("model_error", turn=turn, kind=exc.kind, message=exc.message,
                                 **wait)  # fmt: skip
            self._emit(ev.Notice(turn, exc.message))
            raise _Stop("model_error", exc.message) from None
        except Exception as exc:  # a model of the person's own (a replay function) failed
            log.exception("the model failed")
            message = f"The model failed unexpectedly ({type(exc).__name__}); see the log."
            self._emit(ev.Notice(turn, message))
            raise _Stop("model_error", message) from None
        finally:
            self._stream_task = None
            if reply is not None:
                with contextlib.suppress(Exception):
                    await reply.aclose()
        for block in tracker.finish():
            self._emit(ev.BlockReady(turn, block.index, block.text))
        text = "".join(parts)
        usage: Usage | None = reply.usage
        self._last_usage = usage.to_dict() if usage is not None else None
        self.replies += 1
        if usage is not None:
            self.tokens += usage.total_tokens
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens
            self.tokens_estimated = self.tokens_estimated or usage.estimated
        self._transcript_add(
            "message",
            turn=turn,
            role="assistant",
            content=text,
            finish_reason=reply.finish_reason,
            usage=self._last_usage,
            model_seconds=round(time.monotonic() - t0, 4),
            first_delta_seconds=None if first is None else round(first - t0, 4),
        )
        self._transcript_add("turn", turn=turn, usage=self._last_usage)
        return text, tracker, reply.finish_reason

    # Settling a turn: the run's changes wake the loop, Stop rejects what still waits,
    # every decision goes into the transcript.

    def _left(self) -> float | None:
        """Seconds until the time budget runs out (None: no time budget)."""
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    async def _settle(self, turn: int, run: DecidableRun) -> None:
        """Wait, without blocking, until every item of ``run`` is decided (or Stop, or the
        time budget runs out: what still waits is then rejected, and the run stops)."""
        loop = asyncio.get_running_loop()
        wake = self._wake = asyncio.Event()
        decided_at: dict[str, float] = {}

        def on_loop(item: Item) -> None:
            self._emit(ev.ItemChanged(turn, item))
            wake.set()

        def changed(item: Item) -> None:  # hosts may decide from a worker thread
            if item.kind == "mutation" and item.status not in ("pending",):
                decided_at.setdefault(item.id, time.monotonic())
            # An undo from the turn's card may come after the run ended and its loop closed.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(on_loop, item)

        run.subscribe(changed)
        waited = time.monotonic()
        self._settling = True
        self._poke()
        out_of_time = False
        try:
            if self.decide is not None and not run.done:
                outcome = self.decide(run)
                if inspect.isawaitable(outcome):  # a decider that waits (a person elsewhere)
                    await asyncio.wait_for(outcome, self._left())
            while not run.done:
                if self._stop_requested:
                    await self._engine(lambda: run.reject_all(reason=STOP_REASON_TEXT))
                    break
                wake.clear()
                if run.done:
                    break
                await asyncio.wait_for(wake.wait(), self._left())
        except asyncio.TimeoutError:
            out_of_time = True
            await self._engine(lambda: run.reject_all(reason=OUT_OF_TIME_TEXT))
        self._wake = None
        self._settling = False
        for record in records.decisions(run, decided_at, waited):
            self._transcript_add("decision", turn=turn, **record)
        if self._stop_requested:
            raise _Stop("stopped", "Stopped by the person while changes waited for decisions.")
        if out_of_time:
            assert self.max_seconds is not None and self._deadline is not None
            spent = self.max_seconds + time.monotonic() - self._deadline
            raise _Stop(BUDGET, used_up("seconds", self.max_seconds, spent,
                                        while_doing="while changes waited for decisions"),
                        "seconds")  # fmt: skip

    def _record_results(self, turn: int, run: DecidableRun) -> None:
        for record in records.results(run):
            self._transcript_add("result", turn=turn, **record)
        # ``card`` is the record's own field: an item's ``type`` would clash with the record's
        for card in records.cards(run):
            self._transcript_add("card", turn=turn, card=card)


def reject_translations(run: DecidableRun) -> None:
    """A ``decide`` for runs with no person to ask (scripts, experiments): every translated
    tool call is rejected, so the model is told the ``OPERATOR_CMD`` block it meant and can
    send it, which the rules then decide like any block."""
    for item in list(run.pending):
        if item.foreign is not None:
            run.reject(item.id)
