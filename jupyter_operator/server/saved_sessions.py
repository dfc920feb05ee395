"""What a REST session saves, and how a saved one is checked and rebuilt.

The files themselves (names, atomic replace, expiry) are
:class:`~jupyter_operator.workspace.sessionstore.SessionStore`'s. What is read back is untrusted:
anything that does not check out raises ``PersistError`` and the caller forgets the file.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from .session_views import Session
from .workspaces import WorkspaceRegistry, close_operator

if TYPE_CHECKING:
    from ..workspace.sessionstore import SessionStore

log = logging.getLogger(__name__)


def save_session(store: SessionStore | None, session: Session) -> None:
    """Save ``session`` (in the worker thread, under the workspace lock).

    JSON-operation sessions and turns of the agent loop are kept in memory only; a
    string-command session saves a marker that explains a later lookup.
    """
    if store is None or session.adopted:
        return
    dialect = session.run.dialect
    if dialect not in ("operator", "commands"):
        return
    from ..engine.persist import dump_run
    from .client_runs import ClientRun, dump_parts
    from .command_runs import memory_marker

    if isinstance(session.run, ClientRun):
        data = dump_parts(session.run, workspace=session.workspace, folder=session.folder,
                          created=session.created, entries=session.entries,
                          label=session.label, group=session.group)  # fmt: skip
    elif dialect == "commands":
        data = memory_marker(session.workspace, session.created)
    else:
        data = dump_run(session.run, session.text, workspace=session.workspace,
                        folder=session.folder, created=session.created,
                        entries=session.entries, label=session.label)  # fmt: skip
    try:
        store.save(session.id, data)
    except OSError:
        # The decision itself stands; only a reload would lose this session.
        log.warning("could not save session %s", session.id, exc_info=True)


def checked_data(raw: bytes, registry: WorkspaceRegistry) -> dict[str, Any]:
    """A saved session's data, with a configured ``workspace`` and a text or absent ``folder``.

    Raises ``PersistError`` otherwise (a string-command session's marker says it is gone).
    """
    from ..engine.persist import PersistError, load_data
    from .command_runs import ended_in_memory

    data = load_data(raw)
    ended_in_memory(data)
    workspace = data.get("workspace")
    if not isinstance(workspace, str) or workspace not in registry:
        raise PersistError("the session's workspace is not configured any more")
    folder = data.get("folder")
    if folder is not None and not isinstance(folder, str):
        raise PersistError("the session's folder is not text")
    return data


def rebuild(registry: WorkspaceRegistry, session_id: str, data: dict[str, Any]) -> Session:
    """A new engine session with the saved run loaded into it (blocking: a worker thread's);
    a client's session gets one per call (``client_runs.load_parts``)."""
    from ..engine.persist import load_run
    from .client_runs import load_parts

    workspace, folder = data["workspace"], data.get("folder")
    label, group = data.get("label"), data.get("group")
    label = label[:120] if isinstance(label, str) else None
    if "parts" in data:
        run: Any = load_parts(lambda: registry.new_operator(workspace, folder), data["parts"])
        operator = run.operators[0]
    else:
        operator = registry.new_operator(workspace, folder)
        try:
            run = load_run(operator, data)
        except BaseException:
            close_operator(operator)
            raise
    for made in getattr(run, "operators", None) or [operator]:
        made.label = label  # what it applies from now on is recorded as the client's
    entries = data.get("entries") or {}
    return Session(session_id, workspace, operator, run, data["text"],
                   float(data.get("created") or time.time()), folder,
                   {str(k): str(v) for k, v in dict(entries).items()},
                   label=label,
                   group=group if isinstance(group, str) else None)  # fmt: skip
