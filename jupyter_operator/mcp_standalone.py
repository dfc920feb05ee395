"""``jupyter-operator mcp --standalone ROOT``: the MCP tools over stdio, with no Jupyter server.

For clients that only launch stdio servers when no Jupyter server runs. The tools, their
rendering and their planning are the Jupyter server's own (``server.mcp_service.McpService``
over ``SessionService.scan``, on one workspace ``default`` at ROOT), configured as the server
would be: the rules, protected paths and journal of ``c.OperatorExtension`` in the Jupyter
configuration files, then ``--policy``/``--rule``. What differs is who decides a change that
asks a person: stdin and stdout carry the protocol, so the person is asked on the controlling
terminal (``/dev/tty``), one change at a time, with its diff. Without a terminal such a change
is rejected, and the client is told why.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, Any

#: ``asker(client, item)`` -> ``("approve" | "reject", reason or None)``: one decision.
Asker = Callable[[str, Any], Awaitable[tuple[str, str | None]]]

NO_TERMINAL = (
    "nobody can be asked: jupyter-operator mcp --standalone asks on its terminal and has none. "
    "A rule may allow such changes (c.OperatorExtension.policy_rules, or --rule)"
)


class TerminalAsker:
    """Asks on ``/dev/tty`` (or the given streams), one change at a time."""

    def __init__(self, tty: IO[str] | None = None, answers: IO[str] | None = None) -> None:
        self._tty, self._answers = tty, answers
        self._opened = tty is not None
        self._lock = asyncio.Lock()

    async def __call__(self, client: str, item: Any) -> tuple[str, str | None]:
        async with self._lock:  # calls at once are asked one after the other
            if not self._opened:
                from .terminal import open_terminal

                self._opened = True
                self._tty = open_terminal()
                self._answers = self._tty
            if self._tty is None:
                return "reject", NO_TERMINAL
            return await asyncio.to_thread(self._ask, client, item)

    def _ask(self, client: str, item: Any) -> tuple[str, str | None]:
        from .terminal import describe_pending, visible_text

        tty, answers = self._tty, self._answers or self._tty
        assert tty is not None and answers is not None
        tty.write(f"\n{visible_text(client)} via MCP proposes:")
        describe_pending(item, tty)
        tty.write(f"Apply {visible_text(item.id)}? [y/N/reason]: ")
        tty.flush()
        line = answers.readline()
        answer = line.strip() if line else ""
        if answer.lower() in ("y", "yes"):
            return "approve", None
        return "reject", None if answer.lower() in ("", "n", "no") else answer


def decider(sessions: Any, asker: Asker) -> Callable[[dict[str, Any]], Awaitable[None]]:
    """``McpService.decider``: each waiting item of a call asked of ``asker``, then decided
    through the session service (so the history and the saved session record it)."""

    async def decide(view: dict[str, Any]) -> None:
        ids = {item["id"] for item in view["items"]}
        for item in await sessions.waiting_items(view["session"], ids):
            try:
                decision, reason = await asker(view.get("label") or "", item)
            except Exception as exc:  # a broken terminal: no decision is a rejection
                decision, reason = "reject", f"the question failed ({type(exc).__name__})"
            await sessions.decide(view["session"], item.id, decision, reason)

    return decide


def jupyter_config() -> Any:
    """The Jupyter server's configuration files (``jupyter_server_config.{json,py}`` on the
    Jupyter config path), merged as the server merges them."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config.loader import (
        Config,
        ConfigFileNotFound,
        JSONFileConfigLoader,
        PyFileConfigLoader,
    )

    config = Config()
    for folder in reversed(jupyter_config_path()):  # the first folder wins: merged last
        for loader in (JSONFileConfigLoader, PyFileConfigLoader):
            suffix = "json" if loader is JSONFileConfigLoader else "py"
            try:
                config.merge(loader(f"jupyter_server_config.{suffix}", folder).load_config())
            except ConfigFileNotFound:
                continue
    return config


async def serve(root: Path, rules: list[str] | None = None, policy_file: str | None = None,
                asker: Asker | None = None, config: Any = None) -> int:  # fmt: skip
    """Serve the tools on stdin/stdout until the client closes them; 2 with a bad setup."""
    from traitlets import TraitError

    from . import __version__
    from .server.app import OperatorExtension
    from .server.mcp_service import McpService, OperatorMCP

    if not root.is_dir():
        print(f"jupyter-operator: {root} is not a folder", file=sys.stderr)
        return 2
    extension = OperatorExtension(config=config if config is not None else jupyter_config())
    extension.policy_rules = [*extension.policy_rules, *(rules or [])]
    if policy_file:
        extension.policy_file = policy_file
    try:
        extension.load_rules({"default": str(root)}, str(root))
    except TraitError as exc:
        print(f"jupyter-operator: {exc}", file=sys.stderr)
        return 2
    sessions = extension.session_service()
    settings = OperatorMCP(parent=extension)
    settings.workspace = "default"  # the one workspace, ROOT
    service = McpService(settings, sessions, __version__)
    service.decider = decider(sessions, asker or TerminalAsker())
    from mcp.server.stdio import stdio_server

    server = service.server()
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        sessions.close()
        await sessions.drain()
        sessions.registry.close()
    return 0
