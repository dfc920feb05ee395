"""The panel's Ask mode: the server runs the agent loop and streams it to the browser.

The model is called from the server, so the endpoint's key stays on the server (its
environment, ``c.OperatorAgent.api_key``, or a key typed once in the panel and stored 0600 out
of every workspace, ``agent.endpoints``): it is never sent to the browser, logged or saved in a
transcript. Each turn's run is registered as a REST session, so decisions use the existing
decide API.

==============================================  ===============================================
``GET agent``                                   ``{"available", "model", "endpoint", "label",
                                                "max_turns"}`` (never the key)
``GET agent/models``                            ``{"models": [{"name", "base_url", "model",
                                                "endpoint", "label", "key", "source",
                                                "price"}], "default": {...}}`` (``key`` says
                                                where it comes from, never what it is)
``POST agent/models`` ``{"name", "base_url",      ``{"model": {...}}``: saved at once, no restart
"model", "api_key"? | "key_env"?}``
``DELETE agent/models/{name}``                  ``{"removed"}`` (configured ones: 409)
``POST agent/runs`` ``{"task", "workspace"?,      ``{"run", "model", "endpoint", "label",
"model"?, "max_tokens"?, "max_cost"?,           "max_turns", "price", "max_tokens",
"fix"?, "thread"?, "attachments"?}``            "max_cost", "task", "attachments"}``: ``fix``
                                                (a failed cell, its outputs and notebook) has
                                                the server write the task (``fix_error``);
                                                ``attachments`` (files, read here through the
                                                jail, and cells) go with it (``mentions``)
``GET agent/threads?workspace=&key=``           ``{"workspace", "key", "messages", "busy"}``:
                                                the Ask view's thread (``ask_threads``); a
                                                run with ``"thread": key`` continues it
``POST agent/threads`` ``{"workspace", "key"}``   the same, the thread started afresh
``GET agent/mentions?workspace=&query=``        ``{"paths", "truncated"}``: the files ``@`` can
                                                attach (``mentions``: walked through the jail)
``GET agent/runs/{run}/events?from=N``          ``text/event-stream``: one ``data: {...}`` per
                                                event (``id:`` its number), until ``stopped``
``POST agent/runs/{run}/stop``                  ``{"run", "stopping": true}``
``POST agent/runs/{run}/answer`` ``{"text"}``     ``{"run", "answering": true}``: a run that ended
                                                with a question goes on; follow its events again
                                                from where the stream ended
==============================================  ===============================================

Events are the agent's (``agent.events``) as JSON: ``turn_started``, ``delta``, ``block``,
``planned`` (with ``session`` for the decide API, ``items``, the ``tokens`` reported so far, the
reply's ``usage`` and, when the model's price is known, ``turn_cost`` and the run's ``cost``),
``item``, ``turn_finished``,
``notice`` and ``stopped``. A panel that reconnects passes ``from`` to get what it missed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_server.auth.decorator import authorized
from tornado import web
from tornado.iostream import StreamClosedError
from traitlets import Dict, Integer, List, Unicode
from traitlets.config import Configurable

from .errors import ApiError
from .handlers import OperatorApiHandler, OperatorPostHandler

if TYPE_CHECKING:
    from ..agent import Agent, Model
    from ..agent.endpoints import Endpoint, EndpointStore
    from ..agent.prices import Price
    from .ask_threads import ThreadStore
    from .bodies import AskBody
    from .mentions import Attachment
    from .sessions import SessionService

log = logging.getLogger(__name__)

RUN_ID = r"(?P<run_id>[A-Za-z0-9_-]{1,64})"
ENDPOINT_NAME = r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,63})"
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
    models = List(
        Dict(),
        help="""Named endpoints the panel's model picker offers, besides the ones people add
        from the panel: [{"name": "local", "base_url": "http://localhost:11434/v1",
        "model": "qwen2.5-coder", "key_env": "MY_KEY"}] (key_env: the variable holding its key,
        in the server's environment; never a key itself).""",
    ).tag(config=True)
    prices = Dict(
        help="""Prices per million tokens by model name, for the cost the panel shows and the
        Ask budget: {"gpt-4o-mini": [0.15, 0.6]} (prompt, completion) or one number for both
        (the experiments' --price MODEL=IN,OUT, as a table)."""
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
                "label": model_label(name, endpoint) if name else None,
                "price": self.price(name) if name else None}  # fmt: skip

    def store(self) -> EndpointStore:
        """The endpoints people added (read afresh each time: no restart, and the notebook's
        ``%operator model`` or the command line may have changed them). Always in Jupyter's data
        folder, which no workspace can reach: there is no setting to move the typed keys
        somewhere a workspace might."""
        from ..agent.endpoints import EndpointStore

        return EndpointStore()

    def configured(self) -> list[Endpoint]:
        """The endpoints of ``c.OperatorAgent.models`` (malformed entries are logged, skipped)."""
        from ..agent.endpoints import Endpoint, EndpointError, check_endpoint

        found = []
        for entry in self.models:
            fields = {k: entry.get(k, "") for k in ("name", "base_url", "model", "key_env")}
            try:
                check_endpoint(**{k: str(v) for k, v in fields.items()})
            except EndpointError as exc:
                self.log.warning("c.OperatorAgent.models: %s is left out (%s)",
                                 str(fields["name"])[:64], exc.message)  # fmt: skip
                continue
            found.append(Endpoint(**fields, source="config"))
        return found

    def endpoints(self) -> list[Endpoint]:
        """Every named endpoint: the configured ones, then the ones people added."""
        try:
            saved = self.store().saved()
        except ValueError as exc:  # a store that cannot be read: said, not fatal
            self.log.warning("saved model endpoints cannot be read: %s", exc)
            saved = []
        configured = self.configured()
        names = {e.name for e in configured}
        return configured + [e for e in saved if e.name not in names]

    def endpoint(self, name: str) -> Endpoint:
        """The endpoint called ``name``; ApiError(404) when there is none."""
        for found in self.endpoints():
            if found.name == name:
                return found
        raise ApiError(404, "endpoint_not_found", "No model endpoint with this name")

    def price(self, model: str) -> Price | None:
        """The price of ``model`` per million tokens, None when the table has none."""
        from ..agent.prices import price_of

        return price_of(self.prices, model)

    def build_model(self, name: str | None = None) -> Model:
        """A new model client for one run (``name``: a named endpoint, else the server's
        default); ApiError with one sentence when it cannot be made."""
        from ..agent import ModelError, OpenAIChat, ReplayModel
        from ..agent.openai_chat import SettingHints

        if name:
            from ..agent.endpoints import build_model

            endpoint = self.endpoint(name)
            try:
                return build_model(endpoint, self.store())  # type: ignore[no-any-return]
            except (ModelError, ValueError) as exc:
                message = exc.message if isinstance(exc, ModelError) else str(exc)
                raise ApiError(503, "agent_not_configured", message) from None
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
    #: The Ask view's thread the run continues and saves to (``ask_threads``), if any.
    thread: str | None = None


class AgentService:
    """Starts agent runs on the server's loop and keeps their event streams."""

    def __init__(self, config: OperatorAgent, sessions: SessionService) -> None:
        self.config = config
        self.sessions = sessions
        self.runs: OrderedDict[str, AgentRun] = OrderedDict()

    def threads(self, workspace: str) -> ThreadStore:
        """The Ask view's threads of ``workspace``: ``threads/`` beside its run transcripts."""
        from ..agent.transcript import default_directory
        from .ask_threads import ThreadStore

        if workspace not in self.sessions.registry:
            raise ApiError(404, "workspace_not_found", "No workspace with this name")
        configured = self.config.transcripts_dir
        journal = self.sessions.registry.history_operator(workspace).journal.base
        folder = Path(configured) if configured else default_directory(journal)
        return ThreadStore(folder / "threads")

    def start(
        self,
        task: str,
        workspace: str,
        endpoint: str | None = None,
        *,
        max_tokens: int | None = None,
        max_cost: float | None = None,
        thread: str | None = None,
    ) -> AgentRun:
        """Start a run of ``task`` in ``workspace`` (reads and policy as for any session) with
        the model of the named ``endpoint`` (else the server's default), stopped cleanly at
        ``max_tokens`` or ``max_cost``; ``thread``: the Ask view's thread it follows up, and
        where its conversation is saved."""
        from ..agent import Agent

        if workspace not in self.sessions.registry:
            raise ApiError(404, "workspace_not_found", "No workspace with this name")
        model = self.config.build_model(endpoint)
        price = self.config.price(model.name)
        if max_cost is not None and price is None:
            raise ApiError(400, "no_price", f"No price is known for {model.name} "
                           "(c.OperatorAgent.prices): a cost budget cannot be kept")  # fmt: skip
        earlier: list[dict[str, str]] = []
        if thread is not None:
            if any(r.thread == thread and r.workspace == workspace and not r.finished
                   for r in self.runs.values()):  # fmt: skip
                raise ApiError(409, "thread_busy", "A run of this thread is going on")
            earlier = self.threads(workspace).load(workspace, thread)
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
                          engine_call=engine_call, max_tokens=max_tokens, max_cost=max_cost,
                          price=price)  # fmt: skip
        except ValueError:
            operator.close()
            message = "The transcripts folder is this workspace's folder; configure another"
            raise ApiError(503, "agent_not_configured", message) from None
        run = AgentRun(secrets.token_urlsafe(12), workspace, agent, thread=thread)
        agent.subscribe(lambda event: self._record(run, event))
        self._keep(run)
        self._go(run, agent.run(task, earlier))
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
                if run.thread is not None and run.agent.conversation:  # a follow-up goes on here
                    try:
                        self.threads(run.workspace).save(run.workspace, run.thread,
                                                         run.agent.conversation)  # fmt: skip
                    except (OSError, ApiError):
                        log.warning("the Ask thread of run %s could not be saved", run.id)
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
        if isinstance(event, (ev.TurnPlanned, ev.TurnFinished, ev.Stopped)):
            data["cost"] = run.agent.cost  # the run's so far (None: no price known)
        run.events.append(json.dumps(data))
        run.changed.set()

    def _keep(self, run: AgentRun) -> None:
        self.runs[run.id] = run
        for old in list(self.runs.values()):
            if len(self.runs) <= KEEP_RUNS:
                break
            if old.finished:
                del self.runs[old.id]

    def listed(self, workspace: str, thread: str | None = None) -> list[dict[str, Any]]:
        """The runs of ``workspace`` (of its ``thread`` when given) still going on or waiting
        for an answer: a reloaded page finds the question it showed and answers it."""
        found = []
        for run in self.runs.values():
            question = run.agent.question if run.finished else None
            if run.workspace != workspace or (thread is not None and run.thread != thread):
                continue
            if run.finished and question is None:
                continue  # ended for good: its thread holds what it said
            agent = run.agent  # where the run stands, for the reloaded page's status line
            found.append({"run": run.id, "thread": run.thread, "finished": run.finished,
                          "question": question, "events": len(run.events),
                          "turn": agent.turn, "max_turns": agent.max_turns,
                          "tokens": agent.tokens, "tokens_estimated": agent.tokens_estimated,
                          "cost": agent.cost})  # fmt: skip
        return found

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
        config = self.agents.config
        info = config.describe()
        # Ask works with the server's default model or with any named endpoint.
        named = bool(config.endpoints())
        self.finish(json.dumps({**info, "max_turns": config.max_turns, "named": named}))


class AgentRunsHandler(OperatorPostHandler, _AgentHandler):
    """``POST agent/runs``: start a task; ``GET agent/runs?workspace=&thread=``: the runs
    going on or waiting for an answer (``AgentService.listed``)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        async def work() -> dict[str, Any]:
            workspace = self.get_query_argument("workspace", "default")
            thread = self.get_query_argument("thread", None)
            if workspace not in self.agents.sessions.registry:
                raise ApiError(404, "workspace_not_found", "No workspace with this name")
            return {"runs": self.agents.listed(workspace, thread)}

        await self.respond(work())

    @web.authenticated
    @authorized
    async def post(self) -> None:
        async def work() -> dict[str, Any]:
            from .bodies import AskBody

            body = self.parse(AskBody)
            task = body.task
            if body.fix is not None:
                from .fix_error import fix_task

                fix = body.fix
                cells = [cell.model_dump() for cell in fix.cells]
                task = fix_task(fix.notebook, fix.cell_id, fix.cell_index, fix.source,
                                fix.outputs, cells, note=body.task)  # fmt: skip
            if not task.strip():
                raise ApiError(400, "bad_request", "task: the task is empty")
            from .mentions import task_with

            attached = await self._attachments(body)
            task = task_with(task, attached)
            run = self.agents.start(task, body.workspace, body.model, max_tokens=body.max_tokens,
                                    max_cost=body.max_cost, thread=body.thread)  # fmt: skip
            from ..agent.models import model_label

            model = run.agent.model
            return {"run": run.id, "model": model.name, "endpoint": model.endpoint,
                    "label": model_label(model.name, model.endpoint),
                    "max_turns": run.agent.max_turns, "price": run.agent.price,
                    "max_tokens": run.agent.max_tokens, "max_cost": run.agent.max_cost,
                    "task": task, "attachments": [a.describe() for a in attached]}  # fmt: skip

        await self.respond(work())

    async def _attachments(self, body: AskBody) -> list[Attachment]:
        """The files and cells mentioned with ``@``, read through the workspace's jail (in a
        worker thread: a file may take a moment)."""
        from .mentions import attach

        if not body.attachments:
            return []
        registry = self.agents.sessions.registry
        if body.workspace not in registry:
            raise ApiError(404, "workspace_not_found", "No workspace with this name")
        ws, policy = registry.workspace(body.workspace), registry.policy_of(body.workspace)
        return await asyncio.to_thread(attach, ws, policy, list(body.attachments))


class AgentMentionsHandler(_AgentHandler):
    """``GET agent/mentions?workspace=&query=``: the files ``@`` can attach (server/mentions.py)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        async def work() -> dict[str, Any]:
            from .mentions import mentionable

            name = self.get_query_argument("workspace", "default")
            query = self.get_query_argument("query", "")[:512]
            registry = self.agents.sessions.registry
            if name not in registry:
                raise ApiError(404, "workspace_not_found", "No workspace with this name")
            return await asyncio.to_thread(mentionable, registry.workspace(name),
                                           registry.policy_of(name), query)  # fmt: skip

        await self.respond(work())


class AgentThreadHandler(OperatorPostHandler, _AgentHandler):
    """``GET agent/threads?workspace=&key=``: a thread's conversation; ``POST agent/threads``
    ``{"workspace", "key"}``: start it afresh."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        async def work() -> dict[str, Any]:
            workspace = self.get_query_argument("workspace", "default")
            key = self.get_query_argument("key", "")
            messages = self.agents.threads(workspace).load(workspace, key)
            busy = any(r.thread == key and r.workspace == workspace and not r.finished
                       for r in self.agents.runs.values())  # fmt: skip
            return {"workspace": workspace, "key": key, "messages": messages, "busy": busy}

        await self.respond(work())

    @web.authenticated
    @authorized
    async def post(self) -> None:
        async def work() -> dict[str, Any]:
            from .bodies import ThreadBody

            body = self.parse(ThreadBody)
            store = self.agents.threads(body.workspace)
            store.restart(body.workspace, body.key)
            return {"workspace": body.workspace, "key": body.key, "messages": [], "busy": False}

        await self.respond(work())


class AgentModelsHandler(OperatorPostHandler, _AgentHandler):
    """``GET agent/models``: the named endpoints (never a key); ``POST``: add one."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        config = self.agents.config
        models = [_listed(config, e) for e in config.endpoints()]
        self.finish(json.dumps({"models": models, "default": config.describe()}))

    @web.authenticated
    @authorized
    async def post(self) -> None:
        async def work() -> dict[str, Any]:
            from ..agent.endpoints import Endpoint, EndpointError
            from .bodies import EndpointBody

            body = self.parse(EndpointBody)
            config = self.agents.config
            endpoint = Endpoint(body.name, body.base_url.strip(), body.model.strip(),
                                body.key_env.strip())  # fmt: skip
            taken = [e.name for e in config.configured()]
            try:
                added = config.store().add(endpoint, body.api_key, taken=taken)
            except EndpointError as exc:
                status = 409 if exc.code == "endpoint_exists" else 400
                raise ApiError(status if exc.code != "store" else 500, exc.code,
                               exc.message) from None  # fmt: skip
            return {"model": _listed(config, added)}

        await self.respond(work())


class AgentModelHandler(_AgentHandler):
    """``DELETE agent/models/{name}``: forget an endpoint a person added (and its key)."""

    @web.authenticated
    @authorized
    async def delete(self, name: str) -> None:
        async def work() -> dict[str, Any]:
            from ..agent.endpoints import EndpointError

            config = self.agents.config
            if any(e.name == name for e in config.configured()):
                raise ApiError(409, "endpoint_configured", "This endpoint is set in the "
                               "server's configuration (c.OperatorAgent.models)")  # fmt: skip
            try:
                config.store().remove(name)
            except EndpointError as exc:
                raise ApiError(404 if exc.code == "endpoint_not_found" else 500, exc.code,
                               exc.message) from None  # fmt: skip
            return {"removed": name}

        await self.respond(work())


def _listed(config: OperatorAgent, endpoint: Endpoint) -> dict[str, Any]:
    """An endpoint as the panel lists it: no key, and its price when the table has one."""
    return {**endpoint.public(), "price": config.price(endpoint.model)}


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
        (f"/{prefix}/agent/models", AgentModelsHandler),
        (f"/{prefix}/agent/models/{ENDPOINT_NAME}", AgentModelHandler),
        (f"/{prefix}/agent/runs", AgentRunsHandler),
        (f"/{prefix}/agent/threads", AgentThreadHandler),
        (f"/{prefix}/agent/mentions", AgentMentionsHandler),
        (f"/{prefix}/agent/runs/{RUN_ID}/events", AgentEventsHandler),
        (f"/{prefix}/agent/runs/{RUN_ID}/stop", AgentStopHandler),
        (f"/{prefix}/agent/runs/{RUN_ID}/answer", AgentAnswerHandler),
    ]


def setup_agents(app: Any, sessions: SessionService) -> AgentService:
    """Build the Ask mode service for the extension ``app`` (reads ``c.OperatorAgent``)."""
    return AgentService(OperatorAgent(parent=app), sessions)
