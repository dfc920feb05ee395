"""The panel's Ask mode: the server runs the agent loop and streams it to the browser.

The model is called from the server, so the endpoint's key stays on the server (its
environment or ``c.OperatorAgent.api_key``): it is never sent to the browser, logged or saved.
Each turn's run is registered as a REST session, so decisions use the existing decide API.

==============================================  ===============================================
``GET agent``                                   ``{"available", "model", "endpoint", "label",
                                                "max_turns"}`` (never the key)
``POST agent/runs`` ``{"task", "workspace"?}``  ``{"run", "model", "endpoint", "label",
                                                "max_turns"}``
``GET agent/runs/{run}/events?from=N``          ``text/event-stream``: one ``data: {...}`` per
                                                event (``id:`` its number), until ``stopped``
``POST agent/runs/{run}/stop``                  ``{"run", "stopping": true}``
``POST agent/runs/{run}/answer`` ``{"text"}``     ``{"run", "answering": true}``: a run that ended
                                                with a question goes on; follow its events again
                                                from where the stream ended
==============================================  ===============================================

Events are the agent's (``agent.events``) as JSON: ``turn_started``, ``delta``, ``block``,
``planned`` (with ``session`` for the decide API, ``items`` and the ``tokens`` reported so far),
``item``, ``turn_finished``,
``notice`` and ``stopped``. A panel that reconnects passes ``from`` to get what it missed.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jupyter_server.auth.decorator import authorized
from tornado import web
from tornado.iostream import StreamClosedError
from traitlets import Integer, Unicode
from traitlets.config import Configurable

from .errors import ApiError
from .handlers import OperatorApiHandler, OperatorPostHandler

if TYPE_CHECKING:
    from ..agent import Agent, Model
    from .sessions import SessionService

RUN_ID = r"(?P<run_id>[A-Za-z0-9_-]{1,64})"
#: Finished runs kept for panels that reconnect; the oldest finished ones go first.
KEEP_RUNS = 20


class OperatorAgent(Configurable):
    """The model the panel's Ask mode uses (``c.OperatorAgent.*`` in the server's config)."""

    model = Unicode("", help="Model name at the endpoint. Empty: $JUPYTER_OPERATOR_MODEL.").tag(
        config=True
    )
    base_url = Unicode(
        "", help="OpenAI-compatible endpoint. Empty: $OPENAI_BASE_URL, else OpenAI's."
    ).tag(config=True)
    api_key = Unicode(
        "",
        help="""The endpoint's key. Prefer $OPENAI_API_KEY in the server's environment; the key is
        never sent to the browser, logged or written to a transcript.""",
    ).tag(config=True)
    replay = Unicode(
        "", help="A JSON or JSONL file of scripted replies: an offline model for demos and tests."
    ).tag(config=True)
    max_turns = Integer(10, help="Model replies per task.").tag(config=True)
    transcripts_dir = Unicode(
        "", help="Folder of the run transcripts. Empty: runs/ in the undo journal's folder. "
        "Every run's workspace reserves it: no model can reach a transcript."
    ).tag(config=True)

    def describe(self) -> dict[str, Any]:
        """What the panel may know: model and endpoint names, never the key."""
        import os

        from ..agent.models import model_label
        from ..agent.openai_chat import DEFAULT_BASE_URL, ENV_MODEL, endpoint_name

        if self.replay:
            return {"available": True, "model": "replay", "endpoint": "offline",
                    "label": model_label("replay", "offline")}  # fmt: skip
        name = self.model or os.environ.get(ENV_MODEL, "")
        base = self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        endpoint = endpoint_name(base)
        return {"available": bool(name), "model": name or None, "endpoint": endpoint,
                "label": model_label(name, endpoint) if name else None}  # fmt: skip

    def build_model(self) -> Model:
        """A new model client for one run; ApiError with one sentence when it cannot be made."""
        from ..agent import ModelError, OpenAIChat, ReplayModel
        from ..agent.openai_chat import SettingHints

        if self.replay:
            try:
                return ReplayModel(self.replay, delay=0.0)
            except (OSError, ValueError):
                message = "The replay file cannot be read"
                raise ApiError(503, "agent_not_configured", message) from None
        try:
            hints = SettingHints(
                model="set c.OperatorAgent.model",
                api_key="in the server's environment (or c.OperatorAgent.api_key)",
            )
            return OpenAIChat(self.model or None, base_url=self.base_url or None,
                              api_key=self.api_key or None, hints=hints)  # fmt: skip
        except ModelError as exc:
            raise ApiError(503, "agent_not_configured", exc.message) from None


@dataclass
class AgentRun:
    """One task being run: the agent, its events as JSON, and who waits for more."""

    id: str
    workspace: str
    agent: Agent
    events: list[str] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[Any] | None = None
    finished: bool = False


class AgentService:
    """Starts agent runs on the server's loop and keeps their event streams."""

    def __init__(self, config: OperatorAgent, sessions: SessionService) -> None:
        self.config = config
        self.sessions = sessions
        self.runs: OrderedDict[str, AgentRun] = OrderedDict()

    def start(self, task: str, workspace: str) -> AgentRun:
        """Start a run of ``task`` in ``workspace`` (reads and policy as for any session)."""
        from ..agent import Agent

        if workspace not in self.sessions.registry:
            raise ApiError(404, "workspace_not_found", "No workspace with this name")
        model = self.config.build_model()
        registry = self.sessions.registry

        def named_operator() -> Any:  # collaborators of a room see the model's name
            operator = registry.new_operator(workspace)
            operator.model_name = getattr(model, "name", None) or None
            return operator

        operator = named_operator()
        transcripts: Any = self.config.transcripts_dir or True
        first = [operator]

        def operator_factory() -> Any:  # the first run's, then a new one for each answer
            return first.pop() if first else named_operator()

        async def engine_call(work: Any) -> Any:
            return await self.sessions.locked(workspace, work)

        try:  # transcripts by default in the journal folder of the workspace's sessions
            agent = Agent(model, root=operator.root, policy=operator.policy,
                          max_turns=self.config.max_turns, transcripts=transcripts,
                          journal_dir=operator.journal.base, operator_factory=operator_factory,
                          engine_call=engine_call)  # fmt: skip
        except ValueError:
            operator.close()
            message = "The transcripts folder is this workspace's folder; configure another"
            raise ApiError(503, "agent_not_configured", message) from None
        run = AgentRun(secrets.token_urlsafe(12), workspace, agent)
        agent.subscribe(lambda event: self._record(run, event))
        self._keep(run)
        self._go(run, agent.run(task))
        return run

    def answer(self, run_id: str, text: str) -> AgentRun:
        """Go on with a run that ended with a question: ``text`` is the person's answer."""
        run = self.get(run_id)
        if not run.finished or run.agent.question is None:
            raise ApiError(409, "no_question", "This run is not waiting for an answer")
        if not text.strip():
            raise ApiError(400, "bad_request", "text: the answer is empty")
        run.finished = False
        self._go(run, run.agent.answer(text))
        return run

    def _go(self, run: AgentRun, work: Any) -> None:
        async def go() -> None:
            try:
                await work
            finally:
                run.finished = True
                run.changed.set()
                if run.agent.operator is not None:
                    run.agent.operator.close()

        run.task = asyncio.get_running_loop().create_task(go())

    def _record(self, run: AgentRun, event: Any) -> None:
        from ..agent import events as ev

        data = event.to_json()
        if isinstance(event, ev.TurnPlanned):  # the decide API serves the turn's run
            data["session"] = self.sessions.adopt(run.workspace, run.agent.operator, event.run)
        run.events.append(json.dumps(data))
        run.changed.set()

    def _keep(self, run: AgentRun) -> None:
        self.runs[run.id] = run
        for old in list(self.runs.values()):
            if len(self.runs) <= KEEP_RUNS:
                break
            if old.finished:
                del self.runs[old.id]

    def get(self, run_id: str) -> AgentRun:
        run = self.runs.get(run_id)
        if run is None:
            raise ApiError(404, "run_not_found", "No such agent run (it may have expired)")
        return run

    def close(self) -> None:
        """Stop every run (the server is shutting down)."""
        for run in self.runs.values():
            run.agent.stop()


class _AgentHandler(OperatorApiHandler):
    @property
    def agents(self) -> AgentService:
        return self.extensionapp.agents  # type: ignore[attr-defined,no-any-return]


class AgentInfoHandler(_AgentHandler):
    """``GET agent``: whether Ask mode has a model, and which (never the key)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        info = self.agents.config.describe()
        self.finish(json.dumps({**info, "max_turns": self.agents.config.max_turns}))


class AgentRunsHandler(OperatorPostHandler, _AgentHandler):
    """``POST agent/runs``: start a task."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        async def work() -> dict[str, Any]:
            from .bodies import AskBody

            body = self.parse(AskBody)
            if not body.task.strip():
                raise ApiError(400, "bad_request", "task: the task is empty")
            run = self.agents.start(body.task, body.workspace)
            from ..agent.models import model_label

            model = run.agent.model
            return {"run": run.id, "model": model.name, "endpoint": model.endpoint,
                    "label": model_label(model.name, model.endpoint),
                    "max_turns": run.agent.max_turns}  # fmt: skip

        await self.respond(work())


class AgentEventsHandler(_AgentHandler):
    """``GET agent/runs/{run}/events``: the run's events as server-sent events."""

    @web.authenticated
    @authorized
    async def get(self, run_id: str) -> None:
        try:
            run = self.agents.get(run_id)
            start = int(self.get_query_argument("from", "0") or 0)
        except ApiError as exc:
            self.set_status(exc.status)
            self.finish(json.dumps(exc.to_dict()))
            return
        except ValueError:
            self.set_status(400)
            error = {"code": "bad_request", "message": "from: not a number"}
            self.finish(json.dumps({"error": error}))
            return
        self.set_header("Content-Type", "text/event-stream; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Accel-Buffering", "no")  # proxies must not hold the stream back
        cursor = max(0, start)
        try:
            while True:
                run.changed.clear()
                events = run.events[cursor:]
                if events:
                    frames = (f"id: {cursor + n}\ndata: {e}\n\n" for n, e in enumerate(events))
                    self.write("".join(frames))
                    cursor += len(events)
                    await self.flush()
                elif run.finished:
                    break
                else:
                    await run.changed.wait()
        except StreamClosedError:  # the panel went away; the run goes on
            return
        self.finish()


class AgentStopHandler(OperatorPostHandler, _AgentHandler):
    """``POST agent/runs/{run}/stop``."""

    @web.authenticated
    @authorized
    async def post(self, run_id: str) -> None:
        async def work() -> dict[str, Any]:
            run = self.agents.get(run_id)
            run.agent.stop()
            return {"run": run.id, "stopping": True}

        await self.respond(work())


class AgentAnswerHandler(OperatorPostHandler, _AgentHandler):
    """``POST agent/runs/{run}/answer``: the person answers the model's question."""

    @web.authenticated
    @authorized
    async def post(self, run_id: str) -> None:
        async def work() -> dict[str, Any]:
            from .bodies import AnswerBody

            body = self.parse(AnswerBody)
            run = self.agents.answer(run_id, body.text)
            return {"run": run.id, "answering": True}

        await self.respond(work())


def agent_handlers(
    prefix: str = "jupyter-operator/api",
) -> list[tuple[str, type[web.RequestHandler]]]:
    """The Ask mode routes, relative to the server's ``base_url``."""
    return [
        (f"/{prefix}/agent", AgentInfoHandler),
        (f"/{prefix}/agent/runs", AgentRunsHandler),
        (f"/{prefix}/agent/runs/{RUN_ID}/events", AgentEventsHandler),
        (f"/{prefix}/agent/runs/{RUN_ID}/stop", AgentStopHandler),
        (f"/{prefix}/agent/runs/{RUN_ID}/answer", AgentAnswerHandler),
    ]


def setup_agents(app: Any, sessions: SessionService) -> AgentService:
    """Build the Ask mode service for the extension ``app`` (reads ``c.OperatorAgent``)."""
    return AgentService(OperatorAgent(parent=app), sessions)
