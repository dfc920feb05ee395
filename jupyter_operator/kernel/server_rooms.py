"""Whether the Jupyter server that started this kernel holds a notebook or text file in a
collaborative room.

A change the kernel's magics approve is written to the file unless the notebook's page takes
it (``live_runs.OwnPage``). A notebook or text file open in a room (jupyter-collaboration) is
the room's shared document, which the room saves itself: a file written beneath it is reloaded
into the room, which wipes every collaborator's undo history. The kernel cannot edit the
server's rooms, so before writing a file it asks the server (``GET
jupyter-operator/api/rooms?path=``, with the server's own address and token from its runtime
file ``jpserver-<pid>.json``, the pid being ``JPY_PARENT_PID``, which jupyter_client sets for
the kernels it starts); a room holding it refuses the change (``engine/live_route.py``:
``beneath_room``).

No server started this kernel (a console, nbclient): no room can hold anything for it. A server
that does not answer is taken to hold the notebook when jupyter-collaboration is installed
here (refused rather than written beneath a room), and not to otherwise.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: How long the kernel waits for the server's answer.
ANSWER_SECONDS = 5.0
ROUTE = "jupyter-operator/api/rooms"

Ask = Callable[[str, dict[str, str]], dict[str, Any]]


def parent_server() -> dict[str, Any] | None:
    """The runtime information (``url``, ``token``, ...) of the server that started this
    kernel, or None."""
    pid = os.environ.get("JPY_PARENT_PID", "")
    if not pid.isdigit():
        return None
    try:
        from jupyter_core.paths import jupyter_runtime_dir

        info = json.loads((Path(jupyter_runtime_dir()) / f"jpserver-{pid}.json").read_text())
    except (ImportError, OSError, ValueError):
        return None
    return info if isinstance(info, dict) and isinstance(info.get("url"), str) else None


def _ask(url: str, headers: dict[str, str]) -> dict[str, Any]:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=ANSWER_SECONDS) as answer:
        body = json.loads(answer.read(4096))
    if not isinstance(body, dict):
        raise ValueError("the server's answer is not an object")
    return body


def collaboration_installed() -> bool:
    """Whether jupyter-collaboration's server extension is installed here."""
    return importlib.util.find_spec("jupyter_server_ydoc") is not None


class ServerRooms:
    """The rooms of the server that started this kernel, as the engine's ``RoomHolders``."""

    def __init__(self, server: dict[str, Any] | None = None, ask: Ask | None = None,
                 collaboration: Callable[[], bool] = collaboration_installed) -> None:  # fmt: skip
        self._server = server if server is not None else parent_server()
        self._ask = ask
        self._collaboration = collaboration

    def holds(self, path: Path) -> bool:
        """Whether a room holds the file ``path`` (absolute); see the module docstring."""
        server = self._server
        if server is None:
            return False
        url = str(server["url"]).rstrip("/") + "/" + ROUTE + "?" + urllib.parse.urlencode(
            {"path": str(path)})
        token = server.get("token")
        headers = {"Authorization": f"token {token}"} if token else {}
        try:
            return (self._ask or _ask)(url, headers).get("open") is True
        except Exception as exc:  # any failure is "no answer"
            log.warning("jupyter_operator: the server did not say whether a room holds %s (%s)",
                        path.name, type(exc).__name__)  # fmt: skip
            return self._collaboration()
