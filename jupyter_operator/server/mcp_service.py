"""The MCP server: tool calls become sessions of the REST API, decided in JupyterLab.

Each tool call is rendered as the command a reply could hold (``mcp_tools``) and planned by
``SessionService.scan``, the entry ``POST scan`` uses: reads answer at once, a change a rule
allows is applied at once, and a change that asks a person waits in a session the panel lists
(``GET sessions``, labelled with the client's name and version) and decides (``POST .../decide``)
like any reply's. While it waits the call sends progress notifications (when the client gave a
progress token: clients give up after about a minute without a word), and after
``c.OperatorMCP.wait_seconds`` it answers that the change is pending under the session's id;
``operator_wait`` waits again, ``operator_status`` lists what waits. Nothing is lost when a
client goes away: the session keeps the decision and its result.

The protocol (both the 2025-11-25 handshake and the 2026-07-28 era without one), its types and its
sessions are the ``mcp`` SDK's; it is imported by the first MCP request only.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from traitlets import Float, Unicode
from traitlets.config import Configurable

from .errors import ApiError

if TYPE_CHECKING:
    from .sessions import SessionService

log = logging.getLogger(__name__)
#: How often a waiting call looks at its session again, in seconds.
POLL_SECONDS = 0.25
#: Calls remembered for operator_wait and operator_status (the oldest are forgotten first;
#: their sessions stay in the REST API).
MAX_CALLS = 500
#: The label of a client that did not say who it is.
UNNAMED = "MCP client"
#: The ASGI scope key of the Jupyter user who made the request (set by ``mcp_handler``).
USER_KEY = "jupyter_operator.user"


class OperatorMCP(Configurable):
    """The MCP server at ``{base_url}jupyter-operator/mcp`` (``c.OperatorMCP.*``)."""

    wait_seconds = Float(
        45.0,
        help="""How long a tool call waits for a person's decision before it answers that the
        change is pending under an id (clients give up after about 60 s); operator_wait
        waits again.""",
    ).tag(config=True)

    progress_seconds = Float(
        5.0, help="Seconds between progress notifications (keep-alives) while a call waits."
    ).tag(config=True)

    workspace = Unicode(
        "default", help="The workspace MCP clients work in (one of OperatorExtension.workspaces)."
    ).tag(config=True)


@dataclass
class McpCall:
    """A tool call that waits (or waited) in its client's session: who made it and what."""

    session: str
    items: tuple[str, ...]
    tool: str
    client: str
    created: float = field(default_factory=time.time)
    #: Set once its items were decided (operator_status skips it).
    decided: bool = False

    @property
    def id(self) -> str:
        """The id the client is given: ``session:item`` (a session gathers many calls)."""
        return call_id(self.session, self.items)


def call_id(session: str, items: tuple[str, ...] | list[str]) -> str:
    """A call's id: its client's session and its item (session ids hold no ``:``)."""
    return f"{session}:{items[0]}" if items else session


def client_label(ctx: Any) -> str:
    """The client's ``name version`` from its ``clientInfo`` (handshake or request envelope)."""
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    if info is None or not getattr(info, "name", ""):
        return UNNAMED
    text = f"{info.name} {info.version or ''}"
    # The client names itself: shown to people, so one line of printable text, bounded.
    return "".join(ch if ch.isprintable() else " " for ch in text).strip()[:120] or UNNAMED


def client_key(ctx: Any, label: str) -> str:
    """Which client session a call belongs to: the client's MCP session (2025-11-25), else its
    ``name version`` (2026-07-28 has no sessions), always within the authenticated user.

    Two users never share a session; two clients of one user that call themselves the same
    and have no MCP session do.
    """
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None) or {}
    user = str(scope.get(USER_KEY) or "")
    headers = getattr(request, "headers", None)
    mcp_session = headers.get("mcp-session-id") if headers is not None else None
    if mcp_session:
        return f"{user}\x00session\x00{mcp_session}"
    return f"{user}\x00client\x00{label}"


class McpService:
    """The SDK's server and session manager, built on first use, over the session service."""

    def __init__(self, config: OperatorMCP, sessions: SessionService, version: str) -> None:
        self.config = config
        self.sessions = sessions
        self.version = version
        self.calls: OrderedDict[str, McpCall] = OrderedDict()  # session id -> its call
        self._ids = itertools.count(1)
        self._manager: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._starting = asyncio.Lock()
        #: Who decides a call that waits, where no panel does (``mcp --standalone`` asks on the
        #: terminal): called with the call's view once planned, it decides through
        #: ``sessions.decide`` while the call waits as usual. None: the REST API's clients.
        self.decider: Callable[[dict[str, Any]], Awaitable[None]] | None = None
        self._deciding: set[asyncio.Task[None]] = set()

    # -- the SDK ----------------------------------------------------------------------------

    def server(self) -> Any:
        """The SDK's low-level server with the tools (for any transport)."""
        from mcp.server.lowlevel import Server

        return Server("jupyter-operator", version=self.version, instructions=INSTRUCTIONS,
                      on_list_tools=self._list_tools, on_call_tool=self._call_tool)  # fmt: skip

    async def manager(self) -> Any:
        """The SDK's streamable-HTTP session manager, running (started on first use)."""
        async with self._starting:
            if self._manager is None:
                from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

                manager = StreamableHTTPSessionManager(app=self.server())
                started = asyncio.Event()
                self._task = asyncio.create_task(self._serve(manager, started))
                await started.wait()
                self._manager = manager
        return self._manager

    async def _serve(self, manager: Any, started: asyncio.Event) -> None:
        async with manager.run():
            started.set()
            await self._stop.wait()

    async def close(self) -> None:
        """Stop the session manager (open streams end)."""
        self._stop.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def _list_tools(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        from .mcp_tools import TOOLS, input_schema

        tools = [types.Tool(name=tool.name, description=tool.description,
                            input_schema=input_schema(tool),
                            annotations=types.ToolAnnotations(
                                read_only_hint=tool.read_only,
                                destructive_hint=tool.destructive,
                                idempotent_hint=tool.idempotent, open_world_hint=False))
                 for tool in TOOLS]  # fmt: skip
        hints = types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                      open_world_hint=False)  # fmt: skip
        tools.append(types.Tool(name="undo", description=UNDO_TEXT, input_schema=UNDO_SCHEMA,
                                annotations=types.ToolAnnotations(
                                    read_only_hint=False, destructive_hint=True,
                                    idempotent_hint=False, open_world_hint=False)))  # fmt: skip
        tools.append(types.Tool(name="operator_wait", description=WAIT_TEXT, annotations=hints,
                                input_schema=WAIT_SCHEMA))  # fmt: skip
        tools.append(types.Tool(name="operator_status", description=STATUS_TEXT,
                                annotations=hints, input_schema={"type": "object",
                                "properties": {}, "additionalProperties": False}))  # fmt: skip
        return types.ListToolsResult(tools=tools)

    # -- calls ------------------------------------------------------------------------------

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        name, arguments = params.name, dict(params.arguments or {})
        if name == "operator_wait":
            return await self._wait_again(ctx, arguments)
        if name == "operator_status":
            return await self._status()
        if name == "undo":
            return await self._undo(ctx, arguments)
        return await self.call(ctx, name, arguments)

    async def _undo(self, ctx: Any, arguments: dict[str, Any]) -> Any:
        """Propose undoing a change as the change that restores it: a person decides it (or a
        rule, as for a reply's ``/undo``); it is never undone here."""
        from ..workspace.history_records import ENTRY_ID

        entry_id = arguments.get("id")
        if set(arguments) - {"id"} or (entry_id is not None and (
                not isinstance(entry_id, str) or not ENTRY_ID.fullmatch(entry_id))):  # fmt: skip
            return _error("Invalid arguments (ERR_INVALID_ARGUMENTS): 'id' is a history "
                          "entry id such as j12, and nothing else is taken. Nothing was done.")
        client = client_label(ctx)
        try:
            found = await self.sessions.undo_proposal(self.config.workspace, entry_id,
                                                      None if entry_id else client)  # fmt: skip
        except ApiError as exc:
            return _error(f"Refused ({exc.code}): {exc.message}")
        if found["content"] is None:  # the change made the file: undoing it deletes the file
            return await self.call(ctx, "delete_file", {"path": found["path"]}, tool="undo")
        return await self.call(ctx, "write_file", {"path": found["path"],
                                                   "content": found["content"]},
                               tool="undo")  # fmt: skip

    async def call(self, ctx: Any, name: str, arguments: dict[str, Any],
                   tool: str | None = None) -> Any:  # fmt: skip
        """Plan one tool call through the REST scan and answer its outcome (or that it waits).

        A call that waits for a person joins its client's session (``client_key``): the panel
        lists one session per client, and each call's item is decided on its own.
        """
        from .mcp_tools import ToolArgumentError, render

        try:
            text, dialect = render(name, arguments, f"mcp-{next(self._ids)}")
        except ToolArgumentError as exc:
            return _error(f"Invalid arguments ({exc.code}): {exc.message}. Nothing was done.")
        client = client_label(ctx)
        # whole_details: a card shows the first lines of a result; the client gets all of it.
        try:
            view = await self.sessions.scan(text, self.config.workspace, None, dialect,
                                            label=client, whole_details=True,
                                            group=client_key(ctx, client))  # fmt: skip
        except ApiError as exc:
            return _error(f"Refused ({exc.code}): {exc.message}")
        made = McpCall(view["session"], tuple(i["id"] for i in view["items"]), tool or name,
                       client)  # fmt: skip
        self.calls[made.id] = made
        while len(self.calls) > MAX_CALLS:
            self.calls.popitem(last=False)
        if self.decider is not None and not view["done"]:
            # Decided beside the wait, which keeps the client informed (progress, pending).
            task = asyncio.create_task(self.decider(view))
            self._deciding.add(task)
            task.add_done_callback(self._deciding.discard)
        return await self._outcome(ctx, view, made.id)

    async def _wait_again(self, ctx: Any, arguments: dict[str, Any]) -> Any:
        wanted = arguments.get("id")
        unknown = _error("No call of an MCP client has this id (see operator_status).")
        if not isinstance(wanted, str) or not wanted:
            return unknown
        session_id, _, item_id = wanted.partition(":")
        only = {item_id} if item_id else None
        try:
            view = await self.sessions.get(session_id, whole_details=True, only=only)
        except ApiError as exc:
            if wanted not in self.calls:
                return unknown
            return _error(f"Gone ({exc.code}): {exc.message}")
        if wanted not in self.calls and (not view["items"] or view.get("label") is None):
            return unknown  # a reply's session, not a tool call's (after a restart: labelled)
        if not view["items"]:
            return _error(GONE)
        return await self._outcome(ctx, view, wanted)

    async def _outcome(self, ctx: Any, view: dict[str, Any], wanted: str) -> Any:
        """Wait up to ``wait_seconds`` for the call's decision, with keep-alives."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + self.config.wait_seconds
        next_beat = start
        only = {i["id"] for i in view["items"]}
        while not view["done"]:
            now = loop.time()
            if now >= deadline:
                return _pending(view, wanted)
            if now >= next_beat:
                next_beat = now + self.config.progress_seconds
                await ctx.session.report_progress(
                    round(now - start, 3), None, "waiting for a person's decision in JupyterLab"
                )
            await asyncio.sleep(min(POLL_SECONDS, deadline - now))
            try:
                view = await self.sessions.get(view["session"], whole_details=True, only=only)
            except ApiError as exc:  # forgotten meanwhile (a memory-only session went idle)
                return _error(f"Gone ({exc.code}): {exc.message}")
            if not view["items"]:  # a call kept in memory only, its session reloaded without it
                return _error(GONE)
        made = self.calls.get(wanted)
        if made is not None:
            made.decided = True
        return _final(view, wanted)

    async def _status(self) -> Any:
        lines = []
        for wanted, made in list(self.calls.items()):
            if made.decided:
                continue
            try:
                view = await self.sessions.get(made.session, only=set(made.items))
            except ApiError:
                self.calls.pop(wanted, None)
                continue
            if view["done"]:
                made.decided = True
                continue
            item = view["items"][0] if view["items"] else {}
            lines.append(f"{wanted}: {made.tool} ({made.client}) {item.get('summary', '')}")
        text = "\n".join(lines) or "Nothing is pending."
        import mcp_types as types

        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def _text(view: dict[str, Any]) -> tuple[str, bool]:
    """What the call's items say (one item a call: its summary and its details)."""
    parts, failed = [], False
    for item in view["items"]:
        failed = failed or item.get("ok") is False
        parts.append(item.get("summary") or "")
        if item.get("details"):
            parts.append(str(item["details"]))
    return "\n\n".join(p for p in parts if p), failed


def _final(view: dict[str, Any], wanted: str) -> Any:
    import mcp_types as types

    text, failed = _text(view)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        is_error=failed,
        structured_content={"status": "done", "id": wanted},
    )


def _pending(view: dict[str, Any], wanted: str) -> Any:
    import mcp_types as types

    summary = "; ".join(i.get("summary") or "" for i in view["items"] if i.get("needs_approval"))
    text = (f"Pending (id {wanted}): {summary or 'the change'} waits for a person's "
            "decision in JupyterLab. Nothing was changed yet. Call operator_wait with this id "
            "to collect the outcome.")  # fmt: skip
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content={"status": "pending",
                                                    "id": wanted})  # fmt: skip


def _error(text: str) -> Any:
    import mcp_types as types

    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


INSTRUCTIONS = (
    "Tools of jupyter-operator: read, search and change the files and notebooks of one "
    "workspace inside a Jupyter server, run notebook cells and shell commands. Reads answer at "
    "once. Every change waits for a person's approval in JupyterLab unless a rule allows it; a "
    "call that outlives the wait answers 'Pending (id ...)': collect it with operator_wait. A "
    "rejected change answers an error carrying the person's reason."
)
WAIT_TEXT = (
    "Wait again for a change that answered 'Pending (id ...)' and return its outcome: the real "
    "result once approved, the person's reason once rejected, or 'Pending' again."
)
GONE = ("Gone: the server no longer has this call (a shell command is kept in memory only, and "
        "its session was forgotten, then loaded back without it); its outcome is not known.")
UNDO_TEXT = (
    "Undo a change of the workspace's history: 'id' (a history entry such as j12), or without "
    "it your own latest change that is not undone yet. It is proposed as the change that "
    "restores the file, and a person approves or rejects it in JupyterLab (or a rule decides) "
    "like any change; it answers 'Pending (id ...)' while nobody has decided."
)
UNDO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string", "pattern": "^j[1-9][0-9]{0,15}$",
                          "description": "The history entry to undo (default: your latest)."}},
    "additionalProperties": False,
}
STATUS_TEXT = "List the changes of MCP clients that still wait for a person's decision."
WAIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string", "description": "The id a pending answer named."}},
    "required": ["id"],
    "additionalProperties": False,
}
