"""``OperatorExtension``: the jupyter-server extension app, its configuration and its routes.

Configuration (``jupyter_server_config.py`` or the command line)::

    c.OperatorExtension.workspaces = {"default": "~/project", "scratch": "/tmp/scratch"}
    c.OperatorExtension.policy_file = "~/.config/operator-rules.txt"   # outside every workspace
    c.OperatorExtension.policy_rules = ["deny fs.delete **", "auto fs.write notes/**"]
    c.OperatorExtension.protected_paths = [".git", ".env"]
    c.OperatorExtension.max_body_size = 1_572_864
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_server.extension.application import ExtensionApp
from tornado.ioloop import PeriodicCallback
from traitlets import Bool, Dict, Float, Integer, List, TraitError, Unicode, validate

from .._version import __version__
from .agent_handlers import agent_handlers
from .handlers import rest_handlers
from .limits import DEFAULT_MESSAGE_LIMIT, MAX_B64_CHARS
from .mcp_handler import mcp_handlers
from .websocket import FileSocketHandler
from .workspaces import resolve_roots

if TYPE_CHECKING:
    from ..engine import Policy, ShellPolicy
    from .agent_handlers import AgentService
    from .fileapi import FileApi
    from .mcp_service import McpService
    from .sessions import SessionService
    from .workspaces import WorkspaceRegistry

__all__ = ["DEFAULT_MESSAGE_LIMIT", "OperatorExtension"]


@dataclass
class Services:
    """What the handlers call, built on the first request (see ``OperatorExtension.services``)."""

    registry: WorkspaceRegistry
    sessions: SessionService
    file_api: FileApi
    agents: AgentService


class OperatorExtension(ExtensionApp):
    """Serves the operator REST API and the WebSocket file API."""

    name = "jupyter_operator"
    version = __version__
    description = "Run the file operations a language model proposes, with approval, in Jupyter."
    load_other_extensions = True

    workspaces = Dict(
        key_trait=Unicode(),
        value_trait=Unicode(),
        help="""Workspace name -> root folder. Clients only ever send a name.
        Relative roots are taken from the server's root_dir. Default: one workspace named
        'default' at the server's root_dir.""",
    ).tag(config=True)

    policy_rules = List(
        Unicode(),
        help="""Rules, in order, one per entry: 'auto|ask|deny [ACTION] [PATHGLOB]', e.g.
        ['deny fs.delete **', 'auto fs.write notes/**', 'ask **/*.ipynb']. The first rule that
        matches an action and its path decides. Come after the rules of policy_file. Empty (and
        no file): reads run at once, every change waits for approval. Code runs without asking
        only under a rule that names runs ('auto runs scratch/**', 'auto nb.runCell ...', 'auto
        all'), never under '*' or a bare path, and asks while any deny rule limits files.""",
    ).tag(config=True)

    policy_file = Unicode(
        "",
        help="""A rules file (one rule per line, '#' comments), read at start. It must lie
        outside every workspace (a model could otherwise rewrite its own approvals); the server
        refuses to start otherwise, and changes to it through the operator are refused.""",
    ).tag(config=True)

    policy = Unicode(
        "",
        help="""The older one-line form, e.g. 'auto=reads,writes deny=deletes' (or rule lines);
        its rules come after policy_file's and policy_rules'.""",
    ).tag(config=True)

    static_saved_cards = Bool(
        True,
        help="""Save decided notebook cards as their static text (no widget view), so a notebook
        reopened without a kernel shows each card's final state instead of "model not found".""",
    ).tag(config=True)

    shell_rules = Unicode(
        "",
        help="""Rules for shell commands of JSON operations, e.g.
        'allow=pytest,ls deny=*sudo* unlisted=ask network=off'. Empty: every command waits for
        approval, sandboxed with bubblewrap where it is installed, without network.""",
    ).tag(config=True)

    cell_actions = Bool(
        True,
        help="""Let models change notebooks cell by cell (the protocol's nb.* host extension:
        nb.readCells, nb.insertCell, ...), each change still approved. False: the spec given to
        models leaves them out and a reply using them gets ERR_UNKNOWN_ACTION.""",
    ).tag(config=True)

    allow_auto_runs = Bool(
        False,
        help="""Let rules (auto nb.runCell ...) run cells in notebooks open in JupyterLab without
        asking. Those kernels are the person's own, unsandboxed: off by default. A notebook may
        also allow it for itself (metadata jupyter_operator.policy: auto-run).""",
    ).tag(config=True)

    notebook_policy_cap = Unicode(
        "auto-run",
        help="""The most any notebook's own policy (metadata jupyter_operator.policy) may allow:
        off, dry-run, no-run, run or auto-run. 'no-run' keeps every notebook's cells from being
        run by a model on this server, whatever the notebook says.""",
    ).tag(config=True)

    protected_paths = List(
        Unicode(),
        default_value=None,
        allow_none=True,
        help="Paths no command may change (glob patterns). None: the workspace layer's defaults.",
    ).tag(config=True)

    journal_dir = Unicode(
        "",
        help="Folder for the undo journal and trash (outside every workspace). Empty: the default.",
    ).tag(config=True)

    max_body_size = Integer(
        DEFAULT_MESSAGE_LIMIT,
        help="Largest REST request body in bytes; larger requests get 413.",
    ).tag(config=True)

    max_message_size = Integer(
        DEFAULT_MESSAGE_LIMIT,
        help="Largest WebSocket frame in bytes; a larger frame closes the connection (1009).",
    ).tag(config=True)

    max_sessions = Integer(
        100, help="Sessions kept in memory; the least recently used go first."
    ).tag(config=True)

    session_idle_seconds = Float(
        3600.0, help="A session unused for this long leaves memory (it stays saved on disk)."
    ).tag(config=True)

    session_keep_seconds = Float(
        7 * 24 * 3600.0,
        help="""A saved session not changed for this long is deleted. Sessions are saved beside
        the undo journal (in its 'sessions' folder) so decisions survive reloads and restarts.""",
    ).tag(config=True)

    max_saved_sessions = Integer(
        500, help="Saved sessions kept on disk; the least recently changed go first."
    ).tag(config=True)

    @validate("max_message_size")
    def _check_message_size(self, proposal: dict[str, Any]) -> int:
        # A 1 MiB file in base64 plus room for the path and the other fields.
        value, least = int(proposal["value"]), MAX_B64_CHARS + 32_768
        if value < least:
            raise TraitError(f"max_message_size must be at least {least} (a 1 MiB file write)")
        return value

    @validate("notebook_policy_cap")
    def _check_cap(self, proposal: dict[str, Any]) -> str:
        from ..notebooks.teacher import LEVELS

        if proposal["value"] not in LEVELS:
            raise TraitError(f"notebook_policy_cap must be one of {', '.join(LEVELS)}")
        return str(proposal["value"])

    @validate("max_body_size", "max_sessions", "max_saved_sessions")
    def _check_positive(self, proposal: dict[str, Any]) -> int:
        value = int(proposal["value"])
        if value < 1:
            raise TraitError(f"{proposal['trait'].name} must be positive")
        return value

    def initialize_settings(self) -> None:
        """Check the configuration; the services are built on first use.

        Loading the extension stays quick (``bench/server_start.py``): the engine, the
        protocol and pydantic load with the first request. What can be checked without them is
        checked here, so a misconfigured server says so at start: the workspace names and
        roots, and the policy (its file, rules and text) and shell rules when any are set
        (parsing those loads the engine).
        """
        assert self.serverapp is not None
        configured = dict(self.workspaces) or {"default": self.serverapp.root_dir}
        self._services: Services | None = None
        self.load_rules(configured, self.serverapp.root_dir)
        if self.static_saved_cards:  # a light module: saves must be hooked before any request
            from .savehook import register

            register(self.serverapp.contents_manager)
        self.log.info("jupyter_operator: workspaces %s", ", ".join(self._roots))

    def load_rules(self, configured: dict[str, str], root_dir: str) -> None:
        """Resolve the workspace roots (name -> folder, relative ones from ``root_dir``) and
        read the policy and shell rules of the configuration; TraitError otherwise."""
        self._policy: Policy | None = None
        self._shell_policy: ShellPolicy | None = None
        try:
            self._roots = resolve_roots(configured, root_dir)
            if self.policy_file or self.policy_rules or self.policy.strip():
                from ..engine.policy import Policy

                self._policy = Policy.from_options(
                    file=self.policy_file or None, rules=self.policy_rules, text=self.policy
                )
                for root in self._roots.values():
                    self._policy.check_outside(root)
            if self.shell_rules.strip():
                from ..engine.shell_policy import ShellPolicy

                self._shell_policy = ShellPolicy.parse(self.shell_rules)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise TraitError(f"OperatorExtension: cannot read policy_file: {reason}") from None
        except ValueError as exc:
            raise TraitError(f"OperatorExtension: {exc}") from None

    @property
    def services(self) -> Services:
        """The session service, the file API and Ask mode, built on first use."""
        if self._services is None:
            self._services = self._build_services()
        return self._services

    # What the handlers use (each builds the services on first use).
    @property
    def registry(self) -> WorkspaceRegistry:
        """The configured workspaces."""
        return self.services.registry

    @property
    def sessions(self) -> SessionService:
        """The REST sessions."""
        return self.services.sessions

    @property
    def file_api(self) -> FileApi:
        """The WebSocket file API."""
        return self.services.file_api

    @property
    def agents(self) -> AgentService:
        """The panel's Ask mode."""
        return self.services.agents

    @property
    def mcp(self) -> McpService:
        """The MCP server (``c.OperatorMCP``), built by the first MCP request.

        ApiError(501) when the ``mcp`` SDK is not installed (``jupyter-operator[mcp]``).
        """
        if getattr(self, "_mcp", None) is None:
            import importlib.util

            from .errors import ApiError

            if importlib.util.find_spec("mcp") is None:
                raise ApiError(501, "mcp_not_installed",
                               "The MCP server needs the mcp package: pip install "
                               "'jupyter-operator[mcp]'")  # fmt: skip
            from .mcp_service import McpService, OperatorMCP

            self._mcp = McpService(OperatorMCP(parent=self), self.sessions, __version__)
        return self._mcp

    def _build_services(self) -> Services:
        from .agent_handlers import setup_agents
        from .fileapi import FileApi
        from .open_pages import OpenPages
        from .rooms import SharedRooms

        assert self.serverapp is not None
        sessions = self.session_service(OpenPages(Path(self.serverapp.root_dir)),
                                        SharedRooms(self.serverapp))
        agents = setup_agents(self, sessions)  # the panel's Ask mode (c.OperatorAgent.*)
        return Services(sessions.registry, sessions, FileApi(sessions.registry), agents)

    def session_service(self, pages: Any = None, rooms: Any = None) -> SessionService:
        """The workspaces (of :meth:`load_rules`) and their sessions, as configured; ``pages``
        are the notebooks open in pages, ``rooms`` the collaborative rooms (neither without a
        server: ``mcp --standalone``)."""
        from ..engine.shell_policy import ShellPolicy
        from ..workspace.journal import default_directory
        from ..workspace.sessionstore import SessionStore
        from .sessions import SessionService
        from .workspaces import EXTENSIONS, WorkspaceRegistry

        registry = WorkspaceRegistry(
            self._roots,
            policy=self._policy,
            shell_policy=self._shell_policy or ShellPolicy.parse(""),
            protected=self.protected_paths,
            journal_dir=self.journal_dir or None,
            extensions=EXTENSIONS if self.cell_actions else (),
            allow_auto_runs=self.allow_auto_runs,
            notebook_cap=self.notebook_policy_cap,
            pages=pages,
            rooms=rooms,
        )
        store = SessionStore(
            Path(self.journal_dir or default_directory()) / "sessions",
            keep_seconds=self.session_keep_seconds,
            max_files=self.max_saved_sessions,
        )
        store.expire()
        return SessionService(
            registry,
            max_sessions=self.max_sessions,
            idle_seconds=self.session_idle_seconds,
            store=store,
        )

    def initialize_handlers(self) -> None:
        """Register the REST routes and the file API socket (base_url is prefixed for us)."""
        self.handlers.extend(rest_handlers())
        self.handlers.extend(agent_handlers())
        self.handlers.extend(mcp_handlers())
        self.handlers.append((r"/jupyter-operator/files", FileSocketHandler))

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        """Sweep idle sessions once a minute, so an idle server releases them too (the first
        sweep builds the services if no request has, and expires old saved sessions)."""
        self._sweeper = PeriodicCallback(self._sweep, 60_000)
        self._sweeper.start()
        # Cell runs whose page went away end without anyone looking at their session.
        from .sessions import RUN_LEASE_SECONDS

        self._lost_runs = PeriodicCallback(self._end_lost_runs, RUN_LEASE_SECONDS * 500)
        self._lost_runs.start()

    async def _end_lost_runs(self) -> None:
        services = getattr(self, "_services", None)
        if services is None:  # no request yet: no run either
            return
        try:
            await services.sessions.end_lost_runs()
        except Exception:  # a sweep never stops the server; the next one tries again
            self.log.warning("jupyter_operator: could not end lost cell runs", exc_info=True)

    def _sweep(self) -> None:
        self.sessions.sweep()
        if self.sessions.store is not None:
            try:
                self.sessions.store.expire()
            except OSError:
                self.log.warning("jupyter_operator: could not expire saved sessions", exc_info=True)

    async def stop_extension(self) -> None:
        """Forget sessions and close open workspace descriptors."""
        for name in ("_sweeper", "_lost_runs"):
            sweeper = getattr(self, name, None)
            if sweeper is not None:
                sweeper.stop()
        mcp = getattr(self, "_mcp", None)
        if mcp is not None:
            await mcp.close()
        services = getattr(self, "_services", None)
        if services is not None:  # never built: nothing to close
            services.agents.close()
            services.sessions.close()
            services.registry.close()
